package scenario

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/profile"
)

const draws = 200_000

// sampleStats draws n values and returns their mean and the share at or below each limit.
func sampleStats(d *Distribution, n int, limits ...time.Duration) (mean time.Duration, min, max time.Duration, below []float64) {
	r := rand.New(rand.NewPCG(1, 2))
	below = make([]float64, len(limits))
	var sum float64
	min, max = time.Duration(math.MaxInt64), 0
	for range n {
		v := d.Sample(r)
		sum += float64(v)
		min, max = minDur(min, v), maxDur(max, v)
		for i, l := range limits {
			if v <= l {
				below[i]++
			}
		}
	}
	for i := range below {
		below[i] /= float64(n)
	}
	return time.Duration(sum / float64(n)), min, max, below
}

func minDur(a, b time.Duration) time.Duration { return time.Duration(math.Min(float64(a), float64(b))) }
func maxDur(a, b time.Duration) time.Duration { return time.Duration(math.Max(float64(a), float64(b))) }

// TestSampleMoments checks means and bounds over many draws. Tolerances are 5 standard
// errors of the mean (σ/√n), so a correct sampler fails about once in 3.5 million runs.
func TestSampleMoments(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		d        Distribution
		mean     time.Duration
		sigma    time.Duration // standard deviation of one draw
		min, max time.Duration // bounds every draw must respect (max 0 = unbounded)
	}{
		{"fixed", Distribution{Kind: DistFixed, Fixed: 20 * ms}, 20 * ms, 0, 20 * ms, 20 * ms},
		// U[a,b]: mean (a+b)/2, σ = (b−a)/√12.
		{"uniform", Distribution{Kind: DistUniform, Min: 10 * ms, Max: 30 * ms}, 20 * ms, time.Duration(float64(20*ms) / math.Sqrt(12)), 10 * ms, 30 * ms},
		// min + Exp(mean): mean min+mean, σ = mean.
		{"exponential", Distribution{Kind: DistExponential, Min: 10 * ms, ExpMean: 5 * ms}, 15 * ms, 5 * ms, 10 * ms, 0},
		// Lognormal: mean exp(μ + σ²/2) with μ = ln p50 and σ = ln(p99/p50)/z99.
		{"lognormal", Distribution{Kind: DistLognormal, P50: 80 * ms, P99: 400 * ms}, lognormalMean(80*ms, 400*ms), lognormalSD(80*ms, 400*ms), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mean, lo, hi, _ := sampleStats(&tt.d, draws)
			tol := 5 * float64(tt.sigma) / math.Sqrt(draws)
			if math.Abs(float64(mean-tt.mean)) > tol+1 {
				t.Errorf("mean = %v, want %v ± %v", mean, tt.mean, time.Duration(tol))
			}
			if lo < tt.min {
				t.Errorf("min draw %v below %v", lo, tt.min)
			}
			if tt.max > 0 && hi > tt.max {
				t.Errorf("max draw %v above %v", hi, tt.max)
			}
		})
	}
}

func lognormalMean(p50, p99 time.Duration) time.Duration {
	s := math.Log(float64(p99)/float64(p50)) / z99
	return time.Duration(float64(p50) * math.Exp(s*s/2))
}

func lognormalSD(p50, p99 time.Duration) time.Duration {
	s := math.Log(float64(p99)/float64(p50)) / z99
	m := float64(lognormalMean(p50, p99))
	return time.Duration(m * math.Sqrt(math.Exp(s*s)-1))
}

// TestSampleQuantiles checks that draws fall below each distribution's exact quantiles in the
// right share: the empirical CDF at Quantile(q) must be q within 5 binomial standard errors.
func TestSampleQuantiles(t *testing.T) {
	ms := time.Millisecond
	prof := testProfile(t)
	dists := map[string]Distribution{
		"uniform":     {Kind: DistUniform, Min: 10 * ms, Max: 30 * ms},
		"exponential": {Kind: DistExponential, Min: 10 * ms, ExpMean: 5 * ms},
		"lognormal":   {Kind: DistLognormal, P50: 80 * ms, P99: 400 * ms},
		"profile":     prof,
	}
	qs := []float64{0.1, 0.5, 0.9, 0.99}
	for name, d := range dists {
		t.Run(name, func(t *testing.T) {
			limits := make([]time.Duration, len(qs))
			for i, q := range qs {
				limits[i] = d.Quantile(q)
			}
			_, _, _, below := sampleStats(&d, draws, limits...)
			for i, q := range qs {
				tol := 5 * math.Sqrt(q*(1-q)/draws)
				if name == "profile" {
					tol += 0.002 // interpolation between 1‰ steps of a bucketed histogram
				}
				if math.Abs(below[i]-q) > tol {
					t.Errorf("share ≤ Quantile(%v)=%v is %.4f, want %v ± %.4f", q, limits[i], below[i], q, tol)
				}
			}
		})
	}
}

