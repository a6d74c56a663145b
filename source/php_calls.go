package source

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// fromVar resolves a chain whose head is the variable at toks[i]: $this (a property or a
// method of the class), a variable assigned in the same function, or a typed parameter.
func (c *phpCtx) fromVar(i int, segs []phpSeg) *phpClient {
	f := c.f
	name := f.tok(i).text
	if name == "this" {
		if len(segs) == 0 || c.fn == nil || c.fn.class == nil {
			return nil
		}
		if segs[0].open < 0 {
			if len(segs) > 1 && segs[1].open >= 0 {
				if prop, _ := c.p.prop(c.fn.class, segs[0].name); prop != nil {
					if cls := c.p.classes[shortName(prop.typ)]; cls != nil && !cls.iface {
						// $this->http->buildClient(5): a factory method of a class of the package.
						return c.apply(c.methodReturn(cls, segs[1].name), segs[2:])
					}
				}
			}
			return c.apply(c.propClient(c.fn.class, segs[0].name), segs[1:])
		}
		return c.apply(c.methodReturn(c.fn.class, segs[0].name), segs[1:])
	}
	if rhs, ok := c.assigned(f, name, i); ok {
		sub := *c
		sub.depth++
		return c.apply(sub.expr(rhs), segs)
	}
	if typ := c.typeOf(f, name, i); typ != "" {
		if cls := c.p.classes[shortName(typ)]; cls != nil && !cls.iface && len(segs) > 0 && segs[0].open >= 0 {
			return c.apply(c.methodReturn(cls, segs[0].name), segs[1:])
		}
		if c.injected(name) {
			return c.apply(c.containerClient(typ, c.fn.class, strings.EqualFold(c.fn.name, "__construct")), segs)
		}
		return c.apply(c.typeClient(typ), segs)
	}
	return nil
}

// typeOf is the declared type of a variable: a parameter of the function, or of a closure
// before toks[i] (`function (Pool $pool)`).
func (c *phpCtx) typeOf(f *phpFile, name string, i int) string {
	if c.fn != nil {
		for _, p := range c.fn.params {
			if p.name == name {
				return p.typ
			}
		}
	}
	lo := 0
	if c.fn != nil {
		lo = c.fn.open
	}
	for k := i - 1; k > lo; k-- {
		if f.tok(k).kind == phpVar && f.tok(k).text == name && f.tok(k-1).kind == phpIdent && !phpModifier(f.tok(k-1).text) {
			return f.fqn(f.tok(k - 1).text)
		}
	}
	return ""
}

// typeClient is a client passed in by type: a Guzzle client built where the reader cannot
// see, or Laravel's Factory (a fresh pending request at its defaults).
func (c *phpCtx) typeClient(typ string) *phpClient {
	switch typ {
	case fqnGuzzle, fqnGuzzleIface:
		return &phpClient{lib: libGuzzle, connect: unresolvedBound, read: unresolvedBound, total: unresolvedBound,
			notes: []string{"the Guzzle client is passed in (typed " + shortType(typ) + "): its options are set where it is built, which the reader does not follow"}}
	case fqnFactory, fqnPool:
		return c.laravelBase()
	case fqnPending:
		return &phpClient{lib: libLaravel, connect: unresolvedBound, read: Bound{Origin: OriginNone}, total: unresolvedBound,
			notes: []string{"the PendingRequest is passed in: its timeouts are set where it is built, which the reader does not follow"}}
	}
	return nil
}

func shortType(typ string) string {
	if i := strings.LastIndexByte(typ, '\\'); i >= 0 {
		return typ[i+1:]
	}
	return typ
}

