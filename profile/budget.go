package profile

import (
	"fmt"
	"math"
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
)

// The retry budget's sizing constants (docs/design.md §7, "Retry budgets from the measured
// load").
const (
	// BudgetConfidence is the one-sided confidence of the upper bound on the transient
	// failure share (Clopper–Pearson): the budget is sized for a share the measurement
	// makes unlikely to be exceeded, not for the point estimate — with no failure in n
	// requests the bound is about 3/n, never 0.
	BudgetConfidence = 0.95
	// BudgetHeadroom multiplies the retries the bound needs: a failure share twice the
	// bound still gets every retry it asks for.
	BudgetHeadroom = 2.0
	// BudgetFloorPercent is the lowest percentage: at 5% an outage adds at most about 5%
	// load (amplification ≤ 1/(1−0.05) ≈ 1.053), well inside the headroom a dependency
	// needs anyway, while a transient burst up to 5% of requests still gets its retries.
	BudgetFloorPercent = 5.0
	// BudgetQuantile is the Poisson quantile the floors cover: retries in flight (Envoy)
	// and retries per window (Linkerd, gRPC's tokens) exceed it at the needed share in
	// one window in a thousand.
	BudgetQuantile = 0.999
	// BudgetWindow is the window rate-based budgets count over: Linkerd's ttl default
	// (10 s), also the stretch of failures gRPC's token bucket must absorb.
	BudgetWindow = 10 * time.Second
	// GRPCMaxTokensCap is gRFC A6's largest maxTokens (larger values are treated as 1000).
	GRPCMaxTokensCap = 1000
	// grpcThresholdCap bounds gRPC's throttling threshold f* = r/(1+r) at one failure per
	// success (tokenRatio 1): above it throttling would wait for more failures than
	// successes.
	grpcThresholdCap = 0.5
)

// BudgetLoad is what the retry budget is sized from: the load, its latency, the transient
// failures and the attempts the recommendation allows.
type BudgetLoad struct {
	// RatePerS is the request rate λ; RateFrom says where it came from (derivations).
	RatePerS float64
	RateFrom string
	// MeanMs is the mean latency W of the answered requests (Little's law: L = λ·W).
	MeanMs float64
	// Requests counts the finished requests, Transient those that failed with a class a
	// retry would repeat (TransientFailures); TransientWhat names the classes.
	Requests, Transient int64
	TransientWhat       string
	// Attempts is the recommended max attempts k (first try included).
	Attempts int
}

// SizeRetryBudget sizes the retry budgets of proxies, meshes and gRPC from a load
// (docs/design.md §7): nil without a rate or a latency (never a guess). Each number gets its
// derivation line. The rule:
//
//   - f⁺ is the one-sided BudgetConfidence upper bound on the transient failure share;
//     retries needed per request are at most f⁺·(k−1) (each retry fails at most as often).
//   - Percent = max(BudgetFloorPercent, ⌈100·BudgetHeadroom·f⁺·(k−1)⌉), at most 100.
//   - Envoy's min_retry_concurrency is the BudgetQuantile of the Poisson count of retries in
//     flight at the need (mean f⁺·(k−1)·L), at least 1: a quiet service can retry a failure.
//   - Linkerd's minRetriesPerSecond tops up retryRatio·λ·ttl to the BudgetQuantile of the
//     retries in one ttl, at least 1.
//   - gRPC's tokenRatio r puts the throttling threshold r/(1+r) at Percent/(k−1) of the
//     attempts failing; maxTokens is twice the BudgetQuantile of failed attempts in a window,
//     plus 2, at most 1000.
//
// k ≤ 1 is a budget that allows no retry: the proxy must not add what the caller must not.
func SizeRetryBudget(l BudgetLoad) *RetryBudget {
	if !(l.RatePerS > 0) || !(l.MeanMs > 0) || l.Requests <= 0 {
		return nil
	}
	s := budgetSizer{l: l, b: &RetryBudget{RatePerS: l.RatePerS, Concurrency: l.RatePerS * l.MeanMs / 1000, Derivation: []string{}}}
	s.load()
	if l.Attempts <= 1 {
		s.noRetries()
		return s.b
	}
	s.need()
	s.percent()
	s.envoyFloor()
	s.linkerdFloor()
	s.grpc()
	s.outage()
	return s.b
}

// budgetSizer is one SizeRetryBudget: its input, the budget so far and the figures the
// stages share.
type budgetSizer struct {
	l BudgetLoad
	b *RetryBudget
	// upper is f⁺; perRequest the retries needed per request, f⁺·(k−1).
	upper, perRequest float64
}

func (s *budgetSizer) add(format string, args ...any) {
	s.b.Derivation = append(s.b.Derivation, fmt.Sprintf(format, args...))
}

