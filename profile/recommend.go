package profile

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/httpstatus"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/verdict"
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

// BackoffDescription names AssumedRetry in derivations and JSON, from its own values
// (policy.Retry.DescribeBackoff), with the worst case full jitter allows:
// "exponential base 100 ms ×2 cap 10 s, full jitter (worst case = d)".
func BackoffDescription() string {
	r := AssumedRetry()
	return r.DescribeBackoff() + " (worst case = d)"
}

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

// QueueVerdict is the verdict when the budget cannot hold one normal call.
const QueueVerdict = "the budget cannot hold one normal call; accept the work and move the call to a queue"

// CallerKind is who waits for the call (docs/design.md §7): a person or an upstream request
// (interactive), or a queue worker whose queue retries (job). Its text form, in flags, check
// files and JSON, is the string itself.
type CallerKind string

// Caller kinds.
const (
	CallerInteractive CallerKind = "interactive"
	CallerJob         CallerKind = "job"
)

// CallerKinds lists every CallerKind, the default first.
func CallerKinds() []CallerKind { return []CallerKind{CallerInteractive, CallerJob} }

// Caller describes who the advice is for.
type Caller struct {
	// Kind is interactive ("" too) or job.
	Kind CallerKind
	// Budget is, for an interactive caller, the whole time it waits, retries and backoff
	// included (0: DefaultBudget); for a job, the window the queue may keep retrying it in
	// (Laravel's retryUntil(); 0: none given, the seeds' tries apply).
	Budget time.Duration
	// Method is the request's method ("": GET); IdempotencyKey says whether it carries an
	// Idempotency-Key, which makes retrying a non-idempotent method safe.
	Method         string
	IdempotencyKey bool
}

// filled applies the defaults.
func (c Caller) filled() Caller {
	if c.Kind == "" {
		c.Kind = CallerInteractive
	}
	if c.Method == "" {
		c.Method = "GET"
	}
	c.Method = strings.ToUpper(c.Method)
	if c.Kind == CallerInteractive && c.Budget <= 0 {
		c.Budget = DefaultBudget
	}
	return c
}

// retriesUnsafe: a non-idempotent method without an Idempotency-Key may have been executed
// when it timed out or got a 5xx, so a retry could do it twice (check's PT005).
func (c Caller) retriesUnsafe() bool {
	return !policy.IdempotentMethod(c.Method) && !c.IdempotencyKey
}

// RecommendOptions are the knobs of the advice; the zero value is docs/design.md §7's defaults.
type RecommendOptions struct {
	// Cutoff is the accepted share of requests a timeout may cut off (0: 0.1%, p99.9).
	Cutoff float64
	// Headroom multiplies the basis quantile (0: DefaultHeadroom).
	Headroom float64
	// ConnectFloor is the lowest connect timeout (0: DefaultConnectFloor).
	ConnectFloor time.Duration
	// MaxErrorRate is the share of failed requests above which the verdict is bad (0:
	// DefaultMaxErrorRate; NoFailuresAllowed or any negative value: none is tolerated).
	MaxErrorRate float64
	// LoadPerS is the caller's production request rate, stated (probe --load): the retry
	// budget's rate when the evidence has none of the caller's own (0: none stated).
	LoadPerS float64
}

// DefaultMaxErrorRate is the share of failed requests a probe tolerates before its verdict
// is bad: 5%, one request in twenty.
const DefaultMaxErrorRate = 0.05

// NoFailuresAllowed as RecommendOptions.MaxErrorRate makes any failed request a bad verdict.
const NoFailuresAllowed = -1.0

// WithDefaults is o with every zero field set to its default (and a negative MaxErrorRate
// to 0, no failure allowed): what Recommend applies.
func (o RecommendOptions) WithDefaults() RecommendOptions {
	if o.Cutoff <= 0 {
		o.Cutoff = DefaultCutoff
	}
	if o.Headroom <= 0 {
		o.Headroom = DefaultHeadroom
	}
	if o.ConnectFloor <= 0 {
		o.ConnectFloor = DefaultConnectFloor
	}
	switch {
	case o.MaxErrorRate == 0:
		o.MaxErrorRate = DefaultMaxErrorRate
	case o.MaxErrorRate < 0:
		o.MaxErrorRate = 0
	}
	return o
}

// InteractiveAttempts is the most attempts an interactive caller gets: one retry. The seeds:
// a person waiting for a page cannot wait several times, so a short timeout and at most one
// retry, then "cannot be shown now" (短いタイムアウトで多くても1回だけリトライ).
const InteractiveAttempts = 2

// The queue design for a job caller: the seeds' Laravel job ($tries = 6, backoff 10, 30, 90,
// 270, 600 s plus up to 25% jitter, $timeout 20 s for a 5 s call, retry_after 90 s).
const (
	JobTries            = 6
	JobBackoffBase      = 10 * time.Second
	JobBackoffFactor    = 3
	JobBackoffCap       = 600 * time.Second
	JobJitterFactor     = 0.25
	JobTimeoutFactor    = 4               // the job timeout is 4 × the call timeout ...
	JobTimeoutMin       = 5 * time.Second // ... and at least this (room for the job's own work)
	JobRetryAfterMin    = 90 * time.Second
	JobRetryAfterMargin = 10 * time.Second // retry_after exceeds the job timeout by at least this
)

