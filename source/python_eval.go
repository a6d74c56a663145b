package source

import (
	"strconv"
	"strings"
)

// pyVK is the kind of value an expression has when the reader can tell.
type pyVK uint8

const (
	pvUnknown pyVK = iota
	pvNum
	pvStr
	pvNone
	pvBool
	pvTuple
	pvDict
	pvCall
	pvQual
)

// pyVal is what an expression evaluates to statically: a number (seconds, as Python code
// gives timeouts), a string, None, a tuple, a dict's literal keys, a call (a constructor
// with its arguments), a qualified name of an imported module member; or unknown with why.
type pyVal struct {
	kind  pyVK
	num   float64
	str   string
	items []pyVal
	keys  []string
	call  *pyCallVal
	// origin is explicit unless the value came through a keyword default or an attribute
	// set in another method (client); notes say so.
	origin Origin
	notes  []string
	why    string
	// caller says the value is (or may be) the caller's: a parameter, or `param or default`.
	caller bool
	// homes are the names a client value was bound to, innermost first, with their scopes:
	// where its s.mount(…) and s.headers.update(…) are looked for.
	homes []pyHome
}

// pyHome is a name a value is bound to in a scope.
type pyHome struct {
	env  *pyEnv
	name string
}

// pyCallVal is a call: what it calls (a qualified name, or a class of the package) and its
// arguments, evaluated lazily in env.
type pyCallVal struct {
	callee string
	class  *pyClass
	args   pyArgs
	env    *pyEnv
	line   int
}

// pyArgs are a call's arguments as written.
type pyArgs struct {
	pos   [][]pyTok
	kw    map[string][]pyTok
	splat bool
}

// arg is the keyword argument name, or else the positional argument at i; nil when absent.
func (a pyArgs) arg(name string, i int) []pyTok {
	if v, ok := a.kw[name]; ok {
		return v
	}
	if i >= 0 && i < len(a.pos) {
		return a.pos[i]
	}
	return nil
}

func parseArgs(toks []pyTok) pyArgs {
	a := pyArgs{kw: map[string][]pyTok{}}
	for _, p := range splitTop(toks, ",") {
		switch {
		case len(p) == 0:
		case p[0].Text == "**":
			a.splat = true
		case p[0].Text == "*":
			a.splat = true
		case len(p) > 2 && p[0].Kind == pyName && p[1].Kind == pyOp && p[1].Text == "=":
			a.kw[p[0].Text] = p[2:]
		default:
			a.pos = append(a.pos, p)
		}
	}
	return a
}

func pyUnknown(why string) pyVal { return pyVal{kind: pvUnknown, why: why} }

// pyMaxEvalDepth bounds how far a name is followed (a = b, b = a never loops), and
// pyMaxEvalSteps how many expressions one call site may evaluate: names that fan out (a = (b,
// b), b = (c, c), …) would otherwise cost exponential time.
const (
	pyMaxEvalDepth = 12
	pyMaxEvalSteps = 20_000
)

// eval is the value of toks in env.
func (env *pyEnv) eval(toks []pyTok, depth int) pyVal {
	if depth > pyMaxEvalDepth || len(toks) == 0 {
		return pyUnknown("an expression the reader does not follow")
	}
	env.file.pkg.steps++
	if env.file.pkg.steps > pyMaxEvalSteps {
		return pyUnknown("an expression too large to follow")
	}
	v := env.evalExpr(toks, depth)
	if v.origin == "" {
		v.origin = OriginExplicit
	}
	return v
}

