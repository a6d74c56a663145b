package storm

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// Options tune a storm Run.
type Options struct {
	// Bisect searches stable_below_per_s for every policy (when the scenario has a capacity
	// and an arrival rate).
	Bisect bool
	// Tolerance is the bisection's stopping width as a share of capacity (default 2%).
	Tolerance float64
	// Model is the quick model the scenario was built from, reported as is (nil for files).
	Model *Model
	// Progress, when set, is called after each policy with how many are done.
	Progress func(done, total int)
	// Work, when set, is called at the start and after every simulation with the work done
	// and the work of the whole run, in simulations: a policy's own run is one, its search
	// the most probes it can take (searchProbes), so total is known before the first run
	// ends and done never passes it; a search that ends early is counted whole then. It is
	// what a progress bar follows: a policy with its search takes minutes on a big storm.
	Work func(done, total int)
	// Parallel is how many simulations run at once — policies, and the probes of their
	// stable_below_per_s searches (0 or 1: one after the other; `patience storm` gives
	// GOMAXPROCS). The output does not depend on it; what an interrupted run returns does
	// (the policies that had finished).
	Parallel int
	// engine replaces sim.RunPolicy in tests.
	engine engineFunc
}

// DefaultTolerance is the bisection's width as a share of capacity: 2% of capacity takes six
// halvings of [2%, 100%].
const DefaultTolerance = 0.02

// Run simulates every policy of sc on the same arrivals with the sim engine and analyses each
// run: amplification, peak and final load against capacity, recovery after the last fault,
// metastability, the fluid bound and — with opts.Bisect — stable_below_per_s. On
// cancellation it returns the policies finished so far (Interrupted set) with ctx's error.
func Run(ctx context.Context, sc *scenario.Scenario, opts Options) (*Result, error) {
	if sc == nil || len(sc.Policies) == 0 {
		return nil, errors.New("storm: no scenario or no policy")
	}
	if opts.Tolerance <= 0 {
		opts.Tolerance = DefaultTolerance
	}
	res := newResult(sc, opts.Model)

	// Whatever happens, the top-level fields describe the first policy that finished, so an
	// interrupted run still renders.
	defer func() {
		if len(res.Policies) == 0 {
			return
		}
		first := res.Policies[0]
		res.Policy = first.Name
		res.Requests = first.Requests
		res.Attempts = first.Attempts
		res.Amplification = Amplification{Theoretical: first.TheoreticalAmplification, Observed: first.PolicyResult.Amplification}
		res.WastedWork = first.WastedWork
		res.Recovery = first.Recovery
		res.Verdict = Summary(res)
		res.Analysis = first.Analysis
		res.Series = Series(first.PolicyResult)
	}()
	// The policies are independent runs on the same arrivals, and a policy's search is a
	// series of runs of its own: they run side by side, one per core (parallel.go), and are
	// reported in the scenario's order whatever order they finish in.
	outs, bis, errs, panicked := runJobs(ctx, enginesFor(opts.engine), sc, res, opts)
	// What finished in order before the first policy that did not is the partial result.
	for i, out := range outs {
		if errs[i] != nil || out == nil {
			res.Interrupted = true
			if panicked != nil {
				return res, panicked
			}
			err := errs[i]
			if err == nil {
				err = ctx.Err()
			}
			return res, err
		}
		res.Policies = append(res.Policies, finish(res, *out, bis[i]))
	}
	noteJitterSame(res, sc.Policies)
	if panicked != nil {
		// Only a probe nobody needed in the end can have panicked after every policy finished:
		// still a bug to report.
		return res, panicked
	}
	return res, nil
}

// newResult is the result of a storm of sc before any policy ran: what describes the run.
func newResult(sc *scenario.Scenario, model *Model) *Result {
	res := &Result{
		Schema:      Schema,
		Scenario:    sc.Name,
		Description: sc.Description,
		Seed:        sc.Seed,
		DurationMs:  ms(sc.Duration),
		Model:       model,
		RatePerS:    sc.Load.Rate,
		Triggers:    Triggers(sc),
	}
	if c, ok := CapacityOf(sc); ok {
		res.CapacityPerS = &c
	}
	res.LastFaultEndMs = ms(sc.Target.LastPhaseEnd())
	return res
}

