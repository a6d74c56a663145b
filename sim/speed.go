package sim

import (
	"context"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// Speed is how fast this machine simulates now (Calibrate): the wall time one event of the
// reference run takes while Workers simulations run at once. On a busy machine it is longer:
// the calibration shares the cores with whatever else runs, as the simulations after it will.
type Speed struct {
	// PerEvent is in seconds.
	PerEvent float64
	Workers  int
}

// NominalSpeed is the reference run on one free core of the machine the estimate was
// measured on (bench/estimate.sh): what an estimate assumes before anything is measured.
var NominalSpeed = Speed{PerEvent: 230e-9, Workers: 1}

// runPerReference is what an event of a typical run costs against one of the reference run,
// whose short runs pay a larger share of setting up a run (bench/estimate.sh).
const runPerReference = 0.75

// calibrateFor is how long Calibrate measures: long enough to span a few of the scheduler's
// time slices (a few milliseconds each), so that a machine whose cores are shared is seen
// as shared, and short enough not to be noticed before a run of seconds.
const calibrateFor = 50 * time.Millisecond

// referenceScenario is what Calibrate times: 100 clients with a retrying policy (backoff
// with full jitter) against a target with a capacity, a queue and a fifth of its answers
// failing — the common kinds of events in their common proportions, about 20,000 events in
// 2 s of arrivals.
func referenceScenario() (*scenario.Scenario, *policy.Policy) {
	d := 2 * time.Second
	sc := &scenario.Scenario{
		Name: "calibration", Seed: 1, Duration: d, Drain: time.Minute,
		Load: scenario.Load{Clients: 100, Workers: 64, Rate: 2000, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency:  scenario.Lognormal(20*time.Millisecond, 200*time.Millisecond),
			Capacity: &scenario.Capacity{Workers: 400, Queue: 1000},
			Phases: []scenario.Phase{{Name: "flaky", At: 0, For: d,
				Faults: []scenario.Fault{{Kind: scenario.FaultStatus, Status: 503, Percent: 0.2}}}},
		},
	}
	p := &policy.Policy{Name: "retry", Timeout: 2 * time.Second, Retry: policy.Retry{
		MaxAttempts: 4, On: []string{"5xx", "timeout"}, Backoff: policy.BackoffExponential, Base: 50 * time.Millisecond,
		Multiplier: 2, Cap: time.Second, Jitter: policy.JitterFull}}
	return sc, p
}

// Calibrate measures Speed: the reference run on workers goroutines at once, again and again
// for calibrateFor, timed on the wall clock. Each worker first runs it once untimed (its
// buffers are allocated then, as a run's are once; a storm's runs reuse them). It takes
// about calibrateFor and a run more (less when ctx ends).
func Calibrate(ctx context.Context, workers int) Speed {
	workers = max(workers, 1)
	sc, p := referenceScenario()
	// A collection left to run would take a core from the measure (an estimate just made
	// its garbage); one now, on a small heap, takes a millisecond or two.
	runtime.GC()
	var mu sync.Mutex
	var events int64
	var warm, done sync.WaitGroup
	warm.Add(workers)
	start := make(chan time.Time)
	for range workers {
		done.Add(1)
		go func() {
			defer done.Done()
			_, _, err := runPolicy(ctx, sc, p, nil, false)
			warm.Done()
			t0 := <-start
			for err == nil && ctx.Err() == nil {
				var n int64
				if _, n, err = runPolicy(ctx, sc, p, nil, false); err != nil {
					return
				}
				mu.Lock()
				events += n
				mu.Unlock()
				if time.Since(t0) >= calibrateFor {
					return
				}
			}
		}()
	}
	warm.Wait()
	t0 := time.Now()
	for range workers {
		start <- t0
	}
	done.Wait()
	elapsed := time.Since(t0).Seconds()
	if events == 0 || elapsed <= 0 {
		return NominalSpeed
	}
	return Speed{PerEvent: elapsed * float64(workers) / float64(events), Workers: workers}
}

// eventFactor is what an event of w costs against one of a typical run (bench/estimate.sh,
// CPU time per event of every run and probe of the storms it runs, on one core): per-client
// state (budgets, breakers, bulkheads) read at every attempt costs about 15% more, and up to
// about three times as much once 100,000 clients' state outgrows the caches (issue 17's
// storm); a long agenda (thousands of requests in flight) about 20% more.
func eventFactor(w Work) float64 {
	clients := math.Max(0, math.Log10(float64(max(w.Clients, 1)))-2) / 3 // 0 at 100 clients, 1 at 100,000
	f := 1.0
	if w.Stateful {
		f += 0.15 + 1.5*clients
	} else {
		f += 0.3 * clients
	}
	return f * (1 + 0.1*math.Max(0, math.Log10(math.Max(w.InFlight, 1))-1))
}

// Time is how long a run of work w takes at speed s: its events at their cost on this
// machine now.
func (s Speed) Time(w Work) time.Duration {
	return s.time(w.Events, w)
}

// Range is Time at w's Low and High events.
func (s Speed) Range(w Work) (lo, hi time.Duration) {
	return s.time(w.Low, w), s.time(w.High, w)
}

func (s Speed) time(events float64, w Work) time.Duration {
	return time.Duration(events * s.perEvent() * runPerReference * eventFactor(w) * float64(time.Second))
}

func (s Speed) perEvent() float64 {
	if s.PerEvent <= 0 {
		return NominalSpeed.PerEvent
	}
	return s.PerEvent
}

// expectSlack is how much slower than NominalSpeed a machine may be before an estimate under
// the threshold at nominal speed could pass it: below over/expectSlack, Expect measures
// nothing.
const expectSlack = 4

// Expect turns est, made at NominalSpeed, into the estimate for this machine now: it
// calibrates (Calibrate, workers at once) and scales est by the speed measured — unless est
// is so far under over that even expectSlack times slower it would stay under, when est is
// returned as it is (a run that short says nothing up front, and is spared the
// calibration). over 0 always calibrates.
func Expect(ctx context.Context, est Estimate, workers int, over time.Duration) Estimate {
	if over > 0 && est.High*expectSlack <= over {
		return est
	}
	return est.Scaled(Calibrate(ctx, workers).PerEvent / NominalSpeed.PerEvent)
}
