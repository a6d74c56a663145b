package check

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/internal/corpus"
	"github.com/patience-dev/patience/policy"
)

// corpusLayers reads a real upstream file from the shared corpus as `patience check` does and
// returns its format and layers in file order.
func corpusLayers(t *testing.T, name string) (string, []*ChainLayer) {
	t.Helper()
	path := corpus.Path(t, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cf, reason, err := ParseConfig(path, data)
	if err != nil {
		t.Fatalf("ParseConfig: %v", err)
	}
	if cf == nil {
		t.Fatalf("skipped: %s", reason)
	}
	var out []*ChainLayer
	for _, d := range cf.docs {
		cands, err := d.layers(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			out = append(out, c.layer)
		}
	}
	return cf.Format, out
}

// retryAttempts is a layer's attempts per class, leaving out the classes it does not retry.
func retryAttempts(l *ChainLayer) map[FailureClass]int {
	out := map[FailureClass]int{}
	for c, n := range l.retry {
		if n > 1 {
			out[c] = n
		}
	}
	return out
}

// TestCorpusResilience4jDemo: resilience4j/resilience4j-spring-boot2-demo
// src/main/resources/application.yml (0aa908b5), written with Spring Boot's dotted top-level
// keys (`resilience4j.retry:`), was skipped. Both retry instances name baseConfig: default,
// whose maxAttempts: 3 (line 67) counts attempts, the first included (resilience4j-retry
// RetryConfig.Builder.maxAttempts), and whose waitDuration: 100 has no unit, so Spring reads
// milliseconds (spring-boot convert/DurationStyle.java SIMPLE: no suffix = ChronoUnit.MILLIS).
// retryExceptions HttpServerErrorException, TimeoutException and IOException are the 5xx
// (503 included), a timeout, and I/O failures (connect, reset); BusinessException, ignored,
// is none of them. The timelimiter instances take configs.default's timeoutDuration: 2s
// (CommonTimeLimiterConfigurationProperties.createTimeLimiterConfig over baseConfig), and a
// circuit breaker guards each (resilience4j.circuitbreaker.instances).
func TestCorpusResilience4jDemo(t *testing.T) {
	format, layers := corpusLayers(t, "resilience4j-demo-application.yml")
	if format != "resilience4j" || len(layers) != 2 {
		t.Fatalf("format %q, %d layers", format, len(layers))
	}
	for i, name := range []string{"backendA", "backendB"} {
		l := layers[i]
		if l.Name != name {
			t.Errorf("layer %d is %s, want %s", i, l.Name, name)
		}
		want := map[FailureClass]int{FailConnect: 3, FailReset: 3, FailTimeout: 3, Fail5xx: 3, Fail503: 3}
		if diff := cmp.Diff(want, retryAttempts(l)); diff != "" {
			t.Errorf("%s attempts (-want +got):\n%s", name, diff)
		}
		r := l.pol.Retry
		if r.MaxAttempts != 3 || r.Base != 100*time.Millisecond || r.Backoff != policy.BackoffConstant || r.Jitter != policy.JitterNone {
			t.Errorf("%s retry %+v", name, r)
		}
		if l.retryAt.Line != 67 || l.retryDefault {
			t.Errorf("%s retry count at line %d (default %v), want line 67", name, l.retryAt.Line, l.retryDefault)
		}
		if l.pol.Timeout != 2*time.Second || l.pol.Breaker == nil {
			t.Errorf("%s timeout %v breaker %v", name, l.pol.Timeout, l.pol.Breaker != nil)
		}
	}
}

// TestCorpusEnvoyConfigDumps: istio/istio istioctl/pkg/writer/envoy/configdump/testdata/routes
// {istio-gateway-http-route-prefix,k8s-gateway-http-route-path-prefix}/configdump.json
// (eded0820): an admin /config_dump whose RoutesConfigDump holds two static route configs
// (prometheus_stats, agent: no retry policy, so 1 attempt and Envoy's 15 s route timeout,
// route_components.proto RouteAction.timeout) and one dynamic route config Istio generated:
// num_retries: 2 → 3 attempts; retry_on connect-failure, refused-stream, unavailable,
// cancelled, retriable-status-codes with retriable_status_codes [503] retries a failed
// connect and a 503 (refused-stream and the gRPC codes are none of check's classes);
// timeout: "0s" disables the route timeout, so a hang ends at the connection manager's
// stream_idle_timeout, 5 min by default (http_connection_manager.proto).
func TestCorpusEnvoyConfigDumps(t *testing.T) {
	for file, dynamic := range map[string]string{
		"envoy-configdump-istio-gateway-routes.json": "httpbin.example.com:80/routes[0]",
		"envoy-configdump-k8s-gateway-routes.json":   "default.http.0",
	} {
		t.Run(file, func(t *testing.T) {
			format, layers := corpusLayers(t, file)
			if format != "envoy" || len(layers) != 3 {
				t.Fatalf("format %q, %d layers", format, len(layers))
			}
			for _, l := range layers[:2] {
				if len(retryAttempts(l)) != 0 || l.pol.Deadline != 15*time.Second || l.Name != "backend/routes[0]" {
					t.Errorf("static route %s: attempts %v deadline %v", l.Name, retryAttempts(l), l.pol.Deadline)
				}
			}
			l := layers[2]
			if l.Name != dynamic {
				t.Errorf("dynamic route named %q, want %q", l.Name, dynamic)
			}
			if diff := cmp.Diff(map[FailureClass]int{FailConnect: 3, Fail503: 3}, retryAttempts(l)); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			if l.pol.Deadline != 5*time.Minute || l.checks.noTimeout != "" {
				t.Errorf("deadline %v noTimeout %q", l.pol.Deadline, l.checks.noTimeout)
			}
		})
	}
}

// TestCorpusEnvoyGatewayRetry: envoyproxy/gateway
// internal/xds/translator/testdata/out/xds-ir/retry.routes.yaml (b58edd77), a YAML list of
// RouteConfigurations with protobuf JSON names. first-route: numRetries 3 → 4 attempts,
// retryOn connect-failure and retriable-status-codes [500]; retryBackOff baseInterval
// 0.200s, max_interval unset = 10 × base (route_components.proto
// RetryPolicy.RetryBackOff.max_interval). second-route-defaults: numRetries 2, [503].
// third-route-only-triggers: numRetries 5, retryOn reset, reset-before-request,
// connect-failure (router_filter.rst: reset covers a disconnect, reset or read timeout).
func TestCorpusEnvoyGatewayRetry(t *testing.T) {
	format, layers := corpusLayers(t, "eg-retry.routes.yaml")
	if format != "envoy" || len(layers) != 3 {
		t.Fatalf("format %q, %d layers", format, len(layers))
	}
	want := []struct {
		name     string
		attempts map[FailureClass]int
		base     time.Duration
		cap      time.Duration
	}{
		{"first-route", map[FailureClass]int{FailConnect: 4, Fail5xx: 4}, 200 * time.Millisecond, 2 * time.Second},
		{"second-route-defaults", map[FailureClass]int{FailConnect: 3, Fail503: 3}, 25 * time.Millisecond, 250 * time.Millisecond},
		{"third-route-only-triggers", map[FailureClass]int{FailConnect: 6, FailReset: 6, FailTimeout: 6}, 25 * time.Millisecond, 250 * time.Millisecond},
	}
	for i, w := range want {
		l := layers[i]
		if l.Name != w.name {
			t.Errorf("layer %d is %s, want %s", i, l.Name, w.name)
		}
		if diff := cmp.Diff(w.attempts, retryAttempts(l)); diff != "" {
			t.Errorf("%s attempts (-want +got):\n%s", w.name, diff)
		}
		if l.pol.Retry.Base != w.base || l.pol.Retry.Cap != w.cap || l.pol.Deadline != 15*time.Second {
			t.Errorf("%s backoff %v cap %v deadline %v", w.name, l.pol.Retry.Base, l.pol.Retry.Cap, l.pol.Deadline)
		}
	}
}

// TestCorpusEnvoyGatewayRetryPartialInvalid: envoyproxy/gateway …/retry-partial-invalid.routes.yaml
// (75fcedc6). first-route: numRetries 5 → 6 attempts on reset, connect-failure and
// retriable-status-codes [429, 503]; perTryTimeout 0.250s under the 15 s route timeout;
// retryBackOff 0.100s to 10s. The first-listener/bar virtual host has no routes.
func TestCorpusEnvoyGatewayRetryPartialInvalid(t *testing.T) {
	_, layers := corpusLayers(t, "eg-retry-partial-invalid.routes.yaml")
	if len(layers) != 2 {
		t.Fatalf("%d layers", len(layers))
	}
	l := layers[0]
	want := map[FailureClass]int{FailConnect: 6, FailReset: 6, FailTimeout: 6, Fail503: 6, Fail429: 6}
	if diff := cmp.Diff(want, retryAttempts(l)); diff != "" {
		t.Errorf("first-route attempts (-want +got):\n%s", diff)
	}
	if l.pol.Timeout != 250*time.Millisecond || l.pol.Deadline != 15*time.Second || l.pol.Retry.Base != 100*time.Millisecond || l.pol.Retry.Cap != 10*time.Second {
		t.Errorf("first-route per-try %v deadline %v backoff %v–%v", l.pol.Timeout, l.pol.Deadline, l.pol.Retry.Base, l.pol.Retry.Cap)
	}
	if diff := cmp.Diff(map[FailureClass]int{FailConnect: 3, Fail503: 3}, retryAttempts(layers[1])); diff != "" || layers[1].Name != "second-route-defaults" {
		t.Errorf("%s attempts (-want +got):\n%s", layers[1].Name, diff)
	}
}

// TestCorpusEnvoyGatewayTimeouts: envoyproxy/gateway …/http-route-timeout.routes.yaml
// (cc23457a). The route timeout spans the request; maxStreamDuration bounds it too (0s
// leaves the route timeout); a route with timeout 0s and idleTimeout 0s has nothing that
// ends a hang (route_components.proto RouteAction.timeout, idle_timeout,
// MaxStreamDuration.max_stream_duration).
func TestCorpusEnvoyGatewayTimeouts(t *testing.T) {
	_, layers := corpusLayers(t, "eg-http-route-timeout.routes.yaml")
	want := []struct {
		name     string
		deadline time.Duration
	}{
		{"first-route", 5 * time.Second}, // timeout 5s, maxStreamDuration 30s
		{"second-route", 4000 * time.Second},
		{"third-route", 0}, // timeout 0s, idleTimeout 0s
		{"forth-route", 10 * time.Second},
		{"fifth-route", 10 * time.Second},
		{"sixth-route", 0},
		{"seventh-route", 0},
		{"first-route", 5 * time.Second}, // second-listener
	}
	if len(layers) != len(want) {
		t.Fatalf("%d layers, want %d", len(layers), len(want))
	}
	for i, w := range want {
		l := layers[i]
		if l.Name != w.name || l.pol.Deadline != w.deadline || (w.deadline == 0) != (l.checks.noTimeout != "") {
			t.Errorf("layer %d: %s deadline %v noTimeout %q; want %s %v", i, l.Name, l.pol.Deadline, l.checks.noTimeout, w.name, w.deadline)
		}
	}
}

// TestCorpusEnvoyBootstraps: Envoy's own example bootstraps still read as before.
func TestCorpusEnvoyBootstraps(t *testing.T) {
	for _, f := range []string{"envoy-envoyproxy_io_proxy.yaml", "envoy-google-vrp-edge.yaml"} {
		format, layers := corpusLayers(t, f)
		if format != "envoy" || len(layers) == 0 {
			t.Errorf("%s: format %q, %d layers", f, format, len(layers))
		}
	}
}
