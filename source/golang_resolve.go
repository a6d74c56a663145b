package source

import (
	"go/ast"
	"go/token"
	"strconv"
	"time"
)

// kind is what a Go value the reader follows is.
type kind int

// Kinds of values.
const (
	kindNone kind = iota
	kindHTTPClient
	kindRetryClient
	kindTransport
	kindDialer
	kindRequest
	kindContext
	// kindPolicy is a failsafe-go retry policy, its builder, or an executor of policies.
	kindPolicy
)

// value is what the reader knows of a client, transport, dialer, request or context. A
// client's bounds are per attempt; a transport has connect and read, a dialer connect, a
// context total (its deadline).
type value struct {
	kind                 kind
	connect, read, total Bound
	// retry is the retry layer of a go-retryablehttp client (and of the *http.Client its
	// StandardClient returns).
	retry *Retry
	notes []string
	// headOnly says the read bound is ResponseHeaderTimeout's: the body has none.
	headOnly bool
	// method and key are a request's (key nil: not visible); host its URL's literal host.
	method string
	key    *bool
	host   string
	// sends is the request a failsafehttp.Request sends with its Do().
	sends *value
}

// maxDepth bounds how far the reader follows names into names (a cycle a = b; b = a).
const maxDepth = 12

// Library names in Call.Library.
const (
	libHTTP  = "net/http"
	libRetry = "go-retryablehttp"
	// libFailsafe is failsafe-go's failsafehttp around an http.Client or its Transport.
	libFailsafe = "failsafe-go"
)

var (
	none       = noBound
	unresolved = Bound{Origin: OriginUnresolved}
)

// httpDefault is http.DefaultClient, or an http.Client{} with no Transport: no Timeout,
// DefaultTransport's 30 s dial, no ResponseHeaderTimeout.
func httpDefault() *value {
	return &value{kind: kindHTTPClient, connect: Bound{goDefaultConnect, OriginDefault}, read: none, total: none}
}

// retryDefault is retryablehttp.NewClient(): 5 attempts around cleanhttp's pooled client.
func retryDefault() *value {
	v := httpDefault()
	v.kind = kindRetryClient
	v.retry = &Retry{Layer: libRetry, MaxAttempts: retryDefaultMax + 1, On: append([]string(nil), retryDefaultOn...), Backoff: retryDefaultBackoff()}
	return v
}

// retryDefaultBackoff is go-retryablehttp's DefaultBackoff between RetryWaitMin 1 s and
// RetryWaitMax 30 s: min·2^n, capped, with no jitter (client.go, DefaultBackoff; a Retry-After
// on a 429 or 503 replaces it).
func retryDefaultBackoff() *Backoff {
	initial, most, mult := retryDefaultWaitMin.Milliseconds(), retryDefaultWaitMax.Milliseconds(), 2.0
	return &Backoff{InitialMS: &initial, MaxMS: &most, Multiplier: &mult, Jitter: "none"}
}

// defaultTransport is http.DefaultTransport and cleanhttp's transports: a 30 s dial.
func defaultTransport() *value {
	return &value{kind: kindTransport, connect: Bound{goDefaultConnect, OriginDefault}, read: none}
}

// unknown is a value of kind k the code builds where the reader cannot see.
func unknown(k kind, note string) *value {
	v := &value{kind: k, connect: unresolved, read: unresolved, total: unresolved, notes: []string{note}}
	if k == kindRetryClient {
		v.retry = &Retry{Layer: libRetry}
	}
	return v
}

// value resolves e, in sc, to what it is; own is the origin of a bound set in it (explicit
// in the call's function, client elsewhere). nil: not a value the reader follows.
func (p *goPackage) value(e ast.Expr, sc *goScope, own Origin, depth int) *value {
	if e == nil || depth > maxDepth {
		return nil
	}
	switch x := unparen(e).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.AND {
			return p.value(x.X, sc, own, depth+1)
		}
	case *ast.StarExpr:
		return p.value(x.X, sc, own, depth+1)
	case *ast.TypeAssertExpr:
		return p.value(x.X, sc, own, depth+1)
	case *ast.CompositeLit:
		return p.literal(x, sc, own, depth)
	case *ast.Ident:
		return p.named(x.Name, sc, own, depth)
	case *ast.SelectorExpr:
		return p.selector(x, sc, depth)
	case *ast.CallExpr:
		return p.callValue(x, sc, own, depth)
	}
	return nil
}