// propClient is the client a property of cls holds: assigned in the class ($this->p = …),
// declared with a default, or injected by its declared type.
func (c *phpCtx) propClient(cls *phpClass, name string) *phpClient {
	prop, decl := c.p.prop(cls, name)
	for d, k := cls, 0; d != nil && k < 8; d, k = c.p.parentOf(d), k+1 {
		f := d.file
		end := int(f.tok(d.open).match)
		for j := d.open; j+3 < end; j++ {
			if f.tok(j).kind == phpVar && f.tok(j).text == "this" && f.is(j+1, phpOp, "->") && f.is(j+2, phpIdent, name) && f.is(j+3, phpOp, "=") {
				sub := &phpCtx{p: c.p, f: f, fn: f.funcAt(j), depth: c.depth + 1, origin: OriginClient}
				if cl := sub.expr(phpRange{f: f, s: j + 4, e: f.stmtEnd(j + 4)}); cl != nil {
					return cl
				}
			}
		}
	}
	if prop == nil {
		return nil
	}
	if prop.def >= 0 {
		sub := &phpCtx{p: c.p, f: decl.file, depth: c.depth + 1, origin: OriginClient}
		return sub.expr(phpRange{f: decl.file, s: prop.def, e: decl.file.exprEnd(prop.def)})
	}
	if prop.promoted {
		return c.containerClient(prop.typ, decl, true)
	}
	return c.typeClient(prop.typ)
}

// methodReturn is the client a method of cls returns (a wrapper: `protected function client():
// PendingRequest { return Http::timeout(10)->…; }`).
func (c *phpCtx) methodReturn(cls *phpClass, name string) *phpClient {
	m := c.p.method(cls, name)
	if m == nil || m.open < 0 || c.depth >= maxPHPDepth {
		return nil
	}
	ret := m.file.firstReturn(m.open+1, m.close)
	if ret.e <= ret.s {
		return nil
	}
	sub := &phpCtx{p: c.p, f: m.file, fn: m, depth: c.depth + 1, origin: OriginClient}
	return sub.expr(ret)
}

// handler reads Guzzle's 'handler' option: a stream handler (which reads read_timeout) and
// Middleware::retry pushed on the stack in the same function.
func (c *phpCtx) handler(cl *phpClient, v phpRange) {
	f := v.f
	lo, hi := 0, len(f.toks)
	if c.fn != nil {
		lo, hi = c.fn.open, c.fn.close
	}
	for k := lo; k < hi; k++ {
		switch {
		case f.is(k, phpIdent, "StreamHandler") || strings.HasSuffix(f.tok(k).text, "\\StreamHandler"):
			if f.tok(k).kind == phpIdent {
				cl.stream = true
				cl.read = Bound{streamDefaultRead, OriginDefault}
			}
		case shortName(f.fqn(f.tok(k).text)) == "middleware" && f.tok(k).kind == phpIdent && f.is(k+1, phpOp, "::") && f.is(k+2, phpIdent, "retry") && f.is(k+3, phpOpen, "("):
			cl.retry = c.guzzleRetry(f, k+3)
		}
	}
}

// guzzleRetry is Middleware::retry($decider, $delay): its count when the decider compares its
// first parameter with a literal ($retries < 3, $retries >= 3), unresolved otherwise.
func (c *phpCtx) guzzleRetry(f *phpFile, open int) *Retry {
	r := &Retry{Layer: layerGuzzleRetry, File: f.path, Line: int(f.tok(open).line)}
	args := f.args(open)
	if len(args) == 0 {
		r.Unresolved = "Middleware::retry() without a decider"
		return r
	}
	body := c.deciderBody(args[0])
	if n, ok := c.deciderCount(body); ok {
		r.MaxAttempts = n
	} else {
		r.Unresolved = "the decider is code: its count is not a literal comparison of its retries argument"
	}
	if len(args) < 2 {
		// RetryMiddleware::exponentialDelay: 2^(retries-1) s.
		init, mult := int64(1000), 2.0
		r.Backoff = &Backoff{InitialMS: &init, Multiplier: &mult, Jitter: "none"}
	}
	return r
}

// deciderBody is the tokens of a decider: an inline closure, or the method `$this->decider()`
// that returns one.
func (c *phpCtx) deciderBody(a phpRange) phpRange {
	f := a.f
	if f.tok(a.s).kind == phpVar && f.tok(a.s).text == "this" && a.e-a.s >= 4 && f.is(a.s+1, phpOp, "->") && c.fn != nil && c.fn.class != nil {
		if m := c.p.method(c.fn.class, f.tok(a.s+2).text); m != nil && m.open >= 0 {
			return phpRange{f: m.file, s: m.open, e: m.close}
		}
	}
	if f.tok(a.s).kind == phpVar && a.e-a.s == 1 {
		if rhs, ok := c.assigned(f, f.tok(a.s).text, a.s); ok {
			return rhs
		}
	}
	return a
}

