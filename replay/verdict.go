package replay

import (
	"sort"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/verdict"
)

// A replay verdict grades what a policy does to the caller's service. Its shape — level,
// clauses — is package verdict's, shared with probe and storm; replay writes its clauses as a
// narrative (Verdict.Append), the most serious kinds first. Its levels are verdict.Good,
// verdict.Degraded and verdict.Bad, named there once (VerdictOf says what each means here).
type (
	// Level grades a verdict.
	Level = verdict.Level
	// Reason is one clause of a verdict: what was seen, how serious it is on its own, and the
	// sentence that says it.
	Reason = verdict.Reason
	// Verdict is the judgement of one policy: its level and the clauses behind it. It is
	// computed here, carried in the JSON, and only printed by report.
	Verdict = verdict.Verdict
)

// Reason codes: one per kind of clause a verdict can hold.
const (
	CodeWorkersStuck    = "workers_stuck"
	CodeStuck           = "stuck"
	CodeDuplicates      = "duplicates"
	CodeUnknownOutcomes = "unknown_outcomes"
	CodeAmplification   = "amplification"
	CodeFailed          = "failed"
	CodeDegraded        = "degraded"
	CodeRecovers        = "recovers"
	CodeNotRecovered    = "not_recovered"
	CodeWastedWork      = "wasted_work"
	CodeSucceeded       = "succeeded"
)

// Thresholds of the replay verdict. They are stated here, in one place, and docs/commands.md repeats
// them: a verdict a reader cannot reproduce is folklore.
const (
	// BusyMs: every worker of a client busy at once for at least this long (in total) is
	// worth saying (degraded); DownMs or longer means the caller's service went down with
	// the dependency (bad): unrelated pages get no worker (the seeds' Gunicorn story).
	BusyMs = 1000
	DownMs = 5000
	// TurnedAwayBad is the share of calls refused for want of a worker that makes the
	// verdict bad whatever the saturated time: unrelated requests turned away.
	TurnedAwayBad = 0.01
	// FailBad and FailDegraded are the shares of the policy's own failures (not the target's
	// by-design rejections, not requests that arrived while the target failed every call)
	// that make a verdict bad or degraded.
	FailBad      = 0.10
	FailDegraded = 0.005
	// WarnAmplification is the amplification from which a verdict mentions it (degraded);
	// policy.DefaultMaxAmplification (PT009's default) or more is bad.
	WarnAmplification = 3.0
	// WastedShare is the share of wasted work (served after the caller gave up) worth saying.
	WastedShare = 0.01
)

// More reason codes of the verdict.
const (
	CodeWorkersBusy = "workers_busy"
	CodeOverBudget  = "over_budget"
	CodeRejected    = "rejected"
	// CodeFailedWhileDown was the code of a clause of its own ("56 of them arrived while the
	// dependency failed every call"); the failed clause now says it, so its mark never sits
	// beside a failure share without the reason. No verdict holds it any more.
	CodeFailedWhileDown = "failed_while_down"
	CodeBacklog         = "backlog"
	CodeNotJudged       = "recovery_not_judged"
)