// literal is a struct literal of a type the reader follows, its fields applied in order.
func (p *goPackage) literal(x *ast.CompositeLit, sc *goScope, own Origin, depth int) *value {
	var v *value
	f := sc.file
	switch {
	case f.isType(x.Type, pathHTTP, "Client"):
		v = httpDefault()
	case f.isType(x.Type, pathRetry, "Client"):
		// A literal Client{} has RetryMax 0 (one attempt) and a cleanhttp client made lazily.
		v = retryDefault()
		v.retry.MaxAttempts = 1
	case f.isType(x.Type, pathHTTP, "Transport"):
		// A Transport without DialContext dials with a zero net.Dialer: no timeout.
		v = &value{kind: kindTransport, connect: none, read: none}
	case f.isType(x.Type, pathNet, "Dialer"):
		v = &value{kind: kindDialer, connect: none}
	default:
		return nil
	}
	for _, el := range x.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok {
				p.apply(v, []string{id.Name}, kv.Value, sc, own, depth+1)
			}
		}
	}
	return v
}

// named resolves a name: a local of sc (its last value, then the assignments to its
// fields), a parameter declared with a client type, or a package-level name or field.
func (p *goPackage) named(name string, sc *goScope, own Origin, depth int) *value {
	if sc != nil && sc.fn != nil {
		if defs := sc.defs[name]; len(defs) > 0 {
			v := p.local(name, defs, sc, own, depth)
			if v != nil {
				p.applySets(v, sc.sets[name], own, depth)
				if v.kind == kindRequest {
					k := sc.keyed[name]
					v.key = &k
				}
				return v
			}
		}
		// A parameter, or one copied and reassigned (client = &c with c := *client).
		if k := sc.typed[name]; k != kindNone {
			return unknown(k, name+" is a parameter: the client is built by the caller")
		}
		if sc.params[name] || len(sc.defs[name]) > 0 {
			return nil // a local of another kind shadows the package's names
		}
	}
	return p.packageNamed(name, depth)
}

// local resolves a local's last value; within it (req = req.WithContext(ctx)) the name is
// the value before.
func (p *goPackage) local(name string, defs []goDef, sc *goScope, own Origin, depth int) *value {
	idx := len(defs) - 1
	prev, active := sc.resolving[name]
	if active {
		idx = prev - 1
	}
	if idx < 0 {
		return nil
	}
	sc.resolving[name] = idx
	defer func() {
		if active {
			sc.resolving[name] = prev
		} else {
			delete(sc.resolving, name)
		}
	}()
	return p.value(defs[idx].expr, sc, own, depth+1)
}

// packageNamed resolves a package-level name or a field: every value assigned to it, which
// must agree, then the assignments to its fields.
func (p *goPackage) packageNamed(name string, depth int) *value {
	var vals []*value
	for _, d := range p.defs[name] {
		if v := p.value(d.expr, p.defScope(d), OriginClient, depth+1); v != nil {
			vals = append(vals, v)
		}
	}
	v := merge(vals, name)
	if v == nil {
		if k := p.typed[name]; k != kindNone {
			return unknown(k, name+" is assigned where the reader cannot see")
		}
		return nil
	}
	p.applySets(v, p.sets[name], OriginClient, depth)
	return v
}

// merge is what every value of vals says, bound by bound: a bound they disagree on is
// unresolved (and says so); nil for no value. A client built two ways with no Timeout in
// either has no total bound, whatever its transports say.
func merge(vals []*value, name string) *value {
	if len(vals) == 0 {
		return nil
	}
	out := *vals[0]
	for _, v := range vals[1:] {
		if v.kind != out.kind {
			return unknown(out.kind, name+" is assigned values of different kinds")
		}
		out.connect = agree(out.connect, v.connect)
		out.read = agree(out.read, v.read)
		out.headOnly = out.headOnly || v.headOnly
		out.total = agree(out.total, v.total)
		if v.method != out.method {
			out.method = ""
		}
		if v.key == nil || out.key == nil || *v.key != *out.key {
			out.key = nil
		}
		if attempts(v) != attempts(&out) {
			// Retried one way and not (or differently) another: a retry layer, attempts unknown.
			out.retry = &Retry{Layer: libRetry}
		}
	}
	if out.connect != vals[0].connect || out.read != vals[0].read || out.total != vals[0].total || attempts(&out) != attempts(vals[0]) {
		out.notes = append(append([]string(nil), out.notes...), name+" is assigned in several places with different values: those that differ are unresolved")
	}
	return &out
}

