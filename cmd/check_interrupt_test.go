//go:build unix

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/patience-dev/patience/report"
)

// interruptFiles writes a check file with a dependency that has a finding (PT001) and two
// scenarios: quick.yaml, replayed in milliseconds, whose expectation fails (PT100), then
// long.yaml, two hours at 2000/s, which a run cannot finish before it is interrupted.
func interruptFiles(t *testing.T) (dir, chk string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"patience.yaml": "dependencies:\n  - name: search\n    policy: {timeout: none}\nscenarios: [quick.yaml, long.yaml]\n",
		"quick.yaml":    "name: quick\nduration: 2s\nload: {rate: 5/s}\ntarget:\n  latency: {fixed: 10ms}\npolicies:\n  - {name: a, timeout: 1s}\nexpect: {\"*\": {amplification: \"<= 0.5\"}}\n",
		"long.yaml":     "name: long\nduration: 2h\nload: {rate: 2000/s}\ntarget:\n  latency: {fixed: 10ms}\npolicies:\n  - {name: a, timeout: 1s}\nexpect: {\"*\": {success_rate: \">= 50%\"}}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "patience.yaml")
}

// runInterrupted runs patience with args under a context that SIGINT cancels, as Main's does,
// and sends the process a real SIGINT (Ctrl-C) after wait. The signal is only sent while the
// command runs, and the handler stays installed until the sender is done, so a late signal
// can never reach the test binary's default handler.
func runInterrupted(t *testing.T, wait time.Duration, args ...string) (code int, stdout, stderr string, signalled bool) {
	t.Helper()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-time.After(wait):
			signalled = syscall.Kill(os.Getpid(), syscall.SIGINT) == nil
		case <-done:
		}
	}()
	var out, errOut bytes.Buffer
	f := &Factory{IO: report.Test(nil, &out, &errOut)}
	code = run(ctx, f, args)
	close(done)
	wg.Wait()
	return code, out.String(), errOut.String(), signalled
}

// TestCheckInterruptedPrintsWhatFinished: Ctrl-C while check replays its scenarios prints the
// findings of the dependencies and of the scenario that finished, marked interrupted, names
// the scenario it did not replay, still writes every --report file, and exits 130 (issue 17
// item 5; before, it printed nothing and exited 130 with "stopped before anything finished").
func TestCheckInterruptedPrintsWhatFinished(t *testing.T) {
	dir, chk := interruptFiles(t)
	junit, js := filepath.Join(dir, "check.xml"), filepath.Join(dir, "check.json")
	// 1.5 s: quick.yaml takes milliseconds even under -race on a loaded machine; long.yaml
	// takes minutes.
	code, out, errOut, signalled := runInterrupted(t, 1500*time.Millisecond, "check", chk, "--report", "junit="+junit, "--report", "json="+js)
	if !signalled {
		t.Fatalf("the run ended before it was interrupted: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code != ExitInterrupted {
		t.Errorf("exit %d, want %d\nstderr: %s", code, ExitInterrupted, errOut)
	}
	if !strings.Contains(errOut, "interrupted: partial results above") {
		t.Errorf("stderr does not point at the results above: %q", errOut)
	}
	flat := strings.Join(strings.Fields(out), " ") // findings wrap to the width
	for _, want := range []string{
		"check interrupted:",
		"PT001 search",
		"PT100 quick/a",
		"policy a: amplification",
		"not replayed: " + filepath.Join(dir, "long.yaml"),
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(flat, "long/a") {
		t.Errorf("stdout reports the scenario that did not finish as checked:\n%s", out)
	}

	// The reports are written as for a whole run, and say what was not replayed.
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatalf("--report junit: %v", err)
	}
	if !bytes.Contains(x, []byte("interrupted before it was replayed")) || !bytes.Contains(x, []byte(`classname="quick/a"`)) {
		t.Errorf("the JUnit report does not show the interruption:\n%s", x)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("--report json: %v", err)
	}
	var doc struct {
		Passed      bool `json:"passed"`
		Interrupted bool `json:"interrupted"`
		NotReplayed []struct {
			Scenario string `json:"scenario"`
			Line     int    `json:"line"`
		} `json:"not_replayed"`
		Findings []struct {
			Rule, Dependency string
		} `json:"findings"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Passed || !doc.Interrupted || len(doc.NotReplayed) != 1 || doc.NotReplayed[0].Scenario != filepath.Join(dir, "long.yaml") || doc.NotReplayed[0].Line != 4 {
		t.Errorf("json: passed %v, interrupted %v, not_replayed %+v", doc.Passed, doc.Interrupted, doc.NotReplayed)
	}
	rules := map[string]bool{}
	for _, f := range doc.Findings {
		rules[f.Rule+" "+f.Dependency] = true
	}
	if !rules["PT001 search"] || !rules["PT100 quick/a"] || len(doc.Findings) != 2 {
		t.Errorf("json findings %+v, want PT001 search and PT100 quick/a", doc.Findings)
	}
}
