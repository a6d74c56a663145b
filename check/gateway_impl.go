package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// GatewayImpl names the implementation that translates Gateway API routes into proxy
// configuration: the Gateway API leaves the retry count, the retried statuses and the
// timeout of a rule that says nothing "implementation-specific", and Istio and Envoy Gateway
// fill them in differently, so check reads an HTTPRoute as the implementation in use
// translates it.
type GatewayImpl string

const (
	// GatewayImplAuto picks the implementation from the inputs (a GatewayClass's
	// controllerName, a Gateway's gatewayClassName, an Istio or Envoy Gateway resource).
	GatewayImplAuto GatewayImpl = ""
	// GatewayImplIstio is Istio (istio/istio pilot/pkg/config/kube/gateway conversion.go,
	// then pilot/pkg/networking/core/route).
	GatewayImplIstio GatewayImpl = "istio"
	// GatewayImplEnvoyGateway is Envoy Gateway (envoyproxy/gateway internal/gatewayapi
	// route.go, then internal/xds/translator route.go).
	GatewayImplEnvoyGateway GatewayImpl = "envoy-gateway"
	// GatewayImplUnknown is a run where nothing names the implementation: each class counts
	// the more attempts of the two, and a rule has no timeout where either leaves none.
	GatewayImplUnknown GatewayImpl = "unknown"
)

// Controller names and the class names the implementations install.
var (
	// istio/istio pilot/pkg/features (constants.ManagedGatewayController and the mesh and
	// waypoint controllers).
	istioControllers = []string{"istio.io/gateway-controller", "istio.io/mesh-controller", "istio.io/unmanaged-gateway"}
	// envoyproxy/gateway api/v1alpha1 shared_types.go GatewayControllerName.
	envoyGatewayController = "gateway.envoyproxy.io/gatewayclass-controller"
	istioClassNames        = []string{"istio", "istio-remote", "istio-waypoint", "istio-east-west"}
	envoyGatewayClassNames = []string{"eg", "envoy-gateway"}
)

// implOfController maps a controllerName or a class name to an implementation.
func implOfController(controller, class string) GatewayImpl {
	switch {
	case slices.Contains(istioControllers, controller) || strings.HasPrefix(controller, "istio.io/"):
		return GatewayImplIstio
	case controller == envoyGatewayController || strings.HasPrefix(controller, "gateway.envoyproxy.io/"):
		return GatewayImplEnvoyGateway
	case controller == "" && slices.Contains(istioClassNames, class):
		return GatewayImplIstio
	case controller == "" && slices.Contains(envoyGatewayClassNames, class):
		return GatewayImplEnvoyGateway
	}
	return GatewayImplAuto
}

// gatewayImplFor says which implementation translates route d, and why: --gateway-impl;
// else the Gateway its parentRefs name, through its gatewayClassName to the GatewayClass's
// controllerName (or a class name the implementation installs); else the only
// implementation the inputs show (a GatewayClass, an Istio resource, an EnvoyProxy); else
// unknown.
func (cs *Configs) gatewayImplFor(d *configDoc) (GatewayImpl, string) {
	if cs == nil {
		return GatewayImplUnknown, "nothing names the implementation"
	}
	if cs.GatewayImpl != GatewayImplAuto && cs.GatewayImpl != GatewayImplUnknown {
		return cs.GatewayImpl, "--gateway-impl " + string(cs.GatewayImpl)
	}
	in := newGatewayInputs(cs)
	if impl, why := in.fromParents(d); impl != GatewayImplAuto {
		return impl, why
	}
	return in.onlyShown()
}

// gatewayInputs are every document read, and the GatewayClasses among them by name.
type gatewayInputs struct {
	all     []*configDoc
	classes map[string]*configDoc
}

func newGatewayInputs(cs *Configs) *gatewayInputs {
	in := &gatewayInputs{classes: map[string]*configDoc{}}
	for _, cf := range cs.Files {
		in.all = append(in.all, cf.docs...)
	}
	for _, o := range in.all {
		if o.kind == "GatewayClass" {
			in.classes[o.name] = o
		}
	}
	return in
}

