package source

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The PHP reader proper: every `->VERB(` and `::VERB(` whose receiver resolves to a Guzzle
// client or a Laravel pending request is a call site; the receiver is read backwards as a
// chain (Http::timeout(5)->retry(3, 100)->post, $this->client->request, $client->get) whose
// head is a facade, a `new Client([...])`, a variable assigned in the same function, a
// property (assigned in the class, declared with a default, or injected by type), a method of
// the class returning a client, or an Http::macro. What cannot be followed is no call, or an
// unresolved value: never a guess.

// phpVerbs are the request methods of both libraries, with the method each sends ("" = its
// first argument's). Guzzle's magic methods accept the …Async forms too.
var phpVerbs = map[string]string{
	"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE", "head": "HEAD",
	"request": "", "send": "", "sendrequest": "",
	"getasync": "GET", "postasync": "POST", "putasync": "PUT", "patchasync": "PATCH", "deleteasync": "DELETE", "headasync": "HEAD", "requestasync": "",
}

// Class names the reader follows.
const (
	fqnGuzzle       = "GuzzleHttp\\Client"
	fqnGuzzleIface  = "GuzzleHttp\\ClientInterface"
	fqnHTTPFacade   = "Illuminate\\Support\\Facades\\Http"
	fqnFactory      = "Illuminate\\Http\\Client\\Factory"
	fqnPending      = "Illuminate\\Http\\Client\\PendingRequest"
	fqnPool         = "Illuminate\\Http\\Client\\Pool"
	maxPHPDepth     = 24
	phpSecondsLarge = 1000
)

// phpClient is what a receiver resolves to: a Guzzle client or a Laravel pending request,
// with its bounds so far.
type phpClient struct {
	lib                  string
	connect, read, total Bound
	retry                *Retry
	key                  *bool
	host                 string
	stream               bool
	notes                []string
}

// phpCtx is where an expression is read: its file, function and how deep the reader followed.
type phpCtx struct {
	p      *phpPkg
	f      *phpFile
	fn     *phpFunc
	depth  int
	origin Origin
}

// readPHP tokenises and indexes one package's files and returns their calls by position.
func readPHP(files []Input) ([]Call, error) {
	var parsed []*phpFile
	for _, in := range files {
		toks, err := lexPHP(in.Path, in.Data)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, &phpFile{path: in.Path, toks: toks})
	}
	p := newPHPPkg(parsed)
	var sites []phpSite
	for _, f := range parsed {
		sites = append(sites, p.callsIn(f)...)
	}
	p.contexts(sites)
	calls := make([]Call, len(sites))
	for i := range sites {
		calls[i] = sites[i].call
	}
	sortCalls(calls)
	return calls, nil
}

// phpSite is a call and the function it is made in (the job and controller layers follow it).
type phpSite struct {
	call Call
	fn   *phpFunc
}

// callsIn are the call sites of one file.
func (p *phpPkg) callsIn(f *phpFile) []phpSite {
	var out []phpSite
	for i := 1; i+2 < len(f.toks); i++ {
		v, ok := f.verbAt(i)
		if !ok {
			continue
		}
		ctx := &phpCtx{p: p, f: f, fn: f.funcAt(i), origin: OriginExplicit}
		cl := ctx.receiver(0, i)
		if cl == nil {
			continue
		}
		out = append(out, phpSite{call: ctx.call(cl, v), fn: ctx.fn})
	}
	return out
}

// phpVerb is a request method called at an operator: the token naming it, its argument list's
// open parenthesis and the method it sends ("" = its first argument's, as request()).
// dynamic is a method named by a variable (`->{$method}(…)`, `->$verb(…)`): unknown, and
// its arguments are a verb's (URL, then data or options).
type phpVerb struct {
	at, open int
	method   string
	dynamic  bool
}