// JobRetry is the queue's retry schedule for a job: exponential from JobBackoffBase ×3,
// capped at JobBackoffCap, each delay d run at d + U[0, d/4] (proportional jitter, the
// seeds' random_int(0, intdiv($seconds, 4))). Its WorstCase is how long a job that fails every
// try keeps retrying.
func JobRetry() policy.Retry {
	return policy.Retry{
		Backoff: policy.BackoffExponential, Base: JobBackoffBase, Multiplier: JobBackoffFactor, Cap: JobBackoffCap,
		Jitter: policy.JitterProportional, JitterFactor: JobJitterFactor, RetryAfter: policy.RetryAfterIgnore,
	}
}

// DefaultRecommendOptions are the defaults Recommend applies to a zero RecommendOptions, spelled out.
func DefaultRecommendOptions() RecommendOptions {
	return RecommendOptions{Cutoff: DefaultCutoff, Headroom: DefaultHeadroom, ConnectFloor: DefaultConnectFloor, MaxErrorRate: DefaultMaxErrorRate}
}

// Recommend is the recommendation of docs/design.md §7 for one caller, from what a probe measured:
// the one function probe, `check --init --profile` and check's rules take their advice from
// (a saved profile gives its Evidence with Profile.Evidence). It is pure: every number comes
// with the derivation line that produced it, and the verdict says what the measurement lets
// the caller rely on.
//
// Requests that got no answer within --max-timeout are latencies longer than it
// (right-censored): they count in the basis quantile, so a target where many hang gets no
// timeout at all rather than one fitted to the requests that did answer. 4xx and 5xx are not
// good responses. Below the samples the cut-off needs the verdict is provisional.
//
// It runs as stages on a recommender: what could not be measured, the failures, the total
// timeout (or why there is none), then the connect and read timeouts and the attempts.
func Recommend(ev Evidence, c Caller, o RecommendOptions) Recommendation {
	r := newRecommender(ev, c, o)
	r.judgeUnmeasured()
	if r.good == 0 && r.ev.Outlived == 0 {
		r.rec.Derivation = append(r.rec.Derivation, "timeout: no good response (status below 400) arrived, so no latency to derive a timeout from")
		return r.rec
	}
	r.judgeFailures()
	switch basis, outcome := r.deriveTimeout(); outcome {
	case totalBeyond:
		r.explainBeyond()
		r.adviseStreamAlone()
		return r.rec
	case totalOutlived:
		r.explainOutlived()
	default:
		r.rec.BasisMs = basis
	}
	r.rec.ConnectTimeoutMs = adviseConnect(&r.rec, r.ev.Connect, r.o.ConnectFloor)
	r.rec.ReadTimeoutMs = r.deriveRead()
	r.rec.StreamAdvice = r.adviseStream()
	r.setBudgetReads()
	r.judgeAttempts()
	r.rec.RetryBudget = r.sizeBudget()
	return r.rec
}

// recommender is one Recommend: its inputs with the defaults applied, the recommendation so
// far and the counts every stage reads.
type recommender struct {
	ev  Evidence
	c   Caller
	o   RecommendOptions
	rec Recommendation
	// q is the cut-off quantile, label its name ("p99.9"), need the samples it needs.
	q     float64
	label string
	need  int64
	// finished, answered and good count requests; n is good plus censored (unanswered, and
	// streams still streaming at --max-timeout).
	finished, answered, good, n int64
	// maxTimeout is --max-timeout as text; noAnswer is set when the unanswered requests
	// alone are above --max-error-rate.
	maxTimeout string
	noAnswer   bool
}

func newRecommender(ev Evidence, c Caller, o RecommendOptions) *recommender {
	o, c = o.WithDefaults(), c.filled()
	if ev.Good == nil {
		ev.Good = Sample(nil)
	}
	if ev.MaxTimeout <= 0 {
		ev.MaxTimeout = DefaultMaxTimeout
	}
	r := &recommender{ev: ev, c: c, o: o, q: 1 - o.Cutoff}
	r.rec = Recommendation{
		BudgetMs:       ms(c.Budget),
		CutoffRate:     o.Cutoff,
		Headroom:       o.Headroom,
		ConnectFloorMs: ms(o.ConnectFloor),
		MaxErrorRate:   o.MaxErrorRate,
		Backoff:        BackoffDescription(),
		Caller:         CallerInfo{Kind: c.Kind, Method: c.Method, IdempotencyKey: c.IdempotencyKey, BudgetMs: ms(c.Budget)},
		Verdict:        Verdict{Reasons: []Reason{}},
		Derivation:     []string{},
	}
	r.label, r.need = QuantileLabel(r.q), SamplesNeeded(r.q)
	r.finished, r.answered, r.good = ev.Finished(), ev.Answered(), ev.Good.Count()
	r.n = r.good + ev.Censored()
	r.rec.Samples, r.rec.SamplesNeeded = r.n, r.need
	if r.finished > 0 {
		r.rec.ErrorRate = float64(r.finished-r.good-ev.Outlived) / float64(r.finished)
		r.rec.NoAnswerRate = float64(ev.NoAnswer) / float64(r.finished)
	}
	r.maxTimeout = units.Millis(ms(ev.MaxTimeout))
	return r
}

