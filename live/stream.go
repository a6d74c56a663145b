package live

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/scenario"
)

// A stream target (scenario target.stream, docs/design.md §4 "streams") answers every
// request that no fault ended with a stream: 200 and its head at once, the first event
// first_event after the request was read, each next event gap after the one before, each
// written and flushed on its own, and for SSE a final `data: [DONE]` written with the last
// event, so it opens no silence of its own. A dropped stream is cut where an event would
// have gone (panic(http.ErrAbortHandler): net/http closes an HTTP/1 connection without the
// chunked terminator and resets an HTTP/2 stream); a stalled one waits once more before an
// event. Every wait is scaled by --speed and pauses through stall phases, as service does.
//
// Memory is flat however long a stream runs: one event's bytes and one timer per stream,
// and the record below is two fixed-size histograms and counters.

// streamDone is the final SSE event of a completed stream (the issue 29 wire contract).
const streamDone = "data: [DONE]\n\n"

// streamRecord is the server's own record of what its streams sent: counters, and HDR
// histograms (the profile's geometry, µs) of the first event's delay from the request read
// and of the gaps between consecutive event flushes, as flushed, in wall time.
type streamRecord struct {
	started, completed, dropped, stalled, abandoned, events atomic.Int64

	mu         sync.Mutex
	firstEvent *hdrhistogram.Histogram
	gap        *hdrhistogram.Histogram
}

func newStreamRecord() *streamRecord {
	return &streamRecord{firstEvent: profile.NewHistogram(), gap: profile.NewHistogram()}
}

func (rec *streamRecord) record(h *hdrhistogram.Histogram, d time.Duration) {
	rec.mu.Lock()
	profile.RecordClamped(h, d.Microseconds())
	rec.mu.Unlock()
}

// StreamStats is the `streams` object of the stats document (issue 29's contract): what
// the server's streams sent, timed by its own clock in wall time (multiply by --speed for
// scenario time). Started = Completed + Dropped + Abandoned + the streams under way.
type StreamStats struct {
	Started int64 `json:"started"`
	// Completed streams sent every event (and, for SSE, [DONE]).
	Completed int64 `json:"completed"`
	// Dropped streams were cut mid-way by the scenario's drop.
	Dropped int64 `json:"dropped"`
	// Stalled streams paused once mid-stream (the scenario's stall); they are also counted
	// by how they ended.
	Stalled int64 `json:"stalled"`
	// Abandoned streams ended early because the client went away (a timeout, a cut on its
	// side) or the server stopped.
	Abandoned int64 `json:"abandoned"`
	// Events counts the events written and flushed ([DONE] is not an event).
	Events int64 `json:"events"`
	// FirstEventMs is the delay from the request read to the first event's flush; GapMs
	// the time between consecutive event flushes of one stream.
	FirstEventMs StreamSummary `json:"first_event_ms"`
	GapMs        StreamSummary `json:"gap_ms"`
}

// StreamSummary is one histogram of StreamStats in milliseconds. A quantile without at
// least 1/(1-q) samples behind it is null (docs/design.md §7: never an invented percentile).
type StreamSummary struct {
	P50   *float64 `json:"p50"`
	P90   *float64 `json:"p90"`
	P99   *float64 `json:"p99"`
	P999  *float64 `json:"p999"`
	Max   *float64 `json:"max"`
	Count int64    `json:"count"`
}

// summarizeStream is h's StreamSummary.
func summarizeStream(h *hdrhistogram.Histogram) StreamSummary {
	s := StreamSummary{Count: h.TotalCount()}
	if s.Count == 0 {
		return s
	}
	at := func(q float64) *float64 {
		if s.Count < profile.SamplesNeeded(q) {
			return nil
		}
		v := float64(h.ValueAtQuantile(q*100)) / 1000
		return &v
	}
	s.P50, s.P90, s.P99, s.P999 = at(0.50), at(0.90), at(0.99), at(0.999)
	m := float64(h.Max()) / 1000
	s.Max = &m
	return s
}

