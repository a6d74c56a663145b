package check

import (
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