// verbAt is the verb called after the operator toks[i] (-> ?-> ::), ok false when none.
func (f *phpFile) verbAt(i int) (phpVerb, bool) {
	arrow := f.is(i, phpOp, "->") || f.is(i, phpOp, "?->")
	if !arrow && !f.is(i, phpOp, "::") {
		return phpVerb{}, false
	}
	switch t := f.tok(i + 1); {
	case t.kind == phpIdent && f.is(i+2, phpOpen, "("):
		m, ok := phpVerbs[strings.ToLower(t.text)]
		return phpVerb{at: i + 1, open: i + 2, method: m}, ok
	case !arrow:
	case t.kind == phpVar && f.is(i+2, phpOpen, "("):
		return phpVerb{at: i + 1, open: i + 2, dynamic: true}, true
	case f.is(i+1, phpOpen, "{") && f.is(int(t.match)+1, phpOpen, "("):
		return phpVerb{at: i + 1, open: int(t.match) + 1, dynamic: true}, true
	}
	return phpVerb{}, false
}

// phpSeg is one link of a chain: a method call (args at the open parenthesis) or a property.
type phpSeg struct {
	name string
	open int // -1 for a property
}

// receiver resolves the expression that ends just before toks[end] (exclusive), starting no
// earlier than start, to a client; nil when it is none the reader follows.
func (c *phpCtx) receiver(start, end int) *phpClient {
	if c.depth > maxPHPDepth {
		return nil
	}
	f := c.f
	var segs []phpSeg
	k := end // k is the operator before the next link
	for {
		prev := k - 1
		if prev < start {
			return nil
		}
		if f.is(k, phpOp, "::") {
			return c.static(prev, reverse(segs))
		}
		t := f.tok(prev)
		switch {
		case t.kind == phpClose && t.text == ")":
			o := int(t.match)
			if f.tok(o-1+0).kind == phpOpen {
				return nil
			}
			if o-1 >= start && f.tok(o-1).kind == phpIdent && o-2 >= start && (f.is(o-2, phpOp, "->") || f.is(o-2, phpOp, "?->") || f.is(o-2, phpOp, "::")) {
				segs = append(segs, phpSeg{name: f.tok(o - 1).text, open: o})
				k = o - 2
				continue
			}
			if o-2 >= start && f.tok(o-1).kind == phpIdent && f.kw(o-2, "new") {
				return c.apply(c.newClient(o-1, o), reverse(segs))
			}
			if f.kw(o+1, "new") && o+2 < len(f.toks) && f.tok(o+2).kind == phpIdent {
				cl := c.newClient(o+2, o+3)
				return c.apply(cl, reverse(segs))
			}
			return nil
		case t.kind == phpIdent && (f.is(prev-1, phpOp, "->") || f.is(prev-1, phpOp, "?->")) && prev-1 >= start:
			segs = append(segs, phpSeg{name: t.text, open: -1})
			k = prev - 1
		case t.kind == phpVar && !f.is(prev-1, phpOp, "->") && !f.is(prev-1, phpOp, "?->"):
			// (after -> it is a dynamic property, $a->$name: no chain the reader follows)
			return c.fromVar(prev, reverse(segs))
		default:
			return nil
		}
	}
}

func reverse(s []phpSeg) []phpSeg {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
	return s
}

// static resolves CLASS::first(…)->rest: the Http facade (and its macros), or self::/static::
// methods of the class.
func (c *phpCtx) static(i int, segs []phpSeg) *phpClient {
	f := c.f
	if i < 0 || f.tok(i).kind != phpIdent {
		return nil
	}
	name := f.tok(i).text
	switch strings.ToLower(name) {
	case "self", "static":
		if c.fn == nil || c.fn.class == nil || len(segs) == 0 {
			return nil
		}
		return c.apply(c.methodReturn(c.fn.class, segs[0].name), segs[1:])
	}
	full := f.fqn(name)
	if full != fqnHTTPFacade && !(strings.EqualFold(full, "Http") && f.uses["http"] == "") {
		return nil
	}
	if len(segs) == 0 {
		return c.laravelBase()
	}
	if m, ok := c.p.macros[strings.ToLower(segs[0].name)]; ok {
		return c.apply(c.macro(m), segs[1:])
	}
	return c.apply(c.laravelBase(), segs)
}

