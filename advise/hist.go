package advise

import (
	"math"
	"math/bits"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// hist is the counts of an HDR histogram of the advise geometry (histLowest to histHighest µs
// at sig significant digits: the same buckets as hdrhistogram.New(histLowest, histHighest,
// sig)) without the library's per-value checks, merged by adding counts over the range
// recorded. Chunks are parsed into hists that are reset and reused, so the steady state
// allocates nothing; toHDR gives the library histogram (the same counts, so the same
// encoding and quantiles) once the input is read.
type hist struct {
	g      *histGeometry
	counts []int64
	total  int64
	// lo, hi bound the indexes with a count (lo > hi: none), so merge and reset touch only them.
	lo, hi int
}

// histGeometry is hdrhistogram's bucket layout for a lowest value of 1 (unit magnitude 0).
type histGeometry struct {
	sig           int
	halfMag       uint  // subBucketHalfCountMagnitude
	subBucketMask int64 // subBucketCount-1
	half          int   // subBucketHalfCount
	countsLen     int
}

func newGeometry(sig int) *histGeometry {
	// hdrhistogram's geometryMagnitudes and getBucketsNeededToCoverValue for lowest 1.
	subBucketCountMag := int(math.Ceil(math.Log2(2 * math.Pow10(sig))))
	halfMag := max(subBucketCountMag, 1) - 1
	subBucketCount := int64(1) << (halfMag + 1)
	buckets := 1
	for v := subBucketCount; v <= histHighest; v <<= 1 {
		buckets++
	}
	return &histGeometry{sig: sig, halfMag: uint(halfMag), subBucketMask: subBucketCount - 1,
		half: int(subBucketCount / 2), countsLen: (buckets + 1) * int(subBucketCount/2)}
}

var geometries = [...]*histGeometry{2: newGeometry(2), 3: newGeometry(3)}

func newHistogram(sig int) *hist {
	g := geometries[sig]
	return &hist{g: g, counts: make([]int64, g.countsLen), lo: g.countsLen, hi: -1}
}

// index is hdrhistogram's countsIndexFor(v) for v ≥ 0.
func (g *histGeometry) index(v int64) int {
	bucket := 64 - bits.LeadingZeros64(uint64(v|g.subBucketMask)) - int(g.halfMag+1)
	sub := int(v >> uint(bucket))
	return (bucket+1)<<g.halfMag + sub - g.half
}

// recordN records n values v, which must lie in [0, histHighest] (record clamps).
func (h *hist) recordN(v, n int64) {
	i := h.g.index(v)
	h.counts[i] += n
	h.total += n
	if i < h.lo {
		h.lo = i
	}
	if i > h.hi {
		h.hi = i
	}
}

func (h *hist) merge(o *hist) {
	if o == nil || o.total == 0 {
		return
	}
	dst, src := h.counts[o.lo:o.hi+1], o.counts[o.lo:o.hi+1]
	for i := range src {
		dst[i] += src[i]
	}
	h.total += o.total
	h.lo, h.hi = min(h.lo, o.lo), max(h.hi, o.hi)
}

// mergeHDR adds a library histogram of any geometry exactly as hdrhistogram's Merge into one
// of this geometry does (a saved profile's histograms).
func (h *hist) mergeHDR(o *hdrhistogram.Histogram) {
	tmp := hdrhistogram.New(histLowest, histHighest, h.g.sig)
	tmp.Merge(o)
	for i, c := range tmp.Export().Counts {
		if c != 0 {
			h.counts[i] += c
			h.total += c
			h.lo, h.hi = min(h.lo, i), max(h.hi, i)
		}
	}
}

func (h *hist) reset() {
	if h.hi >= h.lo {
		clear(h.counts[h.lo : h.hi+1])
	}
	h.total, h.lo, h.hi = 0, h.g.countsLen, -1
}

// toHDR is the library histogram with these counts (nil for nil).
func (h *hist) toHDR() *hdrhistogram.Histogram {
	if h == nil {
		return nil
	}
	return hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: histLowest,
		HighestTrackableValue: histHighest, SignificantFigures: int64(h.g.sig), Counts: h.counts})
}
