package source

import (
	"path/filepath"
	"strconv"
	"strings"
)

// jsFile is one lexed file with what the reader indexes of it: declarations (with the block
// each lives in), class fields, imports and exports.
type jsFile struct {
	path string
	// n is the file's position among the files read.
	n     int
	t     []jsTok
	match []int32
	// brace is, per token, the index of the innermost `{` around it (-1 at the top level).
	brace []int
	decls map[string][]jsDecl
	// assigned are the positions of `NAME = …` after a declaration, by NAME.
	assigned map[string][]int
	// byBlock indexes decls by name and block (lookup); again are the declarations assigned
	// again (reassigned). Both are built on first use, once decls are whole.
	byBlock map[declKey][]int
	again   map[*jsDecl]bool
	// fields are `this.NAME = …` and class fields `NAME = …`, by NAME: the value's start.
	fields  map[string][]int
	imports map[string]jsImport
	// exports are the module's exports by name ("default" too): the value's start.
	exports map[string]int
}

// jsDecl is one `const|let|var NAME = value`, function or parameter. val is the value's
// first token (-1 for a parameter: the caller's); fn the `function`'s body `{` for a
// function declaration.
type jsDecl struct {
	at, val, block, fn int
	// typ is a parameter's declared client type (AxiosInstance), when it has one.
	typ string
}

// jsImport is a name bound by import or require: the module and the name imported from it
// ("default", "*" or an exported name).
type jsImport struct {
	module, name string
}

func (f *jsFile) is(i int, text string) bool {
	return i >= 0 && i < len(f.t) && f.t[i].text == text && (f.t[i].kind == jtPunct || f.t[i].kind == jtIdent)
}

func (f *jsFile) ident(i int) bool { return i >= 0 && i < len(f.t) && f.t[i].kind == jtIdent }

// end is the index of the bracket that closes the one at i (i itself when it is none).
func (f *jsFile) end(i int) int {
	if i >= 0 && i < len(f.match) && int(f.match[i]) > i {
		return int(f.match[i])
	}
	return i
}

// readJS lexes one project's files, indexes them and returns their calls.
func readJS(files []Input) ([]Call, error) {
	r := newJSReader()
	for _, in := range files {
		l, err := jsLex(in.Path, in.Data, jsxExt(in.Path))
		if err != nil {
			return nil, err
		}
		f := &jsFile{n: len(r.files), path: in.Path, t: l.toks, match: l.match, decls: map[string][]jsDecl{}, fields: map[string][]int{}, assigned: map[string][]int{}, imports: map[string]jsImport{}, exports: map[string]int{}}
		f.index()
		r.files = append(r.files, f)
		r.byPath[filepath.ToSlash(filepath.Clean(in.Path))] = f
	}
	for _, f := range r.files {
		r.settings(f)
	}
	var calls []Call
	for _, f := range r.files {
		calls = append(calls, r.calls(f)...)
	}
	sortCalls(calls)
	return calls, nil
}

// index records a file's blocks, declarations, fields, imports and exports.
func (f *jsFile) index() {
	f.brace = make([]int, len(f.t))
	var stack []int
	for i, tok := range f.t {
		top := -1
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		f.brace[i] = top
		if tok.kind != jtPunct {
			continue
		}
		switch tok.text {
		case "{":
			if f.end(i) > i {
				stack = append(stack, i)
			}
		case "}":
			if len(stack) > 0 && int(f.match[i]) == stack[len(stack)-1] {
				stack = stack[:len(stack)-1]
			}
		}
	}
	for i := range f.t {
		f.indexAt(i)
	}
}

// indexAt records what starts at token i.
func (f *jsFile) indexAt(i int) {
	tok := f.t[i]
	if tok.kind != jtIdent {
		if tok.kind == jtPunct && tok.text == "(" {
			f.params(i)
		}
		return
	}
	switch tok.text {
	case "const", "let", "var":
		f.declare(i + 1)
	case "function":
		j := i + 1
		if f.is(j, "*") {
			j++
		}
		if f.ident(j) && f.is(j+1, "(") {
			body := f.end(j+1) + 1
			for body < len(f.t) && !f.is(body, "{") && body < f.end(j+1)+40 {
				body++
			}
			f.decls[f.t[j].text] = append(f.decls[f.t[j].text], jsDecl{at: j, val: -1, block: f.brace[i], fn: body})
		}
	case "this":
		if f.is(i+1, ".") && f.ident(i+2) && f.is(i+3, "=") {
			f.fields[f.t[i+2].text] = append(f.fields[f.t[i+2].text], i+4)
		}
	case "import":
		f.importDecl(i)
	case "export":
		f.exportDecl(i)
	case "module", "exports":
		f.cjsExport(i)
	default:
		if f.assigns(i) {
			f.assigned[tok.text] = append(f.assigned[tok.text], i)
		}
	}
	f.classField(i)
}

