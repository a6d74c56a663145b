package report

import (
	"strings"
	"testing"

	"github.com/patience-dev/patience/verdict"
)

// TestStylesheetStylesEveryVerdictLevel: every verdict level the HTML page renders as a
// lvl-* class has a rule for its border and its mark; not_graded (a part the user stopped)
// is muted, neither the good colour nor the warn or bad one (it had no rule at all).
func TestStylesheetStylesEveryVerdictLevel(t *testing.T) {
	css := string(htmlCSS())
	for _, l := range []verdict.Level{verdict.Good, verdict.Provisional, verdict.Degraded, verdict.Bad, verdict.NotGraded} {
		c := "lvl-" + string(l)
		if !strings.Contains(css, ".verdict."+c) || !strings.Contains(css, "td."+c) || !strings.Contains(css, "."+c+" > .mark") {
			t.Errorf("no rule for %s", c)
		}
	}
	for _, want := range []string{
		".verdict.lvl-not_graded { border-left-color: var(--muted); }",
		"td.lvl-not_graded { color: var(--muted); }",
	} {
		if !strings.Contains(css, want) {
			t.Errorf("stylesheet lacks %q", want)
		}
	}
}
