package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// envoySummary is what an Envoy route layer says, for comparing spellings.
type envoySummary struct {
	Attempts map[FailureClass]int
	Deadline time.Duration
	Timeout  time.Duration
	Base     time.Duration
	Cap      time.Duration
	Connect  time.Duration
}

func envoySummarise(l *ChainLayer) envoySummary {
	return envoySummary{Attempts: l.retry, Deadline: l.pol.Deadline, Timeout: l.pol.Timeout, Base: l.pol.Retry.Base, Cap: l.pol.Retry.Cap, Connect: l.pol.ConnectTimeout}
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "configs_a", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestEnvoyProtoJSONNames: a route written with protobuf's JSON names (camelCase, as Envoy
// Gateway's protojson output) reads as the same route with the proto field names. protobuf's
// JSON mapping: "Parsers accept both the lowerCamelCase name … and the original proto field
// name"; Envoy parses YAML through it (envoy source/common/protobuf/utility.cc
// MessageUtil::loadFromYaml → loadFromJson).
func TestEnvoyProtoJSONNames(t *testing.T) {
	snake := `
virtual_hosts:
- name: api
  domains: [api.example]
  retry_policy: {num_retries: 4, retry_on: 5xx}
  routes:
  - name: api-default
    match: {prefix: /}
    route: {cluster: api, timeout: 2.5s}
  - name: api-own
    match: {prefix: /pay}
    route:
      cluster: api
      timeout: 10s
      retry_policy:
        num_retries: "2"
        per_try_timeout: 0.500s
        retry_on: reset-before-request,gateway-error
        retry_back_off: {base_interval: 0.050s}
`
	_, a := parsedLayers(t, "snake.yaml", snake)
	cf, b := parsedLayers(t, "envoy-routes-camel.yaml", readFixture(t, "envoy-routes-camel.yaml"))
	if cf.Format != "envoy" || len(a) != 2 {
		t.Fatalf("format %q, %d layers", cf.Format, len(a))
	}
	for name := range a {
		if diff := cmp.Diff(envoySummarise(a[name]), envoySummarise(b[name])); diff != "" {
			t.Errorf("%s (-snake +camel):\n%s", name, diff)
		}
	}
	// api-default takes the virtual host's policy: numRetries 4 → 5 attempts on 5xx and
	// everything 5xx covers (router_filter.rst x-envoy-retry-on 5xx), inside 2.5 s.
	d := envoySummarise(b["api-default"])
	if d.Attempts[Fail5xx] != 5 || d.Attempts[FailConnect] != 5 || d.Deadline != 2500*time.Millisecond {
		t.Errorf("api-default %+v", d)
	}
	// api-own: its own policy replaces the vhost's; "2" (a uint32 may be a JSON string) → 3
	// attempts; gateway-error retries 503 not 500; per-try 0.5 s under a 10 s route
	// timeout; backoff base 50 ms, max 10 × base (RetryPolicy.RetryBackOff.max_interval).
	o := envoySummarise(b["api-own"])
	want := envoySummary{
		Attempts: map[FailureClass]int{FailConnect: 3, FailReset: 3, FailTimeout: 3, Fail503: 3},
		Deadline: 10 * time.Second, Timeout: 500 * time.Millisecond, Base: 50 * time.Millisecond, Cap: 500 * time.Millisecond,
	}
	if diff := cmp.Diff(want, o); diff != "" {
		t.Errorf("api-own (-want +got):\n%s", diff)
	}
}

// TestEnvoyConfigDump: an admin /config_dump (configs[] of envoy.admin.v3.*ConfigDump) is
// read: the RoutesConfigDump's dynamic route configs and the ClustersConfigDump's clusters
// (envoy api/envoy/admin/v3/config_dump_shared.proto: dynamic_route_configs[].route_config,
// dynamic_active_clusters[].cluster).
func TestEnvoyConfigDump(t *testing.T) {
	cf, layers := parsedLayers(t, "dump.json", readFixture(t, "envoy-dump.json"))
	if cf.Format != "envoy" || len(layers) != 1 {
		t.Fatalf("format %q, layers %v", cf.Format, layers)
	}
	l := layers["orders-api"]
	got := envoySummarise(l)
	// retry_policy without num_retries: 1 retry (RetryPolicy.num_retries "defaults to 1"),
	// connect-failure and 503; timeout 0s disables the route timeout, so a hang ends at the
	// connection manager's stream_idle_timeout default, 5 min; the cluster's
	// connect_timeout 2 s from the ClustersConfigDump.
	want := envoySummary{
		Attempts: map[FailureClass]int{FailConnect: 2, Fail503: 2},
		Deadline: 5 * time.Minute, Timeout: 5 * time.Minute, Base: 25 * time.Millisecond, Cap: 250 * time.Millisecond, Connect: 2 * time.Second,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !l.retryDefault || !strings.Contains(strings.Join(l.Defaults, "\n"), "stream_idle_timeout") {
		t.Errorf("defaults %v, retryDefault %v", l.Defaults, l.retryDefault)
	}
}

// TestEnvoyIdleTimeout: with the route timeout disabled, the route's idle_timeout, or the
// inline connection manager's stream_idle_timeout, ends a hang; 0 disables it too
// (route_components.proto RouteAction.idle_timeout).
func TestEnvoyIdleTimeout(t *testing.T) {
	route := func(extra string) string {
		return "virtual_hosts: [{name: v, domains: ['*'], routes: [{name: r, match: {prefix: /}, route: {cluster: c, timeout: 0s" + extra + "}}]}]\n"
	}
	cases := []struct {
		name, data string
		deadline   time.Duration
		none       bool
	}{
		{"default 5 min", route(""), 5 * time.Minute, false},
		{"route idle", route(", idle_timeout: 30s"), 30 * time.Second, false},
		{"route idle camel", route(", idleTimeout: 30s"), 30 * time.Second, false},
		{"route idle 0", route(", idle_timeout: 0s"), 0, true},
		{"max stream duration", route(", max_stream_duration: {max_stream_duration: 20s}"), 20 * time.Second, false},
		{"hcm stream idle", `
static_resources:
  listeners:
  - filter_chains:
    - filters:
      - typed_config:
          stat_prefix: ingress
          stream_idle_timeout: 45s
          http_filters: [{name: envoy.filters.http.router}]
          route_config:
            ` + route(""), 45 * time.Second, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, layers := parsedLayers(t, "envoy.yaml", c.data)
			l := layers["r"]
			if l == nil {
				t.Fatalf("no route r: %v", layers)
			}
			if l.pol.Deadline != c.deadline || (l.checks.noTimeout != "") != c.none {
				t.Errorf("deadline %v noTimeout %q", l.pol.Deadline, l.checks.noTimeout)
			}
		})
	}
}

// TestProtoDuration: google.protobuf.Duration's JSON form is seconds with up to nine
// fractional digits and the suffix "s"; Envoy refuses "250ms" and "1m".
func TestProtoDuration(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"15s", 15 * time.Second, true},
		{"0.250s", 250 * time.Millisecond, true},
		{"0.000000001s", time.Nanosecond, true},
		{"3600s", time.Hour, true},
		{"0s", 0, true},
		{"250ms", 0, false},
		{"1m", 0, false},
		{"1.s", 0, false},
		{"0.0000000001s", 0, false},
		{"-1s", 0, false},
		{"s", 0, false},
	}
	cf := &ConfigFile{Path: "f"}
	for _, c := range cases {
		got, err := protoDuration(cf, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: c.in, Line: 1, Column: 1}, "x")
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: got %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// TestEnvoyMarkerErrors: a file with Envoy's marker keys that holds no route is an error at
// the marker, not a skip.
func TestEnvoyMarkerErrors(t *testing.T) {
	cases := []struct {
		name, path, data, want string
		line                   int
	}{
		{"bootstrap without routes", "envoy.yaml", "admin: {}\nstatic_resources:\n  clusters: [{name: a, connect_timeout: 1s}]\n", "static_resources: no route to read", 2},
		{"route config without routes", "rc.yaml", "name: r\nvirtual_hosts: [{name: v, domains: ['*']}]\n", "virtual_hosts: no route to read", 2},
		{"camel list", "routes.yaml", "- name: r\n  virtualHosts: []\n", "virtualHosts: no route", 2},
		{"clusters dump", "dump.json", `{"configs": [{"@type": "type.googleapis.com/envoy.admin.v3.ClustersConfigDump", "static_clusters": []}]}`, "configs: the config dump holds no route configuration with a route to read (it has ClustersConfigDump)", 1},
		{"bad duration", "envoy.yaml", "virtual_hosts: [{routes: [{route: {cluster: c, timeout: 250ms}}]}]\n", "route.timeout: want a protobuf JSON duration", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			se := parseErr(t, c.path, c.data)
			if !strings.Contains(se.Error(), c.want) || se.Line != c.line {
				t.Errorf("got %v (line %d), want %q at line %d", se, se.Line, c.want, c.line)
			}
		})
	}
}