// classImpl is the implementation of a gatewayClassName: the controllerName of the
// GatewayClass of that name, else a class name an implementation installs.
func (in *gatewayInputs) classImpl(class string) (GatewayImpl, string) {
	if gc := in.classes[class]; gc != nil {
		ctl := scalar(get(get(gc.node, "spec"), "controllerName"))
		if impl := implOfController(ctl, ""); impl != GatewayImplAuto {
			return impl, fmt.Sprintf("GatewayClass %s controllerName %s (%s:%d)", class, ctl, gc.file.Path, gc.pos.Line)
		}
	}
	if impl := implOfController("", class); impl != GatewayImplAuto {
		return impl, fmt.Sprintf("gatewayClassName %s, the class %s installs", class, implTitle(impl))
	}
	return GatewayImplAuto, ""
}

// fromParents is the implementation of the first Gateway among route d's parentRefs whose
// class names one (GatewayImplAuto when none does).
func (in *gatewayInputs) fromParents(d *configDoc) (GatewayImpl, string) {
	for _, p := range items(get(get(d.node, "spec"), "parentRefs")) {
		name, ns := scalar(get(p, "name")), scalar(get(p, "namespace"))
		if k := scalar(get(p, "kind")); k != "" && k != "Gateway" {
			continue
		}
		if ns == "" {
			ns = d.namespace
		}
		for _, o := range in.all {
			if !isGateway(o, name, ns) {
				continue
			}
			class := scalar(get(get(o.node, "spec"), "gatewayClassName"))
			if impl, why := in.classImpl(class); impl != GatewayImplAuto {
				return impl, fmt.Sprintf("parentRef Gateway %s (%s:%d): %s", name, o.file.Path, o.pos.Line, why)
			}
		}
	}
	return GatewayImplAuto, ""
}

// isGateway says whether o is the Gateway name in namespace ns (either namespace unset
// matches).
func isGateway(o *configDoc, name, ns string) bool {
	return o.kind == "Gateway" && o.name == name && (o.namespace == "" || ns == "" || o.namespace == ns)
}

// onlyShown is the only implementation the inputs show, the first document that shows it
// as the reason; unknown when they show none, or both.
func (in *gatewayInputs) onlyShown() (GatewayImpl, string) {
	seen := map[GatewayImpl]string{}
	for _, o := range in.all {
		impl, why := in.shownBy(o)
		if impl != GatewayImplAuto && seen[impl] == "" {
			seen[impl] = why
		}
	}
	if len(seen) == 1 {
		for impl, why := range seen {
			return impl, why
		}
	}
	if len(seen) > 1 {
		return GatewayImplUnknown, fmt.Sprintf("the inputs show both (%s; %s) and the route's parentRefs name neither; pass --gateway-impl", seen[GatewayImplIstio], seen[GatewayImplEnvoyGateway])
	}
	return GatewayImplUnknown, "no GatewayClass, Gateway, Istio or Envoy Gateway resource among the inputs and no --gateway-impl"
}

// shownBy is the implementation document o shows, and how (GatewayImplAuto: none).
func (in *gatewayInputs) shownBy(o *configDoc) (GatewayImpl, string) {
	at := fmt.Sprintf("%s:%d", o.file.Path, o.pos.Line)
	switch o.kind {
	case "GatewayClass":
		ctl := scalar(get(get(o.node, "spec"), "controllerName"))
		return implOfController(ctl, ""), fmt.Sprintf("GatewayClass %s controllerName %s (%s)", o.name, ctl, at)
	case "Gateway":
		class := scalar(get(get(o.node, "spec"), "gatewayClassName"))
		impl, why := in.classImpl(class)
		return impl, fmt.Sprintf("Gateway %s: %s", o.name, why)
	case "EnvoyProxy":
		return GatewayImplEnvoyGateway, fmt.Sprintf("EnvoyProxy %s (%s)", o.name, at)
	case "VirtualService", "DestinationRule", "IstioOperator":
		return GatewayImplIstio, fmt.Sprintf("%s %s (%s)", o.kind, o.name, at)
	}
	return GatewayImplAuto, ""
}