func (env *pyEnv) evalExpr(toks []pyTok, depth int) pyVal {
	if parts := splitTop(toks, ","); len(parts) > 1 {
		return env.tuple(parts, depth)
	}
	if or := indexTop(toks, pyName, "or"); or > 0 {
		return env.orElse(toks[:or], toks[or+1:], depth)
	}
	if indexTop(toks, pyName, "if") > 0 || indexTop(toks, pyName, "and") > 0 || indexTop(toks, pyName, "lambda") >= 0 {
		return pyUnknown("a conditional expression")
	}
	if v, ok := env.arith(toks, depth); ok {
		return v
	}
	if len(toks) == 1 {
		return env.atom(toks[0], depth)
	}
	if toks[0].Text == "-" && len(toks) == 2 && toks[1].Kind == pyNum {
		v := env.atom(toks[1], depth)
		v.num = -v.num
		return v
	}
	if allStrings(toks) {
		var b strings.Builder
		for _, t := range toks {
			b.WriteString(env.atom(t, depth).str)
		}
		return pyVal{kind: pvStr, str: b.String()}
	}
	last := toks[len(toks)-1]
	switch {
	case toks[0].Text == "(" && matching(toks, 0) == len(toks)-1:
		inner := toks[1 : len(toks)-1]
		if len(inner) > 0 && inner[len(inner)-1].Text == "," {
			return env.tuple(splitTop(inner, ","), depth)
		}
		return env.eval(inner, depth+1)
	case toks[0].Text == "{" && matching(toks, 0) == len(toks)-1:
		return dictKeys(toks[1 : len(toks)-1])
	case toks[0].Text == "[" && matching(toks, 0) == len(toks)-1:
		return env.tuple(splitTop(toks[1:len(toks)-1], ","), depth)
	case last.Text == ")":
		return env.callValue(toks, depth)
	case isDotted(toks):
		return env.dotted(toks, depth)
	}
	return pyUnknown("an expression the reader does not follow")
}

func allStrings(toks []pyTok) bool {
	for _, t := range toks {
		if t.Kind != pyStr {
			return false
		}
	}
	return true
}

func (env *pyEnv) tuple(parts [][]pyTok, depth int) pyVal {
	v := pyVal{kind: pvTuple}
	for _, p := range parts {
		v.items = append(v.items, env.eval(p, depth+1))
	}
	return v
}

// orElse is `a or b`: a parameter or attribute that may be None, with a fallback.
func (env *pyEnv) orElse(a, b []pyTok, depth int) pyVal {
	left := env.eval(a, depth+1)
	if left.kind != pvUnknown && left.kind != pvNone {
		return left
	}
	right := env.eval(b, depth+1)
	right.caller = right.caller || left.caller || left.kind == pvUnknown
	if left.kind == pvUnknown {
		right.notes = append(right.notes, tokText(a)+" or "+tokText(b)+": the first may be set by a caller")
	}
	return right
}

// arith is + - * / on numbers and + on strings, left to right with * and / first.
func (env *pyEnv) arith(toks []pyTok, depth int) (pyVal, bool) {
	for _, ops := range [][]string{{"+", "-"}, {"*", "/"}} {
		at := -1
		for _, op := range ops {
			for _, i := range allTop(toks, pyOp, op) {
				if i > 0 && toks[i-1].Kind != pyOp || i > 0 && isCloser(toks[i-1]) {
					at = max(at, i)
				}
			}
		}
		if at <= 0 {
			continue
		}
		l, r := env.eval(toks[:at], depth+1), env.eval(toks[at+1:], depth+1)
		return combine(l, r, toks[at].Text), true
	}
	return pyVal{}, false
}

func isCloser(t pyTok) bool {
	return t.Kind == pyOp && (t.Text == ")" || t.Text == "]" || t.Text == "}")
}

func combine(l, r pyVal, op string) pyVal {
	out := pyVal{kind: pvUnknown, why: "computed at run time", origin: l.origin, notes: append(l.notes, r.notes...)}
	if r.origin == OriginClient {
		out.origin = OriginClient
	}
	switch {
	case l.kind == pvNum && r.kind == pvNum:
		out.kind = pvNum
		switch op {
		case "+":
			out.num = l.num + r.num
		case "-":
			out.num = l.num - r.num
		case "*":
			out.num = l.num * r.num
		case "/":
			if r.num == 0 {
				return pyUnknown("a division by zero")
			}
			out.num = l.num / r.num
		}
	case l.kind == pvStr && op == "+":
		out.kind, out.str = pvStr, l.str
		if r.kind == pvStr {
			out.str += r.str
		} else {
			out.str += "{…}"
		}
	}
	return out
}

// atom is one token's value.
func (env *pyEnv) atom(t pyTok, depth int) pyVal {
	switch t.Kind {
	case pyNum:
		s := strings.ReplaceAll(strings.ToLower(t.Text), "_", "")
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			return pyVal{kind: pvNum, num: n}
		}
		if n, err := strconv.ParseInt(s, 0, 64); err == nil {
			return pyVal{kind: pvNum, num: float64(n)}
		}
		return pyUnknown("a number the reader does not read")
	case pyStr:
		if t.FStr {
			return pyVal{kind: pvStr, str: env.fstring(t.Text, depth)}
		}
		return pyVal{kind: pvStr, str: t.Text}
	case pyName:
		switch t.Text {
		case "None":
			return pyVal{kind: pvNone}
		case "True", "False":
			return pyVal{kind: pvBool, num: map[bool]float64{true: 1}[t.Text == "True"]}
		}
		return env.lookup(t.Text, t.Line, depth)
	}
	return pyUnknown("an expression the reader does not follow")
}

