package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// estScenario is a scenario of 5 minutes at rate whose target answers share of the calls
// 503 from 1 to 3 min, and one policy of attempts attempts retrying 5xx.
func estScenario(t *testing.T, rate int, share float64, attempts int) *scenario.Scenario {
	t.Helper()
	y := fmt.Sprintf(`name: est
duration: 5m
load: {clients: 10, rate: %d/s}
target:
  latency: {p50: 20ms, p99: 100ms}
  phases:
    - {name: errors, at: 1m, for: 2m, faults: [{status: 503, percent: %g%%}]}
policies:
  - {name: p, timeout: 1s, retry: {max_attempts: %d, backoff: exponential, base: 100ms, jitter: full}}
`, rate, share*100, attempts)
	if share == 0 {
		y = strings.Replace(y, "  phases:\n    - {name: errors, at: 1m, for: 2m, faults: [{status: 503, percent: 0%}]}\n", "", 1)
	}
	sc, err := scenario.Parse([]byte(y), "est.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	return sc
}

// The estimate grows with the arrivals, with the share of calls that fail and with the
// attempts a policy makes; without failures it is far below the worst case (every attempt
// failing), which is what it replaced.
func TestEstimateRunMonotonic(t *testing.T) {
	base := EstimateRun(estScenario(t, 100, 0.2, 3), estScenario(t, 100, 0.2, 3).Policies[0])
	if base.Events <= 0 || base.Requests <= 0 || base.Attempts < base.Requests {
		t.Fatalf("base estimate %+v", base)
	}
	for _, tc := range []struct {
		name string
		sc   *scenario.Scenario
	}{
		{"twice the arrivals", estScenario(t, 200, 0.2, 3)},
		{"more failures", estScenario(t, 100, 0.6, 3)},
		{"more attempts", estScenario(t, 100, 0.2, 6)},
	} {
		w := EstimateRun(tc.sc, tc.sc.Policies[0])
		if w.Events <= base.Events || w.Attempts <= base.Attempts {
			t.Errorf("%s: %.0f events, %.0f attempts: not above the base's %.0f and %.0f", tc.name, w.Events, w.Attempts, base.Events, base.Attempts)
		}
	}
	// Attempts per request follow the failure probability: 1 + p + p² for 3 attempts over
	// the two minutes of five that fail.
	for _, p := range []float64{0, 0.2, 0.6, 1} {
		sc := estScenario(t, 100, p, 3)
		w := EstimateRun(sc, sc.Policies[0])
		want := 1 + 0.4*(p+p*p)
		if got := w.Attempts / w.Requests; math.Abs(got-want) > 0.05*want {
			t.Errorf("failing share %g: %.3f attempts per request, want about %.3f", p, got, want)
		}
	}
	sc := estScenario(t, 100, 0, 100)
	w := EstimateRun(sc, sc.Policies[0])
	worst := w.Requests * sc.Policies[0].TheoreticalAmplification()
	if w.Attempts > 1.01*w.Requests || w.Attempts > worst/50 {
		t.Errorf("no failures, 100 attempts: %.0f attempts for %.0f requests (worst case %.0f)", w.Attempts, w.Requests, worst)
	}
}

// The estimate follows the engine: on every bundled scenario and policy its events are
// within a factor of 1.6 of the run's (sim.Events), and its judgement of recovery is the
// run's on storm's kind of run (a stall against a capacity, collapsing or draining).
func TestEstimateRunFollowsTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates every bundled scenario")
	}
	infos, err := scenario.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, sc *scenario.Scenario, judge bool) {
		for _, p := range sc.Policies {
			w := EstimateRun(sc, p)
			n, err := Events(context.Background(), sc, p)
			if err != nil {
				t.Fatal(err)
			}
			if r := float64(n) / w.Events; r < 1/1.6 || r > 1.6 {
				t.Errorf("%s, %s: estimated %.0f events, the run took %d (%.2f×)", name, p.Name, w.Events, n, r)
			}
			if pr, err := RunPolicy(context.Background(), sc, p); err == nil && judge && pr.Recovered != w.Recovered {
				t.Errorf("%s, %s: estimated recovered %v, the run %v", name, p.Name, w.Recovered, pr.Recovered)
			}
		}
	}
	for _, info := range infos {
		sc, err := scenario.Open(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		check(info.Name, sc, false)
	}
	for _, rate := range []int{60, 150} {
		// storm's quick model: 30 workers × 100 ms, a 10 s stall; at 150/s four attempts
		// collapse it (4 × 150 > 300/s), at 60/s the backlog drains.
		sc, err := scenario.Parse([]byte(fmt.Sprintf(`name: stall
duration: 3m
load: {clients: 100, rate: %d/s}
target:
  latency: {fixed: 100ms}
  capacity: {workers: 30, queue: 10000000}
  phases: [{name: outage, at: 30s, for: 10s, stall: true}]
policies:
  - {name: retries, timeout: 1s, retry: {max_attempts: 4, on: [timeout, 5xx], backoff: exponential, base: 100ms, jitter: full}}
  - {name: none, timeout: 1s, retry: {max_attempts: 1}}
`, rate)), "stall.yaml")
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("stall at %d/s", rate), sc, true)
	}
}

