package probe

import (
	"strings"
	"testing"
	"time"
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

func TestAdvise(t *testing.T) {
	base := AdviceInput{Cutoff: 0.001, Headroom: 1.2, Budget: 10 * time.Second, ConnectFloor: 1100 * time.Millisecond, MaxTimeout: 30 * time.Second}
	for _, tc := range []struct {
		name             string
		in               func(AdviceInput) AdviceInput
		timeout, connect float64
		attempts         int
		fits             bool
		verdict          string
		derivationHas    []string
	}{
		{
			name: "enough samples, connect clamped to the timeout",
			in: func(in AdviceInput) AdviceInput {
				in.Good, in.GoodAtQ, in.GoodMax = 5000, 39.6, 80
				in.GoodCILow, in.GoodCIHigh = 36.2, 80
				in.ConnectCount, in.ConnectP999 = 2000, 0.3
				return in
			},
			// 39.6 × 1.2 = 47.52 → 50; connect max(0.9, 1100) = 1100 → clamped to 50; k = 7.
			timeout: 50, connect: 50, attempts: 7, fits: true,
			verdict:       "timeout 50 ms, connect timeout 50 ms, 7 attempts within the 10 s budget",
			derivationHas: []string{"p99.9 of good responses = 39.6 ms (n=5000; 95% CI 36.2 ms–80 ms) × 1.2 headroom = 47.5 ms → 50 ms", "a lost SYN (1 s retransmit) will cost an attempt", "k=7 costs 6.65 s, k=8 would cost 13.1 s"},
		},
		{
			name: "p99.9 reported but not bounded from above",
			in: func(in AdviceInput) AdviceInput {
				in.Good, in.GoodAtQ, in.GoodMax = 1000, 420, 481
				in.GoodCILow, in.GoodCIHighOpen = 380, true
				return in
			},
			// 420 × 1.2 = 504 → 600; 10 s: 6 × 600 + 3100 = 6700, 7 × 600 + 6300 > 10 s → 6.
			timeout: 600, connect: 600, attempts: 6, fits: true,
			derivationHas: []string{"p99.9 of good responses = 420 ms (n=1000; 95% CI from 380 ms, open above: 3688 or more responses bound it)"},
		},
		{
			name: "too few samples for p99.9: the slowest seen is the basis",
			in: func(in AdviceInput) AdviceInput {
				in.Good, in.GoodAtQ, in.GoodMax = 200, 90, 120
				in.Budget = 2 * time.Second
				return in
			},
			// 120 × 1.2 = 144 → 150; no connect samples → floor 1100 → clamped 150;
			// 2 s budget: 5 × 150 + 100+200+400+800 = 2250 > 2000;
			// 4 × 150 + 700 = 1300 ≤ 2000 → 4.
			timeout: 150, connect: 150, attempts: 4, fits: true,
			derivationHas: []string{"p99.9 needs ≥ 1000 good responses, have 200", "probe with -n 1000", "no fresh connection was measured"},
		},
		{
			name: "budget cannot hold one call",
			in: func(in AdviceInput) AdviceInput {
				in.Good, in.GoodAtQ = 5000, 1300
				in.Budget = 1500 * time.Millisecond
				return in
			},
			// 1300 × 1.2 = 1560 → 2000 > 1500 → 0 attempts.
			timeout: 2000, connect: 1100, attempts: 0, fits: false, verdict: QueueVerdict,
			derivationHas: []string{"more than the 1.5 s budget → 0"},
		},
		{
			name: "slow connects above the floor",
			in: func(in AdviceInput) AdviceInput {
				in.Good, in.GoodAtQ = 5000, 2000
				in.ConnectCount, in.ConnectP999 = 1000, 500
				return in
			},
			// 2000 × 1.2 = 2400 → 2500; connect 3 × 500 = 1500 → 1500 (on the ladder);
			// 10 s: 3 × 2500 + 100+200 = 7800 ≤ 10000, 4 × 2500 + 700 > 10000 → 3 attempts.
			timeout: 2500, connect: 1500, attempts: 3, fits: true,
			derivationHas: []string{"3 × connect p99.9 500 ms (n=1000) = 1.5 s, above the 1.1 s floor → 1.5 s"},
		},
		{
			name: "timeouts above the cutoff are flagged",
			in: func(in AdviceInput) AdviceInput {
				in.Good, in.GoodAtQ, in.Timeouts = 1000, 100, 10
				return in
			},
			// 100 × 1.2 = 120 → 120, connect clamped to 120; 10 s: 7 × 120 + 6300 = 7140 ≤ 10000,
			// 8 × 120 + 12700 > 10000 → 7.
			timeout: 120, connect: 120, attempts: 7, fits: true,
			derivationHas: []string{"10 requests (0.99%) hit the probe's own --max-timeout 30 s"},
		},
		{
			name:    "nothing measured",
			in:      func(in AdviceInput) AdviceInput { return in },
			verdict: "no good response was measured: nothing to base a timeout on",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := Advise(tc.in(base))
			if rec.TimeoutMs != tc.timeout || rec.ConnectTimeoutMs != tc.connect || rec.MaxAttempts != tc.attempts || rec.FitsBudget != tc.fits {
				t.Errorf("got timeout %g connect %g attempts %d fits %v, want %g %g %d %v\n%s",
					rec.TimeoutMs, rec.ConnectTimeoutMs, rec.MaxAttempts, rec.FitsBudget, tc.timeout, tc.connect, tc.attempts, tc.fits, strings.Join(rec.Derivation, "\n"))
			}
			if tc.verdict != "" && rec.Verdict != tc.verdict {
				t.Errorf("verdict %q, want %q", rec.Verdict, tc.verdict)
			}
			all := strings.Join(rec.Derivation, "\n")
			for _, want := range tc.derivationHas {
				if !strings.Contains(all, want) {
					t.Errorf("derivation lacks %q:\n%s", want, all)
				}
			}
		})
	}
}