func implTitle(impl GatewayImpl) string {
	switch impl {
	case GatewayImplIstio:
		return "Istio"
	case GatewayImplEnvoyGateway:
		return "Envoy Gateway"
	}
	return "an unknown implementation"
}

// gwDuration reads a Gateway API Duration (GEP-2257: "1h", "500ms", "0s").
func gwDuration(cf *ConfigFile, n *yaml.Node, field string) (time.Duration, error) {
	return goDuration(cf, n, field)
}

// istioGatewayRoute is the VirtualService http route Istio's conversion makes of rule r
// (istio/istio pilot/pkg/config/kube/gateway/conversion.go convertHTTPRoute @61c3e55):
//   - retry set: attempts = retry.attempts, else 2 ("the default retry if none are set is
//     \"2\""); retryOn = connect-failure,refused-stream,unavailable,cancelled and each code;
//     attempts 0 clears retryOn; backoff copied.
//   - no retry: no `retries`, so the route gets the mesh default (route.go: "No VS policy
//     set, use mesh defaults"; retry.go DefaultPolicy: 2 retries on
//     connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes).
//   - timeouts.request (non-zero) is the route timeout; backendRequest (non-zero) is
//     perTryTimeout when retry is set, else the route timeout — replacing request.
//   - no timeouts: no `timeout`, and route.go setTimeout leaves the route at 0s, none.
//
// The nodes carry the HTTPRoute's own lines.
func istioGatewayRoute(cf *ConfigFile, r *yaml.Node) (*yaml.Node, error) {
	vs := &yaml.Node{Kind: yaml.MappingNode, Line: r.Line, Column: r.Column}
	add := func(m *yaml.Node, key string, v *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: v.Line, Column: v.Column}, v)
	}
	str := func(at *yaml.Node, v string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: at.Line, Column: at.Column}
	}
	rt := get(r, "retry")
	var retries *yaml.Node
	if rt != nil {
		retries = &yaml.Node{Kind: yaml.MappingNode, Line: rt.Line, Column: rt.Column}
		attempts := 2
		atNode := rt
		if n := get(rt, "attempts"); n != nil {
			v, err := intField(cf, n, "retry.attempts", 0)
			if err != nil {
				return nil, err
			}
			attempts, atNode = v, n
		}
		on := []string{"connect-failure", "refused-stream", "unavailable", "cancelled"}
		for _, c := range items(get(rt, "codes")) {
			v, err := intField(cf, c, "retry.codes", 400)
			if err != nil || v > 599 {
				return nil, configError(cf, c, "retry.codes", "want an HTTP status 400–599, got %s", scalarKind(c))
			}
			on = append(on, strconv.Itoa(v))
		}
		add(retries, "attempts", str(atNode, strconv.Itoa(attempts)))
		onAt := rt
		if c := get(rt, "codes"); c != nil {
			onAt = c
		}
		if attempts > 0 {
			add(retries, "retryOn", str(onAt, strings.Join(on, ",")))
		}
		if b := get(rt, "backoff"); b != nil {
			add(retries, "backoff", b)
		}
	}
	to := get(r, "timeouts")
	if t := get(to, "request"); t != nil {
		v, err := gwDuration(cf, t, "timeouts.request")
		if err != nil {
			return nil, err
		}
		if v != 0 {
			add(vs, "timeout", t)
		}
	}
	if t := get(to, "backendRequest"); t != nil {
		v, err := gwDuration(cf, t, "timeouts.backendRequest")
		if err != nil {
			return nil, err
		}
		if v != 0 {
			if retries != nil {
				add(retries, "perTryTimeout", t)
			} else {
				// conversion.go sets vs.Timeout again: backendRequest replaces request.
				for i := 0; i+1 < len(vs.Content); i += 2 {
					if vs.Content[i].Value == "timeout" {
						vs.Content = slices.Delete(vs.Content, i, i+2)
						break
					}
				}
				add(vs, "timeout", t)
			}
		}
	}
	if retries != nil {
		add(vs, "retries", retries)
	}
	return vs, nil
}

