package profile

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies is a distribution of latencies in milliseconds, read by rank: what the advice
// needs from a histogram. HDR histograms (HistogramLatencies) and plain samples (Sample)
// provide it.
type Latencies interface {
	// Count is the number of values.
	Count() int64
	// AtRank is the r-th smallest value, 1 ≤ r ≤ Count().
	AtRank(r int64) float64
	// Above counts the values strictly greater than ms.
	Above(ms float64) int64
}

// Sample is a Latencies of plain values in milliseconds, sorted ascending (tests, small
// inputs).
type Sample []float64

// Count implements Latencies.
func (s Sample) Count() int64 { return int64(len(s)) }

// AtRank implements Latencies.
func (s Sample) AtRank(r int64) float64 { return s[min(max(r, 1), int64(len(s)))-1] }

// Above implements Latencies.
func (s Sample) Above(ms float64) int64 {
	return int64(len(s) - sort.Search(len(s), func(i int) bool { return s[i] > ms }))
}

// histLatencies reads an HDR histogram of microseconds as Latencies.
type histLatencies struct {
	h    *hdrhistogram.Histogram
	bars []hdrhistogram.Bar
}

// HistogramLatencies reads an HDR histogram of microseconds (a probe series) as Latencies.
// A nil histogram is empty.
func HistogramLatencies(h *hdrhistogram.Histogram) Latencies {
	if h == nil {
		h = NewHistogram()
	}
	return &histLatencies{h: h, bars: populated(h)}
}

func (l *histLatencies) Count() int64 { return l.h.TotalCount() }

// AtRank is the highest value equivalent to the r-th sample's bucket (≤ 0.1% above it at 3
// significant digits), as HDR reports quantiles.
func (l *histLatencies) AtRank(r int64) float64 {
	n := l.h.TotalCount()
	if n == 0 {
		return 0
	}
	return float64(l.h.ValueAtQuantile(100*float64(min(max(r, 1), n))/float64(n))) / 1000
}

// Above counts buckets whose lowest value lies above ms: HDR cannot tell inside one bucket.
func (l *histLatencies) Above(ms float64) int64 {
	limit := int64(ms * 1000)
	var n int64
	for _, b := range l.bars {
		if b.From > limit {
			n += b.Count
		}
	}
	return n
}

// Evidence is what the advice reads from a measurement: the good responses' latency, the
// requests that got no answer, and the counts of everything else.
type Evidence struct {
	// Good is the total latency of the good responses (status below 400: 4xx and 5xx are
	// answers, not the answer the caller wanted).
	Good Latencies
	// NoAnswer counts requests that got no answer within MaxTimeout, the probe's own bound:
	// right-censored latencies, known only to be longer than MaxTimeout. They count in the
	// basis quantile and the cut-off curve as values above every good response.
	NoAnswer   int64
	MaxTimeout time.Duration
	// Outlived counts the streams still streaming at MaxTimeout (StreamCounts.Streaming):
	// answered — their first event came — with a length known only to be longer than
	// MaxTimeout. They are not in NoAnswer, not failures, not in Errors; for the total they
	// are right-censored as the unanswered are, and a total quantile among them is a stream
	// of unbounded length (stream_unbounded), not a tail beyond --max-timeout. Set by
	// creditStreams.
	Outlived int64
	// Connect is the TCP connect time of fresh connections (nil: none measured).
	Connect Latencies
	// Silence is the longest silence of each good response (Phases.Silence), the basis of
	// the read timeout (nil or empty: the input does not time it, and no read timeout is
	// derived). The unanswered requests count as longer, as they do for the total.
	Silence Latencies
	// Stream is the streams' evidence (nil: no stream seen), the basis of the stream advice.
	Stream *StreamEvidence
	// Status counts responses by status code; Errors counts requests without a response by
	// class (ErrorClasses); ErrorSamples holds the first message of each class.
	Status       map[string]int64
	Errors       map[string]int64
	ErrorSamples map[string]ErrorSample
	// Unreachable: the run stopped after its first requests could not connect.
	Unreachable bool
	// Schedule says whether the generator kept its rate (the zero Schedule: not known).
	Schedule Schedule
	// RatePerS is the rate of the caller's own traffic, where the input measured it: a
	// log's requests over the span its timestamps cover (advise); 0 for a probe, whose
	// rate is its own offered load, not the caller's (RecommendOptions.LoadPerS states
	// that), and for a log without timestamps. RateFrom says how it was measured.
	RatePerS float64
	RateFrom string
	// MeanMs is the mean total latency of the answered requests (0: none): with the rate,
	// Little's law gives the requests in flight (the retry budget, docs/design.md §7).
	MeanMs float64
}

// Finished counts the requests that ended: answered or failed.
func (e *Evidence) Finished() int64 { return e.Answered() + sum(e.Errors) }

// Answered counts the requests that got an HTTP response, any status, the streams still
// streaming at --max-timeout included.
func (e *Evidence) Answered() int64 { return sum(e.Status) + e.Outlived }

// Censored counts the requests whose total is known only to be longer than MaxTimeout: the
// unanswered and the streams still streaming then.
func (e *Evidence) Censored() int64 { return e.NoAnswer + e.Outlived }