// judgeUnmeasured says what could not be measured at all, and whether the generator kept
// its rate.
func (r *recommender) judgeUnmeasured() {
	ev, v, finished := &r.ev, &r.rec.Verdict, r.finished
	switch {
	case ev.Unreachable && largestFailure(ev) == "tls":
		// The target answered, but its certificate (or protocol) was refused: not "unreachable".
		v.Add(CodeUnreachable, verdict.Bad, "TLS failure: the first requests failed the TLS handshake ("+failureSummary(ev)+")"+sampleClause(ev))
	case ev.Unreachable:
		v.Add(CodeUnreachable, verdict.Bad, "target unreachable: the first requests could not connect ("+failureSummary(ev)+")"+sampleClause(ev))
	case finished > 0 && r.answered == 0 && ev.NoAnswer == finished:
		v.Add(CodeAllFailed, verdict.Bad, fmt.Sprintf("no request got an answer within %s: the dependency is failing, not slow", r.maxTimeout))
	case finished > 0 && r.answered == 0:
		v.Add(CodeAllFailed, verdict.Bad, "every request failed ("+failureSummary(ev)+"): nothing measured"+sampleClause(ev))
	case finished == 0:
		v.Add(CodeAllFailed, verdict.Bad, "no request finished: nothing measured")
	case r.good == 0 && ev.Outlived == 0:
		v.Add(CodeNoGoodResponse, verdict.Bad, noGoodText(ev))
	}
	if s := ev.Schedule; s.RequestedPerS != nil && !s.RateHeld && !ev.Unreachable && finished > 0 {
		v.Add(CodeRateNotHeld, verdict.Bad, fmt.Sprintf("the generator did not keep the rate (%.4g/s of %.4g/s): the load, not only the target, shaped these figures", s.AchievedPerS, *s.RequestedPerS))
	}
}

// judgeFailures grades the failures: unanswered requests first (the headline of a hanging
// target), then the rest.
func (r *recommender) judgeFailures() {
	ev, v, o := &r.ev, &r.rec.Verdict, r.o
	r.noAnswer = r.rec.NoAnswerRate > o.MaxErrorRate
	if r.noAnswer {
		v.Add(CodeNoAnswer, verdict.Bad, fmt.Sprintf("%s of requests got no answer within %s: the dependency is failing, not slow", percent(r.rec.NoAnswerRate), r.maxTimeout))
	}
	other := r.finished - r.good - ev.Outlived
	if r.noAnswer {
		other -= ev.NoAnswer
	}
	if share := float64(other) / float64(r.finished); share > o.MaxErrorRate {
		text := fmt.Sprintf("%s of requests failed (%s): above the %s --max-error-rate", percent(share), failureSummary(ev), percent(o.MaxErrorRate))
		if h := hintFor(ev, largestFailure(ev)); h != "" {
			text += " — " + h
		}
		v.Add(CodeErrorRate, verdict.Bad, text)
	}
}

// totalOutcome is how deriveTimeout ended: a total derived, none because the quantile lies
// among the unanswered requests (beyond --max-timeout), or none because it lies among the
// streams still streaming at --max-timeout (an answered stream of unbounded length).
type totalOutcome int

const (
	totalDerived totalOutcome = iota
	totalBeyond
	totalOutlived
)

// deriveTimeout is the total timeout: the quantile 1 − cutoff of good and censored requests
// together, or the slowest good response when too few back it. It returns the basis, or why
// there is none when the quantile lies among the censored: beyond --max-timeout when the
// unanswered requests alone put it there (they are failures), outlived when only the
// streams still streaming do (answered, longer than the probe waited: docs/design.md §7
// "Streams").
func (r *recommender) deriveTimeout() (basis float64, outcome totalOutcome) {
	if r.n >= r.need && quantileRank(r.n, r.q) <= r.good {
		return r.quantileTimeout(quantileRank(r.n, r.q)), totalDerived
	}
	if r.n < r.need && r.ev.Censored() == 0 {
		return r.slowestTimeout(), totalDerived
	}
	if r.ev.Outlived == 0 || r.unansweredBeyond() {
		return 0, totalBeyond
	}
	return 0, totalOutlived
}

// unansweredBeyond reports whether the unanswered requests alone, the streams still streaming
// left out, put the cut-off quantile beyond --max-timeout (or, below the samples it needs,
// whether there are any).
func (r *recommender) unansweredBeyond() bool {
	if r.ev.NoAnswer == 0 {
		return false
	}
	n := r.good + r.ev.NoAnswer
	return n < r.need || quantileRank(n, r.q) > r.good
}

