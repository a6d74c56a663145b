package sim

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// collapsing is a target that stalls for 10 s and then serves 300/s from a queue bounded at
// queue (0 = no bound): retries past the stall pile orphans into its queue, so a run grows
// every buffer the scratch keeps (agenda, both queue rings, free lists, histogram).
func collapsing(rate float64, queue int, d time.Duration) *scenario.Scenario {
	sc := &scenario.Scenario{
		Name: "collapsing", Seed: 3, Duration: d, Drain: time.Minute,
		Load: scenario.Load{Clients: 50, Rate: rate, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency:  scenario.Distribution{Kind: scenario.DistFixed, Fixed: 100 * time.Millisecond},
			Capacity: &scenario.Capacity{Workers: 30, Queue: queue},
			Phases:   []scenario.Phase{{Name: "stall", At: 10 * time.Second, For: 10 * time.Second, Stall: true}},
		},
	}
	if queue == 0 {
		sc.Target.Capacity.Queue = 1 << 30
	}
	return sc
}

func resultJSON(t *testing.T, pr replay.PolicyResult) string {
	t.Helper()
	b, err := json.Marshal(pr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A run on a scratch another run has grown — the same horizon (the histogram and the
// timeline are reused) or another, a bounded queue or not, another policy — gives the bytes a
// run on a fresh scratch gives: reuse changes the cost of a run, never its result.
func TestScratchReuseKeepsResults(t *testing.T) {
	runs := []struct {
		sc *scenario.Scenario
		p  *policy.Policy
	}{
		{collapsing(112, 0, 2*time.Minute), retrying("retries", 4)},
		{collapsing(60, 500, 2*time.Minute), retrying("retries", 3)},
		{failing(40, 20*time.Second), layered("layered", 2, 3)},
		{failing(40, 20*time.Second), retrying("retries", 4)},
		{collapsing(112, 0, 2*time.Minute), retrying("retries", 4)},
		{collapsing(20, 0, 2*time.Minute), retrying("once", 1)},
	}
	shared := &scratch{}
	for i, r := range runs {
		fresh := newEngine(r.sc, r.p, &scratch{})
		if err := fresh.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := resultJSON(t, fresh.res)
		e := newEngine(r.sc, r.p, shared)
		if err := e.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := resultJSON(t, e.res)
		// Every other run gives its timeline back too, as Recovers does.
		e.release(shared, i%2 == 0)
		if got != want {
			t.Errorf("run %d (%s, %s) on a reused scratch differs from a fresh run", i, r.sc.Name, r.p.Name)
		}
		if i == 0 && (cap(shared.heap)+cap(shared.lanes[laneTimeout]) == 0 || len(shared.freeAtt) == 0 || shared.hist == nil || cap(shared.ring) == 0) {
			t.Fatalf("the first run left nothing to reuse: heap %d, timeouts %d, attempts %d, ring %d",
				cap(shared.heap), cap(shared.lanes[laneTimeout]), len(shared.freeAtt), cap(shared.ring))
		}
	}
}

// RunPolicy reuses scratches through the pool: a run after another allocates much less than
// a run on a fresh scratch (the agenda, the queue rings and the histogram come back), and
// agrees with it. The pool may drop its scratches at a garbage collection, so the best of five
// runs is compared.
func TestRunPolicyReusesScratch(t *testing.T) {
	sc, p := collapsing(112, 0, 2*time.Minute), retrying("retries", 4)
	first, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	want := resultJSON(t, first)
	fresh := testing.AllocsPerRun(1, func() { _ = newEngine(sc, p, &scratch{}).run(context.Background()) })
	reused := fresh
	var last replay.PolicyResult
	for range 5 {
		reused = min(reused, testing.AllocsPerRun(1, func() { last, _ = RunPolicy(context.Background(), sc, p) }))
		if resultJSON(t, last) != want {
			t.Fatal("a run through the pool differs from the first")
		}
	}
	if reused > fresh/2 {
		t.Errorf("%.0f allocations a run through the pool, %.0f on a fresh scratch: want less than half", reused, fresh)
	}
	t.Logf("allocations: %.0f fresh, %.0f reused", fresh, reused)
}

// Recovers answers what RunPolicy's result says, for a run that recovers and one that
// collapses, and keeps no timeline: the next run reuses it.
func TestRecoversIsRunPolicysAnswer(t *testing.T) {
	for _, rate := range []float64{40, 112} {
		sc, p := collapsing(rate, 0, 2*time.Minute), retrying("retries", 4)
		pr, err := RunPolicy(context.Background(), sc, p)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			got, err := Recovers(context.Background(), sc, p)
			if err != nil {
				t.Fatal(err)
			}
			if got != pr.Recovered {
				t.Errorf("rate %g: Recovers = %v, RunPolicy's result says recovered %v", rate, got, pr.Recovered)
			}
		}
		if rate == 112 && pr.Recovered || rate == 40 && !pr.Recovered {
			t.Errorf("rate %g: recovered %v, want the low rate to recover and the high one not", rate, pr.Recovered)
		}
	}
}
