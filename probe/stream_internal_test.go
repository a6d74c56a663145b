package probe

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/patience-dev/patience/probe/probetest"
	"github.com/patience-dev/patience/profile"
)

func TestStreamKindOf(t *testing.T) {
	for _, tc := range []struct {
		ct     string
		forced bool
		want   streamKind
	}{
		{"text/event-stream", false, streamSSE},
		{"Text/Event-Stream; charset=utf-8", false, streamSSE},
		{" application/x-ndjson ", false, streamNDJSON},
		{"application/json", false, streamNone},
		{"application/json", true, streamChunks},
		{"", false, streamNone},
		{"", true, streamChunks},
		{"text/event-streams", false, streamNone},
		{"application/grpc", false, streamGRPC},
		{"application/grpc+proto", false, streamGRPC},
		{"application/grpc-web", false, streamNone},
		{"application/grp", false, streamNone},
	} {
		if got := streamKindOf(tc.ct, tc.forced); got != tc.want {
			t.Errorf("streamKindOf(%q, %v) = %d, want %d", tc.ct, tc.forced, got, tc.want)
		}
		if got, want := streamType([]byte(tc.ct)), streamKindOf(tc.ct, false) != streamNone; got != want {
			t.Errorf("streamType(%q) = %v, want %v (as streamKindOf)", tc.ct, got, want)
		}
	}
}

// The event scanner's own tests (TestScanner, FuzzScanner) are in internal/eventscan.

func TestStreamStateGaps(t *testing.T) {
	sh := newShard()
	var st streamState
	st.reset(sh)
	st.via(true)
	st.begin(streamSSE)
	st.feed([]byte("data: a\n\n"), 1_000_000)             // first event at 1 ms
	st.feed([]byte("data: b\n\ndata: c\n\n"), 11_000_000) // two more at 11 ms: gaps 10 ms and 0
	st.feed([]byte("data: d"), 20_000_000)                // not ended
	st.feed([]byte("\n\n"), 31_000_000)                   // ended at 31 ms: gap 20 ms
	if st.events != 4 || st.first != 1_000_000 || st.last != 31_000_000 {
		t.Fatalf("events %d first %d last %d, want 4, 1e6, 31e6", st.events, st.first, st.last)
	}
	h := sh.hists[iGapReused]
	if h == nil || h.TotalCount() != 3 || sh.hists[iGapFresh] != nil {
		t.Fatalf("gaps in the reused series: %v; want 3 and none in fresh", h)
	}
	if lo, hi := h.Min(), h.Max(); lo != 1 || !h.ValuesAreEquivalent(hi, 20_000) {
		t.Errorf("gaps %d–%d µs, want 1 (0, clamped) to 20000", lo, hi)
	}
	var chunks streamState
	chunks.reset(sh)
	chunks.begin(streamChunks)
	chunks.feed([]byte("a"), 5)
	chunks.feed([]byte("b"), 5) // more of the same network read
	chunks.feed([]byte("c"), 9)
	if chunks.events != 2 {
		t.Errorf("--stream chunks: %d events from two network reads, want 2", chunks.events)
	}
}

// sseBody is a chunked SSE response of n events, generated as it is read: the body is never
// held, so the allocations measured are the reader's alone.
type sseBody struct {
	head  []byte
	n, i  int
	chunk []byte
	tail  []byte
	cur   []byte
}

func newSSEBody(n int) *sseBody {
	event := "data: {\"token\":\"hello\"}\n\n"
	return &sseBody{
		head:  []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"),
		n:     n,
		chunk: []byte(strconv.FormatInt(int64(len(event)), 16) + "\r\n" + event + "\r\n"),
		tail:  []byte("0\r\n\r\n"),
	}
}