// laravelBase is a fresh pending request: Laravel's defaults, or the package's
// Http::globalOptions.
func (c *phpCtx) laravelBase() *phpClient {
	cl := &phpClient{lib: libLaravel, connect: Bound{laravelDefaultConnect, OriginDefault}, read: Bound{Origin: OriginNone}, total: Bound{laravelDefaultTotal, OriginDefault}, key: new(bool)}
	if g := c.p.global; g != nil {
		sub := &phpCtx{p: c.p, f: g.f, fn: g.f.funcAt(g.s), depth: c.depth + 1, origin: OriginClient}
		sub.options(cl, *g)
	}
	return cl
}

// macro is the client an Http::macro's function returns.
func (c *phpCtx) macro(r phpRange) *phpClient {
	sub := &phpCtx{p: c.p, f: r.f, fn: r.f.funcAt(r.s), depth: c.depth + 1, origin: OriginClient}
	if ret := r.f.firstReturn(r.s, r.e); ret.e > ret.s {
		return sub.expr(ret)
	}
	return nil
}

// firstReturn is the expression of the first `return …;` in [s, e), or of an arrow
// function's `fn () => …`.
func (f *phpFile) firstReturn(s, e int) phpRange {
	for k := s; k < e; k++ {
		if f.kw(k, "return") || (f.is(k, phpOp, "=>") && f.is(k-1, phpClose, ")") && f.kw(int(f.tok(k-1).match)-1, "fn")) {
			end := k + 1
			for end < e && !f.is(end, phpOp, ";") && f.tok(end).kind != phpClose {
				if f.tok(end).kind == phpOpen {
					end = int(f.tok(end).match)
				}
				end++
			}
			return phpRange{f: f, s: k + 1, e: end}
		}
	}
	return phpRange{f: f}
}

// expr resolves a whole expression (an assignment's right side, a return) to a client.
func (c *phpCtx) expr(r phpRange) *phpClient {
	f := r.f
	if r.e <= r.s {
		return nil
	}
	if f.kw(r.s, "new") && r.s+1 < r.e && f.tok(r.s+1).kind == phpIdent {
		if r.s+2 >= r.e {
			return c.newClient(r.s+1, -1)
		}
		if f.is(r.s+2, phpOpen, "(") && int(f.tok(r.s+2).match) == r.e-1 {
			return c.newClient(r.s+1, r.s+2)
		}
	}
	sub := *c
	sub.f = f
	sub.depth++
	if q, colon := f.ternary(r); q > 0 {
		// COND ? A : B — one client when both branches give the same bounds.
		return mergeClients(sub.expr(phpRange{f: f, s: q + 1, e: colon}), sub.expr(phpRange{f: f, s: colon + 1, e: r.e}))
	}
	// A chain: read it backwards from its end, as if a verb followed.
	return sub.receiver(r.s, r.e)
}

// ternary is the ? and : of a top-level COND ? A : B in r, (0, 0) when there is none.
func (f *phpFile) ternary(r phpRange) (int, int) {
	q := 0
	for k := r.s; k < r.e; k++ {
		switch {
		case f.tok(k).kind == phpOpen:
			k = int(f.tok(k).match)
		case f.is(k, phpOp, "?") && q == 0:
			q = k
		case f.is(k, phpOp, ":") && q > 0:
			return q, k
		}
	}
	return 0, 0
}

