package profile

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestBinomialUpper(t *testing.T) {
	for _, tc := range []struct {
		x, n     int64
		want     float64
		relError float64
	}{
		{0, 300, 1 - math.Pow(0.05, 1.0/300), 1e-6}, // closed form at x = 0: ≈ 3/n
		{0, 1, 0.95, 1e-6},
		// P(X ≤ 1) = 0.05 for n = 100: p ≈ 0.0466 (tables of the exact bound).
		{1, 100, 0.0466, 0.01},
		// Large n: close to the normal bound p̂ + 1.645·√(p̂(1−p̂)/n).
		{6000, 120000, 0.05 + 1.645*math.Sqrt(0.05*0.95/120000), 0.001},
		{5, 5, 1, 0},
	} {
		got := BinomialUpper(tc.x, tc.n, 0.95)
		if math.Abs(got-tc.want) > tc.relError*tc.want {
			t.Errorf("BinomialUpper(%d, %d) = %.6g, want %.6g (±%g%%)", tc.x, tc.n, got, tc.want, tc.relError*100)
		}
	}
}

func TestPoissonQuantile(t *testing.T) {
	for _, tc := range []struct {
		mean, q float64
		want    int64
	}{
		{0, 0.999, 0},
		{0.016, 0.999, 1}, // P(X > 1) ≈ m²/2 = 1.3e-4
		{0.05, 0.999, 2},  // P(X > 1) = 1 − e^−0.05·1.05 = 1.2e-3 > 1e-3
		{0.85, 0.999, 5},  // P(X > 4) = 2.0e-3, P(X > 5) = 2.8e-4
		{1, 0.5, 1},       // median of Poisson(1)
		{1000, 0.999, 1098},
	} {
		if got := PoissonQuantile(tc.mean, tc.q); got != tc.want {
			t.Errorf("PoissonQuantile(%g, %g) = %d, want %d", tc.mean, tc.q, got, tc.want)
		}
	}
}

// The three example loads of docs/design.md §7 and issue 27 item 3, and k = 1.
func TestSizeRetryBudget(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		load                          BudgetLoad
		percent                       float64
		minConc, minPerS, tokens      int
		ratio, concurrency, amp, fAmp float64
		derivationHas                 []string
	}{
		{
			name: "healthy: 0.1% at 200/s and 80 ms",
			load: BudgetLoad{RatePerS: 200, MeanMs: 80, Requests: 120000, Transient: 120, Attempts: 2},
			// f⁺ = 0.116%; 2 × 0.116% is below the 5% floor. Retries in flight average
			// 0.0186 → 1; 8 retries per 10 s at p99.9 ≪ 0.05 × 2000; 8 failed attempts per
			// 10 s → 18 tokens; threshold 5% → r = 0.0526 → 0.053.
			percent: 5, minConc: 1, minPerS: 1, tokens: 18, ratio: 0.053, concurrency: 16, amp: 1.053, fAmp: 1.062,
			derivationHas: []string{"L = λ·W = 16 in flight (Little's law)", "f⁺ = 0.116%", "below the 5% floor", "→ 5% (Envoy and Istio budget_percent; Linkerd retryRatio 0.05)"},
		},
		{
			name: "flaky: 5% at 200/s and 80 ms",
			load: BudgetLoad{RatePerS: 200, MeanMs: 80, Requests: 120000, Transient: 6000, Attempts: 2},
			// f⁺ = 5.1%, × 2 = 10.2% → 11%; 0.817 retries in flight → 5 at p99.9, above
			// 11% × 16 = 1.76: the floor admits them at this concurrency.
			percent: 11, minConc: 5, minPerS: 1, tokens: 284, ratio: 0.124, concurrency: 16, amp: 1.124, fAmp: 1.312,
			derivationHas: []string{"f⁺ = 5.1%", "2 × 5.1% = 10.2%, above the 5% floor → 11%", "the floor, not the percentage, admits them"},
		},
		{
			name: "quiet: 0.5/s, no failure in 300",
			load: BudgetLoad{RatePerS: 0.5, MeanMs: 80, Requests: 300, Transient: 0, Attempts: 2},
			// f⁺ = 1 − 0.05^(1/300) = 0.994%: no failure is not a share of 0. The floors
			// dominate: in an outage every failure may be retried, k = 2 bounds it.
			percent: 5, minConc: 1, minPerS: 1, tokens: 6, ratio: 0.053, concurrency: 0.04, amp: 1.053, fAmp: 2,
			derivationHas: []string{"0 of 300 requests", "f⁺ = 0.994%", "the floors allow up to 2"},
		},
		{
			name:    "k = 1: no retry, a budget that admits none",
			load:    BudgetLoad{RatePerS: 200, MeanMs: 80, Requests: 120000, Transient: 120, Attempts: 1},
			percent: 0, minConc: 0, minPerS: 0, tokens: 0, ratio: 0, concurrency: 16, amp: 1, fAmp: 1,
			derivationHas: []string{"none to admit — 1 attempt", "budget_percent 0 and min_retry_concurrency 0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.load.RateFrom, tc.load.TransientWhat = "test", "test"
			b := SizeRetryBudget(tc.load)
			if b == nil {
				t.Fatal("no budget")
			}
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"percent", b.Percent, tc.percent}, {"min_retry_concurrency", float64(b.MinRetryConcurrency), float64(tc.minConc)},
				{"min_retries_per_second", float64(b.MinRetriesPerSecond), float64(tc.minPerS)}, {"max_tokens", float64(b.MaxTokens), float64(tc.tokens)},
				{"token_ratio", b.TokenRatio, tc.ratio}, {"concurrency", b.Concurrency, tc.concurrency},
				{"outage_amplification", b.OutageAmplification, tc.amp}, {"floor_amplification", b.FloorAmplification, tc.fAmp},
			} {
				if math.Abs(c.got-c.want) > 1e-9 {
					t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
				}
			}
			all := strings.Join(b.Derivation, "\n")
			for _, s := range tc.derivationHas {
				if !strings.Contains(all, s) {
					t.Errorf("derivation lacks %q:\n%s", s, all)
				}
			}
		})
	}
}