// agree is a bound two values share, unresolved when they differ.
func agree(a, b Bound) Bound {
	if a == b {
		return a
	}
	return unresolved
}

func attempts(v *value) int {
	if v.retry == nil {
		return 0
	}
	return v.retry.MaxAttempts
}

// defScope is the scope a definition's expression is read in.
func (p *goPackage) defScope(d goDef) *goScope {
	if d.fn != nil {
		return p.scopeOf(d.fn, d.file)
	}
	return newGoScope(nil, d.file)
}

// applySets applies the assignments to a value's fields, each in its own scope (own for
// those of sc's function, client for the others).
func (p *goPackage) applySets(v *value, sets []goSet, own Origin, depth int) {
	for _, s := range sets {
		p.apply(v, s.path, s.expr, p.defScope(s.goDef), own, depth+1)
	}
}

// selector resolves PKG.NAME (http.DefaultClient, http.DefaultTransport) or x.field.
func (p *goPackage) selector(x *ast.SelectorExpr, sc *goScope, depth int) *value {
	if path, name := sc.file.pkgOf(x); path != "" {
		switch {
		case path == pathHTTP && name == "DefaultClient":
			return httpDefault()
		case path == pathHTTP && name == "DefaultTransport":
			return defaultTransport()
		}
		return nil
	}
	if p.otherField[x.Sel.Name] {
		// A field of that name holds something else in some struct of the package (a Redis
		// client beside an HTTP one): which one x has is a type question the reader leaves.
		return nil
	}
	return p.packageNamed(x.Sel.Name, depth)
}

// callValue resolves a call that makes a value: the libraries' constructors, requests and
// contexts, StandardClient, WithContext and Clone, and the package's own functions.
func (p *goPackage) callValue(x *ast.CallExpr, sc *goScope, own Origin, depth int) *value {
	if path, name := sc.file.pkgOf(generic(x.Fun)); path != "" {
		if v, ok := p.failsafeCall(x, path, name, sc, own, depth); ok {
			return v
		}
		return p.libraryCall(path, name, x.Args, sc, own, depth)
	}
	switch fn := unparen(x.Fun).(type) {
	case *ast.Ident:
		if f, ok := p.funcs[fn.Name]; ok {
			return p.returns(f, depth)
		}
	case *ast.SelectorExpr:
		return p.methodCall(fn, x.Args, sc, own, depth)
	}
	return nil
}

// methodCall resolves x.StandardClient(), req.WithContext(ctx), x.Clone(…) and the
// package's own methods.
func (p *goPackage) methodCall(fn *ast.SelectorExpr, args []ast.Expr, sc *goScope, own Origin, depth int) *value {
	if v := p.builderCall(fn, args, sc, own, depth); v != nil {
		return v
	}
	switch fn.Sel.Name {
	case "StandardClient":
		if v := p.value(fn.X, sc, own, depth+1); v != nil && v.kind == kindRetryClient {
			v.kind = kindHTTPClient
			return v
		}
	case "WithContext", "Clone":
		v := p.value(fn.X, sc, own, depth+1)
		// An executor's WithContext (failsafe.With(rp).WithContext(ctx)) keeps its policies.
		if v != nil && v.kind == kindRequest && len(args) == 1 {
			v.total = p.context(args[0], sc, own, depth+1)
		}
		return v
	}
	if m, ok := p.methods[fn.Sel.Name]; ok {
		return p.returns(m, depth)
	}
	if k, ok := p.factories[fn.Sel.Name]; ok {
		return unknown(k, fn.Sel.Name+"() is a function field: the client it returns is built where the reader cannot see")
	}
	return nil
}

