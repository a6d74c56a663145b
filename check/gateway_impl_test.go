package check

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/corpus"
)

// gwLayers reads data (one or more YAML documents) as the files of a run with --gateway-impl
// impl ("" = from the inputs) and returns every HTTPRoute rule's layer by name.
func gwLayers(t *testing.T, impl GatewayImpl, files map[string]string) map[string]*ChainLayer {
	t.Helper()
	cs := NewConfigs()
	cs.GatewayImpl = impl
	for path, data := range files {
		cf, reason, err := ParseConfig(path, []byte(data))
		if err != nil || cf == nil {
			t.Fatalf("ParseConfig %s: %v %s", path, err, reason)
		}
		cs.add(cf)
	}
	out := map[string]*ChainLayer{}
	for _, cf := range cs.Files {
		for _, d := range cf.docs {
			if d.kind != "HTTPRoute" {
				continue
			}
			cands, err := d.layers(cs)
			if err != nil {
				t.Fatalf("layers: %v", err)
			}
			for _, c := range cands {
				out[c.layer.Name] = c.layer
			}
		}
	}
	return out
}

func attemptsOf(l *ChainLayer) string {
	parts := make([]string, 0, len(FailureClasses))
	for _, c := range FailureClasses {
		parts = append(parts, fmt.Sprintf("%s=%d", c, l.retryOf(c)))
	}
	return strings.Join(parts, " ")
}

const gwRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
    - name: empty
      retry: {}
    - name: nocodes
      retry: {attempts: 1}
      timeouts: {request: 5s}
    - name: noretry
      timeouts: {request: 5s}
    - name: backend
      timeouts: {request: 10s, backendRequest: 2s}
    - name: pertry
      retry: {attempts: 2, codes: [500], backoff: 100ms}
      timeouts: {request: 10s, backendRequest: 2s}
    - name: zero
      retry: {attempts: 0}
      timeouts: {request: 0s}
