package check

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
)

// This file builds the chains of dependencies with via: and of the configs no via: took, and
// holds the catalogue's chain and layer checks: the rules of docs/design.md §8 in each format's words.

// chainOf builds a dependency's chain, outermost first: a job's queue (its tries), then each
// via: entry, with the dependency's layers: and its own policy at {self: true}.
func (e *engine) chainOf(d *Dependency) (*Chain, error) {
	cs := e.opts.Configs
	if cs == nil {
		cs = NewConfigs()
		e.opts.Configs = cs
	}
	ch := &Chain{Dependency: d.Name, dep: d, file: e.file}
	req := policy.Request{Method: d.Request.Method, HasKey: d.Policy.SendsKey(d.Request.IdempotencyKey)}
	if d.Caller.QueueRetries() {
		ch.Layers = append(ch.Layers, *queueLayer(d))
	}
	for _, ref := range d.Via {
		if ref.Source != "" {
			c, err := e.viaCall(ref, d)
			if err != nil {
				return nil, err
			}
			ch.call = c
			ch.Layers = append(ch.Layers, codeLayers(c)...)
			continue
		}
		if ref.Self {
			for _, pl := range d.Layers {
				ch.Layers = append(ch.Layers, *fileLayer(d, pl))
			}
			if !d.policyFromCall {
				// A policy taken from the call has no layer of its own: the call's
				// code layers are it.
				ch.Layers = append(ch.Layers, *selfLayer(d, req))
			}
			continue
		}
		l, err := cs.resolve(ref)
		if err != nil {
			return nil, err
		}
		if l.unloadable != nil {
			return nil, l.unloadable
		}
		l.forRequest(req)
		ch.Layers = append(ch.Layers, *l)
	}
	ch.compute()
	return ch, nil
}

// classOutcomes are the outcomes the policy model classifies for each failure class.
var classOutcomes = map[FailureClass]policy.Outcome{
	FailConnect: {Kind: policy.Refused},
	FailReset:   {Kind: policy.Reset},
	FailTimeout: {Kind: policy.Timeout},
	Fail5xx:     {Kind: policy.Status, Status: 500},
	Fail503:     {Kind: policy.Status, Status: 503},
	Fail429:     {Kind: policy.Status, Status: 429},
	Fail4xx:     {Kind: policy.Status, Status: 400},
}

// selfLayer is the dependency's own policy (patience.yaml) as a chain layer: the attempts
// per class are what policy.Policy.Retryable allows for the request.
func selfLayer(d *Dependency, req policy.Request) *ChainLayer {
	l := newLayer("patience", d.Name, d.at("policy"))
	l.pol, l.answer = d.Policy, answerApp
	for _, c := range FailureClasses {
		if d.Policy.Retryable(req, classOutcomes[c]) {
			l.retry[c] = d.Policy.Retry.MaxAttempts
		}
	}
	l.retryAt = d.at("retry.max_attempts")
	l.retryDefault = !d.set("retry.max_attempts")
	l.retryWhy = fmt.Sprintf("retry.max_attempts: %s", attemptsCount(d.Policy.Retry.MaxAttempts))
	if l.retryDefault {
		l.retryWhy = fmt.Sprintf("%s: %s attempts", d.Policy.Name, attemptsCount(d.Policy.Retry.MaxAttempts))
	}
	return l
}

// fileLayer is one of the check file's layers: (a caller above the policy, retrying every
// failure as often as it says).
func fileLayer(d *Dependency, pl policy.Layer) *ChainLayer {
	at := pl.Policy.Source["retry.max_attempts"]
	l := newLayer("layer", pl.Name, at)
	l.answer = answerApp
	l.retryClasses(pl.Policy.Retry.MaxAttempts, FailureClasses)
	l.retryWhy = "layers[].max_attempts: " + attemptsCount(pl.Policy.Retry.MaxAttempts)
	return l
}

