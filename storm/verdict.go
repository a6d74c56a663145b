package storm

import (
	"fmt"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/replay"
)

// Reason codes of a storm verdict (replay.Reason.Code).
const (
	CodeNoRate     = "no_rate"
	CodeNotSettled = "not_settled"
	CodeMetastable = "metastable"
	CodeRecovers   = "recovers"
	CodeSteady     = "steady"
	CodeRecovering = "recovering"
	CodeNotJudged  = "not_judged"
)

// TriggerText names the last fault in words: "the 10s stall", "the 30s error burst"; "" when
// the scenario has none.
func TriggerText(ts []Trigger) string {
	if len(ts) == 0 {
		return ""
	}
	if len(ts) > 1 {
		return "the last fault"
	}
	t := ts[0]
	d := units.Millis(t.ForMs)
	switch t.Kind {
	case "stall":
		return "the " + d + " stall"
	case "errors":
		return "the " + d + " error burst"
	case "latency":
		return "the " + d + " slowdown"
	}
	return "the " + d + " fault phase"
}

// VerdictOf judges one policy of a storm run by the recovery rule (replay.Recovery): it
// recovers after the trigger, is metastable, or the run is too short to say. rate is the
// logical arrival rate, triggers the scenario's fault phases.
func VerdictOf(rate float64, triggers []Trigger, rec replay.Recovery, a Analysis) replay.Verdict {
	one := func(code string, level replay.Level, text string) replay.Verdict {
		return replay.Verdict{Level: level, Reasons: []replay.Reason{{Code: code, Level: level, Text: text}}}
	}
	trigger := TriggerText(triggers)
	after := "after " + trigger + " ends"
	if trigger == "" {
		after = "from the start"
	}
	load := ""
	if a.FinalLoadRatio != nil {
		load = fmt.Sprintf("the dependency receives %s its capacity", units.Times(*a.FinalLoadRatio))
	} else {
		load = fmt.Sprintf("the dependency receives %s", units.Rate(a.FinalOfferedPerS))
	}
	window := units.Seconds(replay.RecoveryWindow.Seconds())
	switch {
	case rate <= 0:
		return one(CodeNoRate, replay.Degraded, "no recovery verdict: the scenario has no arrival rate (closed model or burst)")
	case rec.Backlog:
		// More goodput than arrivals: not a collapse but a backlog of late retries still
		// completing when the run ended (long backoffs, queue jobs).
		return one(CodeNotSettled, replay.Degraded, fmt.Sprintf("not settled: %s goodput never stays within 10%% of arrivals; it ends at %s against %s (late retries still completing)",
			after, units.Rate(a.GoodputPerS), units.Rate(rate)))
	case rec.Metastable:
		return one(CodeMetastable, replay.Bad, fmt.Sprintf("metastable: %s %s and never recovers (goodput %s of %s)",
			after, load, units.Rate(a.GoodputPerS), units.Rate(rate)))
	case rec.Recovered && a.RecoveryS != nil && trigger != "":
		peak := ""
		if a.PeakLoadRatio != nil {
			peak = fmt.Sprintf(" (peak load %s capacity)", units.Times(*a.PeakLoadRatio))
		}
		return one(CodeRecovers, replay.Good, fmt.Sprintf("recovers %s after %s ends%s", units.Seconds(*a.RecoveryS), trigger, peak))
	case rec.Recovered:
		return one(CodeSteady, replay.Good, "steady: goodput follows arrivals")
	case rec.RecoveringS > 0:
		return one(CodeRecovering, replay.Degraded, fmt.Sprintf("inconclusive: goodput had been back for only %s when arrivals ended; recovery needs %s (run longer)",
			units.Seconds(rec.RecoveringS), window))
	}
	return one(CodeNotJudged, replay.Degraded, fmt.Sprintf("inconclusive: the run ends too soon after %s to judge; recovery needs %s of steady goodput (run longer)",
		trigger, window))
}

// OutcomeOf is a policy's outcome in one or two words, for a table cell.
func OutcomeOf(rec replay.Recovery, a Analysis) string {
	switch {
	case rec.Metastable:
		return "metastable"
	case rec.Backlog:
		return "not settled"
	case rec.Recovered && a.RecoveryS != nil:
		return "recovers in " + units.Seconds(*a.RecoveryS)
	case rec.Recovered:
		return "steady"
	}
	return "inconclusive"
}
