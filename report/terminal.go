package report

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// Scenario names, descriptions, policy names, URLs and error messages come from files and
// flags a user may not have written. Their control characters must not reach a terminal: an
// OSC 52 sequence writes the clipboard, CSI 2J clears the screen, a carriage return or a
// bidi override rewrites what a line appears to say (issue 17). Every renderer writes
// through terminalWriter (Registry.Get wraps it), and errors go through Sanitize, so one
// function decides what passes: printable text, newline and tab, and — only when the
// renderer itself colours its output — SGR colour sequences (ESC [ digits m), the only
// escapes lipgloss writes. Everything else is escaped as visible text (\x1b, \r, \u202e).

// Sanitize escapes every control character of s (C0 but newline and tab, DEL, C1, bidi
// overrides and isolates, invalid UTF-8), ANSI escapes included, as visible text; and a
// line of it that would be a GitHub Actions workflow command has its first colon shown as
// \x3a (guardLine): an error quoting a name on stderr reaches the job's log too.
func Sanitize(s string) string {
	out, _ := escapeTerminal(nil, []byte(s), false, true)
	var b bytes.Buffer
	g := &commandGuard{w: &b}
	_, _ = g.Write(out)
	_ = g.Flush()
	return b.String()
}

// terminalWriter escapes what Sanitize escapes, letting SGR sequences through when keepSGR;
// a sequence or a UTF-8 character split across writes is held back until it completes.
type terminalWriter struct {
	w       io.Writer
	keepSGR bool
	pending []byte
}

// SafeWriter wraps w so that what is written to it reaches a terminal with control
// characters, escape sequences, bidi overrides and invalid UTF-8 escaped, as Sanitize does:
// for streams that carry user strings outside a report (serve's log lines name scenario
// phases; net/http's error log quotes what clients sent). Newlines and tabs pass.
//
// A line that would be a GitHub Actions workflow command has its first colon shown as \x3a,
// as in the reports (guardLine); lines are judged per Write, as log.Logger writes them whole.
func SafeWriter(w io.Writer) io.Writer {
	return &lineGuardWriter{w: newTerminalWriter(w, false), atStart: true}
}

// lineGuardWriter applies guardLine to every line that starts within a Write, holding
// nothing back (a log line is one Write).
type lineGuardWriter struct {
	w       io.Writer
	atStart bool
}

func (l *lineGuardWriter) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p)+4)
	for rest := p; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		if l.atStart {
			out = append(out, guardLine(line)...)
		} else {
			out = append(out, line...)
		}
		l.atStart = line[len(line)-1] == '\n'
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// newTerminalWriter wraps w; colour says whether the renderer writes SGR sequences.
func newTerminalWriter(w io.Writer, colour bool) io.Writer {
	if tw, ok := w.(*terminalWriter); ok {
		return tw
	}
	return &terminalWriter{w: w, keepSGR: colour}
}

func (t *terminalWriter) Write(p []byte) (int, error) {
	src := p
	if len(t.pending) > 0 {
		src = append(t.pending, p...)
	}
	out, rest := escapeTerminal(make([]byte, 0, len(src)+16), src, t.keepSGR, false)
	t.pending = append(t.pending[:0:0], rest...)
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// escapeTerminal appends src to dst with unsafe characters escaped. Unless final, an
// incomplete escape sequence or UTF-8 character at the end is returned as rest instead.
func escapeTerminal(dst, src []byte, keepSGR, final bool) (out, rest []byte) {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == 0x1b && keepSGR:
			if n, complete := sgrLength(src[i:]); n > 0 {
				dst = append(dst, src[i:i+n]...)
				i += n
				continue
			} else if !complete && !final {
				return dst, src[i:]
			}
			dst = append(dst, `\x1b`...)
			i++
		case c == '\n' || c == '\t':
			dst = append(dst, c)
			i++
		case c < 0x20 || c == 0x7f:
			dst = append(dst, escapeByte(c)...)
			i++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				if !final && !utf8.FullRune(src[i:]) {
					return dst, src[i:]
				}
				dst = append(dst, escapeByte(c)...)
				i++
				continue
			}
			if unsafeRune(r) {
				dst = fmt.Appendf(dst, `\u%04x`, r)
			} else {
				dst = append(dst, src[i:i+size]...)
			}
			i += size
		}
	}
	return dst, nil
}

// sgrLength is the length of the SGR sequence (ESC [ params m) at the start of b, 0 when
// there is none; complete is false when b ends before it could tell.
func sgrLength(b []byte) (n int, complete bool) {
	if len(b) < 2 {
		return 0, false
	}
	if b[1] != '[' {
		return 0, true
	}
	for k := 2; k < len(b); k++ {
		switch c := b[k]; {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
			continue
		case c == 'm':
			return k + 1, true
		default:
			return 0, true
		}
	}
	return 0, false
}

func escapeByte(c byte) []byte {
	switch c {
	case '\r':
		return []byte(`\r`)
	case '\b':
		return []byte(`\b`)
	}
	return fmt.Appendf(nil, `\x%02x`, c)
}

// unsafeRune: C1 controls (U+009B is a one-byte CSI to some terminals) and the bidi
// embeddings, overrides and isolates that reorder what a line shows.
func unsafeRune(r rune) bool {
	return r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
