package replay

import (
	"strings"
	"testing"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/verdict"
)

// TestLessonOfNotesADominatingRow: a lesson whose recommended row is beaten by a row of the
// same level on failures, p99 and worker saturation says so (issue 26: rate-limited recommended
// capped at p99 11.1 s and 65% saturation beside ignore's 986 ms and 20%, both judged ~); a
// row better on one figure and worse on another is a trade-off, not a contradiction. 112
// failed of 3,575 against 95 is 0.48 points more, below FailDegraded: no worse.
func TestLessonOfNotesADominatingRow(t *testing.T) {
	row := func(name string, level Level, failed int, p99, sat float64) PolicyResult {
		return PolicyResult{Name: name, Verdict: Verdict{Level: level}, Requests: 3575, Failed: failed,
			Latency: Latency{P99Ms: p99}, WorkerSaturation: sat}
	}
	sc := &scenario.Scenario{Lesson: &scenario.Lesson{Recommends: "capped", Why: "cap it"}}
	tests := []struct {
		name string
		ps   []PolicyResult
		want string // a substring of the note; "" for no note
	}{
		{"issue 26's rate-limited", []PolicyResult{
			row("ignore", verdict.Degraded, 112, 986, 0.20), row("capped", verdict.Degraded, 95, 11100, 0.65)},
			"ignore is judged as well as the recommended policy in this run, with a lower p99 (986 ms vs 11.1 s), less worker saturation (20.0% vs 65.0%)"},
		{"a trade-off is no contradiction", []PolicyResult{
			row("ignore", verdict.Degraded, 115, 986, 0.20), row("capped", verdict.Degraded, 95, 11100, 0.65)}, ""},
		{"a better level", []PolicyResult{
			row("ignore", verdict.Good, 0, 986, 0.20), row("capped", verdict.Degraded, 95, 100, 0.10)},
			"ignore is judged better than the recommended policy"},
		{"a worse row", []PolicyResult{
			row("ignore", verdict.Bad, 458, 1100, 0.30), row("capped", verdict.Good, 0, 5150, 0.875)}, ""},
		{"identical rows", []PolicyResult{
			row("ignore", verdict.Good, 0, 100, 0.1), row("capped", verdict.Good, 0, 100, 0.1)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := LessonOf(sc, tt.ps)
			if l == nil {
				t.Fatal("no lesson")
			}
			if tt.want == "" && l.Note != "" || !strings.Contains(l.Note, tt.want) {
				t.Errorf("note %q, want %q", l.Note, tt.want)
			}
		})
	}
}
