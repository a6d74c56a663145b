package storm

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

func TestFluidBound(t *testing.T) {
	tests := []struct {
		capacity float64
		attempts []int
		want     float64
	}{
		{300, []int{4}, 75},
		{300, []int{1}, 300},
		{640, []int{4, 4, 4}, 10},
		{180, []int{3, 6}, 10},
	}
	for _, tt := range tests {
		if got := FluidBound(tt.capacity, tt.attempts); got != tt.want {
			t.Errorf("FluidBound(%g, %v) = %g, want %g", tt.capacity, tt.attempts, got, tt.want)
		}
	}
}

func TestFluidHorizonBound(t *testing.T) {
	// Default quick model: C=300, N=4, T=1s, a 10 s stall ending at 40 s, arrivals until
	// 180 s: H = 140, H' = 105, bound = 300·106 / (4·115) = 69.13.
	got := FluidHorizonBound(300, 4, time.Second, 10*time.Second, 140*time.Second)
	if math.Abs(got-300.0*106/(4*115)) > 1e-9 {
		t.Errorf("FluidHorizonBound = %g, want %g", got, 300.0*106/(4*115))
	}
	// The bound grows toward C/N with the horizon and never passes it...
	long := FluidHorizonBound(300, 4, time.Second, 10*time.Second, 100*time.Hour)
	if long > 75 || long < 74.9 {
		t.Errorf("long-horizon bound = %g, want just under 75", long)
	}
	// ...and is 0 when the horizon cannot hold the judge.
	if got := FluidHorizonBound(300, 4, time.Second, 10*time.Second, 30*time.Second); got != 0 {
		t.Errorf("30 s horizon = %g, want 0", got)
	}
	// At the bound the drain takes exactly H' seconds.
	rate := FluidHorizonBound(300, 4, time.Second, 10*time.Second, 140*time.Second)
	if d := FluidDrain(300, rate, 4, time.Second, 10*time.Second); math.Abs(d.Seconds()-105) > 1e-6 {
		t.Errorf("drain at the horizon bound = %s, want 105s", d)
	}
}

func TestFluidDrain(t *testing.T) {
	s := time.Second
	tests := []struct {
		name     string
		rate     float64
		n        int
		stall    time.Duration
		wantSecs float64
	}{
		// λ=37.5, N=4: backlog 37.5·4·10 − 300 = 1200, drains at 300 − 150 = 150/s: 8 s.
		{"half the bound", 37.5, 4, 10 * s, 8},
		// No retries at λ=112.5: backlog 1125 − 300 = 825 at 187.5/s: 4.4 s.
		{"no retries", 112.5, 1, 10 * s, 4.4},
		// λ·N ≥ C: never.
		{"above the bound", 112.5, 4, 10 * s, -1},
		// 2.5·4·10 = 100 < 300: the stall never pushed the delay past the timeout.
		{"trigger too small", 2.5, 4, 10 * s, 0},
	}
	for _, tt := range tests {
		got := FluidDrain(300, tt.rate, tt.n, time.Second, tt.stall)
		if tt.wantSecs < 0 {
			if got >= 0 {
				t.Errorf("%s: FluidDrain = %v, want never (negative)", tt.name, got)
			}
			continue
		}
		if math.Abs(got.Seconds()-tt.wantSecs) > 1e-6 {
			t.Errorf("%s: FluidDrain = %v, want %gs", tt.name, got, tt.wantSecs)
		}
	}
}

func TestBisect(t *testing.T) {
	threshold := 71.3
	monotone := func(_ context.Context, r float64) (bool, error) { return r < threshold, nil }
	b, err := Bisect(context.Background(), monotone, 6, 300, 6)
	if err != nil {
		t.Fatal(err)
	}
	if b.StableBelowPerS > threshold || threshold-b.StableBelowPerS > 6 {
		t.Errorf("stable below = %g, want within 6 under %g", b.StableBelowPerS, threshold)
	}
	if b.FirstFailurePerS == nil || *b.FirstFailurePerS < threshold || *b.FirstFailurePerS-b.StableBelowPerS > 6 {
		t.Errorf("first failure = %v", b.FirstFailurePerS)
	}
	// 6, 12, 24, 48 recover, 96 fails; then 72 fails, 60 and 66 recover: [66, 72].
	if b.Runs != 8 || b.StableBelowPerS != 66 || *b.FirstFailurePerS != 72 {
		t.Errorf("runs = %d, want 8", b.Runs)
	}

	all, _ := Bisect(context.Background(), func(context.Context, float64) (bool, error) { return true, nil }, 6, 300, 6)
	if all.StableBelowPerS != 300 || all.FirstFailurePerS != nil || all.Runs != 7 {
		t.Errorf("always recovers: %+v", all)
	}
	none, _ := Bisect(context.Background(), func(context.Context, float64) (bool, error) { return false, nil }, 6, 300, 6)
	if none.StableBelowPerS != 0 || none.FirstFailurePerS == nil || *none.FirstFailurePerS != 6 || none.Runs != 1 {
		t.Errorf("never recovers: %+v", none)
	}
	boom := errors.New("boom")
	if _, err := Bisect(context.Background(), func(context.Context, float64) (bool, error) { return false, boom }, 6, 300, 6); !errors.Is(err, boom) {
		t.Errorf("error = %v, want boom", err)
	}
	if _, err := Bisect(context.Background(), monotone, 0, 300, 6); err == nil {
		t.Error("lo = 0 accepted")
	}
}