// analysedRun simulates policy p on sc and analyses its run: everything but the search.
func analysedRun(ctx context.Context, run engineFunc, sc *scenario.Scenario, p *policy.Policy, res *Result) (*PolicyResult, error) {
	pr, err := run(ctx, sc, p)
	if err != nil {
		return nil, err
	}
	out := NewPolicyResult(pr, Analyse(sc, pr, res.CapacityPerS))
	if why := fluidOmitted(res.Triggers); why != "" {
		out.FluidOmitted = why
	} else if b, ok := FluidBoundFor(p, res.CapacityPerS, MaxWait(sc)); ok {
		out.FluidBoundPerS, out.FluidBasis = &b.PerS, b.Basis
		if h, ok := horizonBound(sc, p, res.CapacityPerS, b); ok {
			out.FluidHorizonBoundPerS = &h
		}
	}
	return &out, nil
}

// searchBracket is the stable_below_per_s search of policy p, when opts ask for one and the
// scenario has a capacity and an arrival rate: lo = tol = opts.Tolerance of capacity, hi =
// capacity. A fault that lasts the whole run leaves nothing to recover from: no search.
func searchBracket(sc *scenario.Scenario, p *policy.Policy, res *Result, opts Options) (lo, hi, tol float64, ok bool) {
	if !opts.Bisect || res.CapacityPerS == nil || sc.Load.Rate <= 0 || res.WholeRunFault() {
		return 0, 0, 0, false
	}
	c := *res.CapacityPerS
	tol = c * opts.Tolerance
	// A deep chain's bound (300/64 = 4.7/s) is below 2% of capacity: search it at a tenth of
	// the bound instead, or the first probe would already be above it.
	if fluidOmitted(res.Triggers) == "" {
		if b, ok := FluidBoundFor(p, res.CapacityPerS, MaxWait(sc)); ok && b.PerS < 10*tol {
			tol = b.PerS / 10
		}
	}
	// Every probe, the first (tol) included, brings at least one request on average in the
	// run (scenario.SparseRate): below that a run has nothing to recover, and a gap of
	// 1/rate can pass time.Duration's range (one worker at a latency of 2562047h has a
	// capacity of 1e-10/s, and probing 2% of it panicked). Nothing to search then.
	if scenario.SparseRate(tol, sc.Duration) != "" {
		return 0, 0, 0, false
	}
	return tol, c, tol, true
}

// finish completes policy out with its search (nil without one) and its verdict.
func finish(res *Result, out PolicyResult, bis *Bisection) PolicyResult {
	if bis != nil {
		out.Bisection = bis
		out.StableBelowPerS = &bis.StableBelowPerS
		out.FluidNote = fluidNote(out.Analysis, *bis)
	}
	out.Outcome = OutcomeOf(out.Recovery, out.Analysis)
	// Storm's question is recovery after the trigger: its verdict replaces replay's.
	out.Verdict = PolicyVerdict(res, out)
	return out
}

// fluidOmitted says why the fluid bound does not apply to a run with these triggers, "" when
// it does: its derivation (fluid.go) is a stall whose attempts time out and are retried;
// errors answered at once, or a slowdown, queue nothing for it to describe.
func fluidOmitted(ts []Trigger) string {
	if len(ts) == 0 {
		return ""
	}
	for _, t := range ts {
		if t.Kind == "stall" {
			return ""
		}
	}
	return "no fluid bound: it describes a stall whose attempts time out and are retried; this run's trigger is " + ts[len(ts)-1].Kind + ", not a stall"
}

// recoversAt runs policy p on sc with the arrival rate replaced, and judges recovery.
func recoversAt(ctx context.Context, recovers func(context.Context, *scenario.Scenario, *policy.Policy) (bool, error),
	sc *scenario.Scenario, p *policy.Policy, rate float64) (bool, error) {
	at := *sc
	at.Load.Rate = rate
	ok, err := recovers(ctx, &at, p)
	if err != nil {
		return false, err
	}
	return ok, nil
}

