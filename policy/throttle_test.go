package policy

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestRetryAfterModes pins each Retry-After mode's wait for a backoff of 1s (retry 1, no
// jitter) against the libraries it models: honor = max(backoff, ra) (docs/design.md §5); replace = ra
// whatever the backoff (go-retryablehttp DefaultBackoff); RetryAfterOn limits which statuses are
// read (retryablehttp: 429 and 503); RetryAfterMax caps every mode.
func TestRetryAfterModes(t *testing.T) {
	s := time.Second
	wall := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		mode  RetryAfterMode
		on    []int
		raMax time.Duration
		o     Outcome
		want  time.Duration
	}{
		{"honor longer", RetryAfterHonor, nil, 0, Outcome{Kind: Status, Status: 503, RetryAfter: "3"}, 3 * s},
		{"honor shorter keeps backoff", RetryAfterHonor, nil, 0, Outcome{Kind: Status, Status: 503, RetryAfter: "0"}, s},
		{"ignore", RetryAfterIgnore, nil, 0, Outcome{Kind: Status, Status: 503, RetryAfter: "3"}, s},
		{"replace longer", RetryAfterReplace, nil, 0, Outcome{Kind: Status, Status: 429, RetryAfter: "3"}, 3 * s},
		{"replace zero means now", RetryAfterReplace, nil, 0, Outcome{Kind: Status, Status: 429, RetryAfter: "0"}, 0},
		{"replace past date means now", RetryAfterReplace, nil, 0, Outcome{Kind: Status, Status: 429, RetryAfter: "Sun, 01 Nov 2026 11:00:00 GMT"}, 0},
		{"replace date", RetryAfterReplace, nil, 0, Outcome{Kind: Status, Status: 429, RetryAfter: "Sun, 01 Nov 2026 12:00:02 GMT"}, 2 * s},
		{"replace malformed falls back", RetryAfterReplace, nil, 0, Outcome{Kind: Status, Status: 429, RetryAfter: "soon"}, s},
		{"replace capped", RetryAfterReplace, nil, 2 * s, Outcome{Kind: Status, Status: 429, RetryAfter: "30"}, 2 * s},
		{"on lists 503", RetryAfterReplace, []int{429, 503}, 0, Outcome{Kind: Status, Status: 503, RetryAfter: "3"}, 3 * s},
		{"on lacks 500", RetryAfterReplace, []int{429, 503}, 0, Outcome{Kind: Status, Status: 500, RetryAfter: "3"}, s},
		{"replace_reset", RetryAfterReplaceReset, nil, 0, Outcome{Kind: Status, Status: 503, RetryAfter: "0"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Policy{Retry: Retry{MaxAttempts: 3, On: []string{"429", "5xx"}, Backoff: BackoffExponential, Base: s, Multiplier: 2,
				Jitter: JitterNone, RetryAfter: tt.mode, RetryAfterOn: tt.on, RetryAfterMax: tt.raMax}}
			c := NewCall(p, Request{}, 0)
			d := c.Next(0, tt.o, nil, wall, nil)
			if !d.Retry || d.Wait != tt.want {
				t.Errorf("Next = %+v, want a retry after %v", d, tt.want)
			}
		})
	}
}

// TestReplaceResetRestartsBackoff: after a replace_reset pushback the next retry without one
// waits d(1) again (gRPC numRetriesSincePushback = 0); under replace the exponent goes on.
func TestReplaceResetRestartsBackoff(t *testing.T) {
	ms := time.Millisecond
	push := Outcome{Kind: Status, Status: 503, RetryAfter: "1"}
	plain := Outcome{Kind: Status, Status: 503}
	for _, tt := range []struct {
		mode RetryAfterMode
		want []time.Duration
	}{
		{RetryAfterReplaceReset, []time.Duration{100 * ms, 200 * ms, time.Second, 100 * ms, 200 * ms}},
		{RetryAfterReplace, []time.Duration{100 * ms, 200 * ms, time.Second, 800 * ms, 1600 * ms}},
	} {
		p := &Policy{Retry: Retry{MaxAttempts: Unlimited, On: []string{"5xx"}, Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2,
			Jitter: JitterNone, RetryAfter: tt.mode}}
		c := NewCall(p, Request{}, 0)
		for i, o := range []Outcome{plain, plain, push, plain, plain} {
			if d := c.Next(0, o, nil, time.Time{}, nil); d.Wait != tt.want[i] {
				t.Errorf("%s: wait %d = %v, want %v", tt.mode, i+1, d.Wait, tt.want[i])
			}
		}
	}
}

// TestThrottleBaseAndCost: aws-sdk-go-v2 v1.48's standard retryer backs off from 1s after a
// 429 and from 50ms otherwise, and charges 5 tokens for a throttled retry and 14 for others.
func TestThrottleBaseAndCost(t *testing.T) {
	ms := time.Millisecond
	p := &Policy{Retry: Retry{MaxAttempts: 3, On: []string{"429", "5xx"}, Backoff: BackoffExponential, Base: 50 * ms, ThrottleBase: time.Second,
		Multiplier: 2, Cap: 20 * time.Second, Jitter: JitterNone, RetryAfter: RetryAfterIgnore},
		Budget: &Budget{Kind: BudgetTokenBucket, Capacity: 500, RetryCost: 14, ThrottleCost: 5, Refill: 1}}
	tb := NewTokenBucket(p.Budget)
	c := NewCall(p, Request{}, 0)
	if d := c.Next(0, Outcome{Kind: Status, Status: 429}, tb, time.Time{}, nil); d.Wait != time.Second || tb.Tokens() != 495 {
		t.Errorf("after 429: wait %v tokens %v, want 1s 495", d.Wait, tb.Tokens())
	}
	if d := c.Next(0, Outcome{Kind: Status, Status: 503}, tb, time.Time{}, nil); d.Wait != 100*ms || tb.Tokens() != 481 {
		t.Errorf("after 503: wait %v tokens %v, want 100ms 481", d.Wait, tb.Tokens())
	}
	c.Next(0, Outcome{Kind: Success, Status: 200}, tb, time.Time{}, nil)
	if tb.Tokens() != 495 {
		t.Errorf("after the retry succeeded: tokens %v, want its 14 back (495)", tb.Tokens())
	}
	if got := p.Retry.MaxDelay(1); got != time.Second {
		t.Errorf("MaxDelay(1) = %v, want the throttle base 1s", got)
	}
	// Full jitter stays within [0, d] for either base.
	p.Retry.Jitter = JitterFull
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		c := NewCall(p, Request{}, 0)
		if d := c.Next(0, Outcome{Kind: Status, Status: 500}, nil, time.Time{}, rng); d.Wait > 50*ms {
			t.Fatalf("500: wait %v > 50ms", d.Wait)
		}
	}
}