// stats is a snapshot of the record.
func (rec *streamRecord) stats() *StreamStats {
	st := &StreamStats{
		Started: rec.started.Load(), Completed: rec.completed.Load(), Dropped: rec.dropped.Load(),
		Stalled: rec.stalled.Load(), Abandoned: rec.abandoned.Load(), Events: rec.events.Load(),
	}
	rec.mu.Lock()
	st.FirstEventMs = summarizeStream(rec.firstEvent)
	st.GapMs = summarizeStream(rec.gap)
	rec.mu.Unlock()
	return st
}

// streamPlan is one stream's draws, made when it starts: how many events, where it is cut
// (-1 = never) or stalls (-1 = never), and the generator its waits draw from, its own so
// that no lock is taken per event.
type streamPlan struct {
	events  int
	cutAt   int // the stream closes instead of writing event cutAt (0-based)
	stallAt int // the wait before event stallAt is longer by the stall
	rng     *rand.Rand
}

// planStream draws a stream's plan: from the simulator's generator of the attempt's stream
// when the request names its logical request and attempt (draws, common random numbers with
// `patience replay`; sim/stream.go streamDraws draws in the same order), else from one seed
// of the server's stream; then from that generator the count and one uniform that drop and
// stall share.
func (s *Server) planStream(st *scenario.Stream, draws *targetDraws) streamPlan {
	var r *rand.Rand
	if draws != nil {
		r = draws.streamRand()
	} else {
		s.mu.Lock()
		seed := s.rng.Uint64()
		s.mu.Unlock()
		r = rand.New(rand.NewPCG(seed, 0x73747265616d)) // "stream"
	}
	p := streamPlan{events: st.Events.Sample(r), cutAt: -1, stallAt: -1, rng: r}
	u := r.Float64()
	switch {
	case u < st.Drop:
		p.cutAt = r.IntN(p.events)
	case st.Stall != nil && u < st.Drop+st.Stall.Percent && p.events > 1:
		p.stallAt = 1 + r.IntN(p.events-1)
	}
	return p
}

// wait draws the wait (scenario time) before event i from the distribution in force in
// phase: first_event for the first, gap for the others, and the stall once.
func (p *streamPlan) wait(sc *scenario.Scenario, i, phase int) time.Duration {
	var d time.Duration
	if i == 0 {
		d = sc.StreamFirstEvent(phase).Sample(p.rng)
	} else {
		d = sc.StreamGap(phase).Sample(p.rng)
	}
	if i == p.stallAt {
		d += sc.Target.Stream.Stall.For
	}
	return d
}

// streamWriter writes one stream's events to w: its format, its buffer (one event) and its
// timer, reused for every wait.
type streamWriter struct {
	s      *Server
	w      http.ResponseWriter
	r      *http.Request
	rc     *http.ResponseController
	format scenario.StreamFormat
	buf    []byte
	timer  *time.Timer
	last   time.Time // the previous flush
}

// serveStream is the application of a stream target: a worker (or 503 over capacity) held
// for the whole stream, the side effect once it is admitted (a generation, billed: counted
// per logical request, so a restarted stream of a non-idempotent request is a duplicate, as
// the simulator counts it at the head), a reset fault's RST, else the stream drawn from
// draws (nil: the server's own stream). readAt is when the request was read, the start of
// first_event.
func (s *Server) serveStream(w http.ResponseWriter, r *http.Request, logical string, draws *targetDraws, readAt time.Time, pi int, reset bool) {
	release, ok := s.admit()
	if !ok {
		s.overflow.Add(1)
		s.plain(w, http.StatusServiceUnavailable, "over capacity")
		return
	}
	defer release()
	s.execute(r, logical)
	if r.Context().Err() != nil {
		s.wasted.Add(1) // its caller left while it waited for a worker
	}
	if reset {
		s.resetConn(w)
		return
	}
	st := s.sc.Target.Stream
	plan := s.planStream(st, draws)
	sw := &streamWriter{s: s, w: w, r: r, rc: http.NewResponseController(w), format: st.Format, timer: time.NewTimer(time.Hour)}
	defer sw.timer.Stop()
	s.streamRec.started.Add(1)
	if plan.stallAt >= 0 {
		s.streamRec.stalled.Add(1)
	}
	if !sw.head() {
		s.streamRec.abandoned.Add(1)
		return
	}
	switch sw.run(plan, readAt, pi) {
	case streamCompleted:
		s.streamRec.completed.Add(1)
	case streamAbandoned:
		s.streamRec.abandoned.Add(1)
	case streamCut:
		s.streamRec.dropped.Add(1)
		panic(http.ErrAbortHandler) // the cut: no final event, no chunked terminator
	}
}