// TestSizeRetryBudgetNeedsRateAndLatency: no rate, no latency or no request is no budget —
// never a guess.
func TestSizeRetryBudgetNeedsRateAndLatency(t *testing.T) {
	for _, l := range []BudgetLoad{
		{MeanMs: 80, Requests: 100, Attempts: 2},
		{RatePerS: 200, Requests: 100, Attempts: 2},
		{RatePerS: 200, MeanMs: 80, Attempts: 2},
		{RatePerS: math.NaN(), MeanMs: 80, Requests: 100, Attempts: 2},
	} {
		if b := SizeRetryBudget(l); b != nil {
			t.Errorf("SizeRetryBudget(%+v) = %+v, want nil", l, *b)
		}
	}
}

// TestRetryBudgetProperties draws loads at random (seeded) and checks what the rule
// promises: at the measured share's bound the budget admits the retries needed — Envoy's
// concurrent limit and Linkerd's per-ttl allowance cover the p99.9 of the Poisson count, and
// gRPC's tokens rise — and in a full outage Envoy's limit, applied as it applies it, lets
// through at most OutageAmplification attempts per request once the floor is spent, and a
// gRPC token bucket run attempt by attempt settles to first tries only.
func TestRetryBudgetProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	for i := range 300 {
		l := BudgetLoad{
			RatePerS: math.Pow(10, rng.Float64()*5-1), // 0.1/s to 10k/s
			MeanMs:   math.Pow(10, rng.Float64()*3),   // 1 ms to 1 s
			Requests: 100 + rng.Int64N(1_000_000),
			Attempts: 2 + rng.IntN(3),
		}
		l.Transient = int64(float64(l.Requests) * rng.Float64() * 0.2) // up to 20%
		b := SizeRetryBudget(l)
		need := b.TransientUpper * float64(l.Attempts-1)
		p := b.Percent / 100
		// Envoy: max(min_retry_concurrency, p × active) ≥ the p99.9 of retries in flight.
		if q := PoissonQuantile(need*b.Concurrency, BudgetQuantile); math.Max(float64(b.MinRetryConcurrency), p*b.Concurrency) < float64(q) {
			t.Errorf("#%d %+v: Envoy admits max(%d, %g) retries in flight, the need's p99.9 is %d", i, l, b.MinRetryConcurrency, p*b.Concurrency, q)
		}
		// Linkerd: retryRatio × requests + minRetriesPerSecond × ttl per ttl.
		window := b.WindowS * l.RatePerS
		if q := PoissonQuantile(need*window, BudgetQuantile); p*window+float64(b.MinRetriesPerSecond)*b.WindowS < float64(q) {
			t.Errorf("#%d %+v: Linkerd admits %g retries per ttl, the need's p99.9 is %d", i, l, p*window+float64(b.MinRetriesPerSecond)*b.WindowS, q)
		}
		// gRPC: the tokens drift up at f⁺ (when the rule could put the threshold above it).
		if b.TransientUpper*float64(l.Attempts-1)*BudgetHeadroom < grpcThresholdCap && b.TokenRatio*(1-b.TransientUpper)-b.TransientUpper <= 0 {
			t.Errorf("#%d %+v: tokenRatio %g lets the tokens fall at f⁺ = %g", i, l, b.TokenRatio, b.TransientUpper)
		}
		if b.MaxTokens < 2 || b.MaxTokens > GRPCMaxTokensCap {
			t.Errorf("#%d: maxTokens %d outside A6's (0, 1000]", i, b.MaxTokens)
		}
		if r := b.TokenRatio * 1000; r != math.Round(r) || b.TokenRatio <= 0 {
			t.Errorf("#%d: tokenRatio %g is not a positive number with 3 decimals", i, b.TokenRatio)
		}
		checkEnvoyOutage(t, i, b, l.Attempts)
		checkGRPCOutage(t, i, b, l.Attempts)
	}
}

