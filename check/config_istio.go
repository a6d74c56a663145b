package check

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// Istio VirtualService, DestinationRule and the mesh default retry policy
// (docs/formats.md#retries-nobody-wrote, #istio-virtualservice-and-destinationrule; istio/api networking/v1alpha3/virtual_service.proto,
// destination_rule.proto, mesh/v1alpha1/config.proto; istio/istio
// pilot/pkg/networking/core/route/retry/retry.go).

// istioDefaultRetryOn is what retry.go's defaultPolicy retries on every HTTP route whose
// VirtualService has no `retries`: 503 is in retriable-status-codes only when
// EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY=false, and it defaults to true, so of check's classes
// only connect failures are retried.
const istioDefaultRetryOn = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"

// istioDefaultRetries is the mesh default: 2 retries (3 attempts).
const istioDefaultRetries = 2

// istioLayers reads every http route of a VirtualService. With cs, each route is merged with
// the DestinationRule of its destination host and with the mesh's defaultHttpRetryPolicy.
func istioLayers(d *configDoc, cs *Configs) ([]*layerCandidate, error) {
	cf := d.file
	spec := get(d.node, "spec")
	var hosts []string
	for _, h := range items(get(spec, "hosts")) {
		hosts = append(hosts, scalar(h))
	}
	var out []*layerCandidate
	routes := items(get(spec, "http"))
	for i, r := range routes {
		name := d.name
		if rn := scalar(get(r, "name")); rn != "" {
			name = d.name + "/" + rn
		} else if len(routes) > 1 {
			name = fmt.Sprintf("%s/http[%d]", d.name, i)
		}
		l, err := istioRouteLayer(cf, d, r, name, cs)
		if err != nil {
			return nil, err
		}
		names := []string{d.name, name}
		if rn := scalar(get(r, "name")); rn != "" {
			names = append(names, rn)
		}
		dest := hosts
		for _, rt := range items(get(r, "route")) {
			if h := scalar(get(get(rt, "destination"), "host")); h != "" {
				dest = append(dest, h)
			}
		}
		if cs != nil {
			if dr := cs.destinationRule(dest); dr != nil {
				istioApplyDR(l, dr)
			} else {
				l.addDefault("Istio default: connectionPool.http.maxRetries 2³²−1, no retryBudget (no DestinationRule for %s)", strings.Join(hosts, ", "))
				l.checks.noBudget = fmt.Sprintf("no DestinationRule for %s: Istio lifts Envoy's cap of 3 concurrent retries to 2³²−1 and sets no retryBudget", strings.Join(hosts, ", "))
			}
		}
		out = append(out, &layerCandidate{layer: l, names: names, hosts: dest, doc: d})
	}
	return out, nil
}