func TestFormatMs(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{{0.2144, "0.214 ms"}, {13.471, "13.5 ms"}, {450.4, "450 ms"}, {1100, "1.1 s"}, {30000, "30 s"}, {6650, "6.65 s"}} {
		if got := FormatMs(tc.in); got != tc.want {
			t.Errorf("FormatMs(%g) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAdviseBasis: the recommendation carries the latency it was derived from and, when that
// is a quantile, its confidence interval (open above when nothing bounds it).
func TestAdviseBasis(t *testing.T) {
	base := AdviceInput{Cutoff: 0.001, Budget: 10 * time.Second, ConnectFloor: DefaultConnectFloor}
	bounded := base
	bounded.Good, bounded.GoodAtQ, bounded.GoodMax, bounded.GoodCILow, bounded.GoodCIHigh = 5000, 39.6, 80, 36.2, 80
	r := Advise(bounded)
	if r.BasisMs != 39.6 || r.BasisCILowMs == nil || *r.BasisCILowMs != 36.2 || r.BasisCIHighMs == nil || *r.BasisCIHighMs != 80 {
		t.Errorf("bounded: basis %v, CI %v–%v; want 39.6, 36.2–80", r.BasisMs, r.BasisCILowMs, r.BasisCIHighMs)
	}
	open := bounded
	open.GoodCIHighOpen = true
	if r := Advise(open); r.BasisCILowMs == nil || r.BasisCIHighMs != nil {
		t.Errorf("open: CI %v–%v; want 36.2 and null", r.BasisCILowMs, r.BasisCIHighMs)
	}
	few := base
	few.Good, few.GoodAtQ, few.GoodMax = 200, 90, 120
	if r := Advise(few); r.BasisMs != 120 || r.BasisCILowMs != nil || r.BasisCIHighMs != nil {
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
