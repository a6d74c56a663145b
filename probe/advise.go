package probe

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/patience-dev/patience/policy"
)

// AssumedRetry is the backoff assumed between attempts when counting how many fit the budget:
// exponential, base 100 ms, ×2, capped at 10 s, full jitter (AWS Architecture Blog,
// "Exponential Backoff And Jitter", 2015). Full jitter draws U[0, d], so its worst case is d
// itself (policy.Retry.WorstCase). Retry-After pauses are left out of the count: a 429 or 503
// answers at once instead of costing a timeout, and the caller's deadline bounds the pause.
func AssumedRetry() policy.Retry {
	return policy.Retry{
		Backoff:    policy.BackoffExponential,
		Base:       100 * time.Millisecond,
		Multiplier: 2,
		Cap:        10 * time.Second,
		Jitter:     policy.JitterFull,
		RetryAfter: policy.RetryAfterIgnore,
	}
}

// BackoffDescription names AssumedRetry in derivations and JSON.
const BackoffDescription = "exponential base 100 ms ×2 cap 10 s, full jitter (worst case = d)"

// DefaultHeadroom multiplies the measured quantile: 20% above the slowest acceptable good
// response, so a timeout does not sit exactly on the tail it was measured from.
const DefaultHeadroom = 1.2

// DefaultConnectFloor survives one lost SYN: Linux retransmits an unanswered SYN after an
// initial RTO of 1 s (RFC 6298 §2.1), so a connect timeout below ~1.1 s turns one lost packet
// into a failed attempt.
const DefaultConnectFloor = 1100 * time.Millisecond

// MaxAttemptsCap bounds the attempt search (here and in `check --init`); with a tiny timeout
// and a huge budget the backoff cap would otherwise allow thousands of attempts, which is no
// advice at all.
const MaxAttemptsCap = 10

// AttemptsCost is k·timeout + Σ_{n=1}^{k-1} d(n) under AssumedRetry: the worst-case time k
// attempts take when every one of them times out (policy.Retry.WorstCase); 0 for k ≤ 0.
func AttemptsCost(k int, timeout time.Duration) time.Duration {
	if k <= 0 {
		return 0
	}
	r := AssumedRetry()
	return r.WorstCase(k, timeout)
}

// MaxAttempts is the largest k (first try included, at most MaxAttemptsCap) with
// AttemptsCost(k, timeout) ≤ budget; 0 when the budget cannot hold one call.
func MaxAttempts(timeout, budget time.Duration) int {
	r := AssumedRetry()
	return r.AttemptsWithin(timeout, budget, MaxAttemptsCap)
}

// timeoutLadder holds the mantissas of clean timeouts: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10^n
// ms. Consecutive steps are at most a third apart, so rounding up to a value people can read
// and remember never costs more than a third of the measured need — a coarser 1-2-5 ladder
// would turn 505 ms into 1 s and spend half the caller's budget on nothing.
var timeoutLadder = []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}

// RoundUpClean rounds ms up to the next value of the timeout ladder (… 100, 120, 150, 200,
// 250, 300, 400, 500, 600, 800, 1000 ms …), at least 1 ms.
func RoundUpClean(ms float64) float64 {
	if !(ms > 1) {
		return 1
	}
	return ladderUp(ms)
}

// ladderUp is the smallest timeout-ladder value ≥ v (v > 0).
func ladderUp(v float64) float64 {
	e := math.Floor(math.Log10(v))
	for _, m := range timeoutLadder {
		x := m * math.Pow(10, e)
		// Tolerate float error so that 50 stays 50 instead of becoming 60.
		if x >= v*(1-1e-9) {
			return roundSig(x)
		}
	}
	return roundSig(10 * math.Pow(10, e))
}

// roundSig removes float noise such as 2.5000000000000004 from a ladder value.
func roundSig(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return f
}

// QuantileLabel names quantile q as a percentile: 0.999 → "p99.9".
func QuantileLabel(q float64) string {
	return "p" + strconv.FormatFloat(roundSig(q*100), 'f', -1, 64)
}

// SamplesNeeded is the least sample count that backs quantile q: 1/(1-q), so that at least
// one sample lies at or above it (p99.9 needs 1000).
func SamplesNeeded(q float64) int64 {
	if q >= 1 {
		return math.MaxInt64
	}
	v := 1 / (1 - q)
	// 1/(1-0.9999) is 10000.000000001 in floating point: snap to the integer it means.
	if r := math.Round(v); math.Abs(v-r) < 1e-6*v {
		return int64(r)
	}
	return int64(math.Ceil(v))
}

