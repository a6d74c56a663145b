package profile

import (
	"fmt"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/internal/units"
)

// Defaults of the measurement and the advice, for fields left zero.
const (
	// DefaultMaxTimeout is the probe's own per-request bound: a request unanswered by then
	// counts as a timeout.
	DefaultMaxTimeout = 30 * time.Second
	// DefaultBudget is an interactive caller's whole wait, retries and backoff included.
	DefaultBudget = 10 * time.Second
	// DefaultCutoff is the accepted share of requests a timeout may cut off (p99.9).
	DefaultCutoff = 0.001
	// UnreachableAfter is how many connect-level failures (refused, DNS, TLS) with no
	// response at all end a probe early as unreachable.
	UnreachableAfter = 5
)

// RecommendParams are the recommendation inputs besides the measurement, shared by live
// runs, merges and logs: the caller (its method and Idempotency-Key, when empty, come from
// the target) and the recommendation options.
type RecommendParams struct {
	Caller  Caller
	Options RecommendOptions
	// MaxTimeout is the bound a request went unanswered by (0: DefaultMaxTimeout): the
	// probe's own bound of a live run; a merge keeps the profiles' own.
	MaxTimeout time.Duration
}

// Part is one share of a measurement: series histograms (keyed by series name, values in
// µs) and counters. A probe adds one per recorder, a merge one per saved profile, advise
// one per series of a log. Parts add up: histograms merge, counts add, and the first error
// sample of a class is kept.
type Part struct {
	Series       map[string]*hdrhistogram.Histogram
	Status       map[string]int64
	Errors       map[string]int64
	ErrorSamples map[string]ErrorSample
	// Requests counts requests sent, Responses those answered (any status) and
	// InterruptedInFlight those cut in flight by the run's end.
	Requests, Responses, InterruptedInFlight int64
	// Streams counts the streaming responses (stream.go).
	Streams StreamCounts
}

// Builder makes a profile: fed parts by Add, finished by Close (vegeta's Metrics), it keeps
// merged histograms and counters, never the parts, and grades them only in Close — never by
// averaging percentiles (docs/design.md §9). probe, Merge and advise all make their profiles with it.
type Builder struct {
	head       Profile
	p          RecommendParams
	maxTimeout time.Duration
	hists      histSet
	status     map[string]int64
	errors     map[string]int64
	samples    map[string]ErrorSample
	requests   int64
	responses  int64
	cut        int64
	streams    StreamCounts
}

// NewBuilder starts a profile described by head: Target, Model, Conn, Concurrency,
// Connections, DurationMs, Schedule, Interrupted, Unreachable, Merged and Source are taken
// as they are. Its counters, histograms and graded fields are ignored (Add brings the
// counters, Close grades them); its max_timeout_ms is p.MaxTimeout.
func NewBuilder(head Profile, p RecommendParams) *Builder {
	return &Builder{
		head: head, p: p, maxTimeout: p.MaxTimeout,
		hists: histSet{}, status: map[string]int64{}, errors: map[string]int64{}, samples: map[string]ErrorSample{},
	}
}

// Add merges part into the figures so far and keeps no reference to it (its histograms are
// merged into the profile geometry, HistogramLowest to HistogramHighest at HistogramDigits).
func (b *Builder) Add(part Part) {
	b.hists.merge(part.Series)
	for k, v := range part.Status {
		b.status[k] += v
	}
	for k, v := range part.Errors {
		b.errors[k] += v
	}
	for k, v := range part.ErrorSamples {
		if _, ok := b.samples[k]; !ok {
			b.samples[k] = v
		}
	}
	b.requests += part.Requests
	b.responses += part.Responses
	b.cut += part.InterruptedInFlight
	b.streams.Add(part.Streams)
}

