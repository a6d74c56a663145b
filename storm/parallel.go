package storm

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// PanicError is a panic in one of the goroutines a storm Run starts (a simulation, its
// analysis, a bisection probe), recovered there and returned by Run as an error: a panic in
// a goroutine other than the caller's would kill the process past any recover the caller has.
// It is a bug in patience; the command reports it as an internal error (exit 70) with Value
// and Stack, as it reports a panic of its own goroutine.
type PanicError struct {
	// Policy is the policy being simulated when it panicked; Rate the arrival rate of a
	// bisection probe (0 for the policy's own run).
	Policy string
	Rate   float64
	// Value is what was passed to panic; Stack the panicking goroutine's stack (debug.Stack).
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	where := "a worker"
	if e.Policy != "" {
		where = fmt.Sprintf("policy %q", e.Policy)
	}
	if e.Rate > 0 {
		where += fmt.Sprintf(" (bisection probe at %g/s)", e.Rate)
	}
	return fmt.Sprintf("storm: panic in %s: %v", where, e.Value)
}

// engineFunc simulates one policy on a scenario: sim.RunPolicy, or a test's replacement.
type engineFunc func(context.Context, *scenario.Scenario, *policy.Policy) (replay.PolicyResult, error)

// engines are the simulations a Run makes: a policy's own run, whose result it reports, and a
// probe, of which it asks only whether the policy recovered (sim.Recovers keeps nothing of
// the run, so the next reuses all of its buffers).
type engines struct {
	run      engineFunc
	recovers func(context.Context, *scenario.Scenario, *policy.Policy) (bool, error)
}

// enginesFor is sim's engines, or those of a test's engine.
func enginesFor(test engineFunc) engines {
	if test == nil {
		return engines{run: sim.RunPolicy, recovers: sim.Recovers}
	}
	return engines{run: test, recovers: func(ctx context.Context, sc *scenario.Scenario, p *policy.Policy) (bool, error) {
		pr, err := test(ctx, sc, p)
		return pr.Recovered, err
	}}
}

// The default storm is six policies, each a run of its own plus a stable_below_per_s search of
// 8–13 runs that depend on each other (each probe's rate follows from the outcomes before
// it). A pool of one worker per core runs them as jobs: a policy's own run is one job, and so
// is each probe of a search. A free worker takes, in this order,
//
//  1. the next probe a started search needs (the sequential search, replayed over the outcomes
//     known so far, asks for a rate nobody is running): searches finish in scenario order;
//  2. the next unit not started yet, in scenario order (a policy's run, or a search's first
//     probe);
//  3. a speculative probe: a rate a started search will need if a probe now in flight comes
//     out one way. Without it, the last search of a run would leave every other core idle.
//
// Every probe is a deterministic simulation of (scenario, policy, rate), so its outcome does
// not depend on who ran it or when; the Bisection reported is always the sequential search
// replayed over those outcomes (Bisect), with its Runs, whatever was run speculatively. A
// speculative probe that can no longer be needed is cancelled. One worker never speculates:
// with Parallel 1 the jobs run in the order the sequential code would run them.

// job is one simulation: policy i's own run (probe false) or a probe of its search at rate.
type job struct {
	policy int
	probe  bool
	rate   float64
	ctx    context.Context
}

// outcome is a finished probe.
type outcome struct {
	recovered bool
	err       error
}

// search is one policy's stable_below_per_s search: the sequential Bisect over [lo, hi] with
// tolerance tol, fed from the outcomes known so far.
type search struct {
	lo, hi, tol float64
	started     bool
	known       map[float64]outcome
	// running holds the probes in flight and the cancel of each.
	running map[float64]context.CancelFunc
	done    bool
	result  Bisection
	err     error
}

// errUnknown and errInFlight stop a replay of the search at the first probe whose outcome is
// not known (errUnknown: nobody runs it; errInFlight: someone does).
var (
	errUnknown  = errors.New("storm: probe outcome unknown")
	errInFlight = errors.New("storm: probe in flight")
)

