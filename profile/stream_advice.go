package profile

import (
	"fmt"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/verdict"
)

// Advice for streams (issue 29 item 2, docs/design.md §7 "Streams"): a streaming response has
// two waits a timeout must tell apart from a failure — the first event, and each gap between
// two events — and a length that is the content's. One total cannot do it: long enough for the
// longest legitimate stream, it is useless for catching a stalled one.

// StreamEvidence is what the stream advice reads: the stream phases a probe measured
// (Phases.FirstEvent, Phases.Gap, Streams) as distributions.
type StreamEvidence struct {
	// Counts counts the streams: completed, cut, still open at --max-timeout.
	Counts StreamCounts
	// FirstEvent is each stream's first event (intended send → first complete event); Gap one
	// sample per silence between two events; Total the length of each completed stream.
	FirstEvent, Gap, Total Latencies
	// EventsLow is the events of the shortest complete streams: the 1st percentile of the
	// streams not cut, taking the cut ones to be the shortest (they ended early); EventsMax
	// the most events of one stream (0: not known).
	EventsLow, EventsMax int64
}

// StreamAdvice is the recommendation for a streaming response, on Recommendation as its
// own JSON fields (absent for a dependency that does not stream). Each figure is null when it
// could not be derived, the reason in the derivation.
type StreamAdvice struct {
	// FirstEventTimeoutMs bounds the wait for the first event, from the send: the cut-off
	// quantile of first_event × headroom, on the ladder.
	FirstEventTimeoutMs *float64 `json:"first_event_timeout_ms"`
	// IdleTimeoutMs bounds each gap between two events: the gap quantile IdleGapQuantile ×
	// headroom, on the ladder. A stream is cut when any of its gaps outlasts it, so the
	// per-gap quantile is 1 − cutoff/N̄ (N̄ gaps per stream), which keeps the share of whole
	// streams cut at or below the cut-off.
	IdleTimeoutMs   *float64 `json:"idle_timeout_ms"`
	IdleGapQuantile float64  `json:"idle_gap_quantile"`
	// StreamTimeoutMs bounds a whole stream: the cut-off quantile of the completed streams'
	// totals × headroom, when the streams seen are complete and bounded; null otherwise, and
	// StreamUnbounded says why.
	StreamTimeoutMs *float64 `json:"stream_timeout_ms"`
	StreamUnbounded string   `json:"stream_unbounded,omitempty"`
}

// PerReadMs is the one figure for a client or proxy whose only silence knob bounds every
// read, the first event's wait included (httpx read, OkHttp readTimeout, nginx
// proxy_read_timeout): the larger of the first-event and idle timeouts — set to the idle
// timeout alone it would cut a first event that takes longer. 0 when neither was derived.
func (a *StreamAdvice) PerReadMs() float64 {
	if a == nil {
		return 0
	}
	var v float64
	for _, p := range []*float64{a.FirstEventTimeoutMs, a.IdleTimeoutMs} {
		if p != nil {
			v = max(v, *p)
		}
	}
	return v
}

// StreamContentSpread is how far the longest stream's event count may lie above that of the
// shortest complete streams (EventsLow) for the lengths seen to bound the next stream: beyond
// 2×, the number of events — the answer's length — varies with the content, and a total
// fitted to the streams seen would cut the next longer answer, which is not a failure.
const StreamContentSpread = 2

// StreamUnboundedAdvice ends every "unbounded" reason: what bounds a stream instead.
const StreamUnboundedAdvice = "a stream's length is the content's, not the dependency's health; bound it by the first-event and idle timeouts"

// adviseStream is the stream stage of Recommend: nil for a dependency that does not stream.
func (r *recommender) adviseStream() *StreamAdvice {
	s := r.ev.Stream
	if s == nil || s.Counts.Count == 0 {
		return nil
	}
	a := &StreamAdvice{}
	a.FirstEventTimeoutMs = r.streamFirstEvent(s)
	a.IdleTimeoutMs, a.IdleGapQuantile = r.streamIdle(s)
	a.StreamTimeoutMs, a.StreamUnbounded = r.streamTotal(s)
	if r.rec.TimeoutMs > 0 {
		r.rec.Derivation = append(r.rec.Derivation, fmt.Sprintf(
			"timeout: for this stream, the %s total is fitted to the whole responses seen — long enough for the longest legitimate stream, so it cannot catch a stalled one: the first-event and idle timeouts do (check's PT rules compare it as the total)",
			units.Millis(r.rec.TimeoutMs)))
	}
	return a
}

