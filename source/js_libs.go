package source

import (
	"strings"
	"time"
)

// instLayers are an instance's options around a call's own — its defaults.KEY assignments,
// its creation options (latest first), then axios.defaults for an axios instance — and how
// many of them are the instance's own; built once per instance (settings are read first).
func (r *jsReader) instLayers(in *jsInst) (jsLayers, int) {
	if in.unresolved != "" {
		return jsLayers{{origin: OriginUnresolved, at: -1, why: in.unresolved}}, 1
	}
	if in.layers == nil {
		in.layers = r.ownLayers(in)
		in.own = len(in.layers)
		if in != r.axios && in.lib == libAxios {
			in.layers = append(in.layers, r.ownLayers(r.axios)...)
		}
	}
	return in.layers, in.own
}

// ownLayers are an instance's defaults.KEY assignments, one layer per key (unresolved when
// the project sets it to different values: which runs last is not known), then its options.
func (r *jsReader) ownLayers(in *jsInst) jsLayers {
	ls := jsLayers{}
	seen := map[string]int{}
	for k := len(in.defaults) - 1; k >= 0; k-- {
		d := in.defaults[k]
		at, ok := seen[d.key]
		if !ok {
			seen[d.key] = len(ls)
			ls = append(ls, jsLayer{f: d.opt.f, at: -1, key: d.key, val: d.opt.at, origin: OriginClient})
			continue
		}
		prev := ls[at]
		if prev.origin != OriginUnresolved && !sameValue(r.eval(prev.f, prev.val, 0), r.eval(d.opt.f, d.opt.at, 0)) {
			ls[at] = jsLayer{at: -1, key: d.key, origin: OriginUnresolved, why: "defaults." + d.key + " is set to different values in the project"}
		}
	}
	for _, o := range in.opts {
		lay := r.options(o.f, o.at)
		if lay.origin == OriginExplicit || lay.origin == OriginNone {
			lay.origin = OriginClient
		}
		ls = append(ls, lay)
	}
	return ls
}

// sameValue says whether two values are the same known number or string.
func sameValue(a, b jsVal) bool {
	return a.kind == b.kind && (a.kind == vNum && a.num == b.num || a.kind == vStr && a.str == b.str && !a.partial && !b.partial)
}

// axiosCall fills a call through axios or an axios instance: axios(config), axios(url,
// config), axios.get(url, config), axios.post(url, data, config), axios.request(config).
func (r *jsReader) axiosCall(c Call, f *jsFile, in *jsInst, method string, args []int) (Call, bool) {
	c.Library = libAxios
	var config, urlArg int
	switch n, ok := axiosMethods[method]; {
	case method == "":
		config, urlArg = argAt(args, 1), argAt(args, 0)
		if first := argAt(args, 0); first >= 0 && len(args) == 1 && r.eval(f, first, 0).kind != vStr && !urlName(f, first) {
			config = first // axios(config): a config object, or what may be one
		}
	case !ok:
		return Call{}, false
	case n == 0:
		config, urlArg, method = argAt(args, 0), argAt(args, 0), ""
	default:
		config, urlArg = argAt(args, n), argAt(args, 0)
		method = strings.ToUpper(strings.TrimSuffix(method, "Form"))
	}
	inst, own := r.instLayers(in)
	ls := append(jsLayers{r.options(f, config)}, inst...)
	v, o, found := r.find(ls, "timeout")
	if _, _, mine := r.find(ls[:1+own], "timeout"); found && !mine && in != r.axios && in.unresolved == "" {
		c.Notes = append(c.Notes, noteAxiosGlobal)
	}
	idle := msBound(v, o, found, &c.Notes, "timeout")
	if idle.known() {
		c.Notes = append(c.Notes, noteAxiosIdle)
	}
	c.set(idle, idle, r.signalBound(ls, &c.Notes))
	if method == "" {
		method = r.method(ls, "GET")
	}
	c.Method = method
	c.IdempotencyKey = r.idempotencyKey(ls)
	c.Host = r.host(f, urlArg, ls)
	c.Retry = r.axiosRetry(in, c.Method)
	return c, true
}

