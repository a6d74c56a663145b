package profile

import (
	"encoding/json"
	"strings"
	"testing"
)

// streamPart is n streams of events events each, first events at first ms and gaps of gap
// ms, cut of them cut mid-way; the completed ones answered 200.
func streamPart(n, events, cut int, first, gap float64) Part {
	hs := set()
	for _, name := range streamSeries {
		hs[name] = NewHistogram()
	}
	for i := range n {
		RecordClamped(hs[SeriesFirstEventReused], int64((first+float64(i%7))*1000))
		for range events - 1 {
			RecordClamped(hs[SeriesGapReused], int64(gap*1000))
		}
		RecordCount(hs[SeriesStreamEvents], int64(events))
		if i >= cut {
			total := int64((first + float64(events-1)*gap) * 1000)
			RecordClamped(hs[SeriesStreamTotal], total)
			RecordClamped(hs[SeriesTotalReused], total)
			RecordClamped(hs[SeriesGood], total)
		}
	}
	done := int64(n - cut)
	return Part{
		Series: hs, Status: map[string]int64{"200": done}, Errors: map[string]int64{ErrorStreamCut: int64(cut)},
		Requests: int64(n), Responses: done,
		Streams: StreamCounts{Count: int64(n), Completed: done, Cut: int64(cut), MaxEvents: int64(events)},
	}
}

func streamHead() Profile {
	return Profile{Target: Target{URL: "http://a/", Method: "GET"}, Model: "open", Conn: "reuse"}
}

// TestStreamSeriesRoundTrip: the stream series make the first_event and gap phases and the
// streams summary; a saved profile parses back and merges with another, the counts adding
// up and the quantiles coming from the merged histograms, never averaged.
func TestStreamSeriesRoundTrip(t *testing.T) {
	b := NewBuilder(streamHead(), RecommendParams{})
	b.Add(streamPart(100, 5, 4, 30, 10))
	r := mustClose(t, b)
	s := r.Streams
	if s == nil || s.Count != 100 || s.Completed != 96 || s.Cut != 4 || s.TimedOut != 0 {
		t.Fatalf("streams %+v, want 100: 96 completed, 4 cut", s)
	}
	if e := s.EventsPerStream; *e.P50 != 5 || *e.P99 != 5 || *e.Max != 5 {
		t.Errorf("events per stream %d %d %d, want 5 5 5", *e.P50, *e.P99, *e.Max)
	}
	if s.TotalMs.Count != 96 || r.Errors[ErrorStreamCut] != 4 {
		t.Errorf("total count %d, stream_cut %d; want 96 and 4", s.TotalMs.Count, r.Errors[ErrorStreamCut])
	}
	fe, gap := r.Phases.FirstEvent, r.Phases.Gap
	if fe == nil || gap == nil {
		t.Fatalf("first_event %v gap %v, want both", fe, gap)
	}
	if fe.Count != 100 || fe.Reused.Count != 100 || !hdrNear(*fe.MinMs, 30) || gap.Count != 400 || !hdrNear(*gap.P50Ms, 10) {
		t.Errorf("first_event %d (reused %d) from %g ms, gap %d p50 %g ms: want 100 from 30 ms and 400 of 10 ms",
			fe.Count, fe.Reused.Count, *fe.MinMs, gap.Count, *gap.P50Ms)
	}
	for _, k := range append([]string{"first_event", "gap"}, SeriesFirstEventReused, SeriesGapReused, SeriesStreamEvents, SeriesStreamTotal) {
		if r.Histograms[k] == "" {
			t.Errorf("histograms.%s missing", k)
		}
	}
	if _, ok := r.Histograms[SeriesFirstEventFresh]; ok {
		t.Error("an empty stream series is encoded")
	}
	doc, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("s.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	other := NewBuilder(streamHead(), RecommendParams{})
	other.Add(streamPart(300, 9, 0, 50, 20))
	merged, err := Merge([]*Profile{back, mustClose(t, other)}, RecommendParams{})
	if err != nil {
		t.Fatal(err)
	}
	m := merged.Streams
	if m.Count != 400 || m.Completed != 396 || m.Cut != 4 || *m.EventsPerStream.P50 != 9 || *m.EventsPerStream.Max != 9 {
		t.Errorf("merged streams %+v (p50 %d): want 400, 396 completed, 4 cut, p50 9", m.StreamCounts, *m.EventsPerStream.P50)
	}
	if g := merged.Phases.Gap; g.Count != 400+300*8 || !hdrNear(*g.P50Ms, 20) {
		t.Errorf("merged gap count %d p50 %v, want 2800 and 20 ms", g.Count, *g.P50Ms)
	}
}

// TestNoStreamNoStreamFields: a profile that saw no stream carries none of the stream
// fields — the same document as before streams were measured.
func TestNoStreamNoStreamFields(t *testing.T) {
	b := NewBuilder(streamHead(), RecommendParams{})
	b.Add(Part{Series: set(10, 20, 30), Status: map[string]int64{"200": 3}, Requests: 3, Responses: 3})
	doc, err := json.Marshal(mustClose(t, b))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"first_event", `"gap`, "streams", "stream_cut", "stream.", "events_per_stream"} {
		if strings.Contains(string(doc), k) {
			t.Errorf("a profile without streams holds %q", k)
		}
	}
}

// TestParseProfileRejectsBadStreams: stream counts are counts, and add up.
func TestParseProfileRejectsBadStreams(t *testing.T) {
	b := NewBuilder(streamHead(), RecommendParams{})
	b.Add(streamPart(10, 3, 1, 30, 10))
	good := mustClose(t, b)
	for _, c := range []struct {
		name   string
		change func(s *Streams)
		want   string
	}{
		{"negative", func(s *Streams) { s.Cut = -1 }, "p.json: field streams.cut: -1: a count cannot be negative"},
		{"past 2^53", func(s *Streams) { s.Count = 1 << 60 }, "p.json: field streams.count: 1152921504606846976: more than 2^53"},
		{"not the sum", func(s *Streams) { s.Count = 11 }, "p.json: field streams.count: 11, not completed + cut + timed_out (9 + 1 + 0)"},
		{"negative max", func(s *Streams) { s.EventsPerStream.Max = new(int64(-2)) }, "p.json: field streams.events_per_stream.max: -2: a count cannot be negative"},
		{"negative streaming", func(s *Streams) { s.Streaming = -1 }, "p.json: field streams.streaming_at_max_timeout: -1: a count cannot be negative"},
		{"more streaming than timed out", func(s *Streams) { s.Streaming = 1 }, "p.json: field streams.streaming_at_max_timeout: 1, more than the 0 streams timed_out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r Profile
			doc, _ := json.Marshal(good)
			if err := json.Unmarshal(doc, &r); err != nil {
				t.Fatal(err)
			}
			c.change(r.Streams)
			doc, _ = json.Marshal(&r)
			if _, err := Parse("p.json", doc); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	doc, _ := json.Marshal(good)
	if _, err := Parse("p.json", doc); err != nil {
		t.Errorf("the unchanged profile: %v", err)
	}
}

// hdrNear reports whether v is want as an HDR histogram at three significant digits reports
// it: the highest value of want's bucket, at most 0.1% above.
func hdrNear(v, want float64) bool { return v >= want && v <= want*1.001 }

// streamingDoc is a saved profile with streams: a seed of FuzzParseProfile.
func streamingDoc(tb testing.TB) []byte {
	b := NewBuilder(streamHead(), RecommendParams{})
	b.Add(streamPart(20, 4, 2, 30, 10))
	r, err := b.Close()
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := json.Marshal(r)
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}