// VerdictOf says in plain words what policy result p would do to the service of scenario
// sc's callers, from the facts the engine measured. Bad: the service goes down with the
// dependency (every worker of a client busy for DownMs, or TurnedAwayBad of the calls turned
// away), requests still hanging, duplicated side effects, callers parked beyond load.budget,
// load multiplied beyond policy.DefaultMaxAmplification, FailBad of the requests failed by
// the policy, or no recovery after the incident. Degraded: the service stays up but some
// requests fail, come from the fallback or are left in an unknown state. Good otherwise.
func VerdictOf(sc *scenario.Scenario, p PolicyResult) Verdict {
	v := Verdict{Level: verdict.Good}
	workersClause(&v, p)
	if stuck := p.FailureReasons[ReasonStuck]; stuck > 0 {
		v.Append(CodeStuck, verdict.Bad, units.Count(stuck)+" requests still hanging when the run ended")
	}
	if p.Duplicates > 0 {
		v.Append(CodeDuplicates, verdict.Bad, units.Count(p.Duplicates)+" side effects executed twice (customers charged twice)")
	}
	if b := sc.Load.Budget; b > 0 && p.Latency.P99Ms > float64(b)/float64(time.Millisecond) {
		v.Append(CodeOverBudget, verdict.Bad, "callers parked beyond their "+units.Millis(float64(b)/float64(time.Millisecond))+" budget (p99 "+units.Millis(p.Latency.P99Ms)+")")
	}
	if p.UnknownOutcomes > 0 {
		v.Append(CodeUnknownOutcomes, verdict.Degraded, units.Count(p.UnknownOutcomes)+" requests in an unknown state (the server may have acted): someone must confirm them")
	}
	amplificationClause(&v, p)
	rejected := p.FailureReasons[ReasonRejected]
	failedClause(&v, p, rejected)
	if p.Degraded > 0 {
		v.Append(CodeDegraded, verdict.Degraded, units.Count(p.Degraded)+" answered from the fallback (degraded, not failed)")
	}
	if rejected > 0 {
		v.Append(CodeRejected, verdict.Good, units.Count(rejected)+" rejected by the target (4xx, not retried by design)")
	}
	if len(sc.Target.Phases) > 0 {
		recoveryClause(&v, p.Recovery, IncidentEndMs(sc) != nil)
	}
	if p.WastedWork > 0 && p.Requests > 0 && float64(p.WastedWork) >= WastedShare*float64(p.Requests) {
		v.Append(CodeWastedWork, verdict.Good, units.Count(p.WastedWork)+" calls served after the caller gave up")
	}
	if len(v.Reasons) == 0 || v.Level == verdict.Good {
		v.Reasons = append([]Reason{{Code: CodeSucceeded, Level: verdict.Good, Text: units.Percent(p.SuccessRate) + " succeeded"}}, v.Reasons...)
	}
	return v
}

// workersClause says when a client had every worker busy: bad when the service went down
// with the dependency (for DownMs, or TurnedAwayBad of the calls turned away), degraded
// from BusyMs.
func workersClause(v *Verdict, p PolicyResult) {
	turnedAway := share(p.NoWorker, p.Requests)
	if p.WorkerSaturation >= 1 && (p.SaturatedMs >= DownMs || turnedAway >= TurnedAwayBad) {
		s := "every worker of a client stuck for " + units.Millis(p.SaturatedMs) + ": unrelated pages die"
		if p.NoWorker > 0 {
			s += " (" + units.Count(p.NoWorker) + " calls turned away)"
		}
		v.Append(CodeWorkersStuck, verdict.Bad, s)
	} else if p.WorkerSaturation >= 1 && p.SaturatedMs >= BusyMs {
		s := "every worker of a client busy for " + units.Millis(p.SaturatedMs) + " in all"
		if p.NoWorker > 0 {
			s += " (" + units.Count(p.NoWorker) + " calls turned away, " + units.Percent(turnedAway) + ")"
		}
		v.Append(CodeWorkersBusy, verdict.Degraded, s)
	}
}

// amplificationClause says how many calls each request became, from WarnAmplification
// (degraded) and policy.DefaultMaxAmplification (bad).
func amplificationClause(v *Verdict, p PolicyResult) {
	switch amp := "each request became " + units.Ratio(p.Amplification) + " calls to the dependency"; {
	case p.Amplification >= policy.DefaultMaxAmplification:
		v.Append(CodeAmplification, verdict.Bad, amp)
	case p.Amplification >= WarnAmplification:
		v.Append(CodeAmplification, verdict.Degraded, amp)
	}
}