// declare records the declarations of `const|let|var` from i: NAME [: Type] = value, or a
// destructuring of require(…).
func (f *jsFile) declare(i int) {
	for i < len(f.t) {
		switch {
		case f.is(i, "{"):
			f.destructure(i)
			return
		case f.ident(i):
			name := i
			j := f.skipType(i + 1)
			val := -1
			if f.is(j, "=") {
				val = j + 1
			}
			f.decls[f.t[name].text] = append(f.decls[f.t[name].text], jsDecl{at: name, val: val, block: f.brace[name], fn: -1})
			if val >= 0 {
				f.requireOf(f.t[name].text, val)
			}
			if val < 0 {
				return
			}
			j = f.exprEnd(val)
			if !f.is(j, ",") {
				return
			}
			i = j + 1
		default:
			return
		}
	}
}

// body is the `{` of a function body after the `)` at close (past a TypeScript return type
// `: Promise<T>`), or -1 when none follows: then the parentheses were a call's.
func (f *jsFile) body(close int) int {
	i := close + 1
	if f.is(i, "{") {
		return i
	}
	if !f.is(i, ":") {
		return -1
	}
	for i++; i < len(f.t) && i < close+80; i++ {
		switch {
		case f.is(i, "{") && (f.is(i-1, ":") || f.is(i-1, "|") || f.is(i-1, "&") || f.is(i-1, "<") || f.is(i-1, ",")):
			i = f.end(i) // an object type
		case f.is(i, "{"):
			return i
		case f.is(i, "(") || f.is(i, "["):
			i = f.end(i)
		case f.t[i].kind == jtPunct && (f.t[i].text == ";" || f.t[i].text == ")" || f.t[i].text == "}" || f.t[i].text == "=>" || f.t[i].text == "," || f.t[i].text == "="):
			return -1
		}
	}
	return -1
}

// skipType steps over a TypeScript annotation `: Type` (or `!:`) from i, to its `=`, `,`,
// `;` or the end of the statement.
func (f *jsFile) skipType(i int) int {
	if f.is(i, "!") {
		i++
	}
	if !f.is(i, ":") && !f.is(i, "?") {
		return i
	}
	for i < len(f.t) {
		if f.t[i].kind == jtPunct {
			switch f.t[i].text {
			case "=", ",", ";", ")", "}", "]", "=>":
				return i
			case "(", "[", "{":
				i = f.end(i)
			}
		}
		i++
		if i < len(f.t) && f.t[i].nl && !f.is(i, "|") && !f.is(i, "&") && !f.is(i-1, ":") && !f.is(i-1, "|") {
			return i
		}
	}
	return i
}

// requireOf records `NAME = require('m')` (and `require('m').default`) as an import.
func (f *jsFile) requireOf(name string, val int) {
	if m, ok := f.requireAt(val); ok {
		imp := jsImport{module: m, name: "default"}
		if f.is(val+4, ".") && f.ident(val+5) {
			imp.name = f.t[val+5].text
		}
		f.imports[name] = imp
	}
}

// requireAt is the module of `require('m')` at i.
func (f *jsFile) requireAt(i int) (string, bool) {
	if i+3 < len(f.t) && f.is(i, "require") && f.is(i+1, "(") && f.t[i+2].kind == jtStr && f.is(i+3, ")") {
		return f.t[i+2].text, true
	}
	return "", false
}

