package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// albIngress is an Ingress the AWS Load Balancer Controller serves (class alb), with extra
// annotation lines (each "    key: value\n") under metadata.annotations.
func albIngress(annotations string) string {
	return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: llm\n  annotations:\n    alb.ingress.kubernetes.io/scheme: internet-facing\n" + annotations +
		"spec:\n  ingressClassName: alb\n  rules:\n    - host: llm.example.com\n      http:\n        paths:\n          - {path: /, pathType: Prefix, backend: {service: {name: llm, port: {number: 80}}}}\n"
}

// TestPT017ALBIdleTimeout is issue 29 item 4 for an ALB: the idle timeout left to the ALB's
// 60 s default is below a first event whose p99.9 is 90 s, at the Ingress, naming whose
// default it is; 120 s written clears it; 75 s written fires at the annotation's line; an
// idle timeout below the gaps' per-stream cut-off fires on the gaps.
func TestPT017ALBIdleTimeout(t *testing.T) {
	run := func(ann string) []string {
		t.Helper()
		found, _ := runStreamChain(t, map[string]string{"patience.yaml": streamCheck("ing.yaml"), "ing.yaml": albIngress(ann)}, streamProfile(t))
		return found
	}
	found := run("")
	if len(found) != 1 {
		t.Fatalf("want one PT017 at the Ingress, got %q", found)
	}
	for _, want := range []string{
		"ing.yaml:2 ALB llm: idle_timeout.timeout_seconds 1 min (ALB default: this Ingress sets no alb.ingress.kubernetes.io/load-balancer-attributes, and no IngressClassParams read sets loadBalancerAttributes) is below the stream's first event p99.9 = 1 min 30 s over 10,000 samples",
		"fix: raise idle_timeout.timeout_seconds on ALB llm to 1 min 48 s or more",
	} {
		if !strings.Contains(found[0], want) {
			t.Errorf("finding %q lacks %q", found[0], want)
		}
	}
	if strings.Contains(found[0], "gap") {
		t.Errorf("60 s is far above every gap, yet the gaps are named: %q", found[0])
	}
	if found := run("    alb.ingress.kubernetes.io/load-balancer-attributes: routing.http2.enabled=true, idle_timeout.timeout_seconds=120\n"); len(found) != 0 {
		t.Errorf("idle timeout 120 s above the first event's 90 s still fires: %q", found)
	}
	found = run("    alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=75\n")
	if len(found) != 1 || !strings.HasPrefix(found[0], "ing.yaml:7 ALB llm: idle_timeout.timeout_seconds 1 min 15 s is below the stream's first event") {
		t.Errorf("idle timeout 75 s written: want PT017 at the annotation's line 7, got %q", found)
	}
	found = run("    alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=3\n")
	if len(found) != 1 || !strings.Contains(found[0], "; and below the gap between events p99.997 = 4") {
		t.Errorf("idle timeout 3 s: want PT017 naming the first event and the gaps, got %q", found)
	}
}

// TestALBLayer: the layer an ALB Ingress is read as — one try, a 504 after the idle timeout,
// its idle timeout in timeouts.idle_ms and read_ms, matched by the Ingress's backends — and
// an IngressGroup whose other Ingress sets the idle timeout for both.
func TestALBLayer(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ing := write("ing.yaml", albIngress("    alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=300\n"))
	res := runPaths(t, ing)
	if len(res.Chains) != 1 || len(res.Chains[0].Layers) != 1 {
		t.Fatalf("chains %+v", res.Chains)
	}
	l := res.Chains[0].Layers[0]
	if l.Kind != "alb" || l.Name != "llm" || l.Line != 2 {
		t.Errorf("layer %s %s at line %d, want alb llm at line 2 (kind:)", l.Kind, l.Name, l.Line)
	}
	if l.Timeouts.IdleMs == nil || *l.Timeouts.IdleMs != 300_000 || l.Timeouts.ReadMs == nil || *l.Timeouts.ReadMs != 300_000 {
		t.Errorf("timeouts %+v: want idle_ms and read_ms 300000", l.Timeouts)
	}
	if l.Timeouts.TotalMs != nil || l.Timeouts.DeadlineMs != nil || l.Timeouts.ConnectMs != nil {
		t.Errorf("an ALB has no total, deadline or connect timeout to read: %+v", l.Timeouts)
	}
	for _, c := range FailureClasses {
		if l.Attempts.Of(c) != 1 {
			t.Errorf("an ALB does not retry, yet %s gets %v attempts", c, l.Attempts.Of(c))
		}
	}
	if len(l.Defaults) != 0 {
		t.Errorf("the idle timeout was written, yet defaults %q", l.Defaults)
	}

	// An IngressGroup: the second Ingress sets the attribute for the group's one ALB.
	other := strings.Replace(albIngress("    alb.ingress.kubernetes.io/group.name: shared\n    alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=900\n"), "name: llm\n", "name: other\n", 1)
	grouped := albIngress("    alb.ingress.kubernetes.io/group.name: shared\n") + "---\n" + other
	res = runPaths(t, write("group.yaml", grouped))
	var idle []float64
	for _, ch := range res.Chains {
		for _, l := range ch.Layers {
			if l.Timeouts.IdleMs != nil {
				idle = append(idle, *l.Timeouts.IdleMs)
			}
		}
	}
	if len(idle) != 2 || idle[0] != 900_000 || idle[1] != 900_000 {
		t.Errorf("IngressGroup: idle_ms %v, want 900000 for both Ingresses", idle)
	}

	// The default, stated.
	res = runPaths(t, write("bare.yaml", albIngress("")))
	l = res.Chains[0].Layers[0]
	if *l.Timeouts.IdleMs != 60_000 || len(l.Defaults) != 1 || !strings.Contains(l.Defaults[0], "ALB default: idle_timeout.timeout_seconds 60") {
		t.Errorf("default: idle_ms %v, defaults %q", *l.Timeouts.IdleMs, l.Defaults)
	}
}