// streamEnd is how a stream ended.
type streamEnd int

const (
	streamCompleted streamEnd = iota // every event, then [DONE] (SSE) and the terminator
	streamCut                        // the scenario's drop
	streamAbandoned                  // the client left or the server stopped
)

// head writes 200 and the stream's head, flushed at once; false when the client is gone.
func (sw *streamWriter) head() bool {
	h := sw.w.Header()
	h.Set("Content-Type", sw.format.ContentType())
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // a proxy in front must not buffer the stream
	sw.s.countStatus(http.StatusOK)
	sw.w.WriteHeader(http.StatusOK)
	return sw.rc.Flush() == nil
}

// run waits for and writes each event of plan, and says how the stream ended. Events
// keep a schedule: the first is due first_event after readAt, each next one gap after the
// previous one was due, so a timer's lateness (a millisecond on a busy host) is not added
// to every gap; an event whose time has passed (a client slow to read) goes at once. The
// phase in force when a wait starts gives its distribution (pi, the arrival's, for the
// first).
func (sw *streamWriter) run(plan streamPlan, readAt time.Time, pi int) streamEnd {
	s := sw.s
	sw.last = readAt
	due := readAt
	for i := range plan.events {
		phase := pi
		if i > 0 {
			phase = s.sc.PhaseAt(s.scenarioTime(due))
		}
		due = due.Add(s.realAdvance(due, plan.wait(s.sc, i, phase)))
		if !sw.waitUntil(due) {
			return streamAbandoned
		}
		if i == plan.cutAt {
			return streamCut
		}
		if !sw.event(i, i == plan.events-1) {
			return streamAbandoned
		}
	}
	return streamCompleted
}

// realAdvance is the wall time a wait of d (scenario time) begun at t takes: d scaled by
// --speed, pausing through the stall phases (scenario.Stalls.Advance, the simulator's rule).
func (s *Server) realAdvance(t time.Time, d time.Duration) time.Duration {
	at := s.scenarioTime(t)
	return s.real(s.stalls.Advance(at, d) - at)
}

// waitUntil waits for the wall time t; false when the client leaves or the server stops
// first.
func (sw *streamWriter) waitUntil(t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return sw.r.Context().Err() == nil
	}
	sw.timer.Reset(d)
	select {
	case <-sw.timer.C:
		return true
	case <-sw.r.Context().Done():
	case <-sw.s.stopping:
	}
	sw.timer.Stop()
	return false
}

// event writes event i (the last one with [DONE] after it, for SSE) and flushes it, then
// records its delay: from the request read for the first, else the gap since the previous
// flush. Each write has WriteTimeout of its own, as a drip's pieces do, so a long stream
// outlasts one while a client that stops reading cannot hold the handler.
func (sw *streamWriter) event(i int, last bool) bool {
	sw.buf = appendEvent(sw.buf[:0], sw.format, i)
	if last && sw.format == scenario.StreamSSE {
		sw.buf = append(sw.buf, streamDone...)
	}
	if d := sw.s.opts.WriteTimeout; d > 0 {
		_ = sw.rc.SetWriteDeadline(time.Now().Add(d))
	}
	if _, err := sw.w.Write(sw.buf); err != nil || sw.rc.Flush() != nil {
		return false
	}
	now := time.Now()
	rec := sw.s.streamRec
	h := rec.gap
	if i == 0 {
		h = rec.firstEvent
	}
	rec.record(h, now.Sub(sw.last))
	rec.events.Add(1)
	sw.last = now
	return true
}

// appendEvent appends event i in format f to b: `data: {"index":i}` and a blank line (SSE)
// or `{"index":i}` and a newline (NDJSON).
func appendEvent(b []byte, f scenario.StreamFormat, i int) []byte {
	if f == scenario.StreamSSE {
		b = append(b, "data: "...)
	}
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, '}', '\n')
	if f == scenario.StreamSSE {
		b = append(b, '\n')
	}
	return b
}