// Envoy Gateway's translation (envoyproxy/gateway @d32f282): internal/gatewayapi/route.go
// processRouteTimeout and processRouteRetry, internal/xds/translator/route.go
// buildRetryPolicy.
const (
	// egRetryOn is retryDefaultRetryOn, used whatever the rule lists (codes only change
	// retriable_status_codes).
	egRetryOn = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"
	// egRetries is retryDefaultNumRetries, for a retry without attempts.
	egRetries = 2
	// egRouteTimeout is Envoy's RouteAction.timeout default ("If not specified, the default
	// is 15s", route_components.proto): Envoy Gateway sets no timeout on a rule without
	// timeouts (route.go getEffectiveRequestTimeout returns nil).
	egRouteTimeout = 15 * time.Second
)

// envoyGatewayLayer reads rule r as Envoy Gateway translates it:
//   - retry set: num_retries = retry.attempts, else 2; retry_on = egRetryOn;
//     retriable_status_codes = retry.codes, else [503] (retryDefaultRetriableStatusCode);
//     backoff base = retry.backoff; per_try_timeout = timeouts.backendRequest.
//   - no retry: no retry policy, and Envoy retries nothing.
//   - timeouts.request is the route timeout; backendRequest is the route timeout when retry
//     is unset (replacing request); none leaves Envoy's 15 s default; 0s disables it.
func envoyGatewayLayer(cf *ConfigFile, l *ChainLayer, r *yaml.Node) error {
	to := get(r, "timeouts")
	rt := get(r, "retry")
	routeTimeout, set := egRouteTimeout, false
	var at *yaml.Node
	if t := get(to, "request"); t != nil {
		v, err := gwDuration(cf, t, "timeouts.request")
		if err != nil {
			return err
		}
		routeTimeout, set, at = v, true, t
	}
	var perTry time.Duration
	if t := get(to, "backendRequest"); t != nil {
		v, err := gwDuration(cf, t, "timeouts.backendRequest")
		if err != nil {
			return err
		}
		if rt == nil {
			routeTimeout, set, at = v, true, t
		} else {
			perTry = v
		}
	}
	switch {
	case !set:
		l.pol.Deadline, l.pol.Timeout = routeTimeout, routeTimeout
		l.addDefault("Envoy Gateway sets no route timeout without timeouts.request: Envoy's default 15s (includes retries)")
	case routeTimeout == 0:
		l.checks.noTimeout = fmt.Sprintf("timeouts %s disables the route timeout (Envoy 0s = none): one hung call holds the caller until the caller gives up", at.Value)
		l.setAt("PT001", posOf(cf, at))
	default:
		l.pol.Deadline, l.pol.Timeout = routeTimeout, routeTimeout
	}
	if perTry > 0 && (l.pol.Deadline == 0 || perTry < l.pol.Deadline) {
		l.pol.Timeout = perTry
	}
	egStreamBounds(cf, l, to, set, routeTimeout, perTry)
	if rt == nil {
		return nil
	}
	retries := egRetries
	l.retryAt, l.retryDefault = posOf(cf, rt), true
	l.retryWhy = fmt.Sprintf("Envoy Gateway: retry without attempts is %d retries", egRetries)
	if n := get(rt, "attempts"); n != nil {
		v, err := intField(cf, n, "retry.attempts", 0)
		if err != nil {
			return err
		}
		retries, l.retryAt, l.retryDefault = v, posOf(cf, n), false
		l.retryWhy = fmt.Sprintf("retry.attempts: %d (retries)", v)
	} else {
		l.addDefault("Envoy Gateway: retry.attempts unset is %d retries", egRetries)
	}
	codes := []string{"503"}
	if cs := items(get(rt, "codes")); len(cs) > 0 {
		codes = nil
		for _, c := range cs {
			codes = append(codes, scalar(c))
		}
	} else {
		l.addDefault("Envoy Gateway: retry.codes unset retries 503 (retriable_status_codes [503])")
	}
	l.retryWhy += " on " + egRetryOn + " [" + strings.Join(codes, ",") + "]"
	classes := envoyRetryOn(strings.Split(egRetryOn, ","), codes)
	if retries <= 0 {
		classes = nil
	}
	l.retryClasses(retries+1, classes)
	l.setAt("PT007", posOf(cf, get(rt, "codes")))
	l.setAt("PT005", posOf(cf, rt))
	if b := get(rt, "backoff"); b != nil {
		v, err := gwDuration(cf, b, "retry.backoff")
		if err != nil {
			return err
		}
		envoyBackoff(l, v, 0)
		l.setAt("PT013", posOf(cf, b))
	}
	return nil
}

