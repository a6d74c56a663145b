package advise

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// promScaled is an exposition whose cumulative bucket counts are scale × (5, 99, 99.9, 100,
// 100): 4e10 observations at scale 4e8.
func promScaled(scale float64) string {
	var b strings.Builder
	b.WriteString("# TYPE big_request_duration_seconds histogram\n")
	for _, c := range []struct {
		le string
		n  float64
	}{{"0.05", 50}, {"0.25", 99}, {"1", 99.9}, {"2.5", 100}, {"+Inf", 100}} {
		fmt.Fprintf(&b, "big_request_duration_seconds_bucket{le=%q} %g\n", c.le, c.n*scale)
	}
	fmt.Fprintf(&b, "big_request_duration_seconds_count %g\n", 100*scale)
	return b.String()
}

// TestPromWeighted: each bucket is recorded once with its count as weight, so a family of
// 4×10¹⁰ observations (the _bytes family of Prometheus's own scrape has 4.4×10¹⁰) is read
// in the same few steps as one of 100: the work is O(series × buckets) by construction
// (addWeighted, one call per bucket), and the result is the same at every scale — the
// counts scale exactly, the brackets and the recommendation do not move.
func TestPromWeighted(t *testing.T) {
	small := run(t, Options{Files: []string{write(t, "s.prom", promScaled(1))}})
	big := run(t, Options{Files: []string{write(t, "b.prom", promScaled(4e8))}})
	if big.Requests != 40_000_000_000 || big.Status["200"] != 40_000_000_000 || big.Buckets.Observations != 4e10 {
		t.Fatalf("requests %d, status %v", big.Requests, big.Status)
	}
	if small.Requests != 100 {
		t.Fatalf("small: %d requests", small.Requests)
	}
	// p99 rank 0.99 × 100 reaches 99 at le=0.25: (0.05, 0.25], estimate at the bound;
	// p99.9 rank 99.9 reaches 99.9 at le=1: (0.25, 1], estimate at the bound.
	promBracket(t, big.Buckets, "p99", 50, 250, 250)
	promBracket(t, big.Buckets, "p99.9", 250, 1000, 1000)
	for i, q := range small.Buckets.Quantiles {
		bq := big.Buckets.Quantiles[i]
		if q.Label != bq.Label || q.LowerMs != bq.LowerMs || *q.UpperMs != *bq.UpperMs || q.EstimateMs != bq.EstimateMs {
			t.Errorf("%s: %+v at 100, %+v at 4e10", q.Label, q, bq)
		}
	}
	if small.Recommendation.TimeoutMs != big.Recommendation.TimeoutMs || big.Recommendation.TimeoutMs == 0 {
		t.Errorf("timeout %v at 100, %v at 4e10", small.Recommendation.TimeoutMs, big.Recommendation.TimeoutMs)
	}
	if p := big.Phases.Total; p == nil || p.Count != 40_000_000_000 {
		t.Errorf("total phase %+v", p)
	}
}

// BenchmarkPromCount reads the same exposition at 100 and at 4×10¹⁰ observations: the time
// per run is the same (O(buckets)); before, the second looped once per observation.
func BenchmarkPromCount(b *testing.B) {
	for _, scale := range []float64{1, 4e8} {
		data := []byte(promScaled(scale))
		b.Run(fmt.Sprintf("observations=%g", 100*scale), func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(context.Background(), Options{Files: []string{"-"}, Stdin: bytes.NewReader(data), Format: FormatPrometheus}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
