package profile

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/verdict"
)

func TestRoundUpClean(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0, 1}, {0.5, 1}, {1, 1}, {1.1, 1.2}, {1.2, 1.2}, {1.3, 1.5}, {2, 2}, {2.1, 2.5}, {2.5, 2.5},
		{2.6, 3}, {3.5, 4}, {5, 5}, {5.01, 6}, {6.5, 8}, {8.01, 10}, {47.52, 50}, {50, 50}, {50.01, 60},
		{120, 120}, {201, 250}, {396, 400}, {505, 600}, {586, 600}, {1100, 1200}, {2400, 2500},
		{30000, 30000}, {30001, 40000}, {81000, 100000},
	} {
		if got := RoundUpClean(tc.in); got != tc.want {
			t.Errorf("RoundUpClean(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
}

func TestAssumedRetryCost(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{{1, 100 * ms}, {2, 200 * ms}, {3, 400 * ms}, {7, 6400 * ms}, {8, 10 * time.Second}, {20, 10 * time.Second}} {
		r := AssumedRetry()
		if got := r.WorstCaseWait(tc.n); got != tc.want {
			t.Errorf("AssumedRetry().WorstCaseWait(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	// 3 × 500 ms + 100 ms + 200 ms.
	if got := AttemptsCost(3, 500*ms); got != 1800*ms {
		t.Errorf("AttemptsCost(3, 500ms) = %v, want 1.8s", got)
	}
	if got := AttemptsCost(1, 500*ms); got != 500*ms {
		t.Errorf("AttemptsCost(1, 500ms) = %v, want 500ms", got)
	}
}

func TestMaxAttempts(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		timeout, budget time.Duration
		want            int
	}{
		{500 * ms, 2 * time.Second, 3},        // 1.8 s fits, 4 attempts need 2.7 s
		{2 * time.Second, 2 * time.Second, 1}, // exactly one
		{2001 * ms, 2 * time.Second, 0},       // cannot hold one
		{50 * ms, 10 * time.Second, 7},        // 350 ms + 6.3 s = 6.65 s; 8 need 13.1 s
		{2500 * ms, 10 * time.Second, 3},      // 7.5 s + 0.3 s; 4 need 10.7 s
		{time.Millisecond, time.Hour, 10},     // capped
		{0, time.Second, 0},
	} {
		if got := MaxAttempts(tc.timeout, tc.budget); got != tc.want {
			t.Errorf("MaxAttempts(%v, %v) = %d, want %d", tc.timeout, tc.budget, got, tc.want)
		}
	}
}

func TestSamplesNeededAndLabel(t *testing.T) {
	for _, tc := range []struct {
		q     float64
		need  int64
		label string
	}{{0.5, 2, "p50"}, {0.9, 10, "p90"}, {0.95, 20, "p95"}, {0.99, 100, "p99"}, {0.999, 1000, "p99.9"}, {0.9999, 10000, "p99.99"}} {
		if got := SamplesNeeded(tc.q); got != tc.need {
			t.Errorf("SamplesNeeded(%g) = %d, want %d", tc.q, got, tc.need)
		}
		if got := QuantileLabel(tc.q); got != tc.label {
			t.Errorf("QuantileLabel(%g) = %q, want %q", tc.q, got, tc.label)
		}
	}
}

// tail is a Sample of n values: body repeated, then the tail values (ascending), so that
// AtRank(n-len(tail)+1) is tail[0].
func tail(n int, body float64, tail ...float64) Sample {
	s := make(Sample, 0, n)
	for range n - len(tail) {
		s = append(s, body)
	}
	return append(s, tail...)
}

// evidence is Evidence for a GET probe: good latencies with status 200, noAnswer timeouts,
// other errors by class and other statuses.
func evidence(good Sample, noAnswer int64, errs map[string]int64, status map[string]int64) Evidence {
	ev := Evidence{Good: good, NoAnswer: noAnswer, MaxTimeout: 30 * time.Second, Status: map[string]int64{}, Errors: map[string]int64{"timeout": noAnswer}, ErrorSamples: map[string]ErrorSample{}}
	if len(good) > 0 {
		ev.Status["200"] = int64(len(good))
	}
	for k, v := range errs {
		ev.Errors[k] += v
	}
	for k, v := range status {
		ev.Status[k] += v
	}
	return ev
}

func TestAdvise(t *testing.T) {
	ms := time.Millisecond
	fast := tail(5000, 10, 39.6, 50, 60, 70, 80, 80) // p99.9 (rank 4995) = 39.6 ms
	interactive := Caller{Budget: 10 * time.Second}
	for _, tc := range []struct {
		name             string
		ev               Evidence
		caller           Caller
		opts             RecommendOptions
		timeout, connect float64
		attempts, fit    int
		level            Level
		code             string // the first (headline) clause's code
		headline         string // the headline, when given
		derivationHas    []string
	}{
		{
			name: "fast GET: one retry, no separate connect timeout",
			ev:   evidence(fast, 0, nil, nil), caller: interactive,
			// 39.6 × 1.2 = 47.52 → 50; the 1.1 s connect floor is not below 50 ms → none;
			// 7 attempts would fit (350 ms + 6.3 s), an interactive caller gets 2.
			timeout: 50, connect: 0, attempts: 2, fit: 7, level: verdict.Good, code: CodeRecommendation,
			headline: "timeout 50 ms, no separate connect timeout, 2 attempts (one retry) within the 10 s budget",
			derivationHas: []string{"p99.9 of good responses = 39.6 ms (n=5,000; 95% CI", "× 1.2 headroom = 47.5 ms → 50 ms",
				"connect timeout: none — 1.1 s is not below the 50 ms total timeout", "k=7 costs 6.65 s, k=8 would cost 13.1 s", "retries at most once"},
		},
		{
			name: "POST without an Idempotency-Key: one attempt",
			ev:   evidence(fast, 0, nil, nil), caller: Caller{Budget: 10 * time.Second, Method: "post"},
			timeout: 50, attempts: 1, fit: 7, level: verdict.Good, code: CodeRecommendation,
			headline:      "timeout 50 ms, no separate connect timeout, 1 attempt (retry only with an Idempotency-Key) within the 10 s budget",
			derivationHas: []string{"POST without an Idempotency-Key: retry only with an Idempotency-Key", "the 10 s budget would hold 7"},
		},
		{
			name: "PATCH without a key: one attempt", ev: evidence(fast, 0, nil, nil), caller: Caller{Method: "PATCH"},
			timeout: 50, attempts: 1, fit: 7, level: verdict.Good, code: CodeRecommendation,
		},
		{
			name: "POST with an Idempotency-Key: one retry", ev: evidence(fast, 0, nil, nil), caller: Caller{Method: "POST", IdempotencyKey: true},
			timeout: 50, attempts: 2, fit: 7, level: verdict.Good, code: CodeRecommendation,
		},
		{
			name: "the budget holds one attempt only",
			// 1600 × 1.2 = 1920 → 2000; 2.5 s holds 1 (2 need 4.1 s).
			ev: evidence(tail(2000, 100, 1600, 1700, 1800), 0, nil, nil), caller: Caller{Budget: 2500 * ms},
			timeout: 2000, connect: 1100, attempts: 1, fit: 1, level: verdict.Good, code: CodeRecommendation,
			derivationHas: []string{"the budget holds only 1, fewer than the 2 an interactive caller may have"},
		},
		{
			name: "the budget cannot hold one call",
			// 1300 × 1.2 = 1560 → 2000 > 1.5 s.
			ev: evidence(tail(5000, 100, 1300, 1300, 1300, 1300, 1300, 1300), 0, nil, nil), caller: Caller{Budget: 1500 * ms},
			timeout: 2000, connect: 1100, attempts: 0, fit: 0, level: verdict.Bad, code: CodeBudget, headline: QueueVerdict,
			derivationHas: []string{"more than the 1.5 s budget → 0"},
		},
		{
			name: "slow connects above the floor",
			ev: func() Evidence {
				ev := evidence(tail(5000, 100, 2000, 2000, 2000, 2000, 2000, 2000), 0, nil, nil)
				ev.Connect = tail(1000, 1, 500, 500) // p99.9 = rank 999 = 500 ms
				return ev
			}(),
			caller: interactive,
			// 2000 × 1.2 = 2400 → 2500; connect 3 × 500 = 1500 (on the ladder) < 2500.
			timeout: 2500, connect: 1500, attempts: 2, fit: 3, level: verdict.Good, code: CodeRecommendation,
			derivationHas: []string{"3 × connect p99.9 500 ms (n=1,000) = 1.5 s, above the 1.1 s floor → 1.5 s"},
		},
		{
			name: "half the requests hang: no timeout, the dependency is failing",
			// The repro: 42 of 80 answered in 150 ms, 38 (47.5%) no answer in 30 s.
			ev: evidence(tail(42, 150), 38, nil, nil), caller: interactive,
			timeout: 0, connect: 0, attempts: 0, level: verdict.Bad, code: CodeNoAnswer,
			headline: "47.5% of requests got no answer within 30 s: the dependency is failing, not slow",
			derivationHas: []string{"timeout: none — the p99.9 of the 80 requests lies beyond the 30 s --max-timeout: 38 of them (47.5%) got no answer",
				"the answered requests alone would give 200 ms (150 ms × 1.2), a timeout that cuts off every unanswered request: 47.5% of them here"},
		},
		{
			name: "a few hang, more than the cut-off: the tail is beyond --max-timeout",
			ev:   evidence(tail(1990, 20), 10, nil, nil), caller: interactive,
			timeout: 0, level: verdict.Bad, code: CodeTailBeyond,
			headline: "0.5% of requests got no answer within 30 s, more than the 0.1% cut-off: the p99.9 lies beyond --max-timeout, so no timeout can be derived (probe with a longer --max-timeout, or accept more with --cutoff)",
		},
		{
			name: "one hang within the cut-off: counted as the slowest, the quantile below it",
			// 2001 requests, rank ⌈0.999 × 2001⌉ = 1999 is the good response at 90 ms.
			ev:     evidence(tail(2000, 20, 90, 95), 1, nil, nil),
			caller: interactive, timeout: 120, attempts: 2, fit: 7, level: verdict.Good, code: CodeRecommendation,
			derivationHas: []string{"p99.9 of good responses and unanswered requests = 90 ms (n=2,001, 1 of them with no answer within 30 s, counted as slower"},
		},
		{
			name: "five samples: provisional, never good",
			ev:   evidence(Sample{4, 5, 5, 6, 6.5}, 0, nil, nil), caller: interactive,
			// 6.5 × 1.2 = 7.8 → 8.
			timeout: 8, attempts: 2, fit: 7, level: verdict.Provisional, code: CodeProvisional,
			headline: "provisional: timeout 8 ms, no separate connect timeout, 2 attempts (one retry) within the 10 s budget — 5 samples back it, a p99.9 needs 1,000: 995 more requests would settle it",
		},
		{
			name: "file descriptors exhausted: failed above the error rate",
			ev: func() Evidence {
				ev := evidence(tail(247, 2), 0, map[string]int64{"fd_limit": 553}, nil)
				ev.ErrorSamples["fd_limit"] = ErrorSample{Message: "dial tcp 127.0.0.1:80: socket: too many open files", Hint: ErrorHint("fd_limit", "")}
				return ev
			}(),
			caller: interactive, timeout: 2.5, attempts: 2, fit: 7, level: verdict.Bad, code: CodeErrorRate,
			headline: "69.1% of requests failed (fd_limit: 553): above the 5% --max-error-rate — the probe ran out of file descriptors (too many open files): lower -c or --max-in-flight, or raise ulimit -n",
		},
		{
			name: "a few 503s within --max-error-rate",
			ev:   evidence(fast, 0, nil, map[string]int64{"503": 20}), caller: interactive,
			timeout: 50, attempts: 2, fit: 7, level: verdict.Good, code: CodeRecommendation,
		},
		{
			name: "a single 503 with no failure allowed",
			ev:   evidence(fast, 0, nil, map[string]int64{"503": 1}), caller: interactive, opts: RecommendOptions{MaxErrorRate: NoFailuresAllowed},
			timeout: 50, attempts: 2, fit: 7, level: verdict.Bad, code: CodeErrorRate,
			headline: "0.02% of requests failed (503: 1): above the 0% --max-error-rate",
		},
		{
			name: "every response 404", ev: evidence(nil, 0, nil, map[string]int64{"404": 50}), caller: interactive,
			level: verdict.Bad, code: CodeNoGoodResponse, headline: "every response was 404 Not Found — is the URL right?",
		},
		{
			name: "every response 503", ev: evidence(nil, 0, nil, map[string]int64{"503": 50}), caller: interactive,
			level: verdict.Bad, code: CodeNoGoodResponse, headline: "every response was 503 Service Unavailable: the dependency is failing, nothing to base a timeout on",
		},
		{
			name: "every request refused",
			ev: func() Evidence {
				ev := evidence(nil, 0, map[string]int64{"refused": 5}, nil)
				ev.ErrorSamples["refused"] = ErrorSample{Message: "dial tcp 127.0.0.1:1: connect: connection refused"}
				return ev
			}(),
			caller: interactive, level: verdict.Bad, code: CodeAllFailed,
			headline: "every request failed (refused: 5): nothing measured: dial tcp 127.0.0.1:1: connect: connection refused",
		},
		{
			name: "every request hangs", ev: evidence(nil, 20, nil, nil), caller: interactive,
			level: verdict.Bad, code: CodeAllFailed, headline: "no request got an answer within 30 s: the dependency is failing, not slow",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := Recommend(tc.ev, tc.caller, tc.opts)
			all := strings.Join(rec.Derivation, "\n")
			if rec.TimeoutMs != tc.timeout || rec.ConnectTimeoutMs != tc.connect || rec.MaxAttempts != tc.attempts || rec.AttemptsFit != tc.fit {
				t.Errorf("got timeout %g connect %g attempts %d (fit %d), want %g %g %d (%d)\n%s",
					rec.TimeoutMs, rec.ConnectTimeoutMs, rec.MaxAttempts, rec.AttemptsFit, tc.timeout, tc.connect, tc.attempts, tc.fit, all)
			}
			v := rec.Verdict
			if v.Level != tc.level || len(v.Reasons) == 0 || v.Reasons[0].Code != tc.code {
				t.Errorf("verdict %+v, want level %s led by %s", v, tc.level, tc.code)
			}
			if tc.headline != "" && v.Headline() != tc.headline {
				t.Errorf("headline\n %q\nwant\n %q", v.Headline(), tc.headline)
			}
			if v.Level == verdict.Good && v.Has(CodeProvisional) {
				t.Errorf("a good verdict holds a provisional clause: %+v", v)
			}
			for _, want := range tc.derivationHas {
				if !strings.Contains(all, want) {
					t.Errorf("derivation lacks %q:\n%s", want, all)
				}
			}
		})
	}
}

// TestAdviseNeverRecommendsWhatCheckRejects: over many shapes of target and budget, the advice
// never holds a connect timeout at or above the total (PT002), never more than one retry for
// an interactive caller, never a retry of a non-idempotent call without a key (PT005), and a
// good verdict always has enough samples behind it.
func TestAdviseNeverRecommendsWhatCheckRejects(t *testing.T) {
	for _, slow := range []float64{0.3, 3, 40, 400, 900, 2500, 9000} {
		for _, n := range []int{5, 200, 1000, 5000} {
			for _, connect := range []float64{0.1, 300, 800} {
				for _, budget := range []time.Duration{300 * time.Millisecond, 2 * time.Second, 10 * time.Second, time.Minute} {
					for _, method := range []string{"GET", "POST", "PUT", "PATCH"} {
						for _, kind := range CallerKinds() {
							ev := evidence(tail(n, slow/4, slow), 0, nil, nil)
							ev.Connect = tail(50, connect/2, connect)
							rec := Recommend(ev, Caller{Kind: kind, Budget: budget, Method: method}, RecommendOptions{})
							name := fmt.Sprintf("%s %s slow=%g n=%d connect=%g budget=%v", kind, method, slow, n, connect, budget)
							if rec.ConnectTimeoutMs != 0 && rec.ConnectTimeoutMs >= rec.TimeoutMs {
								t.Errorf("%s: connect %g ≥ timeout %g", name, rec.ConnectTimeoutMs, rec.TimeoutMs)
							}
							if rec.MaxAttempts > InteractiveAttempts || (kind == CallerJob && rec.MaxAttempts > 1) {
								t.Errorf("%s: %d attempts", name, rec.MaxAttempts)
							}
							if !policy.IdempotentMethod(method) && rec.MaxAttempts > 1 {
								t.Errorf("%s: %d attempts without an Idempotency-Key", name, rec.MaxAttempts)
							}
							if rec.Job != nil && !policy.IdempotentMethod(method) && rec.Job.Tries > 1 {
								t.Errorf("%s: %d job tries without an Idempotency-Key", name, rec.Job.Tries)
							}
							if rec.Verdict.Level == verdict.Good && int64(n) < SamplesNeeded(1-DefaultCutoff) {
								t.Errorf("%s: good verdict from %d samples", name, n)
							}
							if rec.MaxAttempts > rec.AttemptsFit && kind == CallerInteractive {
								t.Errorf("%s: %d attempts, only %d fit", name, rec.MaxAttempts, rec.AttemptsFit)
							}
						}
					}
				}
			}
		}
	}
}

func TestAdviseJob(t *testing.T) {
	s := time.Second
	slow := tail(5000, 800, 4000, 4100, 4200, 4300, 4400, 4500) // p99.9 4 s → 4.8 s → 5 s call timeout
	for _, tc := range []struct {
		name       string
		caller     Caller
		ev         Evidence
		tries      int
		jobTimeout float64
		retryAfter float64
		giveUp     float64
		backoff    []float64
		level      Level
		has        []string
	}{
		{
			name: "the seeds' job: 5 s call, 20 s job, retry_after 90 s, six tries",
			// 6 × 20 s + (10 + 30 + 90 + 270 + 600) s × 1.25 = 120 + 1250 = 1370 s.
			caller: Caller{Kind: CallerJob, Method: "POST", IdempotencyKey: true}, ev: evidence(slow, 0, nil, nil),
			tries: 6, jobTimeout: 20000, retryAfter: 90000, giveUp: 1_370_000, backoff: []float64{10000, 30000, 90000, 270000, 600000}, level: verdict.Good,
			has: []string{"attempts: 1 per run of the job — the queue retries it", "backoff 10 s, 30 s, 1 min 30 s, 4 min 30 s, 10 min (×3 from 10 s, capped at 10 min) each + U[0, 25%] jitter", "give up after: 6 runs × 20 s + every delay at its jitter bound = 22 min 50 s"},
		},
		{
			name:   "a fast call still gets a job timeout with room",
			caller: Caller{Kind: CallerJob}, ev: evidence(tail(5000, 10, 39.6, 50, 60, 70, 80, 80), 0, nil, nil),
			tries: 6, jobTimeout: 5000, retryAfter: 90000, giveUp: 6*5000 + 1_250_000, backoff: []float64{10000, 30000, 90000, 270000, 600000}, level: verdict.Good,
		},
		{
			name:   "POST without a key: one try, left for a person",
			caller: Caller{Kind: CallerJob, Method: "POST"}, ev: evidence(slow, 0, nil, nil),
			tries: 1, jobTimeout: 20000, retryAfter: 90000, giveUp: 20000, backoff: []float64{}, level: verdict.Good,
			has: []string{"retry only with an Idempotency-Key"},
		},
		{
			name: "a 5 minute retry window holds four tries",
			// Worst cases: 4 tries 80 s + 12.5 + 37.5 + 112.5 s = 242.5 s; 5 tries 600 s.
			caller: Caller{Kind: CallerJob, Budget: 5 * time.Minute}, ev: evidence(slow, 0, nil, nil),
			tries: 4, jobTimeout: 20000, retryAfter: 90000, giveUp: 242_500, backoff: []float64{10000, 30000, 90000}, level: verdict.Good,
			has: []string{"the 5 min retry window holds 4"},
		},
		{
			name:   "a retry window shorter than one run",
			caller: Caller{Kind: CallerJob, Budget: 10 * s}, ev: evidence(slow, 0, nil, nil),
			level: verdict.Bad, has: []string{"the 10 s retry window cannot hold one 20 s run → 0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := Recommend(tc.ev, tc.caller, RecommendOptions{})
			all := strings.Join(rec.Derivation, "\n")
			if rec.Verdict.Level != tc.level {
				t.Errorf("level %s, want %s: %s", rec.Verdict.Level, tc.level, rec.Verdict.Text())
			}
			if tc.tries == 0 {
				if rec.Job != nil || rec.FitsBudget {
					t.Errorf("job %+v fits %v, want none", rec.Job, rec.FitsBudget)
				}
			} else {
				want := &JobDesign{Tries: tc.tries, BackoffMs: tc.backoff, Jitter: "proportional", JitterFactor: 0.25, TimeoutMs: tc.jobTimeout, RetryAfterMs: tc.retryAfter, GiveUpAfterMs: tc.giveUp}
				if diff := cmp.Diff(want, rec.Job); diff != "" {
					t.Errorf("job (-want +got):\n%s\n%s", diff, all)
				}
				if rec.MaxAttempts != 1 {
					t.Errorf("%d in-run attempts, want 1: the queue retries", rec.MaxAttempts)
				}
			}
			for _, h := range tc.has {
				if !strings.Contains(all, h) {
					t.Errorf("derivation lacks %q:\n%s", h, all)
				}
			}
		})
	}
}

func TestCensoredQuantile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		good     Sample
		noAnswer int64
		q        float64
		v        float64
		beyond   bool
		ok       bool
	}{
		{"uncensored p90 of 10", Sample{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0, 0.9, 9, false, true},
		{"too few for p90", Sample{1, 2, 3}, 0, 0.9, 0, false, false},
		{"unanswered count towards the samples needed", Sample{1, 2, 3, 4, 5, 6, 7, 8}, 2, 0.9, 0, true, true},
		{"one unanswered of 20 leaves p90 among the answers", tail(19, 1, 5), 1, 0.9, 1, false, true},
		{"half unanswered: p50 is the last answer", tail(10, 3), 10, 0.5, 3, false, true},
		{"more than half unanswered: p50 beyond", tail(9, 3), 11, 0.5, 0, true, true},
	} {
		v, beyond, ok := CensoredQuantile(tc.good, tc.noAnswer, tc.q)
		if v != tc.v || beyond != tc.beyond || ok != tc.ok {
			t.Errorf("%s: got %g beyond=%v ok=%v, want %g %v %v", tc.name, v, beyond, ok, tc.v, tc.beyond, tc.ok)
		}
	}
}

// TestVerdictOrderAndLegacy: the most serious clause leads whatever order they were added in,
// and a profile's plain-string verdict still loads.
func TestVerdictOrderAndLegacy(t *testing.T) {
	var v Verdict
	v.Add(CodeProvisional, verdict.Provisional, "p")
	v.Add(CodeErrorRate, verdict.Bad, "e")
	v.Add(CodeRecommendation, verdict.Good, "g")
	v.Add(CodeNoAnswer, verdict.Bad, "n")
	var codes []string
	for _, r := range v.Reasons {
		codes = append(codes, r.Code)
	}
	if want := []string{CodeErrorRate, CodeNoAnswer, CodeProvisional, CodeRecommendation}; !slices.Equal(codes, want) || v.Level != verdict.Bad {
		t.Errorf("order %v level %s, want %v bad", codes, v.Level, want)
	}
	var old Recommendation
	if err := json.Unmarshal([]byte(`{"verdict": "timeout 50 ms"}`), &old); err != nil || old.Verdict.Text() != "timeout 50 ms" {
		t.Errorf("legacy verdict: %+v, %v", old.Verdict, err)
	}
	var cur Recommendation
	if err := json.Unmarshal([]byte(`{"verdict": {"level": "bad", "reasons": [{"code": "no_answer", "level": "bad", "text": "x"}]}}`), &cur); err != nil || !cur.Verdict.Has(CodeNoAnswer) || cur.Verdict.Level != verdict.Bad {
		t.Errorf("verdict: %+v, %v", cur.Verdict, err)
	}
}

// TestAdviseBasis: the recommendation carries the latency it was derived from and, when that
// is a quantile, its confidence interval (open above when nothing bounds it).
func TestAdviseBasis(t *testing.T) {
	// 5000 samples: ranks 4995.. hold the tail; the 95% CI of p99.9 spans ranks 4990–4999.
	bounded := evidence(tail(5000, 10, 36.2, 37, 38, 39, 39.3, 39.6, 40, 50, 60, 70, 80), 0, nil, nil)
	r := Recommend(bounded, Caller{}, RecommendOptions{})
	low, high, open := QuantileCI(5000, 0.999, 0.95)
	if open || r.BasisMs != 39.6 || r.BasisCILowMs == nil || *r.BasisCILowMs != bounded.Good.AtRank(low) || r.BasisCIHighMs == nil || *r.BasisCIHighMs != bounded.Good.AtRank(high) {
		t.Errorf("bounded: basis %v, CI %v–%v (ranks %d–%d); want 39.6 and the values at those ranks", r.BasisMs, r.BasisCILowMs, r.BasisCIHighMs, low, high)
	}
	if r := Recommend(evidence(tail(1000, 10, 420, 481), 0, nil, nil), Caller{}, RecommendOptions{}); r.BasisCILowMs == nil || r.BasisCIHighMs != nil {
		t.Errorf("1000 samples: CI %v–%v; want a low bound and null above", r.BasisCILowMs, r.BasisCIHighMs)
	}
	if r := Recommend(evidence(tail(200, 90, 120), 0, nil, nil), Caller{}, RecommendOptions{}); r.BasisMs != 120 || r.BasisCILowMs != nil || r.BasisCIHighMs != nil {
		t.Errorf("too few: basis %v, CI %v–%v; want the slowest, 120, and no interval", r.BasisMs, r.BasisCILowMs, r.BasisCIHighMs)
	}
}

func TestSamplesToBound(t *testing.T) {
	// 0.999^n ≤ 0.025 ⇔ n ≥ ln 0.025 / ln 0.999 = 3687.1; 0.99: 367.04.
	for q, want := range map[float64]int64{0.999: 3688, 0.99: 368} {
		if got := SamplesToBound(q, 0.95); got != want {
			t.Errorf("SamplesToBound(%g) = %d, want %d", q, got, want)
		}
	}
}

// TestRecommendReadTimeout: the read timeout is derived from the silence phase as the total
// is from the total latency — the quantile 1 − cutoff of the good responses' longest silence,
// unanswered requests counted as longer, × headroom, on the ladder — and is never above the
// total; each case's derivation line says which way it went.
func TestRecommendReadTimeout(t *testing.T) {
	slowTotal := tail(5000, 100, 1500, 1600, 1700, 1800, 1900, 2000) // p99.9 (rank 4995) = 1.5 s: 1.8 → 2 s total
	withSilence := func(ev Evidence, s Latencies) Evidence { ev.Silence = s; return ev }
	for _, tc := range []struct {
		name  string
		ev    Evidence
		total float64
		read  *float64 // nil: none derived
		has   []string
		// noLine: no total was derived, so no read timeout line either.
		noLine bool
	}{
		{
			name: "a log that times no silence: not derivable, said so",
			ev:   evidence(slowTotal, 0, nil, nil), total: 2000,
			has: []string{NoSilenceMeasured},
		},
		{
			name: "a dripping body: the longest pause is well below the total",
			// 400 ms × 1.2 = 480 → 500 ms; 500 × 1.2 < 2 s.
			ev:    withSilence(evidence(slowTotal, 0, nil, nil), tail(5000, 50, 400, 410, 420, 430, 440, 450)),
			total: 2000, read: ptr(500),
			has: []string{"read timeout: p99.9 of the longest silence of each good response (its wait for the first byte or its longest pause between two reads, whichever is longer) = 400 ms (n=5,000; 95% CI 50 ms–450 ms)",
				"× 1.2 headroom = 480 ms → 500 ms, below the 2 s total timeout: it ends a stalled response early", "check's PT001"},
		},
		{
			name: "the wait for the head is the whole response: read ≈ total",
			// 1.45 s × 1.2 = 1.74 → 2 s = the total.
			ev:    withSilence(evidence(slowTotal, 0, nil, nil), tail(5000, 99, 1450, 1550, 1650, 1750, 1850, 1950)),
			total: 2000, read: ptr(2000),
			has: []string{"→ 2 s; read = total: rounded, the longest silences reach the total timeout here", "leave it out where the client has a total (one at or above it is check's PT015)", "Python requests' timeout=(connect, read)"},
		},
		{
			name: "one ladder step below the total, within the headroom: still ≈",
			// Total: 950 ms × 1.2 = 1.14 → 1.2 s. Read: 800 ms × 1.2 = 960 → 1 s; 1 × 1.2 ≥ 1.2 s.
			ev:    withSilence(evidence(tail(5000, 80, 950, 950, 950, 950, 950, 950), 0, nil, nil), tail(5000, 80, 800, 800, 800, 800, 800, 800)),
			total: 1200, read: ptr(1000),
			has: []string{"→ 1 s; read ≈ total (within the 1.2 headroom of the 1.2 s total)", "ends few responses sooner"},
		},
		{
			name:  "silences longer than the totals (inconsistent inputs): capped at the total",
			ev:    withSilence(evidence(slowTotal, 0, nil, nil), tail(5000, 100, 3000, 3000, 3000, 3000, 3000, 3000)),
			total: 2000, read: ptr(2000),
			has: []string{"3.6 s → 4 s, capped at the 2 s total timeout (a read timeout at or above the total never fires: check's PT015); read = total"},
		},
		{
			name: "too few samples: the longest silence seen, a lower bound",
			// 6 × 1.2 = 7.2 → 8 ms, total 8 ms (6.5 × 1.2 = 7.8 → 8): read ≈ total.
			ev:    withSilence(evidence(Sample{4, 5, 5, 6, 6.5}, 0, nil, nil), Sample{3, 4, 4, 5, 6}),
			total: 8, read: ptr(8),
			has: []string{"read timeout: p99.9 needs ≥ 1000 samples, have 5; basis is the longest silence seen (a response's wait for the first byte", "6 ms (a lower bound on p99.9)"},
		},
		{
			name: "one hang within the cut-off counts as the longest silence",
			// 2001 requests, rank 1999 is the silence at 60 ms: 72 → 80 ms; total 120 ms.
			ev:    withSilence(evidence(tail(2000, 20, 90, 95), 1, nil, nil), tail(2000, 10, 60, 70)),
			total: 120, read: ptr(80),
			has: []string{"= 60 ms (n=2,001, 1 of them with no answer within 30 s, counted as longer"},
		},
		{
			name: "good responses without a silence stamp: the quantile among the unanswered",
			// The total's rank 1999 of 2001 is a good response; the silence's 2001 values are
			// 1998 stamped and 3 unanswered, so rank 1999 is unanswered.
			ev:    withSilence(evidence(tail(2000, 20, 90, 95), 3, nil, nil), tail(1998, 10, 60)),
			total: 0,
		},
		{
			name:  "too few samples and some unanswered: none",
			ev:    withSilence(evidence(Sample{4, 5}, 1, nil, nil), Sample{3, 4}),
			total: 0,
		},
		{
			name: "no total derived (no good response): no read timeout either, no line",
			ev:   withSilence(evidence(nil, 0, nil, map[string]int64{"503": 50}), Sample{1}), noLine: true,
		},
		{
			name: "no total derived (the tail beyond --max-timeout): no read timeout",
			ev:   withSilence(evidence(tail(42, 150), 38, nil, nil), tail(42, 100)), noLine: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := Recommend(tc.ev, Caller{}, RecommendOptions{})
			all := strings.Join(rec.Derivation, "\n")
			if tc.total != 0 && rec.TimeoutMs != tc.total {
				t.Fatalf("total %g, want %g\n%s", rec.TimeoutMs, tc.total, all)
			}
			switch {
			case tc.read == nil && rec.ReadTimeoutMs != nil:
				t.Errorf("read timeout %g, want none\n%s", *rec.ReadTimeoutMs, all)
			case tc.read != nil && (rec.ReadTimeoutMs == nil || *rec.ReadTimeoutMs != *tc.read):
				t.Errorf("read timeout %v, want %g\n%s", rec.ReadTimeoutMs, *tc.read, all)
			}
			if rec.ReadTimeoutMs != nil && *rec.ReadTimeoutMs > rec.TimeoutMs {
				t.Errorf("read timeout %g above the %g total", *rec.ReadTimeoutMs, rec.TimeoutMs)
			}
			for _, want := range tc.has {
				if !strings.Contains(all, want) {
					t.Errorf("derivation lacks %q:\n%s", want, all)
				}
			}
			if tc.noLine && (rec.TimeoutMs != 0 || strings.Contains(all, "read timeout")) {
				t.Errorf("total %g: want none, and no read timeout line:\n%s", rec.TimeoutMs, all)
			}
		})
	}
}

// TestReadTimeoutJSON: read_timeout_ms is a number beside timeout_ms, and null when none was
// derived — never 0 (docs/design.md §3).
func TestReadTimeoutJSON(t *testing.T) {
	ev := evidence(tail(5000, 100, 1500, 1500, 1500, 1500, 1500, 1500), 0, nil, nil) // 2 s total
	for _, tc := range []struct {
		silence Latencies
		want    string
	}{
		{nil, `"read_timeout_ms":null`},
		{tail(5000, 50, 400, 400, 400, 400, 400, 400), `"read_timeout_ms":500`},
	} {
		ev.Silence = tc.silence
		b, err := json.Marshal(Recommend(ev, Caller{}, RecommendOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"timeout_ms":2000,`+tc.want+`,`) {
			t.Errorf("JSON %s, want timeout_ms then %s", b, tc.want)
		}
	}
}
