package storm

import (
	"context"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/sim"
)

// The search the estimate replays is the one Run makes: over the estimated outcomes of its
// probes, the default storm's searches take as many probes as the simulation's, give or take
// a few, and find a stable rate close to the one found.
func TestEstimateReplaysTheSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the default storm")
	}
	m := DefaultModel()
	sc := m.Scenario(Mitigations(m.Attempts, time.Second))
	res, err := Run(context.Background(), sc, Options{Bisect: true, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Bisect: true, Parallel: 2, Tolerance: DefaultTolerance}
	for i, p := range sc.Policies {
		pe := estimatePolicy(sc, p, newResult(sc, nil), opts)
		b := res.Policies[i].Bisection
		if b == nil {
			t.Fatalf("%s: no search", p.Name)
		}
		if d := len(pe.probes) - b.Runs; d < -3 || d > 3 {
			t.Errorf("%s: the estimate's search takes %d probes, the run's %d", p.Name, len(pe.probes), b.Runs)
		}
		if d := pe.stable - b.StableBelowPerS; d < -0.15*DefaultCapacity || d > 0.15*DefaultCapacity {
			t.Errorf("%s: the estimate's search finds %g/s stable, the run's %g/s", p.Name, pe.stable, b.StableBelowPerS)
		}
	}
}

// Run's scheduler replayed in virtual time: policies without searches share the workers (the
// longest alone on enough workers, the sum on one), and a search adds its probes.
func TestEstimateTimeSchedules(t *testing.T) {
	m := DefaultModel()
	sc := m.Scenario(Mitigations(m.Attempts, time.Second))
	res := newResult(sc, nil)
	cost := func(j job) (time.Duration, bool) {
		if j.probe {
			return 10 * time.Millisecond, j.rate < 100
		}
		return time.Duration(j.policy+1) * time.Second, false
	}
	n := len(sc.Policies)
	sum := time.Duration(n*(n+1)/2) * time.Second
	if got := scheduleTime(sc, res, Options{Parallel: 1}, cost); got != sum {
		t.Errorf("one worker, no search: %v, want the sum %v", got, sum)
	}
	if got := scheduleTime(sc, res, Options{Parallel: n}, cost); got != time.Duration(n)*time.Second {
		t.Errorf("a worker per policy, no search: %v, want the longest, %v", got, time.Duration(n)*time.Second)
	}
	withSearch := scheduleTime(sc, res, Options{Parallel: 1, Bisect: true, Tolerance: DefaultTolerance}, cost)
	if withSearch <= sum {
		t.Errorf("with searches: %v, not above %v", withSearch, sum)
	}
	one := EstimateTime(sc, true, 1, sim.NominalSpeed)
	two := EstimateTime(sc, true, 2, sim.NominalSpeed)
	if !(two.Time < one.Time && one.Time > 0) {
		t.Errorf("default storm on one worker %v, on two %v", one.Time, two.Time)
	}
	if noSearch := EstimateTime(sc, false, 1, sim.NominalSpeed); noSearch.Time >= one.Time {
		t.Errorf("without searches %v, with %v", noSearch.Time, one.Time)
	}
}

// The expected time is far below the worst case (EstimateCost, every attempt failing) when
// nothing fails, and grows with the arrivals and the attempts; a storm whose worst case is
// far under the threshold is not estimated at all.
func TestEstimateTimeExpected(t *testing.T) {
	m := issue17Model()
	m.Clients, m.Duration, m.Outages, m.Errors = 100, 2*time.Minute, nil, nil
	quiet := m.Scenario([]*policy.Policy{Layered("retries", []int{50}, time.Second)})
	quiet.Target.Phases = nil
	est := EstimateTime(quiet, false, 1, sim.NominalSpeed)
	worst := EstimateCost(quiet, false, 1)
	if est.Time <= 0 || est.Time > worst.Time/20 {
		t.Errorf("no fault, 50 attempts: expected %v, worst case %v", est.Time, worst.Time)
	}
	m = DefaultModel()
	base := EstimateTime(m.Scenario([]*policy.Policy{Layered("retries", []int{4}, time.Second)}), false, 1, sim.NominalSpeed)
	m.RatePerS *= 2
	faster := EstimateTime(m.Scenario([]*policy.Policy{Layered("retries", []int{4}, time.Second)}), false, 1, sim.NominalSpeed)
	m = DefaultModel()
	deeper := EstimateTime(m.Scenario([]*policy.Policy{Layered("retries", []int{4, 4}, time.Second)}), false, 1, sim.NominalSpeed)
	if !(faster.Time > base.Time && deeper.Time > base.Time) {
		t.Errorf("default model %v; twice the rate %v; two layers of 4 %v", base.Time, faster.Time, deeper.Time)
	}
	if _, ok := Expect(context.Background(), quiet, false, 1, Cost{Time: time.Second}, time.Minute); ok {
		t.Error("a worst case of 1 s against a threshold of a minute was estimated")
	}
	if est, ok := Expect(context.Background(), quiet, false, 1, worst, 0); !ok || est.Time <= 0 {
		t.Errorf("threshold 0: %+v, %v", est, ok)
	}
}
