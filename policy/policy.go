// Package policy is the caller's timeout and retry policy: its configuration (this file) and
// the pure, clock-free mechanics that apply it — backoff and jitter, outcome classification,
// Retry-After, deadlines, retry budgets, circuit breaker and bulkhead. Every function takes
// `now` (virtual time in the simulator, wall time live) and never reads a clock, so the
// simulator and the live driver run exactly the same code. Formulas: docs/design.md §5.
package policy

import "time"

// Unlimited as Retry.MaxAttempts retries until success or the deadline.
const Unlimited = -1

// Policy is one caller's policy for one dependency, fully resolved: presets and `base:`
// inheritance have already been applied by the loader. Zero durations mean "none".
type Policy struct {
	// Name labels the policy in reports ("ours", "preset:naive", "with-key").
	Name string
	// ConnectTimeout bounds connection set-up; 0 = none.
	ConnectTimeout time.Duration
	// Timeout bounds one attempt, connect included; 0 = none (wait forever).
	Timeout time.Duration
	// ReadTimeout bounds each silence of an attempt once the request is written: the wait
	// for the first response byte, then every pause between two reads (Python requests'
	// read timeout, OkHttp's readTimeout, nginx's proxy_read_timeout); 0 = none. It never
	// bounds the whole response — one dripping a byte just inside it never ends — so it is a
	// bound beside Timeout, not instead of it (check's PT001 and PT015). The simulator and
	// the live replay apply it (docs/design.md §6): a head slower than it (a hang, a slow
	// response: nothing comes until its latency) ends at it, a drip fault whose pieces come
	// at least this far apart ends that long after its head, and one dripping faster is
	// ended only by Timeout. Its expiry is a Timeout outcome (the server may have acted),
	// told apart only by the failure reason "read_timeout".
	ReadTimeout time.Duration
	// FirstEventTimeout, when set, bounds a stream's first silence — the wait for its first
	// event — instead of ReadTimeout, which then bounds each gap between events (the idle
	// timeout): a slow first token and a stalled stream want different bounds
	// (profile.Recommendation's first_event_timeout_ms and idle_timeout_ms). 0 = ReadTimeout
	// bounds both. Only a streaming target has a first event; other responses ignore it.
	// Its expiry is a read timeout (reason "read_timeout").
	FirstEventTimeout time.Duration
	// Deadline bounds the whole logical request, backoff included; 0 = none.
	Deadline time.Duration
	Retry    Retry
	// Budget limits retries across requests (nil = no budget).
	Budget *Budget
	// Breaker is the circuit breaker (nil = none).
	Breaker *Breaker
	// Bulkhead caps concurrent calls to the dependency (nil = none).
	Bulkhead *Bulkhead
	// Fallback answers breaker/bulkhead rejections from a fallback: degraded, not failed.
	Fallback bool
	// IdempotencyKey overrides the scenario request's idempotency_key for this policy, so one
	// scenario can compare sending a key with not sending one (payment-double-charge's
	// with-key and without-key): nil = the request decides. Use SendsKey.
	IdempotencyKey *bool
	// Layers are the callers above this policy, caller first, each retrying on its own:
	// an attempt at layer k issues a whole logical request at layer k+1, and this policy is
	// the bottom layer that calls the dependency. Empty = a single layer.
	Layers []Layer
	// Source maps a field path ("timeout", "retry.max_attempts", "budget") to where it was
	// set in the file, so `check` findings can point at the line. Empty for presets.
	Source map[string]Pos
}

// SendsKey says whether this policy's logical requests carry an Idempotency-Key, given the
// scenario request's idempotency_key.
func (p *Policy) SendsKey(requestKey bool) bool {
	if p.IdempotencyKey != nil {
		return *p.IdempotencyKey
	}
	return requestKey
}

// Retry says which outcomes are retried and how long to wait between attempts.
type Retry struct {
	// MaxAttempts counts the first try; 1 = no retries; Unlimited = until success or deadline.
	MaxAttempts int
	// On lists what is retried: "connect", "timeout", "reset", exact statuses ("429") and
	// classes ("5xx", "4xx"). Classification (docs/design.md §5) still vetoes unsafe retries.
	On []string
	// Never lists statuses that are never retried even if On matches (e.g. 501).
	Never []int
	// NonIdempotent says whether outcome-unknown failures of non-idempotent requests are
	// retried (NonIdempotents lists the values).
	NonIdempotent NonIdempotent
	// Backoff is d(n), the delay before retry n (Backoffs lists the kinds).
	Backoff    Backoff
	Base       time.Duration
	Multiplier float64
	Cap        time.Duration // 0 = uncapped
	// Delays are the waits of backoff "list"; retry n waits Delays[min(n,len)-1].
	Delays []time.Duration
	// Jitter randomises d(n) (Jitters lists the kinds); JitterFactor is the f of
	// proportional and randomized jitter.
	Jitter       Jitter
	JitterFactor float64
	// RetryAfter says whether and how a server's Retry-After is honoured (RetryAfterModes
	// lists the modes); RetryAfterMax bounds an honoured value (0 = uncapped).
	RetryAfter    RetryAfterMode
	RetryAfterMax time.Duration
	// RetryAfterOn lists the statuses whose Retry-After is read; nil = every status
	// (go-retryablehttp reads it on 429 and 503 only).
	RetryAfterOn []int
	// ThrottleBase, when > 0, is the base of d(n) for a retry after a throttling response
	// (Throttled: 429) instead of Base: aws-sdk-go-v2's standard retryer backs off from 1s
	// after throttling and from 50ms otherwise (aws/retry/jitter_backoff.go:113-116).
	ThrottleBase time.Duration
}

// Budget is a retry budget shared by all requests of one client.
type Budget struct {
	// Kind is the token bucket (AWS SDK standard retry mode) or the ratio budget (SRE book
	// ch. 22, Finagle).
	Kind BudgetKind
	// Token bucket: starts full at Capacity; a retry costs RetryCost (TimeoutCost after a
	// timeout); a first-try success refills Refill.
	Capacity    float64
	RetryCost   float64
	TimeoutCost float64
	Refill      float64
	// ThrottleCost, when > 0, is what a retry after a throttling response (Throttled: 429)
	// costs instead (aws-sdk-go-v2 v1.48 DefaultThrottlingRetryCost 5 beside a retry cost of 14).
	ThrottleCost float64
	// Ratio: retries ≤ Percent (0–1) of requests in Window, plus MinPerS per second.
	Percent float64
	MinPerS float64
	Window  time.Duration
}

// Breaker is a failure-rate circuit breaker.
type Breaker struct {
	FailureRate float64 // 0–1: open when the failure share in Window reaches it
	MinRequests int     // ... over at least this many requests
	Window      time.Duration
	OpenFor     time.Duration // how long an open breaker rejects
	HalfOpen    int           // probes admitted when half-open
}

// Bulkhead caps concurrent calls.
type Bulkhead struct {
	MaxConcurrent int
}

// Layer is one caller above the bottom policy.
type Layer struct {
	Name   string
	Policy *Policy
}

// Pos is a position in a source file (1-based).
type Pos struct {
	File string
	Line int
	Col  int
}
