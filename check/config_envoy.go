package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
	"gopkg.in/yaml.v3"
)

// Envoy (docs/formats.md#envoy; data-plane-api route_components.proto,
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

// Envoy reads its YAML by converting it to JSON and parsing that with protobuf's JSON
// mapping (envoyproxy/envoy source/common/protobuf/utility.cc MessageUtil::loadFromYaml →
// loadFromJson → JsonStringToMessage). protobuf's JSON spec (protobuf.dev
// programming-guides/proto3 "JSON Mapping"): "Parsers accept both the lowerCamelCase name
// (or the one specified by the json_name option) and the original proto field name", and a
// google.protobuf.Duration is a string of seconds with the suffix "s" ("1.5s", "0.250s").
// Envoy Gateway writes its xds-ir outputs with the camelCase names (protojson), Envoy's own
// examples and an admin /config_dump with the proto names: eget reads both.

// protoJSONName is protobuf's lowerCamelCase JSON name of a proto field name (ToJsonName:
// an underscore is dropped and the next letter upper-cased).
func protoJSONName(field string) string {
	var b strings.Builder
	up := false
	for _, r := range field {
		switch {
		case r == '_':
			up = true
		case up && r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
			up = false
		default:
			b.WriteRune(r)
			up = false
		}
	}
	return b.String()
}

// eget returns the value of the proto field in mapping n, written with its proto name or
// its JSON name.
func eget(n *yaml.Node, field string) *yaml.Node {
	if v := get(n, field); v != nil {
		return v
	}
	if j := protoJSONName(field); j != field {
		return get(n, j)
	}
	return nil
}

// ekeyOf is keyOf for a proto field written either way.
func ekeyOf(n *yaml.Node, field string) *yaml.Node {
	if k := keyOf(n, field); k != nil {
		return k
	}
	return keyOf(n, protoJSONName(field))
}

// envoyTyped says whether n carries an Envoy @type (type.googleapis.com/envoy.…).
func envoyTyped(n *yaml.Node, pkg string) bool {
	return strings.Contains(scalar(get(n, "@type")), "envoy."+pkg)
}

// envoyMarker returns the key that marks root as Envoy configuration, nil for none: a
// bootstrap's static_resources, a RouteConfiguration's virtual_hosts, an xDS response's
// resources with Envoy @types, or an admin /config_dump's configs (envoy.admin.v3.*ConfigDump,
// what `istioctl proxy-config … -o json` prints).
func envoyMarker(root *yaml.Node) *yaml.Node {
	for _, f := range []string{"static_resources", "virtual_hosts"} {
		if k := ekeyOf(root, f); k != nil {
			return k
		}
	}
	for _, f := range []string{"resources", "configs"} {
		for _, r := range items(get(root, f)) {
			if envoyTyped(r, "config.") || envoyTyped(r, "admin.") || envoyTyped(get(r, "resource"), "config.") {
				return keyOf(root, f)
			}
		}
	}
	if envoyTyped(root, "config.route.") || envoyTyped(root, "config.listener.") {
		return keyOf(root, "@type")
	}
	return nil
}

// envoyListMarker returns the marker of the first item of a top-level list that is Envoy
// configuration (Envoy Gateway's RouteConfiguration lists), nil for none.
func envoyListMarker(seq *yaml.Node) *yaml.Node {
	for _, it := range items(seq) {
		if m := envoyMarker(it); m != nil {
			return m
		}
	}
	return nil
}

// envoyHasRoutes says whether n holds a virtual host with a route of any action: a route
// configuration of redirects and direct responses only is read — it calls no upstream —
// where one with no route at all holds nothing check can read.
func envoyHasRoutes(n *yaml.Node, depth int) bool {
	if n == nil || depth > 32 {
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		for _, vh := range items(eget(n, "virtual_hosts")) {
			if len(items(get(vh, "routes"))) > 0 {
				return true
			}
		}
		for _, kv := range pairs(n) {
			if envoyHasRoutes(kv[1], depth+1) {
				return true
			}
		}
	case yaml.SequenceNode:
		for _, c := range items(n) {
			if envoyHasRoutes(c, depth+1) {
				return true
			}
		}
	}
	return false
}

