// Package report renders result structs — it never computes a statistic. Every format of a
// command reads the same result struct, so text, JSON and Markdown cannot drift apart.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Options are the rendering decisions taken once per run by IOStreams.
type Options struct {
	Styles Styles
	// Width is the terminal width available to tables and charts.
	Width int
	// Color says whether Styles emit ANSI escapes (used by goldens and charts).
	Color bool
}

// Renderer writes one result in one format.
type Renderer[T any] func(w io.Writer, result T, opts Options) error

// Registry maps format names to renderers for one result type (after conftest's output
// registry): Get picks one, Names feeds --help and shell completion.
type Registry[T any] map[string]Renderer[T]

// Names lists the formats in a stable order: text first, then the rest alphabetically.
func (r Registry[T]) Names() []string {
	names := make([]string, 0, len(r))
	for n := range r {
		if n != "text" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if _, ok := r["text"]; ok {
		names = append([]string{"text"}, names...)
	}
	return names
}

// Get returns the renderer for a format, or an error listing the choices. The renderer
// writes through a terminalWriter: no control character of a user-supplied string (a
// scenario name, a description, a URL) reaches the terminal, whatever the format and colour;
// and, but in the github format, through a commandGuard: no line is a workflow command.
func (r Registry[T]) Get(format string) (Renderer[T], error) {
	if f, ok := r[format]; ok {
		return func(w io.Writer, result T, o Options) error {
			tw := newTerminalWriter(w, o.Color)
			if format == "github" {
				return f(tw, result, o) // its lines are workflow commands, their data escaped
			}
			g := &commandGuard{w: tw}
			err := f(g, result, o)
			if ferr := g.Flush(); err == nil {
				err = ferr
			}
			return err
		}, nil
	}
	return nil, fmt.Errorf("unknown output format %q: want one of %s", format, strings.Join(r.Names(), ", "))
}

// machineFormats are formats read by programs: no progress bars, no colour.
var machineFormats = map[string]bool{"json": true, "junit": true, "sarif": true, "github": true}

// IsMachineFormat says whether a format is for programs rather than people.
func IsMachineFormat(format string) bool { return machineFormats[format] }

// JSON renders any result struct as indented JSON; the struct's tags are the contract.
func JSON[T any](w io.Writer, result T, _ Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(result)
}
