package live

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// streamScenario is a stream target with fixed first_event and gap and n events, and the
// given phases.
func streamScenario(first, gap time.Duration, n int, phases ...scenario.Phase) *scenario.Scenario {
	return &scenario.Scenario{Name: "stream", Seed: 1, Target: scenario.Target{
		Stream: &scenario.Stream{Format: scenario.StreamSSE, FirstEvent: fixed(first), Gap: fixed(gap),
			Events: scenario.EventCount{Min: n, Max: n}},
		Phases: phases,
	}}
}

// streamRead is what a client read of one stream: its content type, the payloads of its
// events in order, and how the body ended (nil = a clean end).
type streamRead struct {
	contentType string
	events      []string
	end         error
	firstAt     time.Duration // from the request's send to the first event
	lastAt      time.Duration // from the request's send to the last event
}

// readStream GETs url and reads the whole stream, one line at a time: for SSE the `data: `
// lines, for NDJSON every line.
func readStream(t *testing.T, c *http.Client, url string) streamRead {
	t.Helper()
	sent := time.Now()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	out := streamRead{contentType: resp.Header.Get("Content-Type")}
	sse := strings.HasPrefix(out.contentType, "text/event-stream")
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if !errors.Is(err, io.EOF) || line != "" {
				out.end = err
			}
			return out
		}
		line = strings.TrimSuffix(line, "\n")
		if sse {
			v, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			line = v
		}
		out.lastAt = time.Since(sent)
		if len(out.events) == 0 {
			out.firstAt = out.lastAt
		}
		out.events = append(out.events, line)
	}
}

// TestStreamSSE: the head is text/event-stream, the events come in order, each with its
// index, then [DONE] and a clean end; the record counts one completed stream, its events,
// and one first event at least first_event after the request. Lower bounds only, and on
// what the schedule guarantees: an event is never before its time (first_event, then a gap
// after each), while one gap alone can be shorter when the event before it was late.
func TestStreamSSE(t *testing.T) {
	sc := streamScenario(40*time.Millisecond, 5*time.Millisecond, 5)
	s := startServer(t, sc, ServerOptions{})
	got := readStream(t, client(5*time.Second), s.URL()+"/v1/chat")
	if got.contentType != "text/event-stream" || got.end != nil {
		t.Fatalf("content type %q, end %v", got.contentType, got.end)
	}
	want := []string{`{"index":0}`, `{"index":1}`, `{"index":2}`, `{"index":3}`, `{"index":4}`, "[DONE]"}
	if strings.Join(got.events, " ") != strings.Join(want, " ") {
		t.Errorf("events %q, want %q", got.events, want)
	}
	if got.firstAt < 40*time.Millisecond || got.lastAt < 60*time.Millisecond {
		t.Errorf("the first event came %s after the send, the last %s: before first_event (40ms) and 4 gaps (20ms)", got.firstAt, got.lastAt)
	}
	st := s.Stats().Streams
	if st == nil {
		t.Fatal("no streams in the stats of a stream target")
	}
	if st.Started != 1 || st.Completed != 1 || st.Dropped != 0 || st.Abandoned != 0 || st.Events != 5 {
		t.Errorf("record %+v, want 1 started and completed, 5 events", st)
	}
	if st.FirstEventMs.Count != 1 || st.GapMs.Count != 4 {
		t.Errorf("first_event count %d, gap count %d; want 1 and 4", st.FirstEventMs.Count, st.GapMs.Count)
	}
	if m := st.FirstEventMs.Max; m == nil || *m < 40 {
		t.Errorf("first_event max %v ms, want ≥ 40", m)
	}
	if st.GapMs.P50 == nil || st.GapMs.Max == nil {
		t.Errorf("gap p50 %v, max %v from 4 samples", st.GapMs.P50, st.GapMs.Max)
	}
	if st.GapMs.P99 != nil {
		t.Errorf("gap p99 %v from 4 samples: an invented percentile", *st.GapMs.P99)
	}
}

// TestStreamNDJSON: one JSON object per line, no [DONE], a clean end.
func TestStreamNDJSON(t *testing.T) {
	sc := streamScenario(time.Millisecond, time.Millisecond, 3)
	sc.Target.Stream.Format = scenario.StreamNDJSON
	s := startServer(t, sc, ServerOptions{})
	got := readStream(t, client(5*time.Second), s.URL())
	if got.contentType != "application/x-ndjson" || got.end != nil {
		t.Fatalf("content type %q, end %v", got.contentType, got.end)
	}
	for i, ev := range got.events {
		var v struct{ Index int }
		if err := json.Unmarshal([]byte(ev), &v); err != nil || v.Index != i {
			t.Errorf("line %d = %q (%v)", i, ev, err)
		}
	}
	if len(got.events) != 3 {
		t.Errorf("%d lines, want 3", len(got.events))
	}
}