// queueLayer is a job's queue: it re-runs the job on any failure, each run bounded by the
// job timeout (docs/design.md §5, "Queue jobs").
func queueLayer(d *Dependency) *ChainLayer {
	l := newLayer("queue", "queue", d.at("caller.tries", "caller"))
	l.answer = answerApp
	tries, _ := queueTries(d.Caller)
	l.retryClasses(tries, FailureClasses)
	l.pol.Retry = d.Caller.Queue
	l.pol.Timeout = d.Caller.Timeout
	l.retryWhy = "caller.tries: " + attemptsCount(tries)
	return l
}

// forRequest drops the retries a layer does not make for the dependency's request: a layer
// that does not retry outcome-unknown failures (reset, timeout, 5xx) of a non-idempotent
// request without a key (ingress-nginx without retry-non-idempotent) makes one attempt.
func (l *ChainLayer) forRequest(req policy.Request) {
	r := l.pol.Retry
	if req.Idempotent() || r.NonIdempotent == policy.NonIdempotentAlways || (r.NonIdempotent == policy.NonIdempotentWithKey && req.HasKey) {
		return
	}
	dropped := false
	unknown := []FailureClass{FailReset, FailTimeout, Fail5xx, Fail503}
	if l.unsentOnly {
		unknown = slices.DeleteFunc(slices.Clone(FailureClasses), func(c FailureClass) bool { return c == FailConnect })
	}
	for _, c := range unknown {
		if l.retryOf(c) != 1 {
			delete(l.retry, c)
			dropped = true
		}
	}
	switch {
	case dropped && l.unsentOnly:
		l.addDefault("%s does not retry a %s it sent: only a connection that never opened", kindTitle(l.Kind), req.Method)
	case dropped:
		l.addDefault("%s does not retry a %s after a reset, timeout or 5xx", kindTitle(l.Kind), req.Method)
	}
}

// retries says whether the layer retries any class.
func (l *ChainLayer) retries() bool {
	for _, c := range FailureClasses {
		if l.retryOf(c) != 1 {
			return true
		}
	}
	return false
}

// maxRetried is the most attempts the layer makes for any class.
func (l *ChainLayer) maxRetried() int {
	most := 1
	for _, c := range FailureClasses {
		n := l.retryOf(c)
		if n == policy.Unlimited {
			return n
		}
		most = max(most, n)
	}
	return most
}

// classText names a failure at the dependency: "a refused connection".
var classText = map[FailureClass]string{
	FailConnect: "a refused connection",
	FailReset:   "a connection reset",
	FailTimeout: "a hang",
	Fail5xx:     "a 500",
	Fail503:     "a 503",
	Fail429:     "a 429",
	Fail4xx:     "a 400",
}

// chainAmplification is PT009 on a chain: per failure class, the attempts that reach the
// dependency against max_amplification, naming each factor's source; the finding points at
// the layer that multiplies most (a default before a written value).
func chainAmplification(p *pass, ch *Chain) error {
	limit := DefaultMaxAmplification
	if ch.file != nil && ch.file.MaxAmplification > 0 {
		limit = ch.file.MaxAmplification
	}
	// Classes with the same count, the same main factor and the same product are one
	// finding ("a 500, a 503 or a 429 at ..."), so one default is not reported seven times.
	type group struct {
		classes []FailureClass
		v       float64
		main    *ChainLayer
		text    string
	}
	var groups []*group
	for _, c := range FailureClasses {
		v := ch.Attempts.Of(c)
		if v >= 0 && v <= limit {
			continue
		}
		main, text := ch.mainFactor(c), ch.factorsText(c)
		if u := ch.Uncapped.Of(c); u != v {
			text = countText(u) + " uncapped: " + text
		}
		found := false
		for _, g := range groups {
			if g.v == v && g.main == main && g.text == text {
				g.classes, found = append(g.classes, c), true
			}
		}
		if !found {
			groups = append(groups, &group{classes: []FailureClass{c}, v: v, main: main, text: text})
		}
	}
	for _, g := range groups {
		at := g.main.retryAt
		if at.Line == 0 {
			at = g.main.pos
		}
		what := make([]string, len(g.classes))
		for i, c := range g.classes {
			what[i] = classText[c]
		}
		failure := strings.Join(what, ", ")
		if n := len(what); n > 1 {
			failure = strings.Join(what[:n-1], ", ") + " or " + what[n-1]
		}
		fix := fmt.Sprintf("retry at one layer only: %s multiplies most here (%s); set its retries to what the others leave, or none", g.main.label(), g.main.retryWhy)
		if job := ch.jobLayer(); job != nil && job != g.main {
			fix = fmt.Sprintf("retry at one layer only — for a job, its tries (%s): remove the retries of %s (%s)", job.retryWhy, g.main.label(), g.main.retryWhy)
		}
		if g.v < 0 {
			p.reportFix(at, fix, "%s at %s: one request can send unbounded attempts (%s)", failure, ch.Dependency, g.text)
			continue
		}
		p.reportFix(at, fix, "%s at %s: one request becomes %s attempts (%s), above max_amplification %s", failure, ch.Dependency, countText(g.v), g.text, fmtNum(limit))
	}
	return nil
}

