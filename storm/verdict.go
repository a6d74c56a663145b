package storm

import (
	"fmt"
	"strings"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/verdict"
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
	return judge(rate, triggers, false, rec, a, 0)
}

// PolicyVerdict is VerdictOf for policy p of run r: when the last fault lasts until arrivals
// stop, recovery cannot be judged, and the verdict answers what can be — the amplification
// and the load on the failing dependency.
func PolicyVerdict(r *Result, p PolicyResult) replay.Verdict {
	return judge(r.RatePerS, r.Triggers, r.WholeRunFault(), p.Recovery, p.Analysis, p.PolicyResult.Amplification)
}

// judge is VerdictOf and PolicyVerdict: wholeRun when the last fault lasts until arrivals
// stop, amp the policy's amplification.
func judge(rate float64, triggers []Trigger, wholeRun bool, rec replay.Recovery, a Analysis, amp float64) replay.Verdict {
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
	if wholeRun {
		level, text := verdict.Degraded, "recovery not judged: "+trigger+" is still on when requests stop arriving"
		if amp > 0 {
			text += "; each request became " + units.Ratio(amp) + " calls to the failing dependency"
			if amp >= policy.DefaultMaxAmplification {
				level = verdict.Bad
			}
		}
		if a.PeakLoadRatio != nil {
			text += fmt.Sprintf(", peak load %s capacity", units.Times(*a.PeakLoadRatio))
		}
		return one(CodeNotJudged, level, text)
	}
	switch {
	case rate <= 0:
		return one(CodeNoRate, verdict.Degraded, "no recovery verdict: the scenario has no arrival rate (closed model or burst)")
	case rec.Backlog:
		// More goodput than arrivals: not a collapse but a backlog of late retries still
		// completing when the run ended (long backoffs, queue jobs).
		return one(CodeNotSettled, verdict.Degraded, fmt.Sprintf("not settled: %s goodput never stays within 10%% of arrivals; it ends at %s against %s (late retries still completing)",
			after, units.Rate(a.GoodputPerS), units.Rate(rate)))
	case rec.Metastable:
		return one(CodeMetastable, verdict.Bad, fmt.Sprintf("metastable: %s %s and never recovers (goodput %s of %s)",
			after, load, units.Rate(a.GoodputPerS), units.Rate(rate)))
	case rec.Recovered && a.RecoveryS != nil && trigger != "":
		peak := ""
		if a.PeakLoadRatio != nil {
			peak = fmt.Sprintf(" (peak load %s capacity)", units.Times(*a.PeakLoadRatio))
		}
		return one(CodeRecovers, verdict.Good, fmt.Sprintf("recovers %s after %s ends%s", units.Seconds(*a.RecoveryS), trigger, peak))
	case rec.Recovered:
		return one(CodeSteady, verdict.Good, "steady: goodput follows arrivals")
	case rec.RecoveringS > 0:
		return one(CodeRecovering, verdict.Degraded, fmt.Sprintf("inconclusive: goodput had been back for only %s when arrivals ended; recovery needs %s (run longer)",
			units.Seconds(rec.RecoveringS), window))
	}
	return one(CodeNotJudged, verdict.Degraded, fmt.Sprintf("inconclusive: the run ends too soon after %s to judge; recovery needs %s of steady goodput (run longer)",
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

// Summary is the headline of a run that compares several policies: how many recover and
// which collapse, at the level of the worst policy (a comparison that includes a collapse
// is a warning to read on). With one policy it is that policy's verdict.
func Summary(r *Result) replay.Verdict {
	ps := r.Policies
	if len(ps) == 1 {
		return ps[0].Verdict
	}
	level := verdict.Good
	if r.WholeRunFault() {
		parts := make([]string, len(ps))
		for i, p := range ps {
			level = level.Worse(p.Verdict.Level)
			parts[i] = p.Name + " " + units.Ratio(p.PolicyResult.Amplification)
		}
		text := "recovery not judged: " + TriggerText(r.Triggers) + " is still on when requests stop arriving; calls per request on the failing dependency: " + strings.Join(parts, ", ")
		return replay.Verdict{Level: level, Reasons: []replay.Reason{{Code: CodeSummary, Level: level, Text: text}}}
	}
	var recovered, metastable, other []string
	for _, p := range ps {
		level = level.Worse(p.Verdict.Level)
		switch {
		case p.Recovered:
			recovered = append(recovered, p.Name)
		case p.Metastable:
			metastable = append(metastable, p.Name)
		default:
			other = append(other, p.Name)
		}
	}
	text := fmt.Sprintf("%d of %d policies recover", len(recovered), len(ps))
	if len(recovered) > 0 && len(recovered) < len(ps) {
		text += " (" + strings.Join(recovered, ", ") + ")"
	}
	if len(metastable) > 0 {
		text += "; " + strings.Join(metastable, ", ") + " " + plural(len(metastable), "collapses", "collapse") + " and never recovers"
		if len(metastable) > 1 {
			text = strings.TrimSuffix(text, " and never recovers") + " and never recover"
		}
	}
	if len(other) > 0 {
		text += "; " + strings.Join(other, ", ") + ": not judged (see below)"
	}
	return replay.Verdict{Level: level, Reasons: []replay.Reason{{Code: CodeSummary, Level: level, Text: text}}}
}

// WholeRunFault says the last fault lasts until arrivals stop: recovery cannot be judged.
func (r *Result) WholeRunFault() bool {
	return r.LastFaultEndMs > 0 && r.LastFaultEndMs >= r.DurationMs
}

// CodeSummary is the reason code of Summary's headline.
const CodeSummary = "summary"

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// CodeJitterSame is the code of the clause that explains a jittered policy whose figures are
// those of a policy without jitter.
const CodeJitterSame = "jitter_same"

// noteJitterSame adds, to the verdict of every jittered policy whose outcome, level and
// amplification read the same as those of a policy without jitter, the clause
// that says why (issue 26: storm printed jitter's "metastable … ×3.49 of ×4" beside retries'
// same figures with no word). Jitter spreads retries over time; it does not remove them: once
// a stall has every attempt time out in the queue, each request still sends its attempts, so
// the load and the outcome are the same (Brooker, "Exponential Backoff And Jitter", AWS
// Architecture Blog, 2015: jitter cuts the spikes; a budget or a breaker cuts the count).
// ps are the policies of res.Policies, in order.
func noteJitterSame(res *Result, ps []*policy.Policy) {
	for i := range res.Policies {
		if i >= len(ps) || !jittered(ps[i]) {
			continue
		}
		p := &res.Policies[i]
		for j, q := range res.Policies {
			if j >= len(ps) || jittered(ps[j]) || !sameFigures(*p, q) {
				continue
			}
			p.Verdict.Append(CodeJitterSame, p.Verdict.Level, "as with "+q.Name+", each request still became "+
				units.Ratio(p.PolicyResult.Amplification)+" calls: jitter spreads retries over time, it does not remove them")
			break
		}
	}
}

// sameFigures says whether p and q read the same in storm's table where jitter could have
// made a difference: outcome, verdict level and amplification, at the precision they are
// printed (the peak load may differ: spreading the retries is what jitter does).
func sameFigures(p, q PolicyResult) bool {
	return p.Outcome == q.Outcome && p.Verdict.Level == q.Verdict.Level &&
		units.Ratio(p.PolicyResult.Amplification) == units.Ratio(q.PolicyResult.Amplification)
}

// jittered says whether any layer of p randomises its backoff.
func jittered(p *policy.Policy) bool {
	if p == nil {
		return false
	}
	found := false
	eachLayer(p, func(l *policy.Policy) {
		if l.Retry.Jitter != "" && l.Retry.Jitter != policy.JitterNone {
			found = true
		}
	})
	return found
}
