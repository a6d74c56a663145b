package source

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// The JavaScript/TypeScript lexer (issue 28 item 6: no pure-Go parser covers TypeScript and
// JSX as written today, so the reader works on a token stream). It knows what it must to find
// the brackets: strings in both quotes, template literals with nested `${ … }` (which may hold
// templates), regex literals told from division by the token before them, comments, the
// hashbang line, `#private` names and JSX (in .js, .jsx and .tsx: text, attributes and `{…}`
// children, nested). TypeScript's generics `<T>` are operators to it, not brackets. A string,
// template, regex, comment or JSX element left open at the end of the file, or a bracket that
// closes another's, is an *Error at its line and column.

// jsKind is a token's kind.
type jsKind uint8

const (
	// jtIdent is an identifier or keyword (a #private name too).
	jtIdent jsKind = iota
	jtNum
	// jtStr is a quoted string; text is its content with escapes left as written.
	jtStr
	// jtTmpl is a template literal without substitutions, or the text before the first `${`
	// of one with substitutions; jtTmplRest a later piece of it.
	jtTmpl
	jtTmplRest
	jtRegex
	jtPunct
	// jtJSX marks a JSX element's tag: the reader skips it.
	jtJSX
)

// jsTok is one token: its text (a string's content) and where it starts.
type jsTok struct {
	kind jsKind
	// open says a jtTmpl has substitutions after it (the text is only its head).
	open bool
	// nl says a line break comes before the token (automatic semicolons).
	nl   bool
	text string
	// line and col are 32 bits: a project's tokens are held at once.
	line, col int32
}

// frame is one open construct the lexer is inside.
type frameKind uint8

const (
	fParen frameKind = iota
	fBracket
	fBrace
	fTmpl    // a template's `${`
	fJSXExpr // a JSX attribute's or child's `{`
	fJSXTag  // a JSX opening tag's attributes
	fJSXKids // a JSX element's children
)

type frame struct {
	kind frameKind
	// tok is the index of the opening token (-1 for JSX and template frames).
	tok int
	at  int
}

// jsLexer tokenises one file.
type jsLexer struct {
	path string
	src  string
	i    int
	jsx  bool
	// ts says the file is TypeScript, where `)!` is a non-null assertion (nonNull).
	ts    bool
	lines []int
	toks  []jsTok
	// match is, per token, the index of the bracket that closes or opens it (-1 for others).
	match []int32
	stack []frame
	nl    bool
}

// jsLex tokenises src. jsx says whether `<` may open a JSX element (not in .ts, where it
// is a type assertion or a generic).
func jsLex(path string, src []byte, jsx bool) (*jsLexer, error) {
	l := &jsLexer{path: path, src: string(src), jsx: jsx, ts: tsExt(path), lines: []int{0}}
	l.toks = make([]jsTok, 0, len(src)/5+16) // about a token per five bytes of source
	for i := 0; i < len(l.src); i++ {
		if l.src[i] == '\n' {
			l.lines = append(l.lines, i+1)
		}
	}
	if strings.HasPrefix(l.src, "#!") {
		l.skipLine()
	}
	if err := l.run(); err != errEOF {
		return nil, err
	}
	for len(l.match) < len(l.toks) {
		l.match = append(l.match, -1)
	}
	return l, nil
}

// pos is the line and column (bytes, from 1) of offset at.
func (l *jsLexer) pos(at int) (int, int) {
	n := sort.Search(len(l.lines), func(k int) bool { return l.lines[k] > at })
	return n, at - l.lines[n-1] + 1
}