`

// TestGatewayImplTranslations holds each rule of one HTTPRoute to what Istio and Envoy
// Gateway make of it.
//   - Istio: istio/istio pilot/pkg/config/kube/gateway/conversion.go @61c3e55
//     (convertHTTPRoute: Attempts ptr.OrDefault(r.Retry.Attempts, 2); retryOn
//     connect-failure,refused-stream,unavailable,cancelled + codes; backendRequest is
//     perTryTimeout with retry, else the route timeout); no retry → the mesh default,
//     pilot/pkg/networking/core/route/retry/retry.go DefaultPolicy (2 retries on
//     connect-failure,…,retriable-status-codes with no codes); no timeout → route.go
//     setTimeout Notimeout.
//   - Envoy Gateway: envoyproxy/gateway internal/gatewayapi/route.go processRouteRetry and
//     processRouteTimeout @fafbfec, internal/xds/translator/route.go buildRetryPolicy
//     (retryDefaultNumRetries 2, retryDefaultRetriableStatusCode 503, codes replace it) and
//     getEffectiveRequestTimeout (nil without timeouts: Envoy's 15s RouteAction.timeout).
func TestGatewayImplTranslations(t *testing.T) {
	type want struct {
		attempts  string
		deadline  time.Duration
		timeout   time.Duration
		noTimeout bool
	}
	const (
		none    = "connect=1 reset=1 timeout=1 5xx=1 503=1 429=1 4xx=1"
		conn3   = "connect=3 reset=1 timeout=1 5xx=1 503=1 429=1 4xx=1"
		conn503 = "connect=3 reset=1 timeout=1 5xx=1 503=3 429=1 4xx=1"
	)
	cases := map[GatewayImpl]map[string]want{
		GatewayImplIstio: {
			"r/empty":   {attempts: conn3, noTimeout: true},                                                                                     // retry {} = 2 retries, no 503
			"r/nocodes": {attempts: "connect=2 reset=1 timeout=1 5xx=1 503=1 429=1 4xx=1", deadline: 5 * time.Second, timeout: 5 * time.Second}, // no codes: no 503
			"r/noretry": {attempts: conn3, deadline: 5 * time.Second, timeout: 5 * time.Second},                                                 // mesh default retries
			"r/backend": {attempts: conn3, deadline: 2 * time.Second, timeout: 2 * time.Second},                                                 // backendRequest replaces request
			"r/pertry":  {attempts: "connect=3 reset=1 timeout=1 5xx=3 503=1 429=1 4xx=1", deadline: 10 * time.Second, timeout: 2 * time.Second},
			"r/zero":    {attempts: none, noTimeout: true}, // attempts 0 disables; 0s is no timeout
		},
		GatewayImplEnvoyGateway: {
			"r/empty":   {attempts: conn503, deadline: 15 * time.Second, timeout: 15 * time.Second}, // 2 retries, 503 by default, Envoy's 15s
			"r/nocodes": {attempts: "connect=2 reset=1 timeout=1 5xx=1 503=2 429=1 4xx=1", deadline: 5 * time.Second, timeout: 5 * time.Second},
			"r/noretry": {attempts: none, deadline: 5 * time.Second, timeout: 5 * time.Second}, // no retry policy at all
			"r/backend": {attempts: none, deadline: 2 * time.Second, timeout: 2 * time.Second},
			"r/pertry":  {attempts: "connect=3 reset=1 timeout=1 5xx=3 503=1 429=1 4xx=1", deadline: 10 * time.Second, timeout: 2 * time.Second},
			"r/zero":    {attempts: none, noTimeout: true},
		},
		// Unknown: the more of the two per class; Istio's missing timeout.
		GatewayImplUnknown: {
			"r/empty":   {attempts: conn503, noTimeout: true},
			"r/nocodes": {attempts: "connect=2 reset=1 timeout=1 5xx=1 503=2 429=1 4xx=1", deadline: 5 * time.Second, timeout: 5 * time.Second},
			"r/noretry": {attempts: conn3, deadline: 5 * time.Second, timeout: 5 * time.Second},
		},
	}
	for impl, rules := range cases {
		flag := impl
		if impl == GatewayImplUnknown {
			flag = GatewayImplAuto
		}
		layers := gwLayers(t, flag, map[string]string{"route.yaml": gwRoute})
		for name, w := range rules {
			t.Run(string(impl)+"/"+name, func(t *testing.T) {
				l := layers[name]
				if l == nil {
					t.Fatalf("no layer %s", name)
				}
				if got := attemptsOf(l); got != w.attempts {
					t.Errorf("attempts %s, want %s (%s)", got, w.attempts, l.retryWhy)
				}
				if l.pol.Deadline != w.deadline || l.pol.Timeout != w.timeout {
					t.Errorf("deadline %v timeout %v, want %v %v", l.pol.Deadline, l.pol.Timeout, w.deadline, w.timeout)
				}
				if got := l.checks.noTimeout != ""; got != w.noTimeout {
					t.Errorf("no timeout (PT001) %v, want %v: %q", got, w.noTimeout, l.checks.noTimeout)
				}
				if impl == GatewayImplUnknown && w.noTimeout && !strings.Contains(l.checks.noTimeout, "implementation unknown") {
					t.Errorf("PT001 does not state the assumption: %q", l.checks.noTimeout)
				}
				if l.Implementation != string(impl) || l.ImplementationFrom == "" {
					t.Errorf("implementation %q from %q, want %q", l.Implementation, l.ImplementationFrom, impl)
				}
			})
		}
	}
}

// TestGatewayImplDetected: the implementation comes from the inputs — the route's parent
// Gateway's class, a GatewayClass's controllerName (Istio: istio.io/gateway-controller;
// Envoy Gateway: gateway.envoyproxy.io/gatewayclass-controller, envoyproxy/gateway
// api/v1alpha1 GatewayControllerName), an EnvoyProxy or an Istio resource — and when the
// inputs show both and the route's parents name neither, it is unknown, saying why.
func TestGatewayImplDetected(t *testing.T) {
	route := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec:\n  parentRefs: [{name: gw}]\n  rules: [{retry: {}}]\n"
	cases := []struct {
		name  string
		other string
		want  GatewayImpl
		from  string
	}{
		{"class controller", "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: mine}\nspec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\nspec: {gatewayClassName: mine}\n", GatewayImplEnvoyGateway, "parentRef Gateway gw"},
		{"class name eg", "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\nspec: {gatewayClassName: eg}\n", GatewayImplEnvoyGateway, "gatewayClassName eg"},
		{"class name istio", "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\nspec: {gatewayClassName: istio}\n", GatewayImplIstio, "gatewayClassName istio"},
		{"EnvoyProxy", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: p}\nspec: {}\n", GatewayImplEnvoyGateway, "EnvoyProxy p"},
		{"Istio resource", "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: d}\nspec: {host: x}\n", GatewayImplIstio, "DestinationRule d"},
		{"both", "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: p}\nspec: {}\n---\napiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: d}\nspec: {host: x}\n", GatewayImplUnknown, "show both"},
		{"nothing", "", GatewayImplUnknown, "no GatewayClass"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"route.yaml": route}
			if c.other != "" {
				files["other.yaml"] = c.other
			}
			l := gwLayers(t, GatewayImplAuto, files)["r"]
			if l == nil {
				t.Fatal("no layer r")
			}
			if GatewayImpl(l.Implementation) != c.want || !strings.Contains(l.ImplementationFrom, c.from) {
				t.Errorf("implementation %q from %q, want %q from …%s…", l.Implementation, l.ImplementationFrom, c.want, c.from)
			}
			if !strings.Contains(strings.Join(l.Defaults, "\n"), l.ImplementationFrom) {
				t.Errorf("defaults do not state the choice: %q", l.Defaults)
			}
		})
	}
	// The flag wins over the inputs.
	l := gwLayers(t, GatewayImplIstio, map[string]string{"route.yaml": route, "eg.yaml": cases[1].other})["r"]
	if l.Implementation != "istio" || l.ImplementationFrom != "--gateway-impl istio" {
		t.Errorf("flag: %q from %q", l.Implementation, l.ImplementationFrom)
	}
}

// TestGatewayIstioMatchesGolden reads Istio's own test input (istio/istio
// pilot/pkg/config/kube/gateway/testdata/http.yaml @116e8ec) as Istio translates it and holds
// every rule to the VirtualService route Istio's conversion wrote for it (http.yaml.golden,
// the same commit), read by check's VirtualService reader: per-class attempts, the route
// timeout, the per-try timeout, the backoff and whether PT001 fires must agree.
func TestGatewayIstioMatchesGolden(t *testing.T) {
	in := corpus.Path(t, "istio-gwapi-http.yaml")
	golden := corpus.Path(t, "istio-gwapi-http.golden.yaml")
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The input's GatewayClass names istio.io/gateway-controller: no flag needed.
	cs := NewConfigs()
	cf, _, err := ParseConfig(in, []byte(read(in)))
	if err != nil || cf == nil {
		t.Fatalf("ParseConfig: %v", err)
	}
	cs.add(cf)
	ours := map[string]*ChainLayer{}
	for _, d := range cf.docs {
		if d.kind != "HTTPRoute" {
			continue
		}
		for i, r := range items(get(get(d.node, "spec"), "rules")) {
			l, err := gatewayImplLayer(cf, d, r, d.name, cs)
			if err != nil {
				t.Fatal(err)
			}
			if l.Implementation != "istio" {
				t.Fatalf("%s: implementation %q (%s), want istio from the GatewayClass", d.name, l.Implementation, l.ImplementationFrom)
			}
			ns := d.namespace
			if ns == "" {
				ns = "default"
			}
			ours[fmt.Sprintf("%s.%s.%d", ns, d.name, i)] = l
		}
	}
	gf, _, err := ParseConfig(golden, []byte(read(golden)))
	if err != nil || gf == nil {
		t.Fatalf("ParseConfig golden: %v", err)
	}
	compared := 0
	for _, d := range gf.docs {
		if d.kind != "VirtualService" {
			continue
		}
		for _, r := range items(get(get(d.node, "spec"), "http")) {
			key := scalar(get(r, "name"))
			l := ours[key]
			if l == nil {
				continue
			}
			g, err := istioRouteLayer(gf, d, r, key, cs)
			if err != nil {
				t.Fatal(err)
			}
			compared++
			if a, b := attemptsOf(l), attemptsOf(g); a != b {
				t.Errorf("%s: attempts %s, Istio's VirtualService %s", key, a, b)
			}
			if l.pol.Deadline != g.pol.Deadline || l.pol.Timeout != g.pol.Timeout {
				t.Errorf("%s: deadline %v try %v, Istio's %v %v", key, l.pol.Deadline, l.pol.Timeout, g.pol.Deadline, g.pol.Timeout)
			}
			if l.pol.Retry.Base != g.pol.Retry.Base {
				t.Errorf("%s: backoff %v, Istio's %v", key, l.pol.Retry.Base, g.pol.Retry.Base)
			}
			if (l.checks.noTimeout == "") != (g.checks.noTimeout == "") {
				t.Errorf("%s: PT001 %q, Istio's %q", key, l.checks.noTimeout, g.checks.noTimeout)
			}
		}
	}
	// http-retry-request has the three retry cases: attempts 3 with codes 503, 429 and a 3ms
	// backoff; retry {} (2 retries, no codes); no retry (the mesh default).
	if compared < 15 {
		t.Errorf("compared %d routes with Istio's golden, want every translated rule (≥ 15)", compared)
	}
	for key, want := range map[string]string{
		"default.http-retry-request.0": "connect=4 reset=1 timeout=1 5xx=1 503=4 429=4 4xx=1",
		"default.http-retry-request.1": "connect=3 reset=1 timeout=1 5xx=1 503=1 429=1 4xx=1",
		"default.http-retry-request.2": "connect=3 reset=1 timeout=1 5xx=1 503=1 429=1 4xx=1",
	} {
		if l := ours[key]; l == nil || attemptsOf(l) != want {
			t.Errorf("%s: %v, want %s", key, l, want)
		}
	}
}

// TestGatewayConformanceCorpus reads the Gateway API conformance routes (kubernetes-sigs/
// gateway-api conformance/tests @470219e) and the timeout example (examples/experimental
// @6bb2275) under each implementation; none names its implementation (parentRefs to a
// Gateway not among the inputs), so auto is unknown and says so.
func TestGatewayConformanceCorpus(t *testing.T) {
	type row struct {
		file, layer string
		impl        GatewayImpl
		attempts    string
		noTimeout   bool
	}
	rows := []row{
		// retry: {attempts: 3} and no codes: Envoy Gateway retries 503 (its default
		// retriable status code), Istio does not.
		{"gwapi-httproute-retry-connection-error.yaml", "retries-connection-error", GatewayImplIstio, "connect=4 reset=1 timeout=1 5xx=1 503=1 429=1 4xx=1", true},
		{"gwapi-httproute-retry-connection-error.yaml", "retries-connection-error", GatewayImplEnvoyGateway, "connect=4 reset=1 timeout=1 5xx=1 503=4 429=1 4xx=1", false},
		{"gwapi-httproute-retry-connection-error.yaml", "retries-connection-error", GatewayImplAuto, "connect=4 reset=1 timeout=1 5xx=1 503=4 429=1 4xx=1", true},
		// codes [500], attempts 3: both retry a 500 three times, not a 503.
		{"gwapi-httproute-retry.yaml", "retries/rules[0]", GatewayImplEnvoyGateway, "connect=4 reset=1 timeout=1 5xx=4 503=1 429=1 4xx=1", false},
		{"gwapi-httproute-retry.yaml", "retries/rules[0]", GatewayImplIstio, "connect=4 reset=1 timeout=1 5xx=4 503=1 429=1 4xx=1", true},
		// retry {attempts: 2} with backendRequest 200ms: a per-try timeout, so no PT001
		// even under Istio (Envoy bounds each try by per_try_timeout).
		{"gwapi-httproute-retry-with-timeouts.yaml", "retries-with-timeouts/rules[0]", GatewayImplIstio, "connect=3 reset=1 timeout=1 5xx=1 503=1 429=1 4xx=1", false},
		{"gwapi-httproute-retry-with-timeouts.yaml", "retries-with-timeouts/rules[0]", GatewayImplEnvoyGateway, "connect=3 reset=1 timeout=1 5xx=1 503=3 429=1 4xx=1", false},
		// No retry, request 10s and backendRequest 2s: the route timeout is 2s under both;
		// Istio adds its default retries.
		{"gwapi-timeout-example.yaml", "timeout-example", GatewayImplIstio, "connect=3 reset=1 timeout=1 5xx=1 503=1 429=1 4xx=1", false},
		{"gwapi-timeout-example.yaml", "timeout-example", GatewayImplEnvoyGateway, "connect=1 reset=1 timeout=1 5xx=1 503=1 429=1 4xx=1", false},
	}
	for _, r := range rows {
		t.Run(r.file+"/"+string(r.impl), func(t *testing.T) {
			p := corpus.Path(t, r.file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			l := gwLayers(t, r.impl, map[string]string{p: string(b)})[r.layer]
			if l == nil {
				t.Fatalf("no layer %s", r.layer)
			}
			if got := attemptsOf(l); got != r.attempts {
				t.Errorf("attempts %s, want %s (%s)", got, r.attempts, l.retryWhy)
			}
			if got := l.checks.noTimeout != ""; got != r.noTimeout {
				t.Errorf("PT001 %v, want %v (%q)", got, r.noTimeout, l.checks.noTimeout)
			}
			if r.file == "gwapi-timeout-example.yaml" && (l.pol.Deadline != 2*time.Second || l.pol.Timeout != 2*time.Second) {
				t.Errorf("timeouts %v/%v, want 2s: backendRequest without retry is the route timeout (conversion.go; route.go processRouteTimeout)", l.pol.Deadline, l.pol.Timeout)
			}
			if r.impl == GatewayImplAuto && l.Implementation != "unknown" {
				t.Errorf("implementation %q, want unknown", l.Implementation)
			}
		})
	}
}

// FuzzGatewayRoute: any HTTPRoute is read under each implementation without a panic, and a
// value it cannot read is an error naming the file.
func FuzzGatewayRoute(f *testing.F) {
	f.Add(gwRoute)
	f.Add("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: x}\nspec: {rules: [{retry: {codes: [x]}}]}\n")
	f.Add("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: x}\nspec: {rules: [{timeouts: {request: -1s, backendRequest: 1h}, retry: {attempts: -3}}]}\n")
	f.Fuzz(func(t *testing.T, data string) {
		for _, impl := range []GatewayImpl{GatewayImplAuto, GatewayImplIstio, GatewayImplEnvoyGateway} {
			cf, _, err := ParseConfig("f.yaml", []byte(data))
			if err != nil {
				if !strings.Contains(err.Error(), "f.yaml") {
					t.Fatalf("error without the file: %v", err)
				}
				return
			}
			if cf == nil {
				return
			}
			cs := NewConfigs()
			cs.GatewayImpl = impl
			cs.add(cf)
			for _, d := range cf.docs {
				if _, err := d.layers(cs); err != nil && !strings.Contains(err.Error(), "f.yaml") {
					t.Fatalf("error without the file: %v", err)
				}
			}
		}
	})
}

// TestGatewayEnvoyGatewayMatchesXDS: Envoy Gateway's own translator output for a route whose
// retry sets nothing (envoyproxy/gateway internal/xds/translator/testdata/out/xds-ir/
// retry.routes.yaml @b58edd7, "second-route-defaults": numRetries 2, retriableStatusCodes
// [503], retryOn connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes),
// read by check's Envoy reader, counts what check's Envoy Gateway reading of `retry: {}` does.
func TestGatewayEnvoyGatewayMatchesXDS(t *testing.T) {
	p := corpus.Path(t, "eg-retry.routes.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	cf, _, err := ParseConfig(p, b)
	if err != nil || cf == nil {
		t.Skipf("the Envoy reader does not read %s here (%v)", p, err)
	}
	var xds *ChainLayer
	for _, d := range cf.docs {
		cands, err := d.layers(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			if strings.Contains(c.layer.Name, "second-route-defaults") {
				xds = c.layer
			}
		}
	}
	if xds == nil {
		t.Fatal("no second-route-defaults route")
	}
	ours := gwLayers(t, GatewayImplEnvoyGateway, map[string]string{"route.yaml": gwRoute})["r/empty"]
	if a, b := attemptsOf(ours), attemptsOf(xds); a != b {
		t.Errorf("retry {} under Envoy Gateway: %s, its xDS output: %s", a, b)
	}
	// The route has no timeouts and its xDS route no `timeout`: Envoy's 15s default both ways.
	if ours.pol.Deadline != xds.pol.Deadline || ours.pol.Timeout != xds.pol.Timeout {
		t.Errorf("timeouts %v/%v, its xDS output %v/%v", ours.pol.Deadline, ours.pol.Timeout, xds.pol.Deadline, xds.pol.Timeout)
	}
}

// TestGatewayIstioDestinationRule: under Istio the backend's DestinationRule applies to the
// gateway route as to a VirtualService route (pilot builds the same cluster): a retryBudget
// there bounds the retries, and without one PT012 says Istio lifts Envoy's retry cap.
func TestGatewayIstioDestinationRule(t *testing.T) {
	route := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec:\n  rules: [{retry: {}, backendRefs: [{name: shop, port: 80}]}]\n"
	dr := "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: shop}\nspec:\n  host: shop.default.svc.cluster.local\n  trafficPolicy: {retryBudget: {percent: 20, minRetryConcurrency: 3}}\n"
	l := gwLayers(t, GatewayImplIstio, map[string]string{"route.yaml": route, "dr.yaml": dr})["r"]
	if l.budget != 0.2 || l.checks.noBudget != "" {
		t.Errorf("budget %v noBudget %q, want the DestinationRule's 20%%", l.budget, l.checks.noBudget)
	}
	l = gwLayers(t, GatewayImplIstio, map[string]string{"route.yaml": route})["r"]
	if !strings.Contains(l.checks.noBudget, "no DestinationRule for shop") {
		t.Errorf("noBudget %q", l.checks.noBudget)
	}
}
