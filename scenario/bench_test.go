package scenario

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The simulator draws one or two latencies per attempt: Sample sits on its hot path.
func BenchmarkSample(b *testing.B) {
	prof, err := ProfileDistribution(testHistogram(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		d    Distribution
	}{
		{"fixed", Distribution{Kind: DistFixed, Fixed: time.Millisecond}},
		{"uniform", Distribution{Kind: DistUniform, Min: time.Millisecond, Max: 3 * time.Millisecond}},
		{"exponential", Distribution{Kind: DistExponential, Min: time.Millisecond, ExpMean: 5 * time.Millisecond}},
		{"lognormal", Lognormal(80*time.Millisecond, 400*time.Millisecond)},
		{"lognormal-uncached", Distribution{Kind: DistLognormal, P50: 80 * time.Millisecond, P99: 400 * time.Millisecond}},
		{"profile", prof},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			var sink time.Duration
			b.ReportAllocs()
			for b.Loop() {
				sink += tc.d.Sample(r)
			}
			_ = sink
		})
	}
}

func BenchmarkParse(b *testing.B) {
	data := []byte(full)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, "full.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}
