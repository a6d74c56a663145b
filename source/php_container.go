package source

import (
	"fmt"
	"strings"
)

// Guzzle clients the Laravel container builds (docs/formats.md "Source code (PHP)"): a
// parameter typed GuzzleHttp\Client of a constructor (promoted or assigned to a property) or
// of a handle() method is resolved by the container, which — when nothing in the project binds
// the class — builds it with no arguments: new Client(), Guzzle's defaults. A binding in the
// files read is followed when it returns a literal `new Client([...])`; any other is code the
// reader does not follow, and the client's bounds are unresolved.

// phpBinding is one `->bind(`/`->singleton(`/`->instance(` (and their kin) of Guzzle's Client:
// the binding method's name token and its concrete (an empty range when it has none).
type phpBinding struct {
	f        *phpFile
	at       int
	concrete phpRange
}

// phpContainer is what the package tells the container: the bindings of Guzzle's Client and
// the classes it builds itself with new (short name, lower case).
type phpContainer struct {
	bindings []phpBinding
	newed    map[string]bool
}

// phpBindMethods are the container's methods that bind an abstract; needs() is a contextual
// binding (when(X)->needs(Client::class)->give(…)), whose concrete give() holds.
var phpBindMethods = map[string]bool{
	"bind": true, "singleton": true, "instance": true, "scoped": true,
	"bindif": true, "singletonif": true, "scopedif": true, "needs": true,
}

// container indexes the package's bindings and `new` expressions on first use.
func (p *phpPkg) container() *phpContainer {
	if p.ioc != nil {
		return p.ioc
	}
	ct := &phpContainer{newed: map[string]bool{}}
	for _, f := range p.files {
		for k := 0; k+2 < len(f.toks); k++ {
			switch {
			case f.kw(k, "new") && f.tok(k+1).kind == phpIdent:
				ct.newed[f.newedName(k+1)] = true
			case (f.is(k, phpOp, "->") || f.is(k, phpOp, "::")) && f.tok(k+1).kind == phpIdent && phpBindMethods[strings.ToLower(f.tok(k+1).text)] && f.is(k+2, phpOpen, "("):
				if b, ok := f.guzzleBinding(k + 1); ok {
					ct.bindings = append(ct.bindings, b)
				}
			}
		}
	}
	p.ioc = ct
	return ct
}

// newedName is the class `new NAME` builds (self and static: the enclosing class).
func (f *phpFile) newedName(k int) string {
	name := f.tok(k).text
	if strings.EqualFold(name, "self") || strings.EqualFold(name, "static") {
		if fn := f.funcAt(k); fn != nil && fn.class != nil {
			return strings.ToLower(fn.class.name)
		}
	}
	return shortName(f.fqn(name))
}

// guzzleBinding reads the binding call whose method name is toks[at], ok when its abstract is
// Guzzle's Client (`Client::class` through the file's imports, or the name as a string).
func (f *phpFile) guzzleBinding(at int) (phpBinding, bool) {
	args := f.args(at + 1)
	if len(args) == 0 {
		return phpBinding{}, false
	}
	a := args[0]
	var name string
	switch {
	case a.e-a.s == 3 && f.tok(a.s).kind == phpIdent && f.is(a.s+1, phpOp, "::") && f.kw(a.s+2, "class"):
		name = f.fqn(f.tok(a.s).text)
	case a.e-a.s == 1 && f.tok(a.s).kind == phpString:
		name = strings.TrimPrefix(f.tok(a.s).text, "\\")
	}
	if !strings.EqualFold(name, fqnGuzzle) {
		return phpBinding{}, false
	}
	b := phpBinding{f: f, at: at, concrete: phpRange{f: f, s: a.e, e: a.e}}
	if len(args) > 1 && !f.kw(at, "needs") {
		b.concrete = args[1]
	}
	return b, true
}

// injected says whether the variable name is a parameter the container passes: one of the
// enclosing class's constructor or handle() (a job's, a command's, a listener's).
func (c *phpCtx) injected(name string) bool {
	fn := c.fn
	if fn == nil || fn.class == nil || !(strings.EqualFold(fn.name, "__construct") || strings.EqualFold(fn.name, "handle")) {
		return false
	}
	for _, p := range fn.params {
		if p.name == name {
			return true
		}
	}
	return false
}

// containerClient is the client the container injects for a parameter typed typ of cls's
// constructor or handle(): Guzzle's Client built as the package's bindings say; any other
// type as typeClient reads it.
func (c *phpCtx) containerClient(typ string, cls *phpClass, ctor bool) *phpClient {
	if !strings.EqualFold(typ, fqnGuzzle) {
		return c.typeClient(typ)
	}
	ct := c.p.container()
	if ctor && cls != nil && ct.newed[strings.ToLower(cls.name)] {
		cl := c.typeClient(fqnGuzzle) // (typ may be spelled in any case)
		cl.notes = append(cl.notes, "the package builds "+cls.name+" with new: its constructor's Client is the one passed there, not the container's")
		return cl
	}
	switch len(ct.bindings) {
	case 0:
		cl := guzzleDefaults()
		cl.notes = append(cl.notes, "built by the container: no binding of GuzzleHttp\\Client in the files read, so it is new Client() at Guzzle's defaults")
		return cl
	case 1:
		return c.followBinding(ct.bindings[0])
	}
	var where []string
	for _, b := range ct.bindings {
		where = append(where, fmt.Sprintf("%s:%d", b.f.path, b.f.tok(b.at).line))
	}
	return unresolvedGuzzle("the container binds GuzzleHttp\\Client more than once (" + strings.Join(where, ", ") + "): which one this class gets is not read")
}

// followBinding is the client a binding builds: its closure's (or instance()'s) literal
// `new Client([...])`, the class itself when it names no concrete, unresolved otherwise.
func (c *phpCtx) followBinding(b phpBinding) *phpClient {
	f := b.f
	where := fmt.Sprintf("%s:%d", f.path, f.tok(b.at).line)
	r := b.concrete
	if r.e <= r.s {
		if f.kw(b.at, "needs") {
			return unresolvedGuzzle("the container gives GuzzleHttp\\Client by a contextual binding at " + where + " (when()->needs()->give()): not followed")
		}
		cl := guzzleDefaults()
		cl.notes = append(cl.notes, "built by the container: the binding at "+where+" names no concrete, so it is new Client() at Guzzle's defaults")
		return cl
	}
	if !f.kw(r.s, "new") {
		r = f.firstReturn(r.s, r.e)
	}
	if r.e > r.s && f.kw(r.s, "new") && c.depth < maxPHPDepth {
		sub := &phpCtx{p: c.p, f: f, fn: f.funcAt(r.s), depth: c.depth + 1, origin: OriginClient}
		if cl := sub.expr(r); cl != nil && cl.lib == libGuzzle {
			cl.notes = append(cl.notes, "built by the container from the binding at "+where)
			return cl
		}
	}
	return unresolvedGuzzle("the container builds GuzzleHttp\\Client from the binding at " + where + ", which is code the reader does not follow: " + f.text(b.concrete))
}

// unresolvedGuzzle is a Guzzle client whose options the reader cannot see, saying why.
func unresolvedGuzzle(why string) *phpClient {
	return &phpClient{lib: libGuzzle, connect: unresolvedBound, read: unresolvedBound, total: unresolvedBound, notes: []string{why}}
}