// mergeClients is one client for two a value may be: a bound both agree on, unresolved where
// they differ; nil unless both are clients of one library.
func mergeClients(a, b *phpClient) *phpClient {
	if a == nil || b == nil || a.lib != b.lib {
		return nil
	}
	m := *a
	same := func(x, y Bound) Bound {
		if x == y {
			return x
		}
		return unresolvedBound
	}
	m.connect, m.read, m.total = same(a.connect, b.connect), same(a.read, b.read), same(a.total, b.total)
	if a.key == nil || b.key == nil || *a.key != *b.key {
		m.key = nil
	}
	if a.retry == nil || b.retry == nil || a.retry.MaxAttempts != b.retry.MaxAttempts {
		if a.retry != nil || b.retry != nil {
			m.retry = &Retry{Layer: a.lib, Unresolved: "the client is one of two (COND ? A : B) that retry differently"}
		}
	}
	m.notes = append(append([]string(nil), a.notes...), b.notes...)
	return &m
}

// guzzleDefaults is `new Client()`: no total or read bound, libcurl's connect default.
func guzzleDefaults() *phpClient {
	return &phpClient{lib: libGuzzle, connect: Bound{curlDefaultConnect, OriginDefault}, read: Bound{Origin: OriginNone}, total: Bound{Origin: OriginNone}, key: new(bool)}
}

// newClient is `new NAME(args)` when NAME is Guzzle's Client.
func (c *phpCtx) newClient(name, open int) *phpClient {
	f := c.f
	full := f.fqn(f.tok(name).text)
	if full != fqnGuzzle {
		return nil
	}
	cl := guzzleDefaults()
	if open < 0 {
		return cl
	}
	args := f.args(open)
	if len(args) == 0 {
		return cl
	}
	c.options(cl, args[0])
	return cl
}

// apply follows a chain's links on a client: Laravel's builder methods; a verb in the middle
// means the chain holds a response, not a client.
func (c *phpCtx) apply(cl *phpClient, segs []phpSeg) *phpClient {
	for _, s := range segs {
		if cl == nil {
			return nil
		}
		if _, verb := phpVerbs[strings.ToLower(s.name)]; verb || s.open < 0 || cl.lib != libLaravel {
			return nil
		}
		c.laravelLink(cl, s)
	}
	return cl
}

// laravelLink applies one PendingRequest method.
func (c *phpCtx) laravelLink(cl *phpClient, s phpSeg) {
	f := c.f
	args := f.args(s.open)
	switch strings.ToLower(s.name) {
	case "timeout":
		if len(args) > 0 {
			cl.total = c.seconds(cl, args[0], "timeout()")
		}
	case "connecttimeout":
		if len(args) > 0 {
			cl.connect = c.seconds(cl, args[0], "connectTimeout()")
		}
	case "retry":
		cl.retry = c.laravelRetry(args, s.open)
	case "withoptions":
		if len(args) > 0 {
			c.options(cl, args[0])
		}
	case "withheaders":
		if len(args) > 0 {
			cl.key = c.headerKey(args[0])
		}
	case "withheader":
		if len(args) > 0 && f.tok(args[0].s).kind == phpString && strings.EqualFold(f.tok(args[0].s).text, "Idempotency-Key") {
			cl.key = ptrTrue()
		}
	case "baseurl":
		if len(args) > 0 {
			cl.host = c.host(args[0])
		}
	}
}

func ptrTrue() *bool { b := true; return &b }

