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

// TestLiveReplayBar: `replay --live` on a terminal draws a bar while it runs (it printed one
// estimate and then nothing for a minute), erases it when done, and its notes — the estimate
// before, the timer lateness after — are left on the terminal whole, not cut by the bar's
// frames.
func TestLiveReplayBar(t *testing.T) {
	sc := filepath.Join(t.TempDir(), "liveish.yaml")
	// 20 s of arrivals at speed 20: a second of real time per policy.
	if err := os.WriteFile(sc, []byte("name: liveish\nduration: 20s\ndrain: 2s\nload: {clients: 1, workers: 10, rate: 20/s}\ntarget:\n  latency: {fixed: 10ms}\npolicies:\n  - {name: a, timeout: 1s}\n  - {name: b, timeout: 2s}\n"), 0o644); err != nil {
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
	// --no-fail: the bar is under test, not the verdict — on a loaded machine a 50 ms real
	// timeout (1 s at speed 20) can fire and judge a policy ✗, which exits 1 (issue 26).
	code := run(context.Background(), f, []string{"replay", "--live", "--no-fail", "--speed", "20", sc})
	slave.Close()
	raw := stop()
	if code != ExitOK || !strings.Contains(out.String(), "liveish") {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	if !strings.Contains(raw, "live liveish ") {
		t.Fatalf("no bar was drawn on the terminal: %q", raw)
	}
	left := strings.Join(screen(raw), "\n")
	if strings.Contains(left, "live liveish ") {
		t.Errorf("the finished bar is left on the terminal:\n%s", left)
	}
	for _, note := range []string{"live: 2 policies one after another", "live: timer lateness p50"} {
		if !strings.Contains(left, note) {
			t.Errorf("note %q is not on the terminal after the run:\n%s\n(raw %q)", note, left, raw)
		}
	}
}