// destructure records `{ a, b: c } = require('m')` as imports of a and b (as c).
func (f *jsFile) destructure(open int) {
	close := f.end(open)
	if !f.is(close+1, "=") {
		return
	}
	m, ok := f.requireAt(close + 2)
	if !ok {
		for i := open + 1; i < close; i++ {
			if f.ident(i) && (f.is(i-1, "{") || f.is(i-1, ",") || f.is(i-1, ":") || f.is(i-1, "...")) && !f.is(i+1, ":") {
				f.decls[f.t[i].text] = append(f.decls[f.t[i].text], jsDecl{at: i, val: -1, block: f.brace[i], fn: -1})
			}
		}
		return
	}
	for i := open + 1; i < close; i++ {
		if !f.ident(i) || !(f.is(i-1, "{") || f.is(i-1, ",")) {
			continue
		}
		local := i
		if f.is(i+1, ":") && f.ident(i+2) {
			local = i + 2
		}
		f.imports[f.t[local].text] = jsImport{module: m, name: f.t[i].text}
	}
}

// importDecl records `import X, { a as b } from 'm'`, `import * as X from 'm'` and TypeScript's
// `import X = require('m')`.
func (f *jsFile) importDecl(i int) {
	j := i + 1
	if f.is(j, "type") && !f.is(j+1, ",") && !f.is(j+1, "from") {
		return
	}
	var names []jsImport
	var locals []string
	for j < len(f.t) && !f.is(j, "from") && f.t[j].kind != jtStr && j < i+200 {
		switch {
		case f.is(j, "*") && f.is(j+1, "as") && f.ident(j+2):
			names, locals = append(names, jsImport{name: "*"}), append(locals, f.t[j+2].text)
			j += 3
		case f.is(j, "{"):
			for k := j + 1; k < f.end(j); k++ {
				if !f.ident(k) || !(f.is(k-1, "{") || f.is(k-1, ",") || f.is(k-1, "type")) || f.is(k, "type") && f.ident(k+1) {
					continue
				}
				local := f.t[k].text
				if f.is(k+1, "as") && f.ident(k+2) {
					local = f.t[k+2].text
				}
				names, locals = append(names, jsImport{name: f.t[k].text}), append(locals, local)
			}
			j = f.end(j) + 1
		case f.ident(j) && f.is(j+1, "="):
			if m, ok := f.requireAt(j + 2); ok {
				f.imports[f.t[j].text] = jsImport{module: m, name: "default"}
			}
			return
		case f.ident(j):
			names, locals = append(names, jsImport{name: "default"}), append(locals, f.t[j].text)
			j++
		default:
			j++
		}
	}
	if f.is(j, "from") {
		j++
	}
	if j >= len(f.t) || f.t[j].kind != jtStr {
		return
	}
	for k, n := range names {
		n.module = f.t[j].text
		f.imports[locals[k]] = n
	}
}

// exportDecl records `export default value`, `export const NAME = value` and `export { a as b }`.
func (f *jsFile) exportDecl(i int) {
	switch {
	case f.is(i+1, "default"):
		j := i + 2
		if f.is(j, "async") {
			j++
		}
		switch {
		case f.is(j, "function") && f.ident(j+1) && !f.is(j+1, "("):
			f.exports["default"] = j + 1 // the function's name: eval follows it
		case !f.is(j, "class") && !f.is(j, "function"):
			f.exports["default"] = i + 2
		}
	case f.is(i+1, "const") || f.is(i+1, "let") || f.is(i+1, "var"):
		if f.ident(i + 2) {
			j := f.skipType(i + 3)
			if f.is(j, "=") {
				f.exports[f.t[i+2].text] = j + 1
			}
		}
	case f.is(i+1, "function") && f.ident(i+2):
		f.exports[f.t[i+2].text] = i + 2
	case f.is(i+1, "async") && f.is(i+2, "function") && f.ident(i+3):
		f.exports[f.t[i+3].text] = i + 3
	case f.is(i+1, "{"):
		if f.is(f.end(i+1)+1, "from") {
			return
		}
		for k := i + 2; k < f.end(i+1); k++ {
			if f.ident(k) && (f.is(k-1, "{") || f.is(k-1, ",")) {
				name := f.t[k].text
				if f.is(k+1, "as") && f.ident(k+2) {
					name = f.t[k+2].text
				}
				f.exports[name] = k
			}
		}
	}
}