func (l *jsLexer) errAt(at int, format string, args ...any) error {
	line, col := l.pos(at)
	return &Error{File: l.path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (l *jsLexer) emit(kind jsKind, text string, at int) {
	line, col := l.pos(at)
	l.toks = append(l.toks, jsTok{kind: kind, text: text, line: int32(line), col: int32(col), nl: l.nl})
	l.nl = false
}

func (l *jsLexer) skipLine() {
	for l.i < len(l.src) && l.src[l.i] != '\n' {
		l.i++
	}
}

// run is the lexer's loop: JSX frames lex their own way, the rest is JavaScript.
func (l *jsLexer) run() error {
	for {
		if n := len(l.stack); n > 0 {
			switch l.stack[n-1].kind {
			case fJSXTag:
				if err := l.jsxTag(); err != nil {
					return err
				}
				continue
			case fJSXKids:
				if err := l.jsxKids(); err != nil {
					return err
				}
				continue
			}
		}
		if err := l.space(); err != nil {
			return err
		}
		if l.i >= len(l.src) {
			return l.unclosed()
		}
		if err := l.token(); err != nil {
			return err
		}
	}
}

// errEOF ends run at the end of the file.
var errEOF = fmt.Errorf("end of file")

// unclosed is the error for what is still open at the end of the file (nil when nothing is).
func (l *jsLexer) unclosed() error {
	if len(l.stack) == 0 {
		return errEOF
	}
	f := l.stack[len(l.stack)-1]
	what := map[frameKind]string{fParen: "(", fBracket: "[", fBrace: "{", fTmpl: "a template literal", fJSXExpr: "{ in JSX", fJSXTag: "JSX tag", fJSXKids: "JSX element"}[f.kind]
	if f.kind == fTmpl {
		return l.errAt(f.at, "not valid JavaScript: a template literal (its ${ … }) is never closed")
	}
	return l.errAt(f.at, "not valid JavaScript: %s is never closed", what)
}

// space skips white space and comments, noting line breaks.
func (l *jsLexer) space() error {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '\n':
			l.nl = true
			l.i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.i++
		case strings.HasPrefix(l.src[l.i:], "//") || strings.HasPrefix(l.src[l.i:], "<!--"):
			l.skipLine()
		case strings.HasPrefix(l.src[l.i:], "/*"):
			end := strings.Index(l.src[l.i+2:], "*/")
			if end < 0 {
				return l.errAt(l.i, "not valid JavaScript: a /* comment is never closed")
			}
			if strings.Contains(l.src[l.i:l.i+2+end], "\n") {
				l.nl = true
			}
			l.i += end + 4
		case strings.HasPrefix(l.src[l.i:], "\u00a0") || strings.HasPrefix(l.src[l.i:], "\ufeff") || strings.HasPrefix(l.src[l.i:], "\u2028"):
			_, n := utf8.DecodeRuneInString(l.src[l.i:])
			l.i += n
		default:
			return nil
		}
	}
	return nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c == '#' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// token lexes one JavaScript token at l.i.
func (l *jsLexer) token() error {
	c, at := l.src[l.i], l.i
	switch {
	case isIdentStart(c) || c == '\\':
		l.i++
		for l.i < len(l.src) && (isIdentPart(l.src[l.i]) || l.src[l.i] == '\\') {
			l.i++
		}
		l.emit(jtIdent, l.src[at:l.i], at)
	case isDigit(c) || (c == '.' && l.i+1 < len(l.src) && isDigit(l.src[l.i+1])):
		l.number()
	case c == '\'' || c == '"':
		return l.str(c)
	case c == '`':
		l.i++
		return l.template(at, false)
	case c == '/' && l.regexAllowed():
		return l.regex()
	case c == '<' && l.jsx && l.regexAllowed() && l.looksJSX():
		l.emit(jtJSX, "<", at)
		l.i++
		l.stack = append(l.stack, frame{kind: fJSXTag, tok: -1, at: at})
	case c == '(' || c == '[' || c == '{':
		l.open(c)
	case c == ')' || c == ']' || c == '}':
		return l.close(c)
	default:
		l.punct()
	}
	return nil
}

func (l *jsLexer) number() {
	at := l.i
	for l.i < len(l.src) {
		c := l.src[l.i]
		if (c == '+' || c == '-') && (l.src[l.i-1]|0x20 == 'e') && !strings.HasPrefix(l.src[at:], "0x") && !strings.HasPrefix(l.src[at:], "0X") {
			l.i++
			continue
		}
		if !isIdentPart(c) && c != '.' {
			break
		}
		l.i++
	}
	l.emit(jtNum, l.src[at:l.i], at)
}

// str lexes a quoted string; a line break or the end of the file before its quote is an
// error at its start.
func (l *jsLexer) str(q byte) error {
	at := l.i
	l.i++
	for l.i < len(l.src) {
		switch l.src[l.i] {
		case '\\':
			l.i += 2
			if l.i < len(l.src) && l.src[l.i-1] == '\r' && l.src[l.i] == '\n' {
				l.i++ // a backslash before CRLF continues the string, as before LF
			}
			continue
		case '\n':
			return l.errAt(at, "not valid JavaScript: a string is never closed on its line")
		case q:
			l.i++
			l.emit(jtStr, l.src[at+1:l.i-1], at)
			return nil
		}
		l.i++
	}
	return l.errAt(at, "not valid JavaScript: a string is never closed")
}

// template lexes template text from l.i (after "`" or the `}` of a substitution) to its end
// or its next `${`; at is where the template starts (its "`").
func (l *jsLexer) template(at int, rest bool) error {
	start := l.i
	kind := jtTmpl
	if rest {
		kind = jtTmplRest
	}
	for l.i < len(l.src) {
		switch {
		case l.src[l.i] == '\\':
			l.i += 2
			continue
		case l.src[l.i] == '`':
			l.emit(kind, l.src[start:l.i], start)
			l.i++
			return nil
		case strings.HasPrefix(l.src[l.i:], "${"):
			l.emit(kind, l.src[start:l.i], start)
			l.toks[len(l.toks)-1].open = true
			l.stack = append(l.stack, frame{kind: fTmpl, tok: -1, at: at})
			l.i += 2
			return nil
		}
		l.i++
	}
	return l.errAt(at, "not valid JavaScript: a template literal is never closed")
}

// regexKeywords are the keywords after which a `/` starts a regular expression.
var regexKeywords = map[string]bool{
	"return": true, "typeof": true, "case": true, "do": true, "else": true, "in": true, "instanceof": true,
	"new": true, "delete": true, "void": true, "throw": true, "yield": true, "await": true, "of": true,
}

// regexAllowed is the classic rule: a `/` (or a JSX `<`) starts a literal at the start of the
// file, after an operator or an opening bracket, `}`, `;`, `,` or a keyword like return.
func (l *jsLexer) regexAllowed() bool {
	if len(l.toks) == 0 {
		return true
	}
	t := l.toks[len(l.toks)-1]
	switch t.kind {
	case jtPunct:
		if t.text == "!" && l.nonNull(len(l.toks)-1) {
			return false
		}
		return t.text != ")" && t.text != "]" && t.text != "++" && t.text != "--"
	case jtIdent:
		return regexKeywords[t.text]
	case jtJSX:
		// After a JSX `{`, an expression starts; after a tag, none does.
		return t.text == "{"
	case jtTmpl, jtTmplRest:
		// After a template's `${`, an expression starts.
		return t.open
	}
	return false
}

// nonNull says whether the `!` token at k is TypeScript's postfix non-null assertion
// (`client.uptime! / 1000`: a division follows, not a regex) rather than the prefix not: it
// follows, on the same line, a name that is not a keyword like return, or a `]` — where a
// prefix `!` cannot stand in JavaScript either — or, in TypeScript only, a `)` (in
// JavaScript `if (a) !/x/.test(b)` is a prefix not after a condition).
func (l *jsLexer) nonNull(k int) bool {
	if k < 1 || l.toks[k].nl {
		return false
	}
	p := l.toks[k-1]
	switch {
	case p.kind == jtIdent:
		return !regexKeywords[p.text]
	case p.kind == jtPunct && p.text == "]":
		return true
	case p.kind == jtPunct && p.text == ")":
		return l.ts
	}
	return false
}

func (l *jsLexer) regex() error {
	at := l.i
	l.i++
	class := false
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '\\':
			l.i += 2
			continue
		case c == '\n':
			return l.errAt(at, "not valid JavaScript: a regular expression is never closed on its line")
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			l.i++
			for l.i < len(l.src) && isIdentPart(l.src[l.i]) {
				l.i++
			}
			l.emit(jtRegex, l.src[at:l.i], at)
			return nil
		}
		l.i++
	}
	return l.errAt(at, "not valid JavaScript: a regular expression is never closed")
}

