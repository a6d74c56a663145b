package scenario

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// The stream target model (target.stream, a phase's first_event and gap): its field tables
// and decoders. A stream is serve's alone, as a drip fault is: the simulator does not model
// a body's pace, so replay, storm and check refuse a file with one.

// Bounds of a stream. The length bound is the drip's (an hour; a stream slower than that is
// a hang); the event bound keeps a typo (1000000000 for 1000) from being a valid file while
// leaving room for an hour of tokens at 25 a second — an LLM answer is hundreds to tens of
// thousands of tokens. serve holds one event's bytes at a time whatever the count, so
// neither bound is about memory.
const (
	defaultStreamEvents = 100
	maxStreamEvents     = 100_000
	maxStreamTime       = maxDripTime
)

// defaultStream is the stream of a `stream:` mapping before its fields are read.
func defaultStream() Stream {
	return Stream{Format: streamFormats[0], Events: EventCount{Min: defaultStreamEvents, Max: defaultStreamEvents}}
}

var streamTable = newTable("stream", "target.stream", "target.stream",
	"A streaming target (serve plays it; replay and storm simulate it: docs/design.md §6, streams). Every answered request gets 200 with its head at once, "+
		"its first event first_event later, then each next event gap after the one before, each flushed. "+
		"A completed SSE stream ends with `data: [DONE]`, written with the last event (it opens no silence and is not counted as an event); "+
		"a cut one closes without it. drop and stall share one draw per stream, so their shares add up (at most 100%). "+
		"Every wait is scaled by serve's --speed and pauses through stall phases. "+
		"The expected length of the longest stream (mean first_event, mean gap between the most events, the stall) is at most "+
		FormatDuration(maxStreamTime)+".",
	field{Name: "format", decode: (*streamReader).format, Type: choiceType(streamFormats), Default: string(defaultStream().Format),
		Doc:     "sse: text/event-stream, events `data: {...}`; ndjson: application/x-ndjson, one JSON object per line.",
		Example: "format: ndjson\nfirst_event: {fixed: 200ms}\ngap: {fixed: 20ms}"},
	field{Name: "first_event", decode: (*streamReader).firstEvent, Type: "distribution", Default: "required", Table: "distribution", Shape: shapeMapping,
		Doc:     "The wait from the request read to the first event (an LLM's time to first token).",
		Example: "first_event: {p50: 400ms, p99: 3s}\ngap: {fixed: 20ms}"},
	field{Name: "gap", decode: (*streamReader).gap, Type: "distribution", Default: "required", Table: "distribution", Shape: shapeMapping,
		Doc:     "The silence between two events (the time per token).",
		Example: "first_event: {fixed: 200ms}\ngap: {p50: 20ms, p99: 150ms}"},
	field{Name: "events", decode: (*streamReader).events, Type: fmt.Sprintf("whole number 1–%d, or {uniform: [A, B]}", maxStreamEvents),
		Default: fmt.Sprint(defaultStreamEvents), Table: "stream_events", Shape: shapeMapping,
		Doc:     "How many events a stream that is not cut sends: this many, or uniform between A and B.",
		Example: "first_event: {fixed: 200ms}\ngap: {fixed: 20ms}\nevents: {uniform: [50, 400]}"},
	field{Name: "drop", decode: (*streamReader).drop, Type: "percentage", Default: pctText(0),
		Doc:     "This share of streams is cut mid-way: the connection closes where an event drawn uniformly among them would have gone (a proxy or a load balancer giving up on it).",
		Example: "first_event: {fixed: 200ms}\ngap: {fixed: 20ms}\ndrop: 2%"},
	field{Name: "stall", decode: (*streamReader).stall, Type: "mapping", Default: "none", Table: "stream_stall", Shape: shapeMapping,
		Doc:     "This share of streams pauses once mid-stream, before an event drawn uniformly after the first.",
		Example: "first_event: {fixed: 200ms}\ngap: {fixed: 20ms}\nstall: {percent: 5%, for: 20s}"},
)

var streamEventsTable = newTable("stream_events", "target.stream.events", "target.stream.events",
	"An event count drawn per stream.",
	field{Name: "uniform", Type: "[low, high], whole numbers", Default: "—",
		Doc: "Uniform between low and high, both included.", Example: "uniform: [50, 400]"},
)

var streamStallTable = newTable("stream_stall", "target.stream.stall", "target.stream.stall",
	"A mid-stream stall: the pause a slow upstream or a GC gives a stream already under way.",
	field{Name: "percent", Type: "percentage", Default: "required",
		Doc: "The share of streams that stall.", Example: "percent: 5%\nfor: 20s"},
	field{Name: "for", Type: "duration above 0", Default: "required",
		Doc: "How long the stall adds to the gap before its event.", Example: "percent: 5%\nfor: 20s"},
)