// A run's time is its events at the speed measured: linear in the speed, more for clients'
// state once there are many clients; Expect scales an estimate by the speed it measures, and
// measures nothing for one far under the threshold.
func TestSpeedTime(t *testing.T) {
	w := Work{Events: 1e6, Low: 1e6, High: 3e6, Clients: 100}
	s := Speed{PerEvent: 200e-9}
	if a, b := s.Time(w), (Speed{PerEvent: 400e-9}).Time(w); b != 2*a || a <= 0 {
		t.Errorf("twice the cost per event: %v, then %v", a, b)
	}
	if lo, hi := s.Range(w); lo != s.Time(w) || math.Abs(float64(hi-3*lo)) > 10 {
		t.Errorf("range %v–%v for events 1e6–3e6 at %v", lo, hi, s.Time(w))
	}
	few, many := w, w
	few.Stateful, many.Stateful, many.Clients = true, true, 100_000
	if !(s.Time(few) > s.Time(w) && s.Time(many) > 2*s.Time(few)) {
		t.Errorf("per-client state: %v without, %v with 100 clients, %v with 100,000", s.Time(w), s.Time(few), s.Time(many))
	}
	est := Estimate{Time: time.Second, Low: time.Second, High: time.Second}
	if got := Expect(context.Background(), est, 1, time.Minute); got != est {
		t.Errorf("1 s against a threshold of a minute: %+v, want it as it was", got)
	}
	if got := Expect(context.Background(), est, 1, 0); got.Time <= 0 || got.Low != got.Time || got.High != got.Time {
		t.Errorf("calibrated: %+v", got)
	}
	if sp := Calibrate(context.Background(), 2); sp.PerEvent <= 0 || sp.Workers != 2 {
		t.Errorf("Calibrate(2) = %+v", sp)
	}
}

// A scenario with a capacity says a range where a quarter more load tips it: at 150/s the
// quick model collapses, at 120/s it drains, so the run is between the two.
func TestEstimateSpread(t *testing.T) {
	y := `name: tip
duration: 3m
load: {clients: 100, rate: %d/s}
target:
  latency: {fixed: 100ms}
  capacity: {workers: 30, queue: 10000000}
  phases: [{name: outage, at: 30s, for: 10s, stall: true}]
policies:
  - {name: retries, timeout: 1s, retry: {max_attempts: 3, on: [timeout], backoff: exponential, base: 100ms, jitter: full}}
`
	for _, tc := range []struct {
		rate int
		wide bool
	}{{20, false}, {110, true}} {
		sc, err := scenario.Parse([]byte(fmt.Sprintf(y, tc.rate)), "tip.yaml")
		if err != nil {
			t.Fatal(err)
		}
		w := EstimateSpread(sc, sc.Policies[0])
		if !(w.Low <= w.Events && w.Events <= w.High) {
			t.Fatalf("%d/s: %v not within %v–%v", tc.rate, w.Events, w.Low, w.High)
		}
		if wide := w.High > 1.5*w.Low; wide != tc.wide {
			t.Errorf("%d/s: events %.0f–%.0f (point %.0f): a range %v, want %v", tc.rate, w.Low, w.High, w.Events, wide, tc.wide)
		}
	}
}
