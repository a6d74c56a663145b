package policy

import (
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkNext is the simulator's per-attempt cost: a failing attempt with full-jitter
// exponential backoff, a token bucket and (every other call) a Retry-After header.
func BenchmarkNext(b *testing.B) {
	p := &Policy{Deadline: time.Hour, Retry: Retry{
		MaxAttempts: 4, Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 10 * sec,
		Jitter: JitterFull, RetryAfterMax: 60 * sec,
	}}
	budget := NewRetryBudget(&Budget{Kind: BudgetTokenBucket, Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1})
	rng := rand.New(rand.NewPCG(1, 2))
	outs := []Outcome{st(503), withRA(429, "2"), {Kind: Timeout}, {Kind: Success}}
	var c Call
	c.Init(p, get, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if d := c.Next(0, outs[i&3], budget, wall, rng); !d.Retry {
			c.Init(p, get, 0)
		}
	}
}

// BenchmarkNextDate is Next on a 503 carrying an IMF-fixdate Retry-After (time.Parse).
func BenchmarkNextDate(b *testing.B) {
	p := &Policy{Retry: Retry{MaxAttempts: Unlimited, Backoff: BackoffExponential, Base: 100 * ms, Cap: 10 * sec, Jitter: JitterFull}}
	rng := rand.New(rand.NewPCG(1, 2))
	o := withRA(503, "Sun, 29 Nov 2026 20:00:30 GMT")
	c := NewCall(p, get, 0)
	b.ReportAllocs()
	for b.Loop() {
		c.Next(0, o, nil, wall, rng)
	}
}

func BenchmarkBackoffDelay(b *testing.B) {
	for _, r := range []Retry{
		{Backoff: BackoffConstant, Base: 100 * ms},
		{Backoff: BackoffLinear, Base: 100 * ms, Cap: 10 * sec},
		{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 10 * sec},
		{Backoff: BackoffList, Delays: []time.Duration{sec, 2 * sec, 4 * sec}},
		{Backoff: BackoffDecorrelated, Base: 100 * ms, Cap: 10 * sec},
	} {
		b.Run(string(r.Backoff), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			prev := time.Duration(0)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				prev = r.BackoffDelay(i&7+1, prev, rng)
			}
		})
	}
}

func BenchmarkJittered(b *testing.B) {
	r := Retry{Jitter: JitterFull}
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		r.Jittered(sec, rng)
	}
}

func BenchmarkParseRetryAfter(b *testing.B) {
	for _, v := range []string{"120", "Sun, 29 Nov 2026 20:00:30 GMT", "Sunday, 29-Nov-26 20:01:00 GMT", "Sun Nov 29 20:00:05 2026", "soon"} {
		b.Run(v, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ParseRetryAfter(v, wall)
			}
		})
	}
}

func BenchmarkBreaker(b *testing.B) {
	s := NewBreakerState(&stdBreaker)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := time.Duration(i) * ms
		if s.Allow(now) {
			s.Record(now, i%3 != 0)
		}
	}
}

func BenchmarkRatioBudget(b *testing.B) {
	r := NewRatioBudget(&Budget{Percent: 0.1, MinPerS: 10, Window: 10 * sec})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := time.Duration(i) * ms
		r.OnRequest(now)
		r.AllowRetry(now, false)
	}
}
