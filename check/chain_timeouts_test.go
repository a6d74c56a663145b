package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLayerTimeouts: the timeouts each reader puts in chains[].layers[].timeouts, from small
// files of each kind, defaults included, null where the format has no such bound.
func TestLayerTimeouts(t *testing.T) {
	ms := func(v float64) *float64 { return &v }
	envoy := func(rp string) string {
		return "static_resources:\n  clusters: [{name: c, connect_timeout: 0.25s}]\n  listeners: [{filter_chains: [{filters: [{typed_config: {route_config: {virtual_hosts: [{name: v, domains: ['*'], routes: [{name: r, match: {prefix: /}, route: {cluster: c, timeout: 3s" + rp + "}}]}]}}}]}]}]\n"
	}
	cases := []struct {
		name, path, data string
		want             LayerTimeouts
	}{
		{"envoy per-try and idle", "envoy.yaml", envoy(", retry_policy: {num_retries: 1, per_try_timeout: 1s, per_try_idle_timeout: 0.4s}"),
			LayerTimeouts{ConnectMs: ms(250), ReadMs: ms(400), IdleMs: ms(300_000), TotalMs: ms(1000), DeadlineMs: ms(3000)}},
		{"envoy route timeout only (stream_idle_timeout's 5 min default)", "envoy.yaml", envoy(""),
			LayerTimeouts{ConnectMs: ms(250), IdleMs: ms(300_000), TotalMs: ms(3000), DeadlineMs: ms(3000)}},
		{"envoy route idle_timeout", "envoy.yaml", envoy(", idle_timeout: 45s"),
			LayerTimeouts{ConnectMs: ms(250), IdleMs: ms(45_000), TotalMs: ms(3000), DeadlineMs: ms(3000)}},
		{"envoy route idle_timeout 0s disables it", "envoy.yaml", envoy(", idle_timeout: 0s"),
			LayerTimeouts{ConnectMs: ms(250), TotalMs: ms(3000), DeadlineMs: ms(3000)}},
		{"alb idle timeout written", "ing.yaml", albIngress("    alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=180\n"),
			LayerTimeouts{ReadMs: ms(180_000), IdleMs: ms(180_000)}},
		{"linkerd request and idle", "svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n    timeout.linkerd.io/request: 30s\n    timeout.linkerd.io/idle: 5s\n",
			LayerTimeouts{TotalMs: ms(30_000), DeadlineMs: ms(30_000), IdleMs: ms(5_000)}},
		{"alb default", "ing.yaml", albIngress(""),
			LayerTimeouts{ReadMs: ms(60_000), IdleMs: ms(60_000)}},
		{"istio with its DestinationRule", "istio.yaml", `apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: r}
spec:
  hosts: [h]
  http: [{name: r, timeout: 2s, retries: {attempts: 1, perTryTimeout: 800ms}, route: [{destination: {host: h}}]}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: h}
spec: {host: h, trafficPolicy: {connectionPool: {tcp: {connectTimeout: 300ms}}}}
`, LayerTimeouts{ConnectMs: ms(300), TotalMs: ms(800), DeadlineMs: ms(2000)}},
		{"grpc deadline", "sc.json", `{"methodConfig": [{"name": [{"service": "s"}], "timeout": "2s"}]}`,
			LayerTimeouts{TotalMs: ms(2000), DeadlineMs: ms(2000)}},
		{"nginx read, no total", "api.conf", "upstream u { server a:80; }\nserver { listen 80; location / { proxy_pass http://u; proxy_connect_timeout 1s; proxy_read_timeout 5s; proxy_next_upstream_timeout 9s; } }\n",
			LayerTimeouts{ConnectMs: ms(1000), ReadMs: ms(5000), DeadlineMs: ms(9000)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cf, reason, err := ParseConfig(c.path, []byte(c.data))
			if err != nil || cf == nil {
				t.Fatalf("ParseConfig: %v %s", err, reason)
			}
			cs := NewConfigs()
			cs.add(cf)
			chains, err := cs.inferred()
			if err != nil || len(chains) != 1 {
				t.Fatalf("want one chain, got %d (%v)", len(chains), err)
			}
			chains[0].compute()
			if diff := cmp.Diff(c.want, chains[0].Layers[0].Timeouts); diff != "" {
				t.Errorf("timeouts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLayerTimeoutErrors: a bad value in a field the timeouts come from is an input error at
// its line, naming the field.
func TestLayerTimeoutErrors(t *testing.T) {
	cases := []struct {
		name, path, data, field string
		line                    int
	}{
		{"envoy idle in ms", "envoy.yaml", "virtual_hosts: [{name: v, domains: ['*'], routes: [{name: r, match: {prefix: /}, route: {cluster: c,\n  retry_policy: {per_try_idle_timeout: 400ms}}}]}]\n", "retry_policy.per_try_idle_timeout", 2},
		{"istio connect timeout", "istio.yaml", "apiVersion: networking.istio.io/v1\nkind: DestinationRule\nmetadata: {name: h}\nspec: {host: h, trafficPolicy: {connectionPool: {tcp:\n  {connectTimeout: soon}}}}\n", "trafficPolicy.connectionPool.tcp.connectTimeout", 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := parseErr(t, c.path, c.data)
			if e.Field != c.field || e.Line != c.line || e.File != c.path {
				t.Errorf("error at %s:%d field %q, want %s:%d field %q (%s)", e.File, e.Line, e.Field, c.path, c.line, c.field, e.Msg)
			}
		})
	}
}