// checkEnvoyOutage applies Envoy's limit (retries in flight < max(min_retry_concurrency,
// ⌊p × (first tries + retries in flight)⌋), resource_manager_impl.h) to P first tries in
// flight that all fail, P past the floor, each retried at most k − 1 times: the retries it
// lets run, over P, stay within OutageAmplification − 1.
func checkEnvoyOutage(t *testing.T, i int, b *RetryBudget, k int) {
	p := b.Percent / 100
	spent := int64(math.Ceil(float64(b.MinRetryConcurrency)/p)) + 1
	for _, first := range []int64{spent, max(spent, 1000), max(spent, 100000)} {
		var r int64
		for {
			limit := max(int64(b.MinRetryConcurrency), int64(p*float64(first+r)))
			if r >= limit || r >= int64(k-1)*first {
				break
			}
			r++
		}
		if amp := float64(first+r) / float64(first); amp > b.OutageAmplification+1e-3 {
			t.Errorf("#%d: %d first tries in an outage run with %d retries: ×%g, above outage_amplification %g", i, first, r, amp, b.OutageAmplification)
		}
	}
}

// checkGRPCOutage runs gRFC A6's bucket over 10,000 requests of which every attempt fails:
// retries stop once the tokens reach maxTokens/2, so the attempts per request come to 1 plus
// at most maxTokens/2 over the run.
func checkGRPCOutage(t *testing.T, i int, b *RetryBudget, k int) {
	tokens, half := float64(b.MaxTokens), float64(b.MaxTokens)/2
	const requests = 10000
	attempts := 0
	for range requests {
		for a := 0; a < k; a++ {
			if a > 0 && tokens <= half {
				break
			}
			attempts++
			tokens = math.Max(0, tokens-1)
		}
	}
	if got, want := float64(attempts)/requests, 1+half/requests+1e-9; got > want {
		t.Errorf("#%d: gRPC in an outage sent %g attempts per request, want ≤ %g", i, got, want)
	}
}

// TestRecommendRetryBudget: a log's rate gives a budget; a probe's own rate does not; a
// stated load does; a POST without a key gets the no-retry budget.
func TestRecommendRetryBudget(t *testing.T) {
	fast := tail(5000, 10, 39.6, 50, 60, 70, 80, 80)
	ev := evidence(fast, 0, nil, nil)
	ev.Status = map[string]int64{"200": 5000, "503": 5}
	ev.MeanMs = 12
	if r := Recommend(ev, Caller{}, RecommendOptions{}); r.RetryBudget != nil {
		t.Errorf("a probe's evidence (no caller rate) got a budget: %+v", *r.RetryBudget)
	}
	ev.RatePerS, ev.RateFrom = 50, "5,005 requests over the 100 s the log's timestamps span"
	r := Recommend(ev, Caller{}, RecommendOptions{})
	if r.RetryBudget == nil {
		t.Fatal("a log with a rate got no budget")
	}
	if b := r.RetryBudget; b.RatePerS != 50 || b.Concurrency != 0.6 || b.TransientShare != 5.0/5005 {
		t.Errorf("budget %+v: want rate 50/s, L = 0.6, share 5/5005", *b)
	}
	if !strings.Contains(r.RetryBudget.Derivation[0], "the log's timestamps span") {
		t.Errorf("first line %q does not say where the rate came from", r.RetryBudget.Derivation[0])
	}
	stated := Recommend(ev, Caller{}, RecommendOptions{LoadPerS: 400})
	if stated.RetryBudget == nil || stated.RetryBudget.RatePerS != 400 || !strings.Contains(stated.RetryBudget.Derivation[0], "as stated") {
		t.Errorf("a stated load is not the budget's rate: %+v", stated.RetryBudget)
	}
	post := Recommend(ev, Caller{Method: "POST"}, RecommendOptions{})
	if b := post.RetryBudget; b == nil || b.Percent != 0 || b.MinRetryConcurrency != 0 || b.OutageAmplification != 1 {
		t.Errorf("POST without a key: budget %+v, want one admitting no retry", b)
	}
}

