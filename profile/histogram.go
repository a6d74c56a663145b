package profile

import (
	"encoding/base64"
	"fmt"
	"math"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Series names the histograms a probe records (keys of Profile.Histograms, which also holds
// the blended "ttfb", "total", "sent" and "silence"). DNS, connect and
// TLS only happen on fresh connections; the others are split fresh/reused so that the two
// kinds of request are never blended before the report says so.
const (
	SeriesDNS         = "dns"
	SeriesConnect     = "connect"
	SeriesTLS         = "tls"
	SeriesTTFBFresh   = "ttfb.fresh"
	SeriesTTFBReused  = "ttfb.reused"
	SeriesTotalFresh  = "total.fresh"
	SeriesTotalReused = "total.reused"
	SeriesSentFresh   = "sent.fresh"
	SeriesSentReused  = "sent.reused"
	// SeriesGood is the total latency of good responses (status below 400, GoodStatus): the
	// basis of the timeout recommendation and the cut-off curve. (Profiles saved before 4xx
	// stopped counting as good hold status < 500 here.)
	SeriesGood = "good"
	// SeriesLate is the send lateness (actual − intended) of every send.
	SeriesLate = "late"
	// SeriesSilenceFresh and SeriesSilenceReused are the longest silence of each response
	// (Phases.Silence): the longer of its wait for the first byte and its longest pause
	// between two reads. SeriesSilenceGood is that of the good responses: the basis of the
	// read timeout, as SeriesGood is the total's.
	SeriesSilenceFresh  = "silence.fresh"
	SeriesSilenceReused = "silence.reused"
	SeriesSilenceGood   = "silence.good"
)

// series lists every series in a fixed order; index i of a probe's recorder holds series[i].
var series = []string{
	SeriesDNS, SeriesConnect, SeriesTLS, SeriesTTFBFresh, SeriesTTFBReused,
	SeriesTotalFresh, SeriesTotalReused, SeriesSentFresh, SeriesSentReused, SeriesGood, SeriesLate,
	SeriesSilenceFresh, SeriesSilenceReused, SeriesSilenceGood,
}

// SeriesNames lists every series in the fixed order a recorder indexes them by: series,
// then the stream series (stream.go).
func SeriesNames() []string { return append(append([]string(nil), series...), streamSeries...) }

// Histogram range: 1 µs to 1 hour at 3 significant digits (docs/design.md §7), values in
// microseconds. Longer values are clamped to the highest trackable value.
const (
	HistogramLowest  = 1
	HistogramHighest = 3_600_000_000
	HistogramDigits  = 3
)

// NewHistogram is an empty histogram of the profile geometry (HistogramLowest to
// HistogramHighest µs at HistogramDigits significant digits).
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistogramLowest, HistogramHighest, HistogramDigits)
}

// RecordClamped records v (µs), clamping to the histogram's range so a pathological value
// is counted instead of silently dropped.
func RecordClamped(h *hdrhistogram.Histogram, v int64) {
	if v < HistogramLowest {
		v = HistogramLowest
	}
	if v > HistogramHighest {
		v = HistogramHighest
	}
	_ = h.RecordValue(v)
}

// histSet is a merged set of series histograms.
type histSet map[string]*hdrhistogram.Histogram

// merge adds every series of other into h.
func (h histSet) merge(other histSet) {
	for name, o := range other {
		if o == nil {
			continue
		}
		if cur, ok := h[name]; ok {
			cur.Merge(o)
		} else {
			c := NewHistogram()
			c.Merge(o)
			h[name] = c
		}
	}
}

// get returns the named series, an empty histogram when absent.
func (h histSet) get(name string) *hdrhistogram.Histogram {
	if x, ok := h[name]; ok {
		return x
	}
	return NewHistogram()
}

// combined merges several series into a new histogram.
func (h histSet) combined(names ...string) *hdrhistogram.Histogram {
	out := NewHistogram()
	for _, n := range names {
		if x, ok := h[n]; ok {
			out.Merge(x)
		}
	}
	return out
}

// EncodeHistogram encodes h with hdrhistogram-go's V2 compressed encoding, then base64 (std):
// the form of Profile.Histogram and Profile.Histograms.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// DecodeHistogram reverses EncodeHistogram.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("histogram is not base64: %w", err)
	}
	h, err := hdrhistogram.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("histogram does not decode: %w", err)
	}
	return h, nil
}

