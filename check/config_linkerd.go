package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// Linkerd: ServiceProfile (legacy) and the 2.16+ retry and timeout annotations on a Service
// or an HTTPRoute (docs/formats.md#retries-nobody-wrote, #linkerd; linkerd/website
// 2.19/reference/service-profiles.md, retries.md, timeouts.md; 2.15/tasks/configuring-*.md).

const (
	// linkerdProfileTimeout is a ServiceProfile route's default timeout, retries included.
	linkerdProfileTimeout = 10 * time.Second
	// linkerdRetryRatio is a ServiceProfile's default retryBudget.retryRatio: "retries may
	// add at most an additional 20% to the request load".
	linkerdRetryRatio = 0.2
)

// serviceProfileLayers reads every route of a ServiceProfile: isRetryable routes retry
// within the profile's retry budget, bounded by the route timeout.
func serviceProfileLayers(d *configDoc) ([]*layerCandidate, error) {
	cf := d.file
	spec := get(d.node, "spec")
	ratio, budgetWhy := linkerdRetryRatio, "Linkerd default retryBudget: retryRatio 0.2"
	if rb := get(spec, "retryBudget"); rb != nil {
		if r := get(rb, "retryRatio"); r != nil {
			v, err := floatField(cf, r, "retryBudget.retryRatio")
			if err != nil {
				return nil, err
			}
			ratio, budgetWhy = v, fmt.Sprintf("retryBudget.retryRatio %s", fmtNum(v))
		}
	}
	var out []*layerCandidate
	for i, r := range items(get(spec, "routes")) {
		name := scalar(get(r, "name"))
		if name == "" {
			name = fmt.Sprintf("routes[%d]", i)
		}
		l := newLayer("linkerd", d.name+" "+name, posOf(cf, r))
		l.answer = answerNginx
		l.pol.Deadline = linkerdProfileTimeout
		if t := get(r, "timeout"); t != nil {
			v, err := goDuration(cf, t, "routes.timeout")
			if err != nil {
				return nil, err
			}
			l.pol.Deadline = v
			// "the maximum amount of time to wait for a response (including retries) to
			// complete" (linkerd.io 2.x tasks/configuring-timeouts): a stream's whole length
			// (PT017). Only a written one: the 10 s default is doubted upstream
			// (linkerd/website#1733), so it is not held against a stream.
			l.streamBound(streamBound{name: "timeout", d: v, at: posOf(cf, t)})
		} else {
			l.addDefault("Linkerd default: ServiceProfile route timeout 10s, retries included")
		}
		l.pol.Timeout = l.pol.Deadline
		if rt := get(r, "isRetryable"); scalar(rt) == "true" {
			// Budgeted, not counted: only the budget and the route timeout bound the retries.
			l.retryClasses(policy.Unlimited, []FailureClass{FailConnect, FailReset, Fail5xx, Fail503})
			l.retryAt, l.retryWhy = posOf(cf, rt), "isRetryable: true (retries bounded by the retry budget, not a count)"
			l.budget, l.budgetWhy = ratio, budgetWhy
			l.pol.Budget = &policy.Budget{Kind: policy.BudgetRatio, Percent: ratio}
			l.pol.Retry.NonIdempotent = policy.NonIdempotentAlways
		}
		out = append(out, &layerCandidate{layer: l, names: []string{d.name, name}, hosts: []string{d.name}, doc: d})
	}
	return out, nil
}

// hasLinkerdAnnotations says whether a resource carries retry.linkerd.io or
// timeout.linkerd.io annotations.
func hasLinkerdAnnotations(n *yaml.Node) bool {
	for _, kv := range pairs(get(get(n, "metadata"), "annotations")) {
		if strings.HasPrefix(kv[0].Value, "retry.linkerd.io/") || strings.HasPrefix(kv[0].Value, "timeout.linkerd.io/") {
			return true
		}
	}
	return false
}

// linkerdServiceLayers reads a Service's Linkerd annotations as one layer.
func linkerdServiceLayers(d *configDoc) ([]*layerCandidate, error) {
	l := newLayer("linkerd", d.name, d.pos)
	l.answer = answerNginx
	if err := linkerdAnnotations(d.file, l, get(get(d.node, "metadata"), "annotations")); err != nil {
		return nil, err
	}
	return []*layerCandidate{{layer: l, names: []string{d.name}, hosts: []string{d.name}, doc: d}}, nil
}

