package probe

import (
	"bytes"
	"io"

	"github.com/patience-dev/patience/internal/eventscan"
)

// Streaming responses (issue 29 item 1; profile/stream.go has the figures). A response
// streams when its Content-Type is text/event-stream (Server-Sent Events) or
// application/x-ndjson, or whatever its type with --stream. Its body is read with the
// caller's fixed buffer and scanned byte by byte for the ends of events; each end is
// stamped with the moment its bytes were read (the kernel's receive time where the
// connection has it, as the total is). The probe keeps the stream's first event, the
// previous event's stamp and a count: nothing grows with the stream's length, and each gap
// goes into the recorder's histogram as it is seen.

// streamKind is how a response's events are delimited: internal/eventscan's kinds, the one
// event reader that probe and live replay's driver share.
type streamKind = eventscan.Kind

const (
	streamNone   = eventscan.None
	streamSSE    = eventscan.SSE    // an event ends at a blank line (WHATWG HTML §9.2.6)
	streamNDJSON = eventscan.NDJSON // an event is a non-blank line
	streamChunks = eventscan.Chunks // --stream on another type: each read of the network that brings data
	// streamGRPC is application/grpc: an event is a length-prefixed message. A response of
	// one message is a unary call, not a stream (recordStream).
	streamGRPC = eventscan.GRPC
)

// streamKindOf is the kind of a response with Content-Type contentType; forced is --stream.
func streamKindOf(contentType string, forced bool) streamKind {
	return eventscan.KindOf(contentType, forced)
}

// streamType reports whether a Content-Type value (bytes of a response head) names a
// streaming type, without allocating: the fast path (fastresp.go) leaves those responses to
// ReadResponse and the stream reader.
func streamType(value []byte) bool {
	if i := bytes.IndexByte(value, ';'); i >= 0 {
		value = value[:i]
	}
	value = trimOWS(value)
	const grpc = "application/grpc"
	return asciiEqualFold(value, "text/event-stream") || asciiEqualFold(value, "application/x-ndjson") ||
		len(value) >= len(grpc) && asciiEqualFold(value[:len(grpc)], grpc) && (len(value) == len(grpc) || value[len(grpc)] == '+')
}

// streamState is the caller's record of the stream in flight: what the recorder needs at the
// end (first event, events) and where each gap goes as it is seen.
type streamState struct {
	kind   streamKind
	scan   eventscan.Scanner
	events int64
	// first and last are the mono() stamps of the first and latest event ends.
	first, last int64
	// shard and gap are the recorder and series the gaps go to (set by do and exchange).
	sh  *shard
	gap int
}

// reset forgets the previous request's stream; its gaps, if it streams, go to sh.
func (s *streamState) reset(sh *shard) {
	*s = streamState{sh: sh, gap: iGapFresh}
}

// via says whether the request went out on a reused connection: its gaps go to that series.
func (s *streamState) via(reused bool) {
	s.gap = iGapFresh
	if reused {
		s.gap = iGapReused
	}
}

// begin starts a stream of kind k.
func (s *streamState) begin(k streamKind) {
	s.kind, s.scan = k, eventscan.New(k)
}

// feed scans b, read at stamp (mono ns), and records the gaps of the events it ends: the
// first event's end is kept for the recorder, each later one is a gap from the one before
// (events that end in the same read are 0 apart).
func (s *streamState) feed(b []byte, stamp int64) {
	n := s.scan.Feed(b)
	if n == 0 || s.kind == streamChunks && s.events > 0 && stamp == s.last {
		return // nothing ended, or more of a network read already counted
	}
	if s.events == 0 {
		s.first, s.last = stamp, stamp
		s.events, n = 1, n-1
		if n == 0 {
			return
		}
	}
	s.sh.mu.Lock()
	s.sh.record(s.gap, (stamp-s.last)/1000)
	for range n - 1 {
		s.sh.record(s.gap, 0)
	}
	s.sh.mu.Unlock()
	s.events += int64(n)
	s.last = stamp
}

// readStream reads body to its end into buf, feeding st each piece with the stamp of the
// network read that brought it. io.EOF is the stream's clean end (nil).
func readStream(body io.Reader, buf []byte, st *streamState, stamp func() int64) error {
	for {
		n, err := body.Read(buf)
		if n > 0 {
			st.feed(buf[:n], stamp())
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// cutMidway reports whether a request's error, of class, cut a stream mid-way: the head
// said the response streams, then its body failed other than by the probe's own bound (a
// timeout) — the connection closed or reset, the chunked body cut short
// (io.ErrUnexpectedEOF) or malformed, an HTTP/2 stream reset. A stream cut before its first
// event is cut as well: the server had answered and committed to a stream.
func (s *streamState) cutMidway(err error, class int) bool {
	return s.streamed() && err != nil && class != errTimeout
}

// streamed reports whether the response was a stream: its head said so — and for gRPC, it
// brought more than one message (one is a unary call, timed as any response).
func (s *streamState) streamed() bool {
	return s.kind != streamNone && (s.kind != streamGRPC || s.events > 1)
}