// libraryCall resolves PKG.NAME(args) of a library the reader knows.
func (p *goPackage) libraryCall(path, name string, args []ast.Expr, sc *goScope, own Origin, depth int) *value {
	switch path + "." + name {
	case pathRetry + ".NewClient":
		return retryDefault()
	case pathCleanHTTP + ".DefaultClient", pathCleanHTTP + ".DefaultPooledClient":
		return httpDefault()
	case pathCleanHTTP + ".DefaultTransport", pathCleanHTTP + ".DefaultPooledTransport":
		return defaultTransport()
	case pathHTTP + ".NewRequest", pathRetry + ".NewRequest":
		return p.request(nil, args, sc, own, depth)
	case pathHTTP + ".NewRequestWithContext", pathRetry + ".NewRequestWithContext":
		if len(args) == 0 {
			return nil
		}
		return p.request(args[0], args[1:], sc, own, depth)
	case pathContext + ".Background", pathContext + ".TODO", pathContext + ".WithoutCancel":
		return &value{kind: kindContext, total: none}
	case pathContext + ".WithTimeout":
		return p.withTimeout(args, sc, own, depth)
	case pathContext + ".WithDeadline":
		v := &value{kind: kindContext, total: unresolved, notes: []string{"total: the context's deadline is a point in time, not read"}}
		if len(args) == 2 {
			v.total = tighter(unresolved, p.context(args[0], sc, own, depth+1))
		}
		return v
	case pathContext + ".WithCancel", pathContext + ".WithValue", pathContext + ".WithCancelCause":
		if len(args) > 0 {
			return &value{kind: kindContext, total: p.context(args[0], sc, own, depth+1)}
		}
	}
	return nil
}

// request is NewRequest[WithContext]: the method when literal, the context's bound.
func (p *goPackage) request(ctx ast.Expr, rest []ast.Expr, sc *goScope, own Origin, depth int) *value {
	v := &value{kind: kindRequest, total: none}
	if ctx != nil {
		v.total = p.context(ctx, sc, own, depth+1)
	}
	if len(rest) > 0 {
		v.method = sc.file.stringLit(rest[0])
	}
	if len(rest) > 1 {
		v.host = p.host(rest[1], sc, depth+1)
	}
	return v
}

// withTimeout is context.WithTimeout(parent, d): the tighter of d and the parent's bound.
func (p *goPackage) withTimeout(args []ast.Expr, sc *goScope, own Origin, depth int) *value {
	if len(args) != 2 {
		return nil
	}
	return &value{kind: kindContext, total: tighter(p.duration(args[1], sc, own, depth), p.context(args[0], sc, own, depth+1))}
}

// context is the bound a context expression carries: none for Background, its timeout for
// WithTimeout, unresolved for one from a caller (its deadline is the caller's).
func (p *goPackage) context(e ast.Expr, sc *goScope, own Origin, depth int) Bound {
	if v := p.value(e, sc, own, depth); v != nil && v.kind == kindContext {
		return v.total
	}
	return unresolved
}

// returns resolves what a function of the package returns first, over all its returns.
func (p *goPackage) returns(f goFunc, depth int) *value {
	if f.decl.Body == nil || depth > maxDepth {
		return nil
	}
	sc := p.scopeOf(f.decl, f.file)
	var vals []*value
	ast.Inspect(f.decl.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(x.Results) > 0 {
				if v := p.value(x.Results[0], sc, OriginClient, depth+1); v != nil {
					vals = append(vals, v)
				}
			}
		}
		return true
	})
	if v := merge(vals, f.decl.Name.Name+"()"); v != nil {
		return v
	}
	// What it returns is not read, but its declared result is a client.
	if res := f.decl.Type.Results; res != nil && len(res.List) > 0 {
		if k := f.file.clientType(res.List[0].Type); k != kindNone {
			return unknown(k, f.decl.Name.Name+"() returns a client built where the reader cannot see")
		}
	}
	return nil
}

// apply sets the field at path of v to expr.
func (p *goPackage) apply(v *value, path []string, expr ast.Expr, sc *goScope, own Origin, depth int) {
	if len(path) == 0 || depth > maxDepth {
		return
	}
	switch v.kind {
	case kindHTTPClient:
		p.applyClient(v, path, expr, sc, own, depth)
	case kindRetryClient:
		p.applyRetry(v, path, expr, sc, own, depth)
	case kindTransport:
		p.applyTransport(v, path, expr, sc, own, depth)
	case kindDialer:
		if len(path) == 1 && path[0] == "Timeout" {
			v.connect = p.duration(expr, sc, own, depth)
		}
	}
}

