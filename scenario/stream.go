package scenario

import (
	"math/rand/v2"
	"time"
)

// StreamFormat is the wire format of a streaming target's responses (docs/design.md §4,
// the target model: streams).
type StreamFormat string

// Stream formats.
const (
	// StreamSSE is text/event-stream: each event is `data: ...` and a blank line, and a
	// completed stream ends with `data: [DONE]` so a client can tell completion from a cut.
	StreamSSE StreamFormat = "sse"
	// StreamNDJSON is application/x-ndjson: one JSON object per line; a completed stream
	// ends with the chunked terminator, a cut one without it.
	StreamNDJSON StreamFormat = "ndjson"
)

// streamFormats are the accepted values of target.stream.format, the default first.
var streamFormats = []StreamFormat{StreamSSE, StreamNDJSON}

// ContentType is the media type a stream of format f is served as.
func (f StreamFormat) ContentType() string {
	if f == StreamNDJSON {
		return "application/x-ndjson"
	}
	return "text/event-stream"
}

// Stream is a streaming target (target.stream): every answered request gets a response
// whose head goes at once, whose first event comes FirstEvent later and whose next events
// each come Gap after the one before, Events in all. serve sends it; the simulator models
// it (docs/design.md §6, streams).
type Stream struct {
	Format StreamFormat
	// FirstEvent is the wait from the request read to the first event; a phase may
	// replace it (Phase.FirstEvent: a slow first token under load).
	FirstEvent Distribution
	// Gap is the silence between two events; a phase may replace it (Phase.Gap).
	Gap Distribution
	// Events is how many events a stream that is not cut sends.
	Events EventCount
	// Drop is the share of streams cut mid-way: the connection closes where the next
	// event would have gone, without the final event or the chunked terminator.
	Drop float64
	// Stall makes a share of streams pause once mid-stream (nil = never).
	Stall *StreamStall
}

// EventCount is the number of events of one stream: uniform on [Min, Max] (Min == Max for
// a fixed count).
type EventCount struct {
	Min, Max int
}

// Sample draws one stream's event count.
func (c EventCount) Sample(r *rand.Rand) int {
	if c.Max <= c.Min {
		return c.Min
	}
	return c.Min + r.IntN(c.Max-c.Min+1)
}

// StreamStall is a mid-stream stall: Percent of streams (a share of 1) pause once, For
// (scenario time) beyond the gap, before an event drawn uniformly among those after the
// first.
type StreamStall struct {
	Percent float64
	For     time.Duration
}

// StreamFirstEvent is the first-event distribution in force in phase (an index of
// sc.Target.Phases, -1 for none): the phase's when it sets one, else the stream's. nil when
// the target does not stream.
func (sc *Scenario) StreamFirstEvent(phase int) *Distribution {
	st := sc.Target.Stream
	if st == nil {
		return nil
	}
	if phase >= 0 && sc.Target.Phases[phase].FirstEvent != nil {
		return sc.Target.Phases[phase].FirstEvent
	}
	return &st.FirstEvent
}

// StreamGap is the gap distribution in force in phase, as StreamFirstEvent.
func (sc *Scenario) StreamGap(phase int) *Distribution {
	st := sc.Target.Stream
	if st == nil {
		return nil
	}
	if phase >= 0 && sc.Target.Phases[phase].Gap != nil {
		return sc.Target.Phases[phase].Gap
	}
	return &st.Gap
}

// streamLength is the expected length of the longest stream: the mean first event, the
// most events' mean gaps and a stall, the figure the loader bounds by maxStreamTime.
// It is in float64 seconds: a long mean gap times many events overflows a Duration.
func streamLength(first, gap *Distribution, events int, stall *StreamStall) float64 {
	d := first.Mean().Seconds() + float64(max(events-1, 0))*gap.Mean().Seconds()
	if stall != nil {
		d += stall.For.Seconds()
	}
	return d
}