// axiosRetry is the axios-retry layer on an instance (the last axiosRetry(instance, …) call
// wins), nil when there is none.
func (r *jsReader) axiosRetry(in *jsInst, method string) *Retry {
	if len(in.retry) == 0 {
		return nil
	}
	site := in.retry[len(in.retry)-1]
	f := site.f
	rt := &Retry{Layer: "axios-retry", MaxAttempts: axiosRetries + 1, File: f.path, Line: int(f.t[site.call].line)}
	opts := jsLayers{r.options(f, site.at)}
	if v, _, found := r.find(opts, "retries"); found {
		if v.kind == vNum {
			rt.MaxAttempts = int(v.num) + 1
		} else {
			rt.MaxAttempts, rt.Unresolved = 0, "retries is "+whyOf(v)
		}
	}
	switch _, _, custom := r.find(opts, "retryCondition"); {
	case custom:
		rt.On = nil
	case axiosIdempotent[method]:
		rt.On = axiosRetryIdempotent
	default:
		rt.On = axiosRetryNetwork
	}
	rt.Backoff = &Backoff{ScheduleMS: []int64{0}}
	if v, _, found := r.find(opts, "retryDelay"); found {
		rt.Backoff = nil
		if _, ok := exponentialDelay(opts, r); ok || v.kind == vUnknown && strings.Contains(v.why, "exponentialDelay") {
			rt.Backoff = axiosExponential()
		}
	}
	return rt
}

// exponentialDelay says whether the retryDelay option names axiosRetry.exponentialDelay.
func exponentialDelay(opts jsLayers, r *jsReader) (int, bool) {
	l := opts[0]
	if l.at < 0 || l.f == nil {
		return 0, false
	}
	k, ok := objGet(l.f, l.at, "retryDelay")
	if !ok {
		return 0, false
	}
	for j := k; j < l.f.exprEnd(k); j++ {
		if l.f.is(j, "exponentialDelay") {
			return j, true
		}
	}
	return 0, false
}

// axiosExponential is axios-retry's exponentialDelay: 2^n × 100 ms from the first retry
// (200 ms), plus up to 20 % more at random.
func axiosExponential() *Backoff {
	initial, mult := int64(200), 2.0
	return &Backoff{InitialMS: &initial, Multiplier: &mult}
}

// gotCall fills a call through got or a got.extend instance: got(url, options),
// got.post(url, options), got(options).
func (r *jsReader) gotCall(c Call, f *jsFile, in *jsInst, method string, args []int) (Call, bool) {
	c.Library = libGot
	opts, urlArg := argAt(args, 1), argAt(args, 0)
	if first := argAt(args, 0); first >= 0 && f.is(first, "{") {
		opts = first
	}
	inst, _ := r.instLayers(in)
	ls := append(jsLayers{r.options(f, opts)}, inst...)
	connect, read, total := Bound{Origin: OriginNone}, Bound{Origin: OriginNone}, Bound{Origin: OriginNone}
	v, o, found := r.find(ls, "timeout")
	switch {
	case found && v.kind == vNum:
		total = msBound(v, o, found, &c.Notes, "total")
		c.Notes = append(c.Notes, noteGotNumber)
	case found && v.kind == vObj:
		total = r.gotBound(ls, &c.Notes, "total", "timeout.request")
		connect = r.gotBound(ls, &c.Notes, "connect", "timeout.connect")
		read = r.gotBound(ls, &c.Notes, "read", "timeout.response", "timeout.socket")
		if read.known() {
			c.Notes = append(c.Notes, noteGotRead)
		}
	case found:
		c.Notes = append(c.Notes, "timeouts unresolved: the timeout option is "+whyOf(v))
		connect, read, total = Bound{Origin: OriginUnresolved}, Bound{Origin: OriginUnresolved}, Bound{Origin: OriginUnresolved}
	}
	if s := r.signalBound(ls, &c.Notes); s.known() && (!total.known() || s.D < total.D) {
		total = s
	}
	c.set(connect, read, total)
	if method == "" || method == "stream" {
		method = r.method(ls, "GET")
	} else {
		method = strings.ToUpper(method)
	}
	c.Method = method
	c.IdempotencyKey = r.idempotencyKey(ls)
	c.Host = r.host(f, urlArg, ls)
	c.Retry = r.gotRetry(ls, method)
	return c, true
}

