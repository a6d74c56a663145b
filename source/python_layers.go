package source

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// urllib3's Retry, as data (urllib3/util/retry.py): Retry() counts total=10;
// DEFAULT_ALLOWED_METHODS are the methods it retries read errors and statuses on; connect
// errors are retried whatever the method (the request was not sent). Retry.DEFAULT =
// Retry(3) is what a PoolManager retries with when the code says nothing. requests mounts
// HTTPAdapter(max_retries=0) (adapters.py DEFAULT_RETRIES); an integer becomes
// Retry.from_int(n) = Retry(n).
var (
	urllib3DefaultTotal   = 10
	urllib3PoolRetries    = 3
	urllib3AllowedMethods = []string{"DELETE", "GET", "HEAD", "OPTIONS", "PUT", "TRACE"}
	urllib3BackoffMaxMS   = int64(120_000)
)

// layers are the retry layers around the call, outermost first: the decorators of the
// function that makes it (top one outermost), then the client's own retries.
func (s pySite) layers() []Retry {
	var out []Retry
	if fn := s.env.fn; fn != nil {
		for _, d := range fn.decorators {
			if r, ok := fn.env.outer.decorator(d); ok {
				out = append(out, r)
			} else if r, ok := fn.env.outer.celery(d); ok {
				out = append(out, r)
			}
		}
	}
	if r, ok := s.clientRetry(); ok {
		out = append(out, r)
	}
	return out
}

// clientRetry is the client's own retry layer: urllib3 Retry on a requests adapter, a
// PoolManager's retries, an httpx transport's retries.
func (s pySite) clientRetry() (Retry, bool) {
	switch s.lib {
	case libRequests:
		if a, ok := s.adapter(); ok {
			if t := a.call.args.arg("max_retries", 2); t != nil {
				return urllib3Retry(a.call.env.eval(t, 0), s.method, a.call)
			}
		}
	case libURLLib3:
		if t, ok := s.args.kw["retries"]; ok {
			return urllib3Retry(s.env.eval(t, 0), s.method, nil)
		}
		if v, ok := s.ctorArg("retries", -1); ok {
			return urllib3Retry(v, s.method, s.client.call)
		}
		if s.fromCaller() {
			return Retry{Layer: libURLLib3, Unresolved: "the pool manager is the caller's: its retries are set there"}, true
		}
		return urllib3Retry(pyVal{kind: pvNum, num: float64(urllib3PoolRetries)}, s.method, nil)
	case libHTTPX:
		if v, ok := s.ctorArg("transport", -1); ok && v.kind == pvCall && strings.HasSuffix(v.call.callee, "HTTPTransport") {
			if t := v.call.args.arg("retries", -1); t != nil {
				if n := v.call.env.eval(t, 0); n.kind == pvNum && n.num >= 1 {
					return Retry{Layer: "httpx-transport", MaxAttempts: int(n.num) + 1, On: []string{"connect"}, File: v.call.env.file.path, Line: v.call.line}, true
				}
			}
		}
	}
	return Retry{}, false
}

