package policy

import (
	"math"
	"math/rand/v2"
	"time"
)

// MinAttemptTimeout is the least remaining deadline an attempt needs to be started: below it
// the attempt could not complete even a loopback round trip, so it is not sent (docs/design.md §5: "an
// attempt is not started if the remaining deadline cannot hold it"). Above it the attempt runs
// with its timeout cut to the remaining deadline.
const MinAttemptTimeout = time.Millisecond

// Reasons a Decision gives. Every decision not to retry names why; a retry says ReasonRetry.
const (
	ReasonSuccess       = "success"
	ReasonRejected      = "rejected"           // 4xx the policy does not retry
	ReasonNotRetryable  = "not retryable"      // `on` does not list it, or `never` does
	ReasonNotIdempotent = "not idempotent"     // outcome unknown, request not safe to repeat
	ReasonExhausted     = "attempts exhausted" // max_attempts reached
	ReasonDeadline      = "deadline"           // the wait would leave no room for an attempt
	ReasonBudget        = "budget"             // the retry budget refused
	ReasonRetry         = "retry"
)

// Decision is what Call.Next decided after an attempt.
type Decision struct {
	// Retry says to start another attempt after Wait.
	Retry bool
	// Wait is the sleep before the next attempt: jittered backoff, raised to an honoured
	// Retry-After (capped by RetryAfterMax).
	Wait time.Duration
	// Reason is one of the Reason constants.
	Reason string
	// RetryAfter is the honoured Retry-After delay (after RetryAfterMax) when it set Wait;
	// 0 otherwise.
	RetryAfter time.Duration
}

// Call is the state of one logical request under one policy: its start (for the deadline),
// how many attempts have finished, the previous sleep (decorrelated backoff) and how many
// malformed Retry-After values it met. Protocol: NewCall when the logical request starts;
// before each attempt AttemptTimeout; after each attempt Next; on Retry, sleep Wait and loop.
// The zero Call is not usable; Init lets a simulator reuse Calls from a free list.
type Call struct {
	p         *Policy
	req       Request
	start     time.Duration
	attempts  int
	prevSleep time.Duration
	resetAt   int // attempts when a RetryAfterReplaceReset pushback restarted the backoff
	malformed int
	lastCost  float64 // token-bucket cost paid for the attempt in progress (0: first try)
}

// NewCall starts a logical request at start.
func NewCall(p *Policy, req Request, start time.Duration) *Call {
	c := new(Call)
	c.Init(p, req, start)
	return c
}

// Init (re)starts c as a new logical request at start, without allocating.
func (c *Call) Init(p *Policy, req Request, start time.Duration) {
	*c = Call{p: p, req: req, start: start}
}

// Attempts is the number of attempts whose outcome Next has seen.
func (c *Call) Attempts() int { return c.attempts }

// MalformedRetryAfter counts Retry-After values that could not be parsed (and were ignored).
func (c *Call) MalformedRetryAfter() int { return c.malformed }

// Start is when the logical request started.
func (c *Call) Start() time.Duration { return c.start }

// Remaining is the deadline left at now; ok = false when the policy has no deadline.
func (c *Call) Remaining(now time.Duration) (time.Duration, bool) {
	if c.p.Deadline <= 0 {
		return 0, false
	}
	return c.start + c.p.Deadline - now, true
}

// AttemptTimeout is the timeout of an attempt starting at now: min(timeout, remaining
// deadline), where 0 means none (no timeout and no deadline). ok = false when the deadline
// leaves less than MinAttemptTimeout: the attempt must not be started.
func (c *Call) AttemptTimeout(now time.Duration) (timeout time.Duration, ok bool) {
	rem, has := c.Remaining(now)
	if !has {
		return max(c.p.Timeout, 0), true
	}
	if rem < MinAttemptTimeout {
		return 0, false
	}
	if c.p.Timeout > 0 && c.p.Timeout < rem {
		return c.p.Timeout, true
	}
	return rem, true
}

// ConnectTimeout is the connect timeout of an attempt whose timeout is attemptTimeout:
// min(ConnectTimeout, attemptTimeout), 0 = none.
func (c *Call) ConnectTimeout(attemptTimeout time.Duration) time.Duration {
	ct := max(c.p.ConnectTimeout, 0)
	if attemptTimeout > 0 && (ct == 0 || attemptTimeout < ct) {
		return attemptTimeout
	}
	return ct
}

// maxAttempts is Retry.MaxAttempts with 0 read as 1 and any negative value as Unlimited.
func (r *Retry) maxAttempts() int {
	switch {
	case r.MaxAttempts < 0:
		return Unlimited
	case r.MaxAttempts == 0:
		return 1
	}
	return r.MaxAttempts
}