// looksJSX says whether the `<` at l.i opens a JSX element: a fragment `<>` or a tag name not
// followed by `,` or `extends` (a generic arrow function's `<T,>` in .tsx).
func (l *jsLexer) looksJSX() bool {
	j := l.i + 1
	if j < len(l.src) && l.src[j] == '>' {
		return true
	}
	if j >= len(l.src) || !isIdentStart(l.src[j]) || l.src[j] == '#' {
		return false
	}
	for j < len(l.src) && (isIdentPart(l.src[j]) || l.src[j] == '.' || l.src[j] == '-' || l.src[j] == ':') {
		j++
	}
	rest := strings.TrimLeft(l.src[j:], " \t\r\n")
	if strings.HasPrefix(rest, ">") && genericArrow(rest[1:]) {
		return false
	}
	return !strings.HasPrefix(rest, ",") && !strings.HasPrefix(rest, "extends ") && !strings.HasPrefix(rest, "=")
}

// genericArrow says whether src, after a `<T>`, is a parameter list followed by `=>`: a generic
// function type (`useInline: <T>(c: C<T>) => R = …`) or arrow, not a JSX element whose text
// starts with a parenthesis (`<span>(none)</span>`). The parentheses are counted over at most
// 4 KiB, strings and all: a parenthesis in a string may only make it answer no (JSX).
func genericArrow(src string) bool {
	src = strings.TrimLeft(src, " \t\r\n")
	if !strings.HasPrefix(src, "(") {
		return false
	}
	depth := 0
	for k := 0; k < len(src) && k < 4096; k++ {
		switch src[k] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return strings.HasPrefix(strings.TrimLeft(src[k+1:], " \t\r\n"), "=>")
			}
		}
	}
	return false
}