// load states λ, W and L.
func (s *budgetSizer) load() {
	s.add("retry budget load: λ = %s (%s), mean latency W = %s → concurrency L = λ·W = %s in flight (Little's law)",
		units.Rate(s.l.RatePerS), s.l.RateFrom, units.Millis(s.l.MeanMs), units.Sig(s.b.Concurrency))
}

// noRetries is the budget of a caller that makes one attempt.
func (s *budgetSizer) noRetries() {
	s.b.OutageAmplification, s.b.FloorAmplification = 1, 1
	s.b.WindowS = BudgetWindow.Seconds()
	s.add("retry budget: none to admit — %d attempt, so no retry: budget_percent 0 and min_retry_concurrency 0 (Envoy, Istio), retryRatio 0 and minRetriesPerSecond 0 (Linkerd), no retryPolicy and so no retryThrottling (gRPC, max_tokens 0 here): a proxy must not add the retries the caller must not make; amplification 1",
		max(s.l.Attempts, 1))
}

// need is f⁺ and the retries per request it needs.
func (s *budgetSizer) need() {
	n, x, k := s.l.Requests, s.l.Transient, s.l.Attempts
	s.upper = BinomialUpper(x, n, BudgetConfidence)
	s.perRequest = s.upper * float64(k-1)
	s.b.TransientShare, s.b.TransientUpper = float64(x)/float64(n), s.upper
	s.add("retry budget need: %s of %s requests (%s) failed with a class a retry repeats (%s); its one-sided %g%% upper bound (Clopper–Pearson) f⁺ = %s; with k = %d attempts a request needs at most f⁺·(k−1) = %s retries per request (each retry fails at most as often as the first try)",
		units.Count(int(x)), units.Count(int(n)), percent(s.b.TransientShare), s.l.TransientWhat, BudgetConfidence*100, percent(s.upper), k, percent(s.perRequest))
}

// percent is Envoy's budget_percent and Linkerd's retryRatio.
func (s *budgetSizer) percent() {
	raw := 100 * BudgetHeadroom * s.perRequest
	p := math.Min(100, math.Max(BudgetFloorPercent, math.Ceil(raw-1e-9)))
	s.b.Percent = p
	why := fmt.Sprintf("above the %g%% floor", BudgetFloorPercent)
	if raw <= BudgetFloorPercent {
		why = fmt.Sprintf("below the %g%% floor (an outage adds at most ~%g%% load at it, a burst up to %g%% of requests still gets its retries)", BudgetFloorPercent, BudgetFloorPercent, BudgetFloorPercent)
	}
	if p == 100 {
		why = "capped at 100% (Envoy's range): the failures need more retries than requests — fix the dependency, a budget cannot"
	}
	s.add("retry budget percent: %g × %s = %s, %s → %g%% (Envoy and Istio budget_percent; Linkerd retryRatio %s)",
		BudgetHeadroom, percent(s.perRequest), percent(raw/100), why, p, strconv.FormatFloat(p/100, 'f', -1, 64))
}

// envoyFloor is min_retry_concurrency: Envoy allows max(min, percent × active) retries in
// flight, so at a low concurrency the floor is what admits the retries.
func (s *budgetSizer) envoyFloor() {
	m := s.perRequest * s.b.Concurrency
	c := max(1, PoissonQuantile(m, BudgetQuantile))
	s.b.MinRetryConcurrency = int(c)
	byPercent := s.b.Percent / 100 * s.b.Concurrency
	tail := fmt.Sprintf("above %g%% × L = %s, so at this concurrency the floor, not the percentage, admits them", s.b.Percent, units.Sig(byPercent))
	if float64(c) <= byPercent {
		tail = fmt.Sprintf("within %g%% × L = %s, so it does not dominate at this load", s.b.Percent, units.Sig(byPercent))
	}
	s.add("retry budget min_retry_concurrency: retries in flight at the need average f⁺·(k−1)·L = %s; their %s Poisson quantile is %d (at least 1, so a quiet service can retry one failure) → %d, %s (Envoy allows max(min_retry_concurrency, budget_percent × active requests))",
		units.Sig(m), QuantileLabel(BudgetQuantile), c, c, tail)
}