// laravelRetry is ->retry($times, $sleepMilliseconds, $when, $throw): $times counts attempts
// (an array is a schedule of count+1 attempts), without $when every failure is retried.
func (c *phpCtx) laravelRetry(args []phpRange, open int) *Retry {
	f := c.f
	r := &Retry{Layer: libLaravel, File: f.path, Line: int(f.tok(open).line), On: laravelRetryOn}
	times, ok := f.named(args, 0, "times")
	switch {
	case !ok:
		r.Unresolved = "retry() without a count"
	case f.is(times.s, phpOpen, "["):
		sched := c.numbers(times)
		if sched == nil {
			r.Unresolved = "retry()'s schedule is computed"
			break
		}
		r.MaxAttempts = len(sched) + 1
		r.Backoff = &Backoff{ScheduleMS: sched}
	default:
		if n, ok := c.number(times); ok && n >= 1 {
			r.MaxAttempts = int(n)
		} else {
			r.Unresolved = "retry()'s count is computed at run time: " + f.text(times)
		}
	}
	if sleep, ok := f.named(args, 1, "sleepMilliseconds"); ok && r.Backoff == nil {
		if n, ok := c.number(sleep); ok {
			r.Backoff = &Backoff{ScheduleMS: []int64{int64(n)}}
		}
	}
	if _, ok := f.named(args, 2, "when"); ok {
		r.On = nil
	}
	return r
}

// options reads a Guzzle options array (Client constructor, request options, withOptions,
// globalOptions) into cl.
func (c *phpCtx) options(cl *phpClient, r phpRange) {
	f := r.f
	entries, ok := f.array(r)
	if !ok {
		if v := c.arrayVar(r); v != nil {
			entries, ok = f.array(*v)
		}
	}
	if !ok {
		cl.connect, cl.read, cl.total = unresolvedBound, unresolvedBound, unresolvedBound
		cl.key = nil
		cl.notes = append(cl.notes, "the options are computed ("+f.text(r)+"): their timeouts are not read")
		return
	}
	if h, ok := entries["handler"]; ok {
		c.handler(cl, h)
	}
	keys := make([]string, 0, len(entries))
	for key := range entries {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		v := entries[key]
		switch key {
		case "timeout":
			cl.total = c.seconds(cl, v, "'timeout'")
		case "connect_timeout":
			cl.connect = c.seconds(cl, v, "'connect_timeout'")
		case "read_timeout":
			c.readTimeout(cl, v)
		case "headers":
			cl.key = c.headerKey(v)
			if sub, ok := f.array(v); ok {
				if _, bad := sub["timeout"]; bad {
					cl.notes = append(cl.notes, fmt.Sprintf("%s:%d: 'timeout' is inside 'headers': it is sent as a header and bounds nothing", f.path, f.tok(v.s).line))
				}
			}
		case "defaults":
			if sub, ok := f.array(v); ok {
				if _, bad := sub["timeout"]; bad {
					cl.notes = append(cl.notes, fmt.Sprintf("%s:%d: 'timeout' is inside 'defaults' (Guzzle 5's shape): Guzzle 6 and later ignore it, so it bounds nothing", f.path, f.tok(v.s).line))
				}
			}
		case "base_uri":
			cl.host = c.host(v)
		case "curl":
			cl.key = nil // CURLOPT_HTTPHEADER may carry any header
		}
	}
}

// readTimeout applies 'read_timeout': the stream handler reads it, curl does not.
func (c *phpCtx) readTimeout(cl *phpClient, v phpRange) {
	b := c.seconds(cl, v, "'read_timeout'")
	if cl.stream {
		cl.read = b
		return
	}
	cl.notes = append(cl.notes, "'read_timeout' is read by Guzzle's stream handler only: under the curl handler (the default where ext-curl is loaded) it bounds nothing")
}

// seconds reads a timeout in seconds (0 = none, as Guzzle and Laravel read it); a value of a
// thousand or more gets a note: milliseconds given to a seconds parameter.
func (c *phpCtx) seconds(cl *phpClient, v phpRange, what string) Bound {
	n, ok := c.number(v)
	if !ok {
		cl.notes = append(cl.notes, fmt.Sprintf("%s is computed at run time (%s): not read", what, v.f.text(v)))
		return unresolvedBound
	}
	if n <= 0 {
		return Bound{Origin: OriginNone}
	}
	if n >= phpSecondsLarge {
		cl.notes = append(cl.notes, fmt.Sprintf("%s %s is read in seconds, as the library reads it (%s s): milliseconds were probably meant", what, v.f.text(v), v.f.text(v)))
	}
	return Bound{time.Duration(n * float64(time.Second)), c.origin}
}

