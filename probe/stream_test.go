package probe_test

import (
	"testing"
	"time"

	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/probe/probetest"
	"github.com/patience-dev/patience/profile"
)

// startStream serves the streaming target and returns its URL and record.
func startStream(t *testing.T, cfg probetest.StreamConfig) (string, *probetest.StreamRecord) {
	t.Helper()
	h, rec := probetest.Stream(cfg)
	return start(t, h), rec
}

// wantStreams checks the exact counts of a run's streams.
func wantStreams(t *testing.T, r *profile.Profile, count, completed, cut, timedOut int64) {
	t.Helper()
	s := r.Streams
	if s == nil {
		t.Fatalf("no streams summary; phases %+v", r.Phases)
	}
	if s.Count != count || s.Completed != completed || s.Cut != cut || s.TimedOut != timedOut {
		t.Errorf("streams count %d completed %d cut %d timed out %d, want %d %d %d %d",
			s.Count, s.Completed, s.Cut, s.TimedOut, count, completed, cut, timedOut)
	}
	if got := r.Errors[profile.ErrorStreamCut]; got != cut {
		t.Errorf("errors.stream_cut %d, want %d", got, cut)
	}
	if _, listed := r.Errors[profile.ErrorStreamCut]; listed != (cut > 0) {
		t.Errorf("errors.stream_cut listed %v with %d cut", listed, cut)
	}
}

func eventsPerStream(t *testing.T, r *profile.Profile, p50, max int64) {
	t.Helper()
	e := r.Streams.EventsPerStream
	if e.P50 == nil || *e.P50 != p50 || e.Max == nil || *e.Max != max {
		t.Errorf("events per stream p50 %v max %v, want %d and %d", e.P50, e.Max, p50, max)
	}
}

// TestStreamSSEAndNDJSON: every SSE and NDJSON response is timed as a stream — its events
// counted exactly, a first event per stream no sooner than the target's first-event delay
// (it counts from the intended send, before the request reached the target), one gap per
// pair of consecutive events, every stream completed.
func TestStreamSSEAndNDJSON(t *testing.T) {
	for _, format := range []string{"sse", "ndjson"} {
		t.Run(format, func(t *testing.T) {
			url, _ := startStream(t, probetest.StreamConfig{Format: format, FirstEvent: 30 * time.Millisecond, Gap: 10 * time.Millisecond, Events: 5})
			r := run(t, probe.Config{URL: url, Rate: 20, Requests: 20, Conn: "both"})
			wantStreams(t, r, 20, 20, 0, 0)
			eventsPerStream(t, r, 5, 5)
			fe, gap := r.Phases.FirstEvent, r.Phases.Gap
			if fe == nil || gap == nil {
				t.Fatalf("phases first_event %v gap %v, want both", fe, gap)
			}
			// --conn both: even sends on a fresh connection, odd ones on a kept one (the first
			// of those dials it): both kinds seen, apart.
			if fe.Count != 20 || fe.Fresh.Count+fe.Reused.Count != 20 || fe.Fresh.Count < 10 || fe.Reused.Count == 0 {
				t.Errorf("first_event count %d (fresh %d, reused %d), want 20 split with at least 10 fresh", fe.Count, fe.Fresh.Count, fe.Reused.Count)
			}
			if fe.MinMs == nil || *fe.MinMs < 30 {
				t.Errorf("first_event min %v ms, want at least the target's 30 ms", fe.MinMs)
			}
			if gap.Count != 20*4 {
				t.Errorf("gap count %d, want 80 (4 per stream of 5 events)", gap.Count)
			}
			if tot := r.Streams.TotalMs; tot == nil || tot.Count != 20 || *tot.MinMs < 30+4*10 {
				t.Errorf("streams total %+v, want 20 completed streams of at least 70 ms", tot)
			}
			if r.Responses != 20 || r.Status["200"] != 20 {
				t.Errorf("responses %d status %v, want 20 answered 200", r.Responses, r.Status)
			}
			for _, name := range []string{"first_event", "gap", profile.SeriesStreamEvents, profile.SeriesStreamTotal} {
				if r.Histograms[name] == "" {
					t.Errorf("histograms.%s missing", name)
				}
			}
		})
	}
}

// TestStreamCut: a stream whose connection closes after its second event, without the rest
// or the chunked terminator, is stream_cut — an error with its sample, not a response and
// not a reset — and its first event and gap still count.
func TestStreamCut(t *testing.T) {
	url, _ := startStream(t, probetest.StreamConfig{FirstEvent: 5 * time.Millisecond, Gap: 5 * time.Millisecond, Events: 5, CutAfter: 2, CutEvery: 2})
	r := run(t, probe.Config{URL: url, Rate: 50, Requests: 20, Conn: "reuse", MaxErrorRate: 0.9})
	wantStreams(t, r, 20, 10, 10, 0)
	eventsPerStream(t, r, 2, 5)
	if r.Errors["reset"] != 0 || r.Responses != 10 {
		t.Errorf("reset %d responses %d, want 0 and the 10 completed streams", r.Errors["reset"], r.Responses)
	}
	if s, ok := r.ErrorSamples[profile.ErrorStreamCut]; !ok || s.Message == "" || s.Hint == "" {
		t.Errorf("stream_cut sample %+v, want a message and a hint", s)
	}
	if r.Phases.FirstEvent.Count != 20 || r.Phases.Gap.Count != 10*4+10*1 {
		t.Errorf("first_event %d gap %d, want 20 and 50 (the cut streams' too)", r.Phases.FirstEvent.Count, r.Phases.Gap.Count)
	}
}