// TestEnvoyRedirectsOnly: a route configuration of redirects and direct responses is read
// (it calls no upstream): no layer, and no error.
func TestEnvoyRedirectsOnly(t *testing.T) {
	cf, layers := parsedLayers(t, "rc.yaml", "- name: r\n  virtualHosts: [{name: v, routes: [{redirect: {httpsRedirect: true}}, {directResponse: {status: 404}}]}]\n")
	if cf.Format != "envoy" || len(layers) != 0 {
		t.Errorf("format %q, layers %v", cf.Format, layers)
	}
}

// TestEnvoyListNotEnvoy: a YAML list that is no Envoy configuration is still a skip.
func TestEnvoyListNotEnvoy(t *testing.T) {
	cf, reason, err := ParseConfig("list.yaml", []byte("- a\n- b: 1\n"))
	if cf != nil || err != nil || reason == "" {
		t.Errorf("cf=%v err=%v reason=%q", cf != nil, err, reason)
	}
}

func FuzzEnvoyJSON(f *testing.F) {
	fuzzConfig(f, "testdata/configs_a/envoy-dump.json",
		"- virtualHosts: [{routes: [{route: {retryPolicy: {numRetries: 3, perTryTimeout: 1s}}}]}]\n",
		`{"configs": [{"@type": "type.googleapis.com/envoy.admin.v3.RoutesConfigDump", "static_route_configs": [{"route_config": {"virtual_hosts": [{"routes": [{"route": {"timeout": "0s", "idle_timeout": "0.5s"}}]}]}}]}]}`)
}