// TestStreamDrop: a dropped stream ends without [DONE] and without the chunked terminator
// (the client reads an unexpected EOF), after fewer events than planned; the record counts
// it dropped.
func TestStreamDrop(t *testing.T) {
	for _, format := range []scenario.StreamFormat{scenario.StreamSSE, scenario.StreamNDJSON} {
		sc := streamScenario(time.Millisecond, time.Millisecond, 20)
		sc.Target.Stream.Format = format
		sc.Target.Stream.Drop = 1
		s := startServer(t, sc, ServerOptions{})
		c := client(5 * time.Second)
		const streams = 5
		for range streams {
			got := readStream(t, c, s.URL())
			if !errors.Is(got.end, io.ErrUnexpectedEOF) {
				t.Errorf("%s: a cut stream ended with %v, want an unexpected EOF", format, got.end)
			}
			if len(got.events) >= 20 || strings.Contains(strings.Join(got.events, ""), "[DONE]") {
				t.Errorf("%s: a cut stream sent %d events: %q", format, len(got.events), got.events)
			}
		}
		st := s.Stats().Streams
		if st.Started != streams || st.Dropped != streams || st.Completed != 0 {
			t.Errorf("%s: record %+v, want %d started and dropped", format, st, streams)
		}
	}
}

// TestStreamStall: a stalled stream waits the stall once more, before an event after the
// first, and completes; the record counts it stalled.
func TestStreamStall(t *testing.T) {
	sc := streamScenario(time.Millisecond, time.Millisecond, 4)
	sc.Target.Stream.Stall = &scenario.StreamStall{Percent: 1, For: 80 * time.Millisecond}
	s := startServer(t, sc, ServerOptions{})
	got := readStream(t, client(5*time.Second), s.URL())
	if got.end != nil || len(got.events) != 5 {
		t.Fatalf("events %q, end %v", got.events, got.end)
	}
	st := s.Stats().Streams
	if st.Stalled != 1 || st.Completed != 1 {
		t.Errorf("record %+v, want 1 stalled and completed", st)
	}
	if got.lastAt < 84*time.Millisecond {
		t.Errorf("the last event came %s after the send, before first_event, 3 gaps and the stall (84ms)", got.lastAt)
	}
}

// TestStreamPhaseSlowFirstToken: a phase's first_event replaces the stream's for the
// streams that arrive in it; --speed divides it.
func TestStreamPhaseSlowFirstToken(t *testing.T) {
	slow := fixed(600 * time.Millisecond)
	sc := streamScenario(time.Millisecond, time.Millisecond, 2,
		scenario.Phase{Name: "slow-first-token", At: 0, For: time.Hour, FirstEvent: &slow})
	s := startServer(t, sc, ServerOptions{Speed: 10})
	got := readStream(t, client(5*time.Second), s.URL())
	if got.end != nil {
		t.Fatal(got.end)
	}
	if got.firstAt < 60*time.Millisecond {
		t.Errorf("first event after %s, want ≥ 600ms ÷ speed 10", got.firstAt)
	}
	if m := s.Stats().Streams.FirstEventMs.Max; *m < 60 {
		t.Errorf("recorded first_event %v ms, want ≥ 60", *m)
	}
}

// TestStreamClientLeaves: a client that goes away mid-stream ends it at once; the record
// counts it abandoned, not dropped or completed.
func TestStreamClientLeaves(t *testing.T) {
	sc := streamScenario(time.Millisecond, time.Hour, 3) // the second event would take an hour
	s := startServer(t, sc, ServerOptions{})
	resp, err := client(5 * time.Second).Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("first line %q, %v", line, err)
	}
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().Streams.Abandoned != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("record %+v, want 1 abandoned", s.Stats().Streams)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st := s.Stats().Streams; st.Completed != 0 || st.Dropped != 0 || st.Events != 1 {
		t.Errorf("record %+v", st)
	}
}

// TestStreamStatsJSON: the stats document carries `streams` with the keys of issue 29's
// contract, and none for a target that does not stream.
func TestStreamStatsJSON(t *testing.T) {
	s := startServer(t, streamScenario(time.Millisecond, time.Millisecond, 2), ServerOptions{})
	readStream(t, client(5*time.Second), s.URL())
	var doc struct {
		Streams map[string]json.RawMessage `json:"streams"`
	}
	getJSON(t, s.URL()+StatsPath, &doc)
	for _, k := range []string{"started", "completed", "dropped", "stalled", "events", "first_event_ms", "gap_ms"} {
		if _, ok := doc.Streams[k]; !ok {
			t.Errorf("streams has no %s: %v", k, doc.Streams)
		}
	}
	var fe map[string]any
	if err := json.Unmarshal(doc.Streams["first_event_ms"], &fe); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"p50", "p90", "p99", "p999", "max", "count"} {
		if _, ok := fe[k]; !ok {
			t.Errorf("first_event_ms has no %s: %v", k, fe)
		}
	}
	plain := startServer(t, target(time.Millisecond), ServerOptions{})
	var none map[string]any
	getJSON(t, plain.URL()+StatsPath, &none)
	if _, ok := none["streams"]; ok {
		t.Error("a target that does not stream has streams in its stats")
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// TestStreamCapacity: a stream holds its worker to the end, so one past the workers and the
// queue is answered 503 at once.
func TestStreamCapacity(t *testing.T) {
	sc := streamScenario(time.Millisecond, 200*time.Millisecond, 2)
	sc.Target.Capacity = &scenario.Capacity{Workers: 1}
	s := startServer(t, sc, ServerOptions{})
	c := client(5 * time.Second)
	first, err := c.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Body.Close()
	second, err := c.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	second.Body.Close()
	if second.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a stream past capacity got %d, want 503", second.StatusCode)
	}
}

