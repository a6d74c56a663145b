package source

import (
	"fmt"
	"strings"
)

// The PHP lexer: a hand-written tokeniser in the standard library only (issue 28 item 6: no
// pure-Go PHP parser is served here, tree-sitter needs cgo). It knows what a reader working on
// the token stream must not get wrong — every quoting form (single, double and backtick
// strings with {$…} interpolation, heredoc and nowdoc with PHP 7.3's indented closing marker),
// every comment form (//, # but not the #[ of a PHP 8 attribute, /* */), inline HTML between
// ?> and <?php — and matches brackets, so the reader can skip what it does not model
// (attributes, types, match arms) by jumping over a bracketed group.

// phpKind is a token's kind.
type phpKind uint8

const (
	phpIdent  phpKind = iota // a name, namespaced or not: Http, \GuzzleHttp\Client, function
	phpVar                   // $name (text without the $)
	phpString                // a string literal (text is its value; interp says whether it has {$…})
	phpNumber                // a number literal as written
	phpOp                    // an operator or punctuation: -> ?-> :: => = ; , . and the rest
	phpOpen                  // ( [ { or #[ (text is the bracket)
	phpClose                 // ) ] }
	phpNone                  // past the end of the file (phpFile.tok)
)

// phpTok is one token. match is the index of the matching bracket for phpOpen and phpClose.
type phpTok struct {
	kind   phpKind
	interp bool
	line   int32
	col    int32
	match  int32
	text   string
}

// phpLexer holds the state of one file's tokenisation.
type phpLexer struct {
	src        string
	path       string
	i          int
	line       int
	toks       []phpTok
	stack      []int32
	lineStart  int
	inlineHTML bool
}

// lexPHP tokenises one PHP file, or returns an *Error at the line and column of what it cannot
// read (an unterminated string or comment, an unbalanced bracket).
func lexPHP(path string, data []byte) ([]phpTok, error) {
	lx := &phpLexer{src: string(data), path: path, line: 1, inlineHTML: true, toks: make([]phpTok, 0, len(data)/5)}
	for lx.i < len(lx.src) {
		var err error
		if lx.inlineHTML {
			lx.html()
			continue
		}
		if err = lx.next(); err != nil {
			return nil, err
		}
	}
	if len(lx.stack) > 0 {
		t := lx.toks[lx.stack[len(lx.stack)-1]]
		return nil, &Error{File: path, Line: int(t.line), Col: int(t.col), Msg: fmt.Sprintf("not valid PHP: %q is never closed", t.text)}
	}
	return lx.toks, nil
}

// errAt is an *Error at the byte offset off.
func (lx *phpLexer) errAt(line, col int, format string, args ...any) error {
	return &Error{File: lx.path, Line: line, Col: col, Msg: "not valid PHP: " + fmt.Sprintf(format, args...)}
}

// advance moves n bytes on, counting lines.
func (lx *phpLexer) advance(n int) {
	end := lx.i + n
	if end > len(lx.src) {
		end = len(lx.src)
	}
	for ; lx.i < end; lx.i++ {
		if lx.src[lx.i] == '\n' {
			lx.line++
			lx.lineStart = lx.i + 1
		}
	}
}

// pos is the current line and column (1-based, in bytes).
func (lx *phpLexer) pos() (int, int) { return lx.line, lx.i - lx.lineStart + 1 }

// html skips inline HTML up to the next <?php, <?= or <?.
func (lx *phpLexer) html() {
	at := strings.Index(lx.src[lx.i:], "<?")
	if at < 0 {
		lx.advance(len(lx.src) - lx.i)
		return
	}
	lx.advance(at + 2)
	if strings.HasPrefix(strings.ToLower(lx.src[lx.i:]), "php") {
		lx.advance(3)
	} else if strings.HasPrefix(lx.src[lx.i:], "=") {
		lx.advance(1)
	}
	lx.inlineHTML = false
}

// emit appends a token that starts at line, col.
func (lx *phpLexer) emit(kind phpKind, text string, line, col int) {
	lx.toks = append(lx.toks, phpTok{kind: kind, text: text, line: int32(line), col: int32(col), match: -1})
}

