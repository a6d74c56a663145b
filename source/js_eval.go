package source

import (
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// valKind is what the reader knows of an expression's value.
type valKind uint8

const (
	vUnknown valKind = iota
	vNum
	vStr
	vObj
	// vLib is a library's function or namespace (lib says which: "axios", "got", "fetch",
	// "undici", "undici.request", "undici.Agent", "axios-retry", "setGlobalDispatcher",
	// "AbortSignal").
	vLib
	// vInst is an axios instance or a got.extend(…) instance.
	vInst
	// vSignal is an AbortSignal with a timeout (ms), or none (AbortSignal.any of unknowns).
	vSignal
	// vCtrl is an AbortController (at: its `new` token).
	vCtrl
	// vAgent is an undici Agent (f, at: its options object).
	vAgent
)

// jsVal is an expression's value as far as the reader can tell.
type jsVal struct {
	kind valKind
	num  float64
	str  string
	// partial says str is only the head of a template literal.
	partial bool
	f       *jsFile
	at      int
	lib     string
	inst    *jsInst
	// why says why a value is unknown.
	why string
}

// jsInst is an axios instance (axios.create) or got instance (got.extend): its options and
// the settings made on it elsewhere (instance.defaults.timeout, axiosRetry(instance)).
type jsInst struct {
	lib string
	// opts are its options objects, the latest first (got.extend of an instance adds one).
	opts []jsOpt
	// defaults are `instance.defaults.timeout = v` assignments: (file, value start).
	defaults []jsDefault
	retry    []jsRetrySite
	file     string
	line     int
	// unresolved says why the instance is not known (a parameter typed AxiosInstance).
	unresolved string
	// layers are its options around a call (instLayers), own how many are its own.
	layers jsLayers
	own    int
}

// jsOpt is an options object (or a single value, for defaults.timeout) and where it is.
type jsOpt struct {
	f  *jsFile
	at int
}

// jsRetrySite is an axiosRetry(target, options) call: options' start (-1 none).
type jsRetrySite struct {
	f        *jsFile
	call, at int
}

// jsReader reads one project.
type jsReader struct {
	files  []*jsFile
	byPath map[string]*jsFile
	// insts memoises the instances by where they are created.
	insts map[*jsFile]map[int]*jsInst
	// axios and got are the libraries' default instances (axios.defaults, axiosRetry(axios)).
	axios, got *jsInst
	// dispatchers are setGlobalDispatcher(agent) calls.
	dispatchers []jsVal
	// aliases memoises the file each aliased import resolves to.
	aliases map[string]*jsFile
	agents  jsLayers
	// wrappers memoises the call each function of the project makes, by its body.
	wrappers map[[2]int]*Call
	// fieldMemo holds the class fields' values.
	fieldMemo map[fieldKey]jsVal
	// memo holds the values evaluated, by file and token.
	memo map[[2]int]jsVal
	// busy guards against a value defined by itself.
	busy map[[2]int]bool
}

func newJSReader() *jsReader {
	return &jsReader{byPath: map[string]*jsFile{}, insts: map[*jsFile]map[int]*jsInst{},
		axios: &jsInst{lib: libAxios}, got: &jsInst{lib: libGot}}
}

const maxEvalDepth = 12

func jsUnknown(why string) jsVal { return jsVal{kind: vUnknown, why: why} }

// eval is the value of the expression from token i of f, memoised (a value defined through
// others costs once, not once per path to it).
func (r *jsReader) eval(f *jsFile, i, depth int) jsVal {
	if depth > maxEvalDepth || i < 0 || i >= len(f.t) {
		return jsUnknown(tooDeep)
	}
	key := [2]int{f.n, i}
	if v, ok := r.memo[key]; ok {
		return v
	}
	v := r.evalAt(f, i, depth)
	if v.why != tooDeep && !r.busy[key] {
		if r.memo == nil {
			r.memo = map[[2]int]jsVal{}
		}
		r.memo[key] = v
	}
	return v
}

// tooDeep is why a value past maxEvalDepth is unknown.
const tooDeep = "too deep to follow"

// evalAt is eval without the memo.
func (r *jsReader) evalAt(f *jsFile, i, depth int) jsVal {
	end := f.exprEnd(i)
	for k := i; k < end; k++ {
		if f.t[k].kind == jtIdent && (f.t[k].text == "as" || f.t[k].text == "satisfies") && k > i {
			end = k
			break
		}
	}
	for end > i && f.is(end-1, "!") {
		end--
	}
	for f.is(i, "await") || f.is(i, "void") {
		i++
	}
	if i >= end {
		return jsUnknown("an empty expression")
	}
	return r.evalRange(f, i, end, depth)
}

// evalRange is the value of tokens [i, end).
func (r *jsReader) evalRange(f *jsFile, i, end, depth int) jsVal {
	tok := f.t[i]
	switch {
	case f.ident(i) && f.is(i-1, "function"):
		if d := f.lookup(tok.text, i+1); d != nil && d.fn >= 0 {
			return jsVal{kind: vLib, lib: "function", f: f, at: d.fn}
		}
		return jsUnknown("a function the reader does not follow")
	case end == i+1 && tok.kind == jtStr:
		return jsVal{kind: vStr, str: unquote(tok.text)}
	case tok.kind == jtTmpl:
		if !tok.open && end == i+1 {
			return jsVal{kind: vStr, str: tok.text}
		}
		return jsVal{kind: vStr, str: tok.text, partial: true}
	case f.is(i, "(") && f.end(i) == end-1:
		return r.eval(f, i+1, depth+1)
	case f.is(i, "{") && f.end(i) == end-1:
		return jsVal{kind: vObj, f: f, at: i}
	case end > i+1 && (tok.kind == jtStr || tok.kind == jtTmpl || f.ident(i)) && f.is(i+1, "+"):
		if v := r.concat(f, i, end, depth); v.kind == vStr {
			return v
		}
		return r.arith(f, i, end, depth)
	case tok.kind == jtNum || (f.ident(i) && end > i+1 && jsArith(f, i+1)):
		return r.arith(f, i, end, depth)
	case f.is(i, "new"):
		return r.evalNew(f, i+1, end, depth)
	case f.ident(i):
		return r.chain(f, i, end, depth)
	}
	return jsUnknown("an expression computed at run time")
}

// jsTypedClients are the TypeScript types of a client from the caller, by library.
var jsTypedClients = map[string]string{"AxiosInstance": libAxios, "AxiosStatic": libAxios, "Got": libGot}

// concat is a string built with +: whole when every piece is a literal or a constant, else
// its head (partial) up to the first piece that is not.
func (r *jsReader) concat(f *jsFile, i, end, depth int) jsVal {
	var b strings.Builder
	for k := i; k < end; k += 2 {
		var v jsVal
		switch {
		case f.t[k].kind == jtStr || f.t[k].kind == jtTmpl:
			v = r.evalRange(f, k, k+1, depth)
		case f.ident(k) && (k+1 == end || f.is(k+1, "+")):
			v = r.chain(f, k, k+1, depth)
		}
		if v.kind != vStr {
			if k == i {
				return v
			}
			return jsVal{kind: vStr, str: b.String(), partial: true}
		}
		b.WriteString(v.str)
		if v.partial || (k+1 < end && !f.is(k+1, "+")) {
			return jsVal{kind: vStr, str: b.String(), partial: true}
		}
	}
	return jsVal{kind: vStr, str: b.String()}
}

// jsArith says whether the token at j is an arithmetic operator.
func jsArith(f *jsFile, j int) bool {
	return f.t[j].kind == jtPunct && strings.Contains("+-*/", f.t[j].text) && len(f.t[j].text) == 1
}

// arith is a constant arithmetic expression: numbers and constants joined by + - * /.
func (r *jsReader) arith(f *jsFile, i, end, depth int) jsVal {
	var terms []float64
	var ops []string
	for k := i; k < end; k++ {
		if len(terms) > len(ops) {
			if !jsArith(f, k) {
				return jsUnknown("an expression computed at run time")
			}
			ops = append(ops, f.t[k].text)
			continue
		}
		var v jsVal
		if f.t[k].kind == jtNum {
			n, ok := jsNumber(f.t[k].text)
			if !ok {
				return jsUnknown("a number the reader does not read")
			}
			v = jsVal{kind: vNum, num: n}
		} else if f.ident(k) && !f.is(k+1, ".") && !f.is(k+1, "(") {
			v = r.chain(f, k, k+1, depth)
		} else {
			return jsUnknown("an expression computed at run time")
		}
		if v.kind != vNum {
			return jsUnknown(v.why)
		}
		terms = append(terms, v.num)
	}
	if len(terms) != len(ops)+1 {
		return jsUnknown("an expression computed at run time")
	}
	return jsVal{kind: vNum, num: foldArith(terms, ops)}
}

// foldArith computes terms joined by ops, * and / first.
func foldArith(terms []float64, ops []string) float64 {
	sums := []float64{terms[0]}
	var signs []string
	for k, op := range ops {
		last := &sums[len(sums)-1]
		switch op {
		case "*":
			*last *= terms[k+1]
		case "/":
			if terms[k+1] != 0 {
				*last /= terms[k+1]
			}
		default:
			sums, signs = append(sums, terms[k+1]), append(signs, op)
		}
	}
	out := sums[0]
	for k, s := range signs {
		if s == "+" {
			out += sums[k+1]
		} else {
			out -= sums[k+1]
		}
	}
	return out
}

// jsNumber reads a numeric literal (10_000, 3e4, 0x10).
func jsNumber(s string) (float64, bool) {
	s = strings.TrimSuffix(strings.ReplaceAll(s, "_", ""), "n")
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		return n, true
	}
	if n, err := strconv.ParseInt(s, 0, 64); err == nil {
		return float64(n), true
	}
	return 0, false
}

