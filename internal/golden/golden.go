// Package golden compares rendered reports with files under testdata/, rewriting them when
// tests run with -update. Import it only from tests.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// Updating reports whether the tests run with -update, for expected output kept elsewhere
// than in a golden file: cmd's testscripts rewrite their cmp files with it.
func Updating() bool { return *update }

// Assert compares got with testdata/NAME.golden, or writes it when -update is set.
func Assert(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update to accept):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
