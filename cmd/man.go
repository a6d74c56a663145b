package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/atomicfile"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// ManOptions are the arguments of `patience man`.
type ManOptions struct {
	// Dir is where the pages are written (created when missing).
	Dir string
	// Root is the command tree the pages describe.
	Root *cobra.Command
}

// NewCmdMan builds `patience man DIR`: a man page per command (patience.1,
// patience-probe.1, …) from the same help texts as --help, by cobra's doc generator. The
// release archives ship them (.goreleaser.yaml runs it before the build).
func NewCmdMan(f *Factory, runF func(*ManOptions) error) *cobra.Command {
	opts := &ManOptions{}
	c := &cobra.Command{
		Use:   "man DIR",
		Short: "Write a man page for every command into DIR",
		Long: `Write a man page for every command into DIR (created when missing): patience.1,
patience-probe.1, patience-replay.1 and so on, from the same texts as --help. Read one
with man -l DIR/patience-probe.1, or install them where man looks (MANPATH).`,
		Example: `  patience man ./manpages
  man -l manpages/patience-probe.1`,
		Args: usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Dir, opts.Root = args[0], c.Root()
			if runF != nil {
				return runF(opts)
			}
			return manRun(opts)
		},
	}
	return c
}

func manRun(opts *ManOptions) error {
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return UsageErrorf("man: %v", err)
	}
	v := currentVersion()
	header := &doc.GenManHeader{
		Section: "1",
		Source:  "patience " + v.Version,
		Manual:  "patience manual",
		Date:    manDate(v),
	}
	// The pages are the same bytes for the same build: no "auto generated" line, and the
	// build's date rather than today's.
	opts.Root.DisableAutoGenTag = true
	if err := writeManTree(opts.Root, header, opts.Dir); err != nil {
		return fmt.Errorf("man: %w", err)
	}
	return nil
}

// writeManTree writes the pages cobra's doc.GenManTree writes — the same names (the command
// path joined by "-", then "." and the section), the same commands (available ones, not help
// topics), the same bytes from doc.GenMan — but each through internal/atomicfile: a page is
// replaced whole, never through a symbolic link planted in DIR (GenManTree truncates and
// writes through whatever is there).
func writeManTree(c *cobra.Command, header *doc.GenManHeader, dir string) error {
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		if err := writeManTree(sub, header, dir); err != nil {
			return err
		}
	}
	name := strings.ReplaceAll(c.CommandPath(), " ", "-") + "." + header.Section
	page := *header       // GenMan fills in the title: one copy per page, as GenManTree does
	if !isCompletion(c) { // cobra's completion texts are Markdown already
		long := c.Long
		c.Long = manMarkdown(long)
		defer func() { c.Long = long }()
	}
	return atomicfile.Write(filepath.Join(dir, name), func(w io.Writer) error {
		return doc.GenMan(c, &page, w)
	})
}

// isCompletion says whether c is cobra's completion command or one of its shells.
func isCompletion(c *cobra.Command) bool {
	for ; c != nil; c = c.Parent() {
		if c.Name() == "completion" {
			return true
		}
	}
	return false
}

// manMarkdown turns a help text into the Markdown cobra's GenMan reads (it converts Long
// with md2man), so that the page says what --help says: a wrapped line that starts with "#"
// ("# patience:ignore") stays text instead of becoming a heading, characters Markdown would
// take for emphasis or links stay as written, and an indented block — a table of rules, of
// presets or of commands — is kept line for line (a code block) instead of reflowed.
func manMarkdown(long string) string {
	var b strings.Builder
	inBlock := false
	for _, line := range strings.Split(long, "\n") {
		indented := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
		switch {
		case indented && !inBlock:
			b.WriteString("\n")
			inBlock = true
		case !indented && inBlock && line != "":
			b.WriteString("\n")
			inBlock = false
		}
		if inBlock {
			if line != "" {
				b.WriteString("    " + line)
			}
			b.WriteString("\n")
			continue
		}
		b.WriteString(manEscape(line) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// manEscape backslash-escapes the characters Markdown gives a meaning to inside a line (a
// "#" only opens a heading at its start, but escaping it everywhere is harmless).
func manEscape(line string) string {
	var b strings.Builder
	for _, r := range line {
		if strings.ContainsRune("\\`*_[]<>#", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// manDate is the date a page carries: the commit's time when the build knows it, else
// SOURCE_DATE_EPOCH or today (cobra's choice, with a nil date).
func manDate(v VersionInfo) *time.Time {
	if t, err := time.Parse(time.RFC3339, v.Date); err == nil {
		return &t
	}
	return nil
}
