package check

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/source"
)

// This file turns the retry layers the code puts around a call (source.Call.Layers, else
// Retry) into chain layers of kind "code", so that the catalogue's layer and chain rules —
// PT004, PT005, PT006, PT007, PT009, PT013 — judge them with the same definitions as a
// config's layers (issue 28 items 3 and 4, docs/formats.md "Source code" and "via:"). A call is
// a chain of its own (its code layers), or the first layers of the configs that route its
// literal host, or the first layers of the dependency whose via: names it.

// kindCode is a chain layer read from source code: one retry layer around a call, or the call
// itself when nothing retries it.
const kindCode = "code"

// callUnbounded says whether a layer retries without bound: a count the reader could not
// give a number (MaxAttempts 0) because nothing stops it — tenacity's bare @retry, a job's
// $tries = 0 — and no deadline of its own. The readers say so in Unresolved, in the words of
// unboundedWords (docs/formats.md "Source code: retry layers and the join").
func callUnbounded(r source.Retry) bool {
	if r.MaxAttempts > 0 || r.DeadlineMS != nil {
		return false
	}
	why := strings.ToLower(r.Unresolved)
	return slices.ContainsFunc(unboundedWords, func(w string) bool { return strings.Contains(why, w) })
}

// unboundedWords are how a reader's Unresolved says that nothing stops a layer.
var unboundedWords = []string{"forever", "without limit"}

// CallAttempts is the attempts one logical request through the call can make — the product of
// its layers (source.Call.Attempts) — with unbounded set when a layer retries without bound
// and known false when a layer's count is unresolved (then n is 0).
func CallAttempts(c *Call) (n int, unbounded, known bool) {
	for _, l := range callRetries(c) {
		if callUnbounded(l) {
			return 0, true, true
		}
	}
	n = c.Attempts()
	return n, false, n > 0
}

// callRetries are the call's retry layers, outermost first: Layers, else Retry alone.
func callRetries(c *Call) []source.Retry {
	if len(c.Layers) > 0 {
		return c.Layers
	}
	if c.Retry != nil {
		return []source.Retry{*c.Retry}
	}
	return nil
}

// codeLayers are the call's layers as chain layers, outermost first; the innermost carries
// the call's own bounds (its total bounds each attempt of the layers outside it). A call with
// no retry layer is one layer of one attempt: the code that sends it.
func codeLayers(c *Call) []ChainLayer {
	rs := callRetries(c)
	if len(rs) == 0 {
		rs = []source.Retry{{Layer: c.Library, MaxAttempts: 1}}
	}
	out := make([]ChainLayer, len(rs))
	for i, r := range rs {
		out[i] = *codeLayer(c, r, i == len(rs)-1)
		out[i].runs = i == 0 && len(rs) > 1 && (c.Context == "job" || strings.HasSuffix(r.Layer, "job"))
	}
	return out
}

// codeLayer is one retry layer of a call, at the line that sets it (the call's own when the
// client is built at the call).
func codeLayer(c *Call, r source.Retry, innermost bool) *ChainLayer {
	at := policy.Pos{File: c.File, Line: c.Line, Col: c.Col}
	if r.File != "" && r.Line > 0 {
		at = policy.Pos{File: r.File, Line: r.Line}
	}
	l := newLayer(kindCode, r.Layer, at)
	l.answer = answerApp
	switch {
	case callUnbounded(r):
		l.retryClasses(policy.Unlimited, codeClasses(l, r.On))
		l.retryWhy = fmt.Sprintf("%s: no limit (%s)", r.Layer, r.Unresolved)
	case r.MaxAttempts > 1:
		l.retryClasses(r.MaxAttempts, codeClasses(l, r.On))
		l.retryWhy = fmt.Sprintf("%s: %d attempts", r.Layer, r.MaxAttempts)
	case r.MaxAttempts <= 0:
		l.addDefault("%s's attempts are not static (%s): counted as 1, at least", r.Layer, orText(r.Unresolved, "unresolved"))
	}
	l.pol.Timeout = msDur(r.TimeoutMS)
	l.pol.Deadline = msDur(r.DeadlineMS)
	if innermost {
		// The call's own bounds: the total bounds each attempt (connect included), so PT004
		// counts a try as the total alone.
		l.pol.Timeout = msDur(c.Timeouts.TotalMS)
		l.pol.ConnectTimeout = msDur(c.Timeouts.ConnectMS)
		l.pol.ReadTimeout = msDur(c.Timeouts.ReadMS)
		l.checks.tryTime = l.pol.Timeout
	}
	codeBackoff(l, r.Backoff)
	return l
}