// linkerdFloor is minRetriesPerSecond: Linkerd allows retryRatio × requests plus
// minRetriesPerSecond × ttl retries in a ttl.
func (s *budgetSizer) linkerdFloor() {
	t := BudgetWindow.Seconds()
	s.b.WindowS = t
	mu := s.perRequest * s.l.RatePerS * t
	q := PoissonQuantile(mu, BudgetQuantile)
	byRatio := s.b.Percent / 100 * s.l.RatePerS * t
	per := max(1, int64(math.Ceil((float64(q)-byRatio)/t-1e-9)))
	s.b.MinRetriesPerSecond = int(per)
	how := fmt.Sprintf("%d/s × ttl tops it up to the quantile", per)
	if float64(q) <= byRatio {
		how = "that covers it, so the 1/s floor (a quiet service can still retry one failure)"
	}
	s.add("retry budget minRetriesPerSecond: in a %s ttl the need is %s retries on average, %d at its %s Poisson quantile; retryRatio × λ × ttl allows %s: %s → %d (Linkerd allows retryRatio × requests + minRetriesPerSecond × ttl retries in a ttl)",
		units.Seconds(t), units.Sig(mu), q, QuantileLabel(BudgetQuantile), units.Sig(byRatio), how, per)
}

// grpc is retryThrottling (gRFC A6): every failed attempt takes a token, every success
// gives tokenRatio back, and retries stop while the tokens are at most maxTokens/2. Over
// many attempts with a failure share f the tokens drift by r·(1−f) − f per attempt: they
// rise (retries keep flowing) while f < r/(1+r), and fall to the threshold otherwise.
func (s *budgetSizer) grpc() {
	k := float64(s.l.Attempts - 1)
	threshold := math.Min(grpcThresholdCap, s.b.Percent/100/k)
	ratio := math.Max(0.001, math.Ceil(threshold/(1-threshold)*1000-1e-9)/1000)
	s.b.TokenRatio = ratio
	t := BudgetWindow.Seconds()
	failed := s.upper * (1 + s.perRequest) * s.l.RatePerS * t
	d := PoissonQuantile(failed, BudgetQuantile)
	tokens := min(int64(GRPCMaxTokensCap), 2*d+2)
	s.b.MaxTokens = int(tokens)
	capped := ""
	if tokens == GRPCMaxTokensCap {
		capped = fmt.Sprintf(", capped at A6's %d (throttling starts after %d failures, before the quantile)", GRPCMaxTokensCap, GRPCMaxTokensCap/2)
	}
	s.add("retry budget gRPC retryThrottling: tokens fall while more than r/(1+r) of attempts fail; r/(1+r) = %g%%/(k−1) = %s of attempts failing, above f⁺ = %s, so retries flow at the measured share → tokenRatio %s (A6: at most 3 decimals, rounded up); maxTokens: failed attempts in %s average f⁺·(1 + f⁺·(k−1))·λ·%s = %s, %d at their %s Poisson quantile; 2 × %d + 2 = %d lets that many attempts fail from a full bucket with retries still flowing (they stop at maxTokens/2)%s → %d",
		s.b.Percent, percent(threshold), percent(s.upper), strconv.FormatFloat(ratio, 'f', -1, 64),
		units.Seconds(t), units.Seconds(t), units.Sig(failed), d, QuantileLabel(BudgetQuantile), d, 2*d+2, capped, tokens)
}

// outage is what the budget lets through when every attempt fails.
func (s *budgetSizer) outage() {
	p, k := s.b.Percent/100, float64(s.l.Attempts)
	// Envoy counts retries in flight among the active requests the percentage applies to:
	// R ≤ p·(P + R), so R/P ≤ p/(1−p); Linkerd counts them against first tries: R ≤ p·P.
	amp := k
	if p < 1 {
		amp = math.Min(k, 1/(1-p))
	}
	s.b.OutageAmplification = roundTo(amp, 4)
	floor := math.Max(amp, math.Max(1+float64(s.b.MinRetryConcurrency)/s.b.Concurrency, 1+p+float64(s.b.MinRetriesPerSecond)/s.l.RatePerS))
	floor = math.Min(k, floor)
	s.b.FloorAmplification = roundTo(floor, 4)
	s.add("retry budget outage: when every attempt fails, at most %s attempts per request once the floors are spent (Envoy: retries in flight ≤ %g%% of active requests, retries included, so ≤ p/(1−p) of first tries; Linkerd ≤ p; never above k = %d); at the measured load the floors allow up to %s (min(k, max(that, 1 + min_retry_concurrency/L, 1 + p + minRetriesPerSecond/λ))); gRPC stops retrying after maxTokens/2 = %d failed attempts, about %s at λ, then sends first tries only (amplification 1)",
		units.Sig(s.b.OutageAmplification), s.b.Percent, s.l.Attempts, units.Sig(s.b.FloorAmplification), s.b.MaxTokens/2, units.Seconds(float64(s.b.MaxTokens/2)/s.l.RatePerS))
}

