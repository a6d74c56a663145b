package policy

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

const ms = time.Millisecond

func TestBackoffDelay(t *testing.T) {
	tests := []struct {
		name string
		r    Retry
		n    int
		want time.Duration
	}{
		{"none", Retry{Backoff: BackoffNone, Base: 100 * ms}, 3, 0},
		{"empty kind is none", Retry{Base: 100 * ms}, 3, 0},
		{"constant n=1", Retry{Backoff: BackoffConstant, Base: 2 * time.Second}, 1, 2 * time.Second},
		{"constant n=7", Retry{Backoff: BackoffConstant, Base: 2 * time.Second}, 7, 2 * time.Second},
		{"linear n=1", Retry{Backoff: BackoffLinear, Base: 100 * ms}, 1, 100 * ms},
		{"linear n=4", Retry{Backoff: BackoffLinear, Base: 100 * ms}, 4, 400 * ms},
		{"linear capped", Retry{Backoff: BackoffLinear, Base: 100 * ms, Cap: 250 * ms}, 4, 250 * ms},
		// 100ms·2^(n−1): 100, 200, 400, 800, 1600, …
		{"exponential n=1", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2}, 1, 100 * ms},
		{"exponential n=2", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2}, 2, 200 * ms},
		{"exponential n=4", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2}, 4, 800 * ms},
		{"exponential n=0 reads as 1", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2}, 0, 100 * ms},
		// cap 10s: 100ms·2^6 = 6.4s, 100ms·2^7 = 12.8s → 10s
		{"exponential below cap", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 10 * time.Second}, 7, 6400 * ms},
		{"exponential at cap", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 10 * time.Second}, 8, 10 * time.Second},
		{"exponential far past cap", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 10 * time.Second}, 10000, 10 * time.Second},
		// cenkalti: 500ms·1.5^(n−1): 500, 750, 1125, 1687.5
		{"exponential ×1.5 n=3", Retry{Backoff: BackoffExponential, Base: 500 * ms, Multiplier: 1.5}, 3, 1125 * ms},
		{"exponential ×1.5 n=4", Retry{Backoff: BackoffExponential, Base: 500 * ms, Multiplier: 1.5}, 4, 1687500 * time.Microsecond},
		{"exponential default multiplier", Retry{Backoff: BackoffExponential, Base: time.Second}, 3, 4 * time.Second},
		{"exponential uncapped overflow", Retry{Backoff: BackoffExponential, Base: time.Second, Multiplier: 2}, 200, MaxWait},
		{"linear uncapped overflow", Retry{Backoff: BackoffLinear, Base: time.Hour}, math.MaxInt, MaxWait},
		// retryablehttp-like list 1,2,4,8 s and the shipping queue 10/30/90/270/600 s
		{"list n=1", Retry{Backoff: BackoffList, Delays: []time.Duration{10 * time.Second, 30 * time.Second, 90 * time.Second}}, 1, 10 * time.Second},
		{"list n=3", Retry{Backoff: BackoffList, Delays: []time.Duration{10 * time.Second, 30 * time.Second, 90 * time.Second}}, 3, 90 * time.Second},
		{"list past its end", Retry{Backoff: BackoffList, Delays: []time.Duration{10 * time.Second, 30 * time.Second, 90 * time.Second}}, 9, 90 * time.Second},
		{"list empty", Retry{Backoff: BackoffList}, 2, 0},
		{"list ignores cap", Retry{Backoff: BackoffList, Cap: time.Second, Delays: []time.Duration{5 * time.Second}}, 1, 5 * time.Second},
		// decorrelated with nil rng gives the midpoint of U[base, 3·prev]
		{"decorrelated s0 midpoint", Retry{Backoff: BackoffDecorrelated, Base: 100 * ms}, 1, 200 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.BackoffDelay(tt.n, 0, nil); got != tt.want {
				t.Errorf("BackoffDelay(%d) = %v, want %v", tt.n, got, tt.want)
			}
		})
	}
}

// TestDecorrelatedBounds checks s_n ∈ [base, min(cap, 3·s_(n−1))] along chains of draws, and
// that the draws do reach both ends of the interval.
func TestDecorrelatedBounds(t *testing.T) {
	r := Retry{Backoff: BackoffDecorrelated, Base: 100 * ms, Cap: 5 * time.Second}
	rng := rand.New(rand.NewPCG(1, 2))
	var sawCap, sawLow bool
	for chain := 0; chain < 2000; chain++ {
		prev := time.Duration(0)
		for n := 1; n <= 12; n++ {
			s := r.BackoffDelay(n, prev, rng)
			p := prev
			if p <= 0 {
				p = r.Base
			}
			hi := min(r.Cap, 3*p)
			if s < r.Base || s > hi {
				t.Fatalf("chain %d n=%d: s=%v outside [%v, %v]", chain, n, s, r.Base, hi)
			}
			if s == r.Cap {
				sawCap = true
			}
			if s < r.Base+10*ms {
				sawLow = true
			}
			prev = s
		}
	}
	if !sawCap || !sawLow {
		t.Errorf("draws never reached cap (%v) or the low end (%v)", sawCap, sawLow)
	}
	// A cap below base still yields the cap (min(cap, …)), never more.
	low := Retry{Backoff: BackoffDecorrelated, Base: time.Second, Cap: 500 * ms}
	if got := low.BackoffDelay(1, 0, rng); got != 500*ms {
		t.Errorf("cap below base: got %v, want 500ms", got)
	}
}

