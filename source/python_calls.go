package source

import (
	"strings"
)

// pyModuleCalls are the module functions that send a request, by qualified name, with their
// library and method ("" = the method argument's).
var pyModuleCalls = map[string][2]string{
	"requests.get": {libRequests, "GET"}, "requests.post": {libRequests, "POST"}, "requests.put": {libRequests, "PUT"},
	"requests.patch": {libRequests, "PATCH"}, "requests.delete": {libRequests, "DELETE"}, "requests.head": {libRequests, "HEAD"},
	"requests.options": {libRequests, "OPTIONS"}, "requests.request": {libRequests, ""},
	"httpx.get": {libHTTPX, "GET"}, "httpx.post": {libHTTPX, "POST"}, "httpx.put": {libHTTPX, "PUT"},
	"httpx.patch": {libHTTPX, "PATCH"}, "httpx.delete": {libHTTPX, "DELETE"}, "httpx.head": {libHTTPX, "HEAD"},
	"httpx.options": {libHTTPX, "OPTIONS"}, "httpx.request": {libHTTPX, ""}, "httpx.stream": {libHTTPX, ""},
	"urllib3.request": {libURLLib3, ""},
	"aiohttp.request": {libAIOHTTP, ""},
}

// pyClientMethods are the methods of a client that send a request, with their method.
var pyClientMethods = map[string]string{
	"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE", "head": "HEAD",
	"options": "OPTIONS", "request": "", "stream": "", "urlopen": "", "request_encode_url": "", "request_encode_body": "",
	"send": "",
}

// pyClients are the client constructors, by qualified name, with their library.
var pyClients = map[string]string{
	"requests.Session": libRequests, "httpx.Client": libHTTPX, "httpx.AsyncClient": libHTTPX,
	"aiohttp.ClientSession": libAIOHTTP, "urllib3.PoolManager": libURLLib3, "urllib3.ProxyManager": libURLLib3,
	"urllib3.contrib.socks.SOCKSProxyManager": libURLLib3,
}

// pySite is one call that sends a request, before its bounds are read.
type pySite struct {
	lib    string
	method string
	args   pyArgs
	// client is the session/client the call uses; nil for a module function.
	client *pyVal
	env    *pyEnv
	at     pyTok
	// urlArg is the index of the URL among the positional arguments.
	urlArg int
}

// calls are the outbound calls of every scope of f.
func (f *pyFile) calls() []Call {
	var out []Call
	for _, env := range f.envs {
		for _, n := range env.body {
			toks := n.Toks
			if len(toks) == 0 || toks[0].Text == "@" || toks[0].Text == "def" || toks[0].Text == "class" || (toks[0].Text == "async" && len(toks) > 1 && toks[1].Text == "def") {
				continue
			}
			for j := 1; j < len(toks); j++ {
				if toks[j].Text != "(" || toks[j].Kind != pyOp || toks[j-1].Kind != pyName {
					continue
				}
				f.pkg.steps = 0
				if s, ok := env.site(toks, j); ok {
					f.pkg.steps = 0
					out = append(out, s.call())
				}
			}
		}
	}
	return out
}

// site is the call whose argument list opens at j, when it sends a request.
func (env *pyEnv) site(toks []pyTok, j int) (pySite, bool) {
	start := primaryStart(toks, j-1)
	callee := toks[start:j]
	end := matching(toks, j)
	if end < 0 {
		return pySite{}, false
	}
	s := pySite{env: env, at: toks[start], args: parseArgs(toks[j+1 : end])}
	if isDotted(callee) {
		if q := env.eval(callee, 0); q.kind == pvQual {
			if m, ok := pyModuleCalls[q.str]; ok {
				s.lib, s.method = m[0], m[1]
				s.setMethod()
				return s, true
			}
		}
	}
	name := toks[j-1].Text
	method, ok := pyClientMethods[name]
	if !ok || j-2 <= start || toks[j-2].Text != "." {
		return pySite{}, false
	}
	recv := env.eval(toks[start:j-2], 0)
	lib := recv.clientLib(env.file.pkg)
	if lib == "" || !libHasMethod(lib, name) {
		return pySite{}, false
	}
	s.lib, s.method, s.client = lib, method, &recv
	s.setMethod()
	return s, true
}

// libHasMethod says whether a library's client sends with that method name.
func libHasMethod(lib, name string) bool {
	switch name {
	case "stream":
		return lib == libHTTPX
	case "send": // Session.send(prepared), Client.send(request): the method is the request's
		return lib == libRequests || lib == libHTTPX
	case "urlopen", "request_encode_url", "request_encode_body":
		return lib == libURLLib3
	}
	return true
}

// setMethod reads the method argument of request(METHOD, url) and kin; the URL follows it.
func (s *pySite) setMethod() {
	if s.method != "" {
		return
	}
	s.urlArg = 1
	m := s.args.arg("method", 0)
	if m == nil {
		return
	}
	if v := s.env.eval(m, 0); v.kind == pvStr {
		s.method = strings.ToUpper(v.str)
	}
}