// number is a numeric expression's value: a literal, a class constant, or a product of them.
func (c *phpCtx) number(r phpRange) (float64, bool) {
	f := r.f
	if r.e-r.s == 1 && f.tok(r.s).kind == phpNumber {
		v, err := strconv.ParseFloat(strings.ReplaceAll(f.tok(r.s).text, "_", ""), 64)
		return v, err == nil
	}
	if r.e-r.s == 3 && f.is(r.s+1, phpOp, "::") && f.tok(r.s+2).kind == phpIdent && c.depth < maxPHPDepth {
		cls := c.classNamed(f, f.tok(r.s).text)
		if cls != nil {
			if at, ok := cls.consts[strings.ToLower(f.tok(r.s+2).text)]; ok {
				sub := *c
				sub.depth++
				return sub.number(phpRange{f: cls.file, s: at, e: cls.file.exprEnd(at)})
			}
		}
		return 0, false
	}
	for k := r.s; k < r.e; k++ {
		if f.is(k, phpOp, "*") && k > r.s {
			a, ok1 := c.number(phpRange{f: f, s: r.s, e: k})
			b, ok2 := c.number(phpRange{f: f, s: k + 1, e: r.e})
			return a * b, ok1 && ok2
		}
	}
	return 0, false
}

// exprEnd is the index of the , or ; that ends the expression starting at s.
func (f *phpFile) exprEnd(s int) int {
	k := s
	for k < len(f.toks) && !f.is(k, phpOp, ";") && !f.is(k, phpOp, ",") && f.tok(k).kind != phpClose {
		if f.tok(k).kind == phpOpen {
			k = int(f.tok(k).match)
		}
		k++
	}
	return k
}

// classNamed is the class a name stands for in f: self/static/parent or a class of the package.
func (c *phpCtx) classNamed(f *phpFile, name string) *phpClass {
	switch strings.ToLower(name) {
	case "self", "static":
		if c.fn != nil {
			return c.fn.class
		}
		return nil
	case "parent":
		if c.fn != nil {
			return c.p.parentOf(c.fn.class)
		}
		return nil
	}
	return c.p.classes[shortName(f.fqn(name))]
}

// numbers is an array literal of numbers (milliseconds as written), nil when any is not one.
func (c *phpCtx) numbers(r phpRange) []int64 {
	f := r.f
	if !f.is(r.s, phpOpen, "[") {
		return nil
	}
	var out []int64
	for _, a := range f.args(r.s) {
		n, ok := c.number(a)
		if !ok {
			return nil
		}
		out = append(out, int64(n))
	}
	return out
}

// array reads an array literal ([…] or array(…)) into its string keys (Guzzle's
// RequestOptions::TIMEOUT constants read as their keys).
func (f *phpFile) array(r phpRange) (map[string]phpRange, bool) {
	o := r.s
	if f.kw(o, "array") {
		o++
	}
	if !(f.is(o, phpOpen, "[") || (o > r.s && f.is(o, phpOpen, "("))) || int(f.tok(o).match) != r.e-1 {
		return nil, false
	}
	out := map[string]phpRange{}
	for _, a := range f.args(o) {
		arrow := -1
		for k := a.s; k < a.e; k++ {
			if f.is(k, phpOp, "=>") {
				arrow = k
				break
			}
		}
		if arrow < 0 {
			continue
		}
		key := ""
		switch {
		case arrow == a.s+1 && f.tok(a.s).kind == phpString:
			key = strings.ToLower(f.tok(a.s).text)
		case arrow == a.s+3 && f.is(a.s+1, phpOp, "::") && shortName(f.fqn(f.tok(a.s).text)) == "requestoptions":
			key = strings.ToLower(f.tok(a.s + 2).text)
		}
		if key != "" {
			out[key] = phpRange{f: f, s: arrow + 1, e: a.e}
		}
	}
	return out, true
}