// next reads one token (or skips a space or a comment).
func (lx *phpLexer) next() error {
	line, col := lx.pos()
	if done, err := lx.trivia(line, col); done || err != nil {
		return err
	}
	c := lx.src[lx.i]
	rest := lx.src[lx.i:]
	switch {
	case c == '\'':
		return lx.single(line, col)
	case c == '"' || c == '`':
		return lx.double(c, line, col)
	case strings.HasPrefix(rest, "<<<"):
		return lx.heredoc(line, col)
	case c == '$' && lx.i+1 < len(lx.src) && identStart(lx.src[lx.i+1]):
		lx.advance(1)
		n := identLen(lx.src[lx.i:], false)
		lx.emit(phpVar, lx.src[lx.i:lx.i+n], line, col)
		lx.advance(n)
	case identStart(c) || (c == '\\' && lx.i+1 < len(lx.src) && identStart(lx.src[lx.i+1])):
		n := identLen(rest, true)
		lx.emit(phpIdent, rest[:n], line, col)
		lx.advance(n)
	case c >= '0' && c <= '9' || (c == '.' && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9'):
		n := numberLen(rest)
		lx.emit(phpNumber, rest[:n], line, col)
		lx.advance(n)
	case c == '(' || c == '[' || c == '{':
		return lx.open(string(c), 1, line, col)
	case c == ')' || c == ']' || c == '}':
		return lx.close(c, line, col)
	default:
		lx.op(rest, line, col)
	}
	return nil
}

// trivia skips a space or a comment, leaves PHP at ?> and opens an attribute's #[; done says
// whether it consumed anything.
func (lx *phpLexer) trivia(line, col int) (bool, error) {
	c := lx.src[lx.i]
	rest := lx.src[lx.i:]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		lx.advance(1)
	case strings.HasPrefix(rest, "?>"):
		lx.emit(phpOp, ";", line, col)
		lx.advance(2)
		lx.inlineHTML = true
	case strings.HasPrefix(rest, "#["):
		return true, lx.open("#[", 2, line, col)
	case c == '#' || strings.HasPrefix(rest, "//"):
		lx.lineComment()
	case strings.HasPrefix(rest, "/*"):
		end := strings.Index(rest[2:], "*/")
		if end < 0 {
			return true, lx.errAt(line, col, "the comment is never closed")
		}
		lx.advance(end + 4)
	default:
		return false, nil
	}
	return true, nil
}

// phpOps are the operators the reader looks at, longest first; any other byte is an operator
// of its own.
var phpOps = []string{"?->", "->", "::", "=>", "===", "!==", "==", "!=", "<=", ">=", "??=", "??", "**", "++", "--", "+=", "-=", "*=", "/=", ".=", "&&", "||", "..."}

// op emits the operator at the start of rest.
func (lx *phpLexer) op(rest string, line, col int) {
	for _, o := range phpOps {
		if strings.HasPrefix(rest, o) {
			lx.emit(phpOp, o, line, col)
			lx.advance(len(o))
			return
		}
	}
	lx.emit(phpOp, rest[:1], line, col)
	lx.advance(1)
}

// open emits an opening bracket and remembers it.
func (lx *phpLexer) open(text string, n, line, col int) error {
	lx.stack = append(lx.stack, int32(len(lx.toks)))
	lx.emit(phpOpen, text, line, col)
	lx.advance(n)
	return nil
}

// close emits a closing bracket and matches it with its opening one.
func (lx *phpLexer) close(c byte, line, col int) error {
	if len(lx.stack) == 0 {
		return lx.errAt(line, col, "%q closes nothing", string(c))
	}
	o := lx.stack[len(lx.stack)-1]
	want := map[string]byte{"(": ')', "[": ']', "#[": ']', "{": '}'}[lx.toks[o].text]
	if c != want {
		t := lx.toks[o]
		return lx.errAt(line, col, "%q does not close the %q at %d:%d", string(c), t.text, t.line, t.col)
	}
	lx.stack = lx.stack[:len(lx.stack)-1]
	lx.toks[o].match = int32(len(lx.toks))
	lx.emit(phpClose, string(c), line, col)
	lx.toks[len(lx.toks)-1].match = o
	lx.advance(1)
	return nil
}

// lineComment skips a // or # comment up to the end of the line or a ?>.
func (lx *phpLexer) lineComment() {
	rest := lx.src[lx.i:]
	end := len(rest)
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		end = nl
	}
	if q := strings.Index(rest[:end], "?>"); q >= 0 {
		end = q
	}
	lx.advance(end)
}

// single reads a '…' string: no interpolation; \' and \\ are its only escapes.
func (lx *phpLexer) single(line, col int) error {
	var b strings.Builder
	j := lx.i + 1
	for j < len(lx.src) {
		switch c := lx.src[j]; {
		case c == '\\' && j+1 < len(lx.src) && (lx.src[j+1] == '\'' || lx.src[j+1] == '\\'):
			b.WriteByte(lx.src[j+1])
			j += 2
		case c == '\'':
			lx.emit(phpString, b.String(), line, col)
			lx.advance(j + 1 - lx.i)
			return nil
		default:
			b.WriteByte(c)
			j++
		}
	}
	return lx.errAt(line, col, "the string is never closed")
}