// stream reads target.stream into the target. serve plays it on the wire and the simulator
// models it (docs/design.md §6, streams), so every purpose loads it.
func (tr *targetReader) stream(e Entry, path string) error {
	st, err := tr.d.stream(e.Val, path, tr.dir)
	if err != nil {
		return err
	}
	tr.t.Stream = st
	return nil
}

// stream decodes a `stream:` mapping through streamTable's rows, then its required
// distributions and its length bound.
func (d *decoder) stream(n *yaml.Node, path, dir string) (*Stream, error) {
	f, err := d.fields(n, path, streamTable)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"first_event", "gap"} {
		if _, ok := f[k]; !ok {
			return nil, d.Errf(n, JoinPath(path, k), "required, e.g. {p50: 400ms, p99: 3s} or {fixed: 20ms}")
		}
	}
	sr := &streamReader{d: d, dir: dir, st: defaultStream()}
	if err := decodeRows(streamTable, f, path, sr); err != nil {
		return nil, err
	}
	if st := &sr.st; st.Stall != nil && st.Drop+st.Stall.Percent > 1+1e-9 {
		return nil, d.Errf(f["stall"].Val, JoinPath(path, "stall.percent"), "drop and stall add up to %s%%, over 100%% (they share one draw per stream)",
			trimFloat((st.Drop+st.Stall.Percent)*100))
	}
	if err := d.streamFits(&sr.st.FirstEvent, &sr.st.Gap, &sr.st, n, path); err != nil {
		return nil, err
	}
	return &sr.st, nil
}

// streamFits refuses a stream whose expected longest length (streamLength, with the
// first-event and gap distributions given) is over maxStreamTime, at n.
func (d *decoder) streamFits(first, gap *Distribution, st *Stream, n *yaml.Node, path string) error {
	if l := streamLength(first, gap, st.Events.Max, st.Stall); l > maxStreamTime.Seconds() {
		return d.Errf(n, path, "%d events with a mean gap of %s take about %s, over %s: a stream that slow is a hang (write a hang fault)",
			st.Events.Max, FormatDuration(gap.Mean()), FormatDuration(time.Duration(min(l, maxDuration.Seconds())*1e9)), FormatDuration(maxStreamTime))
	}
	return nil
}

// streamReader reads a `stream:` mapping into st: its methods are the decode steps of
// streamTable's rows.
type streamReader struct {
	d   *decoder
	dir string
	st  Stream
}

func (sr *streamReader) format(e Entry, path string) error {
	names := make([]string, len(streamFormats))
	for i, f := range streamFormats {
		names[i] = string(f)
	}
	s, err := sr.d.Enum(e.Val, path, names...)
	sr.st.Format = StreamFormat(s)
	return err
}

func (sr *streamReader) firstEvent(e Entry, path string) (err error) {
	sr.st.FirstEvent, err = sr.d.distribution(e.Val, path, sr.dir)
	return err
}

func (sr *streamReader) gap(e Entry, path string) (err error) {
	sr.st.Gap, err = sr.d.distribution(e.Val, path, sr.dir)
	return err
}

// events reads a fixed count or {uniform: [A, B]}.
func (sr *streamReader) events(e Entry, path string) error {
	if e.Val.Kind != yaml.MappingNode {
		v, err := sr.d.streamEventCount(e.Val, path)
		sr.st.Events = EventCount{Min: v, Max: v}
		return err
	}
	f, err := sr.d.fields(e.Val, path, streamEventsTable)
	if err != nil {
		return err
	}
	u, ok := f["uniform"]
	if !ok {
		return sr.d.Errf(e.Val, JoinPath(path, "uniform"), "required, e.g. {uniform: [50, 400]}")
	}
	upath := JoinPath(path, "uniform")
	items, err := sr.d.Sequence(u.Val, upath)
	if err != nil {
		return err
	}
	if len(items) != 2 {
		return sr.d.Errf(u.Val, upath, "want [low, high], got %d values", len(items))
	}
	var c EventCount
	if c.Min, err = sr.d.streamEventCount(items[0], IndexPath(upath, 0)); err != nil {
		return err
	}
	if c.Max, err = sr.d.streamEventCount(items[1], IndexPath(upath, 1)); err != nil {
		return err
	}
	if c.Max < c.Min {
		return sr.d.Errf(items[1], IndexPath(upath, 1), "%d is below the low end, %d", c.Max, c.Min)
	}
	sr.st.Events = c
	return nil
}