// jobLayer is the chain's code layer whose attempts are a job's tries, nil for none.
func (ch *Chain) jobLayer() *ChainLayer {
	for i := range ch.Layers {
		if ch.Layers[i].runs {
			return &ch.Layers[i]
		}
	}
	return nil
}

// configLayer says whether a layer was read from a config file (the patience.yaml layers
// have their own rules).
func configLayer(l *ChainLayer) bool {
	switch l.Kind {
	case "patience", "queue", "layer":
		return false
	}
	return true
}

// layerMissingTimeout is PT001 on a config layer.
func layerMissingTimeout(p *pass, ch *Chain, l *ChainLayer) error {
	if l.checks.noTimeout != "" {
		p.reportFix(l.atFor("PT001"), timeoutFix(l), "%s: %s", l.label(), l.checks.noTimeout)
	}
	return nil
}

// timeoutFix names the field that sets a timeout in the layer's format.
func timeoutFix(l *ChainLayer) string {
	switch l.Kind {
	case "istio":
		return "set `timeout:` on the VirtualService's http route (it includes retries) to what the caller waits"
	case "envoy":
		return "set the route's `timeout:` (it includes retries) instead of 0s"
	case "grpc":
		return "set the methodConfig's `timeout:` (the deadline for all attempts)"
	case "dapr":
		return "name a timeout policy in the target (`timeout: general` with spec.policies.timeouts.general)"
	case "linkerd":
		return "set the timeout.linkerd.io/request annotation"
	case "gateway-api":
		return "set the rule's timeouts.request (it includes retries) to what the caller waits"
	}
	return ""
}

// layerRetriesExceedBudget is PT004 on a config layer: its tries × the longest try (+ its
// backoff) against the caller's budget, within the layer's own timeout that includes retries.
func layerRetriesExceedBudget(p *pass, ch *Chain, l *ChainLayer) error {
	if ch.dep == nil || l.runs {
		return nil
	}
	limit := ch.dep.Caller.Limit()
	n := l.retryOf(FailTimeout)
	try := l.checks.tryTime
	if try == 0 {
		try = l.pol.Timeout + l.pol.ConnectTimeout
		if l.pol.Timeout == 0 {
			try = 0
		}
	}
	if limit == 0 || try == 0 || n == 1 {
		return nil
	}
	shown := n
	if n == policy.Unlimited {
		shown = int(math.Max(2, math.Ceil(float64(limit)/float64(try))+1))
	}
	total := time.Duration(shown) * try
	for _, w := range l.waits(shown) {
		total += w
	}
	if l.pol.Deadline > 0 && total > l.pol.Deadline {
		total = l.pol.Deadline
	}
	if total <= limit {
		return nil
	}
	text := l.checks.tryText
	if text == "" {
		text = "(" + units.Duration(try) + " each)"
	}
	fix := fmt.Sprintf("bound %s by the caller's budget (%s) — ingress-nginx: proxy-next-upstream-timeout; Envoy/Istio: the route timeout — or lower its tries", l.label(), units.Duration(limit))
	if l.Kind == "nginx" {
		fix = fmt.Sprintf("bound %s by the caller's budget (%s) with proxy_next_upstream_timeout, or lower proxy_next_upstream_tries", l.label(), units.Duration(limit))
	}
	if l.Kind == kindCode {
		fix = codeFix(l, "PT004")
	}
	p.reportFix(l.atFor("PT004"), fix,
		"%s tries up to %s × %s %s = %s on a hang, past %s: the last tries run for nobody", l.label(), attemptsCount(n), units.Duration(try), text, units.Duration(total), limitText(ch.dep.Caller, limit))
	return nil
}

