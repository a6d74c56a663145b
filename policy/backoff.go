package policy

import (
	"math"
	"math/rand/v2"
	"time"
)

// Backoff is the kind of Retry.Backoff: how d(n), the delay before retry n, grows (docs/design.md §5).
// Its text form, in scenario and check files and in JSON, is the string itself.
type Backoff string

// Backoff kinds of Retry.Backoff; "" behaves as BackoffNone.
const (
	BackoffNone         Backoff = "none"
	BackoffConstant     Backoff = "constant"
	BackoffLinear       Backoff = "linear"
	BackoffExponential  Backoff = "exponential"
	BackoffDecorrelated Backoff = "decorrelated"
	BackoffList         Backoff = "list"
)

// Backoffs lists every accepted Backoff, in the order messages name them.
func Backoffs() []Backoff {
	return []Backoff{BackoffNone, BackoffConstant, BackoffLinear, BackoffExponential, BackoffDecorrelated, BackoffList}
}

// Jitter is the kind of Retry.Jitter: how d(n) is randomised (docs/design.md §5).
type Jitter string

// Jitter kinds of Retry.Jitter; "" behaves as JitterNone.
const (
	JitterNone         Jitter = "none"
	JitterFull         Jitter = "full"
	JitterEqual        Jitter = "equal"
	JitterProportional Jitter = "proportional"
	// JitterRandomized is cenkalti/backoff's RandomizationFactor f: U[d·(1−f), d·(1+f)]
	// (f capped at 1). The `cenkalti` preset needs it (±50%; docs/design.md §5).
	JitterRandomized Jitter = "randomized"
)

// Jitters lists every accepted Jitter, in the order messages name them.
func Jitters() []Jitter {
	return []Jitter{JitterNone, JitterFull, JitterEqual, JitterProportional, JitterRandomized}
}

// RetryAfterMode is Retry.RetryAfter: whether and how a server's Retry-After (RFC 9110
// §10.2.3) changes the wait before the next retry.
type RetryAfterMode string

// Retry-After modes of Retry.RetryAfter; "" behaves as RetryAfterHonor.
const (
	// RetryAfterHonor waits max(jittered backoff, Retry-After) (docs/design.md §5).
	RetryAfterHonor  RetryAfterMode = "honor"
	RetryAfterIgnore RetryAfterMode = "ignore"
	// RetryAfterReplace waits exactly the Retry-After, shorter than the backoff or not ("0"
	// and a past date mean now); the backoff's exponent goes on counting. go-retryablehttp
	// v0.7.8 DefaultBackoff (client.go:551-557) returns the parsed header as the sleep.
	RetryAfterReplace RetryAfterMode = "replace"
	// RetryAfterReplaceReset waits exactly the Retry-After and restarts the backoff: the next
	// retry without one waits d(1) again. gRPC server pushback (grpc-go v1.85.0 stream.go:880-882,
	// numRetriesSincePushback = 0) and cenkalti/backoff v5 RetryAfterError (retry.go: next =
	// retryAfter.Duration; BackOff.Reset()).
	RetryAfterReplaceReset RetryAfterMode = "replace_reset"
)

// RetryAfterModes lists every accepted RetryAfterMode, in the order messages name them.
func RetryAfterModes() []RetryAfterMode {
	return []RetryAfterMode{RetryAfterHonor, RetryAfterIgnore, RetryAfterReplace, RetryAfterReplaceReset}
}

// HonorsRetryAfter says whether a Retry-After can change a wait: every mode but
// RetryAfterIgnore ("" behaves as RetryAfterHonor).
func (r *Retry) HonorsRetryAfter() bool {
	return r.RetryAfter != RetryAfterIgnore
}

// DefaultMultiplier is used by exponential backoff when Retry.Multiplier ≤ 0.
const DefaultMultiplier = 2.0

// MaxWait bounds every delay this package computes (about 146 years), so that now + wait never
// overflows a time.Duration however large an uncapped backoff or a Retry-After value gets.
const MaxWait = time.Duration(1 << 62)

// clampF converts a float nanosecond count to a Duration in [0, MaxWait].
func clampF(f float64) time.Duration {
	switch {
	case f != f: // NaN
		return MaxWait
	case f <= 0:
		return 0
	case f >= float64(MaxWait):
		return MaxWait
	}
	return time.Duration(f)
}

// capped applies Retry.Cap (0 = uncapped) and MaxWait.
func (r *Retry) capped(d time.Duration) time.Duration {
	if r.Cap > 0 && d > r.Cap {
		d = r.Cap
	}
	if d > MaxWait {
		d = MaxWait
	}
	return d
}

// uniform draws from U[lo, hi] over whole nanoseconds. A nil rng returns the midpoint, the
// mean of the draw, so callers without randomness (check, documentation) get the expected value.
func uniform(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	if rng == nil {
		return lo + (hi-lo)/2
	}
	return lo + time.Duration(rng.Int64N(int64(hi-lo)+1))
}