// TestALBIngressClass: which Ingresses are read as an ALB, which as ingress-nginx.
func TestALBIngressClass(t *testing.T) {
	cases := []struct {
		name, doc string
		alb       bool
	}{
		{"class alb", albIngress(""), true},
		{"legacy class annotation", "metadata:\n  annotations:\n    kubernetes.io/ingress.class: alb\n", true},
		{"alb annotations, no class", "metadata:\n  annotations:\n    alb.ingress.kubernetes.io/scheme: internal\n", true},
		{"class nginx", "spec:\n  ingressClassName: nginx\n", false},
		{"nginx annotations, no class", "metadata:\n  annotations:\n    nginx.ingress.kubernetes.io/proxy-read-timeout: \"5\"\n    alb.ingress.kubernetes.io/scheme: internal\n", false},
		{"no class, no annotation", "spec: {}\n", false},
	}
	for _, c := range cases {
		n := parseYAML(t, c.doc)
		if got := isALBIngress(n); got != c.alb {
			t.Errorf("%s: isALBIngress = %v, want %v", c.name, got, c.alb)
		}
	}
}

// TestALBAttributeErrors: a malformed load-balancer-attributes is an input error at the
// annotation's line naming the field.
func TestALBAttributeErrors(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"idle_timeout.timeout_seconds=abc", `idle_timeout.timeout_seconds: want whole seconds from 1 to 4000, got "abc"`},
		{"idle_timeout.timeout_seconds=0", `got "0"`},
		{"idle_timeout.timeout_seconds=4001", `got "4001"`},
		{"routing.http2.enabled", `want key=value pairs separated by commas, got "routing.http2.enabled"`},
	} {
		path := filepath.Join(t.TempDir(), "ing.yaml")
		if err := os.WriteFile(path, []byte(albIngress("    alb.ingress.kubernetes.io/load-balancer-attributes: "+c.value+"\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadPaths([]string{path})
		if err == nil {
			t.Errorf("%s: no error", c.value)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "ing.yaml:7") || !strings.Contains(msg, "alb.ingress.kubernetes.io/load-balancer-attributes") || !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q, want ing.yaml:7, the field and %q", c.value, msg, c.want)
		}
	}
}

func FuzzALBIngress(f *testing.F) {
	fuzzConfig(f, "testdata/configs/alb/ingress.yaml", albIngress("    alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=120\n"),
		strings.Replace(albClass, "%s", "90", 1)+"---\n"+albIngress(""))
}

// parseYAML is doc's root mapping.
func parseYAML(t *testing.T, doc string) *yaml.Node {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	return n.Content[0]
}

// albClass is the controller's IngressClass "alb" naming IngressClassParams "alb-params",
// which sets the idle timeout for every Ingress of the class.
const albClass = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: alb
spec:
  controller: ingress.k8s.aws/alb
  parameters:
    apiGroup: elbv2.k8s.aws
    kind: IngressClassParams
    name: alb-params
---
apiVersion: elbv2.k8s.aws/v1beta1
kind: IngressClassParams
metadata:
  name: alb-params
spec:
  loadBalancerAttributes:
    - key: routing.http2.enabled
      value: "true"
    - key: idle_timeout.timeout_seconds
      value: "%s"
`

// TestALBIngressClassParams: the IngressClassParams of the Ingress's class sets the idle
// timeout over the Ingress's own annotation (ingress_class.md: the annotation applies only
// where the class sets none), and PT017 points at its line; a bad value there is an input
// error at it.
func TestALBIngressClassParams(t *testing.T) {
	ing := albIngress("    alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=300\n")
	class := strings.Replace(albClass, "%s", "30", 1)
	found, _ := runStreamChain(t, map[string]string{"patience.yaml": streamCheck("ing.yaml"), "ing.yaml": class + "---\n" + ing}, streamProfile(t))
	if len(found) != 1 || !strings.HasPrefix(found[0], "ing.yaml:21 ALB llm: idle_timeout.timeout_seconds 30 s (set by IngressClassParams alb-params) is below the stream's first event") {
		t.Errorf("IngressClassParams 30 s over the annotation's 300 s: want PT017 at its line 21, got %q", found)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ing.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(albClass, "%s", "0", 1)+"---\n"+ing), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadPaths([]string{path})
	if err == nil || !strings.Contains(err.Error(), "ing.yaml:21") || !strings.Contains(err.Error(), "spec.loadBalancerAttributes") || !strings.Contains(err.Error(), `got "0"`) {
		t.Errorf("IngressClassParams idle timeout 0: error %v, want one at line 21 naming spec.loadBalancerAttributes", err)
	}
	// Without a value there, the annotation holds.
	noIdle := strings.Replace(albClass, "    - key: idle_timeout.timeout_seconds\n      value: \"%s\"\n", "", 1)
	res := runPaths(t, writeFile(t, dir, "ing2.yaml", noIdle+"---\n"+ing))
	for _, ch := range res.Chains {
		for _, l := range ch.Layers {
			if l.Kind == "alb" && (l.Timeouts.IdleMs == nil || *l.Timeouts.IdleMs != 300_000) {
				t.Errorf("class params without an idle timeout: idle_ms %v, want the annotation's 300000", l.Timeouts.IdleMs)
			}
		}
	}
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