// envoyNothingToRead is the error for an Envoy document that has its marker keys and no
// route check can read.
func envoyNothingToRead(cf *ConfigFile, d *configDoc, marker *yaml.Node) error {
	field := marker.Value
	if field == "configs" {
		var types []string
		for _, c := range items(get(d.node, "configs")) {
			t := scalar(get(c, "@type"))
			if i := strings.LastIndex(t, "."); i >= 0 {
				t = t[i+1:]
			}
			if t != "" && !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
		return configError(cf, marker, field, "the config dump holds no route configuration with a route to read (it has %s): dump the routes (istioctl proxy-config route … -o json, or /config_dump?resource=dynamic_route_configs)", strings.Join(types, ", "))
	}
	return configError(cf, marker, field, "no route to read (routes that come from RDS are not in this file)")
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
		case "connect-failure", "reset-before-request":
			// reset-before-request: a reset or disconnect before the request went out, so
			// a failed connect and nothing after it.
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

// envoyStreamIdle is HttpConnectionManager.stream_idle_timeout's default
// (http_connection_manager.proto: "If not specified, this defaults to 5 minutes"): a stream
// with no headers or data either way for that long is reset, whatever the route timeout.
const envoyStreamIdle = 5 * time.Minute

// envoyVHosts is a virtual_hosts list with the connection manager that holds it inline
// (hcm nil: a route configuration on its own, from RDS, a config dump or a file of them).
type envoyVHosts struct {
	list *yaml.Node
	hcm  *yaml.Node
	rc   string // the RouteConfiguration's name, for a connection manager's rds
}

// envoyLayers reads every route of every RouteConfiguration in the document — a bootstrap's
// static_resources, an xDS response, a config dump (static and dynamic route configs,
// listeners with inline route configs), a bare route config or a list of them — with the
// cluster it routes to.
func envoyLayers(d *configDoc) ([]*layerCandidate, error) {
	s := &envoyScan{clusters: map[string]*yaml.Node{}, hcmByRC: map[string]*yaml.Node{}}
	s.walk(d.node, nil, 0)
	var out []*layerCandidate
	for _, vhs := range s.vhostsAt {
		if vhs.hcm == nil && vhs.rc != "" {
			vhs.hcm = s.hcmByRC[vhs.rc]
		}
		for _, vh := range items(vhs.list) {
			ls, err := envoyVHostLayers(d, vh, vhs.hcm, s.clusters)
			if err != nil {
				return nil, err
			}
			out = append(out, ls...)
		}
	}
	return out, nil
}

// envoyScan collects, in one walk of a document, the clusters by name, the lists of
// virtual hosts with the connection manager over each, and the connection managers that
// take their routes from RDS by the route configuration they name.
type envoyScan struct {
	clusters map[string]*yaml.Node
	vhostsAt []envoyVHosts
	hcmByRC  map[string]*yaml.Node
}

func (s *envoyScan) walk(n, hcm *yaml.Node, depth int) {
	if n == nil || depth > 32 {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		hcm = s.mapping(n, hcm)
		for _, kv := range pairs(n) {
			if kv[0].Value != "virtual_hosts" && kv[0].Value != "virtualHosts" {
				s.walk(kv[1], hcm, depth+1)
			}
		}
	case yaml.SequenceNode:
		for _, c := range items(n) {
			s.walk(c, hcm, depth+1)
		}
	}
}

// mapping notes what mapping n holds — a connection manager, virtual hosts, clusters — and
// returns the connection manager over what it holds.
func (s *envoyScan) mapping(n, hcm *yaml.Node) *yaml.Node {
	// An HttpConnectionManager: its stream_idle_timeout applies to the routes of its
	// inline route_config.
	if eget(n, "http_filters") != nil || eget(n, "stat_prefix") != nil && eget(n, "route_config") != nil {
		hcm = n
		// A connection manager that takes its routes from RDS names them: the route
		// configuration of that name, in the same config dump, is under it.
		if rn := scalar(eget(eget(n, "rds"), "route_config_name")); rn != "" {
			if _, dup := s.hcmByRC[rn]; !dup {
				s.hcmByRC[rn] = n
			}
		}
	}
	if vh := eget(n, "virtual_hosts"); vh != nil {
		s.vhostsAt = append(s.vhostsAt, envoyVHosts{list: vh, hcm: hcm, rc: scalar(get(n, "name"))})
	}
	for _, c := range items(get(n, "clusters")) {
		s.addCluster(c)
	}
	// A ClustersConfigDump: static_clusters, dynamic_active_clusters and
	// dynamic_warming_clusters each hold {cluster: Cluster}.
	for _, f := range []string{"static_clusters", "dynamic_active_clusters", "dynamic_warming_clusters"} {
		for _, c := range items(eget(n, f)) {
			s.addCluster(get(c, "cluster"))
		}
	}
	if envoyTyped(n, "config.cluster.") {
		s.addCluster(n)
	}
	return hcm
}

func (s *envoyScan) addCluster(c *yaml.Node) {
	if name := scalar(get(c, "name")); name != "" {
		s.clusters[name] = c
	}
}

// envoyVHostLayers reads the routes of virtual host vh that route to a cluster, one layer
// each, named by the route's name (else "VHOST/routes[i]").
func envoyVHostLayers(d *configDoc, vh, hcm *yaml.Node, clusters map[string]*yaml.Node) ([]*layerCandidate, error) {
	vname := scalar(get(vh, "name"))
	var domains []string
	for _, dn := range items(get(vh, "domains")) {
		domains = append(domains, scalar(dn))
	}
	var out []*layerCandidate
	for ri, r := range items(get(vh, "routes")) {
		ra := get(r, "route")
		if ra == nil {
			continue
		}
		l, err := envoyRoute(d.file, vh, r, ra, hcm, clusters)
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
	return out, nil
}

// protoDuration reads a google.protobuf.Duration in protobuf's JSON form: seconds with up
// to nine fractional digits and the suffix "s" ("15s", "0.250s"). Envoy rejects anything
// else ("250ms", "1m"), so check does too.
func protoDuration(cf *ConfigFile, n *yaml.Node, field string) (time.Duration, error) {
	s := strings.TrimSpace(scalar(n))
	bad := configError(cf, n, field, "want a protobuf JSON duration such as 5s or 0.250s (seconds, suffix s), got %s", scenario.KindName(n))
	num, ok := strings.CutSuffix(s, "s")
	if !ok || num == "" {
		return 0, bad
	}
	whole, frac, hasFrac := strings.Cut(num, ".")
	if whole == "" || len(whole) > 12 || strings.Trim(whole, "0123456789") != "" || hasFrac && (frac == "" || len(frac) > 9 || strings.Trim(frac, "0123456789") != "") {
		return 0, bad
	}
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, bad
	}
	d := time.Duration(sec) * time.Second
	if hasFrac {
		nanos, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		d += time.Duration(nanos)
	}
	return d, nil
}

func envoyRoute(cf *ConfigFile, vh, r, ra, hcm *yaml.Node, clusters map[string]*yaml.Node) (*ChainLayer, error) {
	l := newLayer("envoy", "", posOf(cf, r))
	l.answer = answerEnvoy
	// RouteAction.timeout (route_components.proto): "If not specified, the default is 15s";
	// 0 disables it. It spans every retry.
	l.pol.Deadline = envoyRouteTimeout
	if t := eget(ra, "timeout"); t != nil {
		v, err := protoDuration(cf, t, "route.timeout")
		if err != nil {
			return nil, err
		}
		l.pol.Deadline = v
		l.setAt("PT001", posOf(cf, t))
		l.streamBound(streamBound{name: "route timeout", d: v, at: posOf(cf, t), off: "timeout: 0s"})
	} else {
		l.addDefault("Envoy default: route timeout 15s, including retries (no `timeout` on this route)")
		l.streamBound(streamBound{name: "route timeout", d: envoyRouteTimeout, dflt: "Envoy default: no `timeout` on this route", off: "timeout: 0s"})
	}
	if err := envoyStreamIdleBound(cf, l, ra, hcm); err != nil {
		return nil, err
	}
	// RouteAction.MaxStreamDuration.max_stream_duration bounds the whole stream too.
	if m := eget(eget(ra, "max_stream_duration"), "max_stream_duration"); m != nil {
		v, err := protoDuration(cf, m, "route.max_stream_duration.max_stream_duration")
		if err != nil {
			return nil, err
		}
		if v > 0 && (l.pol.Deadline == 0 || v < l.pol.Deadline) {
			l.pol.Deadline = v
			l.setAt("PT001", posOf(cf, m))
		}
		l.streamBound(streamBound{name: "max_stream_duration", d: v, at: posOf(cf, m)})
	}
	if l.pol.Deadline == 0 {
		if err := envoyIdleBound(cf, l, ra, hcm); err != nil {
			return nil, err
		}
	}
	l.pol.Timeout = l.pol.Deadline // per_try_timeout unset = the route timeout
	rp, rpOwner := eget(ra, "retry_policy"), "route"
	if rp == nil {
		rp, rpOwner = eget(vh, "retry_policy"), "virtual host" // a route's policy replaces the vhost's
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

// envoyIdleBound sets what ends a hang on a route whose timeout is disabled: the route's
// idle_timeout, else its connection manager's stream_idle_timeout (5 min by default); a 0
// in either disables it (route_components.proto RouteAction.idle_timeout: "A value of 0
// will completely disable the route's idle timeout, even if a connection manager stream
// idle timeout is configured").
func envoyIdleBound(cf *ConfigFile, l *ChainLayer, ra, hcm *yaml.Node) error {
	idle, field, at := envoyStreamIdle, "", (*yaml.Node)(nil)
	if t := eget(ra, "idle_timeout"); t != nil {
		field, at = "route.idle_timeout", t
	} else if t := eget(hcm, "stream_idle_timeout"); t != nil {
		field, at = "stream_idle_timeout", t
	}
	if at != nil {
		v, err := protoDuration(cf, at, field)
		if err != nil {
			return err
		}
		idle = v
	}
	if idle == 0 {
		l.checks.noTimeout = "Envoy route `timeout: 0s` disables the route timeout and " + map[bool]string{true: "`idle_timeout: 0s` the stream idle timeout", false: "the connection manager's `stream_idle_timeout: 0s` the idle timeout"}[field == "route.idle_timeout"]
		return nil
	}
	l.pol.Deadline = idle
	switch {
	case at != nil:
		l.setAt("PT001", posOf(cf, at))
		l.addDefault("Envoy: route `timeout: 0s` disables the route timeout; a hang ends after %s %s", field, units.Duration(idle))
	case hcm != nil:
		l.addDefault("Envoy default: route `timeout: 0s` disables the route timeout; a hang ends after the connection manager's stream_idle_timeout, 5 min by default")
	default:
		l.addDefault("Envoy default: route `timeout: 0s` disables the route timeout; a hang ends after the connection manager's stream_idle_timeout, 5 min by default (unless the listener that uses this route configuration sets another)")
	}
	return nil
}

// envoyStreamIdleBound records for PT017 the idle timeout that ends a silent stream on the
// route: its idle_timeout, else the connection manager's stream_idle_timeout, else that
// one's default, 5 min; 0 disables it (route_components.proto RouteAction.idle_timeout).
func envoyStreamIdleBound(cf *ConfigFile, l *ChainLayer, ra, hcm *yaml.Node) error {
	b := streamBound{idle: true, name: "stream_idle_timeout", d: envoyStreamIdle, dflt: "Envoy default: the connection manager sets none"}
	if hcm == nil {
		b.dflt = "Envoy default, unless the listener that uses this route configuration sets another"
	}
	for _, f := range []struct {
		node        *yaml.Node
		name, field string
	}{
		{eget(ra, "idle_timeout"), "route idle_timeout", "route.idle_timeout"},
		{eget(hcm, "stream_idle_timeout"), "stream_idle_timeout", "stream_idle_timeout"},
	} {
		if f.node == nil {
			continue
		}
		v, err := protoDuration(cf, f.node, f.field)
		if err != nil {
			return err
		}
		b = streamBound{idle: true, name: f.name, d: v, at: posOf(cf, f.node)}
		break
	}
	l.streamBound(b)
	l.idle = b.d // chains[].layers[].timeouts.idle_ms (0: disabled)
	return nil
}

// envoyRetryPolicy reads a RetryPolicy: num_retries counts retries ("defaults to 1" once a
// policy exists, route_components.proto RetryPolicy.num_retries), per_try_timeout applies
// only below the route timeout.
func envoyRetryPolicy(cf *ConfigFile, l *ChainLayer, rp *yaml.Node, owner string) error {
	retries := 1
	l.retryAt = posOf(cf, rp)
	l.retryWhy = "Envoy default: num_retries 1 (retry_policy without num_retries)"
	if n := eget(rp, "num_retries"); n != nil {
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
	for _, c := range items(eget(rp, "retriable_status_codes")) {
		codes = append(codes, scalar(c))
	}
	on := eget(rp, "retry_on")
	classes := envoyRetryOn(splitList(scalar(on)), codes)
	l.retryClasses(retries+1, classes)
	l.setAt("PT005", posOf(cf, on))
	l.setAt("PT007", posOf(cf, on))
	if pt := eget(rp, "per_try_timeout"); pt != nil {
		v, err := protoDuration(cf, pt, "retry_policy.per_try_timeout")
		if err != nil {
			return err
		}
		if v > 0 && (l.pol.Deadline == 0 || v < l.pol.Deadline) {
			l.pol.Timeout = v // at or above the route timeout it is ignored (§A1)
			l.streamBound(streamBound{name: "per_try_timeout", d: v, at: posOf(cf, pt)})
		}
	}
	// per_try_idle_timeout (route_components.proto RetryPolicy): "an upstream idle timeout
	// per retry attempt (including the initial attempt)", enforced by the router like the
	// stream idle timeout: a bound on each silence of a try, a read timeout.
	if it := eget(rp, "per_try_idle_timeout"); it != nil {
		v, err := protoDuration(cf, it, "retry_policy.per_try_idle_timeout")
		if err != nil {
			return err
		}
		l.pol.ReadTimeout = v
		l.streamBound(streamBound{idle: true, name: "per_try_idle_timeout", d: v, at: posOf(cf, it)})
	}
	if bo := eget(rp, "retry_back_off"); bo != nil {
		base, maxI := envoyBackoffBase, time.Duration(0)
		if b := eget(bo, "base_interval"); b != nil {
			v, err := protoDuration(cf, b, "retry_back_off.base_interval")
			if err != nil {
				return err
			}
			base = v
		}
		if m := eget(bo, "max_interval"); m != nil {
			v, err := protoDuration(cf, m, "retry_back_off.max_interval")
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
	if ct := eget(c, "connect_timeout"); ct != nil {
		v, err := protoDuration(cf, ct, "cluster.connect_timeout")
		if err != nil {
			return err
		}
		l.pol.ConnectTimeout = v
	}
	budget := false
	for _, th := range items(eget(eget(c, "circuit_breakers"), "thresholds")) {
		if rb := eget(th, "retry_budget"); rb != nil {
			pct := 20.0
			if v := get(eget(rb, "budget_percent"), "value"); v != nil {
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
	if eget(c, "outlier_detection") != nil {
		l.pol.Breaker = &policy.Breaker{}
	}
	return nil
}
