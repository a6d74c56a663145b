package check

import (
	"fmt"
	"testing"

	"github.com/patience-dev/patience/scenario"
)

// TestPresetsPassAtTheirBudgets: every preset offered as advice passes check's own rules at
// every interactive budget it is offered for, GET and POST with a key, and with the caller
// left out; so does what --init writes at those budgets (issue 26: preset:recommended, 3
// attempts of 2s, raised PT004 at a 3s budget, and at --init's own 5s default).
func TestPresetsPassAtTheirBudgets(t *testing.T) {
	offered := 0
	for _, name := range scenario.PresetNames() {
		for _, b := range scenario.PresetBudgets(name) {
			offered++
			for _, req := range []string{"{method: GET}", "{method: POST, idempotency_key: true}"} {
				t.Run(fmt.Sprintf("%s %s %s", name, b, req), func(t *testing.T) {
					text := fmt.Sprintf("dependencies:\n  - name: api\n    caller: {kind: interactive, budget: %s}\n    request: %s\n    policy: preset:%s\n", b, req, name)
					if ids := ruleIDs(runYAML(t, text, Options{FailOn: SeverityWarning})); len(ids) != 0 {
						t.Errorf("preset:%s at a %s budget: findings %v\n%s", name, b, ids, text)
					}
				})
			}
			t.Run(fmt.Sprintf("--init --budget %s", b), func(t *testing.T) {
				data, err := Starter(StarterOptions{Budget: b})
				if err != nil {
					t.Fatal(err)
				}
				if ids := ruleIDs(runYAML(t, string(data), Options{FailOn: SeverityWarning})); len(ids) != 0 {
					t.Errorf("--init --budget %s: findings %v\n%s", b, ids, data)
				}
			})
		}
		if len(scenario.PresetBudgets(name)) > 0 {
			text := "dependencies:\n  - name: api\n    request: {method: GET}\n    policy: preset:" + name + "\n"
			if ids := ruleIDs(runYAML(t, text, Options{FailOn: SeverityWarning})); len(ids) != 0 {
				t.Errorf("preset:%s with no caller: findings %v", name, ids)
			}
		}
	}
	if offered == 0 {
		t.Fatal("no preset is offered at any budget: preset:recommended should be")
	}
	if got := scenario.PresetBudgets("recommended"); len(got) == 0 || got[0] > DefaultInitBudget {
		t.Errorf("preset:recommended offered at %v: --init's default %s must be among them or above the least", got, DefaultInitBudget)
	}
}