// streamBasis is the q-quantile of l with censored values counted above every one, and how
// it was read: at its rank with the 95% CI, or the slowest seen (a lower bound) when fewer
// than units samples back it; ok is false when the rank falls among the censored.
func (r *recommender) streamBasis(l Latencies, censored, backing, need int64, q float64) (basis float64, how string, ok bool) {
	good := l.Count()
	n := good + censored
	label := QuantileLabel(q)
	if backing < need {
		return l.AtRank(good), fmt.Sprintf("%s needs ≥ %s streams, have %s: the longest seen, %s (a lower bound on %s)",
			label, units.Count(int(need)), units.Count(int(backing)), units.Millis(l.AtRank(good)), label), true
	}
	rank := quantileRank(n, q)
	if rank > good {
		return 0, "", false
	}
	basis = l.AtRank(rank)
	low, high, open := QuantileCI(n, q, 0.95)
	ci := fmt.Sprintf("95%% CI %s–%s", units.Millis(l.AtRank(low)), units.Millis(l.AtRank(high)))
	if open || high > good {
		ci = fmt.Sprintf("95%% CI from %s, open above", units.Millis(l.AtRank(low)))
	}
	return basis, fmt.Sprintf("%s = %s (n=%s; %s)", label, units.Millis(basis), units.Count(int(n)), ci), true
}

// streamLine rounds basis × headroom up on the ladder and writes the derivation line.
func (r *recommender) streamLine(name, of, how string, basis float64) *float64 {
	raw := basis * r.o.Headroom
	v := RoundUpClean(raw)
	r.rec.Derivation = append(r.rec.Derivation, fmt.Sprintf("%s: %s, %s × %g headroom = %s → %s (rounded up on the ladder)",
		name, of, how, r.o.Headroom, units.Millis(raw), units.Millis(v)))
	return ptr(v)
}

// streamFirstEvent is the first-event timeout: the cut-off quantile of first_event, the
// requests with no answer at all (no head within --max-timeout, so no first event) counted
// as longer.
func (r *recommender) streamFirstEvent(s *StreamEvidence) *float64 {
	if s.FirstEvent == nil || s.FirstEvent.Count() == 0 {
		r.rec.Derivation = append(r.rec.Derivation, "first-event timeout: none — no stream sent an event")
		return nil
	}
	// The unanswered (NoAnswer) sent no event: no head, or a stream's head and no event within
	// --max-timeout; the streams still streaming then (Outlived) had theirs, in FirstEvent.
	censored := r.ev.NoAnswer
	basis, how, ok := r.streamBasis(s.FirstEvent, censored, s.FirstEvent.Count()+censored, r.need, r.q)
	if !ok {
		r.rec.Derivation = append(r.rec.Derivation, fmt.Sprintf(
			"first-event timeout: none — the %s of the first event lies among the %s requests with no answer within %s (they count as longer)",
			r.label, units.Count(int(censored)), r.maxTimeout))
		return nil
	}
	return r.streamLine("first-event timeout", "the first event of each stream (from the send)", how, basis)
}

// idleQuantile is the per-gap quantile that keeps the share of whole streams with any gap
// above it at or below cutoff: a stream is cut when any of its gaps outlasts the idle
// timeout, so P(stream cut) ≤ E[gaps above it per stream] = N̄·(1 − q_gap) (the union bound,
// no independence assumed), and q_gap = 1 − cutoff/N̄ with N̄ = gaps/streams.
func idleQuantile(cutoff float64, gaps, streams int64) float64 {
	if gaps <= 0 || streams <= 0 {
		return 0
	}
	return 1 - cutoff*float64(streams)/float64(gaps)
}