// orText is s, or alt when s is empty.
func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// chosen is a bound the code sets (explicit, or on its client), 0 for a default or none.
func chosen(ms *int64, o source.Origin) time.Duration {
	if o != source.OriginExplicit && o != source.OriginClient {
		return 0
	}
	return msDur(ms)
}

// msDur is a bound in milliseconds as a duration, 0 for none.
func msDur(ms *int64) time.Duration {
	if ms == nil || *ms <= 0 {
		return 0
	}
	return time.Duration(*ms) * time.Millisecond
}

// codeClasses are the failure classes a code layer retries, from its on: list in
// patience.yaml's words. A layer whose policy the reader did not read (nil) is taken to retry
// every failure but a 4xx — a transport error, a hang and a 5xx are what every retry layer
// retries — and its Defaults say so.
func codeClasses(l *ChainLayer, on []string) []FailureClass {
	if on == nil {
		l.addDefault("%s's retry policy is its own code, not read: taken to retry every failure but a 4xx", l.Name)
		return []FailureClass{FailConnect, FailReset, FailTimeout, Fail5xx, Fail503, Fail429}
	}
	var out []FailureClass
	add := func(cs ...FailureClass) {
		for _, c := range cs {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	for _, tok := range on {
		switch strings.ToLower(strings.TrimSpace(tok)) {
		case "connect":
			add(FailConnect)
		case "reset":
			add(FailReset)
		case "timeout":
			add(FailTimeout)
		default:
			add(statusClasses([]string{tok})...)
		}
	}
	return out
}

// codeBackoff writes the layer's wait between attempts as the code gives it; a layer whose
// code says nothing of it (nil, or no jitter word) is not judged by PT013 (nil) or PT006.
func codeBackoff(l *ChainLayer, b *source.Backoff) {
	r := &l.pol.Retry
	if b == nil {
		l.unknownWait, l.unknownJitter = true, true
		return
	}
	switch {
	case len(b.ScheduleMS) == 1:
		r.Backoff, r.Base = policy.BackoffConstant, time.Duration(b.ScheduleMS[0])*time.Millisecond
	case len(b.ScheduleMS) > 1:
		r.Backoff = policy.BackoffList
		for _, ms := range b.ScheduleMS {
			r.Delays = append(r.Delays, time.Duration(ms)*time.Millisecond)
		}
	case b.InitialMS != nil:
		r.Backoff, r.Base, r.Multiplier = policy.BackoffExponential, msDur(b.InitialMS), 2
		if b.Multiplier != nil {
			r.Multiplier = *b.Multiplier
		}
		r.Cap = msDur(b.MaxMS)
	default:
		l.unknownWait = true
	}
	switch b.Jitter {
	case "":
		// Waits the code lists one by one are its own: no library we read jitters them.
		l.unknownJitter = len(b.ScheduleMS) == 0
	case "none":
		r.Jitter = policy.JitterNone
	case "decorrelated":
		r.Backoff, r.Jitter = policy.BackoffDecorrelated, policy.JitterNone
	case "proportional", "randomized":
		// The code spreads each wait by a factor (the seeds' random_int(0, intdiv($s, 4)):
		// proportional; failsafe-go's WithJitterFactor: randomized), jittered by its factor
		// where it writes one.
		r.Jitter = policy.Jitter(b.Jitter)
		if b.JitterFactor != nil {
			r.JitterFactor = *b.JitterFactor
		} else {
			l.unknownJitter = true
		}
	default:
		r.Jitter = policy.Jitter(b.Jitter)
	}
}

// callRequest is the request a call sends, in the policy model, when the code shows both its
// method and whether it carries an Idempotency-Key; ok false otherwise (never guessed).
func callRequest(c *Call) (req policy.Request, ok bool) {
	if c == nil || c.Method == "" || c.IdempotencyKey == nil {
		return policy.Request{}, false
	}
	return policy.Request{Method: c.Method, HasKey: *c.IdempotencyKey}, true
}

// request is the request the chain carries: its dependency's, else its call's.
func (ch *Chain) request() (policy.Request, bool) {
	if ch.dep != nil {
		return policy.Request{Method: ch.dep.Request.Method, HasKey: ch.dep.Policy.SendsKey(ch.dep.Request.IdempotencyKey)}, true
	}
	return callRequest(ch.call)
}

// callChain is a call's chain not joined to a dependency: its code layers, then the config
// layers that route its host (hosted), outermost first.
func callChain(c *Call, hosted []*ChainLayer, f *File) *Chain {
	// Named by the host the configs route, else by the call (several calls of one host
	// without a config are chains of their own).
	name := c.Host
	if len(hosted) == 0 {
		name = callSubject(c) + " at " + fmt.Sprintf("%s:%d", c.File, c.Line)
	}
	ch := &Chain{Dependency: name, Layers: codeLayers(c), call: c, file: f}
	req, known := callRequest(c)
	for _, l := range hosted {
		if known {
			l.forRequest(req)
		}
		ch.Layers = append(ch.Layers, *l)
	}
	ch.compute()
	return ch
}

// codeRules are the chain and layer rules that judge code layers (issue 28 item 3): the
// others read what only a config has (PT001's and PT012's format words, PT017's stream
// bounds) and are left to the calls whose chain holds a config.
var codeRules = map[string]bool{"PT004": true, "PT005": true, "PT006": true, "PT007": true, "PT009": true, "PT013": true}

// codeOnly says whether every layer of the chain was read from code.
func (ch *Chain) codeOnly() bool {
	for i := range ch.Layers {
		if ch.Layers[i].Kind != kindCode {
			return false
		}
	}
	return true
}

// judged says whether a call's chain is worth judging and listing: a call with a retry layer
// or with configs joined to it. A call sent once with nothing around it has no chain (its
// row in the inventory says all there is).
func judged(ch *Chain) bool {
	return len(ch.Layers) > 1 || ch.Layers[0].retries()
}

// hostLayers are the layers of the configs read that route host — an Istio VirtualService's
// hosts, an Envoy virtual host's domains, an HTTPRoute's hostnames, an Ingress rule's host —
// the proxies first and the meshes after (the call leaves through its sidecar last: code →
// proxy → mesh → dependency). The documents taken are no inferred chains of their own.
func (cs *Configs) hostLayers(host string) ([]*ChainLayer, error) {
	if cs == nil || host == "" {
		return nil, nil
	}
	if cs.hostDocs == nil {
		if err := cs.indexHosts(); err != nil {
			return nil, err
		}
	}
	var out []*ChainLayer
	for _, d := range cs.hostDocs[strings.ToLower(host)] {
		cands, err := d.layers(cs) // fresh layers: the chain changes them (forRequest)
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			if slices.ContainsFunc(c.hosts, func(h string) bool { return strings.EqualFold(h, host) }) {
				cs.used[d] = true
				out = append(out, c.layer)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b *ChainLayer) int { return meshRank(a.Kind) - meshRank(b.Kind) })
	return out, nil
}

// indexHosts maps each host a config layer routes (lower case) to the documents that hold
// such a layer, once per run: a tree with many calls reads each config's layers once here. A
// document a dependency's via: took is in that chain already (the dependencies are checked
// first), not joined again.
func (cs *Configs) indexHosts() error {
	cs.hostDocs = map[string][]*configDoc{}
	for _, cf := range cs.Files {
		for _, d := range cf.docs {
			if cs.used[d] {
				continue
			}
			cands, err := d.layers(cs)
			if err != nil {
				return err
			}
			for _, c := range cands {
				for _, h := range c.hosts {
					h = strings.ToLower(h)
					if !slices.Contains(cs.hostDocs[h], d) {
						cs.hostDocs[h] = append(cs.hostDocs[h], d)
					}
				}
			}
		}
	}
	return nil
}

// meshRank orders the layers of a host: proxies (0) before the meshes' sidecars (1).
func meshRank(kind string) int {
	switch kind {
	case "istio", "linkerd":
		return 1
	}
	return 0
}

// codeFixes are the layer rules' fixes for a retry layer in code, %s its name: the line to
// change is in the code, not in a config.
var codeFixes = map[string]string{
	"PT004": "bound %s by the caller's budget: a deadline over all its attempts (a context deadline, stop_after_delay, retryUntil()), or fewer attempts",
	"PT005": "set an Idempotency-Key header on the request (the same key on every attempt), or stop %s retrying it on a timeout, reset or 5xx",
	"PT006": "add jitter to %s's backoff (full jitter: a random wait in [0, d])",
	"PT007": "make %s retry only 408, 409, 429 and 5xx (and transport errors), never another 4xx",
	"PT013": "give %s a growing backoff (exponential from 100 ms or more, with jitter)",
}

// layerCodeFixes are fixes in a retry library's own API, by layer and rule, before codeFixes.
var layerCodeFixes = map[string]map[string]string{
	"go-retryablehttp": {
		"PT005": `set an Idempotency-Key header on the request (req.Header.Set("Idempotency-Key", key), the same key on every retry), or give the client a CheckRetry that does not retry this request on an unknown outcome`,
		"PT006": "set the client's Backoff to retryablehttp.LinearJitterBackoff (jittered waits between RetryWaitMin and RetryWaitMax), or a Backoff of your own with full jitter",
	},
}

// codeFix is rule's fix for a retry layer in code.
func codeFix(l *ChainLayer, rule string) string {
	if f, ok := layerCodeFixes[l.Name][rule]; ok {
		return f
	}
	if f, ok := codeFixes[rule]; ok {
		return fmt.Sprintf(f, l.Name)
	}
	return fmt.Sprintf("change %s at %s:%d, or retry in one layer only", l.Name, l.File, l.Line)
}

// viaCall resolves a via: entry that names a call site ({source: FILE, line: N}) among the
// source files read in the same run, joins every call it names to the dependency
// (Call.Dependency) and returns the one whose layers open the chain: the one that makes the
// most attempts (the worst case, when line: is left out and the file has several). A file
// not read, or a line with no call, is an input error at the entry.
func (e *engine) viaCall(ref ViaRef, d *Dependency) (*Call, error) {
	errAt := func(field, format string, a ...any) error {
		at := ref.SourcePos
		if field == "line" {
			at = ref.LinePos
		}
		return &scenario.Error{File: at.File, Line: at.Line, Col: at.Col, Field: ref.Field + "." + field, Msg: fmt.Sprintf(format, a...)}
	}
	sf := e.opts.sourceFile(ref.Source)
	if sf == nil {
		return nil, errAt("source", "%s was not read in this run: name it (or its directory) on the command line with the check file, e.g. patience check %s %s", ref.Source, fileOr(e.file.Path, "patience.yaml"), ref.Source)
	}
	var calls []*Call
	var lines []string
	for i := range sf.Calls {
		c := &sf.Calls[i]
		lines = append(lines, strconv.Itoa(c.Line))
		if ref.Line == 0 || c.Line == ref.Line {
			calls = append(calls, c)
		}
	}
	switch {
	case len(sf.Calls) == 0:
		return nil, errAt("source", "%s makes no outbound HTTP call check recognises", ref.Source)
	case len(calls) == 0:
		return nil, errAt("line", "no outbound call at %s:%d (its calls are on lines %s)", ref.Source, ref.Line, strings.Join(slices.Compact(lines), ", "))
	}
	worst := calls[0]
	for _, c := range calls {
		c.Dependency = d.Name
		if callWeight(c) > callWeight(worst) {
			worst = c
		}
	}
	return worst, nil
}

// callWeight orders calls by the attempts they make: unbounded first, then the product.
func callWeight(c *Call) int {
	n, unbounded, _ := CallAttempts(c)
	if unbounded {
		return math.MaxInt
	}
	return n
}

// sourceFile is the source file read at path (compared cleaned and absolute), or nil.
func (o *Options) sourceFile(path string) *SourceFile {
	want := absPath(path)
	for _, sf := range o.Sources {
		if sf.Path == path || absPath(sf.Path) == want {
			return sf
		}
	}
	return nil
}

// absPath is path made absolute and clean (itself when that fails).
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return filepath.Clean(path)
}

// callBudgetRules are the dependency rules that judge a joined call's own timeouts against
// the dependency's caller budget (issue 28 item 3): PT002 its connect timeout against its
// total, PT003 its total against the budget. PT004 judges its layers (layerRetriesExceedBudget).
var callBudgetRules = map[string]bool{"PT002": true, "PT003": true}

// callTimeoutRules are the dependency rules that read the policy's timeouts: a dependency
// whose policy is its call's (policyFromCall) leaves them to the call — PT001 at the call
// (callMissingTimeout), PT002 and PT003 on callDependency — since its own policy has none.
var callTimeoutRules = map[string]bool{"PT001": true, "PT002": true, "PT003": true, "PT015": true}

// callDependency is d with the joined call's timeouts as its policy's, each at the call:
// the dependency rules of callBudgetRules then judge what the code does, reported at its line.
// nil when the call's total is not known (never guessed).
func callDependency(d *Dependency, c *Call) *Dependency {
	if c == nil || c.Timeouts.TotalMS == nil {
		return nil
	}
	cd := *d
	pol := d.Policy.Clone()
	// A library's own connect or read bound is no choice the code made (Go's 30 s dial under a
	// 2 s Client.Timeout): PT002 judges the ones it sets.
	pol.Timeout, pol.ConnectTimeout, pol.ReadTimeout, pol.Deadline = msDur(c.Timeouts.TotalMS), chosen(c.Timeouts.ConnectMS, c.Origin.Connect), chosen(c.Timeouts.ReadMS, c.Origin.Read), 0
	at := callAt(c)
	pol.Source = maps.Clone(pol.Source)
	if pol.Source == nil {
		pol.Source = map[string]policy.Pos{}
	}
	cd.pos = maps.Clone(d.pos)
	for _, k := range []string{"timeout", "connect_timeout", "read_timeout", "deadline"} {
		pol.Source[k] = at
		delete(cd.pos, k)
	}
	cd.Policy = pol
	return &cd
}