// Analyse computes the storm fields of one policy's run.
func Analyse(sc *scenario.Scenario, pr replay.PolicyResult, capacity *float64) Analysis {
	var a Analysis
	n := len(pr.Timeline)
	goodput, offered := make([]float64, 0, n), make([]float64, 0, n)
	for _, s := range pr.Timeline {
		for len(goodput) <= s.T {
			goodput, offered = append(goodput, 0), append(offered, 0)
		}
		goodput[s.T] += float64(s.Succeeded)
		offered[s.T] += float64(s.Attempts)
		a.PeakOfferedPerS = math.Max(a.PeakOfferedPerS, float64(s.Attempts))
	}
	end := int(sc.Duration / time.Second)
	from := max(0, end-int(replay.RecoveryWindow/time.Second))
	if n := min(end, len(goodput)) - from; n > 0 {
		for t := from; t < from+n; t++ {
			a.FinalOfferedPerS += offered[t]
			a.GoodputPerS += goodput[t]
		}
		a.FinalOfferedPerS /= float64(n)
		a.GoodputPerS /= float64(n)
	}
	if capacity != nil && *capacity > 0 {
		peak, final := a.PeakOfferedPerS / *capacity, a.FinalOfferedPerS / *capacity
		a.PeakLoadRatio, a.FinalLoadRatio = &peak, &final
	}
	a.RecoveryS = pr.Recovery.RecoverySeconds()
	return a
}

// Series is the per-second storm view of a run.
func Series(pr replay.PolicyResult) []Point {
	goodput := make([]float64, len(pr.Timeline))
	for i, s := range pr.Timeline {
		goodput[i] = float64(s.Succeeded)
	}
	avg := replay.MovingAverages(goodput, int(replay.MovingAverage/time.Second))
	out := make([]Point, len(pr.Timeline))
	for i, s := range pr.Timeline {
		out[i] = Point{T: s.T, Arrivals: s.Arrivals, OfferedPerS: s.Attempts, GoodputPerS: s.Succeeded,
			GoodputAvgPerS: math.Round(avg[i]*100) / 100, Failed: s.Failed, QueueLength: s.QueueLength}
	}
	return out
}

// Triggers lists the scenario's phases as storm triggers.
func Triggers(sc *scenario.Scenario) []Trigger {
	out := make([]Trigger, 0, len(sc.Target.Phases))
	for _, ph := range sc.Target.Phases {
		kind := "latency"
		switch {
		case ph.Stall:
			kind = "stall"
		case len(ph.Faults) > 0 && allStatus(ph.Faults):
			kind = "errors"
		case len(ph.Faults) > 0:
			kind = "faults"
		}
		out = append(out, Trigger{Name: ph.Name, Kind: kind, AtMs: ms(ph.At), ForMs: ms(ph.For)})
	}
	return out
}

func allStatus(fs []scenario.Fault) bool {
	for _, f := range fs {
		if f.Kind != scenario.FaultStatus {
			return false
		}
	}
	return true
}

// CapacityOf is the target's service rate: capacity workers / mean base service time. False
// when the target has no capacity limit (or a zero mean service time).
func CapacityOf(sc *scenario.Scenario) (float64, bool) {
	cp := sc.Target.Capacity
	if cp == nil || cp.Workers <= 0 {
		return 0, false
	}
	mean := sc.Target.Latency.Mean()
	if mean <= 0 {
		return 0, false
	}
	return float64(cp.Workers) / mean.Seconds(), true
}

// Bound is a closed-form fluid bound and the formula it came from.
type Bound struct {
	PerS  float64
	Basis string
	// N is the attempts per logical request in the collapsed regime (1 without retries).
	N int
	// Horizon says FluidHorizonBound applies: every attempt of the collapsed regime is one
	// of N fixed attempts (retry on timeout, or no retries), not a budget's burst.
	Horizon bool
}