func istioRouteLayer(cf *ConfigFile, d *configDoc, r *yaml.Node, name string, cs *Configs) (*ChainLayer, error) {
	at := posOf(cf, r)
	l := newLayer("istio", name, at)
	l.answer = answerEnvoy
	envoyBackoff(l, envoyBackoffBase, 0)
	base := filepath.Base(cf.Path)
	if t := get(r, "timeout"); t != nil {
		v, err := goDuration(cf, t, "http.timeout")
		if err != nil {
			return nil, err
		}
		l.pol.Deadline, l.pol.Timeout = v, v
		l.setAt("PT001", posOf(cf, t))
		l.streamBound(streamBound{name: "timeout", d: v, at: posOf(cf, t), off: "timeout: 0s"})
	} else {
		l.addDefault("Istio default: route timeout disabled (no `timeout` on this route; plain Envoy's is 15s)")
		l.checks.noTimeout = fmt.Sprintf("Istio default: no route timeout (no `timeout` on this route in %s), and perTryTimeout defaults to it: one hung call holds the caller until the caller gives up", base)
		l.setAt("PT001", at)
	}
	rt := get(r, "retries")
	if rt == nil {
		retries, on, who := istioDefaultRetries, istioDefaultRetryOn, "Istio default"
		if cs != nil {
			if mp, mpAt := cs.meshRetryPolicy(); mp != nil {
				if n := get(mp, "attempts"); n != nil {
					v, err := intField(mpAt.file, n, "defaultHttpRetryPolicy.attempts", 0)
					if err != nil {
						return nil, err
					}
					retries = v
				}
				if s := scalar(get(mp, "retryOn")); s != "" {
					on = s
				}
				who = "mesh defaultHttpRetryPolicy (" + mpAt.file.Path + ")"
			}
		}
		classes := envoyRetryOn(strings.Split(on, ","), nil)
		if retries <= 0 {
			classes = nil
		}
		l.retryClasses(retries+1, classes)
		l.retryDefault = true
		l.retryWhy = fmt.Sprintf("%s: %d retries on %s (no `retries` in %s)", who, retries, on, base)
		l.addDefault("%s: %d retries on %s", who, retries, on)
		l.setAt("PT005", at)
		return l, nil
	}
	retries := 0
	l.retryAt = posOf(cf, rt)
	if n := get(rt, "attempts"); n != nil {
		v, err := intField(cf, n, "retries.attempts", -1<<20)
		if err != nil {
			return nil, err
		}
		retries, l.retryAt = max(v, 0), posOf(cf, n) // attempts <= 0 disables (retry.go)
		l.retryWhy = fmt.Sprintf("retries.attempts: %d (retries: attempts = 1 + %d)", v, max(v, 0))
	} else {
		l.retryWhy = "retries without attempts: none"
	}
	on := "connect-failure,refused-stream,unavailable,cancelled"
	onAt := posOf(cf, rt)
	if s := get(rt, "retryOn"); s != nil {
		on, onAt = scalar(s), posOf(cf, s)
	} else {
		l.addDefault("Istio default: retryOn %s", on)
	}
	l.retryClasses(retries+1, envoyRetryOn(strings.Split(on, ","), nil))
	l.setAt("PT005", onAt)
	l.setAt("PT007", onAt)
	if pt := get(rt, "perTryTimeout"); pt != nil {
		v, err := goDuration(cf, pt, "retries.perTryTimeout")
		if err != nil {
			return nil, err
		}
		if v > 0 && (l.pol.Deadline == 0 || v < l.pol.Deadline) {
			l.pol.Timeout = v
			l.streamBound(streamBound{name: "retries.perTryTimeout", d: v, at: posOf(cf, pt)})
		}
		if v > 0 && l.pol.Deadline == 0 {
			// Envoy bounds each try by per_try_timeout even with the route timeout off: a
			// hang ends after the tries, so this is no missing timeout (PT004 weighs them).
			l.checks.noTimeout = ""
		}
	}
	if b := get(rt, "backoff"); b != nil {
		v, err := goDuration(cf, b, "retries.backoff")
		if err != nil {
			return nil, err
		}
		envoyBackoff(l, v, 0)
		l.setAt("PT013", posOf(cf, b))
	}
	return l, nil
}

// destinationRule is what check reads of a DestinationRule.
type destinationRule struct {
	doc        *configDoc
	maxRetries *yaml.Node
	budget     *yaml.Node
	budgetPct  float64
	outlier    bool
	// connectTimeout is connectionPool.tcp.connectTimeout (0 = not written).
	connectTimeout time.Duration
}

func readDestinationRule(d *configDoc) (*destinationRule, error) {
	cf := d.file
	tp := get(get(d.node, "spec"), "trafficPolicy")
	dr := &destinationRule{doc: d}
	dr.maxRetries = get(get(get(tp, "connectionPool"), "http"), "maxRetries")
	if dr.maxRetries != nil {
		if _, err := intField(cf, dr.maxRetries, "trafficPolicy.connectionPool.http.maxRetries", 0); err != nil {
			return nil, err
		}
	}
	if rb := get(tp, "retryBudget"); rb != nil {
		dr.budget, dr.budgetPct = rb, 20
		if p := get(rb, "percent"); p != nil {
			v, err := floatField(cf, get(p, "value"), "trafficPolicy.retryBudget.percent")
			if get(p, "value") == nil {
				v, err = floatField(cf, p, "trafficPolicy.retryBudget.percent")
			}
			if err != nil {
				return nil, err
			}
			dr.budgetPct = v
		}
	}
	dr.outlier = get(tp, "outlierDetection") != nil
	// connectionPool.tcp.connectTimeout (istio.io networking/v1 destination-rule
	// ConnectionPoolSettings.TCPSettings: "TCP connection timeout", a duration such as 1s).
	if ct := get(get(get(tp, "connectionPool"), "tcp"), "connectTimeout"); ct != nil {
		v, err := goDuration(cf, ct, "trafficPolicy.connectionPool.tcp.connectTimeout")
		if err != nil {
			return nil, err
		}
		dr.connectTimeout = v
	}
	return dr, nil
}

