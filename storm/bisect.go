package storm

import (
	"context"
	"errors"
	"math"
)

// Probe runs the scenario at one arrival rate and says whether the policy recovered.
type Probe func(ctx context.Context, rate float64) (bool, error)

// Bisection is how stable_below_per_s was found.
type Bisection struct {
	// StableBelowPerS is the largest probed rate that recovered (0 when even Lo did not).
	StableBelowPerS float64 `json:"stable_below_per_s"`
	// FirstFailurePerS is the smallest probed rate that did not recover (null when even Hi
	// recovered: the policy is stable up to the highest rate tried).
	FirstFailurePerS *float64 `json:"first_failure_per_s"`
	// Lo and Hi are the bracket searched; TolerancePerS the width it stops at.
	LoPerS        float64 `json:"lo_per_s"`
	HiPerS        float64 `json:"hi_per_s"`
	TolerancePerS float64 `json:"tolerance_per_s"`
	// Runs counts the simulations it took.
	Runs int `json:"runs"`
}

// maxBisections bounds the search whatever the tolerance: 2^-20 of the bracket is below any
// tolerance a user would ask for.
const maxBisections = 20

// searchProbes is the most probes Bisect(lo, hi, tol) can take: lo, the doublings up to hi,
// then the halvings of a bracket no wider than hi/2 down to tol (at most maxBisections).
func searchProbes(lo, hi, tol float64) int {
	if !(lo > 0 && hi > lo && tol > 0) {
		return 0
	}
	up := int(math.Ceil(math.Log2(hi / lo)))
	down := 0
	if w := hi / 2; w > tol {
		down = min(int(math.Ceil(math.Log2(w/tol))), maxBisections)
	}
	return 1 + up + down
}

// Bisect finds the largest rate in [lo, hi] from which probe still recovers, to within tol,
// assuming recovery is monotone in the rate (more load never helps). It probes lo (if that
// fails nothing is stable), then doubles the rate until a probe fails or hi recovers, then
// halves the bracket [recovers, fails] until it is no wider than tol. Searching upward keeps
// every probe below twice the answer: a collapsed run is the expensive kind (its backlog and
// its attempts grow without bound), and probing hi = capacity first would pay for the worst
// collapse in every search. With lo = tol = 2% of capacity and hi = capacity it takes at most
// 7 + 6 runs, usually 8.
func Bisect(ctx context.Context, probe Probe, lo, hi, tol float64) (Bisection, error) {
	if !(lo > 0 && hi > lo && tol > 0) {
		return Bisection{}, errors.New("bisect: want 0 < lo < hi and tol > 0")
	}
	b := Bisection{LoPerS: lo, HiPerS: hi, TolerancePerS: tol}
	try := func(rate float64) (bool, error) {
		b.Runs++
		return probe(ctx, rate)
	}
	ok, err := try(lo)
	if err != nil {
		return b, err
	}
	if !ok {
		b.FirstFailurePerS = &lo
		return b, nil
	}
	good, fail := lo, 0.0
	for fail == 0 {
		next := math.Min(2*good, hi)
		ok, err := try(next)
		if err != nil {
			return b, err
		}
		switch {
		case !ok:
			fail = next
		case next >= hi:
			b.StableBelowPerS = hi
			return b, nil
		default:
			good = next
		}
	}
	for i := 0; i < maxBisections && fail-good > tol; i++ {
		mid := (good + fail) / 2
		ok, err := try(mid)
		if err != nil {
			return b, err
		}
		if ok {
			good = mid
		} else {
			fail = mid
		}
	}
	b.StableBelowPerS = good
	b.FirstFailurePerS = &fail
	return b, nil
}