// streamEventCount is one event count, 1 to maxStreamEvents.
func (d *decoder) streamEventCount(n *yaml.Node, path string) (int, error) {
	v, err := d.Integer(n, path, 1)
	if err == nil && v > maxStreamEvents {
		return 0, d.Errf(n, path, "%d is above the %d events a stream allows", v, maxStreamEvents)
	}
	return v, err
}

func (sr *streamReader) drop(e Entry, path string) (err error) {
	sr.st.Drop, err = sr.d.Percent(e.Val, path)
	return err
}

func (sr *streamReader) stall(e Entry, path string) error {
	f, err := sr.d.fields(e.Val, path, streamStallTable)
	if err != nil {
		return err
	}
	s := &StreamStall{}
	p, ok := f["percent"]
	if !ok {
		return sr.d.Errf(e.Val, JoinPath(path, "percent"), "required: the share of streams that stall, e.g. 5%%")
	}
	if s.Percent, err = sr.d.Percent(p.Val, JoinPath(path, "percent")); err != nil {
		return err
	}
	fo, ok := f["for"]
	if !ok {
		return sr.d.Errf(e.Val, JoinPath(path, "for"), "required: how long a stall lasts, e.g. 20s")
	}
	if s.For, err = sr.d.Positive(fo.Val, JoinPath(path, "for")); err != nil {
		return err
	}
	sr.st.Stall = s
	return nil
}

// phaseStream reads a phase's first_event and gap (f, the phase's entries) into p; whether
// the target streams is checked once the target is read (streamPhases).
func (d *decoder) phaseStream(f map[string]Entry, path, dir string, p *Phase) error {
	for _, k := range []struct {
		key string
		dst **Distribution
	}{{"first_event", &p.FirstEvent}, {"gap", &p.Gap}} {
		fl, ok := f[k.key]
		if !ok {
			continue
		}
		dist, err := d.distribution(fl.Val, JoinPath(path, k.key), dir)
		if err != nil {
			return err
		}
		*k.dst = &dist
	}
	return nil
}

// streamTarget runs once the target's rows are read (f its entries): a stream target has no
// latency (its head goes at once; first_event is its wait), and a target without a stream
// has no phase with first_event or gap. A stream
// target's phase changes its first_event or gap, not a latency it does not have, and keeps
// the stream within maxStreamTime.
func (tr *targetReader) streamTarget(f map[string]Entry, path string) error {
	if lat, ok := f["latency"]; ok && tr.t.Stream != nil {
		return tr.d.Errf(lat.Key, JoinPath(path, "latency"), "a stream target has no latency: its head goes at once and stream.first_event is the wait before its first event")
	}
	if len(tr.t.Phases) == 0 {
		return nil
	}
	items, _ := tr.d.Sequence(f["phases"].Val, JoinPath(path, "phases"))
	for i, ph := range tr.t.Phases {
		if err := tr.streamPhase(items[i], IndexPath(JoinPath(path, "phases"), i), &ph); err != nil {
			return err
		}
	}
	return nil
}

// streamPhase checks one phase (its mapping n) against the target's stream.
func (tr *targetReader) streamPhase(n *yaml.Node, path string, ph *Phase) error {
	st := tr.t.Stream
	keyOf := func(k string) *yaml.Node {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				return n.Content[i]
			}
		}
		return n
	}
	if st == nil {
		for _, k := range []string{"first_event", "gap"} {
			if (k == "first_event" && ph.FirstEvent != nil) || (k == "gap" && ph.Gap != nil) {
				return tr.d.Errf(keyOf(k), JoinPath(path, k), "%s changes a stream target's: set target.stream", k)
			}
		}
		return nil
	}
	if ph.Latency != nil {
		return tr.d.Errf(keyOf("latency"), JoinPath(path, "latency"), "a stream target has no latency: change its first_event or gap")
	}
	first, gap := &st.FirstEvent, &st.Gap
	if ph.FirstEvent != nil {
		first = ph.FirstEvent
	}
	if ph.Gap != nil {
		gap = ph.Gap
	}
	return tr.d.streamFits(first, gap, st, n, path)
}

// serveOnlyError is the error for a bundled serve-only scenario (scenarios.ServeOnly) opened
// for replay, storm or check: what it is and the command that plays it, rather than the
// sections a serve file leaves out.
func serveOnlyError(name string) *Error {
	return &Error{File: "scenarios/" + name + ".yaml", Msg: "a serve-only scenario: its target streams, which the simulator does not model; play it with patience serve " + name}
}
