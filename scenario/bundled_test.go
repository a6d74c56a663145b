package scenario

import (
	"testing"

	"github.com/patience-dev/patience/scenarios"
)

// TestBundledScenariosLoad opens every bundled scenario by name: each must load, have a
// description and compare at least two policies.
func TestBundledScenariosLoad(t *testing.T) {
	names := scenarios.Names()
	if len(names) != 7 {
		t.Errorf("bundled scenarios = %v, want 7", names)
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