// arrayVar is the array literal a variable holds when it is assigned one in the same function.
func (c *phpCtx) arrayVar(r phpRange) *phpRange {
	f := r.f
	if r.e-r.s != 1 || f.tok(r.s).kind != phpVar {
		return nil
	}
	if rhs, ok := c.assigned(f, f.tok(r.s).text, r.s); ok {
		if _, isArr := f.array(rhs); isArr {
			return &rhs
		}
	}
	return nil
}

// assigned is the right side of the last `$name = …;` before toks[before] in the function.
func (c *phpCtx) assigned(f *phpFile, name string, before int) (phpRange, bool) {
	lo := 0
	if c.fn != nil {
		lo = c.fn.open
	}
	for k := before - 1; k > lo; k-- {
		if f.tok(k).kind == phpVar && f.tok(k).text == name && f.is(k+1, phpOp, "=") {
			if end := f.stmtEnd(k + 2); end < before {
				return phpRange{f: f, s: k + 2, e: end}, true
			}
			// $r = $r->withOptions(…): the $r on the right is the one assigned before.
		}
	}
	return phpRange{}, false
}

// stmtEnd is the index of the ; (or the closing bracket) that ends the statement at s.
func (f *phpFile) stmtEnd(s int) int {
	k := s
	for k < len(f.toks) && !f.is(k, phpOp, ";") && f.tok(k).kind != phpClose {
		if f.tok(k).kind == phpOpen {
			k = int(f.tok(k).match)
		}
		k++
	}
	return k
}

// headerKey says whether a headers array sets Idempotency-Key; nil when it is computed.
func (c *phpCtx) headerKey(r phpRange) *bool {
	entries, ok := r.f.array(r)
	if !ok {
		if v := c.arrayVar(r); v != nil {
			entries, ok = r.f.array(*v)
		}
	}
	if !ok {
		return nil
	}
	_, has := entries["idempotency-key"]
	return &has
}

// host is the URL's host when the expression is a literal (or a class constant holding one);
// "" otherwise.
func (c *phpCtx) host(r phpRange) string {
	f := r.f
	for k := r.s + 1; k < r.e; k++ {
		if f.is(k, phpOp, ".") {
			r.e = k // self::API . '/repos': the URL starts with its first operand
			break
		}
		if f.tok(k).kind == phpOpen {
			k = int(f.tok(k).match)
		}
	}
	if r.e-r.s == 3 && f.is(r.s+1, phpOp, "::") {
		if cls := c.classNamed(f, f.tok(r.s).text); cls != nil {
			if at, ok := cls.consts[strings.ToLower(f.tok(r.s+2).text)]; ok && cls.file.tok(at).kind == phpString {
				return urlHost(cls.file.tok(at).text)
			}
		}
		return ""
	}
	if f.tok(r.s).kind != phpString {
		return ""
	}
	return urlHost(f.tok(r.s).text)
}

// urlHost is the host of an absolute http(s) URL as written, "" when it has none or the host
// is interpolated.
func urlHost(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok || !(strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")) {
		return ""
	}
	end := strings.IndexAny(rest, "/:?#{$")
	if end < 0 {
		return rest
	}
	if rest[end] == '{' || rest[end] == '$' {
		return ""
	}
	return rest[:end]
}

// text is a range as written, shortened, for notes.
func (f *phpFile) text(r phpRange) string {
	var b strings.Builder
	for k := r.s; k < r.e && k < len(f.toks); k++ {
		t := f.tok(k)
		if t.kind == phpVar {
			b.WriteString("$")
		}
		if t.kind == phpString {
			b.WriteString("'" + t.text + "'")
		} else {
			b.WriteString(t.text)
		}
		if b.Len() > 60 {
			return b.String()[:60] + "…"
		}
	}
	return b.String()
}
