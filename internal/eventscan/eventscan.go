// Package eventscan finds the ends of a streaming response's events in its body, fed in
// pieces as the network brings them (issue 29; docs/design.md §6, streams): SSE blocks,
// NDJSON lines, gRPC length-prefixed messages, or each read of another body. It holds the
// state of the line or message being read, never its bytes, so memory stays flat however
// long a stream runs.
//
// It is probe's event scanner (probe/stream.go) made a package of its own so that live
// replay's driver reads a stream exactly as probe does: one reader.
package eventscan

import "strings"

// Kind is how a response's events are delimited.
type Kind uint8

const (
	None   Kind = iota
	SSE         // an event ends at a blank line (WHATWG HTML §9.2.6)
	NDJSON      // an event is a non-blank line
	Chunks      // a forced stream of another type: each read of the network that brings data
	// GRPC is application/grpc: an event is a length-prefixed message (gRPC over HTTP/2,
	// PROTOCOL-HTTP2.md in grpc/grpc).
	GRPC
)

// KindOf is the kind of a response with Content-Type contentType (its media type,
// parameters aside, in any case); forced says the caller treats any body as a stream.
func KindOf(contentType string, forced bool) Kind {
	media, _, _ := strings.Cut(contentType, ";")
	media = strings.TrimSpace(media)
	switch {
	case strings.EqualFold(media, "text/event-stream"):
		return SSE
	case strings.EqualFold(media, "application/x-ndjson"):
		return NDJSON
	case grpcMedia(media):
		return GRPC
	case forced:
		return Chunks
	}
	return None
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

// Scanner finds the ends of events in a body fed to it in pieces; New makes one of a kind.
type Scanner struct {
	kind Kind
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

// New is a Scanner of kind k.
func New(k Kind) Scanner { return Scanner{kind: k} }

// Kind is the scanner's kind.
func (s *Scanner) Kind() Kind { return s.kind }

// Feed scans b and returns how many events ended in it. An SSE block of non-blank lines —
// data, event, id, retry or a comment line — ends at a blank line: every block counts,
// comments included, since a heartbeat resets an idle timeout as much as data does. CR, LF
// and CRLF all end a line, as the SSE grammar says; a trailing line without its end is not
// an event (the SSE parser discards it too). For Chunks every piece is one event.
func (s *Scanner) Feed(b []byte) (events int) {
	switch s.kind {
	case None:
		return 0
	case Chunks:
		if len(b) > 0 {
			return 1
		}
		return 0
	case GRPC:
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
			if c != ' ' && c != '\t' || s.kind == SSE {
				s.lineLen++
			}
			if s.kind == SSE {
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
func (s *Scanner) matchDone(c byte) {
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
func (s *Scanner) feedGRPC(b []byte) (events int) {
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
func (s *Scanner) endLine() int {
	blank := s.lineLen == 0
	lineDone := s.doneAt == len(doneSentinel)
	s.lineLen, s.doneAt = 0, 0
	switch {
	case s.kind == NDJSON:
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
