package replay

import (
	"strings"

	"github.com/patience-dev/patience/internal/units"
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
			return l
		}
	}
	for _, p := range ps {
		if p.Name != rec.Name && p.Verdict.Level == rec.Verdict.Level {
			if better := betterOn(p, *rec); better != "" {
				l.Note = p.Name + " is judged as well as the recommended policy in this run, with " + better
				return l
			}
		}
	}
	return l
}

// betterOn says where p beats rec when p is no worse than rec on any of the figures a reader
// compares rows by — failed requests, p99 latency, worker saturation — and better on at least
// one ("a lower p99 (986 ms vs 11.1 s), less worker saturation (20.0% vs 65.0%)"); "" when
// p does not dominate rec. A lesson whose recommended row is beaten on every count by a row
// of the same level contradicts its own table unless it says so (issue 26). Failures count
// as worse only from FailDegraded of the requests more, the least share the verdict itself
// tells apart: 3.1% against 2.7% failed is no reason to prefer an 11 s p99 to a 1 s one.
func betterOn(p, rec PolicyResult) string {
	moreFailed := share(p.Failed, p.Requests) - share(rec.Failed, rec.Requests)
	if moreFailed >= FailDegraded || p.Latency.P99Ms > rec.Latency.P99Ms || p.WorkerSaturation > rec.WorkerSaturation {
		return ""
	}
	var parts []string
	if p.Failed < rec.Failed {
		parts = append(parts, "fewer failures ("+units.Count(p.Failed)+" vs "+units.Count(rec.Failed)+")")
	}
	if p.Latency.P99Ms < rec.Latency.P99Ms {
		parts = append(parts, "a lower p99 ("+units.Millis(p.Latency.P99Ms)+" vs "+units.Millis(rec.Latency.P99Ms)+")")
	}
	if p.WorkerSaturation < rec.WorkerSaturation {
		parts = append(parts, "less worker saturation ("+units.Percent(p.WorkerSaturation)+" vs "+units.Percent(rec.WorkerSaturation)+")")
	}
	return strings.Join(parts, ", ")
}