// fstring resolves an f-string's leading {NAME} (a base URL constant) and keeps the rest
// as written.
func (env *pyEnv) fstring(s string, depth int) string {
	if !strings.HasPrefix(s, "{") {
		return s
	}
	end := strings.Index(s, "}")
	if end < 0 {
		return s
	}
	field := s[1:end]
	lines, err := lexPython("", []byte(field))
	if err != nil || len(lines) != 1 {
		return s
	}
	v := env.eval(lines[0].Toks, depth+1)
	if v.kind != pvStr {
		return s
	}
	return v.str + s[end+1:]
}

func dictKeys(toks []pyTok) pyVal {
	v := pyVal{kind: pvDict}
	for _, item := range splitTop(toks, ",") {
		if len(item) > 0 && item[0].Kind == pyStr {
			v.keys = append(v.keys, item[0].Text)
		} else if len(item) > 0 {
			v.keys = append(v.keys, "{…}")
		}
	}
	return v
}

// lookup follows a name: the function's bindings before line (the last one), its
// parameters, the module's bindings and imports, a sibling module's constant.
func (env *pyEnv) lookup(name string, line, depth int) pyVal {
	for e := env; e != nil; e = e.outer {
		if b, ok := e.binding(name, line); ok {
			v := b.env.eval(b.val, depth+1)
			if v.kind == pvUnknown && v.why == "" {
				v.why = "computed at run time"
			}
			v.homes = append(v.homes, pyHome{e, name})
			return v
		}
		if e.fn != nil {
			if p, ok := e.fn.params[name]; ok {
				return e.param(name, p, depth)
			}
		}
	}
	f := env.file
	if q, ok := f.imports[name]; ok {
		if v, ok := f.pkg.sibling(q, depth); ok {
			return v
		}
		return pyVal{kind: pvQual, str: canonical(q)}
	}
	if c := f.pkg.class(name); c != nil {
		return pyVal{kind: pvQual, str: "class:" + c.name}
	}
	return pyUnknown(name + " is not set where the reader can see")
}

// binding is the binding of name in env: the last one before line in a function (code runs
// in order; a binding's own value reads the one before it), the last one at module level.
func (env *pyEnv) binding(name string, line int) (pyBinding, bool) {
	bs := env.names[name]
	if len(bs) == 0 {
		return pyBinding{}, false
	}
	if env.fn != nil {
		for i := len(bs) - 1; i >= 0; i-- {
			if bs[i].line < line {
				return bs[i], true
			}
		}
	}
	return bs[len(bs)-1], true
}

// param is a parameter's value: its keyword default (callers may pass another), a client
// its annotation names (the caller's), or unknown.
func (env *pyEnv) param(name string, p pyParam, depth int) pyVal {
	fn := env.fn.name
	if len(p.ann) > 0 {
		ann := env.eval(p.ann, depth+1)
		if ann.kind == pvQual {
			return pyVal{kind: pvCall, call: &pyCallVal{callee: ann.str, env: env, args: pyArgs{kw: map[string][]pyTok{}}}, caller: true, notes: []string{name + " is a parameter of " + fn + "(): the caller's " + ann.str}}
		}
	}
	if p.def != nil {
		scope := env.outer
		if c := env.fn.class; c != nil && c.env != nil {
			scope = c.env
		}
		v := scope.eval(p.def, depth+1)
		if v.kind == pvNone {
			return pyVal{kind: pvNone, caller: true, origin: OriginClient, notes: []string{name + " is a keyword of " + fn + "() defaulting to None: callers may pass another"}}
		}
		v.origin = OriginClient
		v.caller = true
		v.notes = append(v.notes, name+" is the keyword default of "+fn+"(): callers may pass another")
		return v
	}
	return pyVal{kind: pvUnknown, caller: true, why: name + " is a parameter of " + fn + "(): the caller's value"}
}

