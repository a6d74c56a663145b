package replay

import (
	"slices"
	"testing"

	"github.com/patience-dev/patience/verdict"
)

// Failing names exactly the policies judged bad, in order; degraded, provisional and
// not-graded policies do not fail the run.
func TestFailing(t *testing.T) {
	for _, tc := range []struct {
		levels []verdict.Level
		want   []string
	}{
		{nil, nil},
		{[]verdict.Level{verdict.Good, verdict.Degraded}, nil},
		{[]verdict.Level{verdict.NotGraded, verdict.Good}, nil},
		{[]verdict.Level{verdict.Bad, verdict.Good, verdict.Bad}, []string{"p0", "p2"}},
		{[]verdict.Level{verdict.Degraded, verdict.Bad}, []string{"p1"}},
	} {
		r := &Result{}
		for i, l := range tc.levels {
			r.Policies = append(r.Policies, PolicyResult{Name: "p" + string(rune('0'+i)), Verdict: Verdict{Level: l}})
		}
		if got := r.Failing(); !slices.Equal(got, tc.want) {
			t.Errorf("levels %v: failing %v, want %v", tc.levels, got, tc.want)
		}
	}
}
