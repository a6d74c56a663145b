package policy_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/patience-dev/patience/policy"
)

// ExampleCall shows the protocol the simulator and the live driver follow for one logical
// request: AttemptTimeout before each attempt, Next after it, sleep Wait on a retry. By hand:
// the timeout costs 10 tokens and waits d(1) = 500ms; the 429 asks for 30s, capped at 5s,
// more than d(2) = 1s; the 503 waits d(3) = 2s, leaving 300ms of the 10s deadline, so the
// last attempt's timeout is cut to 300ms; its success refunds the 5 tokens the retry cost.
func ExampleCall() {
	p := &policy.Policy{
		Timeout:  2 * time.Second,
		Deadline: 10 * time.Second,
		Retry: policy.Retry{
			MaxAttempts: 4, Backoff: policy.BackoffExponential, Base: 500 * time.Millisecond,
			Multiplier: 2, Jitter: policy.JitterNone, RetryAfterMax: 5 * time.Second,
		},
	}
	budget := policy.NewRetryBudget(&policy.Budget{Kind: policy.BudgetTokenBucket, Capacity: 20, RetryCost: 5, TimeoutCost: 10, Refill: 1})
	rng := rand.New(rand.NewPCG(1, 2))
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	outcomes := []policy.Outcome{
		{Kind: policy.Timeout},
		{Kind: policy.Status, Status: 429, RetryAfter: "30"},
		{Kind: policy.Status, Status: 503},
		{Kind: policy.Success},
	}
	now := time.Duration(0)
	c := policy.NewCall(p, policy.Request{Method: "GET"}, now)
	budget.OnRequest(now)
	for _, o := range outcomes {
		timeout, ok := c.AttemptTimeout(now)
		if !ok {
			fmt.Println("no room for another attempt")
			break
		}
		now += min(timeout, 100*time.Millisecond) // the attempt takes 100ms, or times out
		if o.Kind == policy.Timeout {
			now += timeout - 100*time.Millisecond
		}
		d := c.Next(now, o, budget, epoch.Add(now), rng)
		fmt.Printf("attempt %d at %v (timeout %v): %v %d → %s, wait %v, tokens %v\n",
			c.Attempts(), now, timeout, o.Kind, o.Status, d.Reason, d.Wait, budget.(*policy.TokenBucket).Tokens())
		if !d.Retry {
			break
		}
		now += d.Wait
	}
	// Output:
	// attempt 1 at 2s (timeout 2s): timeout 0 → retry, wait 500ms, tokens 10
	// attempt 2 at 2.6s (timeout 2s): status 429 → retry, wait 5s, tokens 5
	// attempt 3 at 7.7s (timeout 2s): status 503 → retry, wait 2s, tokens 0
	// attempt 4 at 9.8s (timeout 300ms): success 0 → success, wait 0s, tokens 5
}