// summarize builds the phase summary of h; nil when h is nil.
func summarize(h *hdrhistogram.Histogram) *Summary {
	s := &Summary{Count: h.TotalCount()}
	if s.Count == 0 {
		return s
	}
	s.MinMs = ptr(float64(h.Min()) / 1000)
	s.MaxMs = ptr(float64(h.Max()) / 1000)
	s.P50Ms = quantileMs(h, 0.50)
	s.P90Ms = quantileMs(h, 0.90)
	s.P95Ms = quantileMs(h, 0.95)
	s.P99Ms = quantileMs(h, 0.99)
	s.P999Ms = quantileMs(h, 0.999)
	return s
}

// summarizeSplit summarizes fresh+reused together with the split attached.
func summarizeSplit(fresh, reused *hdrhistogram.Histogram) *Summary {
	all := NewHistogram()
	all.Merge(fresh)
	all.Merge(reused)
	s := summarize(all)
	s.Fresh = summarize(fresh)
	s.Reused = summarize(reused)
	return s
}

// quantileMs is h's value at quantile q in ms, or nil when fewer than 1/(1-q) samples back
// it (docs/design.md §7: never an invented percentile). HDR reports the highest value equivalent to
// the bucket (≤ 0.1% above the true sample at 3 significant digits).
func quantileMs(h *hdrhistogram.Histogram, q float64) *float64 {
	if h.TotalCount() < SamplesNeeded(q) {
		return nil
	}
	return ptr(float64(h.ValueAtQuantile(q*100)) / 1000)
}

// populated returns h's non-empty buckets. hdrhistogram's Distribution lists every bucket
// of the geometry (about 23,000 here), so callers take it once and keep the few in use.
func populated(h *hdrhistogram.Histogram) []hdrhistogram.Bar {
	var out []hdrhistogram.Bar
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			out = append(out, b)
		}
	}
	return out
}

// shareAbove is the share of the samples in bars (total of them) strictly above limitMs.
func shareAbove(bars []hdrhistogram.Bar, total int64, limitMs float64) float64 {
	if total == 0 {
		return 0
	}
	limit := int64(limitMs * 1000)
	var above int64
	for _, b := range bars {
		// A bucket straddling the limit is counted by its lowest value: HDR cannot tell
		// inside one bucket (≤ 0.1% wide).
		if b.From > limit {
			above += b.Count
		}
	}
	return float64(above) / float64(total)
}

// distribution returns about a dozen log-spaced bars over [min, max] of h.
func distribution(h *hdrhistogram.Histogram) []Bucket {
	if h.TotalCount() == 0 {
		return []Bucket{}
	}
	lo, hi := float64(h.Min()), float64(h.Max())
	if lo < 1 {
		lo = 1
	}
	// Edges on the 1-2-2.5-5 ladder from just below the minimum to the maximum (ms).
	// At least two edges: when every sample lies on one value and that value is itself on
	// the ladder, the loop below adds none, and a distribution without a bar indexed bar −1
	// (issue 17: `probe -n 1`).
	edges := []float64{ladderDown(lo / 1000)}
	for len(edges) < 2 || edges[len(edges)-1] < hi/1000 {
		edges = append(edges, ladderUp(edges[len(edges)-1]*1.0001))
	}
	// Thin out to at most 12 bars by taking every other edge.
	for len(edges) > 13 {
		thin := []float64{edges[0]}
		for i := 2; i < len(edges); i += 2 {
			thin = append(thin, edges[i])
		}
		if thin[len(thin)-1] < edges[len(edges)-1] {
			thin = append(thin, edges[len(edges)-1])
		}
		edges = thin
	}
	buckets := make([]Bucket, len(edges)-1)
	for i := range buckets {
		buckets[i] = Bucket{FromMs: edges[i], ToMs: edges[i+1]}
	}
	for _, b := range populated(h) {
		v := float64(b.To) / 1000
		i := sort.Search(len(buckets), func(i int) bool { return buckets[i].ToMs >= v })
		i = min(i, len(buckets)-1)
		buckets[i].Count += b.Count
	}
	return buckets
}

// ladderDown is the largest 1-2-2.5-5 × 10^n value ≤ v (v > 0).
func ladderDown(v float64) float64 {
	e := math.Floor(math.Log10(v))
	for _, m := range []float64{5, 2.5, 2, 1} {
		if x := m * math.Pow(10, e); x <= v*(1+1e-9) {
			return roundSig(x)
		}
	}
	return roundSig(math.Pow(10, e))
}

func ptr(v float64) *float64 { return &v }
