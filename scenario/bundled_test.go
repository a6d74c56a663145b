package scenario

import (
	"testing"

	"github.com/patience-dev/patience/scenarios"
)

// TestBundledScenariosLoad opens every bundled scenario by name: each must load, have a
// description and compare at least two policies.
func TestBundledScenariosLoad(t *testing.T) {
	names := scenarios.Names()
	if len(names) != 6 {
		t.Errorf("bundled scenarios = %v, want 6", names)
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
