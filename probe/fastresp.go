package probe

import (
	"bufio"
	"bytes"
	"io"
)

// The common response — HTTP/1.1, a final status, a Content-Length body (or none, for
// HEAD, 204 and 304), a head that fits the read buffer — is read without net/http's
// ReadResponse, which allocates a Response, a header map and a string per header line
// (about 9 allocations and 0.7 KB per request, a sixth of the probe's CPU at wrk's rate).
// The fast path only peeks at the buffered bytes until it has either the whole head, in a
// form it accepts, or a line it does not; in the second case it consumes nothing and
// ReadResponse reads the same bytes as before (chunked bodies, 1xx, HTTP/1.0, bodies until
// close, repeated or odd Content-Length, obs-fold, any byte ReadResponse might reject).
// What it accepts, it reads as ReadResponse would: the same status, the same body length,
// the same keep-alive decision, the same errors for a body cut short
// (TestFastResponseMatchesReadResponse and FuzzFastResponse compare the two).

// fastResult is what the fast path read: the status, the body length (-1: not known yet),
// whether the response closes the connection, and the head's length in bytes.
type fastResult struct {
	status  int
	length  int64
	close   bool
	headLen int
}

// fastHead waits for the response head in br and parses it. ok is false when the head is
// not one the fast path takes (nothing is consumed then), or when reading failed before it
// was complete (the error is left for ReadResponse to meet again: limitedReader repeats it).
func fastHead(br *bufio.Reader, head bool) (res fastResult, ok bool) {
	want := 1
	lineStart := 0 // offset of the first line not yet checked
	res.length = -1
	sawLength := false
	for {
		if _, err := br.Peek(want); err != nil {
			return res, false
		}
		buf, _ := br.Peek(br.Buffered())
		for {
			nl := bytes.IndexByte(buf[lineStart:], '\n')
			if nl < 0 {
				break
			}
			line := buf[lineStart : lineStart+nl]
			next := lineStart + nl + 1
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			switch {
			case lineStart == 0:
				st, good := statusLine(line)
				if !good || st < 200 {
					return res, false
				}
				res.status = st
			case len(line) == 0:
				// The blank line: the head is complete.
				res.headLen = next
				if head || res.status == 204 || res.status == 304 {
					res.length = 0
				} else if !sawLength {
					return res, false // a body until close: ReadResponse's case
				}
				return res, true
			default:
				name, value, good := headerLine(line)
				if !good {
					return res, false
				}
				switch {
				case asciiEqualFold(name, "content-length"):
					if sawLength {
						return res, false
					}
					sawLength = true
					n, good := contentLength(value)
					if !good {
						return res, false // ReadResponse rejects it even where no body follows
					}
					res.length = n
				case asciiEqualFold(name, "transfer-encoding"), asciiEqualFold(name, "trailer"):
					return res, false
				case asciiEqualFold(name, "content-type") && streamType(value):
					return res, false // a stream: its events are timed (stream.go)
				case asciiEqualFold(name, "connection"):
					res.close = res.close || hasCloseToken(value)
				}
			}
			lineStart = next
		}
		if br.Buffered() >= br.Size() {
			return res, false // a head larger than the buffer: ReadResponse reads it
		}
		want = br.Buffered() + 1
	}
}

// statusLine accepts "HTTP/1.1 NNN" optionally followed by a space and any reason.
func statusLine(line []byte) (int, bool) {
	const proto = "HTTP/1.1 "
	if len(line) < len(proto)+3 || string(line[:len(proto)]) != proto {
		return 0, false
	}
	code := line[len(proto) : len(proto)+3]
	if len(line) > len(proto)+3 && line[len(proto)+3] != ' ' {
		return 0, false
	}
	st := 0
	for _, c := range code {
		if c < '0' || c > '9' {
			return 0, false
		}
		st = st*10 + int(c-'0')
	}
	return st, true
}

// headerLine splits "Name: value" where the name is a token and the value holds only
// visible characters, spaces and tabs (what textproto accepts, less obs-text); the value is
// trimmed of spaces and tabs.
func headerLine(line []byte) (name, value []byte, ok bool) {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return nil, nil, false
	}
	name, value = line[:i], line[i+1:]
	for _, c := range name {
		if !isTokenByte(c) {
			return nil, nil, false
		}
	}
	for _, c := range value {
		if c != '\t' && (c < 0x20 || c > 0x7e) {
			return nil, nil, false
		}
	}
	return name, trimOWS(value), true
}

// tokenBytes marks the bytes of an RFC 9110 token.
var tokenBytes = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

func isTokenByte(c byte) bool { return tokenBytes[c] }

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// contentLength parses 1 to 18 decimal digits (ReadResponse takes up to 2^63−1; longer
// values go to it).
func contentLength(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// hasCloseToken reports whether a Connection value lists "close" (as net/http's
// HeaderValuesContainsToken: comma-separated, trimmed, case-insensitive).
func hasCloseToken(v []byte) bool {
	for len(v) > 0 {
		tok := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			tok, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		if asciiEqualFold(trimOWS(tok), "close") {
			return true
		}
	}
	return false
}

// asciiEqualFold compares b with the lower-case ASCII s, ignoring case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// fastBody consumes the head and n body bytes. A body cut short is io.ErrUnexpectedEOF, as
// net/http's body reader says.
func fastBody(br *bufio.Reader, lim *limitedReader, res fastResult) error {
	if _, err := br.Discard(res.headLen); err != nil {
		return err // cannot happen: the head is buffered
	}
	lim.n = 1<<63 - 1
	if res.length == 0 {
		return nil
	}
	for n := res.length; n > 0; {
		d, err := br.Discard(int(min(n, 1<<30)))
		n -= int64(d)
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
	}
	return nil
}