// BackoffDelay is d(n), the delay before retry n ≥ 1 before jitter (docs/design.md §5):
//
//	none          0
//	constant      base
//	linear        min(cap, n·base)
//	exponential   min(cap, base·multiplier^(n−1))
//	list          delays[min(n, len)−1]  (0 for an empty list)
//	decorrelated  s_n = min(cap, U[base, 3·s_(n−1)]), s_0 = base — prev is s_(n−1)
//	              (prev ≤ 0 means s_0); AWS Architecture Blog, "Exponential Backoff And
//	              Jitter" (2015). It is already random: Call.Next adds no jitter on top.
//
// Cap (0 = uncapped) applies to linear, exponential and decorrelated; constant and list
// delays are taken as written. n < 1 is treated as 1. Results are bounded by MaxWait.
// rng is used only by decorrelated (nil → the midpoint of the interval).
func (r *Retry) BackoffDelay(n int, prev time.Duration, rng *rand.Rand) time.Duration {
	if n < 1 {
		n = 1
	}
	switch r.Backoff {
	case BackoffConstant:
		return min(max(r.Base, 0), MaxWait)
	case BackoffLinear:
		if r.Base <= 0 {
			return 0
		}
		if int64(n) > int64(MaxWait/r.Base) {
			return r.capped(MaxWait)
		}
		return r.capped(time.Duration(n) * r.Base)
	case BackoffExponential:
		m := r.Multiplier
		if m <= 0 {
			m = DefaultMultiplier
		}
		return r.capped(clampF(float64(r.Base) * math.Pow(m, float64(n-1))))
	case BackoffList:
		if len(r.Delays) == 0 {
			return 0
		}
		return min(max(r.Delays[min(n, len(r.Delays))-1], 0), MaxWait)
	case BackoffDecorrelated:
		base := max(r.Base, 0)
		if prev <= 0 {
			prev = base
		}
		hi := MaxWait
		if prev < MaxWait/3 {
			hi = max(base, 3*prev)
		}
		if r.Cap > 0 {
			// Drawing from U[base, 3·prev] and then capping piles probability on cap; that is
			// the published formula, so it is kept (sleep = min(cap, random_between(base, sleep*3))).
			return r.capped(uniform(rng, base, hi))
		}
		return uniform(rng, base, hi)
	}
	return 0
}

// Jittered applies Retry.Jitter to a delay d (docs/design.md §5; AWS Architecture Blog, "Exponential
// Backoff And Jitter"):
//
//	none          d
//	full          U[0, d]
//	equal         d/2 + U[0, d/2]
//	proportional  d + U[0, f·d]       f = JitterFactor
//	randomized    U[d·(1−f), d·(1+f)] f = JitterFactor capped at 1 (cenkalti/backoff)
//
// Draws are uniform over whole nanoseconds. A nil rng returns the mean of the draw.
func (r *Retry) Jittered(d time.Duration, rng *rand.Rand) time.Duration {
	if d <= 0 {
		return 0
	}
	switch r.Jitter {
	case JitterFull:
		return uniform(rng, 0, d)
	case JitterEqual:
		half := d / 2
		return half + uniform(rng, 0, d-half)
	case JitterProportional:
		if r.JitterFactor <= 0 {
			return d
		}
		return min(d+uniform(rng, 0, clampF(r.JitterFactor*float64(d))), MaxWait)
	case JitterRandomized:
		f := min(r.JitterFactor, 1)
		if f <= 0 {
			return d
		}
		spread := clampF(f * float64(d))
		return min(uniform(rng, d-spread, d+spread), MaxWait)
	}
	return d
}

// MaxDelay is the longest wait backoff and jitter can produce before retry n ≥ 1 (Retry-After
// aside): the worst case `check` and the probe recommendation add up. For decorrelated backoff
// it is min(cap, base·3^n), the largest value the chain s_1…s_n can reach.
func (r *Retry) MaxDelay(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	if r.ThrottleBase > r.Base { // the longer of the two bases bounds both
		rr := *r
		rr.Base, rr.ThrottleBase = r.ThrottleBase, 0
		return rr.MaxDelay(n)
	}
	var d time.Duration
	if r.Backoff == BackoffDecorrelated {
		return r.capped(clampF(float64(max(r.Base, 0)) * math.Pow(3, float64(n))))
	}
	d = r.BackoffDelay(n, 0, nil)
	switch r.Jitter {
	case JitterProportional:
		if r.JitterFactor > 0 {
			d = min(d+clampF(r.JitterFactor*float64(d)), MaxWait)
		}
	case JitterRandomized:
		if f := min(r.JitterFactor, 1); f > 0 {
			d = min(d+clampF(f*float64(d)), MaxWait)
		}
	}
	return d
}