// FluidBoundFor returns the fluid model's bound for a policy (derivation in fluid.go), or
// false when the policy has no closed form here: a breaker or bulkhead anywhere, unlimited
// attempts, a ratio budget with a per-second reserve, or no capacity. A token bucket caps
// retries by a finite burst, so its asymptotic bound is the capacity itself. maxWait is the
// longest an attempt can spend at a bounded target (MaxWait; 0 = unbounded): when it is
// shorter than the timeout, nothing times out, overflow is answered 503 at once, and the
// timeout regime of the derivation cannot happen — the bound is C.
func FluidBoundFor(p *policy.Policy, capacity *float64, maxWait time.Duration) (Bound, bool) {
	if capacity == nil {
		return Bound{}, false
	}
	c := *capacity
	if maxWait > 0 && p.Timeout > 0 && maxWait < p.Timeout {
		return Bound{PerS: c, Basis: "C (bounded queue: no attempt waits as long as the timeout)", N: 1}, true
	}
	attempts := Attempts(p)
	n := 1
	bucket, ratio := false, -1.0
	ok := true
	eachLayer(p, func(l *policy.Policy) {
		if l.Breaker != nil || l.Bulkhead != nil {
			ok = false
		}
		if b := l.Budget; b != nil {
			switch b.Kind {
			case policy.BudgetTokenBucket:
				bucket = true
			case policy.BudgetRatio:
				if b.MinPerS > 0 {
					ok = false
				}
				ratio = math.Max(ratio, b.Percent)
			}
		}
	})
	for _, a := range attempts {
		if a == 0 {
			ok = false
		}
		n *= max(a, 1)
	}
	switch {
	case !ok:
		return Bound{}, false
	case n == 1:
		return Bound{PerS: c, Basis: "C (no retries)", N: 1, Horizon: true}, true
	case bucket:
		return Bound{PerS: c, Basis: "C (token bucket: a finite burst of retries)", N: 1}, true
	case ratio >= 0 && len(attempts) == 1:
		return Bound{PerS: c / (1 + ratio), Basis: "C/(1+p) (ratio budget)", N: 1}, true
	case ratio >= 0:
		return Bound{}, false
	}
	if !retriesTimeouts(p) {
		return Bound{}, false
	}
	return Bound{PerS: FluidBound(c, attempts), Basis: "C/ΠN (retry on timeout)", N: n, Horizon: true}, true
}

// retriesTimeouts says whether the bottom layer retries timeouts at all (an empty On list
// means the default list, which does).
func retriesTimeouts(p *policy.Policy) bool {
	if p.Timeout <= 0 {
		return false
	}
	on := p.Retry.On
	if on == nil {
		on = policy.DefaultRetryOn
	}
	for _, t := range on {
		if t == "timeout" {
			return true
		}
	}
	return false
}

// horizonBound applies FluidHorizonBound for a C/ΠN (or no-retry) bound when the scenario
// has exactly one trigger and it is a stall.
func horizonBound(sc *scenario.Scenario, p *policy.Policy, capacity *float64, b Bound) (float64, bool) {
	if !b.Horizon || len(sc.Target.Phases) != 1 || !sc.Target.Phases[0].Stall {
		return 0, false
	}
	ph := sc.Target.Phases[0]
	h := FluidHorizonBound(*capacity, b.N, p.Timeout, ph.For, sc.Duration-ph.End())
	return math.Min(h, b.PerS), true
}

// fluidNote explains a measured stable_below that disagrees with the fluid bound by more
// than the bisection's tolerance (derivations in fluid.go).
func fluidNote(a Analysis, b Bisection) string {
	if a.FluidBoundPerS == nil || a.StableBelowPerS == nil {
		return ""
	}
	got, bound := *a.StableBelowPerS, *a.FluidBoundPerS
	switch {
	case got > bound+b.TolerancePerS:
		return "above the fluid bound: the trigger is too short for the collapsed load to build up to λ·ΠN before the backlog drains (layers that wait for the layer below take Σ attempts × timeout to get there)"
	case a.FluidHorizonBoundPerS != nil && got < *a.FluidHorizonBoundPerS-b.TolerancePerS:
		return "below the fluid bound for this run's length: the judge's 5 s average and ±10% band, and a backlog larger than λ·N·D, cost a little"
	}
	return ""
}

// MaxWait is the longest an attempt can spend at the target when its queue is bounded:
// (queue + workers) / capacity-per-worker time, i.e. (Queue/Workers + 1) × mean service
// time; 0 when the queue is unbounded or there is no capacity limit.
func MaxWait(sc *scenario.Scenario) time.Duration {
	cp := sc.Target.Capacity
	if cp == nil || cp.Workers <= 0 || cp.Queue >= UnboundedQueue {
		return 0
	}
	mean := sc.Target.Latency.Mean()
	return time.Duration((float64(cp.Queue)/float64(cp.Workers) + 1) * float64(mean))
}