// TestEnvoyRDSIdleTimeout: in a full config dump the listener's connection manager names its
// route configuration (rds.route_config_name); its stream_idle_timeout applies to the routes
// of the route configuration of that name.
func TestEnvoyRDSIdleTimeout(t *testing.T) {
	dump := `{"configs": [
 {"@type": "type.googleapis.com/envoy.admin.v3.ListenersConfigDump",
  "dynamic_listeners": [{"active_state": {"listener": {"filter_chains": [{"filters": [{"typed_config": {
    "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
    "stat_prefix": "in", "http_filters": [{"name": "router"}], "stream_idle_timeout": "90s",
    "rds": {"route_config_name": "http.80"}}}]}]}}}]},
 {"@type": "type.googleapis.com/envoy.admin.v3.RoutesConfigDump",
  "dynamic_route_configs": [{"route_config": {"name": "http.80", "virtual_hosts": [{"name": "v", "domains": ["*"],
    "routes": [{"name": "r", "match": {"prefix": "/"}, "route": {"cluster": "c", "timeout": "0s"}}]}]}}]}]}`
	_, layers := parsedLayers(t, "dump.json", dump)
	if l := layers["r"]; l == nil || l.pol.Deadline != 90*time.Second {
		t.Fatalf("layers %v", layers)
	}
}

// TestEnvoyDiscoveryResponse: an xDS DiscoveryResponse (resources[] of Any, @type
// envoy.config.route.v3.RouteConfiguration), and one whose resources are wrapped in
// Resource{resource: Any} (delta xDS), are read like a route configuration.
func TestEnvoyDiscoveryResponse(t *testing.T) {
	for name, data := range map[string]string{
		"sotw":  `{"version_info": "1", "resources": [{"@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "name": "rc", "virtual_hosts": [{"name": "v", "domains": ["*"], "routes": [{"name": "r", "match": {"prefix": "/"}, "route": {"cluster": "c", "timeout": "3s", "retry_policy": {"retry_on": "connect-failure", "num_retries": 2}}}]}]}]}`,
		"delta": `{"resources": [{"name": "rc", "resource": {"@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "virtualHosts": [{"name": "v", "domains": ["*"], "routes": [{"name": "r", "match": {"prefix": "/"}, "route": {"cluster": "c", "timeout": "3s", "retryPolicy": {"retryOn": "connect-failure", "numRetries": 2}}}]}]}}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, layers := parsedLayers(t, "rds.json", data)
			l := layers["r"]
			if l == nil || l.retry[FailConnect] != 3 || l.pol.Deadline != 3*time.Second {
				t.Fatalf("layers %v", layers)
			}
		})
	}
}
