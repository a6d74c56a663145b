package eventscan

import "testing"

func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		ct     string
		forced bool
		want   Kind
	}{
		{"text/event-stream", false, SSE},
		{"Text/Event-Stream; charset=utf-8", false, SSE},
		{" application/x-ndjson ", false, NDJSON},
		{"application/json", false, None},
		{"application/json", true, Chunks},
		{"", false, None},
		{"", true, Chunks},
		{"text/event-streams", false, None},
		{"application/grpc", false, GRPC},
		{"application/grpc+proto", false, GRPC},
		{"application/grpc-web", false, None},
		{"application/grp", false, None},
	} {
		if got := KindOf(tc.ct, tc.forced); got != tc.want {
			t.Errorf("KindOf(%q, %v) = %d, want %d", tc.ct, tc.forced, got, tc.want)
		}
	}
}

func TestScanner(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind Kind
		body string
		want int
	}{
		{"sse LF", SSE, "data: a\n\ndata: b\n\n", 2},
		{"sse CRLF", SSE, "data: a\r\n\r\ndata: b\r\n\r\n", 2},
		{"sse CR", SSE, "data: a\r\rdata: b\r\r", 2},
		{"sse multi-line event", SSE, "event: x\ndata: a\ndata: b\nid: 1\n\n", 1},
		{"sse heartbeat comment is an event", SSE, ": ping\n\ndata: a\n\n", 2},
		{"sse extra blank lines", SSE, "\n\n\ndata: a\n\n\n\n", 1},
		{"sse trailing event without its blank line", SSE, "data: a\n\ndata: b\n", 1},
		{"sse [DONE] ends the stream, not an event", SSE, "data: a\n\ndata: [DONE]\n\n", 1},
		{"sse [DONE] without the space", SSE, "data: a\r\n\r\ndata:[DONE]\r\n\r\n", 1},
		{"sse [DONE] inside an event is data", SSE, "event: x\ndata: [DONE]\n\ndata: [DONE]x\n\ndata: [DON\n\n", 3},
		{"sse [DONE] twice in a block is the sentinel", SSE, "data: [DONE]\ndata: [DONE]\n\n", 0},
		{"ndjson", NDJSON, "{\"a\":1}\n{\"a\":2}\n", 2},
		{"ndjson CRLF and blank lines", NDJSON, "{}\r\n\r\n  \n{}\r\n", 2},
		{"ndjson last line without newline", NDJSON, "{}\n{}", 1},
		{"empty", SSE, "", 0},
		{"not a stream", None, "data: a\n\n", 0},
		{"grpc: two messages and an empty one", GRPC, "\x00\x00\x00\x00\x03abc\x00\x00\x00\x00\x01z\x00\x00\x00\x00\x00", 3},
		{"grpc: a message not yet whole", GRPC, "\x00\x00\x00\x00\x03abc\x01\x00\x00\x01\x00ab", 1},
	} {
		// Whole, then cut at every byte: the count does not depend on how reads cut the body.
		s := New(tc.kind)
		if got := s.Feed([]byte(tc.body)); got != tc.want {
			t.Errorf("%s: %d events, want %d", tc.name, got, tc.want)
		}
		s = New(tc.kind)
		got := 0
		for i := range len(tc.body) {
			got += s.Feed([]byte{tc.body[i]})
		}
		if got != tc.want {
			t.Errorf("%s, a byte at a time: %d events, want %d", tc.name, got, tc.want)
		}
	}
	if s := New(Chunks); s.Feed([]byte("x")) != 1 || s.Feed(nil) != 0 || s.Kind() != Chunks {
		t.Error("Chunks: a read that brings data is one event, an empty one none")
	}
}

// FuzzScanner: a target's body cut anywhere into two reads ends the same events as in one
// read.
func FuzzScanner(f *testing.F) {
	f.Add([]byte("data: a\r\n\r\ndata: b\n\n"), uint16(9), uint8(SSE))
	f.Add([]byte("{}\n{}\r\n"), uint16(3), uint8(NDJSON))
	f.Add([]byte("\x00\x00\x00\x00\x03abc\x00\x00\x00\x00\x01z"), uint16(7), uint8(GRPC))
	f.Fuzz(func(t *testing.T, body []byte, cut uint16, k uint8) {
		kind := []Kind{SSE, NDJSON, GRPC}[int(k)%3]
		at := int(cut) % (len(body) + 1)
		whole, split := New(kind), New(kind)
		if a, b := whole.Feed(body), split.Feed(body[:at])+split.Feed(body[at:]); a != b {
			t.Fatalf("%q: %d events whole, %d cut at %d", body, a, b, at)
		}
	})
}
