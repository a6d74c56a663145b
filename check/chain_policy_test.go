package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
)

// TestChainPolicyFromLayers: a chain's layers become the simulator's layers, caller first;
// a config layer retries only the classes the chain arithmetic says, and the dependency's own
// policy is kept as written.
func TestChainPolicyFromLayers(t *testing.T) {
	own := &policy.Policy{Name: "own", Timeout: 1e9, Retry: policy.Retry{MaxAttempts: 3, On: []string{"5xx"}}}
	d := &Dependency{Name: "partner", Policy: own}
	ingress := newLayer("ingress-nginx", "shop", policy.Pos{File: "ingress.yaml", Line: 3})
	ingress.retryClasses(3, []FailureClass{FailConnect, FailTimeout})
	sidecar := newLayer("istio", "partner-vs", policy.Pos{File: "vs.yaml", Line: 9})
	sidecar.retryClasses(3, []FailureClass{FailConnect})
	sidecar.retry[FailReset] = 2
	self := selfLayer(d, policy.Request{Method: "GET"})
	ch := &Chain{Dependency: "partner", Layers: []ChainLayer{*ingress, *self, *sidecar}, dep: d}
	p, notes, err := ch.Policy("shop#partner")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "shop#partner" || len(p.Layers) != 2 {
		t.Fatalf("policy %q with %d layers, want shop#partner with 2 (ingress, own)", p.Name, len(p.Layers))
	}
	if got := p.Layers[0].Policy.Retry; got.MaxAttempts != 3 || len(got.On) != 2 || got.On[0] != "connect" || got.On[1] != "timeout" {
		t.Errorf("ingress layer retry %+v, want 3 attempts on connect, timeout", got)
	}
	if got := p.Layers[1].Policy; got.Retry.MaxAttempts != 3 || got.Timeout != own.Timeout || got == own {
		t.Errorf("own layer %+v: want the dependency's policy as written, copied", got)
	}
	if p.Retry.MaxAttempts != 3 || len(p.Retry.On) != 2 {
		t.Errorf("bottom (sidecar) retry %+v, want 3 attempts on connect and reset", p.Retry)
	}
	if len(notes) != 1 {
		t.Errorf("notes %q: want one, the sidecar retrying connect 2 times and reset 1", notes)
	}
	if _, own := p.Source["layers"]; !own {
		t.Error("the chain's layers must be the policy's own (a scenario's layers: must not replace them)")
	}
}

// chainFiles writes a check file's via: chain (an ingress, the app, an Istio sidecar) into
// dir, the check file itself at check, and returns its text.
func chainFiles(t *testing.T, dir, check string) string {
	t.Helper()
	files := map[string]string{
		"k8s/ingress.yaml":    "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: shop}\nspec:\n  ingressClassName: nginx\n  rules:\n    - host: shop.example.com\n      http:\n        paths:\n          - {path: /, pathType: Prefix, backend: {service: {name: shop, port: {number: 80}}}}\n",
		"k8s/partner-vs.yaml": "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: partner}\nspec:\n  hosts: [partner.example.com]\n  http:\n    - route: [{destination: {host: partner.example.com}}]\n",
	}
	text := "dependencies:\n  - name: partner\n    via:\n      - {file: k8s/ingress.yaml, name: shop}\n      - {self: true}\n      - {file: k8s/partner-vs.yaml, host: partner.example.com}\n    policy: {timeout: 30s, retry: {max_attempts: 3, on: [connect, timeout, 5xx], backoff: none}}\n"
	files[check] = text
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return text
}

