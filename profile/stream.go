package profile

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Streaming responses (issue 29 item 1): a response that streams — Server-Sent Events,
// NDJSON, or any body with probe's --stream — is also timed event by event. Its series are
// recorded only when a stream was seen, and encoded only when they hold samples, so the
// profile of a run that saw no stream is the document it was before streams were measured.
const (
	// SeriesFirstEventFresh and SeriesFirstEventReused run from the intended send to the end
	// of the stream's first complete event: coordinated omission corrected, as the total is.
	SeriesFirstEventFresh  = "first_event.fresh"
	SeriesFirstEventReused = "first_event.reused"
	// SeriesGapFresh and SeriesGapReused hold one sample per silence between two
	// consecutive events of a stream (the end of one to the end of the next): what an idle
	// timeout must outlast. They lie inside one response and need no correction. They are
	// recorded as they are read, so a stream cut by the run's end (Ctrl-C) leaves the gaps
	// it had, though the request is counted neither as an answer nor as a failure.
	SeriesGapFresh  = "gap.fresh"
	SeriesGapReused = "gap.reused"
	// SeriesStreamTotal is the total (intended send to the end of the body) of the streams
	// that completed; SeriesStreamEvents the number of complete events of every stream,
	// completed, cut or timed out (a count, not µs).
	SeriesStreamTotal  = "stream.total"
	SeriesStreamEvents = "stream.events"
)

// streamSeries lists the stream series in the order a probe's recorder indexes them, after
// series.
var streamSeries = []string{
	SeriesFirstEventFresh, SeriesFirstEventReused, SeriesGapFresh, SeriesGapReused,
	SeriesStreamTotal, SeriesStreamEvents,
}

// ErrorStreamCut is the error class of a stream cut mid-way: after the response head said it
// streams, the connection closed or was reset, or the body ended without its terminator (a
// chunked body without its last chunk), before --max-timeout (a stream still open then is a
// timeout). It is not a success, and not a plain reset: the server had answered.
const ErrorStreamCut = "stream_cut"

// listedWhenZero reports whether an error class is present in Profile.Errors even at zero:
// every class but stream_cut, which appears only when a stream was cut, so a profile
// without streams is the document it was before.
func listedWhenZero(class string) bool { return class != ErrorStreamCut }

// StreamCounts counts the streaming responses of a measurement. They add up across parts.
type StreamCounts struct {
	// Count is every response detected as a stream that reached the probe's tally:
	// Completed + Cut + TimedOut.
	Count int64 `json:"count"`
	// Completed streams ended with their terminator (a chunked body's last chunk, the
	// Content-Length reached, or the connection closed where the body runs until close).
	Completed int64 `json:"completed"`
	// Cut streams ended mid-way (Errors["stream_cut"]).
	Cut int64 `json:"cut"`
	// TimedOut streams were still open at --max-timeout: the probe cut them, they count as
	// timeouts (Errors["timeout"]) and their first event and gaps seen so far are kept.
	TimedOut int64 `json:"timed_out"`
	// Streaming counts the TimedOut streams that had sent their first event: still streaming
	// when the probe stopped waiting, they are answered calls whose length is at least
	// --max-timeout (Evidence.Outlived), not requests without an answer. The rest of
	// TimedOut sent no event within --max-timeout and are unanswered.
	Streaming int64 `json:"streaming_at_max_timeout"`
	// MaxEvents is the most events of one stream, exact (the histogram's is within 0.1%
	// past 2,048): Streams shows it as events_per_stream.max.
	MaxEvents int64 `json:"-"`
}

// Add adds o to c.
func (c *StreamCounts) Add(o StreamCounts) {
	c.Count += o.Count
	c.Completed += o.Completed
	c.Cut += o.Cut
	c.TimedOut += o.TimedOut
	c.Streaming += o.Streaming
	c.MaxEvents = max(c.MaxEvents, o.MaxEvents)
}

// Streams summarizes the streaming responses of a measurement (nil in a profile that saw
// none).
type Streams struct {
	StreamCounts
	// EventsPerStream is the number of complete events per stream, over every stream: p50
	// and p99 from the histogram (exact up to 2,048 events, within 0.1% beyond), max exact.
	EventsPerStream EventCounts `json:"events_per_stream"`
	// TotalMs is the total latency of the completed streams (intended send to the end of
	// the body): the length of a stream a total timeout would have to allow.
	TotalMs *Summary `json:"total_ms"`
}

// EventCounts is a distribution of counts. A quantile without 1/(1-q) samples behind it is
// nil, as in Summary.
type EventCounts struct {
	P50 *int64 `json:"p50"`
	P99 *int64 `json:"p99"`
	Max *int64 `json:"max"`
}

// RecordCount records a count (0 included) in a histogram of the profile geometry, clamped
// to its top.
func RecordCount(h *hdrhistogram.Histogram, n int64) {
	_ = h.RecordValue(min(max(n, 0), HistogramHighest))
}

// summarizeStreams is the streams summary of counts c over hs; nil when no stream was seen.
func summarizeStreams(c StreamCounts, hs histSet) *Streams {
	if c.Count == 0 {
		return nil
	}
	events := hs.get(SeriesStreamEvents)
	s := &Streams{StreamCounts: c, TotalMs: summarize(hs.get(SeriesStreamTotal))}
	s.EventsPerStream.P50 = quantileCount(events, 0.50)
	s.EventsPerStream.P99 = quantileCount(events, 0.99)
	if events.TotalCount() > 0 {
		m := c.MaxEvents
		s.EventsPerStream.Max = &m
	}
	return s
}

// quantileCount is h's value at quantile q, or nil when fewer than 1/(1-q) samples back it.
// Counts below 2048 are exact at the profile's three significant digits.
func quantileCount(h *hdrhistogram.Histogram, q float64) *int64 {
	if h.TotalCount() < SamplesNeeded(q) {
		return nil
	}
	v := h.ValueAtQuantile(q * 100)
	return &v
}

// summarizeStreamPhases fills the first_event and gap phases when a stream was seen; they
// stay nil (absent in JSON) otherwise.
func summarizeStreamPhases(p *Phases, c StreamCounts, hs histSet) {
	if c.Count == 0 {
		return
	}
	p.FirstEvent = summarizeSplit(hs.get(SeriesFirstEventFresh), hs.get(SeriesFirstEventReused))
	p.Gap = summarizeSplit(hs.get(SeriesGapFresh), hs.get(SeriesGapReused))
}

// encodeStreamSeries adds the stream series that hold samples to enc, and the blended
// "first_event" and "gap" (for readers that want one histogram per phase; Merge reads only
// the split ones).
func encodeStreamSeries(enc map[string]string, hs histSet) error {
	var err error
	for _, name := range streamSeries {
		if h, ok := hs[name]; ok && h.TotalCount() > 0 {
			if enc[name], err = EncodeHistogram(h); err != nil {
				return err
			}
		}
	}
	for _, name := range []string{"first_event", "gap"} {
		if h := hs.combined(name+".fresh", name+".reused"); h.TotalCount() > 0 {
			if enc[name], err = EncodeHistogram(h); err != nil {
				return err
			}
		}
	}
	return nil
}