// deciderCount reads `$retries < N` (N retries: N+1 attempts) and its kin in a decider's body.
func (c *phpCtx) deciderCount(r phpRange) (int, bool) {
	f := r.f
	count := ""
	for k := r.s; k < r.e; k++ {
		if (f.kw(k, "function") || f.kw(k, "fn")) && f.is(k+1, phpOpen, "(") && f.tok(k+2).kind == phpVar {
			count = f.tok(k + 2).text
			break
		}
		if (f.kw(k, "function") || f.kw(k, "fn")) && f.is(k+1, phpOpen, "(") && k+3 < r.e && f.tok(k+3).kind == phpVar {
			count = f.tok(k + 3).text // a typed parameter: function (int $retries, …)
			break
		}
	}
	if count == "" {
		return 0, false
	}
	extra := map[string]int{"<": 1, ">=": 1, ">": 2, "<=": 2}
	for k := r.s; k+2 < r.e; k++ {
		if f.tok(k).kind != phpVar || f.tok(k).text != count || f.tok(k+1).kind != phpOp {
			continue
		}
		add, ok := extra[f.tok(k+1).text]
		if !ok {
			continue
		}
		end := k + 3
		if f.is(k+3, phpOp, "::") {
			end = k + 5
		}
		if n, ok := c.number(phpRange{f: f, s: k + 2, e: end}); ok {
			return int(n) + add, true
		}
	}
	return 0, false
}

// call is the call site of the verb v on a client.
func (c *phpCtx) call(cl *phpClient, v phpVerb) Call {
	f := c.f
	t := f.tok(v.at)
	args := f.args(v.open)
	call := Call{File: f.path, Line: int(t.line), Col: int(t.col), Language: langPHP, Library: cl.lib, Method: v.method, IdempotencyKey: cl.key, Retry: cl.retry}
	urlAt, optsAt, sent := c.layout(cl, v, args, &call)
	if optsAt >= 0 && optsAt < len(args) {
		// Request options override the client's; Guzzle merges the headers.
		before := cl.key
		c.options(cl, args[optsAt])
		if before != nil && *before {
			cl.key = before
		}
		call.IdempotencyKey = cl.key
		if sent {
			call.IdempotencyKey = nil
		}
	}
	if urlAt >= 0 && urlAt < len(args) {
		u := args[urlAt]
		switch h := c.host(u); {
		case h != "":
			call.Host = h
		case f.tok(u.s).kind == phpString && !strings.Contains(f.tok(u.s).text, "://"):
			call.Host = cl.host
		}
	} else if urlAt >= 0 {
		call.Host = cl.host
	}
	call.set(cl.connect, cl.read, cl.total)
	call.Notes = cl.notes
	return call
}

// layout is where the verb's arguments put the URL and the options (-1: nowhere) and the
// method when an argument gives it; sent is Guzzle's send()/sendRequest() of a request object
// built elsewhere (its headers unseen).
func (c *phpCtx) layout(cl *phpClient, v phpVerb, args []phpRange, call *Call) (urlAt, optsAt int, sent bool) {
	f := c.f
	urlAt, optsAt = 0, 1
	name := strings.ToLower(f.tok(v.at).text)
	switch {
	case v.dynamic:
		cl.notes = append(cl.notes, "the request method is a variable ("+f.text(phpRange{f: f, s: v.at, e: v.open})+"): unknown, so whether a retry repeats a write is not judged")
	case (name == "send" || name == "sendrequest") && cl.lib == libGuzzle:
		urlAt, sent = -1, true
		if len(args) > 0 && f.kw(args[0].s, "new") && f.is(args[0].s+2, phpOpen, "(") {
			// sendRequest(new Request('GET', $url)): the method and URL as written.
			if ra := f.args(args[0].s + 2); len(ra) > 1 && f.tok(ra[0].s).kind == phpString {
				call.Method = strings.ToUpper(f.tok(ra[0].s).text)
				call.Host = c.host(ra[1])
			}
		}
		cl.key, call.IdempotencyKey = nil, nil
		cl.notes = append(cl.notes, name+"() sends a request object built elsewhere: its headers are not read")
	case v.method == "":
		urlAt, optsAt = 1, 2
		if len(args) > 0 && f.tok(args[0].s).kind == phpString && args[0].e-args[0].s == 1 {
			call.Method = strings.ToUpper(f.tok(args[0].s).text)
		}
	}
	if cl.lib == libLaravel && urlAt == 0 {
		optsAt = -1 // Laravel's get/post (and a dynamic verb) take data, not options
	}
	return urlAt, optsAt, sent
}

