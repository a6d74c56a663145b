//go:build linux

package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patience-dev/patience/report"
)

// TestEstimateAnnouncedOnATerminal: `patience check` and `patience storm` expected to run for
// minutes say so on a terminal before their bar ("about 1 min 40 s (1 scenario, 2
// policies)"); with -q neither does, and check says nothing with -o json (storm's line is on
// stderr in any format, so a run in a pipe does not look hung). Each run is stopped once the
// line came, or a moment after it would have: the runs themselves take minutes.
func TestEstimateAnnouncedOnATerminal(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "long.yaml")
	if err := os.WriteFile(sc, []byte("name: long\nduration: 2h\nload: {rate: 5000/s}\ntarget:\n  latency: {fixed: 5ms}\n"+
		"policies:\n  - {name: a, timeout: 1s}\n  - {name: b, timeout: 2s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "patience.yaml")
	if err := os.WriteFile(file, []byte("scenarios: [long.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := []string{"--rate", "3000/s", "--capacity", "6000/s", "--duration", "20m"}
	for _, tc := range []struct {
		args []string
		want string // "" no line
		bar  string
	}{
		{[]string{"check", file}, "(1 scenario, 2 policies)", "check replays"},
		{[]string{"check", "-q", file}, "", ""},
		{[]string{"check", "-o", "json", file}, "", ""},
		{append([]string{"storm"}, big...), "(6 policies and their stable-rate searches on", "storm "},
		{append([]string{"storm", "-q"}, big...), "", ""},
	} {
		raw := stopWhen(t, tc.args, tc.want)
		line := ""
		for _, l := range strings.Split(raw, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "about ") {
				line = strings.TrimSpace(l)
			}
		}
		switch {
		case tc.want == "" && line != "":
			t.Errorf("%v: said %q", tc.args, line)
		case tc.want != "" && !strings.Contains(line, tc.want):
			t.Errorf("%v: no estimate %q on the terminal: %q", tc.args, tc.want, raw)
		case tc.want != "" && strings.Contains(raw, tc.bar) && strings.Index(raw, tc.bar) < strings.Index(raw, line):
			t.Errorf("%v: the estimate comes after the bar: %q", tc.args, raw)
		}
	}
}

// stopWhen runs args on a pty until its output holds want (at most 20 s), or for a second
// and a half when want is "", and returns what the terminal received.
func stopWhen(t *testing.T, args []string, want string) string {
	t.Helper()
	master, slave := openPTY(t, 120)
	defer master.Close()
	var mu sync.Mutex
	var got bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			got.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	f := &Factory{IO: report.System(nil, &bytes.Buffer{}, slave)}
	if !f.IO.StderrTTY {
		t.Fatal("the pty is not seen as a terminal")
	}
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		run(ctx, f, args)
	}()
	deadline := time.Now().Add(1500 * time.Millisecond)
	if want != "" {
		deadline = time.Now().Add(20 * time.Second)
	}
	for time.Now().Before(deadline) {
		mu.Lock()
		seen := want != "" && strings.Contains(got.String(), want)
		mu.Unlock()
		if seen {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-ran
	slave.Close()
	<-read
	mu.Lock()
	defer mu.Unlock()
	return strings.ReplaceAll(got.String(), "\r", "")
}