// layerRetriesNonIdempotent is PT005 on a config layer: it retries outcome-unknown failures of
// a non-idempotent request without a key (Istio and Envoy do not look at the method).
func layerRetriesNonIdempotent(p *pass, ch *Chain, l *ChainLayer) error {
	req, known := ch.request()
	if !known || req.Idempotent() || req.HasKey {
		return nil
	}
	var unknown []FailureClass
	for _, c := range []FailureClass{FailReset, FailTimeout, Fail5xx, Fail503} {
		if l.retryOf(c) != 1 {
			unknown = append(unknown, c)
		}
	}
	if len(unknown) > 0 {
		who := kindTitle(l.Kind)
		if l.Kind == kindCode {
			who = l.Name
		}
		p.reportFix(l.atFor("PT005"), layerFix(l, "PT005"), "%s retries a %s on %s without an Idempotency-Key (%s does not look at the method): a %s after the provider committed executes it twice", l.label(), req.Method, classesText(unknown), who, unknown[0])
	}
	return nil
}

// layerNoJitter is PT006 on a config layer: retries that wait, without jitter.
func layerNoJitter(p *pass, ch *Chain, l *ChainLayer) error {
	r := l.pol.Retry
	if l.unknownWait || l.unknownJitter || !l.retries() || !noJitter(r) || len(l.waits(3)) == 0 || l.waits(3)[0] == 0 {
		return nil
	}
	words := l.checks.words["PT006"]
	if words == "" {
		words = fmt.Sprintf("%s retries without jitter (%s)", l.label(), delaysText(r))
	}
	p.reportFix(at(l, "PT006"), layerFix(l, "PT006"), "%s: every caller that failed together retries together", words)
	return nil
}

// layerClientErrors is PT007 on a config layer.
func layerClientErrors(p *pass, ch *Chain, l *ChainLayer) error {
	if n := l.retryOf(Fail4xx); n != 1 {
		why := ""
		if len(l.Defaults) > 0 {
			for _, d := range l.Defaults {
				if strings.Contains(d, "4xx") {
					why = " (" + d + ")"
				}
			}
		}
		p.reportFix(at(l, "PT007"), layerFix(l, "PT007"), "%s retries a 400%s: up to %s attempts that fail the same way and only add load", l.label(), why, attemptsCount(n))
	}
	return nil
}

// layerNoBudget is PT012 on a config layer: retries without the budget the format offers.
// A dependency that declares a rate below HighVolumeRate is not high-volume.
func layerNoBudget(p *pass, ch *Chain, l *ChainLayer) error {
	if l.checks.noBudget == "" || !l.retries() || l.pol.Breaker != nil {
		return nil
	}
	if ch.dep != nil && ch.dep.Caller.Rate > 0 && ch.dep.Caller.Rate < HighVolumeRate {
		return nil
	}
	p.reportFix(at(l, "PT012"), layerFix(l, "PT012"), "%s retries with no retry budget: %s; in an outage every retry goes on adding load", l.label(), l.checks.noBudget)
	return nil
}

// layerImmediate is PT013 on a config layer: retries that wait nothing.
func layerImmediate(p *pass, ch *Chain, l *ChainLayer) error {
	if l.unknownWait || !l.retries() {
		return nil
	}
	waits := l.waits(3)
	if len(waits) > 0 && waits[0] > 0 {
		return nil
	}
	words := l.checks.words["PT013"]
	if words == "" {
		words = l.label() + " retries at once"
	}
	p.reportFix(at(l, "PT013"), layerFix(l, "PT013"), "%s: a brief failure is retried at once, up to %s attempts, with no time to recover", words, attemptsCount(l.maxRetried()))
	return nil
}