// replay runs the sequential search over the known outcomes, with assume deciding probes in
// flight. It returns the finished Bisection (err nil or a probe's error), or the rate at
// which it stopped with errUnknown or errInFlight.
func (s *search) replay(assume map[float64]bool) (Bisection, float64, error) {
	var at float64
	b, err := Bisect(context.Background(), func(_ context.Context, rate float64) (bool, error) {
		if o, ok := s.known[rate]; ok {
			return o.recovered, o.err
		}
		if v, ok := assume[rate]; ok {
			return v, nil
		}
		at = rate
		if _, ok := s.running[rate]; ok {
			return false, errInFlight
		}
		return false, errUnknown
	}, s.lo, s.hi, s.tol)
	return b, at, err
}

// maxReplays bounds the branches one look at a search's future explores (2^probes in flight).
const maxReplays = 64

// reachable lists the rates the search may still need that are neither known nor in flight,
// in order of preference (the in-flight probes assumed to recover first), and every
// in-flight rate that some branch still passes through.
func (s *search) reachable() (want []float64, live map[float64]bool) {
	live = map[float64]bool{}
	replays := 0
	var walk func(assume map[float64]bool)
	walk = func(assume map[float64]bool) {
		if replays++; replays > maxReplays {
			return
		}
		_, at, err := s.replay(assume)
		switch err {
		case errUnknown:
			for _, r := range want {
				if r == at {
					return
				}
			}
			want = append(want, at)
		case errInFlight:
			live[at] = true
			for _, v := range []bool{true, false} {
				next := make(map[float64]bool, len(assume)+1)
				for r, a := range assume {
					next[r] = a
				}
				next[at] = v
				walk(next)
			}
		}
	}
	walk(nil)
	return want, live
}

// scheduler hands jobs to the workers of one Run.
type scheduler struct {
	mu   sync.Mutex
	cond *sync.Cond
	ctx  context.Context
	// stop cancels every simulation when a worker panicked.
	stop     context.CancelFunc
	parallel int
	// units is the work in order: policy i's run is units[2i], its search units[2i+1].
	searches []*search
	next     int // the first unit not started (2i: run of i, 2i+1: search of i)
	// results
	outs     []*PolicyResult
	mainErrs []error
	mainDone []bool
	complete []bool
	nDone    int
	active   int // jobs running
	panicked *PanicError
	progress func(done, total int)
	// workFn is Options.Work: credit[i] is policy i's work done, share[i] its whole
	// (its run and the most probes its search can take).
	workFn        func(done, total int)
	credit, share []int
}

// reportWork calls work with the work done so far: policy i's credit grows by one with its
// run and each probe its search keeps, up to its share, and is its whole share once the
// policy is complete.
func (s *scheduler) reportWork(i int, step bool) {
	if s.workFn == nil {
		return
	}
	if i >= 0 {
		switch {
		case s.complete[i]:
			s.credit[i] = s.share[i]
		case step:
			s.credit[i] = min(s.credit[i]+1, s.share[i]-1)
		}
	}
	done, total := 0, 0
	for j := range s.share {
		done += s.credit[j]
		total += s.share[j]
	}
	s.workFn(done, total)
}

// pick returns the next job for a free worker, waiting while every job left is running; false
// when there is nothing left to do (or the run was stopped).
func (s *scheduler) pick() (job, bool) {
	for {
		if s.panicked != nil || s.ctx.Err() != nil {
			return job{}, false
		}
		j, st := s.take()
		switch st {
		case took:
			return j, true
		case nothingLeft:
			return job{}, false
		}
		s.cond.Wait()
	}
}

// takeStatus says what take found.
type takeStatus int

const (
	took        takeStatus = iota // a job
	mustWait                      // none now: every job left is running
	nothingLeft                   // none ever
)