func (b *sseBody) Read(p []byte) (int, error) {
	for len(b.cur) == 0 {
		switch {
		case b.head != nil:
			b.cur, b.head = b.head, nil
		case b.i < b.n:
			b.cur = b.chunk
			b.i++
		case b.tail != nil:
			b.cur, b.tail = b.tail, nil
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, b.cur)
	b.cur = b.cur[n:]
	return n, nil
}

type generatedConn struct {
	scriptedConn
	body *sseBody
}

func (c *generatedConn) Read(b []byte) (int, error) { return c.body.Read(b) }

// TestStreamMemoryFlat: reading a stream allocates the same whether it has a hundred events
// or a hundred thousand — the reader holds no event, only a count and two stamps (issue 29:
// memory stays flat however long the streams are).
func TestStreamMemoryFlat(t *testing.T) {
	allocs := func(events int) float64 {
		r := &runner{wire: &wire{head: &http.Request{Method: http.MethodGet}}}
		c := &caller{r: r, buf: make([]byte, 2048)}
		sh := newShard()
		return testing.AllocsPerRun(3, func() {
			c.stream.reset(sh)
			conn := &timedConn{Conn: &generatedConn{body: newSSEBody(events)}}
			status, _, err := c.roundTrip(conn, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			if err != nil || status != 200 || c.stream.events != int64(events) {
				t.Fatalf("status %d err %v events %d, want 200, nil, %d", status, err, c.stream.events, events)
			}
		})
	}
	short, long := allocs(100), allocs(100_000)
	t.Logf("allocations per stream: %.0f for 100 events, %.0f for 100,000", short, long)
	if long > short+2 {
		t.Errorf("a stream of 100,000 events took %.0f allocations, one of 100 took %.0f: memory grows with the stream", long, short)
	}
}

// BenchmarkStreamRead reads one stream of b.N events: allocs/op is per event, and is 0 when
// memory stays flat.
func BenchmarkStreamRead(b *testing.B) {
	r := &runner{wire: &wire{head: &http.Request{Method: http.MethodGet}}}
	c := &caller{r: r, buf: make([]byte, 2048)}
	c.stream.reset(newShard())
	conn := &timedConn{Conn: &generatedConn{body: newSSEBody(b.N)}}
	b.ReportAllocs()
	b.ResetTimer()
	if _, _, err := c.roundTrip(conn, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		b.Fatal(err)
	}
	if c.stream.events != int64(b.N) {
		b.Fatalf("%d events, want %d", c.stream.events, b.N)
	}
}

// TestProxyTracePathStream: the proxy path (net/http's Transport) times streams too: NDJSON
// events counted exactly, a first event no sooner than the target's delay, a stream cut
// mid-way counted as stream_cut.
func TestProxyTracePathStream(t *testing.T) {
	h, _ := probetest.Stream(probetest.StreamConfig{Format: "ndjson", FirstEvent: 10 * time.Millisecond, Gap: 5 * time.Millisecond, Events: 4, CutAfter: 1, CutEvery: 3})
	s := httptest.NewServer(h)
	defer s.Close()
	cfg := Config{URL: s.URL + "/", Concurrency: 1, Requests: 6, Conn: "both", MaxErrorRate: 0.9}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := run(context.Background(), cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	st := r.Streams
	if st == nil || st.Count != 6 || st.Completed != 4 || st.Cut != 2 || r.Errors["stream_cut"] != 2 {
		t.Fatalf("streams %+v errors %v, want 6: 4 completed, 2 cut", st, r.Errors)
	}
	if *st.EventsPerStream.Max != 4 || r.Phases.Gap.Count != 4*3 || *r.Phases.FirstEvent.MinMs < 10 {
		t.Errorf("events max %d, gaps %d, first event min %v ms; want 4, 12, at least 10", *st.EventsPerStream.Max, r.Phases.Gap.Count, *r.Phases.FirstEvent.MinMs)
	}
}

// TestSeriesIndexes: a shard's index i holds profile.SeriesNames()[i], the stream series
// included, and its error class errStreamCut is profile's stream_cut.
func TestSeriesIndexes(t *testing.T) {
	names := profile.SeriesNames()
	if len(names) != numSeries {
		t.Fatalf("%d series names, %d indexes", len(names), numSeries)
	}
	for i, want := range map[int]string{
		iFirstEventFresh: profile.SeriesFirstEventFresh, iFirstEventReused: profile.SeriesFirstEventReused,
		iGapFresh: profile.SeriesGapFresh, iGapReused: profile.SeriesGapReused,
		iStreamTotal: profile.SeriesStreamTotal, iStreamEvents: profile.SeriesStreamEvents, iSilenceGood: profile.SeriesSilenceGood,
	} {
		if names[i] != want {
			t.Errorf("index %d holds %q, want %q", i, names[i], want)
		}
	}
	if len(profile.ErrorClasses) != numErrorClasses || profile.ErrorClasses[errStreamCut] != profile.ErrorStreamCut {
		t.Errorf("error classes %v: want %d, stream_cut at %d", profile.ErrorClasses, numErrorClasses, errStreamCut)
	}
}