// SamplesToBound is the least sample count whose slowest sample bounds the q-quantile from
// above with the given confidence: the chance that none lies above it, q^n, is at most
// (1−level)/2. p99.9 at 95%: 3,688 (1,000 are enough to report it, not to bound it).
func SamplesToBound(q, level float64) int64 {
	return int64(math.Ceil(math.Log((1-level)/2) / math.Log(q)))
}

// AdviceInput is what the recommendation needs from a measurement; every latency in ms.
type AdviceInput struct {
	// Cutoff is the accepted share of good responses a timeout may cut off (0.001 = p99.9).
	Cutoff       float64
	Headroom     float64
	Budget       time.Duration
	ConnectFloor time.Duration
	// Good counts good responses (status < 500); GoodAtQ is their total latency at
	// quantile 1-Cutoff (used only when Good ≥ SamplesNeeded(1-Cutoff)); GoodMax the slowest.
	Good    int64
	GoodAtQ float64
	GoodMax float64
	// GoodCILow and GoodCIHigh bound GoodAtQ with 95% confidence (QuantileCI), when it is
	// used; GoodCIHighOpen: no response bounds it from above.
	GoodCILow, GoodCIHigh float64
	GoodCIHighOpen        bool
	// ConnectCount counts fresh connections; ConnectP999 (used when ConnectCount ≥ 1000) and
	// ConnectMax describe their TCP connect time.
	ConnectCount int64
	ConnectP999  float64
	ConnectMax   float64
	// Timeouts counts requests that hit MaxTimeout (the probe's own bound).
	Timeouts   int64
	MaxTimeout time.Duration
}

// QueueVerdict is the verdict when the budget cannot hold one normal call.
const QueueVerdict = "the budget cannot hold one normal call; accept the work and move the call to a queue"

