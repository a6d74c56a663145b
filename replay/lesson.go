package replay

import (
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/verdict"
)

// Lesson is a scenario's lesson as the run judged it: the policy the scenario recommends,
// why, the level the run gave it, and a note when the run disagrees with the lesson.
type Lesson struct {
	Recommends string `json:"recommends"`
	Why        string `json:"why,omitempty"`
	// Level is the recommended policy's verdict level in this run.
	Level Level `json:"level"`
	// Note says when the run disagrees with the lesson: the recommended policy judged bad, or
	// another policy judged better.
	Note string `json:"note,omitempty"`
}

// LessonOf judges sc's lesson against the verdicts of ps; nil when the scenario states no
// lesson or its recommended policy was not replayed (replaced with --policy).
func LessonOf(sc *scenario.Scenario, ps []PolicyResult) *Lesson {
	if sc.Lesson == nil {
		return nil
	}
	var rec *PolicyResult
	for i := range ps {
		if ps[i].Name == sc.Lesson.Recommends {
			rec = &ps[i]
		}
	}
	if rec == nil {
		return nil
	}
	l := &Lesson{Recommends: rec.Name, Why: sc.Lesson.Why, Level: rec.Verdict.Level}
	if rec.Verdict.Level == verdict.Bad {
		l.Note = "in this run the recommended policy is judged bad too"
	}
	for _, p := range ps {
		if p.Verdict.Level.Rank() < rec.Verdict.Level.Rank() {
			l.Note = p.Name + " is judged better than the recommended policy in this run"
			break
		}
	}
	return l
}
