package storm

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// EstimateTime is what storm-running sc is expected to take on this machine at speed (a
// sim.Calibrate of parallel workers): each policy's run and, with bisect, the probes of its
// stable_below_per_s search, each estimated by sim.EstimateRun, scheduled as Run schedules
// them on parallel workers. The search is Bisect replayed over the probes' estimated
// outcomes (sim.Work.Recovered), so its probes are the rates the run will try when the
// estimate judges them as the simulation will, and the speculative probes a free worker
// takes are counted too.
//
// Unlike EstimateCost — the bound --max-cost holds a run to, which assumes every attempt
// fails — this is the expected time; Low and High bound it where a policy's run may tip
// (sim.EstimateSpread).
func EstimateTime(sc *scenario.Scenario, bisect bool, parallel int, speed sim.Speed) sim.Estimate {
	if sc == nil || len(sc.Policies) == 0 {
		return sim.Estimate{}
	}
	res := newResult(sc, nil)
	opts := Options{Bisect: bisect, Parallel: max(parallel, 1), Tolerance: DefaultTolerance}
	// Each policy's run and the search it is expected to make, the policies side by side.
	policies := make([]policyEstimate, len(sc.Policies))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(parallel, 1))
	for i, p := range sc.Policies {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			policies[i] = estimatePolicy(sc, p, res, opts)
		}()
	}
	wg.Wait()
	schedule := func(main func(sim.Work) time.Duration) time.Duration {
		return scheduleTime(sc, res, opts, func(j job) (time.Duration, bool) {
			pe := &policies[j.policy]
			if !j.probe {
				return main(pe.main), false
			}
			w, ok := pe.probe(j.rate)
			return speed.Time(w), ok
		})
	}
	lo := func(w sim.Work) time.Duration { t, _ := speed.Range(w); return t }
	hi := func(w sim.Work) time.Duration { _, t := speed.Range(w); return t }
	return sim.Estimate{Time: schedule(speed.Time), Low: schedule(lo), High: schedule(hi)}
}

// policyEstimate is one policy's run (sim.EstimateSpread) and the probes its search is
// expected to make, by rate (sim.EstimateRun at that rate), with the rate it is expected to
// find stable.
type policyEstimate struct {
	main   sim.Work
	probes map[float64]sim.Work
	stable float64
}

// estimatePolicy estimates policy p's run and replays its search (Bisect) over the
// estimated outcomes of its probes.
func estimatePolicy(sc *scenario.Scenario, p *policy.Policy, res *Result, opts Options) policyEstimate {
	pe := policyEstimate{main: sim.EstimateSpread(sc, p), probes: map[float64]sim.Work{}}
	lo, hi, tol, ok := searchBracket(sc, p, res, opts)
	if !ok {
		return pe
	}
	b, _ := Bisect(context.Background(), func(_ context.Context, rate float64) (bool, error) {
		at := *sc
		at.Load.Rate = rate
		w := sim.EstimateRun(&at, p)
		pe.probes[rate] = w
		return w.Recovered, nil
	}, lo, hi, tol)
	pe.stable = b.StableBelowPerS
	return pe
}

// probe is the estimate of a probe at rate: the search's own, or for a rate only a
// speculative probe tries, the events per request of the nearest probes at that rate's
// arrivals, and the outcome the search's answer implies.
func (pe *policyEstimate) probe(rate float64) (sim.Work, bool) {
	if w, ok := pe.probes[rate]; ok {
		return w, w.Recovered
	}
	near, best := 0.0, math.Inf(1)
	for r := range pe.probes {
		if d := math.Abs(math.Log(r / rate)); d < best || (d == best && r < near) {
			near, best = r, d
		}
	}
	if near == 0 {
		return sim.Work{}, rate <= pe.stable
	}
	w := pe.probes[near]
	f := rate / near
	w.Requests, w.Attempts, w.Events = w.Requests*f, w.Attempts*f, w.Events*f
	w.Low, w.High = w.Events, w.Events
	return w, rate <= pe.stable
}

// scheduleTime replays Run's scheduler (parallel.go) in virtual time: its workers take jobs
// as pick gives them, each lasting what cost says, and a probe's outcome is cost's too; a
// probe the search stops needing is cancelled at once. It returns when the last job ends.
func scheduleTime(sc *scenario.Scenario, res *Result, opts Options, cost func(job) (time.Duration, bool)) time.Duration {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	s := newScheduler(ctx, stop, sc, res, opts)
	type slot struct {
		j         job
		end       time.Duration
		recovered bool
		busy      bool
	}
	slots := make([]slot, s.parallel)
	var now time.Duration
	for {
		for k := range slots {
			if slots[k].busy {
				continue
			}
			j, st := s.take()
			if st != took {
				break
			}
			d, ok := cost(j)
			slots[k] = slot{j: j, end: now + d, recovered: ok, busy: true}
			s.active++
		}
		next := -1
		for k := range slots {
			if slots[k].busy && (next < 0 || slots[k].end < slots[next].end) {
				next = k
			}
		}
		if next < 0 {
			return now
		}
		now = slots[next].end
		slots[next].busy = false
		s.active--
		s.record(slots[next].j, nil, slots[next].recovered, nil)
		// Probes the search no longer needs stop now.
		for k := range slots {
			if slots[k].busy && slots[k].j.ctx.Err() != nil {
				slots[k].busy = false
				s.active--
				s.record(slots[k].j, nil, false, slots[k].j.ctx.Err())
			}
		}
	}
}

// Expect is what a storm of sc is expected to take on this machine, asked before it runs
// with the threshold over under which nothing is said: EstimateTime at sim.NominalSpeed,
// calibrated on parallel workers (sim.Expect). When even the worst case (worst, EstimateCost)
// is far under over, nothing is estimated or measured and ok is false.
func Expect(ctx context.Context, sc *scenario.Scenario, bisect bool, parallel int, worst Cost, over time.Duration) (est sim.Estimate, ok bool) {
	if over > 0 && worst.Time*expectSlack <= over {
		return sim.Estimate{}, false
	}
	est = EstimateTime(sc, bisect, parallel, sim.NominalSpeed)
	return sim.Expect(ctx, est, parallel, over), true
}

// expectSlack is how far over the worst case's time (EstimateCost, at its own conservative
// speed) a run on a slow machine may go: below over/expectSlack, Expect estimates nothing.
const expectSlack = 4
