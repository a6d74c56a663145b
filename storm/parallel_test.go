package storm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/scenarios"
)

// stormJSON runs sc with a stable_below_per_s search per policy on parallel workers.
func stormJSON(t *testing.T, sc *scenario.Scenario, m *Model, parallel int) []byte {
	t.Helper()
	res, err := Run(context.Background(), sc, Options{Bisect: true, Model: m, Parallel: parallel})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every bundled scenario, storm-run with its searches as `patience storm NAME` runs it, gives
// the same bytes on one worker as on two: which worker ran which probe, and which
// probes were run speculatively, never shows in the result.
func TestBundledScenariosSameBytesOnAnyParallelism(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			o := quickOverrides()
			o.Scenario = name
			sc, m := apply(t, o)
			one, two := stormJSON(t, sc, m, 1), stormJSON(t, sc, m, 2)
			if !bytes.Equal(one, two) {
				t.Fatalf("%s: the JSON on two workers differs from one worker's (%d vs %d bytes)", name, len(two), len(one))
			}
		})
	}
}

// fakeEngine stands for the simulator: policy p recovers below threshold[p.Name], and every
// run sleeps a pseudo-random time of its own (a hash of policy and rate) so that runs finish
// in an order unrelated to the order they started in.
type fakeEngine struct {
	threshold map[string]float64
	calls     atomic.Int64
	cancelled atomic.Int64
	mu        sync.Mutex
	rates     map[string][]float64 // every rate run, per policy, in start order
}

func (f *fakeEngine) run(ctx context.Context, sc *scenario.Scenario, p *policy.Policy) (replay.PolicyResult, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.rates[p.Name] = append(f.rates[p.Name], sc.Load.Rate)
	f.mu.Unlock()
	h := fnv.New32a()
	fmt.Fprintf(h, "%s %g", p.Name, sc.Load.Rate)
	select {
	case <-time.After(time.Duration(h.Sum32()%3000) * time.Microsecond):
	case <-ctx.Done():
		f.cancelled.Add(1)
		return replay.PolicyResult{}, ctx.Err()
	}
	return replay.PolicyResult{Name: p.Name, Requests: 1, Recovery: replay.Recovery{Judged: true, Recovered: sc.Load.Rate < f.threshold[p.Name]}}, nil
}

// The scheduler's searches end where the sequential Bisect ends, with its Runs, on any number
// of workers, for thresholds below the bracket, above it and inside it; with more than one
// worker some probes are speculative, and those no branch needs any more are cancelled.
func TestSearchesMatchBisectOnAnyParallelism(t *testing.T) {
	m := DefaultModel()
	thresholds := []float64{1, 5000, 75.3, 150, 212.1, 299, 6.5, 12}
	var ps []*policy.Policy
	for i := range thresholds {
		ps = append(ps, Layered(fmt.Sprintf("p%d", i), []int{1}, time.Second))
	}
	sc := m.Scenario(ps)
	capacity := m.CapacityPerS
	tol := capacity * DefaultTolerance
	var speculated bool
	for _, parallel := range []int{1, 2, 3, 8} {
		f := &fakeEngine{threshold: map[string]float64{}, rates: map[string][]float64{}}
		for i, th := range thresholds {
			f.threshold[ps[i].Name] = th
		}
		res, err := Run(context.Background(), sc, Options{Bisect: true, Parallel: parallel, engine: f.run})
		if err != nil {
			t.Fatal(err)
		}
		runs := 0
		for i, p := range res.Policies {
			th := thresholds[i]
			want, err := Bisect(context.Background(), func(_ context.Context, rate float64) (bool, error) { return rate < th, nil }, tol, capacity, tol)
			if err != nil {
				t.Fatal(err)
			}
			if p.Bisection == nil || *p.Bisection != want && !sameBisection(*p.Bisection, want) {
				t.Errorf("parallel %d, threshold %g: bisection %+v, want Bisect's %+v", parallel, th, p.Bisection, want)
			}
			runs += want.Runs + 1 // the search's probes and the policy's own run
		}
		switch calls := int(f.calls.Load()); {
		case parallel == 1 && calls != runs:
			t.Errorf("one worker ran %d simulations, want the sequential %d (no speculation)", calls, runs)
		case parallel > 1 && calls > runs:
			speculated = true
			if f.cancelled.Load() == 0 && parallel == 8 {
				t.Logf("parallel %d: %d speculative runs, none cancelled", parallel, calls-runs)
			}
		case calls < runs:
			t.Errorf("parallel %d ran %d simulations, fewer than the %d the searches need", parallel, calls, runs)
		}
	}
	if !speculated {
		t.Error("no run with more than one worker ran a speculative probe")
	}
}

func sameBisection(a, b Bisection) bool {
	return a.StableBelowPerS == b.StableBelowPerS && a.LoPerS == b.LoPerS && a.HiPerS == b.HiPerS &&
		a.TolerancePerS == b.TolerancePerS && a.Runs == b.Runs &&
		(a.FirstFailurePerS == nil) == (b.FirstFailurePerS == nil) &&
		(a.FirstFailurePerS == nil || *a.FirstFailurePerS == *b.FirstFailurePerS)
}