// double reads a "…" or `…` string, its escapes kept as written but \" and \\, and its
// {$…} interpolations skipped whole (they may hold strings of their own).
func (lx *phpLexer) double(q byte, line, col int) error {
	var b strings.Builder
	interp := false
	j := lx.i + 1
	for j < len(lx.src) {
		c := lx.src[j]
		switch {
		case c == '\\' && j+1 < len(lx.src):
			if n := lx.src[j+1]; n == q || n == '\\' || n == '$' {
				b.WriteByte(n)
			} else {
				b.WriteString(lx.src[j : j+2])
			}
			j += 2
		case c == q:
			lx.emit(phpString, b.String(), line, col)
			lx.toks[len(lx.toks)-1].interp = interp
			lx.advance(j + 1 - lx.i)
			return nil
		case c == '{' && j+1 < len(lx.src) && lx.src[j+1] == '$', c == '$' && j+1 < len(lx.src) && (identStart(lx.src[j+1]) || lx.src[j+1] == '{'):
			interp = true
			end := interpEnd(lx.src, j)
			if end < 0 {
				return lx.errAt(line, col, "the string is never closed")
			}
			b.WriteString(lx.src[j:end])
			j = end
		default:
			b.WriteByte(c)
			j++
		}
	}
	return lx.errAt(line, col, "the string is never closed")
}

// interpEnd is the offset after the interpolation at src[j] ({$…}, ${…} or $name with its
// ->prop or [key]), -1 when a {…} is never closed.
func interpEnd(src string, j int) int {
	if src[j] == '{' || (j+1 < len(src) && src[j+1] == '{') {
		depth := 0
		for k := j; k < len(src); k++ {
			switch src[k] {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					return k + 1
				}
			case '\'', '"':
				if e := skipQuoted(src, k); e > 0 {
					k = e - 1
				} else {
					return -1
				}
			}
		}
		return -1
	}
	k := j + 1 + identLen(src[j+1:], false)
	if strings.HasPrefix(src[k:], "->") && k+2 < len(src) && identStart(src[k+2]) {
		k += 2 + identLen(src[k+2:], false)
	} else if k < len(src) && src[k] == '[' {
		if e := strings.IndexByte(src[k:], ']'); e >= 0 && !strings.ContainsAny(src[k:k+e], "\"\n") {
			k += e + 1
		}
	}
	return k
}

// skipQuoted is the offset after the quoted string at src[k], -1 when it is never closed.
func skipQuoted(src string, k int) int {
	q := src[k]
	for j := k + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return -1
}

// heredoc reads <<<EOT, <<<"EOT" or the nowdoc <<<'EOT' up to its closing marker, which PHP
// 7.3 lets be indented and followed by more code on its line.
func (lx *phpLexer) heredoc(line, col int) error {
	j := lx.i + 3
	for j < len(lx.src) && (lx.src[j] == ' ' || lx.src[j] == '\t') {
		j++
	}
	quote := byte(0)
	if j < len(lx.src) && (lx.src[j] == '\'' || lx.src[j] == '"') {
		quote = lx.src[j]
		j++
	}
	n := identLen(lx.src[j:], false)
	if n == 0 {
		lx.op(lx.src[lx.i:], line, col) // a << followed by <: an operator, not a heredoc
		return nil
	}
	marker := lx.src[j : j+n]
	j += n
	if quote != 0 {
		if j >= len(lx.src) || lx.src[j] != quote {
			return lx.errAt(line, col, "the heredoc marker %s is not closed by its quote", marker)
		}
		j++
	}
	nl := strings.IndexByte(lx.src[j:], '\n')
	if nl < 0 {
		return lx.errAt(line, col, "the heredoc %s has no body", marker)
	}
	body := j + nl + 1
	for k := body; k <= len(lx.src); {
		end := strings.IndexByte(lx.src[k:], '\n')
		lineEnd := len(lx.src)
		if end >= 0 {
			lineEnd = k + end
		}
		t := strings.TrimLeft(lx.src[k:lineEnd], " \t")
		if strings.HasPrefix(t, marker) && (len(t) == len(marker) || !identByte(t[len(marker)])) {
			stop := lineEnd - len(t) + len(marker)
			lx.emit(phpString, lx.src[body:k], line, col)
			lx.toks[len(lx.toks)-1].interp = quote != '\'' && strings.Contains(lx.src[body:k], "$")
			lx.advance(stop - lx.i)
			return nil
		}
		if end < 0 {
			break
		}
		k = lineEnd + 1
	}
	return lx.errAt(line, col, "the heredoc %s is never closed", marker)
}

func identStart(c byte) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

func identByte(c byte) bool { return identStart(c) || (c >= '0' && c <= '9') }

// identLen is the length of the name at the start of s; with ns, namespace separators too.
func identLen(s string, ns bool) int {
	n := 0
	for n < len(s) && (identByte(s[n]) || (ns && s[n] == '\\' && n+1 < len(s) && identStart(s[n+1]))) {
		n++
	}
	return n
}

// numberLen is the length of the number at the start of s (1_000, 0x1F, 1.5e3).
func numberLen(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		switch {
		case c >= '0' && c <= '9', c == '_', c == '.' && n+1 < len(s) && s[n+1] >= '0' && s[n+1] <= '9':
		case (c|0x20 >= 'a' && c|0x20 <= 'f') || c|0x20 == 'x' || c|0x20 == 'o':
		case (c == '+' || c == '-') && n > 0 && s[n-1]|0x20 == 'e':
		default:
			return n
		}
		n++
	}
	return n
}