// linkerdAnnotations applies retry.linkerd.io/{http,limit,timeout} and
// timeout.linkerd.io/request: limit counts retries (default 1); the per-try timeout is the
// only retryable timeout; these retries are counted, with no budget.
func linkerdAnnotations(cf *ConfigFile, l *ChainLayer, anns *yaml.Node) error {
	if t := get(anns, "timeout.linkerd.io/request"); t != nil {
		v, err := goDuration(cf, t, "timeout.linkerd.io/request")
		if err != nil {
			return err
		}
		l.pol.Deadline, l.pol.Timeout = v, v
		l.streamBound(streamBound{name: "timeout.linkerd.io/request", d: v, at: posOf(cf, t)})
	} else if l.pol.Deadline == 0 {
		l.addDefault("Linkerd default: no request timeout (timeout.linkerd.io/request unset)")
		l.checks.noTimeout = "Linkerd annotations set no timeout.linkerd.io/request: a hung call waits until the caller gives up"
		l.setAt("PT001", l.pos)
	}
	if err := linkerdStreamAnnotations(cf, l, anns); err != nil {
		return err
	}
	h := get(anns, "retry.linkerd.io/http")
	if h == nil {
		return nil
	}
	var classes []FailureClass
	for _, tok := range splitList(scalar(h)) {
		switch tok {
		case "gateway-error":
			classes = append(classes, Fail503) // 502–504
		default:
			classes = append(classes, statusClasses([]string{tok})...)
		}
	}
	retries := 1
	l.retryWhy = "Linkerd default: retry.linkerd.io/limit 1"
	l.retryAt, l.retryDefault = posOf(cf, h), true
	if n := get(anns, "retry.linkerd.io/limit"); n != nil {
		v, err := intField(cf, n, "retry.linkerd.io/limit", 0)
		if err != nil {
			return err
		}
		retries, l.retryAt, l.retryDefault = v, posOf(cf, n), false
		l.retryWhy = fmt.Sprintf("retry.linkerd.io/limit: %d (retries)", v)
	} else {
		l.addDefault("Linkerd default: retry.linkerd.io/limit 1")
	}
	if t := get(anns, "retry.linkerd.io/timeout"); t != nil {
		v, err := goDuration(cf, t, "retry.linkerd.io/timeout")
		if err != nil {
			return err
		}
		l.pol.Timeout = v
		classes = append(classes, FailTimeout)
	}
	l.retryClasses(retries+1, classes)
	l.pol.Retry.NonIdempotent = policy.NonIdempotentAlways
	l.setAt("PT007", posOf(cf, h))
	l.setAt("PT005", posOf(cf, h))
	l.setAt("PT012", posOf(cf, h))
	l.checks.noBudget = "Linkerd annotation retries are counted, not budgeted: there is no retry budget on this path"
	return nil
}

// Kubernetes Gateway API HTTPRoute (docs/formats.md#gateway-api-httproute;
// kubernetes-sigs/gateway-api apis/v1/httproute_types.go): rules[].timeouts.request spans the
// transaction, backendRequest one backend request; rules[].retry (experimental) has codes,
// attempts (retries) and backoff (the minimum wait). What a rule leaves unsaid is
// "implementation-specific", so each rule is read as the implementation in use translates it
// (gateway_impl.go): Istio, Envoy Gateway, or — when nothing says which — the more attempts
// of the two per class, saying so in the layer's implementation and defaults. A route with
// Linkerd annotations is Linkerd's.
func gatewayLayers(d *configDoc, cs *Configs) ([]*layerCandidate, error) {
	cf := d.file
	spec := get(d.node, "spec")
	var hosts []string
	for _, h := range items(get(spec, "hostnames")) {
		hosts = append(hosts, scalar(h))
	}
	anns := get(get(d.node, "metadata"), "annotations")
	rules := items(get(spec, "rules"))
	var out []*layerCandidate
	for i, r := range rules {
		name := d.name
		if rn := scalar(get(r, "name")); rn != "" {
			name += "/" + rn
		} else if len(rules) > 1 {
			name = fmt.Sprintf("%s/rules[%d]", d.name, i)
		}
		var l *ChainLayer
		var err error
		if hasLinkerdAnnotations(d.node) {
			l, err = gatewaySpecLayer(cf, r, name)
		} else {
			l, err = gatewayImplLayer(cf, d, r, name, cs)
		}
		if err != nil {
			return nil, err
		}
		if hasLinkerdAnnotations(d.node) {
			l.Kind = "linkerd"
			l.answer = answerNginx
			if err := linkerdAnnotations(cf, l, anns); err != nil {
				return nil, err
			}
		}
		names := []string{d.name, name}
		for _, b := range items(get(r, "backendRefs")) {
			if s := scalar(get(b, "name")); s != "" {
				names = append(names, s)
			}
		}
		out = append(out, &layerCandidate{layer: l, names: names, hosts: hosts, doc: d})
	}
	return out, nil
}

