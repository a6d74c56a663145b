// Package corpus finds the shared corpus of real files taken from the upstream projects'
// examples, tests and parser fixtures (shared/corpus/real beside the repository, with its
// PROVENANCE.md naming repository, path, commit and licence per file). Those files are never
// copied into this repository: a test reads them where they are, and is skipped, saying so,
// where the folder is absent (a plain clone). CI has the folder. Import it only from tests.
package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names a directory that overrides where the corpus is looked for.
const Env = "PATIENCE_CORPUS"

// RequiredEnv, set to 1, turns a missing corpus or corpus file into a failure instead of a
// skip: .ci/run sets it where the corpus is present, so a renamed file cannot turn its test
// into a silent skip.
const RequiredEnv = "PATIENCE_CORPUS_REQUIRED"

// Dir returns the corpus directory, or "" when there is none: $PATIENCE_CORPUS, else
// ../shared/corpus/real from the module root (the directory holding go.mod, found upward
// from the test's working directory).
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			c := filepath.Join(d, "..", "shared", "corpus", "real")
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return c
			}
			// A nested module (conformance/) looks further up.
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Path returns the path of the corpus file name, skipping the test (and saying why) when
// the corpus or the file is absent.
func Path(t testing.TB, name string) string {
	t.Helper()
	skip := t.Skipf
	if os.Getenv(RequiredEnv) == "1" {
		skip = t.Fatalf
	}
	dir := Dir()
	if dir == "" {
		skip("corpus file %s: no shared/corpus/real beside the repository (set %s to read it from elsewhere); CI has it", name, Env)
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		skip("corpus file %s: %v", name, err)
	}
	return p
}
