package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// estimateScenario is a scenario of duration at rate with n policies of 3 attempts, against
// a target that fails a fifth of its calls for its first minute.
func estimateScenario(t *testing.T, duration string, rate, n int) *scenario.Scenario {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "name: est\nduration: %s\nload: {rate: %d/s}\ntarget:\n  latency: {fixed: 5ms}\n"+
		"  phases: [{name: flaky, at: 0s, for: 1m, faults: [{status: 503, percent: 20%%}]}]\npolicies:\n", duration, rate)
	for i := range n {
		fmt.Fprintf(&b, "  - {name: p%d, timeout: 1s, retry: {max_attempts: 3, backoff: exponential, base: 100ms}}\n", i)
	}
	sc, err := scenario.Parse([]byte(b.String()), "est.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return sc
}

// The estimate of a run's replays grows with each scenario's duration, rate and policies, and
// adds up over the scenarios.
func TestEstimateReplays(t *testing.T) {
	speed := sim.NominalSpeed
	base := estimateScenario(t, "10m", 100, 1)
	baseEst := EstimateReplays([]*scenario.Scenario{base}, speed)
	if baseEst.Scenarios != 1 || baseEst.Policies != 1 || baseEst.Time <= 0 {
		t.Fatalf("base: %+v", baseEst)
	}
	for _, tc := range []struct {
		name string
		sc   *scenario.Scenario
	}{
		{"longer", estimateScenario(t, "20m", 100, 1)},
		{"faster", estimateScenario(t, "10m", 200, 1)},
		{"more policies", estimateScenario(t, "10m", 100, 2)},
		{"all three", estimateScenario(t, "20m", 200, 2)},
	} {
		got := EstimateReplays([]*scenario.Scenario{tc.sc}, speed)
		if got.Time <= baseEst.Time {
			t.Errorf("%s: %v, not above the base's %v", tc.name, got.Time, baseEst.Time)
		}
	}
	// Twice the arrivals, about twice the work.
	double := EstimateReplays([]*scenario.Scenario{estimateScenario(t, "10m", 200, 1)}, speed)
	if r := float64(double.Time) / float64(baseEst.Time); r < 1.8 || r > 2.2 {
		t.Errorf("twice the rate: %v, %.3f× the base's %v", double.Time, r, baseEst.Time)
	}
	other := estimateScenario(t, "10m", 100, 2)
	two := EstimateReplays([]*scenario.Scenario{base, other}, speed)
	if want := baseEst.Time + EstimateReplays([]*scenario.Scenario{other}, speed).Time; two.Scenarios != 2 || two.Policies != 3 || two.Time != want {
		t.Errorf("two scenarios: %+v, want 2 scenarios, 3 policies, %v", two, want)
	}
	if got := EstimateReplays(nil, speed); got != (ReplayEstimate{}) {
		t.Errorf("no scenario: %+v", got)
	}
}

// Run gives Options.Estimate the estimate of every listed scenario once, before the first
// replay, and each scenario is read once: removed after the estimate, it is still replayed.
// Far under EstimateOver, it is sim's estimate at nominal speed, uncalibrated.
func TestRunEstimate(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	text := func(name string) string {
		return "name: " + name + "\nduration: 1m\nload: {rate: 50/s}\ntarget:\n  latency: {fixed: 10ms}\npolicies:\n  - {name: a, timeout: 1s}\n  - {name: b, timeout: 2s}\n"
	}
	for _, name := range []string{"one", "two"} {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(text(name)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	f, err := Load("patience.yaml", []byte("scenarios: ["+paths[0]+", "+paths[1]+"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []ReplayEstimate
	progressed := false
	opts := Options{EstimateOver: time.Hour,
		Estimate: func(e ReplayEstimate) {
			if progressed {
				t.Error("Estimate called after a replay began")
			}
			got = append(got, e)
			for _, p := range paths {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		},
		Progress: func(int, int) { progressed = true }}
	res, err := Run(context.Background(), []*File{f}, opts)
	if err != nil || res.Summary.Scenarios != 2 {
		t.Fatalf("err %v, %+v", err, res)
	}
	if len(got) != 1 {
		t.Fatalf("Estimate called %d times, want once: %+v", len(got), got)
	}
	var scs []*scenario.Scenario
	for _, name := range []string{"one", "two"} {
		sc, err := scenario.Parse([]byte(text(name)), name+".yaml")
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	if want := EstimateReplays(scs, sim.NominalSpeed); got[0] != want || want.Scenarios != 2 || want.Policies != 4 {
		t.Errorf("estimate %+v, want %+v", got[0], want)
	}
}

// No estimate without a scenario or with a Replay of the caller's; a scenario that does not
// load, or that Admit refuses, is left out of it, and its replay reports the error.
func TestRunEstimateNotCalled(t *testing.T) {
	called := 0
	estimate := func(ReplayEstimate) { called++ }
	noScenario, err := Load("patience.yaml", []byte("dependencies:\n  - name: search\n    policy: {timeout: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), []*File{noScenario}, Options{Estimate: estimate}); err != nil {
		t.Fatal(err)
	}
	listed, err := Load("patience.yaml", []byte("scenarios: [elsewhere.yaml]\n"))
	if err != nil {
		t.Fatal(err)
	}
	fake := func(context.Context, string) (*Replay, error) { return &Replay{Scenario: "fake"}, nil }
	if _, err := Run(context.Background(), []*File{listed}, Options{Estimate: estimate, Replay: fake}); err != nil {
		t.Fatal(err)
	}
	if called != 0 {
		t.Fatalf("Estimate called %d times", called)
	}
	dir := t.TempDir()
	refused := filepath.Join(dir, "refused.yaml")
	if err := os.WriteFile(refused, []byte("name: refused\nduration: 1m\nload: {rate: 50/s}\ntarget:\n  latency: {fixed: 10ms}\npolicy: {timeout: 1s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		admit      func(*scenario.Scenario) error
	}{
		{"missing", filepath.Join(dir, "missing.yaml"), nil},
		{"refused", refused, func(*scenario.Scenario) error { return errors.New("above the budget") }},
	} {
		f, err := Load("patience.yaml", []byte("scenarios: ["+tc.path+"]\n"))
		if err != nil {
			t.Fatal(err)
		}
		var got ReplayEstimate
		called = 0
		_, err = Run(context.Background(), []*File{f}, Options{Admit: tc.admit, EstimateOver: time.Hour, Estimate: func(e ReplayEstimate) { got = e; called++ }})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
		}
		if called != 1 || got != (ReplayEstimate{}) {
			t.Errorf("%s: Estimate called %d times with %+v, want once with nothing", tc.name, called, got)
		}
	}
}
