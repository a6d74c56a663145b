// Package scenarios holds the bundled scenario files, embedded in the binary so
// `patience replay NAME` works anywhere. Each file tells a real incident and its lesson.
package scenarios

import (
	"embed"
	"io/fs"
	"slices"
	"sort"
	"strings"
)

// FS holds the bundled *.yaml scenarios.
//
//go:embed *.yaml
var FS embed.FS

// serveOnly are the bundled scenarios only `patience serve` plays: their target is one the
// simulator does not model, so replay, storm and check refuse them. None is now: the
// simulator models streams (docs/design.md §6), and llm-stream left the list (issue 29).
// scenario's TestBundledPurposes loads each for serve, sees replay refuse it, and loads
// every other bundled scenario for replay, so this list cannot drift from the files.
var serveOnly []string

// Names lists the bundled scenarios replay, storm and check run, by name (file name without
// .yaml), sorted: every bundled scenario but the serve-only ones (ServeNames).
func Names() []string {
	var out []string
	for _, name := range AllNames() {
		if !ServeOnly(name) {
			out = append(out, name)
		}
	}
	return out
}

// ServeNames lists the bundled scenarios only `patience serve` plays, sorted.
func ServeNames() []string {
	var out []string
	for _, name := range AllNames() {
		if ServeOnly(name) {
			out = append(out, name)
		}
	}
	return out
}

// ServeOnly says whether the bundled scenario name is one only `patience serve` plays.
func ServeOnly(name string) bool { return slices.Contains(serveOnly, name) }

// AllNames lists every bundled scenario by name, sorted: Names and ServeNames together.
func AllNames() []string {
	entries, _ := fs.ReadDir(FS, ".")
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && !e.IsDir() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Read returns the YAML of a bundled scenario by name, verbatim.
func Read(name string) ([]byte, error) {
	if name == "" || strings.ContainsAny(name, `/\.`) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return FS.ReadFile(name + ".yaml")
}
