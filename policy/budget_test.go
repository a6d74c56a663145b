package policy

import (
	"testing"
	"time"
)

func TestNewRetryBudget(t *testing.T) {
	if b := NewRetryBudget(nil); b != nil {
		t.Errorf("nil config: %v", b)
	}
	if b := NewRetryBudget(&Budget{Kind: "leaky"}); b != nil {
		t.Errorf("unknown kind: %v", b)
	}
	if _, ok := NewRetryBudget(&Budget{Kind: BudgetTokenBucket}).(*TokenBucket); !ok {
		t.Error("token_bucket kind")
	}
	if _, ok := NewRetryBudget(&Budget{Kind: BudgetRatio}).(*RatioBudget); !ok {
		t.Error("ratio kind")
	}
}

// TestTokenBucket: the AWS standard mode defaults 500 / 5 / 10 / +1, hand-computed.
func TestTokenBucket(t *testing.T) {
	b := NewTokenBucket(&Budget{Kind: BudgetTokenBucket, Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1})
	type op struct {
		name    string
		do      func() bool
		want    bool
		balance float64
	}
	ok := func() bool { return true }
	ops := []op{
		{"starts full", ok, true, 500},
		{"first-try success at full stays at capacity", func() bool { b.OnSuccess(0, true); return true }, true, 500},
		{"retry costs 5", func() bool { return b.AllowRetry(0, false) }, true, 495},
		{"timeout retry costs 10", func() bool { return b.AllowRetry(0, true) }, true, 485},
		{"first-try success refills 1", func() bool { b.OnSuccess(0, true); return true }, true, 486},
		{"later success refills nothing", func() bool { b.OnSuccess(0, false); return true }, true, 486},
		{"OnRequest is free", func() bool { b.OnRequest(0); return true }, true, 486},
		{"refund", func() bool { b.Refund(5); return true }, true, 491},
		{"refund capped", func() bool { b.Refund(50); return true }, true, 500},
	}
	for _, o := range ops {
		if got := o.do(); got != o.want || b.Tokens() != o.balance {
			t.Fatalf("%s: got %v with %v tokens; want %v with %v", o.name, got, b.Tokens(), o.want, o.balance)
		}
	}
	// Drain: 500 tokens pay for exactly 100 retries at 5, or 50 timeout retries at 10.
	n := 0
	for b.AllowRetry(0, false) {
		n++
	}
	if n != 100 || b.Tokens() != 0 {
		t.Errorf("drained after %d retries with %v left, want 100 and 0", n, b.Tokens())
	}

	// No retry when tokens < cost, and a refusal costs nothing: 12 tokens → 5, 5, refuse at 2.
	small := NewTokenBucket(&Budget{Capacity: 12, RetryCost: 5})
	for i, want := range []bool{true, true, false, false} {
		if got := small.AllowRetry(0, true); got != want { // TimeoutCost 0 → RetryCost
			t.Fatalf("small retry %d: %v, want %v", i+1, got, want)
		}
	}
	if small.Tokens() != 2 {
		t.Errorf("small: %v tokens, want 2", small.Tokens())
	}
	// tokens == cost is allowed (AWS: "if the bucket holds at least the cost").
	exact := NewTokenBucket(&Budget{Capacity: 10, RetryCost: 10})
	if !exact.AllowRetry(0, false) || exact.AllowRetry(0, false) {
		t.Error("exact: want one retry with exactly the cost, then none")
	}
}

// TestRatioBudget: 10% of requests in a 10s window, in 1s buckets.
func TestRatioBudget(t *testing.T) {
	b := NewRatioBudget(&Budget{Kind: BudgetRatio, Percent: 0.1, Window: 10 * sec})
	if b.AllowRetry(0, false) {
		t.Fatal("no requests, no reserve: retry allowed")
	}
	for i := 0; i < 10; i++ {
		b.OnRequest(0)
	}
	if !b.AllowRetry(0, false) { // 1 ≤ 0.1·10
		t.Fatal("10 requests: first retry refused")
	}
	if b.AllowRetry(0, false) { // 2 > 1
		t.Fatal("10 requests: second retry allowed")
	}
	if b.AllowRetry(9900*ms, false) { // still the same window
		t.Fatal("t=9.9s: second retry allowed")
	}
	for i := 0; i < 10; i++ {
		b.OnRequest(9900 * ms)
	}
	if !b.AllowRetry(9900*ms, false) { // 2 ≤ 0.1·20
		t.Fatal("20 requests: second retry refused")
	}
	// At t=10s the t=0 bucket leaves: 10 requests and 1 retry (from t=9.9s) remain.
	if req, ret := b.Window(10 * sec); req != 10 || ret != 1 {
		t.Fatalf("window at 10s: %d requests %d retries, want 10 and 1", req, ret)
	}
	if b.AllowRetry(10*sec, false) { // 2 > 1
		t.Fatal("t=10s: retry allowed")
	}
	// Long after, everything has left the window.
	if req, ret := b.Window(time.Hour); req != 0 || ret != 0 {
		t.Fatalf("window after an hour: %d %d", req, ret)
	}
	b.OnSuccess(0, true) // no effect, must not panic
}

// TestRatioBudgetReserve: min_per_s 1 over a 10s window is a reserve of 10 retries that needs
// no requests at all (Finagle's minRetriesPerSec).
func TestRatioBudgetReserve(t *testing.T) {
	b := NewRatioBudget(&Budget{Kind: BudgetRatio, Percent: 0.2, MinPerS: 1, Window: 10 * sec})
	n := 0
	for b.AllowRetry(5*sec, false) {
		n++
	}
	if n != 10 {
		t.Errorf("reserve allowed %d retries, want 10", n)
	}
	for i := 0; i < 50; i++ { // +0.2·50 = 10 more
		b.OnRequest(5 * sec)
	}
	n = 0
	for b.AllowRetry(5*sec, true) {
		n++
	}
	if n != 10 {
		t.Errorf("after 50 requests %d more retries, want 10", n)
	}
}

// TestRatioBudgetDefaultWindow: Window 0 is Finagle's 10s.
func TestRatioBudgetDefaultWindow(t *testing.T) {
	b := NewRatioBudget(&Budget{Percent: 1})
	b.OnRequest(0)
	if req, _ := b.Window(9999 * ms); req != 1 {
		t.Errorf("request left a 10s window early")
	}
	if req, _ := b.Window(10 * sec); req != 0 {
		t.Errorf("request still in the window at 10s")
	}
}

// TestRatioBudgetSteadyState: 100 requests/s that all fail and all ask for a retry, against
// 10% + min_per_s 1 over 10s. Any 10 whole buckets hold at most 0.1·1000 + 1·10 = 110 retries,
// so 60s admit at most 660; with demand always waiting, the budget must also admit nearly
// that many (a budget that starves retries would pass the upper bound alone).
func TestRatioBudgetSteadyState(t *testing.T) {
	b := NewRatioBudget(&Budget{Kind: BudgetRatio, Percent: 0.1, MinPerS: 1, Window: 10 * sec})
	allowed := 0
	for now := time.Duration(0); now < 80*sec; now += 10 * ms {
		b.OnRequest(now)
		ok := b.AllowRetry(now, false)
		if ok && now >= 20*sec {
			allowed++
		}
	}
	t.Logf("admitted %d retries in 60s", allowed)
	if allowed > 660 || allowed < 627 {
		t.Errorf("retries admitted in 60s of steady state: %d, want (627, 660]", allowed)
	}
}