// cjsExport records `module.exports = value`, `module.exports = { a, b: c }`, `exports.NAME =
// value` and `module.exports.NAME = value`.
func (f *jsFile) cjsExport(i int) {
	if f.is(i-1, ".") {
		return
	}
	j := i
	if f.is(i, "module") {
		if !f.is(i+1, ".") || !f.is(i+2, "exports") {
			return
		}
		j = i + 2
	}
	switch {
	case f.is(j+1, "="):
		f.exports["default"] = j + 2
		if f.is(j+2, "{") {
			f.objectExports(j + 2)
		}
	case f.is(j+1, ".") && f.ident(j+2) && f.is(j+3, "="):
		f.exports[f.t[j+2].text] = j + 4
	}
}

// objectExports records the members of `module.exports = { a, b: value }`.
func (f *jsFile) objectExports(open int) {
	for k := open + 1; k < f.end(open); k++ {
		if !f.ident(k) || !(f.is(k-1, "{") || f.is(k-1, ",")) {
			continue
		}
		if f.is(k+1, ":") {
			f.exports[f.t[k].text] = k + 2
		} else if f.is(k+1, ",") || f.is(k+1, "}") {
			f.exports[f.t[k].text] = k
		}
		if f.is(k+1, ":") || f.is(k+1, "(") {
			k = f.exprEnd(k + 2)
		}
	}
}

// classField records a class field `NAME = value` or `private readonly NAME: T = value`: an
// identifier at a class body's top level, after `{`, `;`, a line break or a modifier.
func (f *jsFile) classField(i int) {
	b := f.brace[i]
	if b < 1 || !f.ident(i) || !f.classBody(b) {
		return
	}
	if !(f.is(i-1, "{") || f.is(i-1, ";") || f.is(i-1, "}") || f.t[i].nl || jsModifiers[f.t[i-1].text]) || jsModifiers[f.t[i].text] {
		return
	}
	j := f.skipType(i + 1)
	if f.is(j, "=") {
		f.fields[f.t[i].text] = append(f.fields[f.t[i].text], j+1)
	}
}

// jsModifiers are the words before a class member's name.
var jsModifiers = map[string]bool{"private": true, "public": true, "protected": true, "readonly": true, "static": true, "declare": true, "override": true}

// classBody says whether the `{` at b opens a class body: `class [Name] [extends X] [implements Y] {`.
func (f *jsFile) classBody(b int) bool {
	for k := b - 1; k >= 0 && k > b-30; k-- {
		switch {
		case f.is(k, "class"):
			return true
		case f.t[k].kind == jtPunct && (f.t[k].text == ";" || f.t[k].text == "{" || f.t[k].text == "}" || f.t[k].text == "=" || f.t[k].text == "=>" || f.t[k].text == ")"):
			return false
		}
	}
	return false
}

// params records a function's parameters (the `(` at open followed by `=>` or a body `{`)
// as declarations whose value is the caller's.
func (f *jsFile) params(open int) {
	close := f.end(open)
	if close == open {
		return
	}
	body := f.body(close)
	if body < 0 {
		if j := f.skipType(close + 1); f.is(j, "=>") && f.is(j+1, "{") {
			body = j + 1
		}
	}
	if body < 0 {
		return
	}
	for k := open + 1; k < close; k++ {
		if f.ident(k) && f.brace[k] != f.brace[open] && (f.is(k-1, "{") || f.is(k-1, ",")) && !f.is(k+1, ":") {
			// a name destructured from a parameter: ({ fetch, items }) => …
			f.decls[f.t[k].text] = append(f.decls[f.t[k].text], jsDecl{at: k, val: -1, block: body, fn: -1})
			continue
		}
		if f.ident(k) && (f.is(k-1, "(") || f.is(k-1, ",") || f.is(k-1, "...") || jsModifiers[f.t[k-1].text]) && !jsModifiers[f.t[k].text] {
			d := jsDecl{at: k, val: -1, block: body, fn: -1}
			if f.is(k+1, ":") && f.ident(k+2) && jsTypedClients[f.t[k+2].text] != "" && !f.is(k+3, ".") {
				d.typ = f.t[k+2].text
			}
			f.decls[f.t[k].text] = append(f.decls[f.t[k].text], d)
		}
		if f.is(k, "(") || f.is(k, "[") || (f.is(k, "{") && !f.is(k-1, "(") && !f.is(k-1, ",")) {
			k = f.end(k)
		}
	}
}

