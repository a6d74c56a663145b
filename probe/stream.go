package probe

import (
	"bytes"
	"io"
	"strings"
)

// Streaming responses (issue 29 item 1; profile/stream.go has the figures). A response
// streams when its Content-Type is text/event-stream (Server-Sent Events) or
// application/x-ndjson, or whatever its type with --stream. Its body is read with the
// caller's fixed buffer and scanned byte by byte for the ends of events; each end is
// stamped with the moment its bytes were read (the kernel's receive time where the
// connection has it, as the total is). The probe keeps the stream's first event, the
// previous event's stamp and a count: nothing grows with the stream's length, and each gap
// goes into the recorder's histogram as it is seen.

// streamKind is how a response's events are delimited.
type streamKind uint8

const (
	streamNone   streamKind = iota
	streamSSE               // an event ends at a blank line (WHATWG HTML §9.2.6)
	streamNDJSON            // an event is a non-blank line
	streamChunks            // --stream on another type: each read of the network that brings data
	// streamGRPC is application/grpc: an event is a length-prefixed message (gRPC over
	// HTTP/2, PROTOCOL-HTTP2.md in grpc/grpc). A response of one message is a unary call,
	// not a stream (recordStream).
	streamGRPC
)

// streamKindOf is the kind of a response with Content-Type contentType (its media type,
// parameters aside, in any case); forced is --stream.
func streamKindOf(contentType string, forced bool) streamKind {
	media, _, _ := strings.Cut(contentType, ";")
	media = strings.TrimSpace(media)
	switch {
	case strings.EqualFold(media, "text/event-stream"):
		return streamSSE
	case strings.EqualFold(media, "application/x-ndjson"):
		return streamNDJSON
	case grpcMedia(media):
		return streamGRPC
	case forced:
		return streamChunks
	}
	return streamNone
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

// grpcMedia reports whether a media type is gRPC's: application/grpc, or application/grpc+
// a codec ("+proto", "+json"); not application/grpc-web, whose messages travel otherwise.
func grpcMedia(media string) bool {
	const grpc = "application/grpc"
	if len(media) < len(grpc) || !strings.EqualFold(media[:len(grpc)], grpc) {
		return false
	}
	return len(media) == len(grpc) || media[len(grpc)] == '+'
}

// eventScanner finds the ends of events in a body fed to it in pieces. It holds the state of
// the line being read, never the bytes.
type eventScanner struct {
	kind streamKind
	// lineLen counts the bytes of the current line; blockLines the non-blank lines of the SSE
	// block being read; lastCR, that the previous byte was a CR (a CRLF is one line end).
	lineLen, blockLines int
	lastCR              bool
	// done tracks the SSE sentinel "data: [DONE]" (OpenAI's and most LLM APIs' end of
	// stream): doneAt is how much of the current line matches it (-1: it does not),
	// blockDone that every line of the block so far was it. A block that is only the
	// sentinel is the stream's terminator, like NDJSON's chunked end: not an event, and no
	// gap ends at it (serve writes it with the last event; a client's idle timer stops with it).
	doneAt    int
	blockDone bool
	// head counts the bytes of a gRPC message's 5-byte prefix read so far, size gathers its
	// length, left is what remains of its message.
	head       int
	size, left uint32
}

// feed scans b and returns how many events ended in it. An SSE block of non-blank lines —
// data, event, id, retry or a comment line — ends at a blank line: every block counts,
// comments included, since a heartbeat resets an idle timeout as much as data does. CR, LF
// and CRLF all end a line, as the SSE grammar says; a trailing line without its end is not
// an event (the SSE parser discards it too). For streamChunks every piece is one event.
func (s *eventScanner) feed(b []byte) (events int) {
	switch s.kind {
	case streamChunks:
		if len(b) > 0 {
			return 1
		}
		return 0
	case streamGRPC:
		return s.feedGRPC(b)
	}
	for _, c := range b {
		switch {
		case c == '\n' && s.lastCR:
			s.lastCR = false // the LF of a CRLF: the line already ended at its CR
		case c == '\n' || c == '\r':
			s.lastCR = c == '\r'
			events += s.endLine()
		default:
			s.lastCR = false
			if c != ' ' && c != '\t' || s.kind == streamSSE {
				s.lineLen++
			}
			if s.kind == streamSSE {
				s.matchDone(c)
			}
		}
	}
	return events
}

// doneSentinel is the SSE end-of-stream line; the space after the colon is optional (the SSE
// grammar drops one leading space from a field's value).
const doneSentinel = "data: [DONE]"

// matchDone advances the current line's match against doneSentinel by one byte.
func (s *eventScanner) matchDone(c byte) {
	switch {
	case s.doneAt < 0:
	case s.doneAt < len(doneSentinel) && doneSentinel[s.doneAt] == c:
		s.doneAt++
	case s.doneAt == len("data:") && c == '[' && doneSentinel[s.doneAt] == ' ':
		s.doneAt += 2 // "data:[DONE]": no space
	default:
		s.doneAt = -1
	}
}

// feedGRPC scans gRPC messages: a compressed-flag byte, a 4-byte big-endian length, then
// that many bytes. A message ends with its last byte (at once when empty).
func (s *eventScanner) feedGRPC(b []byte) (events int) {
	for len(b) > 0 {
		if s.head < 5 {
			if s.head > 0 {
				s.size = s.size<<8 | uint32(b[0])
			}
			s.head++
			b = b[1:]
			if s.head == 5 {
				s.left = s.size
			}
		} else {
			n := min(uint32(len(b)), s.left)
			s.left -= n
			b = b[n:]
		}
		if s.head == 5 && s.left == 0 {
			events++
			s.head, s.size = 0, 0
		}
	}
	return events
}

// endLine ends the current line and reports whether it ended an event.
func (s *eventScanner) endLine() int {
	blank := s.lineLen == 0
	lineDone := s.doneAt == len(doneSentinel)
	s.lineLen, s.doneAt = 0, 0
	switch {
	case s.kind == streamNDJSON:
		if blank {
			return 0
		}
		return 1
	case !blank:
		s.blockDone = lineDone && (s.blockLines == 0 || s.blockDone)
		s.blockLines++
		return 0
	case s.blockLines > 0:
		s.blockLines = 0
		if s.blockDone {
			s.blockDone = false
			return 0 // the sentinel: the stream's end, not an event
		}
		return 1
	}
	return 0
}

// streamState is the caller's record of the stream in flight: what the recorder needs at the
// end (first event, events) and where each gap goes as it is seen.
type streamState struct {
	kind   streamKind
	scan   eventScanner
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
	s.kind, s.scan = k, eventScanner{kind: k}
}

// feed scans b, read at stamp (mono ns), and records the gaps of the events it ends: the
// first event's end is kept for the recorder, each later one is a gap from the one before
// (events that end in the same read are 0 apart).
func (s *streamState) feed(b []byte, stamp int64) {
	n := s.scan.feed(b)
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
