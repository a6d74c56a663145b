//go:build linux

package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patience-dev/patience/report"
)

// TestCheckReplayBar: `patience check` on a terminal draws a bar while it replays the
// scenarios its file lists (it showed nothing for as long as they took) and erases it, so
// the terminal holds the report alone.
func TestCheckReplayBar(t *testing.T) {
	dir := t.TempDir()
	// Long enough for mpb to draw a frame (TestFinishedBarIsCleared).
	duration := "30m"
	if raceEnabled {
		duration = "3m"
	}
	sc := filepath.Join(dir, "mid.yaml")
	if err := os.WriteFile(sc, []byte("name: mid\nduration: "+duration+"\nload: {rate: 1000/s}\ntarget:\n  latency: {fixed: 5ms}\npolicies:\n  - {name: a, timeout: 1s}\n  - {name: b, timeout: 2s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "patience.yaml")
	if err := os.WriteFile(file, []byte("scenarios: [mid.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	master, slave := openPTY(t, 100)
	defer master.Close()
	stop := readPTY(master)
	var out bytes.Buffer
	f := &Factory{IO: report.System(nil, &out, slave)}
	if !f.IO.StderrTTY {
		t.Fatal("the pty is not seen as a terminal")
	}
	code := run(context.Background(), f, []string{"check", file})
	slave.Close()
	raw := stop()
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%q", code, out.String(), raw)
	}
	if !strings.Contains(raw, "check replays ") {
		t.Fatalf("no bar was drawn on the terminal: %q", raw)
	}
	if left := screen(raw); len(left) > 0 {
		t.Errorf("the finished bar is left on the terminal:\n%s\n(raw %q)", strings.Join(left, "\n"), raw)
	}
}