// streamIdle is the idle timeout and the per-gap quantile it rests on.
func (r *recommender) streamIdle(s *StreamEvidence) (*float64, float64) {
	if s.Gap == nil || s.Gap.Count() == 0 {
		r.rec.Derivation = append(r.rec.Derivation, "idle timeout: none — no stream sent two events, so no gap was measured")
		return nil, 0
	}
	gaps, streams := s.Gap.Count(), s.Counts.Count
	q := idleQuantile(r.o.Cutoff, gaps, streams)
	if !(q > 0) {
		basis := s.Gap.AtRank(gaps)
		return r.streamLine("idle timeout", "the gaps between events", fmt.Sprintf("the longest, %s (fewer gaps than the cut-off's share of streams: the longest bounds them all)", units.Millis(basis)), basis), q
	}
	basis, how, _ := r.streamBasis(s.Gap, 0, streams, r.need, q)
	mean := float64(gaps) / float64(streams)
	of := fmt.Sprintf("the gaps between events at the per-gap quantile 1 − %s/N̄, N̄ = %s gaps per stream (%s gaps over %s streams), so that the share of whole streams with any gap above it stays ≤ %s (a stream is cut by any one gap: P(any) ≤ N̄·P(one))",
		percent(r.o.Cutoff), strconvG(mean), units.Count(int(gaps)), units.Count(int(streams)), percent(r.o.Cutoff))
	v := r.streamLine("idle timeout", of, how, basis)
	stalled := s.Gap.Above(*v)
	r.rec.Derivation = append(r.rec.Derivation, fmt.Sprintf(
		"idle timeout: %s of the %s gaps seen lie above it (at most %s of the streams cut); a stall longer than it ends the stream then, where a total would wait it out",
		units.Count(int(stalled)), units.Count(int(gaps)), percent(float64(stalled)/float64(streams))))
	r.explainStalls(s, *v)
	return v, q
}

// explainStalls says what a tighter idle timeout would cost when the per-stream rule puts
// the idle timeout above the gaps' own cut-off quantile on the ladder: the streams with
// longer gaps (stalls) it would end, a choice between ending and retrying them and waiting
// them out.
func (r *recommender) explainStalls(s *StreamEvidence, idle float64) {
	gaps := s.Gap.Count()
	if gaps < r.need {
		return
	}
	own := s.Gap.AtRank(quantileRank(gaps, r.q))
	tight := RoundUpClean(own * r.o.Headroom)
	if tight >= idle {
		return
	}
	above := s.Gap.Above(tight)
	r.rec.Derivation = append(r.rec.Derivation, fmt.Sprintf(
		"idle timeout: the gaps' own %s is %s; an idle timeout of %s (× %g, on the ladder) would end the streams with a gap above it — %s gaps, at most %s of the streams: stalls to end and retry rather than wait out, if the caller prefers, at that share of aborted streams",
		r.label, units.Millis(own), units.Millis(tight), r.o.Headroom, units.Count(int(above)), percent(min(float64(above)/float64(s.Counts.Count), 1))))
}

// strconvG prints a mean with three significant digits.
func strconvG(v float64) string { return fmt.Sprint(roundTo(v, 3)) }

// streamTotal is the stream total: derived from the completed streams' totals when the
// streams seen are complete and bounded, else nil and the reason.
func (r *recommender) streamTotal(s *StreamEvidence) (*float64, string) {
	reason := streamUnboundedReason(s)
	if reason == "" && (s.Total == nil || s.Total.Count() == 0) {
		reason = "no stream completed"
	}
	if reason != "" {
		reason += ": " + StreamUnboundedAdvice
		r.rec.Derivation = append(r.rec.Derivation, "stream total: unbounded — "+reason)
		return nil, reason
	}
	basis, how, _ := r.streamBasis(s.Total, 0, s.Total.Count(), r.need, r.q)
	return r.streamLine("stream total", "the completed streams' totals", how, basis), ""
}