// TestDecorrelatedMean: s_1 = U[base, 3·base] has mean 2·base and sd base·2/√12 per draw.
func TestDecorrelatedMean(t *testing.T) {
	r := Retry{Backoff: BackoffDecorrelated, Base: 100 * ms}
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 20000
	var sum float64
	for i := 0; i < n; i++ {
		sum += float64(r.BackoffDelay(1, 0, rng))
	}
	mean := sum / n
	want := float64(200 * ms)
	se := float64(200*ms) / math.Sqrt(12) / math.Sqrt(n)
	if math.Abs(mean-want) > 5*se {
		t.Errorf("mean s_1 = %v, want %v ± %v", time.Duration(mean), time.Duration(want), time.Duration(5*se))
	}
}

// TestJitterBoundsAndMeans draws each jitter kind many times from d = 1s and checks every draw
// lies in the kind's interval and the sample mean is within 5 standard errors of the
// interval's midpoint (a uniform draw over width w has sd w/√12).
func TestJitterBoundsAndMeans(t *testing.T) {
	d := time.Second
	tests := []struct {
		name   string
		r      Retry
		lo, hi time.Duration
	}{
		{"none", Retry{Jitter: JitterNone}, d, d},
		{"empty is none", Retry{}, d, d},
		{"full", Retry{Jitter: JitterFull}, 0, d},
		{"equal", Retry{Jitter: JitterEqual}, d / 2, d},
		{"proportional 0.25", Retry{Jitter: JitterProportional, JitterFactor: 0.25}, d, 1250 * ms},
		{"proportional 0 is none", Retry{Jitter: JitterProportional}, d, d},
		{"randomized ±50%", Retry{Jitter: JitterRandomized, JitterFactor: 0.5}, 500 * ms, 1500 * ms},
		{"randomized f>1 capped at 1", Retry{Jitter: JitterRandomized, JitterFactor: 3}, 0, 2 * d},
	}
	const n = 20000
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 99))
			var sum float64
			gotLo, gotHi := MaxWait, time.Duration(-1)
			for k := 0; k < n; k++ {
				j := tt.r.Jittered(d, rng)
				if j < tt.lo || j > tt.hi {
					t.Fatalf("draw %v outside [%v, %v]", j, tt.lo, tt.hi)
				}
				gotLo, gotHi = min(gotLo, j), max(gotHi, j)
				sum += float64(j)
			}
			mean := sum / n
			mid := float64(tt.lo+tt.hi) / 2
			se := float64(tt.hi-tt.lo) / math.Sqrt(12) / math.Sqrt(n)
			if math.Abs(mean-mid) > 5*se+1 {
				t.Errorf("mean %v, want %v ± %v", time.Duration(mean), time.Duration(mid), time.Duration(5*se))
			}
			// The draws must spread over most of the interval (not stuck at one end).
			if w := tt.hi - tt.lo; w > 0 && (gotLo-tt.lo > w/100 || tt.hi-gotHi > w/100) {
				t.Errorf("draws spanned [%v, %v] of [%v, %v]", gotLo, gotHi, tt.lo, tt.hi)
			}
			// nil rng: the mean of the draw, exactly.
			if got, want := tt.r.Jittered(d, nil), (tt.lo+tt.hi)/2; got != want {
				t.Errorf("nil rng: %v, want %v", got, want)
			}
		})
	}
}

func TestJitteredZeroAndNegative(t *testing.T) {
	for _, j := range Jitters() {
		r := Retry{Jitter: j, JitterFactor: 0.5}
		rng := rand.New(rand.NewPCG(1, 1))
		if got := r.Jittered(0, rng); got != 0 {
			t.Errorf("%s: Jittered(0) = %v", j, got)
		}
		if got := r.Jittered(-time.Second, rng); got != 0 {
			t.Errorf("%s: Jittered(-1s) = %v", j, got)
		}
	}
}

func TestMaxDelay(t *testing.T) {
	tests := []struct {
		name string
		r    Retry
		n    int
		want time.Duration
	}{
		{"exponential full jitter", Retry{Backoff: BackoffExponential, Base: time.Second, Multiplier: 2, Cap: 20 * time.Second, Jitter: JitterFull}, 3, 4 * time.Second},
		{"exponential at cap", Retry{Backoff: BackoffExponential, Base: time.Second, Multiplier: 2, Cap: 20 * time.Second, Jitter: JitterFull}, 9, 20 * time.Second},
		{"proportional 25%", Retry{Backoff: BackoffList, Delays: []time.Duration{10 * time.Second}, Jitter: JitterProportional, JitterFactor: 0.25}, 1, 12500 * ms},
		{"randomized 50%", Retry{Backoff: BackoffConstant, Base: 2 * time.Second, Jitter: JitterRandomized, JitterFactor: 0.5}, 1, 3 * time.Second},
		{"decorrelated 3^n", Retry{Backoff: BackoffDecorrelated, Base: 100 * ms}, 2, 900 * ms},
		{"decorrelated capped", Retry{Backoff: BackoffDecorrelated, Base: 100 * ms, Cap: time.Second}, 5, time.Second},
	}
	for _, tt := range tests {
		if got := tt.r.MaxDelay(tt.n); got != tt.want {
			t.Errorf("%s: MaxDelay(%d) = %v, want %v", tt.name, tt.n, got, tt.want)
		}
	}
}