// failedClause says what share of the requests failed, and why, leaving out the rejected
// ones (4xx, said in a clause of their own); its level counts only the policy's own failures.
func failedClause(v *Verdict, p PolicyResult, rejected int) {
	failed := p.Failed - rejected
	if p.Requests <= 0 || failed <= 0 {
		return
	}
	// The level counts only the policy's own failures: not the requests that arrived
	// while the target failed every call.
	own := share(failed-p.FailedWhileDown, p.Requests)
	level := verdict.Good
	switch {
	case own >= FailBad:
		level = verdict.Bad
	case own >= FailDegraded:
		level = verdict.Degraded
	}
	reasons := make(map[string]int, len(p.FailureReasons))
	for k, n := range p.FailureReasons {
		if k != ReasonRejected {
			reasons[k] = n
		}
	}
	text := units.Percent(share(failed, p.Requests)) + " failed"
	if p.FailedWhileDown > 0 {
		// The reason a large share is not judged bad goes in the same clause, beside the
		// number, so no mark sits beside "99.2% failed" without it (issue 26); the clause
		// is at least degraded.
		level = level.Worse(verdict.Degraded)
		which := units.Count(p.FailedWhileDown) + " of them"
		if p.FailedWhileDown >= failed {
			which = "all"
		}
		text += ", " + which + " while the dependency failed every call (" + topReasons(reasons, 2) + "): failing fast is all a policy can do then without a fallback"
	} else {
		text += " (" + topReasons(reasons, 2) + ")"
	}
	v.Append(CodeFailed, level, text)
}

// recoveryClause says what the recovery rule found after the incident; endsInRun is false
// when the incident lasts until arrivals stop.
func recoveryClause(v *Verdict, r Recovery, endsInRun bool) {
	window := units.Millis(float64(RecoveryWindow / time.Millisecond))
	switch {
	case !endsInRun:
		v.Append(CodeNotJudged, verdict.Good, "recovery not judged: the incident lasts until arrivals stop")
	case r.Recovered && r.RecoveryMs != nil && *r.RecoveryMs > 0:
		v.Append(CodeRecovers, verdict.Good, "recovers "+units.Millis(*r.RecoveryMs)+" after the incident ends")
	case r.Recovered:
		v.Append(CodeRecovers, verdict.Good, "recovers as soon as the incident ends")
	case r.Metastable:
		v.Append(CodeNotRecovered, verdict.Bad, "does not recover: goodput stays below arrivals after the incident")
	case r.Backlog:
		v.Append(CodeBacklog, verdict.Good, "late retries still completing when arrivals stop (a backlog, not a collapse)")
	case r.RecoveringS > 0:
		v.Append(CodeNotJudged, verdict.Good, "recovery not judged: goodput had been back "+units.Millis(r.RecoveringS*1000)+" when arrivals stopped (the rule needs "+window+")")
	default:
		v.Append(CodeNotJudged, verdict.Good, "recovery not judged: arrivals stop too soon after the incident (the rule needs "+window+" of steady goodput)")
	}
}

func share(n, of int) float64 {
	if of <= 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// topReasons lists the commonest failure reasons, most frequent first.
func topReasons(m map[string]int, n int) string {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v || (all[i].v == all[j].v && all[i].k < all[j].k) })
	var parts []string
	for i, e := range all {
		if i == n {
			break
		}
		parts = append(parts, strings.ReplaceAll(e.k, "_", " ")+" "+units.Count(e.v))
	}
	return strings.Join(parts, ", ")
}

// amplificationNote explains an amplification below ×1 — fewer calls reached the dependency
// than requests arrived — from the counts that say where the rest went; "" when the policy
// made at least one call per request (or the counts name no cause).
func amplificationNote(p PolicyResult) string {
	if p.Requests == 0 || p.Amplification >= 1 {
		return ""
	}
	var why []string
	if p.NoWorker > 0 {
		why = append(why, units.Count(p.NoWorker)+" turned away for want of a worker")
	}
	if n := p.FailureReasons[ReasonBreakerOpen]; n > 0 {
		why = append(why, units.Count(n)+" refused by the open breaker")
	}
	if n := p.FailureReasons[ReasonBulkhead]; n > 0 {
		why = append(why, units.Count(n)+" refused by the bulkhead")
	}
	if p.Degraded > 0 {
		why = append(why, units.Count(p.Degraded)+" answered from the fallback")
	}
	return strings.Join(why, ", ")
}