// take is the next job for a free worker, in pick's order, without waiting.
func (s *scheduler) take() (job, takeStatus) {
	// 1. A probe a started search needs.
	for i, se := range s.searches {
		if se == nil || !se.started || se.done {
			continue
		}
		if rate, ok := s.advance(i); ok {
			return s.probeJob(i, rate), took
		}
	}
	// 2. The next unit not started.
	for s.next < 2*len(s.searches) {
		u := s.next
		s.next++
		i := u / 2
		if u%2 == 0 {
			return job{policy: i, ctx: s.ctx}, took
		}
		if se := s.searches[i]; se != nil {
			se.started = true
			if rate, ok := s.advance(i); ok {
				return s.probeJob(i, rate), took
			}
		}
	}
	// 3. A probe a started search may need, when there is more than one worker.
	if s.parallel > 1 {
		for i, se := range s.searches {
			if se == nil || !se.started || se.done {
				continue
			}
			if want, _ := se.reachable(); len(want) > 0 {
				return s.probeJob(i, want[0]), took
			}
		}
	}
	if s.active == 0 {
		return job{}, nothingLeft
	}
	return job{}, mustWait
}

// advance replays search i: it records the search's end when every outcome it needs is
// known, and otherwise returns the rate it needs next if nobody is running it.
func (s *scheduler) advance(i int) (float64, bool) {
	se := s.searches[i]
	b, at, err := se.replay(nil)
	switch err {
	case errUnknown:
		return at, true
	case errInFlight:
		return 0, false
	}
	se.done, se.result, se.err = true, b, err
	for _, cancel := range se.running {
		cancel() // speculative probes nobody needs any more
	}
	s.finished(i)
	return 0, false
}

func (s *scheduler) probeJob(i int, rate float64) job {
	ctx, cancel := context.WithCancel(s.ctx)
	s.searches[i].running[rate] = cancel
	return job{policy: i, probe: true, rate: rate, ctx: ctx}
}

// finished counts policy i done once its run and its search (if any) are.
func (s *scheduler) finished(i int) {
	if s.complete[i] || !s.mainDone[i] || (s.searches[i] != nil && !s.searches[i].done) {
		return
	}
	s.complete[i] = true
	s.reportWork(i, false)
	if s.mainErrs[i] == nil && (s.searches[i] == nil || s.searches[i].err == nil) {
		s.nDone++
		if s.progress != nil {
			s.progress(s.nDone, len(s.complete))
		}
	}
}

// record stores what job j produced.
func (s *scheduler) record(j job, out *PolicyResult, recovered bool, err error) {
	if pe := (*PanicError)(nil); errors.As(err, &pe) {
		if s.panicked == nil {
			s.panicked = pe
		}
		s.stop()
		return
	}
	if !j.probe {
		s.outs[j.policy], s.mainErrs[j.policy], s.mainDone[j.policy] = out, err, true
		s.reportWork(j.policy, true)
		s.finished(j.policy)
		return
	}
	se := s.searches[j.policy]
	cancel := se.running[j.rate]
	delete(se.running, j.rate)
	cancelled := j.ctx.Err() != nil && s.ctx.Err() == nil
	if cancel != nil {
		cancel()
	}
	if se.done || cancelled {
		return // a speculative probe the search no longer needed
	}
	se.known[j.rate] = outcome{recovered: recovered, err: err}
	s.reportWork(j.policy, true)
	s.advance(j.policy)
	if se.done {
		return
	}
	// Cancel speculative probes no branch of the search passes through any more.
	_, live := se.reachable()
	for r, c := range se.running {
		if !live[r] {
			c()
		}
	}
}