// dotted is a.b.c: an imported module's member, self.NAME, or a sibling module's constant.
func (env *pyEnv) dotted(toks []pyTok, depth int) pyVal {
	first := toks[0].Text
	if first == "self" && len(toks) == 3 {
		return env.selfAttr(toks[2].Text, depth)
	}
	if q, ok := env.file.imports[first]; ok && env.localFree(first) {
		return pyVal{kind: pvQual, str: canonical(q + tokText(toks[1:]))}
	}
	head := env.eval(toks[:len(toks)-2], depth+1)
	if head.kind == pvQual {
		return pyVal{kind: pvQual, str: canonical(head.str + "." + toks[len(toks)-1].Text)}
	}
	return pyUnknown(tokText(toks) + " is computed at run time")
}

// localFree says name is not rebound in the scope (a local shadowing a module).
func (env *pyEnv) localFree(name string) bool {
	if env.fn == nil {
		return true
	}
	_, param := env.fn.params[name]
	return len(env.names[name]) == 0 && !param
}

// selfAttr is self.NAME in a method: an attribute set in the class (or a base class of the
// package), or a property/method of that name; set elsewhere, so its origin is client.
func (env *pyEnv) selfAttr(name string, depth int) pyVal {
	if env.fn == nil || env.fn.class == nil {
		return pyUnknown("self." + name + " outside a class")
	}
	for c, n := env.fn.class, 0; c != nil && n < 4; c, n = env.file.pkg.base(c), n+1 {
		if bs := c.attrs[name]; len(bs) > 0 {
			b := pickBinding(bs, c)
			v := b.env.eval(b.val, depth+1)
			if len(distinct(bs)) > 1 && v.clientLib(env.file.pkg) == "" {
				v, b = env.file.pkg.someClient(bs, v, b, depth)
			}
			if b.env != env && v.origin == OriginExplicit {
				v.origin = OriginClient
			}
			v.homes = append(v.homes, c.homes(name)...)
			if len(distinct(bs)) > 1 {
				v.notes = append(v.notes, "self."+name+" is set in several places: the one in "+pickName(b)+" is read")
			}
			return v
		}
		if m, ok := c.methods[name]; ok {
			return m.returns(depth)
		}
	}
	return pyUnknown("self." + name + " is not set in the class")
}

// homes are the scopes where self.NAME may be configured: every method of c.
func (c *pyClass) homes(name string) []pyHome {
	var out []pyHome
	for _, m := range c.order {
		out = append(out, pyHome{m.env, "self." + name})
	}
	return out
}

// someClient is, among an attribute's bindings, the first that is a client the reader knows
// (self._session = session from a caller in __init__, requests.Session() in a builder): the
// call goes through that library, and the value may be the caller's.
func (p *pyPackage) someClient(bs []pyBinding, v pyVal, b pyBinding, depth int) (pyVal, pyBinding) {
	for _, o := range bs {
		ov := o.env.eval(o.val, depth+1)
		if ov.kind != pvCall || ov.clientLib(p) == "" {
			continue
		}
		ov.caller = ov.caller || v.kind == pvUnknown
		ov.notes = append(ov.notes, "set in several places: the client the reader knows is read, another may be the caller's")
		return ov, o
	}
	return v, b
}

// pickBinding is the binding of an attribute that __init__ sets, or else the first.
func pickBinding(bs []pyBinding, c *pyClass) pyBinding {
	if init, ok := c.methods["__init__"]; ok {
		for _, b := range bs {
			if b.env == init.env {
				return b
			}
		}
	}
	return bs[0]
}

func pickName(b pyBinding) string {
	if b.env.fn != nil {
		return b.env.fn.name + "()"
	}
	return "the class body"
}

func distinct(bs []pyBinding) map[string]bool {
	out := map[string]bool{}
	for _, b := range bs {
		out[tokText(b.val)] = true
	}
	return out
}

// base is c's first base class defined in the package, or nil.
func (p *pyPackage) base(c *pyClass) *pyClass {
	for _, b := range c.bases {
		if isDotted(b) {
			if bc := p.class(b[len(b)-1].Text); bc != nil && bc != c {
				return bc
			}
		}
	}
	return nil
}