// exprEnd is the index just past the expression that starts at i: the first `,`, `;` or
// closing bracket at its depth, or a line break that ends the statement.
func (f *jsFile) exprEnd(i int) int {
	j := i
	for j < len(f.t) {
		tok := f.t[j]
		if j > i && tok.nl && !continues(f, j) {
			return j
		}
		if tok.kind == jtPunct {
			switch tok.text {
			case ",", ";", ")", "]", "}":
				return j
			case "(", "[", "{":
				j = f.end(j)
			}
		}
		j++
	}
	return j
}

// continues says whether the token at j, first on its line, goes on the expression before it.
func continues(f *jsFile, j int) bool {
	prev := f.t[j-1]
	if prev.kind == jtPunct && prev.text != ")" && prev.text != "]" && prev.text != "}" && prev.text != "++" && prev.text != "--" {
		return true
	}
	tok := f.t[j]
	return tok.kind == jtPunct && tok.text != "(" && tok.text != "[" && tok.text != "{" && tok.text != "!" && tok.text != "++" && tok.text != "--"
}

// lookup is the declaration of name visible at token i: the one in the innermost block
// around i (the last before i there), or nil.
func (f *jsFile) lookup(name string, i int) *jsDecl {
	if f.byBlock == nil {
		f.indexBlocks()
	}
	if i < 0 || i >= len(f.brace) {
		return nil
	}
	for b := f.brace[i]; ; b = f.brace[b] {
		var best *jsDecl
		for _, k := range f.byBlock[declKey{name, b}] {
			d := &f.decls[name][k]
			if best == nil || (d.at < i && d.at > best.at) {
				best = d
			}
		}
		if best != nil || b < 0 {
			return best
		}
	}
}

// declKey is a name in a block (the `{` token's index, -1 the top level).
type declKey struct {
	name  string
	block int
}

// indexBlocks indexes the declarations by name and block, so a lookup walks the blocks around
// a token (a few) instead of every declaration of the name.
func (f *jsFile) indexBlocks() {
	f.byBlock = map[declKey][]int{}
	for name, ds := range f.decls {
		for k, d := range ds {
			key := declKey{name, d.block}
			f.byBlock[key] = append(f.byBlock[key], k)
		}
	}
}

// jsOptionKeys are the option keys whose assignment on a variable (`config.timeout = …`)
// changes what the reader reads of it.
var jsOptionKeys = map[string]bool{"timeout": true, "signal": true, "method": true, "headers": true, "dispatcher": true, "retry": true}

// assigns says whether the name at i is assigned after its declaration: `NAME = …` (or ??=,
// ||=), or one of its option keys `NAME.timeout = …`.
func (f *jsFile) assigns(i int) bool {
	if f.is(i-1, ".") || f.is(i-1, "?.") || f.is(i-1, "const") || f.is(i-1, "let") || f.is(i-1, "var") {
		return false
	}
	if f.is(i+1, "=") || f.is(i+1, "??=") || f.is(i+1, "||=") {
		return true
	}
	return f.is(i+1, ".") && f.ident(i+2) && jsOptionKeys[f.t[i+2].text] && f.is(i+3, "=")
}

// reassigned says whether the declaration d is assigned again in its scope.
func (f *jsFile) reassigned(name string, d *jsDecl) bool {
	if f.again == nil {
		f.again = map[*jsDecl]bool{}
		for n, ats := range f.assigned {
			for _, at := range ats {
				if f.declaresAt(n, at) {
					continue // a parameter's default: (opts = {}) => …
				}
				if e := f.lookup(n, at); e != nil && at > e.at {
					f.again[e] = true
				}
			}
		}
	}
	return f.again[d]
}

// declaresAt says whether a declaration of name is the token at.
func (f *jsFile) declaresAt(name string, at int) bool {
	for _, d := range f.decls[name] {
		if d.at == at {
			return true
		}
	}
	return false
}

// sameFunction says whether tokens a and b are in the same innermost function body (the
// same innermost `{` block or one inside it, stopping at the enclosing block of a).
func (f *jsFile) sameFunction(a, b int) bool {
	return f.brace[a] == f.brace[b] || (f.brace[a] >= 0 && f.brace[a] < b && b <= f.end(f.brace[a]))
}

// unquote is a string token's value (escapes other than quotes are left as written).
func unquote(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	if u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`); err == nil {
		return u
	}
	return s
}