// explainOutlived says why no total is derived when the cut-off quantile lies among the
// streams still streaming at --max-timeout: they answered, and are longer than the probe
// waited, so the stream's total is unbounded (the stream stage says so), not a failure.
func (r *recommender) explainOutlived() {
	r.rec.Derivation = append(r.rec.Derivation, fmt.Sprintf(
		"timeout: none — the %s of the %s requests lies among the %s streams still streaming at the %s --max-timeout: they sent their first event and were answering when the probe stopped waiting, so they are answered calls longer than %s, not failures; a total fitted to the streams seen would cut them — the stream's total is unbounded, and the first-event and idle timeouts bound it",
		r.label, units.Count(int(r.n)), units.Count(int(r.ev.Outlived)), r.maxTimeout, r.maxTimeout))
}

// quantileTimeout derives the timeout from the sample at rank, with its confidence interval.
func (r *recommender) quantileTimeout(rank int64) float64 {
	ev, rec, n := &r.ev, &r.rec, r.n
	basis := ev.Good.AtRank(rank)
	low, high, open := QuantileCI(n, r.q, 0.95)
	if high > r.good {
		open = true
	}
	rec.BasisCILowMs = ptr(ev.Good.AtRank(low))
	ci := fmt.Sprintf("95%% CI %s–%s", units.Millis(*rec.BasisCILowMs), units.Millis(ev.Good.AtRank(high)))
	if open {
		ci = fmt.Sprintf("95%% CI from %s, open above: %s or more responses bound it", units.Millis(*rec.BasisCILowMs), units.Count(int(SamplesToBound(r.q, 0.95))))
	} else {
		rec.BasisCIHighMs = ptr(ev.Good.AtRank(high))
	}
	of := "good responses"
	count := "n=" + units.Count(int(n))
	if ev.Censored() > 0 {
		of = "good responses and unanswered requests"
		count = fmt.Sprintf("n=%s, %s, counted as slower", units.Count(int(n)), r.censoredText())
	}
	if ev.NoAnswer == 0 && ev.Outlived > 0 {
		of = "good responses and streams still streaming"
	}
	raw := basis * r.o.Headroom
	rec.TimeoutMs = RoundUpClean(raw)
	rec.Derivation = append(rec.Derivation, fmt.Sprintf(
		"timeout: %s of %s = %s (%s; %s) × %g headroom = %s → %s (rounded up on the 1-1.2-1.5-2-2.5-3-4-5-6-8 × 10^n ladder)",
		r.label, of, units.Millis(basis), count, ci, r.o.Headroom, units.Millis(raw), units.Millis(rec.TimeoutMs)))
	return basis
}

// censoredText names the censored requests: "2 of them with no answer within 30 s", "3 of
// them still streaming at 30 s", or both joined by "and".
func (r *recommender) censoredText() string {
	var parts []string
	if r.ev.NoAnswer > 0 {
		parts = append(parts, fmt.Sprintf("%s with no answer within %s", units.Count(int(r.ev.NoAnswer)), r.maxTimeout))
	}
	if r.ev.Outlived > 0 {
		parts = append(parts, fmt.Sprintf("%s still streaming at %s", units.Count(int(r.ev.Outlived)), r.maxTimeout))
	}
	first, rest, _ := strings.Cut(strings.Join(parts, " and "), " ")
	return first + " of them " + rest
}

// slowestTimeout derives the timeout from the slowest good response, a lower bound on the
// quantile when too few samples back it.
func (r *recommender) slowestTimeout() float64 {
	rec := &r.rec
	basis := r.ev.Good.AtRank(r.good)
	raw := basis * r.o.Headroom
	rec.TimeoutMs = RoundUpClean(raw)
	rec.Derivation = append(rec.Derivation, fmt.Sprintf(
		"timeout: %s needs ≥ %d samples, have %d; basis is the slowest seen, %s (a lower bound on %s) × %g headroom = %s → %s; probe with -n %d or more for a real %s",
		r.label, r.need, r.n, units.Millis(basis), r.label, r.o.Headroom, units.Millis(raw), units.Millis(rec.TimeoutMs), r.need, r.label))
	return basis
}

// explainBeyond says why no timeout is derived when the quantile lies beyond --max-timeout,
// and what the answered requests alone would give.
func (r *recommender) explainBeyond() {
	ev, rec, o, n := &r.ev, &r.rec, r.o, r.n
	rec.BasisBeyond = true
	rec.Derivation = append(rec.Derivation, fmt.Sprintf(
		"timeout: none — the %s of the %d requests lies beyond the %s --max-timeout: %d of them (%s) got no answer, more than the %s cut-off allows, so no measured latency bounds it",
		r.label, n, r.maxTimeout, ev.NoAnswer, percent(float64(ev.NoAnswer)/float64(n)), percent(o.Cutoff)))
	alone := ev.Good.AtRank(r.good)
	if r.good >= r.need {
		alone = ev.Good.AtRank(quantileRank(r.good, r.q))
	}
	fitted := RoundUpClean(alone * o.Headroom)
	rec.Derivation = append(rec.Derivation, fmt.Sprintf(
		"timeout: the answered requests alone would give %s (%s × %g), a timeout that cuts off every unanswered request: %s of them here",
		units.Millis(fitted), units.Millis(alone), o.Headroom, percent(float64(ev.NoAnswer+ev.Good.Above(fitted))/float64(n))))
	if !r.noAnswer {
		rec.Verdict.Add(CodeTailBeyond, verdict.Bad, fmt.Sprintf("%s of requests got no answer within %s, more than the %s cut-off: the %s lies beyond --max-timeout, so no timeout can be derived (probe with a longer --max-timeout, or accept more with --cutoff)",
			percent(rec.NoAnswerRate), r.maxTimeout, percent(o.Cutoff), r.label))
	}
	rec.Derivation = append(rec.Derivation, "attempts: none — without a timeout there is nothing to count")
}