// BinomialUpper is the one-sided Clopper–Pearson upper confidence bound on a share from x
// events in n trials: the p at which P(X ≤ x) = 1 − level for X ~ Binomial(n, p); 1 when
// x ≥ n. With x = 0 it is 1 − (1−level)^(1/n), about 3/n at 95% (the rule of three).
func BinomialUpper(x, n int64, level float64) float64 {
	if n <= 0 || x >= n {
		return 1
	}
	tail := 1 - level
	lo, hi := float64(x)/float64(n), 1.0
	for range 100 {
		mid := (lo + hi) / 2
		cdf, _, _ := binomialCDF(n, mid)
		if cdf(x) > tail {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-12 {
			break
		}
	}
	return hi
}

// PoissonQuantile is the least c with P(X ≤ c) ≥ q for X ~ Poisson(mean); 0 for mean ≤ 0.
// Exact below a mean of 500, the normal approximation with continuity correction above.
func PoissonQuantile(mean, q float64) int64 {
	if !(mean > 0) {
		return 0
	}
	if mean > 500 {
		z := math.Sqrt2 * math.Erfinv(2*q-1)
		return int64(math.Ceil(mean + z*math.Sqrt(mean) - 0.5))
	}
	pmf := math.Exp(-mean)
	cdf := pmf
	var c int64
	for cdf < q && c < 100000 {
		c++
		pmf *= mean / float64(c)
		cdf += pmf
	}
	return c
}

// transientOutcomes maps the probe's error classes to the outcome a retry policy sees;
// the classes missing here (dns, tls, other, fd_limit) are not what a retry repeats: a name
// or a certificate that failed fails again, and fd_limit is the caller's own limit.
// HTTP/2's refused_stream and goaway leave the request unprocessed (never left); its
// stream_reset is a reset after sending.
var transientOutcomes = map[string]policy.OutcomeKind{
	"timeout": policy.Timeout, "refused": policy.Refused, "reset": policy.Reset,
	"refused_stream": policy.Refused, "goaway": policy.Refused, "stream_reset": policy.Reset,
}

// TransientFailures counts the finished requests that failed with a class a retry would
// repeat for this caller: the default `on` list of docs/design.md §5 (connect, timeout,
// reset, 408, 409, 429, 5xx) less its `never` (501), with the classification's veto — an
// outcome-unknown failure (timeout, reset, 5xx) counts only for an idempotent method or one
// with an Idempotency-Key. It returns the count and what it counted.
func TransientFailures(ev *Evidence, c Caller) (int64, string) {
	c = c.filled()
	p := policy.Policy{Retry: policy.Retry{Never: []int{501}, NonIdempotent: policy.NonIdempotentWithKey}}
	req := policy.Request{Method: c.Method, HasKey: c.IdempotencyKey}
	var n int64
	for class, kind := range transientOutcomes {
		if p.Retryable(req, policy.Outcome{Kind: kind}) {
			n += ev.Errors[class]
		}
	}
	for code, count := range ev.Status {
		s, err := strconv.Atoi(code)
		if err == nil && p.Retryable(req, policy.Outcome{Kind: policy.Status, Status: s}) {
			n += count
		}
	}
	what := "connect errors, timeouts, resets, 408, 409, 429, 5xx but 501"
	if c.retriesUnsafe() {
		what = "connect errors, 408, 409, 429: " + c.Method + " without an Idempotency-Key repeats no timeout, reset or 5xx"
	}
	return n, what
}

// sizeBudget is the recommendation's retry budget: from the rate of the caller's own
// traffic (a log's), or the rate the caller stated (RecommendOptions.LoadPerS, which wins:
// the caller knows production's rate better than a sample of it), with the measured mean
// latency, transient failures and the attempts just recommended. nil without a rate.
func (r *recommender) sizeBudget() *RetryBudget {
	rate, from := r.ev.RatePerS, r.ev.RateFrom
	if r.o.LoadPerS > 0 {
		rate, from = r.o.LoadPerS, "production's rate as stated, not the probe's own"
	}
	x, what := TransientFailures(&r.ev, r.c)
	return SizeRetryBudget(BudgetLoad{
		RatePerS: rate, RateFrom: from, MeanMs: r.ev.MeanMs,
		Requests: r.finished, Transient: x, TransientWhat: what, Attempts: r.rec.MaxAttempts,
	})
}

// callerRate is the rate of the caller's own traffic a profile measured: a log's (model
// "log", advise) requests over the span its timestamps cover; 0 for a probe, whose rate is
// its own offered load, and for a log whose records carry no time.
func (r *Profile) callerRate() (float64, string) {
	if r.Model != "log" || !(r.DurationMs > 0) || !(r.Schedule.AchievedPerS > 0) {
		return 0, ""
	}
	return r.Schedule.AchievedPerS, fmt.Sprintf("%s requests over the %s the log's timestamps span",
		units.Count(int(r.Requests)), units.Millis(r.DurationMs))
}

// meanMs is the mean of a histogram of microseconds, in milliseconds (0 when empty).
func meanMs(h *hdrhistogram.Histogram) float64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	return h.Mean() / 1000
}
