package replay

import (
	"strings"
	"testing"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/verdict"
)

// TestFailedClauseCarriesItsReason: a failed clause's mark never contradicts its share without
// the reason in the same clause (issue 26: layered-retries printed "~" beside "99.2% failed"
// and the reason in a clause of its own, which the HTML report marked "✓ 99.2% failed").
func TestFailedClauseCarriesItsReason(t *testing.T) {
	sc := &scenario.Scenario{}
	tests := []struct {
		name               string
		failed, whileDown  int
		wantLevel          Level
		wantReasonInClause bool
	}{
		{"all while down", 992, 992, verdict.Degraded, true},
		{"some while down", 300, 250, verdict.Degraded, true},
		{"own failures bad", 300, 10, verdict.Bad, true},
		{"own failures only", 300, 0, verdict.Bad, false},
		{"a few", 3, 0, verdict.Good, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := PolicyResult{Requests: 1000, Failed: tt.failed, FailedWhileDown: tt.whileDown,
				FailureReasons: map[string]int{"http_503": tt.failed}}
			v := VerdictOf(sc, p)
			c := v.Reason(CodeFailed)
			if c.Level != tt.wantLevel {
				t.Errorf("failed clause %q at %s, want %s", c.Text, c.Level, tt.wantLevel)
			}
			if got := strings.Contains(c.Text, "while the dependency failed every call"); got != tt.wantReasonInClause {
				t.Errorf("failed clause %q: reason in the clause %v, want %v", c.Text, got, tt.wantReasonInClause)
			}
			if v.Has(CodeFailedWhileDown) {
				t.Errorf("verdict %q: the reason must not be a clause of its own", v.Text())
			}
			if c.Level == verdict.Good && share(tt.failed, 1000) >= FailDegraded {
				t.Errorf("✓ beside %q", c.Text)
			}
		})
	}
}
