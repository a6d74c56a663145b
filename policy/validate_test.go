package policy

import (
	"errors"
	"math"
	"sort"
	"strings"
	"testing"
	"time"
)

func TestValidateAcceptsGoodPolicies(t *testing.T) {
	good := []*Policy{
		{},
		{Name: "ours", ConnectTimeout: 2 * sec, Timeout: 5 * sec, ReadTimeout: 2 * sec, Deadline: 20 * sec,
			Retry: Retry{MaxAttempts: 4, On: DefaultRetryOn, Never: []int{501}, NonIdempotent: NonIdempotentWithKey,
				Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 10 * sec, Jitter: JitterFull,
				RetryAfter: RetryAfterHonor, RetryAfterMax: 60 * sec},
			Budget:   &Budget{Kind: BudgetTokenBucket, Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1},
			Breaker:  &Breaker{FailureRate: 0.5, MinRequests: 10, Window: 10 * sec, OpenFor: 30 * sec, HalfOpen: 1},
			Bulkhead: &Bulkhead{MaxConcurrent: 20}},
		{Retry: Retry{MaxAttempts: Unlimited, Backoff: BackoffList, Delays: []time.Duration{sec}}},
		{Budget: &Budget{Kind: BudgetRatio, Percent: 0.1, MinPerS: 10, Window: 10 * sec}},
	}
	for i, p := range good {
		if err := p.Validate(); err != nil {
			t.Errorf("policy %d: %v", i, err)
		}
	}
}

func TestValidateNamesEveryBadField(t *testing.T) {
	p := &Policy{
		Timeout: -sec, ReadTimeout: -sec,
		Retry: Retry{MaxAttempts: -3, On: []string{"5xx", "sometimes"}, Never: []int{42},
			NonIdempotent: "maybe", Backoff: "fibonacci", Jitter: "lots", RetryAfter: "obey",
			Multiplier: math.NaN(), Cap: -1, JitterFactor: -1},
		Budget:   &Budget{Kind: BudgetRatio, Percent: 1.5},
		Breaker:  &Breaker{FailureRate: 0},
		Bulkhead: &Bulkhead{MaxConcurrent: -1},
		Layers:   []Layer{{Name: "gw", Policy: &Policy{Deadline: -sec}}},
	}
	err := p.Validate()
	var fields []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *FieldError
		if !errors.As(e, &fe) {
			t.Fatalf("not a FieldError: %v", e)
		}
		fields = append(fields, fe.Field)
	}
	sort.Strings(fields)
	want := []string{
		"breaker.failure_rate", "budget.percent", "bulkhead.max_concurrent",
		"layers[0].policy.deadline", "read_timeout", "retry.backoff", "retry.cap", "retry.jitter",
		"retry.jitter_factor", "retry.max_attempts", "retry.multiplier", "retry.never[0]",
		"retry.non_idempotent", "retry.on[1]", "retry.retry_after", "timeout",
	}
	if strings.Join(fields, " ") != strings.Join(want, " ") {
		t.Errorf("fields:\n got %v\nwant %v", fields, want)
	}
	if !strings.Contains(err.Error(), `retry.backoff: "fibonacci" is not one of`) {
		t.Errorf("message: %v", err)
	}
	for _, p := range []*Policy{
		{Retry: Retry{Backoff: BackoffList}},
		{Budget: &Budget{Kind: "leaky"}},
		{Budget: &Budget{Kind: BudgetTokenBucket}},
	} {
		if p.Validate() == nil {
			t.Errorf("accepted %+v", p)
		}
	}
}
