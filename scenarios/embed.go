// Package scenarios holds the bundled scenario files, embedded in the binary so
// `patience replay NAME` works anywhere. Each file tells a real incident and its lesson.
package scenarios

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

// FS holds the bundled *.yaml scenarios.
//
//go:embed *.yaml
var FS embed.FS

// Names lists the bundled scenarios by name (file name without .yaml), sorted.
func Names() []string {
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