// evalNew is `new X(…)` from i (after new): an undici Agent or an AbortController.
func (r *jsReader) evalNew(f *jsFile, i, end, depth int) jsVal {
	k := i
	for f.ident(k) && f.is(k+1, ".") {
		k += 2
	}
	if !f.ident(k) {
		return jsUnknown("an object built at run time")
	}
	name := f.t[k].text
	if k > i {
		if v := r.chain(f, i, k-1, depth); v.kind == vLib && v.lib == libUndici {
			name = "undici." + name
		}
	} else if v := r.chain(f, k, k+1, depth); v.kind == vLib {
		name = v.lib
	}
	switch name {
	case "AbortController":
		return jsVal{kind: vCtrl, f: f, at: i - 1}
	case "undici.Agent", "undici.Pool", "undici.Client", "undici.EnvHttpProxyAgent", "undici.ProxyAgent":
		opts := -1
		if f.is(k+1, "(") {
			opts = k + 2
			if f.is(k+2, "(") || f.t[k+2].kind == jtStr || f.t[k+2].kind == jtTmpl {
				opts = f.exprEnd(k+2) + 1 // new Client(url, opts)
			}
		}
		return jsVal{kind: vAgent, f: f, at: opts}
	}
	return jsUnknown("an object the reader does not follow")
}

