package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// Envoy (config-and-log-sources.md §A1; data-plane-api route_components.proto,
// cluster/v3/circuit_breaker.proto, outlier_detection.proto; envoy router_filter.rst).
const (
	// envoyRouteTimeout is RouteAction.timeout's default: 15 s, including every retry.
	envoyRouteTimeout = 15 * time.Second
	// envoyBackoffBase is retry_back_off.base_interval's default; max_interval defaults to
	// 10 × base. Full jitter: retry N waits U[0, (2^N−1)·base).
	envoyBackoffBase = 25 * time.Millisecond
	// envoyConnectTimeout is Cluster.connect_timeout's default.
	envoyConnectTimeout = 5 * time.Second
)

// envoyResources says whether root is an xDS response or a file of resources with Envoy
// @type names.
func envoyResources(root *yaml.Node) bool {
	for _, r := range items(get(root, "resources")) {
		if strings.Contains(scalar(get(r, "@type")), "envoy.config.") {
			return true
		}
	}
	return false
}

// envoyRetryOn maps Envoy retry_on tokens (and Istio's, which adds bare status codes,
// istio/istio retry.go parseRetryOn) to failure classes; codes are retriable_status_codes.
//   - 5xx: any 5xx, and no response at all (disconnect, reset, per-try timeout); includes
//     connect-failure and refused-stream (router_filter.rst, §A1).
//   - gateway-error: 502, 503, 504 — a connect failure, reset or per-try timeout ends as one
//     of them, so those classes are retried too (Envoy counts a reset as a 5xx).
//   - reset: disconnect, reset, per-try read timeout.
//   - connect-failure; retriable-status-codes: the listed codes; retriable-4xx: 409 only,
//     none of check's classes.
func envoyRetryOn(tokens []string, codes []string) []FailureClass {
	var out []FailureClass
	add := func(cs ...FailureClass) {
		for _, c := range cs {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	for _, t := range tokens {
		switch t = strings.TrimSpace(t); t {
		case "5xx":
			add(FailConnect, FailReset, FailTimeout, Fail5xx, Fail503)
		case "gateway-error":
			add(FailConnect, FailReset, FailTimeout, Fail503)
		case "reset":
			add(FailConnect, FailReset, FailTimeout)
		case "connect-failure":
			add(FailConnect)
		case "retriable-status-codes":
			add(statusClasses(codes)...)
		default:
			if len(t) == 3 && t[0] >= '1' && t[0] <= '5' {
				add(statusClasses([]string{t})...) // Istio: an integer is a status code
			}
		}
	}
	// Keep the classes in their JSON order.
	slices.SortFunc(out, func(a, b FailureClass) int { return slices.Index(FailureClasses, a) - slices.Index(FailureClasses, b) })
	return out
}

// envoyBackoff sets Envoy's retry backoff: exponential from base, capped at max (default
// 10 × base), full jitter.
func envoyBackoff(l *ChainLayer, base, maxInterval time.Duration) {
	if maxInterval <= 0 {
		maxInterval = 10 * base
	}
	r := &l.pol.Retry
	r.Backoff, r.Base, r.Multiplier, r.Cap, r.Jitter = policy.BackoffExponential, base, 2, maxInterval, policy.JitterFull
	r.NonIdempotent = policy.NonIdempotentAlways // Envoy does not look at the method
}

// envoyLayers reads every route of every RouteConfiguration in the document (a bootstrap's
// static_resources, an RDS response or a bare route config) with the cluster it routes to.
func envoyLayers(d *configDoc) ([]*layerCandidate, error) {
	cf := d.file
	clusters := map[string]*yaml.Node{}
	var walk func(n *yaml.Node, depth int)
	var vhostsAt []*yaml.Node
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 24 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			if vh := get(n, "virtual_hosts"); vh != nil {
				vhostsAt = append(vhostsAt, vh)
			}
			for _, c := range items(get(n, "clusters")) {
				if name := scalar(get(c, "name")); name != "" {
					clusters[name] = c
				}
			}
			for _, kv := range pairs(n) {
				if kv[0].Value != "virtual_hosts" {
					walk(kv[1], depth+1)
				}
			}
		case yaml.SequenceNode:
			for _, c := range items(n) {
				walk(c, depth+1)
			}
		}
	}
	walk(d.node, 0)
	var out []*layerCandidate
	for _, vhs := range vhostsAt {
		for _, vh := range items(vhs) {
			vname := scalar(get(vh, "name"))
			var domains []string
			for _, dn := range items(get(vh, "domains")) {
				domains = append(domains, scalar(dn))
			}
			for ri, r := range items(get(vh, "routes")) {
				ra := get(r, "route")
				if ra == nil {
					continue
				}
				l, err := envoyRoute(cf, vh, r, ra, clusters)
				if err != nil {
					return nil, err
				}
				name := scalar(get(r, "name"))
				if name == "" {
					name = fmt.Sprintf("%s/routes[%d]", vname, ri)
				}
				l.Name = name
				names := []string{name, vname}
				if c := scalar(get(ra, "cluster")); c != "" {
					names = append(names, c)
				}
				out = append(out, &layerCandidate{layer: l, names: names, hosts: domains, doc: d})
			}
		}
	}
	return out, nil
}