// NoSilenceMeasured is the read timeout's derivation line for an input that does not time
// the silences of a response: many logs time a request's phases, not the pauses within it.
const NoSilenceMeasured = "read timeout: not derivable from this input as read — it times no silence of a response (the wait for the first byte after the request was written, the pauses between reads of the body), and a read timeout bounds those, not the phases; `patience probe` measures them"

// deriveRead is the read timeout (docs/design.md §7), derived from the silence phase as the
// total is from the total latency: the quantile 1 − cutoff of the longest silence of each
// good response, the unanswered requests counted as longer (a request with no answer within
// --max-timeout may have been silent that long), × headroom, rounded up on the ladder — then
// never above the total timeout, which would cut every such silence first. It is nil when
// the input times no silence, or when the quantile lies among the unanswered requests.
func (r *recommender) deriveRead() *float64 {
	ev, rec := &r.ev, &r.rec
	if rec.TimeoutMs <= 0 {
		rec.Derivation = append(rec.Derivation, "read timeout: none — no total here (the stream's total is unbounded): a stream's silences are bounded by the first-event and idle timeouts below")
		return nil
	}
	var good int64
	if ev.Silence != nil {
		good = ev.Silence.Count()
	}
	if good == 0 {
		rec.Derivation = append(rec.Derivation, NoSilenceMeasured)
		return nil
	}
	const silence = "its wait for the first byte or its longest pause between two reads, whichever is longer"
	n := good + ev.NoAnswer
	var basis float64
	var how string
	switch {
	case n >= r.need && quantileRank(n, r.q) <= good:
		basis = ev.Silence.AtRank(quantileRank(n, r.q))
		count := "n=" + units.Count(int(n))
		if ev.NoAnswer > 0 {
			count = fmt.Sprintf("n=%s, %s of them with no answer within %s, counted as longer", units.Count(int(n)), units.Count(int(ev.NoAnswer)), r.maxTimeout)
		}
		low, high, open := QuantileCI(n, r.q, 0.95)
		ci := fmt.Sprintf("95%% CI %s–%s", units.Millis(ev.Silence.AtRank(low)), units.Millis(ev.Silence.AtRank(high)))
		if open || high > good {
			ci = fmt.Sprintf("95%% CI from %s, open above", units.Millis(ev.Silence.AtRank(low)))
		}
		how = fmt.Sprintf("%s of the longest silence of each good response (%s) = %s (%s; %s)", r.label, silence, units.Millis(basis), count, ci)
	case ev.NoAnswer > 0:
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"read timeout: none — the %s of the longest silence of each good response lies among the %s requests with no answer within %s (they count as longer): no measured silence bounds it",
			r.label, units.Count(int(ev.NoAnswer)), r.maxTimeout))
		return nil
	default:
		basis = ev.Silence.AtRank(good)
		how = fmt.Sprintf("%s needs ≥ %d samples, have %d; basis is the longest silence seen (a response's wait for the first byte or its longest pause between two reads, whichever is longer), %s (a lower bound on %s)",
			r.label, r.need, n, units.Millis(basis), r.label)
	}
	raw := basis * r.o.Headroom
	read := RoundUpClean(raw)
	line := fmt.Sprintf("read timeout: %s × %g headroom = %s → %s", how, r.o.Headroom, units.Millis(raw), units.Millis(read))
	total := rec.TimeoutMs
	if read > total {
		read = total
		line += fmt.Sprintf(", capped at the %s total timeout (a read timeout at or above the total never fires: check's PT015)", units.Millis(total))
	}
	switch {
	case read >= total:
		line += "; read = total: rounded, the longest silences reach the total timeout here (a response's wait for its head is most of it), so beside the total a read timeout never fires — leave it out where the client has a total (one at or above it is check's PT015); it is the figure for a client with only a read timeout (Python requests' timeout=(connect, read)), which needs a total too (check's PT001)"
	case read*r.o.Headroom >= total:
		line += fmt.Sprintf("; read ≈ total (within the %g headroom of the %s total): a response's longest silence is most of its time here, so beside the total a read timeout ends few responses sooner — it matters for a client with only a read timeout (Python requests' timeout=(connect, read)), which needs a total too (check's PT001)",
			r.o.Headroom, units.Millis(total))
	default:
		line += fmt.Sprintf(", below the %s total timeout: it ends a stalled response early; it bounds each silence, never the whole response — a body dripping a byte just inside it never ends, so keep the total beside it (check's PT001)",
			units.Millis(total))
	}
	rec.Derivation = append(rec.Derivation, line)
	return ptr(read)
}

