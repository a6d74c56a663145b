package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestAssumeOrder: assume lists its assumptions in the order of the assumptions table, each
// with its value and rules; the non_idempotent default is applied to the policy.
func TestAssumeOrder(t *testing.T) {
	f, err := Load("patience.yaml", []byte(`dependencies:
  - name: charge
    request: {method: POST}
    policy: {timeout: 1s, retry: {max_attempts: 3}}
  - name: charge-with-key
    request: {method: POST, idempotency_key: true}
    policy: {timeout: 1s, retry: {max_attempts: 3, backoff: exponential, cap: 1s}}
  - name: once
    policy: {timeout: 1s}
  - name: job
    caller: {kind: job, timeout: 20s, retry_after: 90s, tries: 3, backoff: [10s, 30s]}
    policy: {timeout: 1s}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"charge": {
			"request.idempotency_key=false [PT005]",
			"policy.retry.non_idempotent=always [PT005 PT009]",
			"policy.retry.on=connect, timeout, reset, 408, 409, 429, 5xx [PT005 PT007 PT008 PT014]",
			"policy.retry.backoff=exponential, base 100ms, multiplier 2, cap 10s [PT004 PT013]",
			"policy.retry.jitter=full [PT006]",
			"policy.retry.retry_after=honor [PT008 PT014]",
			"policy.retry.retry_after_max=1m [PT008]",
		},
		"charge-with-key": {
			"policy.retry.non_idempotent=always [PT009]",
			"policy.retry.on=connect, timeout, reset, 408, 409, 429, 5xx [PT005 PT007 PT008 PT014]",
			"policy.retry.base=100ms [PT004 PT013]",
			"policy.retry.jitter=full [PT006]",
			"policy.retry.retry_after=honor [PT008 PT014]",
			"policy.retry.retry_after_max=1m [PT008]",
		},
		"once": {"policy.retry.max_attempts=1 [PT004 PT005 PT006 PT007 PT008 PT009 PT013]"},
		"job": {
			"policy.retry.max_attempts=1 [PT004 PT005 PT006 PT007 PT008 PT009 PT013]",
			"caller.jitter=none [PT006]",
		},
	}
	for _, d := range f.Dependencies {
		var got []string
		for _, a := range d.Assumed {
			if a.Why == "" || strings.Contains(a.Why, "%s") || strings.Contains(a.Why, "%!") {
				t.Errorf("%s: %s why %q", d.Name, a.Field, a.Why)
			}
			got = append(got, fmt.Sprintf("%s=%s %v", a.Field, a.Value, a.Rules))
		}
		if !slices.Equal(got, want[d.Name]) {
			t.Errorf("%s assumes:\n%s\nwant:\n%s", d.Name, strings.Join(got, "\n"), strings.Join(want[d.Name], "\n"))
		}
	}
	if r := f.Dependencies[0].Policy.Retry; r.NonIdempotent != "always" {
		t.Errorf("charge: non_idempotent %q, want the assumed always applied", r.NonIdempotent)
	}
}

func TestConfigFormatsDetect(t *testing.T) {
	for _, tc := range []struct {
		path, data string
		want       int // index in configFormats; -1 = none (read as YAML)
	}{
		{"application.properties", "resilience4j.retry.instances.a.maxAttempts=3\n", 1},
		{"APP.PROPERTIES", "", 1},
		{"config", "[profile a]\nretry_mode = standard\n", 2},
		// nginx: by name whatever it holds, else by content in a .conf or a file with no
		// extension; a .conf nginx's grammar cannot read only with nginx's own directives.
		{"nginx.conf", "", 0},
		{"etc/NGINX.CONF", "apiVersion: v1\n", 0},
		{"site.conf", "server { location / { proxy_pass http://a; } }\n", 0},
		{"sites-enabled/default", "server {\n  listen 80;\n  server_name a.example;\n}\n", 0},
		{"broken.conf", "server {\n  location / {\n    proxy_pass http://a;\n", 0},
		{"logstash.conf", "input {\n  http {\n    port => 8080\n  }\n}\n", -1},
		{"dhcpd.conf", "subnet 10.0.0.0 netmask 255.255.255.0 { range 10.0.0.10 10.0.0.20; }\n", -1},
		{"README", "Put this in your server block:\n    proxy_pass http://localhost:3000;\n", -1},
		{"values.yaml", "nginx: |\n  location / { proxy_pass http://a; }\n", -1},
		{"application.yml", "resilience4j:\n  retry: {}\n", -1},
		{"vs.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\n", -1},
	} {
		got := slices.IndexFunc(configFormats, func(f configFormat) bool { return f.detect(tc.path, []byte(tc.data)) })
		if got != tc.want {
			t.Errorf("%s: format %d, want %d", tc.path, got, tc.want)
		}
	}
}

func TestNothingReadReason(t *testing.T) {
	mapping := func(kind string) *yaml.Node {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte("kind: "+kind+"\n"), &n); err != nil {
			t.Fatal(err)
		}
		return n.Content[0]
	}
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, tc := range []struct {
		roots, nodes []*yaml.Node
		want         string
	}{
		{nil, nil, "no YAML mapping"},
		{nil, []*yaml.Node{list}, "a YAML list of nothing check reads"},
		{[]*yaml.Node{mapping("Deployment")}, []*yaml.Node{mapping("Deployment")}, "no retry or timeout settings check reads (Deployment)"},
	} {
		if got := nothingReadReason(tc.roots, tc.nodes); got != tc.want {
			t.Errorf("nothingReadReason = %q, want %q", got, tc.want)
		}
	}
}

func TestNginxNextUpstream(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  []FailureClass
		ni    bool
	}{
		{"error timeout", []FailureClass{FailConnect, FailReset, FailTimeout}, false},
		{"http_500 http_503 http_429", []FailureClass{Fail5xx, Fail503, Fail429}, false},
		{"http_502 http_504", []FailureClass{Fail5xx}, false},
		{"http_403 http_404", []FailureClass{Fail4xx}, false},
		{"error off", nil, false},
		// "off" anywhere is off: ngx_http_proxy_merge_loc_conf keeps only the off bit.
		{"off http_503", nil, false},
		{"error timeout non_idempotent", []FailureClass{FailConnect, FailReset, FailTimeout}, true},
		{"non_idempotent off", nil, false},
		{"invalid_header updating", nil, false},
		{"", nil, false},
	} {
		got, ni := nginxNextUpstream(tc.value)
		if !slices.Equal(got, tc.want) || ni != tc.ni {
			t.Errorf("nginxNextUpstream(%q) = %v, %v, want %v, %v", tc.value, got, ni, tc.want, tc.ni)
		}
	}
}

func TestIsGateway(t *testing.T) {
	gw := func(name, ns string) *configDoc { return &configDoc{kind: "Gateway", name: name, namespace: ns} }
	for _, tc := range []struct {
		doc      *configDoc
		name, ns string
		want     bool
	}{
		{gw("shop", "prod"), "shop", "prod", true},
		{gw("shop", ""), "shop", "prod", true},
		{gw("shop", "prod"), "shop", "", true},
		{gw("shop", "prod"), "shop", "staging", false},
		{gw("shop", "prod"), "other", "prod", false},
		{&configDoc{kind: "GatewayClass", name: "shop"}, "shop", "", false},
	} {
		if got := isGateway(tc.doc, tc.name, tc.ns); got != tc.want {
			t.Errorf("isGateway(%s %s/%s, %s, %s) = %v, want %v", tc.doc.kind, tc.doc.namespace, tc.doc.name, tc.name, tc.ns, got, tc.want)
		}
	}
}
