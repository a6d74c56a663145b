package check

import (
	"testing"

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