// destinationRule finds the DestinationRule of one of hosts (short names match their FQDN's
// first label).
func (cs *Configs) destinationRule(hosts []string) *destinationRule {
	for _, cf := range cs.Files {
		for _, d := range cf.docs {
			if d.kind != "DestinationRule" {
				continue
			}
			h := scalar(get(get(d.node, "spec"), "host"))
			for _, want := range hosts {
				if h == want || strings.SplitN(h, ".", 2)[0] == want || strings.SplitN(want, ".", 2)[0] == h {
					if dr, err := readDestinationRule(d); err == nil {
						return dr
					}
				}
			}
		}
	}
	return nil
}

// istioApplyDR adds the DestinationRule's budget, cap and outlier detection to the route.
func istioApplyDR(l *ChainLayer, dr *destinationRule) {
	at := dr.doc.pos
	name := dr.doc.name
	if dr.connectTimeout > 0 {
		l.pol.ConnectTimeout = dr.connectTimeout
	}
	if dr.outlier {
		l.pol.Breaker = &policy.Breaker{}
	}
	if dr.budget != nil {
		l.budget = dr.budgetPct / 100
		l.budgetWhy = fmt.Sprintf("DestinationRule %s retryBudget %s%%", name, fmtNum(dr.budgetPct))
		l.pol.Budget = &policy.Budget{Kind: policy.BudgetRatio, Percent: l.budget}
		return
	}
	if dr.maxRetries == nil {
		l.addDefault("Istio default: DestinationRule %s connectionPool.http.maxRetries 2³²−1 (Envoy's is 3), no retryBudget", name)
		l.checks.noBudget = fmt.Sprintf("DestinationRule %s sets no trafficPolicy.retryBudget and leaves connectionPool.http.maxRetries at Istio's 2³²−1 (Envoy's cap is 3 concurrent retries)", name)
		l.setAt("PT012", at)
		return
	}
	l.setAt("PT012", posOf(dr.doc.file, dr.maxRetries))
	l.checks.noBudget = fmt.Sprintf("DestinationRule %s caps concurrent retries (maxRetries %s) but sets no trafficPolicy.retryBudget", name, scalar(dr.maxRetries))
}

// meshRef is where a mesh default retry policy was read.
type meshRef struct{ file *ConfigFile }

// meshRetryPolicy returns MeshConfig's defaultHttpRetryPolicy from an IstioOperator
// (spec.meshConfig) or the istio ConfigMap (data.mesh, a YAML string), if any was read.
func (cs *Configs) meshRetryPolicy() (*yaml.Node, meshRef) {
	for _, cf := range cs.Files {
		for _, d := range cf.docs {
			switch d.kind {
			case "IstioOperator":
				if p := get(get(get(d.node, "spec"), "meshConfig"), "defaultHttpRetryPolicy"); p != nil {
					return p, meshRef{cf}
				}
			case "ConfigMap":
				mesh := scalar(get(get(d.node, "data"), "mesh"))
				if mesh == "" {
					continue
				}
				var n yaml.Node
				if yaml.Unmarshal([]byte(mesh), &n) == nil && len(n.Content) > 0 {
					if p := get(n.Content[0], "defaultHttpRetryPolicy"); p != nil {
						return p, meshRef{cf}
					}
				}
			}
		}
	}
	return nil, meshRef{}
}