// applyClient sets an http.Client's Timeout or Transport (or a field of its Transport).
func (p *goPackage) applyClient(v *value, path []string, expr ast.Expr, sc *goScope, own Origin, depth int) {
	switch {
	case path[0] == "Timeout" && len(path) == 1:
		v.total = p.duration(expr, sc, own, depth)
		if v.total.Origin == OriginUnresolved {
			v.notes = append(v.notes, "total: Client.Timeout is "+exprText(expr)+", computed at run time")
		}
	case path[0] == "Transport" && len(path) == 1:
		t := p.value(expr, sc, own, depth+1)
		if t == nil || t.kind != kindTransport {
			if id, ok := unparen(expr).(*ast.Ident); ok && id.Name == "nil" {
				t = defaultTransport()
			} else {
				t = unknown(kindTransport, "connect and read: the Transport is "+exprText(expr)+", not read")
			}
		}
		v.connect, v.read, v.headOnly, v.notes = t.connect, t.read, t.headOnly, append(v.notes, t.notes...)
		v.retry = t.retry // a failsafehttp RoundTripper's retry layer; a plain Transport has none
	case path[0] == "Transport":
		t := *v
		t.kind = kindTransport
		p.apply(&t, path[1:], expr, sc, own, depth+1)
		v.connect, v.read, v.headOnly, v.notes = t.connect, t.read, t.headOnly, t.notes
	}
}

// applyRetry sets a go-retryablehttp client's RetryMax, CheckRetry or HTTPClient (or a
// field of it).
func (p *goPackage) applyRetry(v *value, path []string, expr ast.Expr, sc *goScope, own Origin, depth int) {
	switch {
	case path[0] == "RetryMax" && len(path) == 1:
		n, ok := p.eval(expr, sc, depth)
		if ok && n >= 0 {
			v.retry.MaxAttempts = int(n) + 1
		} else {
			v.retry.MaxAttempts = 0
			v.notes = append(v.notes, "attempts: RetryMax is "+exprText(expr)+", computed at run time")
		}
	case (path[0] == "RetryWaitMin" || path[0] == "RetryWaitMax") && len(path) == 1:
		p.applyWait(v, path[0], expr, sc, own, depth)
	case path[0] == "Backoff" && len(path) == 1:
		// LinearJitterBackoff, RateLimitLinearJitterBackoff or the code's own: not read.
		v.retry.Backoff = nil
		v.notes = append(v.notes, "backoff: Backoff is "+exprText(expr)+", not read")
	case path[0] == "CheckRetry" && len(path) == 1:
		v.retry.On = nil
		v.notes = append(v.notes, "retry: CheckRetry is the code's own, so what it retries is not read")
	case path[0] == "HTTPClient" && len(path) == 1:
		c := p.value(expr, sc, own, depth+1)
		if c == nil || c.kind != kindHTTPClient {
			c = unknown(kindHTTPClient, "the HTTPClient is "+exprText(expr)+", not read")
		}
		v.connect, v.read, v.total, v.notes = c.connect, c.read, c.total, append(v.notes, c.notes...)
	case path[0] == "HTTPClient":
		c := *v
		c.kind = kindHTTPClient
		p.apply(&c, path[1:], expr, sc, own, depth+1)
		v.connect, v.read, v.total, v.notes = c.connect, c.read, c.total, c.notes
	}
}

// applyWait sets RetryWaitMin (the first wait) or RetryWaitMax (the cap) of the default
// backoff; a wait the reader cannot read leaves the backoff unknown.
func (p *goPackage) applyWait(v *value, field string, expr ast.Expr, sc *goScope, own Origin, depth int) {
	b := v.retry.Backoff
	if b == nil || b.InitialMS == nil {
		return // the code's own Backoff: the waits are its to use
	}
	d := p.duration(expr, sc, own, depth)
	if !d.known() {
		v.retry.Backoff = nil
		v.notes = append(v.notes, "backoff: "+field+" is "+exprText(expr)+", computed at run time")
		return
	}
	ms := d.D.Milliseconds()
	nb := *b
	if field == "RetryWaitMin" {
		nb.InitialMS = &ms
	} else {
		nb.MaxMS = &ms
	}
	v.retry.Backoff = &nb
}

// applyTransport sets a Transport's dialer or ResponseHeaderTimeout.
func (p *goPackage) applyTransport(v *value, path []string, expr ast.Expr, sc *goScope, own Origin, depth int) {
	if len(path) != 1 {
		return
	}
	switch path[0] {
	case "DialContext", "Dial":
		v.connect = p.dial(expr, sc, own, depth)
		if v.connect.Origin == OriginUnresolved {
			v.notes = append(v.notes, "connect: the Transport dials with "+exprText(expr)+", not read")
		}
	case "ResponseHeaderTimeout":
		v.read = p.duration(expr, sc, own, depth)
		if v.read.known() {
			v.notes = append(v.notes, noteHeadOnly)
			v.headOnly = true
		}
	}
}

