package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/live"
)

// TestServeRunEndToEnd starts serve on a free loopback port, reads the URL from the first
// stdout line, sends a charge through the real socket, reads the stats, and stops it with
// a cancelled context (Ctrl-C): exit 130 after the counters are printed.
func TestServeRunEndToEnd(t *testing.T) {
	pr, pw := io.Pipe()
	var errBuf bytes.Buffer
	opts := &ServeOptions{IO: report.Test(nil, pw, &errBuf), Scenario: "payment-double-charge", Listen: "127.0.0.1:0", Speed: 1, Output: "json"}
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
	if err != nil || st.SideEffects != 1 || st.Keys != 1 {
		t.Errorf("stats %+v %v", st, err)
	}
	cancel()
	rest, _ := io.ReadAll(rd)
	if err := <-done; !errors.Is(err, ErrInterrupted) {
		t.Errorf("serveRun after Ctrl-C: %v, want ErrInterrupted (exit 130)", err)
	}
	if !bytes.Contains(rest, []byte(`"side_effects": 1`)) {
		t.Errorf("final counters not printed:\n%s", rest)
	}
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