var closers = map[byte]frameKind{')': fParen, ']': fBracket, '}': fBrace}
var openers = map[byte]frameKind{'(': fParen, '[': fBracket, '{': fBrace}

func (l *jsLexer) open(c byte) {
	l.stack = append(l.stack, frame{kind: openers[c], tok: len(l.toks), at: l.i})
	l.emit(jtPunct, l.src[l.i:l.i+1], l.i)
	l.i++
}

// close pops the frame c closes: a `}` may end a template's `${` (the template goes on) or
// a JSX `{…}` (JSX goes on).
func (l *jsLexer) close(c byte) error {
	at := l.i
	if len(l.stack) == 0 {
		return l.errAt(at, "not valid JavaScript: %c closes nothing", c)
	}
	f := l.stack[len(l.stack)-1]
	l.i++
	if c == '}' && (f.kind == fTmpl || f.kind == fJSXExpr) {
		l.stack = l.stack[:len(l.stack)-1]
		if f.kind == fTmpl {
			return l.template(f.at, true)
		}
		return nil
	}
	if f.kind != closers[c] {
		line, col := l.pos(f.at)
		return l.errAt(at, "not valid JavaScript: %c does not close what is open at %d:%d", c, line, col)
	}
	l.stack = l.stack[:len(l.stack)-1]
	for len(l.match) <= len(l.toks) {
		l.match = append(l.match, -1)
	}
	l.match[f.tok] = int32(len(l.toks))
	l.match[len(l.toks)] = int32(f.tok)
	l.emit(jtPunct, string(c), at)
	return nil
}

// puncts are the operators of more than one character, longest first.
var puncts = []string{">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
	"=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "**", "<<", ">>"}

func (l *jsLexer) punct() {
	at := l.i
	for _, p := range puncts {
		if p[0] == l.src[l.i] && strings.HasPrefix(l.src[l.i:], p) {
			l.i += len(p)
			l.emit(jtPunct, p, at)
			return
		}
	}
	l.i++
	l.emit(jtPunct, l.src[at:l.i], at)
}

// jsxTag lexes an opening tag's name and attributes up to its `>` or `/>`.
func (l *jsLexer) jsxTag() error {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case strings.HasPrefix(l.src[l.i:], "/>"):
			l.i += 2
			l.stack = l.stack[:len(l.stack)-1]
			l.emit(jtJSX, "/>", l.i-2)
			return nil
		case c == '>':
			l.i++
			l.stack[len(l.stack)-1].kind = fJSXKids
			return nil
		case c == '{':
			l.stack = append(l.stack, frame{kind: fJSXExpr, tok: -1, at: l.i})
			l.emit(jtJSX, "{", l.i)
			l.i++
			return nil
		case c == '"' || c == '\'':
			end := strings.IndexByte(l.src[l.i+1:], c)
			if end < 0 {
				return l.errAt(l.i, "not valid JavaScript: a JSX attribute's string is never closed")
			}
			l.i += end + 2
		case strings.HasPrefix(l.src[l.i:], "/*") || strings.HasPrefix(l.src[l.i:], "//"):
			if err := l.space(); err != nil {
				return err
			}
		case c == '<':
			l.typeArgs() // <List<User> items={…}/>: TypeScript's type arguments
		default:
			l.i++
		}
	}
	return l.unclosed()
}

// typeArgs steps over a JSX tag's type arguments `<T<U>>` from the `<` at l.i.
func (l *jsLexer) typeArgs() {
	depth := 0
	for ; l.i < len(l.src); l.i++ {
		switch l.src[l.i] {
		case '<':
			depth++
		case '>':
			if depth--; depth == 0 {
				l.i++
				return
			}
		case '{', '\n':
			return
		}
	}
}

// jsxKids lexes an element's children: text up to a `{`, a nested element or the closing tag.
func (l *jsLexer) jsxKids() error {
	for l.i < len(l.src) {
		switch l.src[l.i] {
		case '{':
			l.stack = append(l.stack, frame{kind: fJSXExpr, tok: -1, at: l.i})
			l.emit(jtJSX, "{", l.i)
			l.i++
			return nil
		case '<':
			if rest := strings.TrimLeft(l.src[l.i+1:], " \t\r\n"); strings.HasPrefix(rest, "/") {
				end := strings.IndexByte(l.src[l.i:], '>')
				if end < 0 {
					return l.errAt(l.i, "not valid JavaScript: a JSX closing tag is never closed")
				}
				l.i += end + 1
				l.stack = l.stack[:len(l.stack)-1]
				l.emit(jtJSX, "</>", l.i-1)
				return nil
			}
			l.stack = append(l.stack, frame{kind: fJSXTag, tok: -1, at: l.i})
			l.i++
			return nil
		}
		l.i++
	}
	return l.unclosed()
}
