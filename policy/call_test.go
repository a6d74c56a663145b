package policy

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

const sec = time.Second

var get = Request{Method: "GET"}

func TestAttemptTimeout(t *testing.T) {
	tests := []struct {
		name              string
		timeout, deadline time.Duration
		start, now        time.Duration
		want              time.Duration
		wantOK            bool
	}{
		{"timeout only", 5 * sec, 0, 0, 100 * sec, 5 * sec, true},
		{"nothing: wait forever", 0, 0, 0, 100 * sec, 0, true},
		{"deadline roomy", 5 * sec, 20 * sec, 0, 0, 5 * sec, true},
		{"deadline cuts timeout", 5 * sec, 20 * sec, 0, 17 * sec, 3 * sec, true},
		{"deadline equal to timeout", 5 * sec, 20 * sec, 0, 15 * sec, 5 * sec, true},
		{"start offsets deadline", 5 * sec, 20 * sec, 10 * sec, 28 * sec, 2 * sec, true},
		{"deadline, no timeout", 0, 20 * sec, 0, 2 * sec, 18 * sec, true},
		{"exactly the minimum left", 5 * sec, 20 * sec, 0, 20*sec - MinAttemptTimeout, MinAttemptTimeout, true},
		{"less than the minimum left", 5 * sec, 20 * sec, 0, 20*sec - MinAttemptTimeout + 1, 0, false},
		{"deadline reached", 5 * sec, 20 * sec, 0, 20 * sec, 0, false},
		{"deadline passed", 5 * sec, 20 * sec, 0, 25 * sec, 0, false},
	}
	for _, tt := range tests {
		p := &Policy{Timeout: tt.timeout, Deadline: tt.deadline}
		c := NewCall(p, get, tt.start)
		got, ok := c.AttemptTimeout(tt.now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("%s: AttemptTimeout = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestConnectTimeout(t *testing.T) {
	for _, tt := range []struct{ ct, at, want time.Duration }{
		{2 * sec, 5 * sec, 2 * sec}, {2 * sec, sec, sec}, {0, 5 * sec, 5 * sec}, {2 * sec, 0, 2 * sec}, {0, 0, 0},
	} {
		c := NewCall(&Policy{ConnectTimeout: tt.ct}, get, 0)
		if got := c.ConnectTimeout(tt.at); got != tt.want {
			t.Errorf("ConnectTimeout(ct=%v, attempt=%v) = %v, want %v", tt.ct, tt.at, got, tt.want)
		}
	}
}

// step is one attempt outcome fed to Next and the decision expected back.
type step struct {
	at     time.Duration
	o      Outcome
	retry  bool
	wait   time.Duration
	reason string
}

func runSteps(t *testing.T, p *Policy, req Request, b RetryBudget, steps []step) *Call {
	t.Helper()
	c := NewCall(p, req, 0)
	for i, s := range steps {
		d := c.Next(s.at, s.o, b, wall.Add(s.at), nil)
		if d.Retry != s.retry || d.Wait != s.wait || d.Reason != s.reason {
			t.Fatalf("step %d (%v %d at %v): got {%v %v %q}, want {%v %v %q}",
				i+1, s.o.Kind, s.o.Status, s.at, d.Retry, d.Wait, d.Reason, s.retry, s.wait, s.reason)
		}
		if c.Attempts() != i+1 {
			t.Fatalf("step %d: Attempts() = %d", i+1, c.Attempts())
		}
	}
	return c
}

func expo(max int) *Policy {
	return &Policy{Retry: Retry{
		MaxAttempts: max, Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 10 * sec,
		NonIdempotent: NonIdempotentWithKey,
	}}
}

func withRA(code int, ra string) Outcome { return Outcome{Kind: Status, Status: code, RetryAfter: ra} }

func TestNext(t *testing.T) {
	post := Request{Method: "POST"}
	postKey := Request{Method: "POST", HasKey: true}
	tests := []struct {
		name  string
		p     *Policy
		req   Request
		steps []step
	}{
		{"first-try success", expo(3), get, []step{{0, Outcome{Kind: Success}, false, 0, ReasonSuccess}}},
		{"success after retries", expo(3), get, []step{
			{0, st(503), true, 100 * ms, ReasonRetry},
			{sec, st(200), false, 0, ReasonSuccess},
		}},
		// exponential 100ms×2 without jitter: 100, 200, 400; then exhausted at 4 attempts.
		{"exponential waits then exhausted", expo(4), get, []step{
			{0, st(503), true, 100 * ms, ReasonRetry},
			{sec, Outcome{Kind: Timeout}, true, 200 * ms, ReasonRetry},
			{2 * sec, Outcome{Kind: Reset}, true, 400 * ms, ReasonRetry},
			{3 * sec, st(503), false, 0, ReasonExhausted},
		}},
		{"max_attempts 1: no retry", expo(1), get, []step{{0, st(503), false, 0, ReasonExhausted}}},
		{"max_attempts 0 reads as 1", expo(0), get, []step{{0, st(503), false, 0, ReasonExhausted}}},
		{"404 rejected", expo(3), get, []step{{0, st(404), false, 0, ReasonRejected}}},
		{"501 never", &Policy{Retry: Retry{MaxAttempts: 3, Never: []int{501}}}, get, []step{{0, st(501), false, 0, ReasonNotRetryable}}},
		{"timeout not in on", &Policy{Retry: Retry{MaxAttempts: 3, On: []string{"5xx"}}}, get, []step{{0, Outcome{Kind: Timeout}, false, 0, ReasonNotRetryable}}},
		{"POST 503 without key", expo(3), post, []step{{0, st(503), false, 0, ReasonNotIdempotent}}},
		{"POST timeout without key", expo(3), post, []step{{0, Outcome{Kind: Timeout}, false, 0, ReasonNotIdempotent}}},
		{"POST 503 with key", expo(3), postKey, []step{{0, st(503), true, 100 * ms, ReasonRetry}}},
		{"POST refused without key", expo(3), post, []step{{0, Outcome{Kind: Refused}, true, 100 * ms, ReasonRetry}}},
		{"POST 429 without key", expo(3), post, []step{{0, st(429), true, 100 * ms, ReasonRetry}}},
		// Retry-After, honoured: max(backoff, retry_after).
		{"retry-after above backoff", expo(3), get, []step{{0, withRA(429, "2"), true, 2 * sec, ReasonRetry}}},
		{"retry-after below backoff", &Policy{Retry: Retry{MaxAttempts: 3, Backoff: BackoffConstant, Base: 5 * sec}}, get,
			[]step{{0, withRA(503, "1"), true, 5 * sec, ReasonRetry}}},
		{"retry-after HTTP-date", expo(3), get, []step{{10 * sec, withRA(503, "Sun, 29 Nov 2026 20:00:40 GMT"), true, 30 * sec, ReasonRetry}}},
		{"retry-after past date → backoff", expo(3), get, []step{{0, withRA(503, "Sun, 06 Nov 1994 08:49:37 GMT"), true, 100 * ms, ReasonRetry}}},
		{"retry-after ignored", &Policy{Retry: Retry{MaxAttempts: 3, Backoff: BackoffConstant, Base: sec, RetryAfter: RetryAfterIgnore}}, get,
			[]step{{0, withRA(429, "120"), true, sec, ReasonRetry}}},
		{"retry-after capped", &Policy{Retry: Retry{MaxAttempts: 3, RetryAfterMax: 10 * sec}}, get,
			[]step{{0, withRA(429, "120"), true, 10 * sec, ReasonRetry}}},
		{"retry-after uncapped", &Policy{Retry: Retry{MaxAttempts: 3}}, get,
			[]step{{0, withRA(429, "120"), true, 120 * sec, ReasonRetry}}},
		{"retry-after cap does not cut backoff", &Policy{Retry: Retry{MaxAttempts: 3, Backoff: BackoffConstant, Base: 30 * sec, RetryAfterMax: 10 * sec}}, get,
			[]step{{0, withRA(429, "120"), true, 30 * sec, ReasonRetry}}},
		{"retry-after malformed → backoff", expo(3), get, []step{{0, withRA(503, "soon"), true, 100 * ms, ReasonRetry}}},
		// Deadline 1s, constant 600ms: after a failure at 300ms, 700ms remain: 600ms wait leaves
		// 100ms → retry; after a failure at 500ms the wait would pass the deadline.
		{"deadline leaves room", &Policy{Deadline: sec, Retry: Retry{MaxAttempts: 5, Backoff: BackoffConstant, Base: 600 * ms}}, get,
			[]step{{300 * ms, st(503), true, 600 * ms, ReasonRetry}}},
		{"deadline no room", &Policy{Deadline: sec, Retry: Retry{MaxAttempts: 5, Backoff: BackoffConstant, Base: 600 * ms}}, get,
			[]step{{500 * ms, st(503), false, 0, ReasonDeadline}}},
		{"deadline exactly the minimum", &Policy{Deadline: sec, Retry: Retry{MaxAttempts: 5, Backoff: BackoffConstant, Base: 600 * ms}}, get,
			[]step{{400*ms - MinAttemptTimeout, st(503), true, 600 * ms, ReasonRetry}}},
		{"retry-after past the deadline", &Policy{Deadline: 20 * sec, Retry: Retry{MaxAttempts: 5}}, get,
			[]step{{0, withRA(429, "30"), false, 0, ReasonDeadline}}},
		{"unlimited attempts", &Policy{Retry: Retry{MaxAttempts: Unlimited, Backoff: BackoffConstant, Base: ms}}, get, []step{
			{0, st(503), true, ms, ReasonRetry}, {sec, st(503), true, ms, ReasonRetry},
			{2 * sec, st(503), true, ms, ReasonRetry}, {3 * sec, st(503), true, ms, ReasonRetry},
		}},
		// list past its end: 10, 30, 30, 30
		{"list backoff", &Policy{Retry: Retry{MaxAttempts: 5, Backoff: BackoffList, Delays: []time.Duration{10 * sec, 30 * sec}}}, get, []step{
			{0, st(503), true, 10 * sec, ReasonRetry}, {0, st(503), true, 30 * sec, ReasonRetry},
			{0, st(503), true, 30 * sec, ReasonRetry}, {0, st(503), true, 30 * sec, ReasonRetry},
			{0, st(503), false, 0, ReasonExhausted},
		}},
		// decorrelated with a nil rng takes midpoints: s1 = mid[100, 300] = 200,
		// s2 = mid[100, 600] = 350, s3 = mid[100, 1050] = 575 → cap 500, s4 = mid[100, 1500] → 500.
		{"decorrelated chain", &Policy{Retry: Retry{MaxAttempts: 6, Backoff: BackoffDecorrelated, Base: 100 * ms, Cap: 500 * ms, Jitter: JitterFull}}, get, []step{
			{0, st(503), true, 200 * ms, ReasonRetry}, {0, st(503), true, 350 * ms, ReasonRetry},
			{0, st(503), true, 500 * ms, ReasonRetry}, {0, st(503), true, 500 * ms, ReasonRetry},
		}},
		// Retry-After raises the wait, not the decorrelated chain: s2 follows s1 = 200ms.
		{"decorrelated chain ignores Retry-After", &Policy{Retry: Retry{MaxAttempts: 6, Backoff: BackoffDecorrelated, Base: 100 * ms}}, get, []step{
			{0, withRA(503, "10"), true, 10 * sec, ReasonRetry}, {0, st(503), true, 350 * ms, ReasonRetry},
		}},
		// full jitter with a nil rng: the mean d/2 — 50, 100, 200.
		{"full jitter mean", &Policy{Retry: Retry{MaxAttempts: 4, Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Jitter: JitterFull}}, get, []step{
			{0, st(503), true, 50 * ms, ReasonRetry}, {0, st(503), true, 100 * ms, ReasonRetry}, {0, st(503), true, 200 * ms, ReasonRetry},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runSteps(t, tt.p, tt.req, nil, tt.steps) })
	}
}

func TestNextCountsMalformedRetryAfter(t *testing.T) {
	c := runSteps(t, expo(4), get, nil, []step{
		{0, withRA(503, "soon"), true, 100 * ms, ReasonRetry},
		{0, withRA(503, "7"), true, 7 * sec, ReasonRetry},
		{0, withRA(503, "-1"), true, 400 * ms, ReasonRetry},
	})
	if c.MalformedRetryAfter() != 2 {
		t.Errorf("MalformedRetryAfter = %d, want 2", c.MalformedRetryAfter())
	}
	// An ignored Retry-After is not parsed, so not counted either.
	p := expo(3)
	p.Retry.RetryAfter = RetryAfterIgnore
	c = runSteps(t, p, get, nil, []step{{0, withRA(503, "soon"), true, 100 * ms, ReasonRetry}})
	if c.MalformedRetryAfter() != 0 {
		t.Errorf("ignored: MalformedRetryAfter = %d, want 0", c.MalformedRetryAfter())
	}
}

func TestNextDecisionRetryAfterField(t *testing.T) {
	c := NewCall(expo(3), get, 0)
	if d := c.Next(0, withRA(429, "3"), nil, wall, nil); d.RetryAfter != 3*sec || d.Wait != 3*sec {
		t.Errorf("honoured: %+v", d)
	}
	if d := c.Next(0, st(503), nil, wall, nil); d.RetryAfter != 0 || d.Wait != 200*ms {
		t.Errorf("backoff: %+v", d)
	}
}

// TestNextTokenBucket: capacity 20, retry 5, timeout 10, refill 1 (hand-computed balances).
func TestNextTokenBucket(t *testing.T) {
	b := NewTokenBucket(&Budget{Kind: BudgetTokenBucket, Capacity: 20, RetryCost: 5, TimeoutCost: 10, Refill: 1})
	p := expo(10)
	balance := func(want float64) {
		t.Helper()
		if b.Tokens() != want {
			t.Fatalf("tokens = %v, want %v", b.Tokens(), want)
		}
	}
	c := NewCall(p, get, 0)
	c.Next(0, st(503), b, wall, nil) // 20 − 5
	balance(15)
	c.Next(0, Outcome{Kind: Timeout}, b, wall, nil) // 15 − 10
	balance(5)
	c.Next(0, Outcome{Kind: Success}, b, wall, nil) // the successful retry's 10 comes back
	balance(15)

	c = NewCall(p, get, 0)
	c.Next(0, Outcome{Kind: Success}, b, wall, nil) // first try: +1
	balance(16)
	c = NewCall(p, get, 0)
	c.Next(0, Outcome{Kind: ConnectTimeout}, b, wall, nil) // connect timeout costs the timeout cost
	balance(6)
	if d := c.Next(0, Outcome{Kind: Timeout}, b, wall, nil); d.Retry || d.Reason != ReasonBudget {
		t.Fatalf("6 tokens < 10: %+v", d)
	}
	balance(6)
	// A retry the deadline refuses costs nothing.
	c = NewCall(&Policy{Deadline: sec, Retry: Retry{MaxAttempts: 3, Backoff: BackoffConstant, Base: 2 * sec}}, get, 0)
	if d := c.Next(0, st(503), b, wall, nil); d.Reason != ReasonDeadline {
		t.Fatalf("want deadline, got %+v", d)
	}
	balance(6)
	// A first-try success cannot overfill.
	full := NewTokenBucket(&Budget{Kind: BudgetTokenBucket, Capacity: 20, RetryCost: 5, Refill: 1})
	NewCall(p, get, 0).Next(0, Outcome{Kind: Success}, full, wall, nil)
	if full.Tokens() != 20 {
		t.Errorf("overfilled: %v", full.Tokens())
	}
}

// attemptsDist is the exact distribution of attempts K with independent failure probability p
// and at most N retries: P(K=k) = p^(k−1)(1−p) for k ≤ N, P(K=N+1) = p^N.
func attemptsDist(p float64, n int) (mean, variance float64) {
	var m1, m2 float64
	for k := 1; k <= n+1; k++ {
		pk := math.Pow(p, float64(k-1)) * (1 - p)
		if k == n+1 {
			pk = math.Pow(p, float64(n))
		}
		m1 += float64(k) * pk
		m2 += float64(k*k) * pk
	}
	return m1, m2 - m1*m1
}

// TestMonteCarloMeanAttempts: independent failures with probability p and N retries give a
// mean of (1−p^(N+1))/(1−p) attempts (a truncated geometric series). Runs the real Call.Next
// on seeded draws and accepts 4 standard errors, the standard error coming from the exact
// variance of the distribution.
func TestMonteCarloMeanAttempts(t *testing.T) {
	tests := []struct {
		p float64
		n int
	}{{0.3, 3}, {0.5, 0}, {0.5, 2}, {0.9, 5}, {0.05, 1}, {0.99, 10}}
	const calls = 50000
	for i, tt := range tests {
		pol := &Policy{Retry: Retry{MaxAttempts: tt.n + 1, Backoff: BackoffExponential, Base: 100 * ms, Jitter: JitterFull}}
		rng := rand.New(rand.NewPCG(uint64(i)+7, 11))
		var c Call
		total := 0
		for k := 0; k < calls; k++ {
			c.Init(pol, get, 0)
			for {
				o := Outcome{Kind: Success}
				if rng.Float64() < tt.p {
					o = st(503)
				}
				if d := c.Next(0, o, nil, wall, rng); !d.Retry {
					break
				}
			}
			total += c.Attempts()
		}
		want := (1 - math.Pow(tt.p, float64(tt.n+1))) / (1 - tt.p)
		mean, variance := attemptsDist(tt.p, tt.n)
		if math.Abs(mean-want) > 1e-9 {
			t.Fatalf("closed form %v disagrees with the distribution's mean %v", want, mean)
		}
		got := float64(total) / calls
		se := math.Sqrt(variance / calls)
		t.Logf("p=%v N=%d: mean attempts %.4f, closed form %.4f, SE %.4f", tt.p, tt.n, got, want, se)
		if math.Abs(got-want) > 4*se {
			t.Errorf("p=%v N=%d: mean attempts %.4f, want %.4f ± %.4f", tt.p, tt.n, got, want, 4*se)
		}
	}
}

func TestTheoreticalAmplification(t *testing.T) {
	layer := func(n int) Layer { return Layer{Policy: &Policy{Retry: Retry{MaxAttempts: n}}} }
	tests := []struct {
		name string
		p    Policy
		want float64
	}{
		{"single", Policy{Retry: Retry{MaxAttempts: 4}}, 4},
		{"zero reads as 1", Policy{}, 1},
		{"4,4,4 → 64", Policy{Retry: Retry{MaxAttempts: 4}, Layers: []Layer{layer(4), layer(4)}}, 64},
		{"3 × 6 → 18", Policy{Retry: Retry{MaxAttempts: 6}, Layers: []Layer{layer(3)}}, 18},
		{"nil layer policy", Policy{Retry: Retry{MaxAttempts: 2}, Layers: []Layer{{Name: "x"}}}, 2},
		{"unlimited bottom", Policy{Retry: Retry{MaxAttempts: Unlimited}, Layers: []Layer{layer(3)}}, math.Inf(1)},
		{"unlimited layer", Policy{Retry: Retry{MaxAttempts: 3}, Layers: []Layer{layer(Unlimited)}}, math.Inf(1)},
	}
	for _, tt := range tests {
		if got := tt.p.TheoreticalAmplification(); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestNextAllocs holds the simulator's hot path to zero allocations per call.
func TestNextAllocs(t *testing.T) {
	p := &Policy{Deadline: time.Hour, Retry: Retry{MaxAttempts: Unlimited, Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 10 * sec, Jitter: JitterFull}}
	b := NewRetryBudget(&Budget{Kind: BudgetTokenBucket, Capacity: 1e12, RetryCost: 5, TimeoutCost: 10, Refill: 1})
	rng := rand.New(rand.NewPCG(1, 2))
	var c Call
	c.Init(p, get, 0)
	outs := []Outcome{st(503), withRA(429, "2"), withRA(503, "Sun, 29 Nov 2026 20:00:30 GMT"), {Kind: Timeout}, {Kind: Success}}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		d := c.Next(0, outs[i%len(outs)], b, wall, rng)
		i++
		if !d.Retry {
			c.Init(p, get, 0)
		}
	})
	if allocs != 0 {
		t.Errorf("Next allocates %v times per call", allocs)
	}
}
