package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/scenarios"
)

// TestBundledScenariosLoad opens every bundled scenario by name: each must load, have a
// description and compare at least two policies.
func TestBundledScenariosLoad(t *testing.T) {
	names := scenarios.Names()
	if len(names) != 8 {
		t.Errorf("bundled scenarios = %v, want 8", names)
	}
	for _, name := range names {
		sc, err := Open(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if sc.Name != name {
			t.Errorf("%s: name %q differs from the file name", name, sc.Name)
		}
		if sc.Description == "" {
			t.Errorf("%s: no description", name)
		}
		if len(sc.Policies) < 2 {
			t.Errorf("%s: %d policies, want a comparison", name, len(sc.Policies))
		}
	}
}

// TestBundledPurposes: the serve-only list (scenarios.ServeNames) is what the files say —
// each serve-only scenario loads for serve with a description and is refused for replay,
// saying it is serve's; every other loads for replay — and Names and ServeNames together are
// every bundled file.
func TestBundledPurposes(t *testing.T) {
	all, replayable, serve := scenarios.AllNames(), scenarios.Names(), scenarios.ServeNames()
	if len(replayable)+len(serve) != len(all) {
		t.Errorf("all %v, replay %v, serve %v", all, replayable, serve)
	}
	for _, name := range serve {
		sc, err := OpenFor(name, ForServe)
		if err != nil {
			t.Errorf("%s for serve: %v", name, err)
			continue
		}
		if sc.Description == "" || sc.Name != name {
			t.Errorf("%s: name %q, description %q", name, sc.Name, sc.Description)
		}
		if _, err := Open(name); err == nil || !strings.Contains(err.Error(), "serve") {
			t.Errorf("%s for replay: %v, want a refusal that names serve", name, err)
		}
	}
	for _, name := range replayable {
		if _, err := Open(name); err != nil {
			t.Errorf("%s for replay: %v", name, err)
		}
	}
}

// TestLLMStreamScenario: the bundled LLM scenario tells its story in its target: a stream
// whose first token is slow under load, past the 60 s proxy idle timeout of litellm#34819.
func TestLLMStreamScenario(t *testing.T) {
	sc, err := OpenFor("llm-stream", ForServe)
	if err != nil {
		t.Fatal(err)
	}
	st := sc.Target.Stream
	if st == nil || st.Format != StreamSSE {
		t.Fatalf("stream %+v, want SSE", st)
	}
	slow := sc.PhaseAt(3 * time.Minute)
	if slow < 0 || sc.Target.Phases[slow].Name != "slow-first-token" {
		t.Fatalf("no slow-first-token phase at 3m (phase %d)", slow)
	}
	if p50 := sc.StreamFirstEvent(slow).Quantile(0.5); p50 <= time.Minute {
		t.Errorf("first token p50 under load %s: not past a 60 s idle timeout", p50)
	}
	if p999 := sc.StreamFirstEvent(-1).Quantile(0.999); p999 >= time.Minute {
		t.Errorf("first token p99.9 outside the load %s: a 60 s idle timeout would already cut streams", p999)
	}
}

func TestDefaultScenarioIsBundled(t *testing.T) {
	if _, err := scenarios.Read(DefaultName); err != nil {
		t.Fatal(err)
	}
}

func TestBundledInfo(t *testing.T) {
	infos, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	defaults := 0
	for _, in := range infos {
		if in.Default {
			defaults++
			if in.Name != DefaultName {
				t.Errorf("default is %s, want %s", in.Name, DefaultName)
			}
		}
		if in.Description == "" || len(in.Policies) == 0 {
			t.Errorf("%s: %+v", in.Name, in)
		}
	}
	if defaults != 1 {
		t.Errorf("%d defaults, want 1", defaults)
	}
}

// TestPaymentPolicyNames: the issue names these policies exactly.
func TestPaymentPolicyNames(t *testing.T) {
	sc, err := Open("payment-double-charge")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range sc.Policies {
		names = append(names, p.Name)
	}
	want := map[string]bool{"with-key": true, "without-key": true, "no-retry": true}
	for _, n := range names {
		delete(want, n)
	}
	if len(want) > 0 {
		t.Errorf("policies %v lack %v", names, want)
	}
}