// chain is a name, a member chain (a.b.c) or a call on one (axios.create(…)).
func (r *jsReader) chain(f *jsFile, i, end, depth int) jsVal {
	v := r.name(f, i, depth)
	k := i + 1
	for k < end {
		switch {
		case (f.is(k, ".") || f.is(k, "?.")) && f.ident(k+1):
			v = r.member(f, v, f.t[k+1].text, k+1, depth)
			k += 2
		case f.is(k, "("):
			v = r.call(f, v, k, depth)
			k = f.end(k) + 1
		default:
			return jsUnknown("an expression computed at run time")
		}
	}
	return v
}

// jsGlobals are the names the reader knows when nothing in the file declares them.
var jsGlobals = map[string]string{"fetch": libFetch, "AbortSignal": "AbortSignal", "AbortController": "AbortController",
	"globalThis": "global", "window": "global", "self": "global", "require": "require", "setTimeout": "setTimeout"}

// name is the value of the identifier at i: a declaration, a parameter (the caller's), a
// class field through this, an import, or a global.
func (r *jsReader) name(f *jsFile, i, depth int) jsVal {
	name := f.t[i].text
	if name == "this" {
		return jsVal{kind: vObj, f: f, at: -1, lib: "this"}
	}
	if d := f.lookup(name, i); d != nil {
		switch {
		case d.fn >= 0:
			return jsVal{kind: vLib, lib: "function", f: f, at: d.fn}
		case d.val < 0 && d.typ != "":
			return jsVal{kind: vInst, inst: &jsInst{lib: jsTypedClients[d.typ], unresolved: name + " is a " + d.typ + " from the caller"}}
		case d.val < 0:
			return jsUnknown(name + " comes from the caller")
		case f.reassigned(name, d):
			return jsUnknown(name + " is assigned again")
		}
		key := [2]int{f.n, d.val}
		if r.busy[key] {
			return jsUnknown(name + " is defined by itself")
		}
		if r.busy == nil {
			r.busy = map[[2]int]bool{}
		}
		r.busy[key] = true
		defer delete(r.busy, key)
		return r.eval(f, d.val, depth+1)
	}
	if imp, ok := f.imports[name]; ok {
		return r.imported(f, imp, depth)
	}
	if g, ok := jsGlobals[name]; ok {
		return jsVal{kind: vLib, lib: g}
	}
	return jsUnknown(name + " is not declared in the files read")
}

