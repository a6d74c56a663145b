// Package nginxconf reads nginx configuration with nginx's own grammar: the tokens of
// nginx/nginx src/core/ngx_conf_file.c (ngx_conf_read_token: directives end with ';', blocks
// are '{' … '}', ' and " quote, '\' escapes, '#' starts a comment only between tokens, "${"
// does not open a block), the blocks of ngx_conf_parse, and the include directive of
// ngx_conf_include (Load). OpenResty's *_by_lua_block bodies are Lua, not nginx syntax: they
// are skipped whole, as lua-nginx-module's own block parser reads them. Which directive
// means what is the caller's business: this package knows only include.
//
// check reads an nginx.conf's proxy settings through it, and advise the log_format of
// --log-format nginx.conf.
package nginxconf

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of one file's parse: nginx's own bound on one token (NGX_CONF_BUFFER, 4096 bytes)
// and a nesting bound of ours, far above any real configuration.
const (
	// MaxToken is the longest token nginx reads ("too long parameter").
	MaxToken = 4096
	// MaxNesting is how deep blocks may nest.
	MaxNesting = 64
)

// Directive is one directive: its name, its arguments (quotes removed, escapes resolved as
// nginx resolves them) and, for a block directive, the directives inside.
type Directive struct {
	Name string
	Args []string
	// File, Line and Col are where the name starts (Col counts characters from 1).
	File      string
	Line, Col int
	// ArgPos are where each argument starts, its opening quote for a quoted one.
	ArgPos []Pos
	// Block says the directive opened a block; Body holds its directives (nil for a
	// *_by_lua_block, whose body is Lua).
	Block bool
	Body  []*Directive
}

// Pos is a place in a file.
type Pos struct {
	File      string
	Line, Col int
}

// Pos is where the directive's name starts.
func (d *Directive) Pos() Pos { return Pos{File: d.File, Line: d.Line, Col: d.Col} }

// Arg returns argument i and where it starts; the directive's own position when it has no
// argument i.
func (d *Directive) Arg(i int) (string, Pos) {
	if i < len(d.Args) {
		return d.Args[i], d.ArgPos[i]
	}
	return "", d.Pos()
}

// Error is a configuration nginx would refuse, at FILE:LINE:COL.
type Error struct {
	File      string
	Line, Col int
	Msg       string
	// Err is the cause, when reading an included file failed.
	Err error
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Errorf is an Error at p.
func Errorf(p Pos, format string, a ...any) *Error {
	return &Error{File: p.File, Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, a...)}
}

// Parse reads one file's directives. Its include directives are left as they are (Load
// expands them). Every error is an *Error.
func Parse(file string, data []byte) ([]*Directive, error) {
	lx := &lexer{file: file, data: data, line: 1, col: 1}
	return lx.block(nil, 0)
}

// lexer walks a file byte by byte, as ngx_conf_read_token does, counting lines and
// characters.
type lexer struct {
	file      string
	data      []byte
	i         int
	line, col int // of data[i]
}

type token struct {
	text string
	pos  Pos
}

// ends of a statement: what read stops at.
const (
	endEOF = iota
	endSemicolon
	endBlock // '{'
	endClose // '}'
)

func (lx *lexer) pos() Pos { return Pos{File: lx.file, Line: lx.line, Col: lx.col} }

// advance steps past data[i].
func (lx *lexer) advance() {
	c := lx.data[lx.i]
	lx.i++
	switch {
	case c == '\n':
		lx.line++
		lx.col = 1
	case !utf8.RuneStart(c):
		// a continuation byte: the character was counted at its first byte
	default:
		lx.col++
	}
}

// block reads directives until the '}' that closes open (nil: until the end of the file).
func (lx *lexer) block(open *Directive, depth int) ([]*Directive, error) {
	var out []*Directive
	for {
		toks, end, at, err := lx.read()
		if err != nil {
			return nil, err
		}
		switch end {
		case endEOF:
			if open != nil {
				return nil, Errorf(at, "unexpected end of file, expecting \"}\" (the %q block at %d:%d is not closed)", open.Name, open.Line, open.Col)
			}
			return out, nil
		case endClose:
			if open == nil {
				return nil, Errorf(at, "unexpected \"}\"")
			}
			return out, nil
		}
		d := &Directive{Name: toks[0].text, File: lx.file, Line: toks[0].pos.Line, Col: toks[0].pos.Col}
		for _, t := range toks[1:] {
			d.Args = append(d.Args, t.text)
			d.ArgPos = append(d.ArgPos, t.pos)
		}
		out = append(out, d)
		if end == endSemicolon {
			continue
		}
		d.Block = true
		if depth+1 > MaxNesting {
			return nil, Errorf(d.Pos(), "blocks nested more than %d deep", MaxNesting)
		}
		if strings.HasSuffix(d.Name, "_by_lua_block") {
			if err := lx.skipLua(d); err != nil {
				return nil, err
			}
			continue
		}
		if d.Body, err = lx.block(d, depth+1); err != nil {
			return nil, err
		}
	}
}