// Close grades what was added: summaries, schedule, recommendation, cut-off curve, bars and
// encoded histograms. It copies what it keeps, so more parts may be added after it.
func (b *Builder) Close() (*Profile, error) {
	res := b.head
	res.Schema = Schema
	res.Requests, res.Responses, res.InterruptedInFlight = b.requests, b.responses, b.cut
	res.Status = copyCounts(b.status)
	res.Errors = map[string]int64{}
	for _, c := range ErrorClasses {
		if listedWhenZero(c) || b.errors[c] > 0 {
			res.Errors[c] = b.errors[c]
		}
	}
	res.ErrorSamples = make(map[string]ErrorSample, len(b.samples))
	for k, v := range b.samples {
		res.ErrorSamples[k] = v
	}
	maxTimeout := b.maxTimeout
	if maxTimeout <= 0 {
		maxTimeout = DefaultMaxTimeout
	}
	res.MaxTimeoutMs = ms(maxTimeout)
	b.summarize(&res)
	b.recommend(&res, maxTimeout)
	total := b.hists.combined(SeriesTotalFresh, SeriesTotalReused)
	res.Distribution = distribution(total)
	res.Notes = notes(&res, maxTimeout)
	if err := b.encode(&res, total); err != nil {
		return nil, err
	}
	return &res, nil
}

// summarize fills the phase summaries and the send lateness.
func (b *Builder) summarize(res *Profile) {
	hs := b.hists
	res.Phases = Phases{
		DNS:     summarize(hs.get(SeriesDNS)),
		Connect: summarize(hs.get(SeriesConnect)),
		TLS:     summarize(hs.get(SeriesTLS)),
		TTFB:    summarizeSplit(hs.get(SeriesTTFBFresh), hs.get(SeriesTTFBReused)),
		Silence: summarizeSplit(hs.get(SeriesSilenceFresh), hs.get(SeriesSilenceReused)),
		Total:   summarizeSplit(hs.get(SeriesTotalFresh), hs.get(SeriesTotalReused)),
		Sent:    summarizeSplit(hs.get(SeriesSentFresh), hs.get(SeriesSentReused)),
	}
	summarizeStreamPhases(&res.Phases, b.streams, hs)
	res.Streams = summarizeStreams(b.streams, hs)
	res.Schedule.LateP99Ms = quantileMs(hs.get(SeriesLate), 0.99)
}

// recommend fills the recommendation and the cut-off curve.
func (b *Builder) recommend(res *Profile, maxTimeout time.Duration) {
	hs := b.hists
	ev := Evidence{
		Good: HistogramLatencies(hs.get(SeriesGood)), NoAnswer: res.Errors["timeout"], MaxTimeout: maxTimeout,
		Connect: HistogramLatencies(hs.get(SeriesConnect)),
		Silence: HistogramLatencies(hs.get(SeriesSilenceGood)),
		Status:  res.Status, Errors: res.Errors, ErrorSamples: res.ErrorSamples,
		Unreachable: res.Unreachable, Schedule: res.Schedule,
		MeanMs: meanMs(hs.combined(SeriesTotalFresh, SeriesTotalReused)),
	}
	ev.RatePerS, ev.RateFrom = res.callerRate()
	ev.Stream = streamEvidence(res.Streams, b.hists)
	ev.creditStreams()
	caller := b.p.Caller
	if caller.Method == "" {
		caller.Method = res.Target.Method
	}
	caller.IdempotencyKey = caller.IdempotencyKey || hasIdempotencyKey(res.Target)
	res.Recommendation = Recommend(ev, caller, b.p.Options)
	res.CutoffCurve = cutoffCurve(ev, res.Recommendation.TimeoutMs)
}

// encode writes the total histogram and every series.
func (b *Builder) encode(res *Profile, total *hdrhistogram.Histogram) error {
	var err error
	if res.Histogram, err = EncodeHistogram(total); err != nil {
		return err
	}
	res.Histograms = map[string]string{}
	for _, name := range series {
		if res.Histograms[name], err = EncodeHistogram(b.hists.get(name)); err != nil {
			return err
		}
	}
	// Blended fresh+reused series for readers that want one histogram per phase; Merge
	// reads only the split series above, so nothing is counted twice.
	for _, name := range []string{"ttfb", "total", "sent", "silence"} {
		if res.Histograms[name], err = EncodeHistogram(b.hists.combined(name+".fresh", name+".reused")); err != nil {
			return err
		}
	}
	return encodeStreamSeries(res.Histograms, b.hists)
}

