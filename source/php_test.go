package source

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// readPHPDir reads every .php file under one fixture directory as one package.
func readPHPDir(t *testing.T, dir string) []Call {
	t.Helper()
	var in []Input
	root := filepath.Join("testdata", "php", dir)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".php" {
			return err
		}
		b, err := os.ReadFile(path)
		in = append(in, Input{Path: path, Data: b})
		return err
	})
	if err != nil || len(in) == 0 {
		t.Fatalf("no fixture in %s: %v", root, err)
	}
	sort.Slice(in, func(i, j int) bool { return in[i].Path < in[j].Path })
	calls, err := PHP.Read(in)
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

func TestPHPDump(t *testing.T) {
	for _, d := range []string{"seeds", "seeds_retry"} {
		for _, c := range readPHPDir(t, d) {
			t.Logf("%s ctx=%s host=%s attempts=%d layers=%+v retry=%+v notes=%q", summary(c), c.Context, c.Host, c.Attempts(), c.Layers, c.Retry, c.Notes)
		}
	}
}