// TestStreamForced: a chunked text/plain body is no stream unless --stream says so; then
// each network read that brings data is an event.
func TestStreamForced(t *testing.T) {
	url, _ := startStream(t, probetest.StreamConfig{Format: "text", FirstEvent: 5 * time.Millisecond, Gap: 20 * time.Millisecond, Events: 4})
	plain := run(t, probe.Config{URL: url, Rate: 50, Requests: 5})
	if plain.Streams != nil || plain.Phases.FirstEvent != nil || plain.Phases.Gap != nil {
		t.Errorf("text/plain without --stream: streams %+v, first_event %v, gap %v; want none", plain.Streams, plain.Phases.FirstEvent, plain.Phases.Gap)
	}
	if _, ok := plain.Histograms["first_event"]; ok {
		t.Error("a run without streams encodes a first_event histogram")
	}
	text, _ := probetest.Stream(probetest.StreamConfig{Format: "text", FirstEvent: 5 * time.Millisecond, Gap: 20 * time.Millisecond, Events: 4})
	h2c := startH2C(t, text)
	for _, cfg := range []probe.Config{
		{URL: url, Rate: 50, Requests: 5, Stream: true},
		{URL: h2c, HTTP: "2", Rate: 50, Requests: 5, Stream: true}, // each DATA frame's read an event
	} {
		r := run(t, cfg)
		wantStreams(t, r, 5, 5, 0, 0)
		eventsPerStream(t, r, 4, 4)
		if r.Phases.FirstEvent.MinMs == nil || *r.Phases.FirstEvent.MinMs < 5 || r.Phases.Gap.Count != 5*3 {
			t.Errorf("%s: first_event %+v gap count %d, want ≥ 5 ms and 15", r.Target.Protocol, r.Phases.FirstEvent, r.Phases.Gap.Count)
		}
	}
}

// TestStreamLongerThanMaxTimeout: a stream still open at --max-timeout is cut by the probe
// and counts as a timeout; its first event and the gaps seen until then are kept, and having
// sent an event it is still streaming (streaming_at_max_timeout): answered, so the
// recommendation has no failure, no tail_beyond, and an unbounded stream total.
func TestStreamLongerThanMaxTimeout(t *testing.T) {
	url, _ := startStream(t, probetest.StreamConfig{FirstEvent: 10 * time.Millisecond, Gap: 100 * time.Millisecond, Events: 20})
	r := run(t, probe.Config{URL: url, Rate: 20, Requests: 4, MaxTimeout: 350 * time.Millisecond, MaxErrorRate: 0.99})
	wantStreams(t, r, 4, 0, 0, 4)
	if r.Errors["timeout"] != 4 || r.Streams.Streaming != 4 {
		t.Errorf("timeouts %d, still streaming %d, want 4 and 4", r.Errors["timeout"], r.Streams.Streaming)
	}
	rec := r.Recommendation
	if rec.Verdict.Has(profile.CodeTailBeyond) || rec.ErrorRate != 0 || rec.StreamAdvice == nil || rec.StreamTimeoutMs != nil || rec.FirstEventTimeoutMs == nil {
		t.Errorf("verdict %q, error rate %g, stream advice %+v: want answered streams of unbounded length", rec.Verdict.Text(), rec.ErrorRate, rec.StreamAdvice)
	}
	if r.Phases.FirstEvent.Count != 4 || r.Phases.Gap.Count < 4 {
		t.Errorf("first_event %d gap %d, want 4 and some gaps seen before the cut", r.Phases.FirstEvent.Count, r.Phases.Gap.Count)
	}
	if r.Streams.TotalMs.Count != 0 {
		t.Errorf("streams total has %d samples, want none: no stream completed", r.Streams.TotalMs.Count)
	}
}

// TestStreamNoEventWithinMaxTimeout: a stream whose head came but no event before
// --max-timeout is not still streaming: it is unanswered, as a hang is.
func TestStreamNoEventWithinMaxTimeout(t *testing.T) {
	url, _ := startStream(t, probetest.StreamConfig{FirstEvent: 2 * time.Second, Gap: 10 * time.Millisecond, Events: 2})
	r := run(t, probe.Config{URL: url, Rate: 20, Requests: 3, MaxTimeout: 200 * time.Millisecond, MaxErrorRate: 0.99})
	wantStreams(t, r, 3, 0, 0, 3)
	if r.Errors["timeout"] != 3 || r.Streams.Streaming != 0 {
		t.Errorf("timeouts %d, still streaming %d, want 3 and 0", r.Errors["timeout"], r.Streams.Streaming)
	}
	if rec := r.Recommendation; rec.NoAnswerRate != 1 {
		t.Errorf("no-answer rate %g, want 1: no event within --max-timeout is no answer (%s)", rec.NoAnswerRate, rec.Verdict.Text())
	}
}