// mergeGatewayLayers is the reading when the implementation is unknown: each class counts
// the more attempts of Istio's and Envoy Gateway's translations, and the timeouts are
// Istio's (none where the rule sets none; Envoy Gateway's 15 s default is the shorter).
func mergeGatewayLayers(istio, eg *ChainLayer) *ChainLayer {
	out := istio
	var more []string
	for _, c := range FailureClasses {
		if n := eg.retryOf(c); n > out.retryOf(c) {
			out.retry[c] = n
			out.pol.Retry.On = append(out.pol.Retry.On, onWord(c))
			more = append(more, string(c))
		}
	}
	// A total Envoy Gateway's translation sets where Istio's sets none (Envoy's 15 s route
	// timeout on a rule without timeouts.request) cuts a stream if Envoy Gateway serves the
	// route: PT017 weighs it, saying so.
	for _, b := range eg.checks.stream {
		if !slices.ContainsFunc(out.checks.stream, func(o streamBound) bool { return o.idle == b.idle && o.name == b.name }) {
			b.dflt = strings.TrimPrefix(b.dflt+"; ", "; ") + "if Envoy Gateway serves this route: implementation unknown"
			out.checks.stream = append(out.checks.stream, b)
		}
	}
	if eg.pol.Retry.MaxAttempts > out.pol.Retry.MaxAttempts {
		out.pol.Retry.MaxAttempts = eg.pol.Retry.MaxAttempts
	}
	if len(more) > 0 {
		out.retryWhy += "; Envoy Gateway's translation retries " + strings.Join(more, ", ") + " too (" + eg.retryWhy + ")"
		out.retryDefault = out.retryDefault || eg.retryDefault
		for rule, p := range eg.checks.at {
			if _, ok := out.checks.at[rule]; !ok {
				out.checks.at[rule] = p
			}
		}
	}
	return out
}

// egStreamBounds records for PT017 the totals Envoy Gateway gives a rule: the route
// timeout (timeouts.request, or backendRequest without retry, else Envoy's 15 s default) and
// the per-try timeout (backendRequest with retry).
func egStreamBounds(cf *ConfigFile, l *ChainLayer, to *yaml.Node, set bool, route, perTry time.Duration) {
	if !set {
		l.streamBound(streamBound{name: "timeouts.request", d: route, dflt: "unset: Envoy Gateway leaves Envoy's default route timeout", off: "timeouts.request: 0s"})
	} else {
		name, n := "timeouts.request", get(to, "request")
		if n == nil || perTry == 0 && get(to, "backendRequest") != nil {
			name, n = "timeouts.backendRequest", get(to, "backendRequest")
		}
		l.streamBound(streamBound{name: name, d: route, at: posOf(cf, n), off: name + ": 0s"})
	}
	if perTry > 0 {
		l.streamBound(streamBound{name: "timeouts.backendRequest", d: perTry, at: posOf(cf, get(to, "backendRequest"))})
	}
}

// gatewayStreamWords renames the bounds Istio's reader recorded for a translated rule in
// the HTTPRoute's words: the VirtualService's timeout and perTryTimeout are the rule's
// timeouts.request or timeouts.backendRequest, whichever node set them.
func gatewayStreamWords(cf *ConfigFile, l *ChainLayer, r *yaml.Node) {
	to := get(r, "timeouts")
	for i := range l.checks.stream {
		b := &l.checks.stream[i]
		for _, key := range []string{"request", "backendRequest"} {
			if n := get(to, key); n != nil && posOf(cf, n) == b.at {
				b.name = "timeouts." + key
				if b.off != "" {
					b.off = b.name + ": 0s"
				}
			}
		}
	}
}

