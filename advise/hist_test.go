package advise

import (
	"math/rand/v2"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/profile"
)

// sameHDR fails unless h holds exactly the counts of want (and encodes to the same bytes).
func sameHDR(t *testing.T, what string, h *hist, want *hdrhistogram.Histogram) {
	t.Helper()
	got := h.toHDR()
	if !got.Equals(want) || got.TotalCount() != h.total {
		t.Fatalf("%s: counts differ from hdrhistogram's (total %d, want %d)", what, got.TotalCount(), want.TotalCount())
	}
	ge, err1 := profile.EncodeHistogram(got)
	we, err2 := profile.EncodeHistogram(want)
	if err1 != nil || err2 != nil || ge != we {
		t.Fatalf("%s: encodes differently (%v, %v)", what, err1, err2)
	}
}

// TestHistMatchesHDR: hist records, merges and resets into the same buckets as
// hdrhistogram.New(histLowest, histHighest, sig) does, at every magnitude and at the edges.
func TestHistMatchesHDR(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	edges := []int64{0, 1, 2, 127, 128, 255, 256, 257, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 1 << 20, histHighest - 1, histHighest}
	for _, sig := range []int{2, 3} {
		a, b := newHistogram(sig), newHistogram(sig)
		ha, hb, both := newHist(sig), newHist(sig), newHist(sig)
		for i := range 20000 {
			v := int64(1) << rng.IntN(32)
			v = min(v+rng.Int64N(v), histHighest)
			if i < len(edges) {
				v = edges[i]
			}
			h, hh := a, ha
			if i%3 == 0 {
				h, hh = b, hb
			}
			h.recordN(v, 1)
			if err := hh.RecordValue(v); err != nil {
				t.Fatal(err)
			}
			_ = both.RecordValue(v)
		}
		sameHDR(t, "recorded", a, ha)
		sameHDR(t, "recorded", b, hb)
		a.merge(b)
		sameHDR(t, "merged", a, both)
		b.reset()
		if b.total != 0 || b.toHDR().TotalCount() != 0 {
			t.Fatal("reset left counts")
		}
		b.recordN(1234, 3)
		want := newHist(sig)
		_ = want.RecordValues(1234, 3)
		sameHDR(t, "reused", b, want)
		// A foreign geometry merges the way hdrhistogram's Merge does.
		foreign := hdrhistogram.New(1, 60_000_000, 3)
		for range 1000 {
			_ = foreign.RecordValue(rng.Int64N(60_000_000))
		}
		c := newHistogram(sig)
		c.mergeHDR(foreign)
		wantC := newHist(sig)
		wantC.Merge(foreign)
		sameHDR(t, "foreign", c, wantC)
	}
}

// TestHistGeometry: the geometry is hdrhistogram's (the same number of counts).
func TestHistGeometry(t *testing.T) {
	for _, sig := range []int{2, 3} {
		if got, want := geometries[sig].countsLen, len(newHist(sig).Export().Counts); got != want {
			t.Errorf("sig %d: %d counts, hdrhistogram has %d", sig, got, want)
		}
	}
}