func TestLayeredAndOverride(t *testing.T) {
	p := Layered("x", []int{4, 4, 4}, time.Second)
	if got := Attempts(p); !cmp.Equal(got, []int{4, 4, 4}) {
		t.Errorf("Attempts = %v", got)
	}
	if p.Timeout != time.Second || p.Layers[0].Policy.Timeout != 0 {
		t.Errorf("timeouts: bottom %s, top %s", p.Timeout, p.Layers[0].Policy.Timeout)
	}
	q := Override(p, 2*time.Second, []int{3, 6})
	if got := Attempts(q); !cmp.Equal(got, []int{3, 6}) {
		t.Errorf("override attempts = %v", got)
	}
	if q.Timeout != 2*time.Second {
		t.Errorf("override timeout = %s", q.Timeout)
	}
	// The original is untouched.
	if got := Attempts(p); !cmp.Equal(got, []int{4, 4, 4}) || p.Timeout != time.Second {
		t.Errorf("original changed: %v %s", got, p.Timeout)
	}
	// A single-layer preset gains layers.
	r := Override(&policy.Policy{Name: "preset:none"}, time.Second, []int{2, 5})
	if got := Attempts(r); !cmp.Equal(got, []int{2, 5}) || r.Layers[0].Policy.Retry.MaxAttempts != 2 {
		t.Errorf("none overridden: %v", got)
	}
	// Timeout only: attempts untouched.
	s := Override(Layered("y", []int{3}, 0), time.Second, nil)
	if got := Attempts(s); !cmp.Equal(got, []int{3}) || s.Timeout != time.Second {
		t.Errorf("timeout-only override: %v %s", got, s.Timeout)
	}
}

func TestMitigations(t *testing.T) {
	names := func(ps []*policy.Policy) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	one := Mitigations([]int{4}, time.Second)
	if got := names(one); !cmp.Equal(got, []string{"retries", "no-retries", "jitter", "token-bucket", "ratio-10%", "breaker"}) {
		t.Errorf("single layer: %v", got)
	}
	three := Mitigations([]int{4, 4, 4}, time.Second)
	last := three[len(three)-1]
	if last.Name != "one-layer" || !cmp.Equal(Attempts(last), []int{1, 1, 4}) {
		t.Errorf("one-layer: %s %v", last.Name, Attempts(last))
	}
	c := 300.0
	want := map[string]float64{"retries": 300.0 / 64, "no-retries": 300, "jitter": 300.0 / 64, "token-bucket": 300, "one-layer": 75}
	for _, p := range three {
		b, ok := FluidBoundFor(p, &c, 0)
		w, has := want[p.Name]
		if has != ok || (ok && math.Abs(b.PerS-w) > 1e-9) {
			t.Errorf("%s: fluid bound %+v, %v; want %g, %v", p.Name, b, ok, w, has)
		}
	}
	// A queue of 200 at 300/s holds 0.67 s of work (+0.1 s service): nothing reaches the 1 s
	// timeout, so the timeout regime cannot happen.
	m := DefaultModel()
	m.Queue = 200
	sc := m.Scenario(nil)
	if w := MaxWait(sc); w != 766_666_666 && w != 766_666_667 {
		t.Errorf("MaxWait = %s, want 0.767s", w)
	}
	if b, ok := FluidBoundFor(three[0], &c, MaxWait(sc)); !ok || b.PerS != 300 {
		t.Errorf("bounded queue bound = %+v, %v; want C", b, ok)
	}
	def := DefaultModel()
	if w := MaxWait(def.Scenario(nil)); w != 0 {
		t.Errorf("unbounded MaxWait = %s, want 0", w)
	}
	ratio := Mitigations([]int{4}, time.Second)[4]
	if b, ok := FluidBoundFor(ratio, &c, 0); !ok || math.Abs(b.PerS-300/1.1) > 1e-9 {
		t.Errorf("ratio bound = %+v, %v", b, ok)
	}
}

func TestMeanOfDistribution(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		d    scenario.Distribution
		want time.Duration
	}{
		{scenario.Distribution{Kind: scenario.DistFixed, Fixed: 20 * ms}, 20 * ms},
		{scenario.Distribution{Kind: scenario.DistUniform, Min: 10 * ms, Max: 30 * ms}, 20 * ms},
		{scenario.Distribution{Kind: scenario.DistExponential, Min: 10 * ms, ExpMean: 5 * ms}, 15 * ms},
		// Lognormal through p50=80ms, p99=400ms: σ = ln 5 / 2.3263 = 0.6918, mean = 80·e^(σ²/2) = 101.6ms.
		{scenario.Distribution{Kind: scenario.DistLognormal, P50: 80 * ms, P99: 400 * ms}, 101_627_000},
	}
	for _, tt := range tests {
		got := tt.d.Mean()
		if d := got - tt.want; d > 100*time.Microsecond || d < -100*time.Microsecond {
			t.Errorf("Mean(%v) = %s, want %s", tt.d.Kind, got, tt.want)
		}
	}
}