// TestTransientFailures: what a retry repeats, by the classification of docs/design.md §5.
func TestTransientFailures(t *testing.T) {
	ev := Evidence{
		Status: map[string]int64{"200": 1000, "404": 7, "429": 2, "500": 3, "501": 100, "503": 5},
		Errors: map[string]int64{"timeout": 11, "refused": 13, "reset": 17, "dns": 19, "tls": 23, "goaway": 1},
	}
	for _, tc := range []struct {
		caller Caller
		want   int64
	}{
		// 429 + 500 + 503 + timeout + refused + reset + goaway; not 404, 501, dns, tls.
		{Caller{Method: "GET"}, 2 + 3 + 5 + 11 + 13 + 17 + 1},
		{Caller{Method: "POST", IdempotencyKey: true}, 2 + 3 + 5 + 11 + 13 + 17 + 1},
		// Outcome unknown (5xx, timeout, reset) is not retried without a key: 429, refused, goaway.
		{Caller{Method: "POST"}, 2 + 13 + 1},
	} {
		if got, _ := TransientFailures(&ev, tc.caller); got != tc.want {
			t.Errorf("%+v: %d transient, want %d", tc.caller, got, tc.want)
		}
	}
}

// TestRetryBudgetJSON: recommendation.retry_budget carries every knob, and is absent
// without a rate.
func TestRetryBudgetJSON(t *testing.T) {
	ev := evidence(tail(5000, 10, 39.6, 50, 60, 70, 80, 80), 0, nil, nil)
	ev.MeanMs = 80
	b, err := json.Marshal(Recommend(ev, Caller{}, RecommendOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "retry_budget") {
		t.Errorf("retry_budget present without a rate: %s", b)
	}
	b, err = json.Marshal(Recommend(ev, Caller{}, RecommendOptions{LoadPerS: 200}))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		RetryBudget map[string]any `json:"retry_budget"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"rate_per_s", "concurrency", "percent", "min_retry_concurrency", "min_retries_per_second",
		"max_tokens", "token_ratio", "window_s", "transient_share", "transient_upper", "outage_amplification", "floor_amplification", "derivation"} {
		if _, ok := doc.RetryBudget[key]; !ok {
			t.Errorf("retry_budget lacks %q: %s", key, b)
		}
	}
	if doc.RetryBudget["rate_per_s"] != 200.0 || doc.RetryBudget["concurrency"] != 16.0 {
		t.Errorf("retry_budget rate/concurrency: %v / %v, want 200 and 16", doc.RetryBudget["rate_per_s"], doc.RetryBudget["concurrency"])
	}
}

// TestBuilderRetryBudgetFromLog: a log's profile (model "log", a span) carries the budget,
// and a saved one gives the same back through Evidence (check --init --profile).
func TestBuilderRetryBudgetFromLog(t *testing.T) {
	head := Profile{
		Target: Target{URL: "http://127.0.0.1/", Method: "GET"}, Model: "log", Conn: "unknown", DurationMs: 10000,
		Schedule: Schedule{RateHeld: true, AchievedPerS: 40.3}, Source: &Source{Format: "nginx", Files: []string{"a.log"}},
	}
	var vals []float64
	for i := range 400 {
		vals = append(vals, 10+float64(i%9))
	}
	b := NewBuilder(head, RecommendParams{MaxTimeout: 2 * time.Second})
	b.Add(Part{Series: set(vals...), Status: map[string]int64{"200": 400, "503": 3}, Requests: 403, Responses: 403})
	res := mustClose(t, b)
	got := res.Recommendation.RetryBudget
	if got == nil {
		t.Fatal("a log's profile has no retry budget")
	}
	if got.RatePerS != 40.3 || !(got.Concurrency > 0) || !strings.Contains(got.Derivation[0], "403 requests over the 10 s the log's timestamps span") {
		t.Errorf("budget %+v", *got)
	}
	ev, err := res.Evidence()
	if err != nil {
		t.Fatal(err)
	}
	again := Recommend(ev, Caller{}, RecommendOptions{}).RetryBudget
	if again == nil || again.Percent != got.Percent || again.MinRetryConcurrency != got.MinRetryConcurrency || math.Abs(again.Concurrency-got.Concurrency) > 1e-9 {
		t.Errorf("from the saved profile: %+v, want %+v", again, *got)
	}
	head.Model, head.Source = "open", nil
	probe := NewBuilder(head, RecommendParams{MaxTimeout: 2 * time.Second})
	probe.Add(Part{Series: set(vals...), Status: map[string]int64{"200": 400}, Requests: 400, Responses: 400})
	if r := mustClose(t, probe).Recommendation.RetryBudget; r != nil {
		t.Errorf("a probe's own rate sized a budget: %+v", *r)
	}
}