// judgeAttempts counts the attempts for the caller and gives the verdict: good, or
// provisional below the samples the cut-off needs.
func (r *recommender) judgeAttempts() {
	rec := &r.rec
	if rec.CallerWaitMs() <= 0 {
		// Only a stream gets here: its total unbounded, and no first-event timeout to hold
		// (an interactive caller) or a job whose run must hold the whole stream.
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"attempts: none — the budget reads the %s, and no %s timeout was derived: nothing to count", rec.BudgetReads, phaseWords(rec.BudgetReads)))
		r.streamReason()
		return
	}
	var sentence string
	if r.c.Kind == CallerJob {
		sentence = adviseJob(rec, r.c)
	} else {
		sentence = adviseInteractive(rec, r.c)
	}
	if !rec.FitsBudget {
		r.streamReason()
		return
	}
	sentence += streamClause(rec.StreamAdvice)
	if r.n < r.need {
		finishedPerSample := float64(r.finished) / float64(r.n)
		more := int64(math.Ceil(float64(r.need-r.n) * finishedPerSample))
		rec.Verdict.Add(CodeProvisional, verdict.Provisional, fmt.Sprintf("provisional: %s — %s samples back it, a %s needs %s: %s more requests would settle it",
			sentence, units.Count(int(r.n)), r.label, units.Count(int(r.need)), units.Count(int(more))))
		return
	}
	rec.Verdict.Add(CodeRecommendation, verdict.Good, sentence)
}

// adviseConnect is the connect timeout: max(3 × connect p99.9, floor), or none (0) when that
// is not below the total timeout.
func adviseConnect(rec *Recommendation, connects Latencies, floor time.Duration) float64 {
	floorMs := ms(floor)
	var connect float64
	count := int64(0)
	if connects != nil {
		count = connects.Count()
	}
	if count == 0 {
		connect = floorMs
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"connect timeout: no fresh connection was measured; the %s floor survives one lost SYN (initial RTO 1 s, RFC 6298 §2.1)", units.Millis(floorMs)))
	} else {
		var base float64
		var what string
		if count >= 1000 {
			base = connects.AtRank(quantileRank(count, 0.999))
			what = fmt.Sprintf("connect p99.9 %s (n=%s)", units.Millis(base), units.Count(int(count)))
		} else {
			base = connects.AtRank(count)
			what = fmt.Sprintf("slowest connect %s (n=%s < 1,000 for a p99.9)", units.Millis(base), units.Count(int(count)))
		}
		three := 3 * base
		if three >= floorMs {
			connect = RoundUpClean(three)
			rec.Derivation = append(rec.Derivation, fmt.Sprintf(
				"connect timeout: 3 × %s = %s, above the %s floor → %s", what, units.Millis(three), units.Millis(floorMs), units.Millis(connect)))
		} else {
			connect = floorMs
			rec.Derivation = append(rec.Derivation, fmt.Sprintf(
				"connect timeout: max(3 × %s = %s, %s floor that survives one lost SYN) = %s", what, units.Millis(three), units.Millis(floorMs), units.Millis(connect)))
		}
	}
	if rec.TimeoutMs > 0 && connect >= rec.TimeoutMs {
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"connect timeout: none — %s is not below the %s total timeout, so a separate connect timeout buys nothing: the total timeout bounds the connect, and a lost SYN costs the attempt either way (a connect timeout at or above the total is what check's PT002 warns about)",
			units.Millis(connect), units.Millis(rec.TimeoutMs)))
		return 0
	}
	return connect
}

// connectText names the connect timeout in a verdict sentence.
func connectText(rec *Recommendation) string {
	if rec.ConnectTimeoutMs == 0 {
		return "no separate connect timeout"
	}
	return "connect timeout " + units.Millis(rec.ConnectTimeoutMs)
}