// creditStreams moves the streams that had sent their first event and were still streaming
// at --max-timeout from the unanswered (the probe counts them in errors.timeout, having cut
// them) to Outlived: a stream longer than the probe's bound is an answered call, not a
// failure (issue 29; docs/design.md §7 "Streams"). Errors is copied, not changed in place.
// A stream that sent no event within --max-timeout stays unanswered.
func (e *Evidence) creditStreams() {
	if e.Stream == nil || e.Stream.Counts.Streaming <= 0 {
		return
	}
	e.Outlived = min(e.Stream.Counts.Streaming, e.NoAnswer)
	e.NoAnswer -= e.Outlived
	e.Errors = copyCounts(e.Errors)
	e.Errors["timeout"] -= e.Outlived
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// Evidence reads what the advice needs back from a result or a saved profile: its good and
// connect histograms and its counters, so `check` can advise from `probe --save` files.
func (r *Profile) Evidence() (Evidence, error) {
	ev := Evidence{
		NoAnswer: r.Errors["timeout"], MaxTimeout: msDuration(r.MaxTimeoutMs),
		Status: r.Status, Errors: r.Errors, ErrorSamples: r.ErrorSamples,
		Unreachable: r.Unreachable, Schedule: r.Schedule,
	}
	ev.RatePerS, ev.RateFrom = r.callerRate()
	if enc, ok := r.Histograms["total"]; ok {
		h, err := DecodeHistogram(enc)
		if err != nil {
			return Evidence{}, fmt.Errorf("histograms.total: %v", err)
		}
		ev.MeanMs = meanMs(h)
	}
	if ev.MaxTimeout <= 0 {
		ev.MaxTimeout = DefaultMaxTimeout
	}
	for name, dst := range map[string]*Latencies{SeriesGood: &ev.Good, SeriesConnect: &ev.Connect, SeriesSilenceGood: &ev.Silence} {
		enc, ok := r.Histograms[name]
		if !ok {
			*dst = HistogramLatencies(nil)
			continue
		}
		h, err := DecodeHistogram(enc)
		if err != nil {
			return Evidence{}, fmt.Errorf("histograms.%s: %v", name, err)
		}
		*dst = HistogramLatencies(h)
	}
	if r.Streams != nil {
		s, err := r.streamEvidence()
		if err != nil {
			return Evidence{}, err
		}
		ev.Stream = s
	}
	ev.creditStreams()
	return ev, nil
}

// CensoredQuantile is the q-quantile of good latencies together with noAnswer requests that
// are longer than any of them (right-censored at --max-timeout): the value at rank ⌈q·n⌉ of
// the n = good + noAnswer requests. beyond is true when that rank falls among the unanswered
// requests, so the quantile is only known to exceed --max-timeout; ok is false when fewer
// than SamplesNeeded(q) requests back it.
func CensoredQuantile(good Latencies, noAnswer int64, q float64) (v float64, beyond, ok bool) {
	n := good.Count() + noAnswer
	if n < SamplesNeeded(q) || n == 0 {
		return 0, false, false
	}
	r := quantileRank(n, q)
	if r > good.Count() {
		return 0, true, true
	}
	return good.AtRank(r), false, true
}

// quantileRank is ⌈q·n⌉ within [1, n]: the rank of the smallest sample with at least a share
// q of the samples at or below it.
func quantileRank(n int64, q float64) int64 {
	r := int64(math.Ceil(q*float64(n) - 1e-9))
	return min(max(r, 1), n)
}

// msDuration converts float milliseconds to a duration.
func msDuration(v float64) time.Duration {
	return time.Duration(math.Round(v * float64(time.Millisecond)))
}

// failureSummary lists what failed, largest first: error classes and statuses ≥ 400
// ("fd_limit: 553, 503: 3").
func failureSummary(ev *Evidence) string {
	type kv struct {
		k string
		n int64
	}
	var all []kv
	for _, c := range ErrorClasses {
		if n := ev.Errors[c]; n > 0 {
			all = append(all, kv{c, n})
		}
	}
	codes := make([]string, 0, len(ev.Status))
	for code, n := range ev.Status {
		if n > 0 && !goodStatusKey(code) {
			codes = append(codes, code)
		}
	}
	sort.Strings(codes) // map order is random: equal counts must list the same way every run
	for _, code := range codes {
		all = append(all, kv{code, ev.Status[code]})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].n > all[j].n })
	parts := make([]string, len(all))
	for i, p := range all {
		parts[i] = fmt.Sprintf("%s: %d", p.k, p.n)
	}
	return strings.Join(parts, ", ")
}

// largestFailure is the failure class or status with the most requests ("" when none).
func largestFailure(ev *Evidence) string {
	best, most := "", int64(0)
	for _, c := range ErrorClasses {
		if n := ev.Errors[c]; n > most {
			best, most = c, n
		}
	}
	codes := make([]string, 0, len(ev.Status))
	for c := range ev.Status {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		if n := ev.Status[c]; n > most && !goodStatusKey(c) {
			best, most = c, n
		}
	}
	return best
}