// TestChainPolicyStdin: --chain -#DEPENDENCY (issue 26 item 3) reads the check file from
// standard input through the loader `check -` uses, and gives the layered policy the same
// file gives by path, named stdin#DEPENDENCY; its relative via: paths are resolved against
// the working directory, and one missing there says so; its errors are named (stdin).
func TestChainPolicyStdin(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	text := chainFiles(t, dir, "patience.yaml")
	wd, err := os.Getwd() // dir, its symlinks resolved where the system has them
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ChainPolicy("patience.yaml#partner")
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := ChainPolicyStdin("-#partner", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "stdin#partner" || want.Name != "patience.yaml#partner" {
		t.Errorf("names %q and %q, want stdin#partner and patience.yaml#partner", got.Name, want.Name)
	}
	if len(got.Layers) != len(want.Layers) || len(got.Layers) != 2 || got.Retry.MaxAttempts != want.Retry.MaxAttempts {
		t.Fatalf("piped: %d layers, bottom %d attempts; by path: %d layers, %d attempts", len(got.Layers), got.Retry.MaxAttempts, len(want.Layers), want.Retry.MaxAttempts)
	}
	for i := range got.Layers {
		g, w := got.Layers[i], want.Layers[i]
		if g.Name != w.Name || g.Policy.Retry.MaxAttempts != w.Policy.Retry.MaxAttempts || strings.Join(g.Policy.Retry.On, ",") != strings.Join(w.Policy.Retry.On, ",") {
			t.Errorf("layer %d: piped %s %+v, by path %s %+v", i, g.Name, g.Policy.Retry, w.Name, w.Policy.Retry)
		}
	}

	for _, tc := range []struct{ name, spec, stdin, err string }{
		{"unknown dependency", "-#nope", text, `(stdin): no dependency "nope" (the file has: partner)`},
		{"bad check file", "-#partner", "dependencies:\n  - name: partner\n    policy: {timeout: nope}\n", "(stdin):3:23: dependencies[0].policy.timeout"},
		{"a config, not a check file", "-#partner", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: p}\nspec:\n  hosts: [p]\n  http:\n    - route: [{destination: {host: p}}]\n",
			`(stdin): a kubernetes config (VirtualService/p), not a check file: want a check file whose dependency "partner" names a via: chain`},
		{"via: relative to the working directory", "-#partner", strings.ReplaceAll(text, "k8s/ingress.yaml", "ingress.yaml"),
			"(stdin):4:9: via: ingress.yaml: cannot read: no such file or directory (a check file on standard input has no directory: its via: paths are relative to the working directory, " + wd + ")"},
		{"too large", "-#partner", strings.Repeat("#", maxFileSize+1), "(stdin): cannot read: larger than 4 MiB"},
		{"no dependency named", "-", text, "want FILE#DEPENDENCY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ChainPolicyStdin(tc.spec, strings.NewReader(tc.stdin))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want %q", err, tc.err)
			}
		})
	}

	// A check file by path keeps its via: relative to its own directory, and without a
	// stdin "-" is a file name like any other.
	sub := filepath.Join(dir, "shop")
	chainFiles(t, sub, "patience.yaml")
	if _, _, err := ChainPolicy("shop/patience.yaml#partner"); err != nil {
		t.Errorf("by path, via: beside the file: %v", err)
	}
	if _, _, err := ChainPolicyStdin("-#partner", nil); err == nil || !strings.Contains(err.Error(), "-: cannot read") {
		t.Errorf("no stdin: %v, want - read as a file name", err)
	}
}

// TestNginxReadTimeoutMapping: ingress-nginx's proxy-read-timeout is nginx's
// proxy_read_timeout, "between two successive read operations, not for the transmission of
// the whole response" (docs/formats.md#ingress-nginx): a read timeout, not the per-try total
// it was read as before issue 27. The chain arithmetic and the simulator, whose responses
// arrive whole, still end a hung try at it (connect + read per try), so what they count is
// unchanged; the replay says it takes the read timeout as the try's bound.
func TestNginxReadTimeoutMapping(t *testing.T) {
	in, err := LoadPaths([]string{filepath.Join("testdata", "configs", "nginx", "ingress.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	var l *ChainLayer
	for _, cf := range in.Configs.Files {
		for _, d := range cf.docs {
			cands, err := nginxLayers(d, in.Configs)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cands {
				l = c.layer
			}
		}
	}
	if l == nil {
		t.Fatal("no ingress-nginx layer read")
	}
	if l.pol.ReadTimeout != 20*time.Second || l.pol.Timeout != 0 || l.pol.ConnectTimeout != 5*time.Second {
		t.Errorf("read %v total %v connect %v: want proxy-read-timeout 20s as the read timeout, no per-try total, connect 5s", l.pol.ReadTimeout, l.pol.Timeout, l.pol.ConnectTimeout)
	}
	if l.tryTimeout() != 20*time.Second || l.checks.tryTime != 25*time.Second || l.checks.tryText != "(5 s connect + 20 s read) with no proxy-next-upstream-timeout" {
		t.Errorf("try bound %v, worst try %v %q: want 20 s, 25 s (5 s connect + 20 s read)", l.tryTimeout(), l.checks.tryTime, l.checks.tryText)
	}
	// A hang below: the layer sees a timeout after 20 s and retries it.
	out, _ := l.pass(flow{class: FailTimeout, dur: forever, capped: 1, uncapped: 1})
	if out.class == "" || out.dur == forever {
		t.Errorf("a hang through the layer: %+v, want it ended by the read timeout", out)
	}
	p, note := l.simPolicy(nil)
	if p.Timeout != 20*time.Second || p.ReadTimeout != 20*time.Second || !strings.Contains(note, "a read timeout (20 s between two reads) and no per-try total") {
		t.Errorf("simulated layer timeout %v read %v, note %q: want the read timeout as the try's bound, said so", p.Timeout, p.ReadTimeout, note)
	}
}
