package storm

import (
	"fmt"
	"time"

	"github.com/patience-dev/patience/policy"
)

// Quick-model policy knobs. The base policy retries on timeouts, connection failures and 5xx
// with exponential backoff from 100 ms (×2, cap 1 s) and no jitter — the common hand-written
// client; mitigations change one thing each.
const (
	baseBackoff = 100 * time.Millisecond
	capBackoff  = time.Second
)

// retryPolicy is one layer's policy: attempts tries, per-attempt timeout (0 = none).
func retryPolicy(name string, attempts int, timeout time.Duration) *policy.Policy {
	return &policy.Policy{
		Name:    name,
		Timeout: timeout,
		Retry: policy.Retry{
			MaxAttempts:   attempts,
			On:            []string{"connect", "timeout", "reset", "5xx"},
			Never:         []int{501},
			NonIdempotent: policy.NonIdempotentNever,
			Backoff:       policy.BackoffExponential,
			Base:          baseBackoff,
			Multiplier:    2,
			Cap:           capBackoff,
			Jitter:        policy.JitterNone,
			RetryAfter:    policy.RetryAfterHonor,
			RetryAfterMax: 60 * time.Second,
		},
	}
}

// Layered builds a policy chain with attempts per layer, caller first: the returned policy is
// the bottom layer (it calls the dependency, with timeout per attempt) and its Layers are the
// callers above it, caller first. Upper layers have no timeout of their own: each waits for
// the layer below to give up, so with the bottom always failing every layer exhausts its
// attempts and the amplification is exactly Π attempts.
func Layered(name string, attempts []int, timeout time.Duration) *policy.Policy {
	n := len(attempts)
	p := retryPolicy(name, attempts[n-1], timeout)
	for i, a := range attempts[:n-1] {
		p.Layers = append(p.Layers, policy.Layer{Name: fmt.Sprintf("layer%d", i+1), Policy: retryPolicy(fmt.Sprintf("layer%d", i+1), a, 0)})
	}
	return p
}

// eachLayer applies f to the bottom policy and every layer above it.
func eachLayer(p *policy.Policy, f func(*policy.Policy)) {
	f(p)
	for _, l := range p.Layers {
		if l.Policy != nil {
			f(l.Policy)
		}
	}
}

// Mitigation budgets and breaker: AWS SDK standard mode's token bucket (500 tokens, a retry
// costs 5, 10 after a timeout, a first-try success refills 1); a 10% ratio budget over 10 s
// without the per-second reserve (Finagle's default reserve of 10/s per client would, with
// 100 clients, allow 1000 retries/s and hide the effect); a breaker that opens at 50%
// failures over at least 10 requests in 10 s, for 5 s, with one half-open probe.
func awsBucket() *policy.Budget {
	return &policy.Budget{Kind: policy.BudgetTokenBucket, Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1}
}

func ratioBudget() *policy.Budget {
	return &policy.Budget{Kind: policy.BudgetRatio, Percent: 0.10, Window: 10 * time.Second}
}

func breaker() *policy.Breaker {
	return &policy.Breaker{FailureRate: 0.5, MinRequests: 10, Window: 10 * time.Second, OpenFor: 5 * time.Second, HalfOpen: 1}
}

// Mitigations returns the policies storm compares by default, all on the same arrivals: N
// retries (first: the top-level result describes it), no retries, full jitter, an AWS token
// bucket, a 10% ratio budget, a breaker, and — with more than one layer — retrying at the
// bottom layer only.
func Mitigations(attempts []int, timeout time.Duration) []*policy.Policy {
	ones := make([]int, len(attempts))
	for i := range ones {
		ones[i] = 1
	}
	retries := Layered("retries", attempts, timeout)
	none := Layered("no-retries", ones, timeout)
	jitter := Layered("jitter", attempts, timeout)
	eachLayer(jitter, func(p *policy.Policy) { p.Retry.Jitter = policy.JitterFull })
	bucket := Layered("token-bucket", attempts, timeout)
	eachLayer(bucket, func(p *policy.Policy) { p.Budget = awsBucket() })
	ratio := Layered("ratio-10%", attempts, timeout)
	eachLayer(ratio, func(p *policy.Policy) { p.Budget = ratioBudget() })
	brk := Layered("breaker", attempts, timeout)
	eachLayer(brk, func(p *policy.Policy) { p.Breaker = breaker() })
	out := []*policy.Policy{retries, none, jitter, bucket, ratio, brk}
	if len(attempts) > 1 {
		one := append(ones[:len(ones)-1:len(ones)-1], attempts[len(attempts)-1])
		out = append(out, Layered("one-layer", one, timeout))
	}
	return out
}

// Override applies the quick-model flags the user set to a policy (docs/design.md §2: they override
// those fields of every policy): a timeout replaces the bottom layer's timeout; attempts
// replace the bottom's max attempts and rebuild the layers above it (existing upper layers are
// kept, by position from the bottom, and get the given attempts; missing ones are added
// without a timeout; extra ones are dropped). It returns a modified deep copy.
func Override(p *policy.Policy, timeout time.Duration, attempts []int) *policy.Policy {
	q := p.Clone()
	if timeout > 0 {
		q.Timeout = timeout
	}
	if len(attempts) == 0 {
		return q
	}
	n := len(attempts)
	q.Retry.MaxAttempts = attempts[n-1]
	upper := attempts[:n-1]
	layers := make([]policy.Layer, len(upper))
	// Keep existing layers aligned at the bottom: the layer just above the bottom stays
	// just above the bottom.
	for i := range upper {
		j := len(q.Layers) - len(upper) + i
		if j >= 0 && q.Layers[j].Policy != nil {
			layers[i] = q.Layers[j]
		} else {
			lp := retryPolicy(fmt.Sprintf("layer%d", i+1), 1, 0)
			layers[i] = policy.Layer{Name: lp.Name, Policy: lp}
		}
		layers[i].Policy.Retry.MaxAttempts = upper[i]
	}
	q.Layers = layers
	return q
}

// Attempts returns the max attempts per layer, caller first (bottom last); 0 marks a layer
// that retries without limit.
func Attempts(p *policy.Policy) []int {
	var out []int
	for _, l := range p.Layers {
		if l.Policy != nil {
			out = append(out, max(l.Policy.Retry.MaxAttempts, 0))
		}
	}
	return append(out, max(p.Retry.MaxAttempts, 0))
}