// gatewayImplLayer reads one rule as the implementation in use translates it.
func gatewayImplLayer(cf *ConfigFile, d *configDoc, r *yaml.Node, name string, cs *Configs) (*ChainLayer, error) {
	impl, from := cs.gatewayImplFor(d)
	istio := func() (*ChainLayer, error) {
		vs, err := istioGatewayRoute(cf, r)
		if err != nil {
			return nil, err
		}
		l, err := istioRouteLayer(cf, d, vs, name, cs)
		if err != nil {
			return nil, err
		}
		// Say it in the HTTPRoute's words: the route has `retry` and `timeouts`.
		base := "in " + baseName(cf.Path)
		l.retryWhy = strings.Replace(l.retryWhy, "(no `retries` "+base+")", "(no `retry` on this rule)", 1)
		l.checks.noTimeout = strings.Replace(l.checks.noTimeout, "(no `timeout` on this route "+base+")", "(no timeouts.request on this rule)", 1)
		for i, s := range l.Defaults {
			l.Defaults[i] = strings.Replace(s, "(no `timeout` on this route; plain Envoy's is 15s)", "(no timeouts.request on this rule)", 1)
		}
		gatewayStreamWords(cf, l, r)
		return l, nil
	}
	eg := func() (*ChainLayer, error) {
		l := newLayer("gateway-api", name, posOf(cf, r))
		l.answer = answerEnvoy
		envoyBackoff(l, envoyBackoffBase, 0)
		return l, envoyGatewayLayer(cf, l, r)
	}
	var l *ChainLayer
	var err error
	switch impl {
	case GatewayImplIstio:
		if l, err = istio(); err == nil && cs != nil {
			// Istio applies the backend's DestinationRule to the gateway's route as to a
			// sidecar's (retry budget, connectionPool.http.maxRetries, outlier detection).
			var dest []string
			for _, b := range items(get(r, "backendRefs")) {
				if k := scalar(get(b, "kind")); k == "" || k == "Service" {
					if n := scalar(get(b, "name")); n != "" {
						dest = append(dest, n)
					}
				}
			}
			if dr := cs.destinationRule(dest); dr != nil {
				istioApplyDR(l, dr)
			} else if len(dest) > 0 {
				l.addDefault("Istio default: connectionPool.http.maxRetries 2³²−1, no retryBudget (no DestinationRule for %s)", strings.Join(dest, ", "))
				l.checks.noBudget = fmt.Sprintf("no DestinationRule for %s: Istio lifts Envoy's cap of 3 concurrent retries to 2³²−1 and sets no retryBudget", strings.Join(dest, ", "))
			}
		}
	case GatewayImplEnvoyGateway:
		l, err = eg()
	default:
		var e *ChainLayer
		if l, err = istio(); err == nil {
			if e, err = eg(); err == nil {
				l = mergeGatewayLayers(l, e)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	l.Kind, l.answer = "gateway-api", answerEnvoy
	l.Implementation, l.ImplementationFrom = string(impl), from
	if impl == GatewayImplUnknown {
		if l.checks.noTimeout != "" && get(get(r, "timeouts"), "request") == nil {
			l.checks.noTimeout = "implementation unknown (" + from + "), so read as Istio translates it: no route timeout (no timeouts.request on this rule; Envoy Gateway would apply Envoy's 15s): one hung call holds the caller until the caller gives up; name the implementation with --gateway-impl"
		}
		l.Defaults = append([]string{"Gateway API implementation unknown (" + from + "): counted as the more attempts of Istio's and Envoy Gateway's translations per failure class, and no timeout where Istio's leaves none (Envoy Gateway would apply Envoy's 15s)"}, l.Defaults...)
	} else {
		l.Defaults = append([]string{"read as " + implTitle(impl) + " translates it (" + from + ")"}, l.Defaults...)
	}
	return l, nil
}

// baseName is the last element of a slash-separated path.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