// imported is the value an import binds: a library, or an export of a file read.
func (r *jsReader) imported(f *jsFile, imp jsImport, depth int) jsVal {
	m := strings.TrimPrefix(imp.module, "node:")
	switch m {
	case "axios":
		return jsVal{kind: vLib, lib: libAxios}
	case "got":
		return jsVal{kind: vLib, lib: libGot}
	case "axios-retry":
		return jsVal{kind: vLib, lib: "axios-retry"}
	case "node-fetch":
		if imp.name == "default" || imp.name == "*" {
			return jsVal{kind: vLib, lib: libNodeFetch}
		}
		return jsUnknown("node-fetch's " + imp.name)
	case "undici":
		switch imp.name {
		case "default", "*":
			return jsVal{kind: vLib, lib: libUndici}
		}
		return r.member(f, jsVal{kind: vLib, lib: libUndici}, imp.name, -1, depth)
	}
	g := r.module(f, m)
	if g == nil && !strings.HasPrefix(m, ".") {
		return jsUnknown("imported from " + imp.module + ", which the reader does not follow")
	}
	if g == nil {
		return jsUnknown("imported from " + imp.module + ", a file not read in this run")
	}
	name := imp.name
	if name == "*" {
		return jsUnknown("a module namespace")
	}
	at, ok := g.exports[name]
	if !ok && name != "default" {
		if def, ok2 := g.exports["default"]; ok2 && g.is(def, "{") {
			return jsUnknown(imp.module + " does not export " + name)
		}
	}
	if !ok {
		return jsUnknown(imp.module + " does not export " + name)
	}
	return r.eval(g, at, depth+1)
}

// module is the file an import names, among the files read: a relative path, or a path
// alias (`@/api/http`, `~/lib/api`, `@server/utils/fetch`) when exactly one file read ends
// with the path after the alias (tsconfig's paths are not read).
func (r *jsReader) module(from *jsFile, m string) *jsFile {
	if !strings.HasPrefix(m, ".") {
		return r.aliased(m)
	}
	base := path.Join(filepath.ToSlash(filepath.Dir(from.path)), m)
	cands := []string{base}
	for _, ext := range jsExtensions {
		cands = append(cands, base+ext, base+"/index"+ext)
		if trimmed := strings.TrimSuffix(base, ".js"); trimmed != base {
			cands = append(cands, trimmed+ext)
		}
	}
	for _, c := range cands {
		if g, ok := r.byPath[path.Clean(c)]; ok {
			return g
		}
	}
	return nil
}