// returns is what a function returns when every return of its body says the same thing, or
// the first client when its returns build clients of one library (a pool manager or a proxy
// manager): the value is then marked as one of several.
func (fn *pyFunc) returns(depth int) pyVal {
	var outs [][]pyTok
	for _, n := range fn.env.body {
		if len(n.Toks) > 1 && n.Toks[0].Text == "return" && n.Toks[0].Kind == pyName {
			outs = append(outs, n.Toks[1:])
		}
	}
	switch {
	case len(outs) == 0:
		return pyUnknown(fn.name + "() returns nothing the reader sees")
	case len(outs) == 1:
		return fn.env.eval(outs[0], depth+1)
	}
	first := fn.env.eval(outs[0], depth+1)
	lib := first.clientLib(fn.file.pkg)
	for _, o := range outs[1:] {
		if tokText(o) == tokText(outs[0]) {
			continue
		}
		if lib == "" || fn.env.eval(o, depth+1).clientLib(fn.file.pkg) != lib {
			return pyUnknown(fn.name + "() returns different values")
		}
		first.caller = true
	}
	if first.caller {
		first.notes = append(first.notes, fn.name+"() returns one of several clients: the first is read")
	}
	return first
}

// callValue is NAME(...) or a.b(...): a constructor (by qualified name or package class) or
// a package function whose return the reader follows.
func (env *pyEnv) callValue(toks []pyTok, depth int) pyVal {
	open := matchingBack(toks, len(toks)-1)
	if open <= 0 {
		return pyUnknown("an expression the reader does not follow")
	}
	callee := toks[:open]
	args := parseArgs(toks[open+1 : len(toks)-1])
	line := toks[0].Line
	if len(callee) == 3 && callee[0].Text == "self" {
		if c := env.fn; c != nil && c.class != nil {
			if m, ok := c.class.methods[callee[2].Text]; ok {
				return m.returns(depth)
			}
		}
	}
	if isDotted(callee) && len(callee) == 1 {
		if fn, ok := env.file.funcs[callee[0].Text]; ok && env.localFree(callee[0].Text) {
			return fn.returns(depth)
		}
	}
	cv := env.eval(callee, depth+1)
	if cv.kind != pvQual {
		return pyUnknown(tokText(callee) + "(…) is computed at run time")
	}
	c := &pyCallVal{callee: cv.str, args: args, env: env, line: line}
	if name, ok := strings.CutPrefix(cv.str, "class:"); ok {
		c.class = env.file.pkg.class(name)
		c.callee = ""
	}
	return pyVal{kind: pvCall, call: c}
}

// sibling is the value of a name imported from a module of the package (from .config import
// TIMEOUT, from config import TIMEOUT).
func (p *pyPackage) sibling(q string, depth int) (pyVal, bool) {
	parts := strings.Split(strings.TrimLeft(q, "."), ".")
	if len(parts) < 2 {
		return pyVal{}, false
	}
	mod, name := parts[len(parts)-2], parts[len(parts)-1]
	for _, f := range p.files {
		if f.module != mod {
			continue
		}
		if _, ok := f.env.names[name]; ok {
			return f.env.lookup(name, 1<<30, depth+1), true
		}
		if c, ok := f.classes[name]; ok {
			return pyVal{kind: pvQual, str: "class:" + c.name}, true
		}
		if fn, ok := f.funcs[name]; ok {
			_ = fn
			return pyVal{kind: pvQual, str: "func:" + mod + "." + name}, true
		}
	}
	return pyVal{}, false
}

// pyCanon are other spellings of the names the reader knows.
var pyCanon = map[string]string{
	"requests.sessions.Session":                  "requests.Session",
	"requests.session":                           "requests.Session",
	"requests.sessions.session":                  "requests.Session",
	"requests.adapters.HTTPAdapter":              "requests.HTTPAdapter",
	"urllib3.util.retry.Retry":                   "urllib3.Retry",
	"urllib3.util.Retry":                         "urllib3.Retry",
	"requests.packages.urllib3.util.retry.Retry": "urllib3.Retry",
	"requests.packages.urllib3.Retry":            "urllib3.Retry",
	"requests.adapters.Retry":                    "urllib3.Retry",
	"urllib3.util.timeout.Timeout":               "urllib3.Timeout",
	"urllib3.util.Timeout":                       "urllib3.Timeout",
	"urllib3.poolmanager.PoolManager":            "urllib3.PoolManager",
	"aiohttp.client.ClientSession":               "aiohttp.ClientSession",
	"aiohttp.client.ClientTimeout":               "aiohttp.ClientTimeout",
	"requests.api.get":                           "requests.get",
	"requests.api.post":                          "requests.post",
	"requests.api.request":                       "requests.request",
}

func canonical(q string) string {
	if c, ok := pyCanon[q]; ok && c != "" {
		return c
	}
	return q
}