func envoyRoute(cf *ConfigFile, vh, r, ra *yaml.Node, clusters map[string]*yaml.Node) (*ChainLayer, error) {
	l := newLayer("envoy", "", posOf(cf, r))
	l.answer = answerEnvoy
	l.pol.Deadline = envoyRouteTimeout
	if t := get(ra, "timeout"); t != nil {
		v, err := goDuration(cf, t, "route.timeout")
		if err != nil {
			return nil, err
		}
		l.pol.Deadline = v // 0 disables it
		l.setAt("PT001", posOf(cf, t))
	} else {
		l.addDefault("Envoy default: route timeout 15s, including retries (no `timeout` on this route)")
	}
	if l.pol.Deadline == 0 {
		l.checks.noTimeout = "Envoy route `timeout: 0s` disables the route timeout"
	}
	l.pol.Timeout = l.pol.Deadline // per_try_timeout unset = the route timeout
	rp, rpOwner := get(ra, "retry_policy"), "route"
	if rp == nil {
		rp, rpOwner = get(vh, "retry_policy"), "virtual host" // a route's policy replaces the vhost's
	}
	envoyBackoff(l, envoyBackoffBase, 0)
	if rp == nil {
		l.addDefault("Envoy default: no retries without a retry_policy")
	} else {
		if err := envoyRetryPolicy(cf, l, rp, rpOwner); err != nil {
			return nil, err
		}
	}
	if c := clusters[scalar(get(ra, "cluster"))]; c != nil {
		if err := envoyCluster(cf, l, c); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// envoyRetryPolicy reads a RetryPolicy: num_retries counts retries (default 1 once a policy
// exists), per_try_timeout applies only below the route timeout.
func envoyRetryPolicy(cf *ConfigFile, l *ChainLayer, rp *yaml.Node, owner string) error {
	retries := 1
	l.retryAt = posOf(cf, rp)
	l.retryWhy = "Envoy default: num_retries 1 (retry_policy without num_retries)"
	if n := getAny(rp, "num_retries", "max_retries"); n != nil {
		v, err := intField(cf, n, "retry_policy.num_retries", 0)
		if err != nil {
			return err
		}
		retries, l.retryAt = v, posOf(cf, n)
		l.retryWhy = fmt.Sprintf("num_retries: %d on the %s", v, owner)
	} else {
		l.retryDefault = true
		l.addDefault("Envoy default: num_retries 1 once a retry_policy is present")
	}
	var codes []string
	for _, c := range items(get(rp, "retriable_status_codes")) {
		codes = append(codes, scalar(c))
	}
	on := get(rp, "retry_on")
	classes := envoyRetryOn(splitList(scalar(on)), codes)
	l.retryClasses(retries+1, classes)
	l.setAt("PT005", posOf(cf, on))
	l.setAt("PT007", posOf(cf, on))
	if pt := get(rp, "per_try_timeout"); pt != nil {
		v, err := goDuration(cf, pt, "retry_policy.per_try_timeout")
		if err != nil {
			return err
		}
		if v > 0 && (l.pol.Deadline == 0 || v < l.pol.Deadline) {
			l.pol.Timeout = v // at or above the route timeout it is ignored (§A1)
		}
	}
	if bo := get(rp, "retry_back_off"); bo != nil {
		base, maxI := envoyBackoffBase, time.Duration(0)
		if b := get(bo, "base_interval"); b != nil {
			v, err := goDuration(cf, b, "retry_back_off.base_interval")
			if err != nil {
				return err
			}
			base = v
		}
		if m := get(bo, "max_interval"); m != nil {
			v, err := goDuration(cf, m, "retry_back_off.max_interval")
			if err != nil {
				return err
			}
			maxI = v
		}
		envoyBackoff(l, base, maxI)
		l.setAt("PT013", posOf(cf, bo))
	}
	return nil
}

// envoyCluster reads the cluster's connect timeout, retry budget and outlier detection.
func envoyCluster(cf *ConfigFile, l *ChainLayer, c *yaml.Node) error {
	l.pol.ConnectTimeout = envoyConnectTimeout
	if ct := get(c, "connect_timeout"); ct != nil {
		v, err := goDuration(cf, ct, "cluster.connect_timeout")
		if err != nil {
			return err
		}
		l.pol.ConnectTimeout = v
	}
	budget := false
	for _, th := range items(get(get(c, "circuit_breakers"), "thresholds")) {
		if rb := get(th, "retry_budget"); rb != nil {
			pct := 20.0
			if v := get(get(rb, "budget_percent"), "value"); v != nil {
				f, err := floatField(cf, v, "retry_budget.budget_percent.value")
				if err != nil {
					return err
				}
				pct = f
			}
			l.budget, l.budgetWhy, budget = pct/100, fmt.Sprintf("retry_budget %s%% of active requests", fmtNum(pct)), true
			l.pol.Budget = &policy.Budget{Kind: policy.BudgetRatio, Percent: pct / 100}
		}
	}
	if !budget {
		l.addDefault("Envoy default: circuit_breakers max_retries 3 concurrent retries per cluster (no retry_budget)")
	}
	if get(c, "outlier_detection") != nil {
		l.pol.Breaker = &policy.Breaker{}
	}
	return nil
}