// aliased is the one file read whose path ends with an aliased import's path, or nil.
func (r *jsReader) aliased(m string) *jsFile {
	rest := ""
	for _, p := range []string{"@/", "~/", "#/", "@", "~", "#"} {
		if strings.HasPrefix(m, p) {
			rest = strings.TrimPrefix(m, p)
			break
		}
	}
	if rest == "" {
		return nil
	}
	if g, ok := r.aliases[rest]; ok {
		return g
	}
	var found *jsFile
	for _, g := range r.files {
		p := filepath.ToSlash(g.path)
		noExt := strings.TrimSuffix(p, filepath.Ext(p))
		if strings.HasSuffix("/"+noExt, "/"+rest) || strings.HasSuffix("/"+noExt, "/"+rest+"/index") {
			if found != nil {
				found = nil // two files end so: not guessed
				break
			}
			found = g
		}
	}
	if r.aliases == nil {
		r.aliases = map[string]*jsFile{}
	}
	r.aliases[rest] = found
	return found
}

// member is v.name.
func (r *jsReader) member(f *jsFile, v jsVal, name string, at, depth int) jsVal {
	switch v.kind {
	case vObj:
		if v.lib == "this" {
			return r.field(f, name, depth)
		}
		if k, ok := objGet(v.f, v.at, name); ok && v.at >= 0 {
			return r.eval(v.f, k, depth+1)
		}
	case vLib:
		if m, ok := libMember(v, name); ok {
			return m
		}
	case vInst:
		if v.inst.lib == libGot && name == "extend" {
			return jsVal{kind: vLib, lib: "got.extend", inst: v.inst}
		}
	case vCtrl:
		if name == "signal" {
			return r.ctrlSignal(v)
		}
	case vUnknown:
		return v
	}
	return jsUnknown("a member the reader does not follow")
}

// libMembers are the members of a library's namespace the reader follows: (library,
// member) → the value's lib ("" = the namespace itself: axios.default).
var libMembers = map[[2]string]string{
	{"global", "fetch"}: libFetch, {"global", "AbortSignal"}: "AbortSignal", {"global", "AbortController"}: "AbortController",
	{libUndici, "request"}: "undici.request", {libUndici, "fetch"}: "undici.fetch", {libUndici, "stream"}: "undici.stream",
	{libUndici, "setGlobalDispatcher"}: "undici.setGlobalDispatcher", {libUndici, "Agent"}: "undici.Agent",
	{libUndici, "Pool"}: "undici.Pool", {libUndici, "Client"}: "undici.Client", {libUndici, "EnvHttpProxyAgent"}: "undici.EnvHttpProxyAgent",
	{libUndici, "ProxyAgent"}: "undici.ProxyAgent",
	{libAxios, "default"}:     "", {libGot, "default"}: "", {"axios-retry", "default"}: "", {"undici.fetch", "default"}: "",
	{libAxios, "create"}: "axios.create", {libGot, "extend"}: "got.extend",
	{"AbortSignal", "timeout"}: "AbortSignal.timeout", {"AbortSignal", "any"}: "AbortSignal.any",
}

// libMember is a library namespace's member, when the reader follows it.
func libMember(v jsVal, name string) (jsVal, bool) {
	lib, ok := libMembers[[2]string{v.lib, name}]
	switch {
	case !ok:
		return jsVal{}, false
	case lib == "":
		return v, true
	}
	return jsVal{kind: vLib, lib: lib}, true
}

// field is this.name: the class field or this.name = … of the file (the last assigned when
// all agree).
func (r *jsReader) field(f *jsFile, name string, depth int) jsVal {
	key := fieldKey{f.n, name}
	if v, ok := r.fieldMemo[key]; ok {
		return v
	}
	v := r.fieldValue(f, name, depth)
	if v.why != tooDeep {
		if r.fieldMemo == nil {
			r.fieldMemo = map[fieldKey]jsVal{}
		}
		r.fieldMemo[key] = v
	}
	return v
}

// fieldKey is a class field's name in a file.
type fieldKey struct {
	file int
	name string
}

