package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/report"
)

// TestServeRunEndToEnd starts serve on a free loopback port, reads the URL from the first
// stdout line, sends a charge through the real socket, reads the stats, and stops it with
// a cancelled context (Ctrl-C): serve's normal stop, exit 0 after the counters are printed.
func TestServeRunEndToEnd(t *testing.T) {
	pr, pw := io.Pipe()
	errBuf := &lockedBuffer{}
	opts := &ServeOptions{IO: report.Test(nil, pw, errBuf), Scenario: "payment-double-charge", Listen: "127.0.0.1:0", Speed: 1, Output: "text"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		err := serveRun(ctx, opts)
		pw.Close()
		done <- err
	}()
	rd := bufio.NewReader(pr)
	line, err := rd.ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL line: %v (stderr %s)", err, errBuf.String())
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		cancel()
		t.Fatalf("first line %q is not a loopback URL", base)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/charges", strings.NewReader(`{"amount":1}`))
	req.Header.Set(live.IdempotencyKeyHeader, `"order-1"`)
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("charge answered %d", resp.StatusCode)
	}
	resp, err = c.Get(base + live.StatsPath)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var st live.Stats
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st.SideEffects != 1 || st.Keys != 1 || st.URL != base || st.Phase != live.Baseline {
		t.Errorf("stats %+v %v", st, err)
	}
	cancel()
	rest, _ := io.ReadAll(rd)
	if err := <-done; err != nil || ExitCode(err) != ExitOK {
		t.Errorf("serveRun after Ctrl-C: %v, want nil (exit 0)", err)
	}
	if !bytes.Contains(rest, []byte("1 executions of non-idempotent requests")) {
		t.Errorf("final counters not printed:\n%s", rest)
	}
	if !strings.Contains(errBuf.String(), "serve: stopped (interrupted)") {
		t.Errorf("stderr does not say how serve stopped:\n%s", errBuf.String())
	}
}

// TestServeJSONIsOneDocument: with -o json, stdout is exactly one JSON document, the
// counters with the URL inside; the URL line goes to stderr only.
func TestServeJSONIsOneDocument(t *testing.T) {
	var out bytes.Buffer
	errBuf := &lockedBuffer{}
	opts := &ServeOptions{IO: report.Test(nil, &out, errBuf), Scenario: "rate-limited", Listen: "127.0.0.1:0", Speed: 1, For: 50 * time.Millisecond, Output: "json"}
	if err := serveRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	var st live.Stats
	if err := dec.Decode(&st); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("more than one JSON document on stdout:\n%s", out.String())
	}
	if !strings.HasPrefix(st.URL, "http://127.0.0.1:") || st.Scenario != "rate-limited" {
		t.Errorf("stats %+v", st)
	}
	if !strings.Contains(errBuf.String(), st.URL) {
		t.Errorf("stderr lacks the URL %s:\n%s", st.URL, errBuf.String())
	}
}

// lockedBuffer is a bytes.Buffer the server's goroutines can write while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestCheckListen(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		loopback bool
		err      bool
	}{
		{"127.0.0.1:8080", true, false},
		{"[::1]:0", true, false},
		{"localhost:9", true, false},
		{"0.0.0.0:80", false, false},
		{":8080", false, false},
		{"192.168.1.2:80", false, false},
		{"127.0.0.1", false, true},
		{"127.0.0.1:", false, true},
	} {
		lb, err := checkListen(tc.addr)
		if lb != tc.loopback || (err != nil) != tc.err {
			t.Errorf("checkListen(%q) = %v, %v; want %v, err=%v", tc.addr, lb, err, tc.loopback, tc.err)
		}
	}
}

// TestServeStatsPhaseIsTheLoggedPhase: a scenario file with only a target serves; the stats
// endpoint names the phase in force as the phase log on stderr does, and --url-file says
// where the server listens (and goes at stop).
// TestServeLogEscapesPhaseNames: a phase named with terminal escapes (a clipboard write, a
// screen clear) is logged escaped, never raw.
func TestServeLogEscapesPhaseNames(t *testing.T) {
	dir := t.TempDir()
	file, urlFile := filepath.Join(dir, "evil.yaml"), filepath.Join(dir, "url")
	yaml := "name: evil\ntarget:\n  latency: {fixed: 1ms}\n  phases: [{name: \"\\e]52;c;ZXZpbA==\\a\\e[2Jbroken\", at: 0s, for: 10m, faults: [{status: 503}]}]\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	errBuf := &lockedBuffer{}
	opts := &ServeOptions{IO: report.Test(nil, &out, errBuf), Scenario: file, Listen: "127.0.0.1:0", Speed: 1,
		For: time.Minute, URLFile: urlFile, Output: "text"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	for deadline := time.Now().Add(time.Minute); !strings.Contains(errBuf.String(), "broken"); time.Sleep(5 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("serve ended before logging the phase: %v (stderr %q)", err, errBuf.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no phase logged within a minute: %v (stderr %q)", <-done, errBuf.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serveRun after Ctrl-C: %v, want nil (exit 0)", err)
	}
	if s := errBuf.String() + out.String(); strings.ContainsAny(s, "\x1b\x07") {
		t.Errorf("an escape reached the terminal: %q", s)
	}
}

func TestServeStatsPhaseIsTheLoggedPhase(t *testing.T) {
	dir := t.TempDir()
	file, urlFile := filepath.Join(dir, "tiny.yaml"), filepath.Join(dir, "url")
	yaml := "name: tiny\ntarget:\n  latency: {fixed: 1ms}\n  phases: [{name: broken, at: 0s, for: 10m, faults: [{status: 503}]}]\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	errBuf := &lockedBuffer{}
	opts := &ServeOptions{IO: report.Test(nil, &out, errBuf), Scenario: file, Listen: "127.0.0.1:0", Speed: 1,
		For: time.Minute, URLFile: urlFile, Output: "json"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- serveRun(ctx, opts) }()
	var base string
	for deadline := time.Now().Add(time.Minute); base == ""; time.Sleep(5 * time.Millisecond) {
		if b, err := os.ReadFile(urlFile); err == nil {
			base = strings.TrimSpace(string(b))
		} else if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no URL file within a minute: %v (stderr %s)", <-done, errBuf.String())
		}
	}
	resp, err := http.Get(base + live.StatsPath)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var st live.Stats
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st.Phase != "broken" || st.URL != base {
		t.Errorf("stats phase %q url %q (%v), want broken at %s", st.Phase, st.URL, err, base)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serveRun after Ctrl-C: %v, want nil (exit 0)", err)
	}
	if !strings.Contains(errBuf.String(), "phase broken\n") {
		t.Errorf("stderr does not log phase broken:\n%s", errBuf.String())
	}
	if _, err := os.Stat(urlFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--url-file left behind: %v", err)
	}
}
