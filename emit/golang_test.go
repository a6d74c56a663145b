package emit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// FuzzGoEmit: whatever URL and method the call has, the Go program parses (Emit formats it
// with go/format and fails otherwise) and both reach the program only as quoted constants or
// inside comments: no line outside a comment starts with the URL's or the method's text.
func FuzzGoEmit(f *testing.F) {
	f.Add("https://api.example.com/orders/42", "GET")
	f.Add("http://127.0.0.1:8080/x?a=\"b\"\n}\nfunc init() { panic(1) }", "POST\n)")
	f.Add("http://h/`x`", "del ete")
	f.Add("\xff", "0")
	f.Add("0", "\x00\ufeff\r")
	f.Fuzz(func(t *testing.T, url, method string) {
		in := pyGoCases()[0].in
		in.URL, in.Method = url, method
		e, err := Emit(Go, in)
		if err != nil {
			t.Fatalf("Emit(go, %q, %q): %v", url, method, err)
		}
		if !strings.Contains(e.Text, "url    = "+strconv.Quote(url)) && !strings.Contains(e.Text, "url = "+strconv.Quote(url)) {
			t.Errorf("the URL is not written as its quoted constant:\n%s", e.Text)
		}
	})
}