// fieldValue is field without the memo.
func (r *jsReader) fieldValue(f *jsFile, name string, depth int) jsVal {
	vals := f.fields[name]
	if len(vals) == 0 {
		return jsUnknown("this." + name + " is not assigned in the file")
	}
	var out jsVal
	for n, at := range vals {
		v := r.eval(f, at, depth+1)
		switch {
		case n == 0 || (v.kind == out.kind && v.inst == out.inst):
		case v.kind == vInst && out.kind == vInst && v.inst.lib == out.inst.lib:
			// Instances made in different branches (one in the constructor, one when a
			// token arrives): the calls through the field have their bounds when all agree.
			if !r.sameBounds(v.inst, out.inst) {
				return jsVal{kind: vInst, inst: &jsInst{lib: v.inst.lib, unresolved: "this." + name + " is assigned " + v.inst.lib + " instances with different bounds"}}
			}
		default:
			return jsUnknown("this." + name + " is assigned different values")
		}
		out = v
	}
	return out
}

// instBoundKeys are the options whose values decide an instance's bounds and retries.
var instBoundKeys = []string{"timeout", "timeout.request", "timeout.connect", "timeout.lookup", "timeout.secureConnect",
	"timeout.socket", "timeout.send", "timeout.response", "timeout.read", "signal", "retry", "retry.limit"}

// sameBounds says whether two instances of a library bound and retry a call alike: every
// option in instBoundKeys unset in both or set to the same number (or timeout signal), and
// no axios-retry on either. Anything the reader cannot compare is a difference.
func (r *jsReader) sameBounds(a, b *jsInst) bool {
	if a.unresolved != "" || b.unresolved != "" || len(a.retry)+len(b.retry) > 0 {
		return false
	}
	la, lb := r.ownLayers(a), r.ownLayers(b)
	for _, key := range instBoundKeys {
		va, oa, fa := r.find(la, key)
		vb, ob, fb := r.find(lb, key)
		if fa != fb || oa != ob {
			return false
		}
		if fa && !sameBound(va, vb) {
			return false
		}
	}
	return true
}

// sameBound says whether two option values bound alike: equal numbers, equal timeout
// signals, or objects (their keys are compared one by one in instBoundKeys); a value the
// reader does not know is a difference.
func sameBound(a, b jsVal) bool {
	switch {
	case a.kind != b.kind:
		return false
	case a.kind == vNum, a.kind == vSignal:
		return a.num == b.num && a.at == b.at
	case a.kind == vObj:
		return true
	}
	return false
}

// call is the value of calling v with the arguments in the parentheses at open.
func (r *jsReader) call(f *jsFile, v jsVal, open, depth int) jsVal {
	args := jsArgs(f, open)
	arg := func(n int) int {
		if n < len(args) {
			return args[n]
		}
		return -1
	}
	switch {
	case v.kind == vLib && v.lib == "require":
		if m, ok := f.requireAt(open - 1); ok {
			return r.imported(f, jsImport{module: m, name: "default"}, depth)
		}
	case v.kind == vLib && v.lib == "axios.create", v.kind == vLib && v.lib == "got.extend":
		return jsVal{kind: vInst, inst: r.instance(f, open, v, arg(0), depth)}
	case v.kind == vLib && v.lib == "AbortSignal.timeout":
		if n := r.eval(f, arg(0), depth+1); n.kind == vNum {
			return jsVal{kind: vSignal, num: n.num, at: 1}
		}
		return jsUnknown("AbortSignal.timeout of a value computed at run time")
	case v.kind == vLib && v.lib == "AbortSignal.any":
		return r.anySignal(f, arg(0), depth)
	case v.kind == vLib && v.lib == "function":
		return r.returned(v.f, v.at, depth)
	}
	return jsUnknown("what a call returns at run time")
}

// instance is the axios or got instance created at the call whose `(` is at open, memoised.
func (r *jsReader) instance(f *jsFile, open int, v jsVal, opts, depth int) *jsInst {
	if r.insts[f] == nil {
		r.insts[f] = map[int]*jsInst{}
	}
	if in, ok := r.insts[f][open]; ok {
		return in
	}
	in := &jsInst{lib: libAxios, file: f.path, line: int(f.t[open].line)}
	if v.lib == "got.extend" {
		in.lib = libGot
	}
	r.insts[f][open] = in
	if opts >= 0 {
		in.opts = append(in.opts, jsOpt{f: f, at: opts})
	}
	if v.inst != nil {
		in.opts = append(in.opts, v.inst.opts...)
		in.retry = append(in.retry, v.inst.retry...)
	}
	return in
}