// dial is the connect bound of a Transport's DialContext: (&net.Dialer{Timeout: d}).DialContext.
func (p *goPackage) dial(e ast.Expr, sc *goScope, own Origin, depth int) Bound {
	s, ok := unparen(e).(*ast.SelectorExpr)
	if !ok || (s.Sel.Name != "DialContext" && s.Sel.Name != "Dial") {
		return unresolved
	}
	if d := p.value(s.X, sc, own, depth+1); d != nil && d.kind == kindDialer {
		return d.connect
	}
	return unresolved
}

// duration is a time.Duration expression as a bound: none at zero or below (Go's "no
// timeout"), unresolved when it is computed at run time.
func (p *goPackage) duration(e ast.Expr, sc *goScope, own Origin, depth int) Bound {
	n, ok := p.eval(e, sc, depth)
	switch {
	case !ok:
		return unresolved
	case n <= 0:
		return none
	}
	return Bound{D: time.Duration(n), Origin: own}
}

// timeUnits are the time package's duration constants.
var timeUnits = map[string]float64{
	"Nanosecond": 1, "Microsecond": 1e3, "Millisecond": 1e6, "Second": 1e9, "Minute": 60e9, "Hour": 3600e9,
}

// conversions are the conversions a duration expression may go through.
var conversions = map[string]bool{"float64": true, "float32": true, "int": true, "int64": true, "int32": true, "uint": true, "uint64": true}

// eval computes a constant numeric expression (a duration in nanoseconds): literals, the
// time package's units, constants and variables assigned once, conversions and arithmetic.
func (p *goPackage) eval(e ast.Expr, sc *goScope, depth int) (float64, bool) {
	if depth > maxDepth {
		return 0, false
	}
	switch x := unparen(e).(type) {
	case *ast.BasicLit:
		if x.Kind == token.INT || x.Kind == token.FLOAT {
			n, err := strconv.ParseFloat(x.Value, 64)
			return n, err == nil
		}
	case *ast.Ident:
		return p.evalName(x.Name, sc, depth)
	case *ast.SelectorExpr:
		if path, name := sc.file.pkgOf(x); path == pathTime {
			n, ok := timeUnits[name]
			return n, ok
		}
	case *ast.BinaryExpr:
		return p.evalBinary(x, sc, depth)
	case *ast.UnaryExpr:
		if x.Op == token.SUB {
			n, ok := p.eval(x.X, sc, depth+1)
			return -n, ok
		}
	case *ast.CallExpr:
		if len(x.Args) == 1 && p.isConversion(x.Fun, sc) {
			return p.eval(x.Args[0], sc, depth+1)
		}
	}
	return 0, false
}

// isConversion says whether fn is a numeric conversion or time.Duration.
func (p *goPackage) isConversion(fn ast.Expr, sc *goScope) bool {
	if id, ok := fn.(*ast.Ident); ok {
		return conversions[id.Name]
	}
	return sc.file.pkgSel(fn, pathTime, "Duration")
}

// evalName is a name's value: a local assigned once, else a package-level one assigned once.
func (p *goPackage) evalName(name string, sc *goScope, depth int) (float64, bool) {
	if sc.fn != nil {
		if defs := sc.defs[name]; len(defs) == 1 {
			return p.eval(defs[0].expr, sc, depth+1)
		} else if len(defs) > 1 || sc.params[name] {
			return 0, false
		}
	}
	var pkg []goDef
	for _, d := range p.defs[name] {
		if d.fn == nil {
			pkg = append(pkg, d)
		}
	}
	if len(pkg) != 1 || len(p.defs[name]) != 1 {
		return 0, false
	}
	return p.eval(pkg[0].expr, p.defScope(pkg[0]), depth+1)
}

func (p *goPackage) evalBinary(x *ast.BinaryExpr, sc *goScope, depth int) (float64, bool) {
	a, ok := p.eval(x.X, sc, depth+1)
	if !ok {
		return 0, false
	}
	b, ok := p.eval(x.Y, sc, depth+1)
	if !ok {
		return 0, false
	}
	switch x.Op {
	case token.MUL:
		return a * b, true
	case token.QUO:
		if b == 0 {
			return 0, false
		}
		return a / b, true
	case token.ADD:
		return a + b, true
	case token.SUB:
		return a - b, true
	}
	return 0, false
}