// gotBound is the first of keys set in the layers.
func (r *jsReader) gotBound(ls jsLayers, notes *[]string, what string, keys ...string) Bound {
	for _, k := range keys {
		if v, o, found := r.find(ls, k); found {
			return msBound(v, o, found, notes, what)
		}
	}
	return Bound{Origin: OriginNone}
}

// gotRetry is got's own retry layer: limit 2 on its idempotent methods unless the options say
// otherwise; nil when it makes one attempt.
func (r *jsReader) gotRetry(ls jsLayers, method string) *Retry {
	rt := &Retry{Layer: "got", MaxAttempts: gotRetryLimit + 1, On: gotOn, Backoff: gotBackoff()}
	methods := gotMethods
	v, _, found := r.find(ls, "retry")
	switch {
	case found && v.kind == vNum:
		rt.MaxAttempts = int(v.num) + 1
	case found && v.kind == vObj:
		if lim, _, ok := r.find(jsLayers{{f: v.f, at: v.at, origin: OriginExplicit}}, "limit"); ok {
			if lim.kind != vNum {
				return &Retry{Layer: "got", Unresolved: "retry.limit is " + whyOf(lim)}
			}
			rt.MaxAttempts = int(lim.num) + 1
		}
		if m, ok := objGet(v.f, v.at, "methods"); ok {
			methods = literalStrings(v.f, m)
		}
		if _, ok := objGet(v.f, v.at, "calculateDelay"); ok {
			rt.Backoff = nil
		}
	case found:
		return &Retry{Layer: "got", Unresolved: "the retry option is " + whyOf(v)}
	}
	if method == "" {
		rt.Unresolved = "got retries only the methods in retry.methods, and the request's method is not a literal"
		return rt
	}
	if rt.MaxAttempts <= 1 || !containsFold(methods, method) {
		return nil
	}
	return rt
}

// gotBackoff is got's wait before retry n: 2^(n-1) s, plus up to 100 ms of noise.
func gotBackoff() *Backoff {
	initial, mult := int64(time.Second/time.Millisecond), 2.0
	return &Backoff{InitialMS: &initial, Multiplier: &mult}
}

// literalStrings are the string literals in the array at open (upper case).
func literalStrings(f *jsFile, open int) []string {
	var out []string
	for _, k := range jsArgs(f, open) {
		if f.t[k].kind == jtStr {
			out = append(out, strings.ToUpper(f.t[k].text))
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// nodeFetchCall fills a call through node-fetch: Node's http module underneath (no connect
// or read bound), a total from signal or v2's timeout option.
func (r *jsReader) nodeFetchCall(c *Call, f *jsFile, args []int) {
	ls := jsLayers{r.options(f, argAt(args, 1))}
	total := r.signalBound(ls, &c.Notes)
	if v, o, found := r.find(ls, "timeout"); found {
		if t := msBound(v, o, found, &c.Notes, "total (node-fetch v2's timeout)"); !total.known() || (t.known() && t.D < total.D) {
			total = t
		}
	}
	c.set(Bound{Origin: OriginNone}, Bound{Origin: OriginNone}, total)
	c.Method = r.method(ls, "GET")
	c.IdempotencyKey = r.idempotencyKey(ls)
	c.Host = r.host(f, argAt(args, 0), nil)
}

// urlName says whether the argument at i is a name that holds a URL: typed string where it is
// declared, or named so (url, uri, href, endpoint, link).
func urlName(f *jsFile, i int) bool {
	if !f.ident(i) || !(f.is(i+1, ")") || f.is(i+1, ",")) {
		return false
	}
	name := strings.ToLower(f.t[i].text)
	for _, w := range []string{"url", "uri", "href", "endpoint", "link"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	if d := f.lookup(f.t[i].text, i); d != nil {
		return f.is(d.at+1, ":") && f.is(d.at+2, "string")
	}
	return false
}