// at is where a layer rule's finding points: the value the rule is about, else the line that
// set the retries, else the resource.
func at(l *ChainLayer, rule string) policy.Pos {
	if p, ok := l.checks.at[rule]; ok {
		return p
	}
	if l.retryAt.Line > 0 {
		return l.retryAt
	}
	return l.pos
}

// layerFixes are the fixes of the layer rules in each format's fields ("" = the rule's).
var layerFixes = map[string]map[string]string{
	"PT005": {
		"istio":         "send an Idempotency-Key, or set the route's retries.retryOn to connect-failure,refused-stream only (a request that never left)",
		"envoy":         "send an Idempotency-Key, or limit retry_on to connect-failure,refused-stream",
		"ingress-nginx": "remove retry-non-idempotent: true from the controller ConfigMap, or send an Idempotency-Key",
		"nginx":         "remove non_idempotent from proxy_next_upstream, or send an Idempotency-Key",
		"grpc":          "retry only UNAVAILABLE for non-idempotent methods, and send an idempotency key",
	},
	"PT006": {
		"resilience4j": "set enableRandomizedWait: true (randomizedWaitFactor 0.5) with enableExponentialBackoff: true",
		"dapr":         "use policy: exponential (Dapr randomizes its intervals) with maxInterval",
		"grpc":         "prefer retryPolicy (jittered exponential backoff) to hedgingPolicy for a dependency that fails under load",
	},
	"PT007": {
		"resilience4j": "set retryExceptions: [java.io.IOException, org.springframework.web.client.HttpServerErrorException] (or ignoreExceptions: [org.springframework.web.client.HttpClientErrorException])",
		"dapr":         "set matching.httpStatusCodes: \"429,500-599\" on the retry policy",
		"gateway-api":  "list only 5xx (and 429) in retry.codes",
		"linkerd":      "list only 5xx or gateway-error in retry.linkerd.io/http",
		"grpc":         "remove INTERNAL and the 4xx-like codes (INVALID_ARGUMENT, FAILED_PRECONDITION...) from retryableStatusCodes",
		"envoy":        "remove retriable-4xx and 4xx codes from retry_on / retriable_status_codes",
		"istio":        "remove 4xx codes from retries.retryOn",
		"nginx":        "remove http_403 and http_404 from proxy_next_upstream",
	},
	"PT012": {
		"istio":   "set trafficPolicy.retryBudget: {percent: 20, minRetryConcurrency: 3} in the DestinationRule (Istio ≥ 1.27), or connectionPool.http.maxRetries",
		"grpc":    "add \"retryThrottling\": {\"maxTokens\": 10, \"tokenRatio\": 0.1} to the service config",
		"linkerd": "use a ServiceProfile retryBudget, or keep retry.linkerd.io/limit at 1 and retry in one layer only",
	},
	"PT013": {
		"ingress-nginx": "set nginx.ingress.kubernetes.io/proxy-next-upstream-tries: \"1\" (or \"2\") and retry with backoff in one layer only",
		"nginx":         "set proxy_next_upstream_tries 1 (or 2) in the location and retry with backoff in one layer only",
		"resilience4j":  "set waitDuration: 500ms or more with enableExponentialBackoff: true",
		"dapr":          "set duration: (at least 1s) on the constant policy, or use policy: exponential",
		"grpc":          "set hedgingDelay above the dependency's p95",
	},
}

// layerFix is the fix for rule on a layer, in the layer's format.
func layerFix(l *ChainLayer, rule string) string {
	if l.Kind == kindCode {
		return codeFix(l, rule)
	}
	if f := layerFixes[rule][l.Kind]; f != "" {
		return f
	}
	return "change " + l.label() + " (" + l.File + ") or retry in one layer only"
}