func space(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// more is what a stage of read returns when the statement goes on.
const more = -1

// scan is the state of ngx_conf_read_token across the characters of one statement.
type scan struct {
	toks                                                 []token
	needSpace, sharp, variable, quoted, sQuoted, dQuoted bool
	lastSpace                                            bool
	start                                                int // of the current token in data
	startPos                                             Pos
}

// read reads one statement's tokens up to what ends it (';', '{', '}' or the end of the
// file), and where that end is: a port of ngx_conf_read_token, state for state.
func (lx *lexer) read() (toks []token, end int, at Pos, err error) {
	st := &scan{lastSpace: true}
	for {
		if lx.i >= len(lx.data) {
			if len(st.toks) > 0 || !st.lastSpace {
				return nil, 0, Pos{}, Errorf(lx.pos(), "unexpected end of file, expecting \";\" or \"}\"")
			}
			return nil, endEOF, lx.pos(), nil
		}
		ch, here := lx.data[lx.i], lx.pos()
		lx.advance()
		end, err := lx.char(st, ch, here)
		switch {
		case err != nil:
			return nil, 0, Pos{}, err
		case end == endClose:
			return nil, endClose, here, nil
		case end != more:
			return st.toks, end, here, nil
		}
	}
}

// char takes one character (here, already stepped past) of a statement: the statement's
// end, more, or an error.
func (lx *lexer) char(st *scan, ch byte, here Pos) (int, error) {
	if ch == '\n' {
		st.sharp = false
	}
	if st.sharp {
		return more, nil
	}
	if err := lx.tooLong(st); err != nil {
		return 0, err
	}
	if st.quoted {
		st.quoted = false
		return more, nil
	}
	if st.needSpace {
		return lx.afterQuote(st, ch, here)
	}
	if st.lastSpace {
		return lx.outside(st, ch, here)
	}
	return lx.inToken(st, ch)
}

// tooLong is nginx's "too long parameter" once the current token passes MaxToken.
func (lx *lexer) tooLong(st *scan) error {
	if st.lastSpace || st.needSpace || lx.i-st.start <= MaxToken {
		return nil
	}
	if st.dQuoted || st.sQuoted {
		q := map[bool]string{true: `"`, false: `'`}[st.dQuoted]
		return Errorf(st.startPos, "too long parameter, probably missing terminating %q character", q)
	}
	return Errorf(st.startPos, "too long parameter %q... started", lx.data[st.start:st.start+10])
}

// afterQuote is the character after a closing quote: a space, the statement's end or ')'
// (which starts a token), nothing else.
func (lx *lexer) afterQuote(st *scan, ch byte, here Pos) (int, error) {
	switch {
	case space(ch):
		st.lastSpace, st.needSpace = true, false
		return more, nil
	case ch == ';':
		return endSemicolon, nil
	case ch == '{':
		return endBlock, nil
	case ch == ')':
		st.lastSpace, st.needSpace = true, false
		return lx.outside(st, ch, here)
	default:
		return 0, Errorf(here, "unexpected %q", string(ch))
	}
}

// outside is a character between tokens: a space, the statement's end, a comment, or the
// start of a token (quoted, escaped, a variable or a plain word).
func (lx *lexer) outside(st *scan, ch byte, here Pos) (int, error) {
	st.start, st.startPos = lx.i-1, here
	if space(ch) {
		return more, nil
	}
	switch ch {
	case ';', '{':
		if len(st.toks) == 0 {
			return 0, Errorf(here, "unexpected %q", string(ch))
		}
		if ch == '{' {
			return endBlock, nil
		}
		return endSemicolon, nil
	case '}':
		if len(st.toks) != 0 {
			return 0, Errorf(here, "unexpected \"}\"")
		}
		return endClose, nil
	case '#':
		st.sharp = true
		return more, nil
	case '\\':
		st.quoted = true
	case '"':
		st.start++
		st.dQuoted = true
	case '\'':
		st.start++
		st.sQuoted = true
	case '$':
		st.variable = true
	}
	st.lastSpace = false
	return more, nil
}

// inToken is a character inside a token: "${" does not end it, '\\' escapes the next
// character, '$' starts a variable; else it may be the token's end (endOfToken).
func (lx *lexer) inToken(st *scan, ch byte) (int, error) {
	if ch == '{' && st.variable {
		return more, nil
	}
	st.variable = false
	switch ch {
	case '\\':
		st.quoted = true
		return more, nil
	case '$':
		st.variable = true
		return more, nil
	}
	if !st.endOfToken(ch) {
		return more, nil
	}
	st.toks = append(st.toks, token{text: unescape(lx.data[st.start : lx.i-1]), pos: st.startPos})
	switch ch {
	case ';':
		return endSemicolon, nil
	case '{':
		return endBlock, nil
	}
	return more, nil
}

// endOfToken says whether ch ends the current token: its closing quote (a space must
// follow), or for a word a space, ';' or '{'.
func (st *scan) endOfToken(ch byte) bool {
	switch {
	case st.dQuoted:
		if ch == '"' {
			st.dQuoted, st.needSpace = false, true
			return true
		}
	case st.sQuoted:
		if ch == '\'' {
			st.sQuoted, st.needSpace = false, true
			return true
		}
	case space(ch) || ch == ';' || ch == '{':
		st.lastSpace = true
		return true
	}
	return false
}

// unescape resolves a token's escapes as ngx_conf_read_token copies it: \" \' \\ lose the
// backslash, \t \r \n become the characters, any other backslash stays.
func unescape(b []byte) string {
	if !strings.Contains(string(b), `\`) {
		return string(b)
	}
	var s strings.Builder
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			switch b[i+1] {
			case '"', '\'', '\\':
				i++
			case 't':
				s.WriteByte('\t')
				i++
				continue
			case 'r':
				s.WriteByte('\r')
				i++
				continue
			case 'n':
				s.WriteByte('\n')
				i++
				continue
			}
		}
		s.WriteByte(b[i])
	}
	return s.String()
}

// skipLua steps over the Lua body of a *_by_lua_block to its closing '}', as
// openresty/lua-nginx-module src/ngx_http_lua_directive.c (ngx_http_lua_conf_read_lua_token)
// reads it: Lua's strings, long brackets and comments may hold braces.
func (lx *lexer) skipLua(d *Directive) error {
	depth := 1
	for lx.i < len(lx.data) {
		c := lx.data[lx.i]
		switch {
		case c == '-' && lx.peek(1) == '-':
			lx.advance()
			lx.advance()
			if lvl, ok := lx.longOpen(); ok {
				if !lx.longClose(lvl) {
					return lx.luaEOF(d)
				}
				continue
			}
			for lx.i < len(lx.data) && lx.data[lx.i] != '\n' {
				lx.advance()
			}
		case c == '"' || c == '\'':
			lx.advance()
			for {
				if lx.i >= len(lx.data) {
					return lx.luaEOF(d)
				}
				x := lx.data[lx.i]
				lx.advance()
				if x == '\\' && lx.i < len(lx.data) {
					lx.advance()
					continue
				}
				if x == c {
					break
				}
			}
		case c == '[':
			if lvl, ok := lx.longOpen(); ok {
				if !lx.longClose(lvl) {
					return lx.luaEOF(d)
				}
				continue
			}
			lx.advance()
		case c == '{':
			depth++
			lx.advance()
		case c == '}':
			depth--
			lx.advance()
			if depth == 0 {
				return nil
			}
		default:
			lx.advance()
		}
	}
	return lx.luaEOF(d)
}

func (lx *lexer) peek(n int) byte {
	if lx.i+n < len(lx.data) {
		return lx.data[lx.i+n]
	}
	return 0
}

// longOpen steps over a Lua long bracket's opening ([[, [=[, …) and returns its level.
func (lx *lexer) longOpen() (int, bool) {
	if lx.peek(0) != '[' {
		return 0, false
	}
	n := 1
	for lx.peek(n) == '=' {
		n++
	}
	if lx.peek(n) != '[' {
		return 0, false
	}
	for range n + 1 {
		lx.advance()
	}
	return n - 1, true
}

// longClose steps past the ]=…=] of level lvl; false at the end of the file.
func (lx *lexer) longClose(lvl int) bool {
	for lx.i < len(lx.data) {
		if lx.data[lx.i] == ']' {
			n := 1
			for lx.peek(n) == '=' {
				n++
			}
			if n-1 == lvl && lx.peek(n) == ']' {
				for range n + 1 {
					lx.advance()
				}
				return true
			}
		}
		lx.advance()
	}
	return false
}

func (lx *lexer) luaEOF(d *Directive) error {
	return Errorf(lx.pos(), "unexpected end of file in the Lua code of %q at %d:%d", d.Name, d.Line, d.Col)
}
