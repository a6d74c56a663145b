package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/spf13/cobra"
)

// TestServeStreamScenario: `patience serve llm-stream` (the bundled serve-only scenario, at
// --speed 100) answers with an SSE stream through the real socket, records it in the stats'
// streams, and prints that record with its final counters.
func TestServeStreamScenario(t *testing.T) {
	pr, pw := io.Pipe()
	errBuf := &lockedBuffer{}
	opts := &ServeOptions{IO: report.Test(nil, pw, errBuf), Scenario: "llm-stream", Listen: "127.0.0.1:0", Speed: 100, Output: "text"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		err := serveRun(ctx, opts)
		pw.Close()
		done <- err
	}()
	rd := bufio.NewReader(pr)
	line, err := rd.ReadString('\n')
	if err != nil {
		t.Fatalf("no URL line: %v (stderr %s)", err, errBuf.String())
	}
	base := strings.TrimSpace(line)
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(base + "/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" || !strings.HasPrefix(string(body), `data: {"index":0}`) {
		t.Fatalf("content type %q, body starts %.40q (%v)", resp.Header.Get("Content-Type"), body, err)
	}
	completed := err == nil && strings.HasSuffix(string(body), "data: [DONE]\n\n")
	resp, err = c.Get(base + live.StatsPath)
	if err != nil {
		t.Fatal(err)
	}
	var st live.Stats
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st.Streams == nil || st.Streams.Started != 1 || st.Streams.FirstEventMs.Count != 1 {
		t.Fatalf("stats %+v %v", st.Streams, err)
	}
	if want := int64(strings.Count(string(body), `data: {"index"`)); st.Streams.Events != want {
		t.Errorf("record %d events, the client read %d", st.Streams.Events, want)
	}
	if completed != (st.Streams.Completed == 1) {
		t.Errorf("the client read a completed stream: %v; the record %+v", completed, st.Streams)
	}
	cancel()
	rest, _ := io.ReadAll(rd)
	if err := <-done; ExitCode(err) != ExitOK {
		t.Errorf("serveRun after Ctrl-C: %v, want exit 0", err)
	}
	if !strings.Contains(string(rest), "1 started") || !strings.Contains(string(rest), "first event") {
		t.Errorf("final counters have no streams:\n%s", rest)
	}
}

// TestScenarioCompletionByCommand: llm-stream, a stream target, is completed by serve and,
// since the simulator models streams (issue 29), by replay and storm too.
func TestScenarioCompletionByCommand(t *testing.T) {
	for cmd, want := range map[string]bool{"serve": true, "replay": true, "storm": true} {
		names, _ := bundledScenarioCompletion(&cobra.Command{Use: cmd + " [SCENARIO]"}, nil, "")
		if got := slices.Contains(names, "llm-stream"); got != want {
			t.Errorf("%s completes llm-stream: %v, want %v (%v)", cmd, got, want, names)
		}
		if !slices.Contains(names, scenario.DefaultName) {
			t.Errorf("%s does not complete %s: %v", cmd, scenario.DefaultName, names)
		}
	}
}