// runJobs runs sc's policies and their searches on opts.Parallel workers and returns, per
// policy, its analysed run and its Bisection (nil without a search), or the first error in
// scenario order.
func runJobs(ctx context.Context, run engines, sc *scenario.Scenario, res *Result, opts Options) ([]*PolicyResult, []*Bisection, []error, *PanicError) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s := newScheduler(ctx, stop, sc, res, opts)
	s.reportWork(-1, false)
	var wg sync.WaitGroup
	for range s.parallel {
		wg.Add(1)
		go s.work(&wg, run, sc, res)
	}
	wg.Wait()
	n := len(sc.Policies)
	bis := make([]*Bisection, n)
	errs := make([]error, n)
	for i := range n {
		switch se := s.searches[i]; {
		case !s.complete[i]:
			errs[i] = ctx.Err()
			if errs[i] == nil {
				errs[i] = errors.New("storm: policy " + sc.Policies[i].Name + " did not finish")
			}
		case s.mainErrs[i] != nil:
			errs[i] = s.mainErrs[i]
		case se != nil && se.err != nil:
			errs[i] = se.err
		case se != nil:
			b := se.result
			bis[i] = &b
		}
	}
	return s.outs, bis, errs, s.panicked
}

// newScheduler is the scheduler of sc's policies and their searches (searchBracket).
func newScheduler(ctx context.Context, stop context.CancelFunc, sc *scenario.Scenario, res *Result, opts Options) *scheduler {
	n := len(sc.Policies)
	s := &scheduler{ctx: ctx, stop: stop, parallel: max(opts.Parallel, 1), searches: make([]*search, n),
		outs: make([]*PolicyResult, n), mainErrs: make([]error, n),
		mainDone: make([]bool, n), complete: make([]bool, n), progress: opts.Progress,
		workFn: opts.Work, credit: make([]int, n), share: make([]int, n)}
	s.cond = sync.NewCond(&s.mu)
	for i, p := range sc.Policies {
		s.share[i] = 1
		if lo, hi, tol, ok := searchBracket(sc, p, res, opts); ok {
			s.searches[i] = &search{lo: lo, hi: hi, tol: tol, known: map[float64]outcome{}, running: map[float64]context.CancelFunc{}}
			s.share[i] += searchProbes(lo, hi, tol)
		}
	}
	return s
}

// work is one worker: it runs jobs until pick has none left. A panic of the scheduler's own
// code (or of the Progress callback it calls) is recovered too, and stops the run like a
// panic in a simulation.
func (s *scheduler) work(wg *sync.WaitGroup, run engines, sc *scenario.Scenario, res *Result) {
	defer wg.Done()
	held := false
	defer func() {
		v := recover()
		if !held {
			s.mu.Lock()
		}
		if v != nil && s.panicked == nil {
			s.panicked = &PanicError{Value: v, Stack: debug.Stack()}
		}
		if v != nil {
			s.stop()
		}
		s.cond.Broadcast()
		s.mu.Unlock()
	}()
	s.mu.Lock()
	held = true
	for {
		j, ok := s.pick()
		if !ok {
			return
		}
		s.active++
		s.mu.Unlock()
		held = false
		out, recovered, err := execute(j, run, sc, res)
		s.mu.Lock()
		held = true
		s.active--
		s.record(j, out, recovered, err)
		s.cond.Broadcast()
	}
}

// execute runs one job on the calling worker. A panic is recovered here, in the goroutine it
// happened in, and returned as a *PanicError.
func execute(j job, run engines, sc *scenario.Scenario, res *Result) (out *PolicyResult, recovered bool, err error) {
	p := sc.Policies[j.policy]
	defer func() {
		if v := recover(); v != nil {
			out, recovered = nil, false
			err = &PanicError{Policy: p.Name, Rate: j.rate, Value: v, Stack: debug.Stack()}
		}
	}()
	if j.probe {
		recovered, err = recoversAt(j.ctx, run.recovers, sc, p, j.rate)
		return nil, recovered, err
	}
	out, err = analysedRun(j.ctx, run.run, sc, p, res)
	return out, false, err
}
