package source

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The Python reader works on a token stream from this hand-written lexer (issue 28 item 6: no
// pure-Go parser covers Python as written today; gpython's stops at 3.4). It knows what a
// reader must not get wrong — every quoting form (prefixes, triple quotes, f-strings with
// nested quotes as 3.12 allows), comments, bracket nesting, backslash continuations and
// line/column — and nothing of the grammar beyond that, so syntax it does not model (type
// annotations, match, walrus, decorators) passes through as tokens.

// pyKind is a token's kind.
type pyKind uint8

const (
	pyName pyKind = iota + 1
	pyNum
	pyStr
	pyOp
)

// pyTok is one token; for a string Text is its body without prefix and quotes (escapes kept
// as written), and FStr says it was an f-string.
type pyTok struct {
	Kind      pyKind
	Text      string
	Line, Col int
	FStr      bool
}

// pyLine is one logical line: its indentation column and its tokens (a bracketed expression
// spanning lines, or a backslash continuation, is one line).
type pyLine struct {
	Indent int
	Toks   []pyTok
}

// pyLexer turns one file into logical lines.
type pyLexer struct {
	path      string
	src       string
	pos       int
	line, col int
	brackets  []pyTok
	lines     []pyLine
	cur       pyLine
	atStart   bool
}

// lexPython splits a file into logical lines, or an *Error at the first thing it cannot
// tokenise: an unterminated string, a closing bracket that does not match, a bracket left
// open at the end of the file.
func lexPython(path string, data []byte) ([]pyLine, error) {
	lx := &pyLexer{path: path, src: string(data), line: 1, col: 1, atStart: true}
	if err := lx.run(); err != nil {
		return nil, err
	}
	return lx.lines, nil
}

func (lx *pyLexer) errAt(line, col int, msg string) error {
	return &Error{File: lx.path, Line: line, Col: col, Msg: "not valid Python: " + msg}
}

// advance moves over n bytes, keeping line and column (columns count runes).
func (lx *pyLexer) advance(n int) {
	if n == 1 && lx.pos < len(lx.src) && lx.src[lx.pos] < utf8.RuneSelf {
		if lx.src[lx.pos] == '\n' {
			lx.line, lx.col = lx.line+1, 0
		}
		lx.pos++
		lx.col++
		return
	}
	for end := lx.pos + n; lx.pos < end && lx.pos < len(lx.src); {
		r, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
		lx.pos += size
		if r == '\n' {
			lx.line++
			lx.col = 1
		} else {
			lx.col++
		}
	}
}

// endLine closes the logical line when no bracket is open.
func (lx *pyLexer) endLine() {
	if len(lx.brackets) > 0 {
		return
	}
	if len(lx.cur.Toks) > 0 {
		lx.lines = append(lx.lines, lx.cur)
	}
	lx.cur = pyLine{}
	lx.atStart = true
}

func (lx *pyLexer) run() error {
	for lx.pos < len(lx.src) {
		if lx.atStart && len(lx.brackets) == 0 {
			lx.indent()
			if lx.pos >= len(lx.src) {
				break
			}
		}
		if err := lx.next(); err != nil {
			return err
		}
	}
	if len(lx.brackets) > 0 {
		b := lx.brackets[len(lx.brackets)-1]
		return lx.errAt(b.Line, b.Col, "'"+b.Text+"' is never closed")
	}
	lx.endLine()
	return nil
}

// indent measures the indentation of a line start (a tab to the next multiple of 8).
func (lx *pyLexer) indent() {
	col := 0
	for lx.pos < len(lx.src) {
		switch lx.src[lx.pos] {
		case ' ':
			col++
		case '\t':
			col = (col/8 + 1) * 8
		case '\f':
			col = 0
		default:
			lx.cur.Indent = col
			lx.atStart = false
			return
		}
		lx.advance(1)
	}
}

// next lexes one token, comment or line end.
func (lx *pyLexer) next() error {
	c := lx.src[lx.pos]
	switch {
	case c == '\n':
		lx.advance(1)
		lx.endLine()
	case c == ' ' || c == '\t' || c == '\r' || c == '\f':
		lx.advance(1)
	case c == '#':
		for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
			lx.advance(1)
		}
	case c == '\\' && lx.pos+1 < len(lx.src) && (lx.src[lx.pos+1] == '\n' || lx.src[lx.pos+1] == '\r'):
		lx.advance(1)
		for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
			lx.advance(1)
		}
		lx.advance(1)
	case c >= '0' && c <= '9' || c == '.' && lx.pos+1 < len(lx.src) && isDigit(lx.src[lx.pos+1]):
		lx.number()
	case isNameStart(lx.src[lx.pos:]):
		return lx.name()
	case c == '"' || c == '\'':
		return lx.str(lx.pos, "")
	default:
		return lx.op()
	}
	return nil
}

func isNameStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

func isNameRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func (lx *pyLexer) emit(t pyTok) { lx.cur.Toks = append(lx.cur.Toks, t) }