// primaryStart is where the primary expression ending with the name at k starts: back over
// .NAME, calls and subscripts (a.b(c).d[e].f).
func primaryStart(toks []pyTok, k int) int {
	for k >= 2 && toks[k-1].Text == "." && toks[k-1].Kind == pyOp {
		prev := toks[k-2]
		switch {
		case prev.Kind == pyName:
			k -= 2
		case isCloser(prev):
			open := matchingBack(toks, k-2)
			if open <= 0 || toks[open-1].Kind != pyName {
				return max(open, 0)
			}
			k = open - 1
		default:
			return k
		}
	}
	return k
}

// clientLib is the library of a client value: a constructor the reader knows, or a package
// class that derives from one.
func (v pyVal) clientLib(pkg *pyPackage) string {
	if v.kind == pvQual && (v.str == "requests" || v.str == "requests.api") {
		return libRequests // self._session = requests.api: the module's functions
	}
	if v.kind != pvCall {
		return ""
	}
	if lib, ok := pyClients[v.call.callee]; ok {
		return lib
	}
	if v.call.class != nil {
		return classLib(v.call.class, 0)
	}
	return ""
}

// classLib is the client library a package class derives from.
func classLib(c *pyClass, depth int) string {
	for q, lib := range pyClients {
		if derives(c, q, depth) {
			return lib
		}
	}
	return ""
}

// derives says whether a package class derives from the qualified name q, through package
// classes.
func derives(c *pyClass, q string, depth int) bool {
	if depth > 4 {
		return false
	}
	for _, b := range c.bases {
		bv := c.file.env.eval(b, 0)
		if bv.kind != pvQual {
			continue
		}
		if bv.str == q {
			return true
		}
		if name, ok := strings.CutPrefix(bv.str, "class:"); ok {
			if bc := c.file.pkg.class(name); bc != nil && bc != c && derives(bc, q, depth+1) {
				return true
			}
		}
	}
	return false
}

// call is the site with its effective bounds, retry layers, method, key and host.
func (s pySite) call() Call {
	c := Call{File: s.env.file.path, Line: s.at.Line, Col: s.at.Col, Language: langPython, Library: s.lib, Method: s.method}
	b := s.bounds()
	c.set(b.connect, b.read, b.total)
	c.Notes = append(c.Notes, b.notes...)
	layers := s.layers()
	switch len(layers) {
	case 0:
	case 1:
		c.Retry = &layers[0]
	default:
		c.Retry = &layers[len(layers)-1]
		c.Layers = layers
	}
	c.IdempotencyKey = s.key()
	c.Host = s.host()
	c.Context = s.context()
	return c
}

// pyBounds are a call's three bounds and the notes on them.
type pyBounds struct {
	connect, read, total Bound
	notes                []string
}

// bounds dispatches to the call's library.
func (s pySite) bounds() pyBounds {
	switch s.lib {
	case libRequests:
		return s.requestsBounds()
	case libHTTPX:
		return s.httpxBounds()
	case libAIOHTTP:
		return s.aiohttpBounds()
	}
	return s.urllib3Bounds()
}

// timeoutArg is the call's own timeout= (explicit), or why it is not known: the call passes
// **kwargs, which may carry one.
func (s pySite) timeoutArg() (pyVal, bool) {
	if t, ok := s.args.kw["timeout"]; ok {
		return s.env.eval(t, 0), true
	}
	if s.args.splat {
		return pyVal{kind: pvUnknown, why: "the call passes *args/**kwargs: a timeout may be among them", caller: true}, true
	}
	return pyVal{}, false
}

// ctorArg is an argument of the client's constructor, evaluated where it was built, with
// origin client when that is not the call's own function.
func (s pySite) ctorArg(name string, pos int) (pyVal, bool) {
	if s.client == nil || s.client.kind != pvCall {
		return pyVal{}, false
	}
	cv := s.client.call
	t := cv.args.arg(name, pos)
	if t == nil && cv.args.splat {
		return pyVal{kind: pvUnknown, why: "the client is built with *args/**kwargs: its " + name + " may be among them"}, true
	}
	if t == nil {
		return pyVal{}, false
	}
	v := cv.env.eval(t, 0)
	if cv.env != s.env && v.origin == OriginExplicit {
		v.origin = OriginClient
	}
	if s.client.origin == OriginClient {
		v.origin = OriginClient
	}
	return v, true
}

// fromCaller says the client is (or may be) the caller's: a parameter of the function.
func (s pySite) fromCaller() bool { return s.client != nil && s.client.caller }

// unresolvedAll is every bound unresolved, with why.
func unresolvedAll(why string) pyBounds {
	u := Bound{Origin: OriginUnresolved}
	return pyBounds{connect: u, read: u, total: u, notes: []string{why}}
}
