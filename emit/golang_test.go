package emit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestGoProgramVets: every emitted Go program is gofmt'ed and passes go vet in a module of
// its own (standard library only); skipped, saying so, where go or gofmt is absent.
func TestGoProgramVets(t *testing.T) {
	for _, tool := range []string{"go", "gofmt"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH: the emitted Go is not vetted here", tool)
		}
	}
	for _, c := range pyGoCases() {
		t.Run(c.name, func(t *testing.T) {
			e, err := Emit(Go, c.in)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module emitted\n\ngo 1.22\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(e.Text), 0o644); err != nil {
				t.Fatal(err)
			}
			if out := runIn(t, dir, "gofmt", "-l", "."); strings.TrimSpace(out) != "" {
				t.Errorf("gofmt -l lists %s", out)
			}
			runIn(t, dir, "go", "vet", ".")
		})
	}
}

// runIn runs a tool in dir and fails the test when it fails.
func runIn(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}