// gatewaySpecLayer reads a rule by the Gateway API's own words only (a Linkerd route, whose
// annotations are then applied): retry without attempts counted as 1 retry.
func gatewaySpecLayer(cf *ConfigFile, r *yaml.Node, name string) (*ChainLayer, error) {
	l := newLayer("gateway-api", name, posOf(cf, r))
	l.answer = answerEnvoy
	envoyBackoff(l, envoyBackoffBase, 0)
	to := get(r, "timeouts")
	if t := get(to, "request"); t != nil {
		v, err := goDuration(cf, t, "timeouts.request")
		if err != nil {
			return nil, err
		}
		l.pol.Deadline, l.pol.Timeout = v, v
		l.streamBound(streamBound{name: "timeouts.request", d: v, at: posOf(cf, t), off: "timeouts.request: 0s"})
	} else {
		l.addDefault("Gateway API: request timeout implementation-specific when unset")
	}
	if t := get(to, "backendRequest"); t != nil {
		v, err := goDuration(cf, t, "timeouts.backendRequest")
		if err != nil {
			return nil, err
		}
		if l.pol.Deadline == 0 || v < l.pol.Deadline {
			l.pol.Timeout = v
			l.streamBound(streamBound{name: "timeouts.backendRequest", d: v, at: posOf(cf, t)})
		}
	}
	if rt := get(r, "retry"); rt != nil {
		var codes []string
		for _, c := range items(get(rt, "codes")) {
			codes = append(codes, scalar(c))
		}
		// "Implementations SHOULD retry on connection errors … if a retry stanza is
		// configured."
		classes := append([]FailureClass{FailConnect}, statusClasses(codes)...)
		retries := 1
		l.retryAt = posOf(cf, rt)
		l.retryWhy = "retry without attempts: implementation-specific, counted as 1 retry"
		l.retryDefault = true
		if n := get(rt, "attempts"); n != nil {
			v, err := intField(cf, n, "retry.attempts", 0)
			if err != nil {
				return nil, err
			}
			retries, l.retryAt, l.retryDefault = v, posOf(cf, n), false
			l.retryWhy = fmt.Sprintf("retry.attempts: %d (retries)", v)
		} else {
			l.addDefault("Gateway API: retry.attempts unset is implementation-specific (counted as 1 retry)")
		}
		l.retryClasses(retries+1, classes)
		l.setAt("PT007", posOf(cf, get(rt, "codes")))
		if b := get(rt, "backoff"); b != nil {
			v, err := goDuration(cf, b, "retry.backoff")
			if err != nil {
				return nil, err
			}
			envoyBackoff(l, v, 0)
			l.setAt("PT013", posOf(cf, b))
		}
	}
	return l, nil
}

// linkerdStreamAnnotations records for PT017 the Linkerd 2.16+ timeouts that bound a stream
// besides timeout.linkerd.io/request (linkerd.io 2.x reference/timeouts.md: "response: the
// maximum amount of time a backend response may be in-flight", "idle: the maximum amount of
// time a stream may be idle, regardless of its state"; linkerd2-proxy#3088: idle means no
// DATA frame). retry.linkerd.io/timeout bounds the response headers only (linkerd2-proxy#3088),
// which a stream sends at once: it is not held against one.
func linkerdStreamAnnotations(cf *ConfigFile, l *ChainLayer, anns *yaml.Node) error {
	for _, a := range []struct {
		key  string
		idle bool
	}{{"timeout.linkerd.io/response", false}, {"timeout.linkerd.io/idle", true}} {
		t := get(anns, a.key)
		if t == nil {
			continue
		}
		v, err := goDuration(cf, t, a.key)
		if err != nil {
			return err
		}
		l.streamBound(streamBound{idle: a.idle, name: a.key, d: v, at: posOf(cf, t)})
		if a.idle {
			l.idle = v
		}
	}
	return nil
}