// Advise turns a measurement into the recommendation of DESIGN §7. It is pure: every number
// it returns comes with the derivation line that produced it.
func Advise(in AdviceInput) Recommendation {
	if in.Headroom <= 0 {
		in.Headroom = DefaultHeadroom
	}
	rec := Recommendation{
		BudgetMs:       ms(in.Budget),
		CutoffRate:     in.Cutoff,
		Headroom:       in.Headroom,
		ConnectFloorMs: ms(in.ConnectFloor),
		Backoff:        BackoffDescription,
		Derivation:     []string{},
	}
	q := 1 - in.Cutoff
	label := QuantileLabel(q)
	need := SamplesNeeded(q)

	// Total timeout.
	if in.Good == 0 {
		rec.Verdict = "no good response was measured: nothing to base a timeout on"
		rec.Derivation = append(rec.Derivation, "timeout: no response with status < 500 arrived, so no latency to derive a timeout from")
		return rec
	}
	var basis float64
	if in.Good >= need {
		basis = in.GoodAtQ
		raw := basis * in.Headroom
		rec.TimeoutMs = RoundUpClean(raw)
		rec.BasisCILowMs = ptr(in.GoodCILow)
		ci := fmt.Sprintf("95%% CI %s–%s", FormatMs(in.GoodCILow), FormatMs(in.GoodCIHigh))
		if in.GoodCIHighOpen {
			ci = fmt.Sprintf("95%% CI from %s, open above: %d or more responses bound it", FormatMs(in.GoodCILow), SamplesToBound(q, 0.95))
		} else {
			rec.BasisCIHighMs = ptr(in.GoodCIHigh)
		}
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"timeout: %s of good responses = %s (n=%d; %s) × %g headroom = %s → %s (rounded up on the 1-1.2-1.5-2-2.5-3-4-5-6-8 × 10^n ladder)",
			label, FormatMs(basis), in.Good, ci, in.Headroom, FormatMs(raw), FormatMs(rec.TimeoutMs)))
	} else {
		basis = in.GoodMax
		raw := basis * in.Headroom
		rec.TimeoutMs = RoundUpClean(raw)
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"timeout: %s needs ≥ %d good responses, have %d; basis is the slowest seen, %s (a lower bound on %s) × %g headroom = %s → %s; probe with -n %d or more for a real %s",
			label, need, in.Good, FormatMs(basis), label, in.Headroom, FormatMs(raw), FormatMs(rec.TimeoutMs), need, label))
	}
	if in.Timeouts > 0 {
		share := float64(in.Timeouts) / float64(in.Good+in.Timeouts)
		if share > in.Cutoff {
			rec.Derivation = append(rec.Derivation, fmt.Sprintf(
				"warning: %d requests (%.3g%%) hit the probe's own --max-timeout %s; the true %s is above what was measured, so the timeout above is too short",
				in.Timeouts, share*100, FormatMs(ms(in.MaxTimeout)), label))
		}
	}

	rec.BasisMs = basis

	// Connect timeout.
	floor := ms(in.ConnectFloor)
	var connect float64
	switch {
	case in.ConnectCount == 0:
		connect = floor
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"connect timeout: no fresh connection was measured; the %s floor survives one lost SYN (initial RTO 1 s, RFC 6298 §2.1)", FormatMs(floor)))
	default:
		var base float64
		var what string
		if in.ConnectCount >= 1000 {
			base, what = in.ConnectP999, fmt.Sprintf("connect p99.9 %s (n=%d)", FormatMs(in.ConnectP999), in.ConnectCount)
		} else {
			base, what = in.ConnectMax, fmt.Sprintf("slowest connect %s (n=%d < 1000 for a p99.9)", FormatMs(in.ConnectMax), in.ConnectCount)
		}
		three := 3 * base
		if three >= floor {
			connect = RoundUpClean(three)
			rec.Derivation = append(rec.Derivation, fmt.Sprintf(
				"connect timeout: 3 × %s = %s, above the %s floor → %s", what, FormatMs(three), FormatMs(floor), FormatMs(connect)))
		} else {
			connect = floor
			rec.Derivation = append(rec.Derivation, fmt.Sprintf(
				"connect timeout: max(3 × %s = %s, %s floor that survives one lost SYN) = %s", what, FormatMs(three), FormatMs(floor), FormatMs(connect)))
		}
	}
	if connect > rec.TimeoutMs {
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"connect timeout: clamped to the total timeout %s; a lost SYN (1 s retransmit) will cost an attempt", FormatMs(rec.TimeoutMs)))
		connect = rec.TimeoutMs
	}
	rec.ConnectTimeoutMs = connect

	// Attempts.
	timeout := time.Duration(rec.TimeoutMs * float64(time.Millisecond))
	k := MaxAttempts(timeout, in.Budget)
	rec.MaxAttempts = k
	rec.FitsBudget = k >= 1
	if k == 0 {
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"attempts: one normal call needs the %s timeout, more than the %s budget → 0", FormatMs(rec.TimeoutMs), FormatMs(ms(in.Budget))))
		rec.Verdict = QueueVerdict
		return rec
	}
	cost := AttemptsCost(k, timeout)
	line := fmt.Sprintf("attempts: largest k with k × %s + Σ worst-case backoff ≤ %s budget, backoff %s: k=%d costs %s",
		FormatMs(rec.TimeoutMs), FormatMs(ms(in.Budget)), BackoffDescription, k, FormatMs(ms(cost)))
	if k < MaxAttemptsCap {
		line += fmt.Sprintf(", k=%d would cost %s", k+1, FormatMs(ms(AttemptsCost(k+1, timeout))))
	} else {
		line += fmt.Sprintf(" (capped at %d attempts)", MaxAttemptsCap)
	}
	rec.Derivation = append(rec.Derivation, line)
	tries := "attempts"
	if k == 1 {
		tries = "attempt (no retry)"
	}
	rec.Verdict = fmt.Sprintf("timeout %s, connect timeout %s, %d %s within the %s budget",
		FormatMs(rec.TimeoutMs), FormatMs(rec.ConnectTimeoutMs), k, tries, FormatMs(ms(in.Budget)))
	return rec
}

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// FormatMs prints a millisecond value with about three significant digits and one unit:
// "0.214 ms", "13.5 ms", "450 ms", "1.1 s", "30 s".
func FormatMs(v float64) string {
	switch {
	case v >= 1000:
		return strconv.FormatFloat(roundTo(v/1000, 3), 'f', -1, 64) + " s"
	case v >= 100:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64) + " ms"
	default:
		return strconv.FormatFloat(roundTo(v, 3), 'f', -1, 64) + " ms"
	}
}

// roundTo keeps sig significant digits.
func roundTo(v float64, sig int) float64 {
	if v == 0 {
		return 0
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', sig, 64), 64)
	return f
}
