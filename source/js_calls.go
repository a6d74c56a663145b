package source

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Library defaults, as data (docs/formats.md "Source code (JavaScript and TypeScript)" cites
// each; Language.Libraries says them in words):
//   - undici (Node's fetch): connect 10 s (lib/core/connect.js buildConnector: timeout
//     10e3), headersTimeout and bodyTimeout 300 s (lib/dispatcher/client.js: 300e3); no
//     total.
//   - axios: timeout 0 = none (lib/defaults/index.js), no connect timeout of its own.
//   - got: no timeout; retry limit 2 on idempotent methods (source/core/options.ts).
//   - axios-retry: retries 3, no delay, isNetworkOrIdempotentRequestError (src/index.ts
//     DEFAULT_OPTIONS).
var (
	undiciConnect = 10 * time.Second
	undiciHeaders = 300 * time.Second
	undiciBody    = 300 * time.Second
	gotRetryLimit = 2
	gotMethods    = []string{"GET", "PUT", "HEAD", "DELETE", "OPTIONS", "TRACE"}
	gotOn         = []string{"connect", "timeout", "reset", "408", "413", "429", "500", "502", "503", "504", "521", "522", "524"}
	axiosRetries  = 3
	// axios-retry's isNetworkError retries a request that got no response (not a timeout:
	// ECONNABORTED is excluded) whatever its method; isRetryableError adds 429 and 5xx for
	// GET, HEAD, OPTIONS, PUT and DELETE.
	axiosRetryNetwork    = []string{"connect", "reset"}
	axiosRetryIdempotent = []string{"connect", "reset", "429", "5xx"}
	axiosIdempotent      = map[string]bool{"GET": true, "HEAD": true, "OPTIONS": true, "PUT": true, "DELETE": true}
)

// Notes the JavaScript reader gives.
const (
	noteAxiosIdle   = "axios's timeout is, in Node, an idle timer on the socket (req.setTimeout) and a connect-phase timer: it bounds the connect and each silence, not the whole call (a body that drips within it never ends); only a signal bounds the total (in a browser the XHR adapter's timeout is a total: the reader cannot tell where code runs)"
	noteUndiciRead  = "read is undici's headersTimeout (the wait for the response head) and bodyTimeout (each silence in the body): neither bounds the whole call"
	noteGotNumber   = "timeout: N is got 11's form (the whole request); got 12 and later reject it and want timeout: {request: N}"
	noteGotRead     = "read is got's timeout.response (until the first byte of the response) or timeout.socket (each silence)"
	noteAxiosGlobal = "axios.defaults set in the project apply to axios and to the instances axios.create makes after it: the reader cannot tell the order"
)

// httpMethods are the method helpers of axios and got, with the argument that holds the
// request config (axios: config after the data for post, put and patch).
var axiosMethods = map[string]int{"get": 1, "delete": 1, "head": 1, "options": 1, "post": 2, "put": 2, "patch": 2,
	"postForm": 2, "putForm": 2, "patchForm": 2, "request": 0}

var gotMethodNames = map[string]bool{"get": true, "post": true, "put": true, "patch": true, "delete": true, "head": true, "stream": true}

// settings reads the project-wide settings in f: axios.defaults.timeout (and an instance's),
// axiosRetry(target, options) and undici's setGlobalDispatcher(agent).
func (r *jsReader) settings(f *jsFile) {
	for i := range f.t {
		switch {
		case f.is(i, "defaults") && f.is(i-1, ".") && f.is(i+1, ".") && f.ident(i+2) && f.is(i+3, "="):
			start := chainStart(f, i-1)
			if start < 0 {
				continue
			}
			d := jsDefault{key: f.t[i+2].text, opt: jsOpt{f: f, at: i + 4}}
			switch t := r.chain(f, start, i-1, 0); {
			case t.kind == vLib && t.lib == libAxios:
				r.axios.defaults = append(r.axios.defaults, d)
			case t.kind == vInst:
				t.inst.defaults = append(t.inst.defaults, d)
			}
		case f.ident(i) && f.is(i+1, "(") && !f.is(i-1, "."):
			r.setting(f, i)
		}
	}
}

// setting reads a call to axiosRetry or setGlobalDispatcher at i.
func (r *jsReader) setting(f *jsFile, i int) {
	imp, ok := f.imports[f.t[i].text]
	if !ok {
		return
	}
	args := jsArgs(f, i+1)
	if len(args) == 0 {
		return
	}
	switch {
	case imp.module == "axios-retry":
		opts := -1
		if len(args) > 1 {
			opts = args[1]
		}
		site := jsRetrySite{f: f, call: i, at: opts}
		switch t := r.eval(f, args[0], 0); {
		case t.kind == vLib && t.lib == libAxios:
			r.axios.retry = append(r.axios.retry, site)
		case t.kind == vInst:
			t.inst.retry = append(t.inst.retry, site)
		}
	case imp.module == "undici" && imp.name == "setGlobalDispatcher":
		if a := r.eval(f, args[0], 0); a.kind == vAgent {
			r.dispatchers = append(r.dispatchers, a)
		}
	}
}

// jsDefault is `target.defaults.KEY = value`.
type jsDefault struct {
	key string
	opt jsOpt
}

// chainStart is the first token of the member chain that ends just before the `.` at dot.
func chainStart(f *jsFile, dot int) int {
	k := dot - 1
	if !f.ident(k) {
		return -1
	}
	for f.is(k-1, ".") && f.ident(k-2) {
		k -= 2
	}
	return k
}

// calls are the outbound HTTP calls in f.
func (r *jsReader) calls(f *jsFile) []Call {
	var out []Call
	for _, s := range r.callsIn(f, 0, len(f.t)) {
		out = append(out, s.call)
	}
	return out
}

// jsSite is a call found and the `(` of its arguments.
type jsSite struct {
	call Call
	open int
}

// callsIn are the outbound HTTP calls whose callee starts in tokens [from, to) of f.
func (r *jsReader) callsIn(f *jsFile, from, to int) []jsSite {
	var out []jsSite
	for i := from; i < to; i++ {
		if !f.ident(i) || f.is(i-1, ".") || f.is(i-1, "?.") || f.is(i-1, "function") || f.is(i-1, "new") {
			continue
		}
		out = append(out, r.chainCalls(f, i)...)
	}
	return out
}

// chainCalls are the outbound calls of the member chain that starts at i: each call in it,
// `axios.get(u)` and the `.post(u)` of `axios.create().post(u)` (an instance made inline, used
// once) alike.
func (r *jsReader) chainCalls(f *jsFile, i int) []jsSite {
	var out []jsSite
	last := i
	for {
		for (f.is(last+1, ".") || f.is(last+1, "?.")) && f.ident(last+2) {
			last += 2
		}
		open := skipGenerics(f, last+1)
		if !f.is(open, "(") || f.body(f.end(open)) >= 0 {
			return out
		}
		if c, ok := r.classify(f, i, last, open); ok {
			out = append(out, jsSite{call: c, open: open})
		}
		next := f.end(open)
		if next <= open || !(f.is(next+1, ".") || f.is(next+1, "?.")) || !f.ident(next+2) {
			return out
		}
		last = next + 2
	}
}

// skipGenerics steps over a TypeScript call's type arguments `<T>` from i, when they are
// there.
func skipGenerics(f *jsFile, i int) int {
	if !f.is(i, "<") {
		return i
	}
	depth := 0
	for k := i; k < len(f.t) && k < i+40; k++ {
		switch {
		case f.is(k, "<"):
			depth++
		case f.is(k, ">"):
			depth--
		case f.is(k, ">>"):
			depth -= 2
		case f.is(k, ";") || f.is(k, "="):
			return i
		case f.is(k, "{") || f.is(k, "(") || f.is(k, "["):
			k = f.end(k)
		}
		if depth <= 0 {
			return k + 1
		}
	}
	return i
}

// classify makes the call whose callee is tokens i…last (a name or a member chain) with its
// arguments at open, when it is an outbound call of a library the reader knows.
func (r *jsReader) classify(f *jsFile, i, last, open int) (Call, bool) {
	method := ""
	var callee jsVal
	if last == i {
		name := f.t[i].text
		if _, imp := f.imports[name]; !imp && jsGlobals[name] == "" && f.lookup(name, i) == nil {
			return Call{}, false
		}
		callee = r.name(f, i, 0)
	} else {
		method = f.t[last].text
		if _, ok := axiosMethods[method]; !ok && method != "fetch" && !gotMethodNames[method] {
			return Call{}, false
		}
		callee = r.member(f, r.chain(f, i, last-1, 0), method, last, 0)
		if callee.kind == vUnknown || callee.kind == vObj {
			callee = r.chain(f, i, last-1, 0)
		} else {
			method = ""
		}
	}
	args := jsArgs(f, open)
	c := Call{File: f.path, Line: int(f.t[i].line), Col: int(f.t[i].col), Language: langJS}
	switch {
	case callee.kind == vLib && (callee.lib == libFetch || callee.lib == "undici.fetch"):
		c.Library = libFetch
		r.fetchCall(&c, f, args, false)
	case callee.kind == vLib && callee.lib == libNodeFetch:
		c.Library = libNodeFetch
		r.nodeFetchCall(&c, f, args)
	case callee.kind == vLib && (callee.lib == "undici.request" || callee.lib == "undici.stream"):
		c.Library = libUndici
		r.fetchCall(&c, f, args, true)
	case callee.kind == vLib && callee.lib == libAxios:
		return r.axiosCall(c, f, r.axios, method, args)
	case callee.kind == vInst && callee.inst.lib == libAxios:
		return r.axiosCall(c, f, callee.inst, method, args)
	case callee.kind == vLib && callee.lib == libGot:
		return r.gotCall(c, f, r.got, method, args)
	case callee.kind == vInst && callee.inst.lib == libGot:
		return r.gotCall(c, f, callee.inst, method, args)
	case callee.kind == vLib && callee.lib == "function" && last == i:
		return r.throughWrapper(c, f, f.t[i].text, callee, args)
	default:
		return Call{}, false
	}
	return c, true
}

// throughWrapper is a call of a function of the project that makes an outbound call itself
// (a wrapper such as the seeds' ExternalClient): the call site is this one, with the bounds
// the wrapper's own call has — set there, so `client` — and unresolved where they depend on
// what it is given.
func (r *jsReader) throughWrapper(c Call, f *jsFile, name string, fn jsVal, args []int) (Call, bool) {
	inner := r.wrapped(fn.f, fn.at)
	if inner == nil {
		return Call{}, false
	}
	out := *inner
	out.File, out.Line, out.Col = c.File, c.Line, c.Col
	out.Notes = append([]string{fmt.Sprintf("through %s at %s:%d, which makes the call", name, inner.File, inner.Line)}, inner.Notes...)
	for _, o := range []*Origin{&out.Origin.Connect, &out.Origin.Read, &out.Origin.Total} {
		if *o == OriginExplicit {
			*o = OriginClient
		}
	}
	if h := r.host(f, argAt(args, 0), nil); h != "" {
		out.Host = h
	}
	return out, true
}

// wrapped is the outbound call the function whose body `{` is at body makes (the first, when
// every call it makes goes through one library), memoised; nil when it makes none.
func (r *jsReader) wrapped(f *jsFile, body int) *Call {
	key := [2]int{f.n, body}
	if c, ok := r.wrappers[key]; ok {
		return c
	}
	if r.wrappers == nil {
		r.wrappers = map[[2]int]*Call{}
	}
	r.wrappers[key] = nil // a wrapper that calls itself makes no call through it
	if !f.is(body, "{") {
		return nil
	}
	inner := r.callsIn(f, body+1, f.end(body))
	if len(inner) == 0 || !takesURL(f, body, inner[0].open) {
		return nil
	}
	for _, c := range inner[1:] {
		if c.call.Library != inner[0].call.Library {
			return nil
		}
	}
	r.wrappers[key] = &inner[0].call
	return &inner[0].call
}

// takesURL says whether the call whose arguments open at open, in the function whose body is
// at body, takes its URL from the function's parameters: a wrapper its callers give the URL
// (a function that calls a fixed URL is no wrapper: its own call is the call site).
func takesURL(f *jsFile, body, open int) bool {
	args := jsArgs(f, open)
	if len(args) == 0 {
		return false
	}
	for k := args[0]; k < f.exprEnd(args[0]); k++ {
		if !f.ident(k) || f.is(k-1, ".") {
			continue
		}
		if d := f.lookup(f.t[k].text, k); d != nil && d.val < 0 && d.fn < 0 && d.block == body {
			return true
		}
	}
	return false
}

// opts is a set of options objects around a call, the most specific first, each with its
// origin; a layer the reader cannot see is unresolved (why).
type jsLayers []jsLayer

type jsLayer struct {
	f      *jsFile
	at     int // the object's `{`, or -1 for a single value (defaults.KEY)
	key    string
	val    int
	origin Origin
	why    string
}

// options is the options argument at at of a call in f: explicit when it is a literal or
// built in the call's function, client when built elsewhere, unresolved when not seen.
func (r *jsReader) options(f *jsFile, at int) jsLayer {
	if at < 0 {
		return jsLayer{at: -1, origin: OriginNone}
	}
	if f.is(at, "{") {
		return jsLayer{f: f, at: at, origin: OriginExplicit}
	}
	if l, ok := r.ternaryOptions(f, at); ok {
		return l
	}
	v := r.eval(f, at, 0)
	if v.kind != vObj || v.at < 0 {
		why := v.why
		if why == "" {
			why = "not an object literal"
		}
		return jsLayer{f: f, at: -1, origin: OriginUnresolved, why: "the options " + why}
	}
	o := OriginClient
	if v.f == f && f.sameFunction(v.at, at) {
		o = OriginExplicit
	}
	return jsLayer{f: v.f, at: v.at, origin: o}
}

// ternaryOptions is the options `cond ? {headers} : undefined` at at: each branch an object
// literal, undefined or null, and no object saying a key that bounds, retries, routes or
// names the method of the call (jsBoundOptions) nor an Idempotency-Key header — so either
// branch bounds the call alike and the first object stands for both. ok false otherwise.
func (r *jsReader) ternaryOptions(f *jsFile, at int) (jsLayer, bool) {
	end := f.exprEnd(at)
	q, colon := -1, -1
	for k := at; k < end; k++ {
		switch {
		case f.is(k, "(") || f.is(k, "[") || f.is(k, "{"):
			k = f.end(k)
		case f.is(k, "?") && q < 0:
			q = k
		case f.is(k, ":") && q >= 0 && colon < 0:
			colon = k
		}
	}
	if q < 0 || colon < 0 {
		return jsLayer{}, false
	}
	out := jsLayer{at: -1, origin: OriginNone}
	for _, br := range [][2]int{{q + 1, colon}, {colon + 1, end}} {
		s, e := br[0], br[1]
		switch {
		case e == s+1 && (f.is(s, "undefined") || f.is(s, "null")):
		case f.is(s, "{") && f.end(s)+1 == e && r.plainOptions(f, s):
			if out.at < 0 {
				out = jsLayer{f: f, at: s, origin: OriginExplicit}
			}
		default:
			return jsLayer{}, false
		}
	}
	return out, true
}

// jsBoundOptions are the options keys of fetch, axios, got and undici that bound, retry or
// route a call, or name its method or URL.
var jsBoundOptions = []string{"timeout", "signal", "dispatcher", "agent", "httpAgent", "httpsAgent", "adapter",
	"method", "retry", "headersTimeout", "bodyTimeout", "connectTimeout", "connect", "baseURL", "prefixUrl", "url"}

// plainOptions says whether the options object at open says none of jsBoundOptions (nor
// spreads another object that may) and sets no Idempotency-Key header.
func (r *jsReader) plainOptions(f *jsFile, open int) bool {
	for _, key := range jsBoundOptions {
		if _, ok, spread := objFind(f, open, key); ok || spread {
			return false
		}
	}
	key := r.idempotencyKey(jsLayers{{f: f, at: open, origin: OriginExplicit}})
	return key == nil || !*key
}

// find is the value of key (a path: "timeout.request") in the first layer that sets it, with
// that layer's origin; found false when none does. A layer the reader cannot see, or one that
// spreads another object before it says the key, makes the value unresolved.
func (r *jsReader) find(ls jsLayers, key string) (jsVal, Origin, bool) {
	parts := strings.Split(key, ".")
	for _, l := range ls {
		switch {
		case l.origin == OriginUnresolved && (l.key == "" || l.key == parts[0]):
			return jsUnknown(l.why), OriginUnresolved, true
		case l.origin == OriginUnresolved:
			continue
		case l.at < 0 && l.key != "":
			if l.key == parts[0] {
				v := r.eval(l.f, l.val, 0)
				for _, p := range parts[1:] {
					v = r.member(l.f, v, p, -1, 0)
				}
				return v, l.origin, true
			}
			continue
		case l.at < 0:
			continue
		}
		k, ok, spread := objFind(l.f, l.at, parts[0])
		if spread {
			return jsUnknown("the options spread another object, which may set " + key), OriginUnresolved, true
		}
		if !ok {
			continue
		}
		v := r.eval(l.f, k, 0)
		for _, p := range parts[1:] {
			if v.kind != vObj {
				break
			}
			v = r.member(l.f, v, p, -1, 0)
			if v.kind == vUnknown && strings.HasPrefix(v.why, "a member") {
				v = jsVal{kind: vUnknown, why: "unset"}
			}
		}
		if v.why == "unset" {
			continue
		}
		return v, l.origin, true
	}
	return jsVal{}, OriginNone, false
}

// msBound is a bound in milliseconds from a value found in layers (0 or less is none).
func msBound(v jsVal, o Origin, found bool, notes *[]string, what string) Bound {
	switch {
	case !found:
		return Bound{Origin: OriginNone}
	case o == OriginUnresolved || v.kind != vNum:
		*notes = append(*notes, what+" unresolved: "+whyOf(v))
		return Bound{Origin: OriginUnresolved}
	case v.num <= 0:
		return Bound{Origin: OriginNone}
	}
	return Bound{D: time.Duration(v.num * float64(time.Millisecond)), Origin: o}
}

func whyOf(v jsVal) string {
	if v.why != "" {
		return v.why
	}
	return "not a number the reader reads"
}

// signalBound is the total a signal option gives.
func (r *jsReader) signalBound(ls jsLayers, notes *[]string) Bound {
	v, o, found := r.find(ls, "signal")
	switch {
	case !found:
		return Bound{Origin: OriginNone}
	case v.kind == vSignal && v.at == 1:
		return Bound{D: time.Duration(v.num * float64(time.Millisecond)), Origin: o}
	}
	*notes = append(*notes, "total unresolved: the signal is "+whyOf(v))
	return Bound{Origin: OriginUnresolved}
}

// fetchCall fills a fetch(url, init) or undici request(url, options) call.
func (r *jsReader) fetchCall(c *Call, f *jsFile, args []int, undici bool) {
	init := r.options(f, argAt(args, 1))
	ls := jsLayers{init}
	connect, read := r.dispatcher(ls, &c.Notes)
	c.set(connect, read, r.signalBound(ls, &c.Notes))
	c.Method = r.method(ls, "GET")
	c.IdempotencyKey = r.idempotencyKey(ls)
	c.Host = r.host(f, argAt(args, 0), nil)
	if undici {
		c.Notes = append(c.Notes, noteUndiciRead)
	}
}

// dispatcher is the connect and read bounds of undici (Node's fetch): the call's own
// headersTimeout/bodyTimeout (request), a dispatcher agent in the options, the global
// dispatcher set in the project, else undici's defaults.
func (r *jsReader) dispatcher(ls jsLayers, notes *[]string) (Bound, Bound) {
	connect := Bound{D: undiciConnect, Origin: OriginDefault}
	head, body := Bound{D: undiciHeaders, Origin: OriginDefault}, Bound{D: undiciBody, Origin: OriginDefault}
	agents := jsLayers{}
	if v, o, found := r.find(ls, "dispatcher"); found {
		if v.kind == vAgent && v.at >= 0 {
			agents = append(agents, jsLayer{f: v.f, at: v.at, origin: o})
		} else {
			*notes = append(*notes, "connect and read unresolved: the dispatcher is "+whyOf(v))
			return Bound{Origin: OriginUnresolved}, Bound{Origin: OriginUnresolved}
		}
	}
	if len(agents) == 0 {
		agents = r.globalAgents()
	}
	if len(agents) > 1 {
		*notes = append(*notes, "connect and read unresolved: setGlobalDispatcher is called in several places, and which runs last is not known")
		return Bound{Origin: OriginUnresolved}, Bound{Origin: OriginUnresolved}
	}
	if v, o, found := r.find(agents, "connect.timeout"); found {
		connect = msBound(v, o, found, notes, "connect")
	} else if v, o, found := r.find(agents, "connectTimeout"); found {
		connect = msBound(v, o, found, notes, "connect")
	}
	for _, k := range []string{"headersTimeout", "bodyTimeout"} {
		v, o, found := r.find(ls, k)
		if !found {
			v, o, found = r.find(agents, k)
		}
		if !found {
			continue
		}
		if k == "headersTimeout" {
			head = msBound(v, o, found, notes, "read (headersTimeout)")
		} else {
			body = msBound(v, o, found, notes, "read (bodyTimeout)")
		}
	}
	return connect, looser(head, body)
}

// globalAgents are the options of the agents setGlobalDispatcher installs in the project,
// built once.
func (r *jsReader) globalAgents() jsLayers {
	if r.agents == nil {
		r.agents = jsLayers{}
		for _, a := range r.dispatchers {
			if a.at >= 0 {
				r.agents = append(r.agents, jsLayer{f: a.f, at: a.at, origin: OriginClient})
			}
		}
	}
	return r.agents
}

// looser is the larger of two read bounds (the longest silence either allows); none or
// unresolved when either is.
func looser(a, b Bound) Bound {
	switch {
	case !a.known():
		return a
	case !b.known():
		return b
	case b.D > a.D:
		return b
	}
	return a
}

func argAt(args []int, n int) int {
	if n < len(args) {
		return args[n]
	}
	return -1
}

// method is the options' literal method (upper case), def when the options are seen and say
// none, "" when they may.
func (r *jsReader) method(ls jsLayers, def string) string {
	v, _, found := r.find(ls, "method")
	switch {
	case !found:
		return def
	case v.kind == vStr && !v.partial:
		return strings.ToUpper(v.str)
	}
	return ""
}

// idempotencyKey says whether the options' headers set an Idempotency-Key: nil when a layer
// or the headers are not seen.
func (r *jsReader) idempotencyKey(ls jsLayers) *bool {
	no, yes := false, true
	for _, l := range ls {
		if l.origin == OriginUnresolved && (l.key == "" || l.key == "headers") {
			return nil
		}
		if l.at < 0 {
			continue
		}
		k, ok, spread := objFind(l.f, l.at, "headers")
		if spread {
			return nil
		}
		if !ok {
			continue
		}
		h := r.eval(l.f, k, 0)
		if h.kind != vObj || h.at < 0 {
			return nil
		}
		_, has, spreadH := objFind(h.f, h.at, "idempotency-key")
		if has {
			return &yes
		}
		if spreadH {
			return nil
		}
	}
	return &no
}

// host is the URL's host when the URL (or the base URL it is relative to) is a literal.
func (r *jsReader) host(f *jsFile, at int, ls jsLayers) string {
	if at < 0 {
		return ""
	}
	v := r.eval(f, at, 0)
	if v.kind != vStr {
		if v.kind == vObj && v.at >= 0 {
			if k, ok := objGet(v.f, v.at, "url"); ok {
				return r.host(v.f, k, ls)
			}
		}
		return ""
	}
	if strings.Contains(v.str, "://") || v.partial && !strings.HasPrefix(v.str, "/") {
		return hostOf(v.str, v.partial)
	}
	for _, base := range []string{"baseURL", "prefixUrl"} {
		if b, _, found := r.find(ls, base); found && b.kind == vStr {
			return hostOf(b.str, b.partial)
		}
	}
	return ""
}

// hostOf is the host of an absolute URL, or of a template's head when the head holds it
// whole ("https://api.example.com/v1/${id}").
func hostOf(s string, partial bool) string {
	at := strings.Index(s, "://")
	if at < 0 {
		return ""
	}
	rest := s[at+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 && partial {
		return "" // the head may stop inside the host
	}
	if end < 0 {
		end = len(rest)
	}
	u, err := url.Parse(s[:at+3] + rest[:end])
	if err != nil {
		return ""
	}
	return u.Hostname()
}
