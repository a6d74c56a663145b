package policy

import "time"

// BudgetKind is Budget.Kind: which retry budget (docs/design.md §5).
type BudgetKind string

// Budget kinds of Budget.Kind.
const (
	BudgetTokenBucket BudgetKind = "token_bucket"
	BudgetRatio       BudgetKind = "ratio"
)

// BudgetKinds lists every accepted BudgetKind, in the order messages name them.
func BudgetKinds() []BudgetKind { return []BudgetKind{BudgetTokenBucket, BudgetRatio} }

// RetryBudget limits retries across all logical requests of one client (docs/design.md §5). One value
// per client; not safe for concurrent use (the live driver serialises calls).
//
// Protocol: call OnRequest when a logical request starts. Call.Next does the rest — it calls
// AllowRetry (which spends) just before deciding to retry and OnSuccess when an attempt
// succeeds — so a caller that uses Call.Next must not call those two itself.
type RetryBudget interface {
	// OnRequest records that a logical request started (the ratio budget's denominator).
	OnRequest(now time.Duration)
	// AllowRetry asks for one retry and spends it if allowed (token bucket: its cost, or the
	// timeout cost when the failed attempt timed out; ratio: counts it).
	AllowRetry(now time.Duration, afterTimeout bool) bool
	// OnSuccess records a successful attempt; firstTry is true when no retry preceded it.
	OnSuccess(now time.Duration, firstTry bool)
}

// NewRetryBudget builds the budget b describes; nil, or an unknown kind, gives a nil budget
// (every retry allowed). The loader rejects unknown kinds before this point.
func NewRetryBudget(b *Budget) RetryBudget {
	if b == nil {
		return nil
	}
	switch b.Kind {
	case BudgetTokenBucket:
		return NewTokenBucket(b)
	case BudgetRatio:
		return NewRatioBudget(b)
	}
	return nil
}

// TokenBucket is the AWS SDK "standard" retry mode quota (AWS SDKs and Tools reference guide,
// "Retry behavior"; aws-sdk-go-v2 aws/retry/standard.go, botocore retries/standard.py): the
// bucket starts full at Capacity; a retry costs RetryCost, or TimeoutCost after a timeout; no
// retry when tokens < cost; a first-try success adds Refill (NO_RETRY_INCREMENT); the bucket
// never exceeds Capacity. The SDKs also give a retry's cost back when that retry succeeds:
// Call.Next does that through Refund, since only the call knows which cost it paid.
type TokenBucket struct {
	cfg    Budget
	tokens float64
}

// NewTokenBucket returns a full bucket.
func NewTokenBucket(b *Budget) *TokenBucket {
	t := new(TokenBucket)
	t.Init(b)
	return t
}

// Init (re)sets t to a full bucket of b, in place: a simulator keeps one bucket per client in
// a contiguous slice instead of one heap object each.
func (t *TokenBucket) Init(b *Budget) {
	*t = TokenBucket{cfg: *b, tokens: b.Capacity}
}

// Tokens is the current balance.
func (t *TokenBucket) Tokens() float64 { return t.tokens }

// OnRequest does nothing: the token bucket does not count requests.
func (t *TokenBucket) OnRequest(time.Duration) {}

// Cost is what a retry costs: TimeoutCost after a timeout (RetryCost when TimeoutCost is 0).
func (t *TokenBucket) Cost(afterTimeout bool) float64 {
	if afterTimeout && t.cfg.TimeoutCost > 0 {
		return t.cfg.TimeoutCost
	}
	return t.cfg.RetryCost
}

// AllowRetry spends Cost(afterTimeout) tokens if the bucket holds that many.
func (t *TokenBucket) AllowRetry(_ time.Duration, afterTimeout bool) bool {
	c := t.Cost(afterTimeout)
	if t.tokens < c {
		return false
	}
	t.tokens -= c
	return true
}