// contexts gives each call the queue job that runs it (a retry layer of its own) and marks
// calls made for an interactive request: a job's handle() reaches the call directly or
// through the package's methods it calls ($this->m(), a typed property's or parameter's
// method, an interface's implementation in the package).
func (p *phpPkg) contexts(sites []phpSite) {
	jobOf := map[*phpFunc]*phpClass{}
	controller := map[*phpFunc]bool{}
	for _, cls := range p.sortedClasses() {
		switch {
		case p.isJob(cls):
			for fn := range p.reach(cls, []string{"handle", "__invoke"}) {
				if jobOf[fn] == nil {
					jobOf[fn] = cls
				}
			}
		case p.isController(cls):
			var all []string
			for _, m := range cls.methods {
				all = append(all, m.name)
			}
			for fn := range p.reach(cls, all) {
				controller[fn] = true
			}
		}
	}
	for i := range sites {
		s := &sites[i]
		if job := jobOf[s.fn]; job != nil {
			layer, notes := p.jobLayer(job)
			s.call.Context = "job"
			s.call.Notes = append(s.call.Notes, notes...)
			if s.call.Retry != nil {
				s.call.Layers = []Retry{layer, *s.call.Retry}
			} else {
				s.call.Retry = &layer
			}
			continue
		}
		if controller[s.fn] {
			s.call.Context = "request"
		}
	}
}