// adviseInteractive counts the attempts of an interactive caller: at most one retry, none for
// a non-idempotent call without a key, fewer when the budget does not hold them. It returns
// the verdict sentence.
func adviseInteractive(rec *Recommendation, c Caller) string {
	waitMs := rec.CallerWaitMs()
	timeout := msDuration(waitMs)
	budget := units.Millis(ms(c.Budget))
	fit := MaxAttempts(timeout, c.Budget)
	rec.AttemptsFit = fit
	if fit == 0 {
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"attempts: one normal call needs the %s %s, more than the %s budget → 0", units.Millis(waitMs), waitWords(rec.BudgetReads), budget))
		rec.Verdict.Add(CodeBudget, verdict.Bad, QueueVerdict)
		return QueueVerdict
	}
	cost := AttemptsCost(fit, timeout)
	fits := fmt.Sprintf("the %s budget would hold %d (the largest k with k × %s + Σ worst-case backoff ≤ %s, backoff %s: k=%d costs %s",
		budget, fit, units.Millis(waitMs), budget, BackoffDescription(), fit, units.Millis(ms(cost)))
	if fit < MaxAttemptsCap {
		fits += fmt.Sprintf(", k=%d would cost %s)", fit+1, units.Millis(ms(AttemptsCost(fit+1, timeout))))
	} else {
		fits += fmt.Sprintf(", capped at %d attempts)", MaxAttemptsCap)
	}
	limit := InteractiveAttempts
	why := "an interactive caller retries at most once — a short timeout and one retry, then it says the answer cannot be shown now (the seeds)"
	unsafe := c.retriesUnsafe()
	if unsafe {
		limit = 1
		why = c.Method + " without an Idempotency-Key: retry only with an Idempotency-Key — a timeout or 5xx may have been executed, and a retry would do it twice (check's PT005)"
	}
	k := min(fit, limit)
	if k < limit {
		why = fmt.Sprintf("the budget holds only %d, fewer than the %d an interactive caller may have", k, limit)
	}
	rec.MaxAttempts, rec.FitsBudget = k, true
	rec.Derivation = append(rec.Derivation, fmt.Sprintf("attempts: %d %s: %s; %s", k, retryWord(k), why, fits))
	tries := fmt.Sprintf("%d %s", k, retryWord(k))
	if unsafe {
		tries = "1 attempt (retry only with an Idempotency-Key)"
	}
	return fmt.Sprintf("%s, %s, %s within the %s budget", timeoutText(rec), connectText(rec), tries, budget)
}

// timeoutText names the per-attempt timeout in a verdict sentence: "timeout 2 s"; for a
// stream whose budget reads the first event, "first event 12 s per attempt (the caller's
// wait; total 40 s)", or "(…; total unbounded)".
func timeoutText(rec *Recommendation) string {
	if rec.BudgetReads != BudgetReadsFirstEvent {
		return "timeout " + units.Millis(rec.TimeoutMs)
	}
	total := "total unbounded"
	if rec.TimeoutMs > 0 {
		total = "total " + units.Millis(rec.TimeoutMs)
	}
	return fmt.Sprintf("first event %s per attempt (the caller's wait; %s)", units.Millis(rec.CallerWaitMs()), total)
}

// waitWords names the timeout a budget phase reads: "timeout" or "first-event timeout".
func waitWords(p BudgetPhase) string {
	if p == BudgetReadsFirstEvent {
		return "first-event timeout"
	}
	return "timeout"
}

// phaseWords names a budget phase in prose: "total" or "first-event".
func phaseWords(p BudgetPhase) string {
	if p == BudgetReadsFirstEvent {
		return "first-event"
	}
	return "total"
}

// retryWord says what k attempts mean.
func retryWord(k int) string {
	switch k {
	case 1:
		return "attempt (no retry)"
	case 2:
		return "attempts (one retry)"
	}
	return "attempts"
}