// urllib3Retry is the layer a Retry (or an integer) makes for a call of method.
func urllib3Retry(v pyVal, method string, at *pyCallVal) (Retry, bool) {
	r := Retry{Layer: libURLLib3}
	if at != nil {
		r.File, r.Line = at.env.file.path, at.line
	}
	switch {
	case v.kind == pvNum:
		if v.num < 1 {
			return Retry{}, false
		}
		r.MaxAttempts = int(v.num) + 1
		r.On = retryClasses(method, urllib3AllowedMethods, true, true, nil)
		return r, true
	case v.kind == pvBool || v.kind == pvNone:
		return Retry{}, false
	case v.kind != pvCall || v.call.callee != "urllib3.Retry" && (v.call.class == nil || !derives(v.call.class, "urllib3.Retry", 0)):
		r.Unresolved = "the retries are computed at run time"
		return r, true
	}
	args, env := v.call.args, v.call.env
	r.File, r.Line = env.file.path, v.call.line
	total := pyVal{kind: pvNum, num: float64(urllib3DefaultTotal)}
	if t := args.arg("total", 0); t != nil {
		total = env.eval(t, 0)
	}
	switch total.kind {
	case pvNum:
		if total.num < 1 {
			return Retry{}, false
		}
		r.MaxAttempts = int(total.num) + 1
	case pvBool:
		return Retry{}, false
	default:
		r.Unresolved = "Retry's total is not a number the reader reads: each class counts on its own"
	}
	allowed := urllib3AllowedMethods
	for _, name := range []string{"allowed_methods", "method_whitelist"} {
		if t, ok := args.kw[name]; ok {
			allowed = methodList(env.eval(t, 0))
		}
	}
	r.On = retryClasses(method, allowed, enabled(args, env, "connect"), enabled(args, env, "read"), statusList(args, env))
	r.Backoff = urllib3Backoff(args, env)
	return r, true
}

// enabled says a Retry class is not switched off (connect=0, read=False).
func enabled(args pyArgs, env *pyEnv, name string) bool {
	t, ok := args.kw[name]
	if !ok {
		return true
	}
	v := env.eval(t, 0)
	return !(v.kind == pvNum && v.num == 0 || v.kind == pvBool && v.num == 0)
}

// methodList is the methods of allowed_methods; nil (every method) for None.
func methodList(v pyVal) []string {
	if v.kind == pvNone {
		return nil
	}
	if v.kind == pvCall && len(v.call.args.pos) == 1 { // frozenset([...])
		v = v.call.env.eval(v.call.args.pos[0], 0)
	}
	out := []string{}
	for _, it := range v.items {
		if it.kind == pvStr {
			out = append(out, strings.ToUpper(it.str))
		}
	}
	return out
}

