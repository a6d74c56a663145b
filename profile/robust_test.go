package profile

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/internal/timing"
)

// TestDistributionOneValue: every sample on one value whose bar edge is that value (1 ms,
// 2.5 ms, or 0 clamped to 1 µs) gave distribution() no bar, and it indexed bar −1 (issue 17:
// `probe -n 1` crashed 2 runs in 500).
func TestDistributionOneValue(t *testing.T) {
	for _, us := range []int64{0, 1, 1000, 2000, 2500, 5000, 100000, 3_600_000_000} {
		for _, n := range []int64{1, 7} {
			h := NewHistogram()
			for range n {
				RecordClamped(h, us)
			}
			bars := distribution(h)
			var total int64
			for _, b := range bars {
				total += b.Count
				if !(b.FromMs < b.ToMs) {
					t.Errorf("%d µs: empty bar %+v", us, b)
				}
			}
			if len(bars) == 0 || total != n {
				t.Errorf("%d × %d µs: bars %+v, want at least one bar holding %d", n, us, bars, n)
			}
		}
	}
}

// TestQuantileCIHugeCount: a crafted profile claiming 10^15 samples made QuantileCI walk one
// rank per step (≈35 s of CPU for a 4 KB file); the search is O(log n) steps. Its bound is on
// the CPU time of the thread doing the work (timing.ThreadWork), not the wall clock: a 2 s
// wall-clock bound failed on a loaded machine (issue 24 item 12).
func TestQuantileCIHugeCount(t *testing.T) {
	work, ok := timing.ThreadWork(func() { quantileCIHugeCounts(t) })
	if ok && work > time.Second {
		t.Errorf("took %s of CPU, want well under a second", work)
	}
}

func quantileCIHugeCounts(t *testing.T) {
	for _, n := range []int64{1e9, 1e12, 1e15, 1e18, math.MaxInt64} {
		for _, q := range []float64{0.5, 0.99, 0.999, 0.9999} {
			low, high, open := QuantileCI(n, q, 0.95)
			if open || !(low >= 1 && low <= high && high <= n) {
				t.Errorf("QuantileCI(%d, %g) = %d, %d, open %v", n, q, low, high, open)
			}
			// The interval brackets the quantile's rank, within a few standard deviations.
			rank := float64(n) * q
			sd := math.Sqrt(float64(n) * q * (1 - q))
			if math.Abs(float64(low)-rank) > 3*sd+2 || math.Abs(float64(high)-rank) > 3*sd+2 {
				t.Errorf("QuantileCI(%d, %g) = %d, %d: not within 3 sd (%g) of rank %g", n, q, low, high, sd, rank)
			}
		}
	}
}

// TestQuantileCIMatchesLinearWalk: the binary search picks the ranks the one-step-at-a-time
// walk picked, over a grid of sizes on both sides of the exact/normal switch.
func TestQuantileCIMatchesLinearWalk(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 5, 10, 37, 100, 999, 1000, 1001, 3688, 5000, 20000, 100000, 499999, 500001, 750000, 2_000_000} {
		for _, q := range []float64{0.1, 0.5, 0.9, 0.99, 0.999, 0.9999} {
			l1, h1, o1 := QuantileCI(n, q, 0.95)
			l2, h2, o2 := quantileCILinear(n, q, 0.95)
			if l1 != l2 || h1 != h2 || o1 != o2 {
				t.Errorf("n=%d q=%g: search %d,%d,%v; walk %d,%d,%v", n, q, l1, h1, o1, l2, h2, o2)
			}
		}
	}
}

// quantileCILinear is the former rank-per-step QuantileCI, kept as the reference.
func quantileCILinear(n int64, q, level float64) (low, high int64, highOpen bool) {
	if n <= 0 || !(q > 0 && q < 1) {
		return 0, 0, true
	}
	tail := (1 - level) / 2
	cdf, from, _ := binomialCDF(n, 1-q)
	a := from - 1
	for k := from; k <= n && cdf(k) <= tail; k++ {
		a = k
	}
	if a < 0 {
		highOpen = true
	} else {
		high = n - a
	}
	b := a + 1
	for b < n && cdf(b) < 1-tail {
		b++
	}
	return max(n-b, 1), high, highOpen
}

// craftedProfile is a saved profile whose histograms were replaced by h.
func craftedProfile(t *testing.T, h *hdrhistogram.Histogram) []byte {
	t.Helper()
	m := &measurement{hists: set(10, 20, 30), status: map[string]int64{"200": 3}, errors: map[string]int64{}, requests: 3, responses: 3, durationMs: 1000}
	r, err := build(m, Profile{Target: Target{URL: "http://127.0.0.1/", Method: "GET"}, Model: "closed", Conn: "reuse"}, RecommendParams{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	r.Histogram = enc
	for k := range r.Histograms {
		r.Histograms[k] = enc
	}
	// The counters agree with h (checkCounters): what is tested is the histogram alone.
	if n := h.TotalCount(); n > r.Responses && n <= maxProfileCount {
		r.Requests, r.Responses, r.Status = n, n, map[string]int64{"200": n}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMergeHugeCountsIsQuick: the 4 KB crafted profile of issue 17 (10^15 samples a bar)
// merges in well under a second of CPU instead of ≈35 s. The bound is on the CPU time of the
// thread doing the work (timing.ThreadWork): the 2 s wall-clock bound it had failed .ci/run
// after 26 minutes on a loaded machine (issue 24 item 12).
func TestMergeHugeCountsIsQuick(t *testing.T) {
	h := NewHistogram()
	for _, v := range []int64{1000, 5000, 90000} {
		if err := h.RecordValues(v, 1e15); err != nil {
			t.Fatal(err)
		}
	}
	b := craftedProfile(t, h)
	var err error
	work, ok := timing.ThreadWork(func() {
		var r *Profile
		if r, err = Parse("huge.json", b); err == nil {
			_, err = Merge([]*Profile{r, r}, RecommendParams{})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if ok && work > time.Second {
		t.Errorf("merge took %s of CPU, want well under a second", work)
	}
}

// TestParseProfileRejectsHostileHistograms: values no latency has (past the simulator's
// longest draw, the 292-year overflow of issue 17), a geometry whose counts array alone
// costs tens of MB, and a count that overflows are input errors naming the field.
func TestParseProfileRejectsHostileHistograms(t *testing.T) {
	far := hdrhistogram.New(1, math.MaxInt64/2, 3)
	if err := far.RecordValue(math.MaxInt64 / 4); err != nil {
		t.Fatal(err)
	}
	wide := hdrhistogram.New(1, math.MaxInt64/2, 5)
	_ = wide.RecordValue(1000)
	for _, tc := range []struct {
		name string
		h    *hdrhistogram.Histogram
		want string
	}{
		{"far", far, "longer than"},
		{"wide", wide, "significant digits"},
	} {
		_, err := Parse("p.json", craftedProfile(t, tc.h))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "p.json: field histogram") {
			t.Errorf("%s: err %v, want p.json: field histogram…%s", tc.name, err, tc.want)
		}
	}
}

// TestParseProfileRejectsWrappedCount: counts near int64's end are refused, so the totals of
// merged profiles cannot wrap around.
func TestParseProfileRejectsWrappedCount(t *testing.T) {
	h := NewHistogram()
	for _, v := range []int64{1000, 2000, 3000} {
		if err := h.RecordValues(v, 1<<61); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Parse("p.json", craftedProfile(t, h))
	if err == nil || !strings.Contains(err.Error(), "more than 2^53 samples") {
		t.Errorf("err %v, want more than 2^53 samples", err)
	}
}