// Next records the outcome of the attempt that just finished at now and decides whether to
// retry. In order:
//
//  1. success → done; the budget hears OnSuccess, and a token bucket gets back the cost of the
//     retry that succeeded (AWS SDK standard mode).
//  2. the classification and the `on`/`never` lists (Retryable) → "rejected" (4xx),
//     "not idempotent" (outcome unknown on an unsafe request) or "not retryable".
//  3. attempts: max_attempts reached → "attempts exhausted".
//  4. wait = Jittered(BackoffDelay(n)) for retry n = Attempts() (decorrelated: no jitter),
//     counted from the last replace_reset pushback, with ThrottleBase as the base after a 429
//     when set. If the response carried Retry-After and the policy reads it (ReadsRetryAfter:
//     mode and RetryAfterOn), ra = min(ra, retry_after_max) and: honor waits max(wait, ra) —
//     the cap bounds the server's request, never our own backoff; replace waits ra;
//     replace_reset waits ra and the next retry starts again from d(1). A malformed value is
//     counted and ignored. Under honor and replace, Retry-After changes this one wait only:
//     the decorrelated chain goes on from its own s_n, so one long Retry-After does not push
//     every later backoff to the cap.
//  5. deadline: no retry when now + wait leaves less than MinAttemptTimeout → "deadline".
//  6. budget (may be nil): AllowRetry spends (a token bucket: Take(CostOf(o)), so a 429 can
//     cost ThrottleCost); refused → "budget". Checked last so that a retry that would not
//     happen anyway costs nothing.
//
// wallNow is the wall-clock time of now, used only for HTTP-date Retry-After values. rng draws
// the jitter (nil: the mean of each draw). Next does not allocate.
func (c *Call) Next(now time.Duration, o Outcome, budget RetryBudget, wallNow time.Time, rng *rand.Rand) Decision {
	c.attempts++
	r := &c.p.Retry
	class := Classify(o)
	if class == ClassSuccess {
		if budget != nil {
			budget.OnSuccess(now, c.attempts == 1)
			if tb, ok := budget.(*TokenBucket); ok && c.lastCost > 0 {
				tb.Refund(c.lastCost)
			}
		}
		return Decision{Reason: ReasonSuccess}
	}
	if !r.RetryOn(o) {
		if class == ClassRejected {
			return Decision{Reason: ReasonRejected}
		}
		return Decision{Reason: ReasonNotRetryable}
	}
	if !r.SafeToRetry(c.req, o) {
		return Decision{Reason: ReasonNotIdempotent}
	}
	if m := r.maxAttempts(); m != Unlimited && c.attempts >= m {
		return Decision{Reason: ReasonExhausted}
	}

	br := r
	if r.ThrottleBase > 0 && Throttled(o) {
		tr := *r // a copy on the stack: the throttle base for this one delay
		tr.Base = r.ThrottleBase
		br = &tr
	}
	sleep := br.BackoffDelay(c.attempts-c.resetAt, c.prevSleep, rng)
	wait := sleep
	if r.Backoff != BackoffDecorrelated {
		wait = br.Jittered(sleep, rng)
	}
	var honoured time.Duration
	reset := false
	if r.ReadsRetryAfter(o) {
		if ra, ok := ParseRetryAfter(o.RetryAfter, wallNow); !ok {
			c.malformed++
		} else {
			if r.RetryAfterMax > 0 && ra > r.RetryAfterMax {
				ra = r.RetryAfterMax
			}
			switch r.RetryAfter {
			case RetryAfterReplace, RetryAfterReplaceReset:
				wait, honoured = ra, ra
				reset = r.RetryAfter == RetryAfterReplaceReset
			default:
				if ra > wait {
					wait, honoured = ra, ra
				}
			}
		}
	}

	if rem, has := c.Remaining(now); has && rem-wait < MinAttemptTimeout {
		return Decision{Reason: ReasonDeadline}
	}
	if tb, ok := budget.(*TokenBucket); ok {
		cost := tb.CostOf(o)
		if !tb.Take(cost) {
			return Decision{Reason: ReasonBudget}
		}
		c.lastCost = cost
	} else if budget != nil && !budget.AllowRetry(now, o.Kind == Timeout || o.Kind == ConnectTimeout) {
		return Decision{Reason: ReasonBudget}
	}
	c.prevSleep = sleep
	if reset {
		c.resetAt = c.attempts
	}
	return Decision{Retry: true, Wait: wait, Reason: ReasonRetry, RetryAfter: honoured}
}

// TheoreticalAmplification is the worst-case number of calls reaching the dependency per
// logical request: Π max_attempts over Layers and p (docs/design.md §5: 3 layers × 4 attempts = 64).
// Any unlimited layer makes it +Inf. A layer without a policy counts as 1.
func (p *Policy) TheoreticalAmplification() float64 {
	a := 1.0
	for _, l := range p.Layers {
		if l.Policy == nil {
			continue
		}
		m := l.Policy.Retry.maxAttempts()
		if m == Unlimited {
			return math.Inf(1)
		}
		a *= float64(m)
	}
	m := p.Retry.maxAttempts()
	if m == Unlimited {
		return math.Inf(1)
	}
	return a * float64(m)
}