func (lx *pyLexer) number() {
	start, line, col := lx.pos, lx.line, lx.col
	lx.advance(1)
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		prev := lx.src[lx.pos-1]
		ok := isDigit(c) || c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
			(c == '+' || c == '-') && (prev == 'e' || prev == 'E') && !strings.HasPrefix(strings.ToLower(lx.src[start:]), "0x")
		if !ok {
			break
		}
		lx.advance(1)
	}
	lx.emit(pyTok{Kind: pyNum, Text: lx.src[start:lx.pos], Line: line, Col: col})
}

// name lexes a name, or a string with its prefix (r, b, u, f and their pairs).
func (lx *pyLexer) name() error {
	start, line, col := lx.pos, lx.line, lx.col
	for lx.pos < len(lx.src) {
		r, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
		if !isNameRune(r) {
			break
		}
		lx.pos += size
		lx.col++
	}
	word := lx.src[start:lx.pos]
	if lx.pos < len(lx.src) && (lx.src[lx.pos] == '"' || lx.src[lx.pos] == '\'') && isStrPrefix(word) {
		lx.pos, lx.col = start, col
		return lx.str(start+len(word), strings.ToLower(word))
	}
	lx.emit(pyTok{Kind: pyName, Text: word, Line: line, Col: col})
	return nil
}

func isStrPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf", "t", "tr", "rt":
		return true
	}
	return false
}

// str lexes a string whose quote is at q (the prefix, lower case, before it).
func (lx *pyLexer) str(q int, prefix string) error {
	line, col := lx.line, lx.col
	end, err := scanString(lx.src, q, strings.ContainsAny(prefix, "ft"))
	if err != "" {
		return lx.errAt(line, col, err)
	}
	quote := 1
	if strings.HasPrefix(lx.src[q:], `"""`) || strings.HasPrefix(lx.src[q:], `'''`) {
		quote = 3
	}
	body := lx.src[q+quote : end-quote]
	lx.advance(end - lx.pos)
	lx.emit(pyTok{Kind: pyStr, Text: body, Line: line, Col: col, FStr: strings.Contains(prefix, "f")})
	return nil
}

// scanString is the end (one past the closing quote) of the string whose opening quote is at
// q, or why it has none. A backslash always escapes the next character (raw strings keep it,
// but it still protects a quote); an f-string's {expressions} may hold strings of any quote.
func scanString(src string, q int, fstr bool) (int, string) {
	delim := src[q : q+1]
	if strings.HasPrefix(src[q:], delim+delim+delim) {
		delim = src[q : q+3]
	}
	for i := q + len(delim); i < len(src); {
		c := src[i]
		switch {
		case c == '\\' && strings.HasPrefix(src[i+1:], "\r\n"):
			i += 3 // a backslash before a CRLF continues the string, as before an LF
		case c == '\\':
			i += 2
		case strings.HasPrefix(src[i:], delim):
			return i + len(delim), ""
		case c == '\n' && len(delim) == 1:
			return 0, "a string that does not end on its line"
		case fstr && c == '{' && strings.HasPrefix(src[i:], "{{"):
			i += 2
		case fstr && c == '{':
			end, err := scanReplacement(src, i+1)
			if err != "" {
				return 0, err
			}
			i = end
		default:
			i++
		}
	}
	return 0, "a string that is never closed"
}

// scanReplacement is the index after the '}' closing an f-string replacement field that
// starts at i (after its '{'), nested brackets and strings included.
func scanReplacement(src string, i int) (int, string) {
	depth := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '"' || c == '\'':
			end, err := scanString(src, i, false)
			if err != "" {
				return 0, err
			}
			i = end
			continue
		case c == '{' || c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == '}':
			if depth == 0 {
				return i + 1, ""
			}
			depth--
		}
		i++
	}
	return 0, "an f-string replacement field that is never closed"
}

// pyOps are the operators of more than one character, longest first.
var pyOps = []string{"**=", "//=", ">>=", "<<=", "...", "->", ":=", "==", "!=", "<=", ">=", "**", "//", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="}

// pyClosing maps a closing bracket to its opening one.
var pyClosing = map[byte]byte{')': '(', ']': '[', '}': '{'}

func (lx *pyLexer) op() error {
	line, col := lx.line, lx.col
	for _, o := range pyOps {
		if o[0] == lx.src[lx.pos] && strings.HasPrefix(lx.src[lx.pos:], o) {
			lx.advance(len(o))
			lx.emit(pyTok{Kind: pyOp, Text: o, Line: line, Col: col})
			return nil
		}
	}
	_, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
	text := lx.src[lx.pos : lx.pos+size]
	c := lx.src[lx.pos]
	tok := pyTok{Kind: pyOp, Text: text, Line: line, Col: col}
	switch c {
	case '(', '[', '{':
		lx.brackets = append(lx.brackets, tok)
	case ')', ']', '}':
		if len(lx.brackets) == 0 || lx.brackets[len(lx.brackets)-1].Text[0] != pyClosing[c] {
			return lx.errAt(line, col, "'"+text+"' does not close an open bracket")
		}
		lx.brackets = lx.brackets[:len(lx.brackets)-1]
	}
	lx.advance(size)
	lx.emit(tok)
	return nil
}
