package emit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The Go target in net/http: the program is compiled in a module of its own, outside the
// timed run, and the binary runs.
func init() {
	addRealClient(realClient{
		target:  Go,
		file:    "main.go",
		command: []string{"go"},
		check:   [][]string{{"go", "version"}},
		build:   buildGoProgram,
	})
}

// buildGoProgram compiles the program at path in a module of its own in dir and returns the
// binary to run.
func buildGoProgram(t *testing.T, dir, path string) []string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module emitted\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "emitted")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, path)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", path, err, out)
	}
	return []string{bin}
}