// OnSuccess adds Refill after a first-try success, up to Capacity.
func (t *TokenBucket) OnSuccess(_ time.Duration, firstTry bool) {
	if firstTry {
		t.tokens = min(t.tokens+t.cfg.Refill, t.cfg.Capacity)
	}
}

// Refund gives back the cost of a retry that succeeded, up to Capacity.
func (t *TokenBucket) Refund(cost float64) {
	t.tokens = min(t.tokens+cost, t.cfg.Capacity)
}

// ratioBuckets is how many buckets the ratio budget's sliding window is cut into: the window
// slides in steps of Window/10, and memory stays fixed however many requests go through.
const ratioBuckets = 10

// DefaultRatioWindow is the ratio budget's window when Budget.Window is 0: Finagle's
// RetryBudget default TTL.
const DefaultRatioWindow = 10 * time.Second

// RatioBudget is the SRE book's per-client retry budget (Site Reliability Engineering, ch. 22:
// "retries ≤ 10% of requests") in Finagle's form (com.twitter.finagle.service.RetryBudget:
// percentCanRetry, minRetriesPerSec, ttl): a retry is allowed when, over the last Window,
//
//	retries + 1 ≤ Percent · requests + MinPerS · Window/1s
//
// The window is bucketed (10 buckets of Window/10, a bucket leaves the window whole), so memory
// is fixed. Time must not go backwards.
type RatioBudget struct {
	percent  float64
	reserve  float64 // MinPerS · window in seconds
	width    time.Duration
	cur      int64 // index of the current bucket: floor(now/width)
	requests [ratioBuckets]int64
	retries  [ratioBuckets]int64
	sumReq   int64
	sumRetry int64
}

// NewRatioBudget returns an empty ratio budget.
func NewRatioBudget(b *Budget) *RatioBudget {
	r := new(RatioBudget)
	r.Init(b)
	return r
}

// Init (re)sets r to an empty ratio budget of b, in place (see TokenBucket.Init).
func (r *RatioBudget) Init(b *Budget) {
	w := b.Window
	if w <= 0 {
		w = DefaultRatioWindow
	}
	width := w / ratioBuckets
	if width <= 0 {
		width = 1
	}
	*r = RatioBudget{percent: b.Percent, reserve: b.MinPerS * w.Seconds(), width: width}
}

// advance moves the window so that the bucket of now is current, dropping buckets that left.
func (r *RatioBudget) advance(now time.Duration) {
	idx := int64(now / r.width)
	if idx <= r.cur {
		return
	}
	if idx-r.cur >= ratioBuckets {
		r.requests, r.retries = [ratioBuckets]int64{}, [ratioBuckets]int64{}
		r.sumReq, r.sumRetry = 0, 0
	} else {
		for i := r.cur + 1; i <= idx; i++ {
			k := i % ratioBuckets
			r.sumReq -= r.requests[k]
			r.sumRetry -= r.retries[k]
			r.requests[k], r.retries[k] = 0, 0
		}
	}
	r.cur = idx
}

// OnRequest counts a logical request in the current bucket.
func (r *RatioBudget) OnRequest(now time.Duration) {
	r.advance(now)
	r.requests[r.cur%ratioBuckets]++
	r.sumReq++
}

// AllowRetry allows and counts a retry while retries stay within the ratio plus the reserve.
func (r *RatioBudget) AllowRetry(now time.Duration, _ bool) bool {
	r.advance(now)
	// The small epsilon keeps 10% of 10 requests = 1 retry from failing on 0.1·10 = 0.9999….
	if float64(r.sumRetry+1) > r.percent*float64(r.sumReq)+r.reserve+1e-9 {
		return false
	}
	r.retries[r.cur%ratioBuckets]++
	r.sumRetry++
	return true
}

// OnSuccess does nothing: the ratio budget only counts requests and retries.
func (r *RatioBudget) OnSuccess(time.Duration, bool) {}

// Window reports the requests and retries currently inside the window.
func (r *RatioBudget) Window(now time.Duration) (requests, retries int64) {
	r.advance(now)
	return r.sumReq, r.sumRetry
}