// streamUnboundedReason says why the streams seen do not bound the next one ("" when they do).
func streamUnboundedReason(s *StreamEvidence) string {
	c := s.Counts
	switch {
	case c.TimedOut > 0:
		return fmt.Sprintf("%s streams were still open at --max-timeout, so the longest legitimate stream is longer than any seen", units.Count(int(c.TimedOut)))
	case s.EventsLow > 0 && float64(s.EventsMax) > StreamContentSpread*float64(s.EventsLow):
		return fmt.Sprintf("events per stream range from %s (the shortest complete streams, 1st percentile) to %s (more than %d×), so the length follows the content", units.Count(int(s.EventsLow)), units.Count(int(s.EventsMax)), StreamContentSpread)
	}
	return ""
}

// streamClause is the stream advice in one verdict clause ("" without it).
func streamClause(a *StreamAdvice) string {
	if a == nil {
		return ""
	}
	parts := []string{"first event " + msOrNone(a.FirstEventTimeoutMs), "idle " + msOrNone(a.IdleTimeoutMs)}
	if a.StreamTimeoutMs != nil {
		parts = append(parts, "stream total "+units.Millis(*a.StreamTimeoutMs))
	} else {
		parts = append(parts, "stream total unbounded")
	}
	return "; stream: " + strings.Join(parts, ", ")
}

func msOrNone(p *float64) string {
	if p == nil {
		return "none"
	}
	return units.Millis(*p)
}

// streamEvidence reads a live run's streams (nil when none was seen).
func streamEvidence(s *Streams, hs histSet) *StreamEvidence {
	if s == nil {
		return nil
	}
	return &StreamEvidence{
		Counts:     s.StreamCounts,
		FirstEvent: HistogramLatencies(hs.combined(SeriesFirstEventFresh, SeriesFirstEventReused)),
		Gap:        HistogramLatencies(hs.combined(SeriesGapFresh, SeriesGapReused)),
		Total:      HistogramLatencies(hs.get(SeriesStreamTotal)),
		EventsLow:  eventsLow(hs.get(SeriesStreamEvents), s.Cut),
		EventsMax:  derefCount(s.EventsPerStream.Max),
	}
}

// StreamLowShare is the share of the complete streams whose event count EventsLow reads.
const StreamLowShare = 0.01

// eventsLow is the event count at the 1st percentile of the streams not cut, the cut ones
// (which ended early) taken as the shortest: rank cut + ⌈1%·(n − cut)⌉. 0 without events.
func eventsLow(h *hdrhistogram.Histogram, cut int64) int64 {
	n := h.TotalCount()
	if n == 0 || cut >= n {
		return 0
	}
	rank := cut + quantileRank(n-cut, StreamLowShare)
	return h.ValueAtQuantile(100 * float64(rank) / float64(n))
}

// streamEvidence reads a saved profile's streams: its counts and stream histograms (the split
// series, which Merge keeps; the blended ones are for readers).
func (r *Profile) streamEvidence() (*StreamEvidence, error) {
	hs := histSet{}
	for _, name := range streamSeries {
		enc, ok := r.Histograms[name]
		if !ok {
			continue
		}
		h, err := DecodeHistogram(enc)
		if err != nil {
			return nil, fmt.Errorf("histograms.%s: %v", name, err)
		}
		hs[name] = h
	}
	return streamEvidence(r.Streams, hs), nil
}

func derefCount(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// adviseStreamAlone is the stream stage where no total timeout was derived (the cut-off
// quantile of whole responses lies beyond --max-timeout, as it does when long streams are
// still open then): the first-event and idle timeouts do not need a total, so they are
// derived and said in a verdict clause of their own.
func (r *recommender) adviseStreamAlone() {
	r.rec.StreamAdvice = r.adviseStream()
	r.setBudgetReads()
	r.streamReason()
}

// streamReason says the stream advice in a verdict clause of its own, where no sentence of a
// recommended total carries it (none derived, or the budget cannot hold one call).
func (r *recommender) streamReason() {
	if c := streamClause(r.rec.StreamAdvice); c != "" {
		level := verdict.Good
		if r.ev.Stream.Counts.Count < r.need {
			level = verdict.Provisional
		}
		r.rec.Verdict.Add(CodeStream, level, strings.TrimPrefix(c, "; "))
	}
}