// statusList is status_forcelist's classes.
func statusList(args pyArgs, env *pyEnv) []string {
	t, ok := args.kw["status_forcelist"]
	if !ok {
		return nil
	}
	v := env.eval(t, 0)
	if v.kind == pvCall && len(v.call.args.pos) == 1 {
		v = v.call.env.eval(v.call.args.pos[0], 0)
	}
	var out []string
	for _, it := range v.items {
		if it.kind != pvNum {
			continue
		}
		c := statusClass(int(it.num))
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func statusClass(code int) string {
	switch {
	case code == 429:
		return "429"
	case code >= 500:
		return "5xx"
	}
	return "4xx"
}

// retryClasses are the failure classes urllib3 retries for method: connect whatever the
// method, read errors and statuses only for the allowed methods (nil allowed = every method).
func retryClasses(method string, allowed []string, connect, read bool, statuses []string) []string {
	out := []string{}
	if connect {
		out = append(out, "connect")
	}
	ok := allowed == nil || method == "" || slices.Contains(allowed, method)
	if !ok {
		return out
	}
	if read {
		out = append(out, "timeout", "reset")
	}
	return append(out, statuses...)
}

// urllib3Backoff: backoff_factor f waits f·2^(n-1) before the n-th retry but the first,
// capped by backoff_max (120 s); no jitter unless backoff_jitter.
func urllib3Backoff(args pyArgs, env *pyEnv) *Backoff {
	t, ok := args.kw["backoff_factor"]
	if !ok {
		return nil
	}
	f := env.eval(t, 0)
	if f.kind != pvNum || f.num <= 0 {
		return nil
	}
	b := &Backoff{InitialMS: msOf(2 * f.num), Multiplier: ptr(2.0), MaxMS: ptr(urllib3BackoffMaxMS), Jitter: "none"}
	if m, ok := args.kw["backoff_max"]; ok {
		if v := env.eval(m, 0); v.kind == pvNum {
			b.MaxMS = msOf(v.num)
		}
	}
	if _, ok := args.kw["backoff_jitter"]; ok {
		b.Jitter = ""
	}
	return b
}

func ptr[T any](v T) *T { return &v }

func msOf(secs float64) *int64 { return ptr(time.Duration(secs * float64(time.Second)).Milliseconds()) }

// adapter is the HTTPAdapter mounted on the call's session (the https:// one when several
// prefixes are mounted), when the reader sees it.
func (s pySite) adapter() (pyVal, bool) {
	if s.client == nil {
		return pyVal{}, false
	}
	var found []pyVal
	var prefixes []string
	for _, h := range s.client.homes {
		for _, n := range h.env.body {
			args, ok := memberCall(n.Toks, h.name, "mount")
			if !ok || len(args.pos) < 2 {
				continue
			}
			a := h.env.eval(args.pos[1], 0)
			if a.kind != pvCall {
				continue
			}
			p := h.env.eval(args.pos[0], 0)
			found, prefixes = append(found, a), append(prefixes, p.str)
		}
	}
	if len(found) == 0 {
		return pyVal{}, false
	}
	for i, p := range prefixes {
		if strings.HasPrefix(p, "https") {
			return found[i], true
		}
	}
	return found[0], true
}

// memberCall is the arguments of NAME.member(…) when a line is that call.
func memberCall(toks []pyTok, name, member string) (pyArgs, bool) {
	path := strings.Split(name, ".")
	n := 2*len(path) + 1
	if len(toks) < n+2 || toks[n].Text != "(" {
		return pyArgs{}, false
	}
	if tokText(toks[:n]) != name+"."+member {
		return pyArgs{}, false
	}
	end := matching(toks, n)
	if end < 0 {
		return pyArgs{}, false
	}
	return parseArgs(toks[n+1 : end]), true
}

// wrapperTimeout is the timeout a package wrapper sets on every call: a Session subclass
// whose request() sets kwargs["timeout"], or a mounted HTTPAdapter subclass whose send()
// does (the classic TimeoutHTTPAdapter). Its origin is client.
func (s pySite) wrapperTimeout() (pyVal, bool) {
	if s.client == nil || s.client.kind != pvCall {
		return pyVal{}, false
	}
	if c := s.client.call.class; c != nil {
		if v, ok := classTimeout(c, "request", s.client.call); ok {
			return v, true
		}
	}
	if a, ok := s.adapter(); ok && a.call.class != nil {
		return classTimeout(a.call.class, "send", a.call)
	}
	return pyVal{}, false
}

// classTimeout is the value a method of c (or a package base) puts in kwargs["timeout"],
// with self.NAME read from the constructor's arguments when they set it.
func classTimeout(c *pyClass, method string, ctor *pyCallVal) (pyVal, bool) {
	for k, n := c, 0; k != nil && n < 4; k, n = c.file.pkg.base(k), n+1 {
		m, ok := k.methods[method]
		if !ok {
			continue
		}
		for _, line := range m.env.body {
			val, ok := timeoutStore(line.Toks)
			if !ok {
				continue
			}
			v := attrValue(m, val, ctor)
			v.origin = OriginClient
			v.notes = append(v.notes, "timeout set by "+k.name+"."+method+"() in "+k.file.path)
			return v, true
		}
	}
	return pyVal{}, false
}

// timeoutStore is X in NAME["timeout"] = X or NAME.setdefault("timeout", X).
func timeoutStore(toks []pyTok) ([]pyTok, bool) {
	if len(toks) > 5 && toks[0].Kind == pyName && toks[1].Text == "[" && toks[2].Kind == pyStr && toks[2].Text == "timeout" && toks[3].Text == "]" && toks[4].Text == "=" {
		return toks[5:], true
	}
	if len(toks) > 6 && toks[0].Kind == pyName && toks[1].Text == "." && toks[2].Text == "setdefault" && toks[3].Text == "(" && toks[4].Kind == pyStr && toks[4].Text == "timeout" && toks[5].Text == "," {
		if end := matching(toks, 3); end > 6 {
			return toks[6:end], true
		}
	}
	return nil, false
}

// attrValue is val in method m, where self.NAME is the constructor's NAME= when given, and
// else what __init__ sets: a literal, a keyword default, or kwargs.pop("NAME", default).
func attrValue(m *pyFunc, val []pyTok, ctor *pyCallVal) pyVal {
	if len(val) != 3 || val[0].Text != "self" || m.class == nil {
		return m.env.eval(val, 0)
	}
	name := val[2].Text
	if ctor != nil {
		if t, ok := ctor.args.kw[name]; ok {
			return ctor.env.eval(t, 0)
		}
	}
	init, ok := m.class.methods["__init__"]
	if !ok {
		return m.env.eval(val, 0)
	}
	for _, b := range init.env.names["self."+name] {
		if d, ok := popDefault(b.val); ok {
			return init.env.eval(d, 0)
		}
		if v := init.env.eval(b.val, 0); v.kind != pvUnknown {
			return v
		}
	}
	return m.env.eval(val, 0)
}

// popDefault is D in NAME.pop("x", D) or NAME.get("x", D).
func popDefault(toks []pyTok) ([]pyTok, bool) {
	if len(toks) < 6 || toks[1].Text != "." || (toks[2].Text != "pop" && toks[2].Text != "get") || toks[3].Text != "(" {
		return nil, false
	}
	end := matching(toks, 3)
	if end != len(toks)-1 {
		return nil, false
	}
	args := splitTop(toks[4:end], ",")
	if len(args) != 2 {
		return nil, false
	}
	return args[1], true
}

// keyRE matches an Idempotency-Key header name.
var keyRE = regexp.MustCompile(`(?i)^idempotency[-_]key$`)

// key says whether the request carries an Idempotency-Key: from its headers= or the
// session's headers; nil when either is built where the reader cannot see.
func (s pySite) key() *bool {
	yes, no := true, false
	if t, ok := s.args.kw["headers"]; ok {
		v := s.env.eval(t, 0)
		if v.kind != pvDict {
			return nil
		}
		if hasKey(v.keys) {
			return &yes
		}
	} else if s.args.splat {
		return nil
	}
	if s.client != nil {
		if v, ok := s.ctorArg("headers", -1); ok && v.kind == pvDict && hasKey(v.keys) {
			return &yes
		}
		for _, h := range s.client.homes {
			for _, n := range h.env.body {
				if args, ok := memberCall(n.Toks, h.name+".headers", "update"); ok && len(args.pos) == 1 {
					if v := h.env.eval(args.pos[0], 0); v.kind == pvDict && hasKey(v.keys) {
						return &yes
					}
				}
				if strings.HasPrefix(tokText(n.Toks), h.name+".headers[") && hasKeyTok(n.Toks) {
					return &yes
				}
			}
		}
	}
	return &no
}

func hasKey(keys []string) bool {
	return slices.ContainsFunc(keys, keyRE.MatchString)
}

func hasKeyTok(toks []pyTok) bool {
	for _, t := range toks {
		if t.Kind == pyStr && keyRE.MatchString(t.Text) {
			return true
		}
	}
	return false
}

// hostRE reads the host of an absolute URL.
var hostRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^@/{}]*@)?([^/:{}?#\s]+)`)

// host is the URL's host when it is a literal, a constant or an f-string that starts with
// one; a relative URL on a client with a literal base_url takes the base's.
func (s pySite) host() string {
	if t := s.args.arg("url", s.urlArg); t != nil {
		if v := s.env.eval(t, 0); v.kind == pvStr {
			if m := hostRE.FindStringSubmatch(v.str); m != nil {
				return strings.ToLower(m[1])
			}
		}
	}
	if v, ok := s.ctorArg("base_url", -1); ok && v.kind == pvStr {
		if m := hostRE.FindStringSubmatch(v.str); m != nil {
			return strings.ToLower(m[1])
		}
	}
	return ""
}
