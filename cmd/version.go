package cmd

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/patience-dev/patience/report"
	"github.com/spf13/cobra"
)

// Set by goreleaser through -ldflags "-X github.com/patience-dev/patience/cmd.version=…".
var (
	version = ""
	commit  = ""
	date    = ""
)

// VersionInfo is the result of `patience version`.
type VersionInfo struct {
	Schema  string `json:"schema"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
}

// VersionOptions are the flags of `patience version`.
type VersionOptions struct {
	IO     *report.IOStreams
	Output string
}

var versionFormats = report.Registry[VersionInfo]{
	"text": func(w io.Writer, v VersionInfo, _ report.Options) error {
		_, err := fmt.Fprintf(w, "patience %s (commit %s, built %s, %s)\n", v.Version, v.Commit, v.Date, v.Go)
		return err
	},
	"json": report.JSON[VersionInfo],
}

// NewCmdVersion builds `patience version`.
func NewCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
	addOutputFlag(c, &opts.Output, versionFormats.Names())
	return c
}

func versionRun(opts *VersionOptions) error {
	render, err := versionFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	return render(opts.IO.Out, currentVersion(), opts.IO.Options())
}

// currentVersion prefers the ldflags values and falls back to the module build info, so
// `go install` and `go run` builds still say something true.
func currentVersion() VersionInfo {
	v := VersionInfo{Schema: "patience/version/v1", Version: version, Commit: commit, Date: date, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if v.Commit == "" {
					v.Commit = s.Value
				}
			case "vcs.time":
				if v.Date == "" {
					v.Date = s.Value
				}
			}
		}
	}
	for _, p := range []*string{&v.Version, &v.Commit, &v.Date} {
		if *p == "" {
			*p = "unknown"
		}
	}
	return v
}