// hasIdempotencyKey reports whether a target's (redacted) headers carry an Idempotency-Key.
func hasIdempotencyKey(t Target) bool {
	for _, h := range t.Headers {
		name, _, _ := strings.Cut(h, ":")
		if strings.EqualFold(strings.TrimSpace(name), "Idempotency-Key") {
			return true
		}
	}
	return false
}

func copyCounts(in map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// notes explains what limits the measurement, in the order a reader needs them.
func notes(res *Profile, maxTimeout time.Duration) []string {
	out := []string{}
	if res.Unreachable {
		out = append(out, fmt.Sprintf("stopped early: the first %d requests could not connect (%s) and none got a response", UnreachableAfter, errorSummary(res.Errors)))
	} else if res.Requests > 0 && res.Answered() == 0 {
		out = append(out, fmt.Sprintf("every request failed (%s): nothing was measured", errorSummary(res.Errors)))
	}
	if res.Interrupted {
		cut := ""
		if res.InterruptedInFlight > 0 {
			cut = fmt.Sprintf("; %d requests in flight were cut by the interruption and are counted neither as answers nor as failures", res.InterruptedInFlight)
		}
		out = append(out, "interrupted: these figures cover the part of the run that finished"+cut)
	}
	s := res.Schedule
	if s.RequestedPerS != nil && !s.RateHeld && !res.Unreachable {
		out = append(out, fmt.Sprintf("the generator did not keep the rate: %.4g/s achieved of %.4g/s requested, it ended %s; the load, not only the target, shaped these figures",
			s.AchievedPerS, *s.RequestedPerS, RateRule))
	}
	if s.Resent > 0 {
		out = append(out, fmt.Sprintf("%d idempotent requests were sent a second time on a new connection: the server had closed the kept-alive one before any response (their latency includes the first try)", s.Resent))
	}
	if s.Dropped > 0 {
		out = append(out, fmt.Sprintf("%d sends were dropped: all %d in-flight slots were taken until they were more than %s late", s.Dropped, s.MaxInFlight, units.Millis(ms(maxTimeout))))
	}
	if res.Model == "closed" {
		out = append(out, "closed model: each worker waits for its previous response, so a stall delays the next sends instead of showing in their latency (coordinated omission); use --rate for tail latency")
	}
	return out
}

// errorSummary lists the nonzero error classes: "refused: 5, dns: 1".
func errorSummary(errs map[string]int64) string {
	var parts []string
	for _, c := range ErrorClasses {
		if errs[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", c, errs[c]))
		}
	}
	if len(parts) == 0 {
		return "no errors"
	}
	return strings.Join(parts, ", ")
}

// cutoffCurve is the share of requests each candidate timeout would cut off: at p90, p99,
// p99.9 and p99.99 of good and censored requests together (the unanswered, and the streams
// still streaming at --max-timeout: a total cuts both), at --max-timeout when there are any,
// and at the recommended timeout. A quantile among the unanswered requests lies
// beyond --max-timeout (Beyond).
func cutoffCurve(ev Evidence, recommendedMs float64) []Cutoff {
	good := ev.Good.Count()
	n := good + ev.Censored()
	cutAt := func(t float64) *float64 {
		if n == 0 {
			return ptr(0)
		}
		return ptr(float64(ev.Good.Above(t)+ev.Censored()) / float64(n))
	}
	out := []Cutoff{}
	for _, cq := range []float64{0.90, 0.99, 0.999, 0.9999} {
		c := Cutoff{Label: QuantileLabel(cq), Samples: n}
		if v, beyond, ok := CensoredQuantile(ev.Good, ev.Censored(), cq); ok {
			if beyond {
				c.Beyond = true
			} else {
				c.TimeoutMs, c.CutRate = ptr(v), cutAt(v)
			}
		}
		out = append(out, c)
	}
	if ev.Censored() > 0 {
		t := ms(ev.MaxTimeout)
		out = append(out, Cutoff{Label: "max-timeout", TimeoutMs: ptr(t), CutRate: cutAt(t), Samples: n})
	}
	if recommendedMs > 0 {
		out = append(out, Cutoff{Label: "recommended", TimeoutMs: ptr(recommendedMs), CutRate: cutAt(recommendedMs), Samples: n})
	}
	return out
}