// anySignal is AbortSignal.any([a, b]): the tightest of the timeouts among them.
func (r *jsReader) anySignal(f *jsFile, at, depth int) jsVal {
	if !f.is(at, "[") {
		return jsUnknown("AbortSignal.any of signals built at run time")
	}
	out := jsUnknown("AbortSignal.any of signals with no timeout the reader sees")
	for _, k := range jsArgs(f, at) {
		s := r.eval(f, k, depth+1)
		if s.kind == vSignal && s.at == 1 && (out.kind != vSignal || s.num < out.num) {
			out = s
		}
	}
	return out
}

// ctrlSignal is an AbortController's signal: a timeout when setTimeout(() => c.abort(), ms)
// is in the function that creates the controller.
func (r *jsReader) ctrlSignal(c jsVal) jsVal {
	f := c.f
	blk := f.brace[c.at]
	end := len(f.t)
	if blk >= 0 {
		end = f.end(blk)
	}
	for k := c.at; k < end; k++ {
		if !f.is(k, "setTimeout") || !f.is(k+1, "(") {
			continue
		}
		args := jsArgs(f, k+1)
		if len(args) < 2 {
			continue
		}
		aborts := false
		for j := args[0]; j < args[1]; j++ {
			if f.is(j, "abort") {
				aborts = true
			}
		}
		if n := r.eval(f, args[1], 1); aborts && n.kind == vNum {
			return jsVal{kind: vSignal, num: n.num, at: 1}
		}
	}
	return jsUnknown("an AbortController aborted where the reader cannot see a timer")
}

// returned is what the function whose body `{` is at body returns, when it returns one value.
func (r *jsReader) returned(f *jsFile, body, depth int) jsVal {
	if !f.is(body, "{") {
		return jsUnknown("a function the reader does not follow")
	}
	for k := body + 1; k < f.end(body); k++ {
		if f.is(k, "return") && f.brace[k] == body {
			return r.eval(f, k+1, depth+1)
		}
	}
	return jsUnknown("a function that returns nothing the reader sees")
}

// jsArgs are the start indices of the comma-separated items in the bracket at open.
func jsArgs(f *jsFile, open int) []int {
	close := f.end(open)
	if close <= open+1 {
		return nil
	}
	var out []int
	for k := open + 1; k < close; {
		out = append(out, k)
		k = f.exprEnd(k)
		if !f.is(k, ",") {
			break
		}
		k++
		if k >= close {
			break
		}
	}
	return out
}

// objGet is the start of the value of key in the object literal at open (a shorthand
// `key` is the key's own token); ok false when it is not there.
func objGet(f *jsFile, open int, key string) (int, bool) {
	k, ok, _ := objFind(f, open, key)
	return k, ok
}

// objFind is objGet (the last time the object says key) that also says whether the object
// spreads another (`...opts`) after it — or anywhere, when key is not there — which may set
// key.
func objFind(f *jsFile, open int, key string) (at int, ok, spread bool) {
	if !f.is(open, "{") {
		return -1, false, false
	}
	close := f.end(open)
	at = -1
	for k := open + 1; k < close; {
		switch {
		case f.is(k, "..."):
			spread = true
		case (f.ident(k) || f.t[k].kind == jtStr || f.t[k].kind == jtNum) && f.is(k+1, ":"):
			if strings.EqualFold(unquote(f.t[k].text), key) {
				at, ok, spread = k+2, true, false
			}
		case f.ident(k) && (f.is(k+1, ",") || k+1 == close) && f.t[k].text == key:
			at, ok, spread = k, true, false
		}
		k = f.exprEnd(k)
		if k >= close {
			break
		}
		k++
	}
	return at, ok, spread
}