// TestAppendEvent: the bytes of one event in each format.
func TestAppendEvent(t *testing.T) {
	for _, tc := range []struct {
		f    scenario.StreamFormat
		i    int
		want string
	}{
		{scenario.StreamSSE, 0, "data: {\"index\":0}\n\n"},
		{scenario.StreamSSE, 12345, "data: {\"index\":12345}\n\n"},
		{scenario.StreamNDJSON, 7, "{\"index\":7}\n"},
	} {
		if got := string(appendEvent(nil, tc.f, tc.i)); got != tc.want {
			t.Errorf("%s %d: %q, want %q", tc.f, tc.i, got, tc.want)
		}
	}
}

// TestSummarizeStream: quantiles need 1/(1-q) samples; max and count always show.
func TestSummarizeStream(t *testing.T) {
	rec := newStreamRecord()
	for i := 1; i <= 100; i++ {
		rec.record(rec.gap, time.Duration(i)*time.Millisecond)
	}
	s := summarizeStream(rec.gap)
	check := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || *got < want || *got > want*1.001 {
			t.Errorf("%s = %v, want %g (within HDR's 0.1%%)", name, got, want)
		}
	}
	check("p50", s.P50, 50)
	check("p90", s.P90, 90)
	check("p99", s.P99, 99)
	check("max", s.Max, 100)
	if s.P999 != nil || s.Count != 100 {
		t.Errorf("p999 %v from 100 samples, count %d", s.P999, s.Count)
	}
	if e := summarizeStream(rec.firstEvent); e.Count != 0 || e.Max != nil || e.P50 != nil {
		t.Errorf("empty: %+v", e)
	}
}

// TestPlanStream: drop and stall share one draw, each taking its share of the streams; a
// cut falls on an event of the stream, a stall on one after the first; a one-event stream
// cannot stall; the same seed plans the same streams.
func TestPlanStream(t *testing.T) {
	for _, tc := range []struct {
		name          string
		events        scenario.EventCount
		drop, stall   float64
		wantCut       float64 // expected share cut
		wantStalled   float64
		maxEventsSeen int
	}{
		{"neither", scenario.EventCount{Min: 10, Max: 10}, 0, 0, 0, 0, 10},
		{"drop 20%, stall 30%", scenario.EventCount{Min: 5, Max: 50}, 0.2, 0.3, 0.2, 0.3, 50},
		{"all dropped", scenario.EventCount{Min: 1, Max: 3}, 1, 0, 1, 0, 3},
		{"one event cannot stall", scenario.EventCount{Min: 1, Max: 1}, 0, 1, 0, 0, 1},
	} {
		sc := streamScenario(time.Millisecond, time.Millisecond, 1)
		sc.Target.Stream.Events, sc.Target.Stream.Drop = tc.events, tc.drop
		if tc.stall > 0 {
			sc.Target.Stream.Stall = &scenario.StreamStall{Percent: tc.stall, For: time.Second}
		}
		const n = 4000
		plans := func() []streamPlan {
			s := NewServer(sc, ServerOptions{})
			out := make([]streamPlan, n)
			for i := range out {
				out[i] = s.planStream(sc.Target.Stream, nil)
			}
			return out
		}
		a, b := plans(), plans()
		cut, stalled := 0, 0
		for i, p := range a {
			if p.events != b[i].events || p.cutAt != b[i].cutAt || p.stallAt != b[i].stallAt {
				t.Fatalf("%s: plan %d differs between two servers of one seed: %+v, %+v", tc.name, i, p, b[i])
			}
			if p.events < tc.events.Min || p.events > tc.maxEventsSeen {
				t.Errorf("%s: %d events", tc.name, p.events)
			}
			if p.cutAt >= 0 {
				cut++
				if p.cutAt >= p.events || p.stallAt >= 0 {
					t.Errorf("%s: cut at %d of %d events, stall at %d", tc.name, p.cutAt, p.events, p.stallAt)
				}
			}
			if p.stallAt >= 0 {
				stalled++
				if p.stallAt < 1 || p.stallAt >= p.events {
					t.Errorf("%s: stall before event %d of %d", tc.name, p.stallAt, p.events)
				}
			}
		}
		// Binomial shares of 4000: 4 standard deviations is at most 0.032.
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"cut", float64(cut) / n, tc.wantCut}, {"stalled", float64(stalled) / n, tc.wantStalled}} {
			if c.got < c.want-0.032 || c.got > c.want+0.032 {
				t.Errorf("%s: %s share %.3f, want %.2f", tc.name, c.what, c.got, c.want)
			}
		}
	}
}
