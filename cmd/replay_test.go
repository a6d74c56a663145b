package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/demo"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/scenarios"
	"github.com/patience-dev/patience/sim"
	"github.com/patience-dev/patience/storm"
)

func TestReplayFlags(t *testing.T) {
	var got *ReplayOptions
	f := &Factory{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{})}
	c := NewCmdReplay(f, func(o *ReplayOptions) error { got = o; return nil })
	c.SetArgs([]string{"shipping-queue", "--policy", "preset:none", "--policy", "p.yaml", "--seed", "42", "-o", "markdown"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := ReplayOptions{Scenario: "shipping-queue", Policies: []string{"preset:none", "p.yaml"}, Seed: 42, SeedSet: true, Output: "markdown", Live: LiveFlags{Speed: 1}}
	got.IO = nil
	if d := cmp.Diff(want, *got); d != "" {
		t.Errorf("options (-want +got):\n%s", d)
	}
}

// Ctrl-C before any policy finished renders nothing and says that nothing finished (not
// "partial results above", issue 17), exit 130.
func TestReplayInterruptedBeforeAnyPolicy(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, out, errOut := runCmd(t, ctx, "", "replay", "retry-storm-10-servers")
	if code != ExitInterrupted || out != "" || !strings.Contains(errOut, "interrupted: stopped before anything finished: nothing to report") || strings.Contains(errOut, "partial results") {
		t.Errorf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
}

// Ctrl-C after a policy finished renders it, marked as interrupted, and points at it, exit
// 130. The run is stopped by its own progress report at the end of the first policy.
func TestReplayInterruptedAfterOnePolicy(t *testing.T) {
	sc, err := scenario.Open("retry-storm-10-servers")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, runErr := sim.Run(ctx, sc, sim.Options{Progress: func(done, _ int) {
		if done == 1000 {
			cancel()
		}
	}})
	if runErr == nil || len(res.Policies) != 1 {
		t.Fatalf("err %v, %d policies finished; want the first alone", runErr, len(res.Policies))
	}
	var out, errOut bytes.Buffer
	f := &Factory{IO: report.Test(nil, &out, &errOut)}
	err = replayFinish(&ReplayOptions{IO: f.IO}, report.ReplayFormats["text"], res, runErr)
	printError(f, err)
	if ExitCode(err) != ExitInterrupted || !strings.Contains(out.String(), sc.Policies[0].Name) ||
		!strings.Contains(out.String(), "interrupted: only the policies above were replayed") ||
		!strings.Contains(errOut.String(), "interrupted: partial results above") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr: %s", ExitCode(err), out.String(), errOut.String())
	}
}

// The demo's replay stage replays the default scenario and shows its lesson.
func TestDemoReplay(t *testing.T) {
	var out bytes.Buffer
	d := &demo.Result{}
	opts := &DemoOptions{IO: report.Test(nil, &out, &bytes.Buffer{}), Output: "text"}
	if err := demoReplay(context.Background(), opts, d); err != nil {
		t.Fatal(err)
	}
	if err := report.DemoSectionText(&out, d, "replay", opts.IO.Options()); err != nil {
		t.Fatal(err)
	}
	// Verdicts wrap to the width; join the words back to read them.
	text := strings.Join(strings.Fields(out.String()), " ")
	if !strings.Contains(text, "replay delivery-date-hang") || !strings.Contains(text, "unrelated pages die") {
		t.Errorf("demo replay:\n%s", out.String())
	}
}

// hugeReplay is a scenario whose simulation is estimated at about an hour (several times the
// default budget, whatever speed storm's cost model assumes): a day at 20,000/s through three
// attempts against a target that always fails.
const hugeReplay = `name: a-day-at-5000
duration: 24h
load: {rate: 20000/s}
target:
  latency: {fixed: 1ms}
  phases:
    - {name: down, at: 0s, for: 24h, faults: [{status: 503, percent: 100%}]}
policy: {timeout: 1s, retry: {max_attempts: 3, on: [5xx]}}
`

// TestReplayMaxCost: replay has storm's guard (issue 17): a simulation estimated above the
// default budget is refused before it starts, with the estimate and the flag; --max-cost
// raises the budget (the run then starts: stopped here by Ctrl-C); the bundled scenarios fit.
func TestReplayMaxCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	if err := os.WriteFile(path, []byte(hugeReplay), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, context.Background(), "", "replay", path)
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "this run would simulate about 5.18 billion attempts, taking about ") ||
		!strings.Contains(errOut, "above the budget of 10m,2GiB (raise it with --max-cost ") || !strings.HasSuffix(errOut, ", or --max-cost none)\n") {
		t.Errorf("default budget: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	code, out, errOut = runCmd(t, ctx, "", "replay", path, "--max-cost", "100h")
	if code != ExitInterrupted || out != "" || strings.Contains(errOut, "budget") || !strings.Contains(errOut, "stopped before anything finished") {
		t.Errorf("--max-cost 100h: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	code, _, errOut = runCmd(t, context.Background(), "", "replay", path, "--max-cost", "lots")
	if code != ExitUsage || !strings.Contains(errOut, `--max-cost: "lots": want a time (30m), a size (8GiB), both (30m,8GiB) or none`) {
		t.Errorf("--max-cost lots: exit %d, stderr %q", code, errOut)
	}
	for _, name := range scenarios.Names() {
		sc, err := scenario.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := storm.DefaultBudget.Check(storm.EstimateCost(sc, false, 1)); err != nil {
			t.Errorf("bundled %s refused: %v", name, err)
		}
	}
}