// adviseJob is the queue design for a job caller: one attempt per run, the queue's tries with
// growing jittered delays, the job timeout and the retry_after they imply. It returns the
// verdict sentence.
func adviseJob(rec *Recommendation, c Caller) string {
	timeout := msDuration(rec.TimeoutMs)
	jobTimeout := max(msDuration(RoundUpClean(JobTimeoutFactor*rec.TimeoutMs)), JobTimeoutMin)
	retryAfter := max(JobRetryAfterMin, jobTimeout+JobRetryAfterMargin)
	retry := JobRetry()
	tries := JobTries
	triesWhy := fmt.Sprintf("the seeds' $tries = %d", JobTries)
	if c.retriesUnsafe() {
		tries = 1
		triesWhy = c.Method + " without an Idempotency-Key: retry only with an Idempotency-Key — a failed try may have been executed; leave it to failed() for a person to check"
	} else if c.Budget > 0 {
		tries = retry.AttemptsWithin(jobTimeout, c.Budget, JobTries)
		if tries < JobTries {
			triesWhy = fmt.Sprintf("the %s retry window holds %d (each run %s, each delay at +%g%% jitter)", units.Millis(ms(c.Budget)), tries, units.Millis(ms(jobTimeout)), JobJitterFactor*100)
		}
	}
	rec.AttemptsFit = MaxAttempts(timeout, jobTimeout)
	rec.MaxAttempts = 1
	rec.Derivation = append(rec.Derivation, fmt.Sprintf(
		"attempts: 1 per run of the job — the queue retries it; a retry inside the run as well multiplies (3 in-run attempts × %d tries = %d calls), so one layer retries (the seeds); the %s job timeout would hold %d",
		JobTries, 3*JobTries, units.Millis(ms(jobTimeout)), rec.AttemptsFit))
	if tries == 0 {
		rec.Derivation = append(rec.Derivation, fmt.Sprintf("job tries: the %s retry window cannot hold one %s run → 0", units.Millis(ms(c.Budget)), units.Millis(ms(jobTimeout))))
		text := fmt.Sprintf("the %s retry window cannot hold one run of the job (%s job timeout)", units.Millis(ms(c.Budget)), units.Millis(ms(jobTimeout)))
		rec.Verdict.Add(CodeBudget, verdict.Bad, text)
		return text
	}
	rec.FitsBudget = true
	job := &JobDesign{Tries: tries, Jitter: string(policy.JitterProportional), JitterFactor: JobJitterFactor,
		TimeoutMs: ms(jobTimeout), RetryAfterMs: ms(retryAfter), GiveUpAfterMs: ms(retry.WorstCase(tries, jobTimeout)), BackoffMs: []float64{}}
	delays := make([]string, 0, tries)
	for k := 1; k < tries; k++ {
		d := retry.BackoffDelay(k, 0, nil)
		job.BackoffMs = append(job.BackoffMs, ms(d))
		delays = append(delays, units.Millis(ms(d)))
	}
	rec.Job = job
	if tries > 1 {
		rec.Derivation = append(rec.Derivation, fmt.Sprintf(
			"job tries: %d (%s), backoff %s (×%d from %s, capped at %s) each + U[0, %g%%] jitter, so jobs that failed together do not come back together; a release() after a 429 counts as a try: raise tries or set retryUntil() for a target that throttles",
			tries, triesWhy, strings.Join(delays, ", "), JobBackoffFactor, units.Millis(ms(JobBackoffBase)), units.Millis(ms(JobBackoffCap)), JobJitterFactor*100))
	} else {
		rec.Derivation = append(rec.Derivation, "job tries: 1 ("+triesWhy+")")
	}
	rec.Derivation = append(rec.Derivation,
		fmt.Sprintf("job timeout: max(%d × the %s call timeout, %s) → %s: room for the job's own work around one call", JobTimeoutFactor, units.Millis(rec.TimeoutMs), units.Millis(ms(JobTimeoutMin)), units.Millis(ms(jobTimeout))),
		fmt.Sprintf("retry_after: max(%s, job timeout + %s) = %s: the queue must not deliver the job again while a run may still be going (Laravel: the job timeout several seconds shorter than retry_after)",
			units.Millis(ms(JobRetryAfterMin)), units.Millis(ms(JobRetryAfterMargin)), units.Millis(ms(retryAfter))),
		fmt.Sprintf("give up after: %d runs × %s + every delay at its jitter bound = %s: how long a job that fails every try keeps coming back (a retryUntil() at least this long lets every try run)",
			tries, units.Millis(ms(jobTimeout)), units.Millis(job.GiveUpAfterMs)))
	queue := fmt.Sprintf("%d tries", tries)
	if tries > 1 {
		queue += fmt.Sprintf(", backoff %s–%s + %g%% jitter", delays[0], delays[len(delays)-1], JobJitterFactor*100)
	} else {
		queue = "1 try (retry only with an Idempotency-Key)"
	}
	return fmt.Sprintf("timeout %s, %s, 1 attempt per run; queue: %s, job timeout %s, retry_after %s",
		units.Millis(rec.TimeoutMs), connectText(rec), queue, units.Millis(ms(jobTimeout)), units.Millis(ms(retryAfter)))
}

// noGoodText says what the responses were when none was good, and what it suggests.
func noGoodText(ev *Evidence) string {
	var codes []string
	for c, n := range ev.Status {
		if n > 0 {
			codes = append(codes, c)
		}
	}
	sort.Strings(codes)
	if len(codes) != 1 {
		return "no good response (" + failureSummary(ev) + "): nothing to base a timeout on"
	}
	code, _ := strconv.Atoi(codes[0])
	name := fmt.Sprintf("%d %s", code, httpstatus.Text(code))
	if code >= 500 {
		return "every response was " + name + ": the dependency is failing, nothing to base a timeout on"
	}
	return "every response was " + name + " — " + statusHint(code)
}

// statusHint is what a 4xx answer usually means for a probe.
func statusHint(code int) string {
	switch code {
	case 404, 410:
		return "is the URL right?"
	case 401, 403:
		return "are the credentials right? (-H 'Authorization: …')"
	case 405:
		return "is the method right? (-X)"
	case 429:
		return "the target throttles the probe: lower --rate"
	}
	return "the target rejects the request: check the URL, method, headers and body"
}

// hintFor is the hint for a failure class or status.
func hintFor(ev *Evidence, what string) string {
	if s, ok := ev.ErrorSamples[what]; ok && s.Hint != "" {
		return s.Hint
	}
	if h := ErrorHint(what, ""); h != "" {
		return h
	}
	if code, err := strconv.Atoi(what); err == nil && code >= 400 && code < 500 {
		return fmt.Sprintf("%d %s: %s", code, httpstatus.Text(code), statusHint(code))
	}
	return ""
}

// sampleClause is ": <first message> — <hint>" for the largest failure class, "" without one.
func sampleClause(ev *Evidence) string {
	s, ok := ev.ErrorSamples[largestFailure(ev)]
	if !ok || s.Message == "" {
		return ""
	}
	out := ": " + s.Message
	if s.Hint != "" {
		out += " — " + s.Hint
	}
	return out
}

// percent prints a share with about three significant digits: 0.475 → "47.5%".
func percent(v float64) string {
	return strconv.FormatFloat(roundTo(v*100, 3), 'f', -1, 64) + "%"
}

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// roundTo keeps sig significant digits.
func roundTo(v float64, sig int) float64 {
	if v == 0 {
		return 0
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', sig, 64), 64)
	return f
}
