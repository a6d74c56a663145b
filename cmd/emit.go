package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/patience-dev/patience/emit"
	"github.com/patience-dev/patience/internal/atomicfile"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/report"
	"github.com/spf13/cobra"
)

// emitFlags are --emit (probe, advise, check --init) and advise's --emit-url.
type emitFlags struct {
	// Values are --emit's values as given, URL is --emit-url, Requests the values read.
	Values   []string
	URL      string
	Requests []emit.Request
}

// emitHelp is --emit's help, the same on every command.
var emitHelp = "TARGET[=PATH]: also write the recommendation in a client's or proxy's own knobs — a complete program, or a configuration file — into the report, or into PATH, which must not exist (repeatable; targets: " +
	strings.Join(emit.TargetNames(), ", ") + ")"

func addEmitFlag(c *cobra.Command, f *emitFlags) {
	c.Flags().StringArrayVar(&f.Values, "emit", nil, emitHelp)
}

// addEmitURLFlag is advise's --emit-url: the source names a host or a route, not a URL.
func addEmitURLFlag(c *cobra.Command, f *emitFlags) {
	c.Flags().StringVar(&f.URL, "emit-url", "", "with --emit: the dependency's URL (scheme and host; a route the source names is put under it), for sources that do not hold it")
}

// parse reads the values before anything is measured: an unknown target, a target named
// twice or a PATH that exists is a usage error naming the flag and the value.
func (f *emitFlags) parse() error {
	reqs, err := emit.ParseRequests(f.Values)
	if err != nil {
		return UsageErrorf("--emit %v", err)
	}
	for _, r := range reqs {
		if r.Path == "" {
			continue
		}
		if _, err := os.Lstat(r.Path); err == nil {
			return UsageErrorf("--emit %s=%s: %s already exists; --emit never overwrites (remove it or name another file)", r.Target, r.Path, r.Path)
		}
	}
	if f.URL != "" && len(reqs) == 0 {
		return UsageErrorf("--emit-url only applies with --emit")
	}
	f.Requests = reqs
	return nil
}

// attach writes the emissions of p's recommendation into p.Emit (group labels an advise
// --by group); a target the recommendation cannot fill is said on stderr, the others kept.
func (f *emitFlags) attach(streams *report.IOStreams, p *profile.Profile, group string) {
	if len(f.Requests) == 0 || p == nil {
		return
	}
	out, errs := emit.ForProfile(p, f.Requests, f.URL, group)
	p.Emit = out
	for _, err := range errs {
		notef(streams, "--emit: %v", err)
	}
}

// writeEmitted writes each emission that names a PATH, never over an existing file; the
// report then says where it went instead of repeating it. One that could not be written
// loses its Path, so the report prints its text instead, and the error is returned.
func writeEmitted(streams *report.IOStreams, ems []profile.Emission) error {
	var errs []error
	for i, e := range ems {
		if e.Path == "" {
			continue
		}
		if err := atomicfile.WriteNew(e.Path, []byte(e.Text)); err != nil {
			if errors.Is(err, fs.ErrExist) {
				err = fmt.Errorf("%s already exists; --emit never overwrites", e.Path)
			}
			errs = append(errs, fmt.Errorf("--emit %s=%s: %w", e.Target, e.Path, err))
			ems[i].Path = ""
			continue
		}
		notef(streams, "wrote %s (%s)", report.Sanitize(e.Path), e.Target)
	}
	return errors.Join(errs...)
}