func TestQuantileExact(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		d    Distribution
		q    float64
		want time.Duration
		tol  time.Duration
	}{
		{"fixed", Distribution{Kind: DistFixed, Fixed: 7 * ms}, 0.99, 7 * ms, 0},
		{"uniform p25", Distribution{Kind: DistUniform, Min: 10 * ms, Max: 30 * ms}, 0.25, 15 * ms, 0},
		{"uniform p0", Distribution{Kind: DistUniform, Min: 10 * ms, Max: 30 * ms}, 0, 10 * ms, 0},
		// min + mean·ln 2 = 10ms + 3.4657359ms
		{"exponential median", Distribution{Kind: DistExponential, Min: 10 * ms, ExpMean: 5 * ms}, 0.5, 13465735 * time.Nanosecond, 1},
		// min − mean·ln(0.01) = 10ms + 23.0258509ms
		{"exponential p99", Distribution{Kind: DistExponential, Min: 10 * ms, ExpMean: 5 * ms}, 0.99, 33025850 * time.Nanosecond, 1},
		{"lognormal p50", Distribution{Kind: DistLognormal, P50: 80 * ms, P99: 400 * ms}, 0.5, 80 * ms, 1},
		{"lognormal p99", Distribution{Kind: DistLognormal, P50: 80 * ms, P99: 400 * ms}, 0.99, 400 * ms, 100},
		// z(0.9) = 1.2815515655: 80ms·5^(1.2815515655/2.3263478740) = 80ms·2.4269035
		{"lognormal p90", Distribution{Kind: DistLognormal, P50: 80 * ms, P99: 400 * ms}, 0.9, 194152284 * time.Nanosecond, 1000},
		{"lognormal equal p50 p99", Distribution{Kind: DistLognormal, P50: 80 * ms, P99: 80 * ms}, 0.999, 80 * ms, 1},
	}
	for _, tt := range tests {
		got := tt.d.Quantile(tt.q)
		if diff := got - tt.want; diff > tt.tol || diff < -tt.tol {
			t.Errorf("%s: Quantile(%v) = %v, want %v ± %v", tt.name, tt.q, got, tt.want, tt.tol)
		}
	}
}

// testProfile is a histogram of 1, 2, … 1000 ms (in microseconds, probe's unit).
func testProfile(t *testing.T) Distribution {
	t.Helper()
	d, err := ProfileDistribution(testHistogram(), "test")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func testHistogram() *hdrhistogram.Histogram {
	h := hdrhistogram.New(1, 60_000_000, 3)
	for i := 1; i <= 1000; i++ {
		_ = h.RecordValue(int64(i) * 1000)
	}
	return h
}

func TestProfileQuantiles(t *testing.T) {
	d := testProfile(t)
	// 3 significant digits: values are exact to within 0.1%.
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0, time.Millisecond}, {0.5, 500 * time.Millisecond}, {0.9, 900 * time.Millisecond}, {1, time.Second}} {
		got := d.Quantile(tt.q)
		if math.Abs(float64(got-tt.want)) > 0.001*float64(tt.want)+float64(time.Millisecond) {
			t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if _, err := ProfileDistribution(hdrhistogram.New(1, 1000, 3), "empty"); err == nil {
		t.Error("an empty histogram loaded without error")
	}
}

// TestProfileFromFile loads `latency: {profile: probe.json}` relative to the scenario file.
func TestProfileFromFile(t *testing.T) {
	dir := t.TempDir()
	// Written the way `patience probe --save` writes it.
	enc, err := profile.EncodeHistogram(testHistogram())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "probe.json"), []byte(`{"schema":"patience/probe/v1","histogram":"`+string(enc)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.yaml")
	src := "duration: 1m\nload: {rate: 1/s}\ntarget:\n  latency: {profile: probe.json}\npolicy: {timeout: 1s}\n"
	sc, err := Parse([]byte(src), file)
	if err != nil {
		t.Fatal(err)
	}
	l := sc.Target.Latency
	if l.Kind != DistProfile || l.Profile != "probe.json" {
		t.Fatalf("latency = %+v", l)
	}
	if got := l.Quantile(0.5); math.Abs(float64(got-500*time.Millisecond)) > float64(2*time.Millisecond) {
		t.Errorf("median = %v, want about 500ms", got)
	}
	_, err = Parse([]byte(src), filepath.Join(t.TempDir(), "elsewhere.yaml"))
	if e, ok := err.(*Error); !ok || e.Field != "target.latency.profile" || e.Line != 4 {
		t.Errorf("missing profile: err = %v, want an *Error at 4 for target.latency.profile", err)
	}
}

// TestLognormalCached: the precomputed parameters give the same draws as computing them.
func TestLognormalCached(t *testing.T) {
	a := Lognormal(80*time.Millisecond, 400*time.Millisecond)
	b := Distribution{Kind: DistLognormal, P50: 80 * time.Millisecond, P99: 400 * time.Millisecond}
	ra, rb := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		if x, y := a.Sample(ra), b.Sample(rb); x != y {
			t.Fatalf("cached %v, computed %v", x, y)
		}
	}
}

func TestSampleDeterministic(t *testing.T) {
	d := Distribution{Kind: DistLognormal, P50: 80 * time.Millisecond, P99: 400 * time.Millisecond}
	a, b := rand.New(rand.NewPCG(7, 7)), rand.New(rand.NewPCG(7, 7))
	for range 1000 {
		if x, y := d.Sample(a), d.Sample(b); x != y {
			t.Fatalf("same seed gave %v and %v", x, y)
		}
	}
}
