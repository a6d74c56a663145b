package replay

import (
	"sort"
	"strings"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
)

// Level grades a verdict: what the policy does to the caller's service.
type Level string

// Levels of a Verdict, best first.
const (
	// Good: the service stays up and the dependency's trouble costs (almost) nothing.
	Good Level = "good"
	// Degraded: the service stays up but some requests fail, are answered from a fallback or
	// are left in an unknown state.
	Degraded Level = "degraded"
	// Bad: the service goes down with the dependency, duplicates side effects, multiplies
	// load on it or never recovers.
	Bad Level = "bad"
)

// Levels lists every Level, best first.
var Levels = []Level{Good, Degraded, Bad}

func (l Level) rank() int {
	switch l {
	case Degraded:
		return 1
	case Bad:
		return 2
	}
	return 0
}

// Worse returns the more serious of two levels.
func Worse(a, b Level) Level {
	if b.rank() > a.rank() {
		return b
	}
	if a == "" {
		return Good
	}
	return a
}

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

// Reason is one clause of a verdict: what was seen, how serious it is on its own, and the
// sentence that says it.
type Reason struct {
	Code  string `json:"code"`
	Level Level  `json:"level"`
	Text  string `json:"text"`
}

// Verdict is the judgement of one policy: its level and the clauses behind it, the most
// serious first. It is computed here, carried in the JSON, and only printed by report.
type Verdict struct {
	Level   Level    `json:"level"`
	Reasons []Reason `json:"reasons"`
}

// Text joins the clauses into the one-line verdict reports print.
func (v Verdict) Text() string {
	parts := make([]string, len(v.Reasons))
	for i, r := range v.Reasons {
		parts[i] = r.Text
	}
	return strings.Join(parts, "; ")
}

// add appends a clause and raises the verdict's level to it.
func (v *Verdict) add(code string, level Level, text string) {
	v.Reasons = append(v.Reasons, Reason{Code: code, Level: level, Text: text})
	v.Level = Worse(v.Level, level)
}

// Thresholds of the replay verdict.
const (
	// StuckFor is how long every worker of a client must be busy at once before the verdict
	// says unrelated pages die (the seeds' Gunicorn story).
	StuckForMs = 1000
	// FailBad and FailDegraded are the failed shares that make a verdict bad or degraded.
	FailBad      = 0.10
	FailDegraded = 0.005
	// WarnAmplification is the amplification from which a verdict mentions it.
	WarnAmplification = 3.0
	// WastedShare is the share of wasted work (served after the caller gave up) worth saying.
	WastedShare = 0.01
)

// VerdictOf says in plain words what policy result p would do to the service, from the facts
// the engine measured; hasPhases says the scenario has an incident to recover from.
func VerdictOf(p PolicyResult, hasPhases bool) Verdict {
	v := Verdict{Level: Good}
	if p.WorkerSaturation >= 1 && p.SaturatedMs >= StuckForMs {
		s := "every worker of a client stuck for " + units.Millis(p.SaturatedMs) + ": unrelated pages die"
		if p.NoWorker > 0 {
			s += " (" + units.Count(p.NoWorker) + " calls turned away)"
		}
		v.add(CodeWorkersStuck, Bad, s)
	}
	if stuck := p.FailureReasons[ReasonStuck]; stuck > 0 {
		v.add(CodeStuck, Bad, units.Count(stuck)+" requests still hanging when the run ended")
	}
	if p.Duplicates > 0 {
		v.add(CodeDuplicates, Bad, units.Count(p.Duplicates)+" side effects executed twice (customers charged twice)")
	}
	if p.UnknownOutcomes > 0 {
		v.add(CodeUnknownOutcomes, Degraded, units.Count(p.UnknownOutcomes)+" requests in an unknown state (the server may have acted): someone must confirm them")
	}
	switch amp := "each request became " + units.Ratio(p.Amplification) + " calls to the dependency"; {
	case p.Amplification >= policy.DefaultMaxAmplification:
		v.add(CodeAmplification, Bad, amp)
	case p.Amplification >= WarnAmplification:
		v.add(CodeAmplification, Degraded, amp)
	}
	if p.Requests > 0 {
		failRate := float64(p.Failed) / float64(p.Requests)
		level := Good
		switch {
		case failRate >= FailBad:
			level = Bad
		case failRate >= FailDegraded:
			level = Degraded
		}
		if p.Failed > 0 {
			v.add(CodeFailed, level, units.Percent(failRate)+" failed ("+topReasons(p.FailureReasons, 2)+")")
		} else {
			v.Level = Worse(v.Level, level)
		}
	}
	if p.Degraded > 0 {
		v.add(CodeDegraded, Degraded, units.Count(p.Degraded)+" answered from the fallback (degraded, not failed)")
	}
	switch {
	case p.Recovered && p.RecoveryMs != nil && *p.RecoveryMs > 0:
		v.add(CodeRecovers, Good, "recovers "+units.Millis(*p.RecoveryMs)+" after the incident ends")
	case hasPhases && !p.Recovered && p.Failed+p.Degraded > 0:
		v.add(CodeNotRecovered, Bad, "does not recover before arrivals stop")
	}
	if p.WastedWork > 0 && p.Requests > 0 && float64(p.WastedWork) >= WastedShare*float64(p.Requests) {
		v.add(CodeWastedWork, Good, units.Count(p.WastedWork)+" calls served after the caller gave up")
	}
	if len(v.Reasons) == 0 || v.Level == Good {
		v.Reasons = append([]Reason{{Code: CodeSucceeded, Level: Good, Text: units.Percent(p.SuccessRate) + " succeeded"}}, v.Reasons...)
	}
	return v
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