// sortedClasses are the package's classes by file and position (a stable order).
func (p *phpPkg) sortedClasses() []*phpClass {
	var out []*phpClass
	for _, f := range p.files {
		for _, cls := range p.classes {
			if cls.file == f {
				out = append(out, cls)
			}
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].file == out[j-1].file && out[j].open < out[j-1].open; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// isJob says whether a class is a queue job: it implements ShouldQueue or uses Queueable.
func (p *phpPkg) isJob(cls *phpClass) bool {
	if cls.iface {
		return false
	}
	for _, i := range cls.implements {
		if shortName(i) == "shouldqueue" {
			return true
		}
	}
	for _, t := range cls.traits {
		if n := shortName(t); n == "queueable" || n == "dispatchable" {
			return true
		}
	}
	return false
}

// isController says whether a class serves interactive requests: it extends Controller or
// lives under app/Http/Controllers/.
func (p *phpPkg) isController(cls *phpClass) bool {
	return shortName(cls.extends) == "controller" || strings.Contains(strings.ReplaceAll(cls.file.path, "\\", "/"), "/Http/Controllers/")
}

// reach is every function of the package the named methods of cls call, themselves included,
// a few calls deep.
func (p *phpPkg) reach(cls *phpClass, names []string) map[*phpFunc]bool {
	seen := map[*phpFunc]bool{}
	var queue []*phpFunc
	for _, n := range names {
		if m := p.method(cls, n); m != nil && m.open >= 0 && !seen[m] {
			seen[m] = true
			queue = append(queue, m)
		}
	}
	for depth := 0; depth < 5 && len(queue) > 0; depth++ {
		var next []*phpFunc
		for _, fn := range queue {
			for _, callee := range p.callees(fn) {
				if !seen[callee] {
					seen[callee] = true
					next = append(next, callee)
				}
			}
		}
		queue = next
	}
	return seen
}

// callees are the package's functions fn calls: $this->m(), self::m(), $this->prop->m() and
// $param->m() through the declared type (an interface: each implementation in the package).
func (p *phpPkg) callees(fn *phpFunc) []*phpFunc {
	var out []*phpFunc
	for k := fn.open + 1; k+3 < fn.close; k++ {
		for _, m := range p.calleesAt(fn, k) {
			if m != nil && m.open >= 0 {
				out = append(out, m)
			}
		}
	}
	return out
}

// calleesAt are the functions a call starting at toks[k] of fn may run.
func (p *phpPkg) calleesAt(fn *phpFunc, k int) []*phpFunc {
	f := fn.file
	this := f.tok(k).kind == phpVar && f.tok(k).text == "this"
	arrow := f.is(k+1, phpOp, "->") || f.is(k+1, phpOp, "?->")
	method := f.tok(k+2).kind == phpIdent && f.is(k+3, phpOpen, "(")
	switch {
	case this && arrow && method, (f.kw(k, "self") || f.kw(k, "static")) && f.is(k+1, phpOp, "::") && method:
		return []*phpFunc{p.method(fn.class, f.tok(k+2).text)}
	case this && arrow && f.tok(k+2).kind == phpIdent && f.is(k+3, phpOp, "->") && f.tok(k+4).kind == phpIdent && f.is(k+5, phpOpen, "(") && fn.class != nil:
		if prop, _ := p.prop(fn.class, f.tok(k+2).text); prop != nil {
			return p.implsOf(prop.typ, f.tok(k+4).text)
		}
	case f.tok(k).kind == phpVar && !this && arrow && method:
		ctx := &phpCtx{p: p, f: f, fn: fn}
		return p.implsOf(ctx.typeOf(f, f.tok(k).text, k), f.tok(k+2).text)
	}
	return nil
}

// implsOf are the methods name of a type: the class's own, or each implementation's when it
// is an interface of the package.
func (p *phpPkg) implsOf(typ, name string) []*phpFunc {
	if typ == "" {
		return nil
	}
	cls := p.classes[shortName(typ)]
	if cls == nil {
		return nil
	}
	if !cls.iface {
		return []*phpFunc{p.method(cls, name)}
	}
	var out []*phpFunc
	for _, impl := range p.impls[shortName(typ)] {
		out = append(out, p.method(impl, name))
	}
	return out
}

// jobLayer is a queue job as a retry layer: $tries (or tries()), $backoff (or backoff()),
// $timeout and retryUntil(), read where they are literal.
func (p *phpPkg) jobLayer(job *phpClass) (Retry, []string) {
	f := job.file
	r := Retry{Layer: layerJob, File: f.path, Line: int(f.tok(job.open).line)}
	ctx := &phpCtx{p: p, f: f}
	var notes []string
	val := func(name string) (phpRange, int, bool) {
		if prop, decl := p.prop(job, name); prop != nil && prop.def >= 0 {
			return phpRange{f: decl.file, s: prop.def, e: decl.file.exprEnd(prop.def)}, prop.line, true
		}
		if m := p.method(job, name); m != nil && m.open >= 0 {
			ret := m.file.firstReturn(m.open+1, m.close)
			return ret, int(m.file.tok(m.open).line), ret.e > ret.s
		}
		return phpRange{}, 0, false
	}
	if v, line, ok := val("tries"); ok {
		r.Line = line
		n, lit := ctx.number(v)
		switch {
		case lit && n >= 1:
			r.MaxAttempts = int(n)
		case lit:
			r.Unresolved = "$tries = 0: the job is retried without limit"
		default:
			r.Unresolved = "$tries is computed: " + v.f.text(v)
		}
	} else {
		r.Unresolved = "the job sets no $tries: the worker's --tries decides (php artisan queue:work --tries=N; default 1)"
	}
	if v, line, ok := val("maxExceptions"); ok && r.MaxAttempts > 0 {
		// Exceptions beyond $maxExceptions fail the job before $tries is spent (a release()
		// is no exception): a call that fails by throwing is attempted the smaller number.
		if n, lit := ctx.number(v); lit && n >= 1 && int(n) < r.MaxAttempts {
			r.MaxAttempts = int(n)
			notes = append(notes, fmt.Sprintf("%s:%d: $maxExceptions = %d caps the job's attempts on a failure that throws", v.f.path, line, int(n)))
		}
	}
	if m := p.method(job, "retryUntil"); m != nil && m.open >= 0 {
		r.MaxAttempts = 0
		r.Unresolved = "retryUntil() bounds the job's attempts by time, not by $tries: the worker retries it until then (Illuminate/Queue/Worker.php)"
		r.DeadlineMS = deadline(m)
	}
	if v, _, ok := val("timeout"); ok {
		if n, lit := ctx.number(v); lit && n > 0 {
			ms := int64(n * 1000)
			r.TimeoutMS = &ms
		}
	}
	var more []string
	r.Backoff, more = p.jobBackoff(job, ctx, val)
	return r, append(notes, more...)
}

// jobBackoff reads $backoff (seconds: one or a list) or the list backoff() returns.
func (p *phpPkg) jobBackoff(job *phpClass, ctx *phpCtx, val func(string) (phpRange, int, bool)) (*Backoff, []string) {
	if m := p.method(job, "backoff"); m != nil && m.open >= 0 {
		f := m.file
		var notes []string
		jitter, factor := "", (*float64)(nil)
		for k := m.open; k < m.close; k++ {
			if f.kw(k, "random_int") || f.kw(k, "rand") || f.kw(k, "mt_rand") {
				notes = append(notes, fmt.Sprintf("%s:%d: backoff() adds %s(): each job's waits are spread (jitter)", f.path, f.tok(k).line, f.tok(k).text))
				jitter, factor = "proportional", randomShare(f, k, m.close)
				break
			}
		}
		for k := m.open; k < m.close; k++ {
			if f.is(k, phpOpen, "[") {
				if s := ctx.numbers(phpRange{f: f, s: k, e: int(f.tok(k).match) + 1}); len(s) > 0 {
					return &Backoff{ScheduleMS: secondsToMS(s), Jitter: jitter, JitterFactor: factor}, notes
				}
			}
		}
		return nil, notes
	}
	v, _, ok := val("backoff")
	if !ok {
		return nil, nil
	}
	if s := ctx.numbers(v); len(s) > 0 {
		return &Backoff{ScheduleMS: secondsToMS(s)}, nil
	}
	if n, lit := ctx.number(v); lit {
		return &Backoff{ScheduleMS: []int64{int64(n * 1000)}}, nil
	}
	return nil, nil
}

func secondsToMS(s []int64) []int64 {
	out := make([]int64, len(s))
	for i, v := range s {
		out[i] = v * 1000
	}
	return out
}

// deadline is retryUntil()'s interval when it returns now()->addMinutes(N) and its kin.
func deadline(m *phpFunc) *int64 {
	f := m.file
	units := map[string]time.Duration{"addseconds": time.Second, "addsecond": time.Second, "addminutes": time.Minute, "addminute": time.Minute, "addhours": time.Hour, "addhour": time.Hour, "adddays": 24 * time.Hour, "addday": 24 * time.Hour}
	for k := m.open; k+1 < m.close; k++ {
		u, ok := units[strings.ToLower(f.tok(k).text)]
		if !ok || f.tok(k).kind != phpIdent || !f.is(k+1, phpOpen, "(") {
			continue
		}
		n := 1.0
		if c := int(f.tok(k + 1).match); c == k+3 && f.tok(k+2).kind == phpNumber {
			fmt.Sscan(strings.ReplaceAll(f.tok(k+2).text, "_", ""), &n)
		} else if c != k+2 {
			return nil
		}
		ms := int64(n * float64(u/time.Millisecond))
		return &ms
	}
	return nil
}

// randomShare is f in a backoff() that adds random_int(0, intdiv($s, N)) or random_int(0,
// $s / N) to each wait $s (the seeds' jitter: N = 4, f = 0.25), reading the tokens from the
// random call at k up to end; nil when the code spreads the waits some other way.
func randomShare(f *phpFile, k, end int) *float64 {
	for i := k; i < end && i < k+16; i++ {
		if (f.kw(i, "intdiv") || f.is(i, phpOp, "/")) && i+1 < end {
			for j := i + 1; j < end && j < i+6; j++ {
				if t := f.tok(j); t.kind == phpNumber {
					if n, err := strconv.ParseFloat(t.text, 64); err == nil && n > 0 {
						v := 1 / n
						return &v
					}
				}
			}
		}
	}
	return nil
}
