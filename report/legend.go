package report

import (
	"strings"

	"github.com/patience-dev/patience/verdict"
)

// A legend is the footer line of a text report that says what its marks mean (issue 26:
// no report said what ✓ ~ ✗ mean, and the README once showed "!" where the tool prints "~").
// The meanings are the levels' own (verdict.Level), worded for the scale a report grades on.
var (
	// probeLegend: a measurement's recommendation (probe, advise).
	probeLegend = []string{
		"✓ good",
		"~ provisional: too few samples yet, may move",
		"✗ bad: act on it",
	}
	// policyLegend: what a policy does to the caller's service (replay, storm).
	policyLegend = []string{
		"✓ good",
		"~ degraded: stays up, some requests fail",
		"✗ bad: act on it",
	}
	// demoLegend: the demo shows both scales.
	demoLegend = []string{
		"✓ good",
		"~ provisional (few samples) or degraded (some fail)",
		"✗ bad: act on it",
	}
	// checkLegend: check's own verdict; its findings are named error or warning.
	checkLegend = []string{
		"✓ passed",
		"~ passed with a caveat",
		"✗ failed: a finding at --fail-on",
	}
	// notGradedLegend is added when a stopped run left a part ungraded.
	notGradedLegend = "– not graded: stopped before it finished"
)

// writeLegend writes a blank line and the legend ("marks: ✓ good · …": no line of it starts
// with a mark, as a verdict's does), muted and wrapped to width between its
// entries; with notGraded, the mark of a part a stopped run left ungraded is explained too.
func writeLegend(b *strings.Builder, st Styles, width int, entries []string, notGraded bool) {
	if notGraded {
		entries = append(entries[:len(entries):len(entries)], notGradedLegend)
	}
	entries = append([]string{"marks: " + entries[0]}, entries[1:]...)
	b.WriteString("\n")
	for _, l := range wrapSeparated(entries, " · ", width) {
		b.WriteString(st.Muted.Render(l) + "\n")
	}
}

// anyNotGraded says whether one of levels is verdict.NotGraded.
func anyNotGraded(levels ...verdict.Level) bool {
	for _, l := range levels {
		if l == verdict.NotGraded {
			return true
		}
	}
	return false
}