// A single policy's search uses a second worker: the probes it may need next run while the
// one it needs now does.
func TestOneSearchUsesTwoWorkers(t *testing.T) {
	m := DefaultModel()
	sc := m.Scenario([]*policy.Policy{Layered("retries", []int{4}, time.Second)})
	var running, most atomic.Int64
	f := &fakeEngine{threshold: map[string]float64{"retries": 75}, rates: map[string][]float64{}}
	engine := func(ctx context.Context, sc *scenario.Scenario, p *policy.Policy) (replay.PolicyResult, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		return f.run(ctx, sc, p)
	}
	if _, err := Run(context.Background(), sc, Options{Bisect: true, Parallel: 2, engine: engine}); err != nil {
		t.Fatal(err)
	}
	if most.Load() != 2 {
		t.Errorf("at most %d simulations ran at once on two workers, want 2", most.Load())
	}
}

// A panic in a worker goroutine — in a bisection probe or in a policy's own run — does not
// kill the process: Run returns it as a *PanicError with the panic's value and the stack of
// the goroutine that panicked, stops the other workers, and returns the policies finished
// before it in scenario order.
func TestWorkerPanicIsAnError(t *testing.T) {
	m := DefaultModel()
	m.Duration = time.Minute
	for _, tc := range []struct {
		name     string
		parallel int
		probe    bool
	}{{"probe, one worker", 1, true}, {"probe, two workers", 2, true}, {"own run, two workers", 2, false}, {"own run, four workers", 4, false}} {
		t.Run(tc.name, func(t *testing.T) {
			sc := m.Scenario(Mitigations(m.Attempts, time.Second))
			victim := sc.Policies[2].Name
			f := &fakeEngine{threshold: map[string]float64{}, rates: map[string][]float64{}}
			for _, p := range sc.Policies {
				f.threshold[p.Name] = 100
			}
			engine := func(ctx context.Context, s *scenario.Scenario, p *policy.Policy) (replay.PolicyResult, error) {
				if p.Name == victim && (s.Load.Rate != sc.Load.Rate) == tc.probe {
					panicInWorker()
				}
				if p.Name != sc.Policies[0].Name && p.Name != sc.Policies[1].Name && p.Name != victim {
					// Later policies run until they are stopped: Run must cancel them.
					<-ctx.Done()
					return replay.PolicyResult{}, ctx.Err()
				}
				return f.run(ctx, s, p)
			}
			done := make(chan struct{})
			var res *Result
			var err error
			go func() {
				defer close(done)
				res, err = Run(context.Background(), sc, Options{Bisect: true, Parallel: tc.parallel, engine: engine})
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Run did not return after a worker panicked: the other workers were not stopped")
			}
			var pe *PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T), want a *PanicError", err, err)
			}
			if pe.Value != "injected panic" || pe.Policy != victim || (pe.Rate > 0) != tc.probe {
				t.Errorf("PanicError value %v policy %q rate %g, want the injected panic in %q (probe %v)", pe.Value, pe.Policy, pe.Rate, victim, tc.probe)
			}
			if !strings.Contains(string(pe.Stack), "panicInWorker") {
				t.Errorf("stack does not show where it panicked:\n%s", pe.Stack)
			}
			if msg := err.Error(); !strings.Contains(msg, "injected panic") || !strings.Contains(msg, victim) {
				t.Errorf("error %q does not name the panic and the policy", msg)
			}
			// One worker finishes the policies before the victim first; more may have stopped
			// them half done (their searches), and return the finished ones in order.
			if res == nil || !res.Interrupted {
				t.Fatalf("result %v: want an interrupted one", res)
			}
			if n := len(res.Policies); n > 2 || tc.parallel == 1 && n != 2 {
				t.Errorf("%d policies returned, want the 2 before %q (fewer on more workers)", n, victim)
			}
			for i, p := range res.Policies {
				if p.Name != sc.Policies[i].Name {
					t.Errorf("policy %d is %q, want %q: the finished ones in scenario order", i, p.Name, sc.Policies[i].Name)
				}
			}
		})
	}
}

//go:noinline
func panicInWorker() { panic("injected panic") }

// A panic outside any simulation — here the Progress callback, which the scheduler calls
// from a worker — is recovered by the worker too.
func TestSchedulerPanicIsAnError(t *testing.T) {
	m := DefaultModel()
	sc := m.Scenario(Mitigations(m.Attempts, time.Second)[:2])
	f := &fakeEngine{threshold: map[string]float64{"retries": 80, "no-retries": 250}, rates: map[string][]float64{}}
	_, err := Run(context.Background(), sc, Options{Bisect: true, Parallel: 2, engine: f.run,
		Progress: func(done, total int) { panicInWorker() }})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "injected panic" || !strings.Contains(string(pe.Stack), "panicInWorker") {
		t.Fatalf("err = %v, want a *PanicError from the Progress callback", err)
	}
}

// A search replays Bisect over the outcomes known so far: it stops at the first probe nobody
// has run, lists the probes a probe in flight can lead to (its recovering branch first), and
// ends with the error of a probe that failed.
func TestSearchReplayStopsAtUnknown(t *testing.T) {
	se := &search{lo: 6, hi: 300, tol: 1, known: map[float64]outcome{}, running: map[float64]context.CancelFunc{}}
	_, at, err := se.replay(nil)
	if err != errUnknown || at != 6 {
		t.Fatalf("empty search: %v at %g, want errUnknown at lo", err, at)
	}
	se.known[6] = outcome{recovered: true}
	se.running[12] = func() {}
	want, live := se.reachable()
	if len(want) != 2 || want[0] != 24 || want[1] != 9 || !live[12] {
		t.Errorf("12 in flight: reachable %v (live %v), want [24 (12 recovers) 9 (12 fails)]", want, live)
	}
	se.known[12] = outcome{err: errors.New("boom")}
	delete(se.running, 12)
	if _, _, err := se.replay(nil); err == nil || err.Error() != "boom" {
		t.Errorf("a probe's error ends the search: got %v", err)
	}
}
