package advise

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Issue 24 item 4. encoding/json's Decoder buffers a whole value before decoding it, and a
// whole string before returning it as a token: a HAR saved "with content" holds response
// bodies as strings (a 300 MB body took the read to 1.1 GB, the decoder's doubling buffer
// plus the line tracker's copies). jsonClip sits between the input and the decoder and
// passes the document through with every string cut to maxJSONString bytes: the fields
// advise reads (a URL, a method, a time, a status, an error message) are far shorter, and a
// body or a data: URL is never read. And a value below unitDepth (one HAR entry, one OTLP
// span) longer than maxJSONUnit, strings clipped, is refused naming the cap: memory is one
// entry or span of at most that size, whatever the document's.

const (
	// maxJSONString is the longest string passed to the decoder; the rest is dropped.
	maxJSONString = 64 << 10
	// maxJSONUnit is the longest entry or span, its strings clipped.
	maxJSONUnit = 16 << 20
)

// jsonClip is an io.Reader over r clipping JSON strings. It keeps newlines and control bytes
// (invalid in a string) so that line numbers and syntax errors stay the decoder's.
type jsonClip struct {
	r io.Reader
	// unitDepth is the nesting at which one unit (an entry, a span) opens: bytes at a depth
	// past it count toward maxJSONUnit. 0: no unit cap.
	unitDepth int
	what      string // "HAR entry", "OTLP span": for the error
	strMax    int    // the string cap; 0: maxJSONString (a test's small cap)

	buf      []byte
	inString bool
	escape   int  // bytes of an escape sequence still to come (\x: 1, \uXXXX: 5 then 4)
	escKept  bool // whether the escape's backslash was passed
	strLen   int  // bytes of the current string passed
	depth    int
	unitLen  int64
	err      error
	// clipped counts the strings cut.
	clipped int64
}

func (c *jsonClip) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	for {
		if cap(c.buf) < len(p) {
			c.buf = make([]byte, len(p))
		}
		n, err := c.r.Read(c.buf[:len(p)])
		out := c.filter(p[:0], c.buf[:n])
		if c.err != nil {
			return len(out), c.err
		}
		if err != nil {
			c.err = err
		}
		if len(out) > 0 || err != nil {
			return len(out), err
		}
	}
}

// filter appends to dst the bytes of src that pass: runs of plain bytes at once (the bytes
// of a string within the cap, the bytes between two structural ones), the rest one by one.
func (c *jsonClip) filter(dst, src []byte) []byte {
	for len(src) > 0 && c.err == nil {
		i := 0
		switch {
		case c.inString && c.escape == 0 && c.strLen < c.limit():
			lim := min(len(src), c.limit()-c.strLen)
			if i = bytes.IndexAny(src[:lim], `"\`); i < 0 {
				i = lim
			}
			c.strLen += i
		case c.inString && c.escape == 0:
			// Past the cap: drop up to the next byte that matters (a quote, a backslash,
			// a control byte kept for the decoder to refuse).
			if i = bytes.IndexAny(src, clipStop); i < 0 {
				i = len(src)
			}
			if i > 0 {
				src = src[i:]
				continue
			}
		case !c.inString:
			if i = bytes.IndexAny(src, `"{}[]`); i < 0 {
				i = len(src)
			}
		}
		if i > 0 {
			dst = c.pass(dst, src[:i])
			src = src[i:]
			continue
		}
		dst = c.one(dst, src[0])
		src = src[1:]
	}
	return dst
}

// clipStop are the bytes a clipped string's dropping stops at.
const clipStop = "\"\\\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f" +
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"

// pass appends run, counting it toward the unit's cap.
func (c *jsonClip) pass(dst, run []byte) []byte {
	if c.unitDepth > 0 && c.depth > c.unitDepth {
		if c.unitLen += int64(len(run)); c.unitLen > maxJSONUnit {
			c.err = fmt.Errorf("%s larger than %d MiB (its strings cut to %d KiB each)", c.what, maxJSONUnit>>20, maxJSONString>>10)
			return dst
		}
	} else {
		c.unitLen = 0
	}
	return append(dst, run...)
}

// one passes or drops b.
func (c *jsonClip) one(dst []byte, b byte) []byte {
	if c.inString {
		keep := c.strLen < c.limit() || b < ' '
		switch {
		case c.escape > 0:
			if c.escape == 1 && b == 'u' {
				c.escape = 5
			}
			c.escape--
			keep = c.escKept // an escape begun is finished, one dropped is dropped whole
		case b == '\\':
			c.escape, c.escKept = 1, keep
		case b == '"':
			c.inString, keep = false, true
			if c.strLen >= c.limit() {
				c.clipped++
			}
		}
		if !keep {
			return dst
		}
		c.strLen++
	} else {
		switch b {
		case '"':
			c.inString, c.strLen, c.escape = true, 0, 0
		case '{', '[':
			c.depth++
		case '}', ']':
			c.depth--
		}
	}
	return c.pass(dst, []byte{b})
}

// skipJSON reads the decoder's next value token by token, holding none of it (a skipped
// value was decoded into a json.RawMessage, whole).
func skipJSON(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

func (c *jsonClip) limit() int {
	if c.strMax > 0 {
		return c.strMax
	}
	return maxJSONString
}