// TestStreamAccuracy: at 20 streams/s, first_event and gap quantiles match the target's own
// record of what it flushed within the tolerance TestExpLatency gives totals (p50 −0.5 to
// +5 ms, p99 −3 to +20 ms). first_event counts from the intended send and the record from
// the request read, so the probe's figure is the record's plus the send and the request's
// transit.
func TestStreamAccuracy(t *testing.T) {
	host := skipUnlessAccurate(t)
	url, rec := startStream(t, probetest.StreamConfig{FirstEvent: 30 * time.Millisecond, Gap: 10 * time.Millisecond, Events: 20})
	r := run(t, probe.Config{URL: url, Rate: 20, Requests: 200, Conn: "reuse"})
	host.SkipIfBusy(t)
	wantStreams(t, r, 200, 200, 0, 0)
	fe, gap := rec.FirstEvent.Stats(), rec.Gap.Stats()
	t.Logf("target's record: first event p50 %.3f p99 %.3f ms, gap p50 %.3f p99 %.3f ms (n %d, %d)", fe.P50Ms, fe.P99Ms, gap.P50Ms, gap.P99Ms, fe.Count, gap.Count)
	t.Logf("probe: first_event p50 %v p99 %v ms, gap p50 %v p99 %v ms", *r.Phases.FirstEvent.P50Ms, *r.Phases.FirstEvent.P99Ms, *r.Phases.Gap.P50Ms, *r.Phases.Gap.P99Ms)
	between(t, "first_event p50", r.Phases.FirstEvent.P50Ms, fe.P50Ms-0.5, fe.P50Ms+5)
	between(t, "first_event p99", r.Phases.FirstEvent.P99Ms, fe.P99Ms-3, fe.P99Ms+20)
	between(t, "gap p50", r.Phases.Gap.P50Ms, gap.P50Ms-0.5, gap.P50Ms+5)
	between(t, "gap p99", r.Phases.Gap.P99Ms, gap.P99Ms-3, gap.P99Ms+20)
}

// TestStreamH2C: over HTTP/2 the read loop times a stream from its DATA frames, as the
// HTTP/1.1 path times it from its body: events counted exactly, a first event no sooner
// than the target's delay, one gap per pair of events; a stream the server resets after
// two events (RST_STREAM, net/http's ErrAbortHandler) is stream_cut, not stream_reset.
func TestStreamH2C(t *testing.T) {
	h, _ := probetest.Stream(probetest.StreamConfig{FirstEvent: 20 * time.Millisecond, Gap: 5 * time.Millisecond, Events: 6, CutAfter: 2, CutEvery: 4})
	url := startH2C(t, h)
	r := run(t, probe.Config{URL: url, HTTP: "2", Rate: 50, Requests: 20, MaxErrorRate: 0.9})
	if r.Target.Protocol != "h2c" {
		t.Fatalf("protocol %q, want h2c", r.Target.Protocol)
	}
	wantStreams(t, r, 20, 15, 5, 0)
	eventsPerStream(t, r, 6, 6)
	if r.Errors["stream_reset"] != 0 {
		t.Errorf("stream_reset %d, want the resets mid-stream counted as stream_cut", r.Errors["stream_reset"])
	}
	if fe := r.Phases.FirstEvent; fe.Count != 20 || *fe.MinMs < 20 {
		t.Errorf("first_event count %d min %v, want 20 and at least 20 ms", fe.Count, *fe.MinMs)
	}
	if g := r.Phases.Gap.Count; g != 15*5+5*1 {
		t.Errorf("gap count %d, want 80", g)
	}
}

// TestStreamGRPC: an application/grpc response over h2c is a stream when it brings more than
// one message, each message an event; a unary answer (one message) is timed as any
// response, with no stream.
func TestStreamGRPC(t *testing.T) {
	stream, _ := probetest.Stream(probetest.StreamConfig{Format: "grpc", FirstEvent: 10 * time.Millisecond, Gap: 5 * time.Millisecond, Events: 4})
	r := run(t, probe.Config{URL: startH2C(t, stream), HTTP: "2", Rate: 50, Requests: 10})
	wantStreams(t, r, 10, 10, 0, 0)
	eventsPerStream(t, r, 4, 4)
	if r.Phases.Gap.Count != 10*3 {
		t.Errorf("gap count %d, want 30", r.Phases.Gap.Count)
	}
	unary, _ := probetest.Stream(probetest.StreamConfig{Format: "grpc", FirstEvent: 5 * time.Millisecond, Events: 1})
	u := run(t, probe.Config{URL: startH2C(t, unary), HTTP: "2", Rate: 50, Requests: 10})
	if u.Streams != nil || u.Phases.FirstEvent != nil || u.Status["200"] != 10 {
		t.Errorf("unary gRPC: streams %+v first_event %v status %v; want no stream, 10 × 200", u.Streams, u.Phases.FirstEvent, u.Status)
	}
}
