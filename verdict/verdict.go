// Package verdict is the shape of every judgement patience makes: a level and the clauses
// behind it, the most serious first. probe grades a measurement (good, provisional, bad);
// replay and storm grade what a policy does to the caller's service (good, degraded, bad).
// The judgements are computed in those packages, carried in the JSON and only printed by
// report; this package holds what they share, once.
package verdict

import (
	"encoding/json"
	"strings"
)

// Level grades a verdict.
type Level string

// Levels, best first. Provisional and Degraded are the middle level of two scales: a probe's
// recommendation may be provisional, a policy's effect degraded; both rank between Good and
// Bad and print as "~". These are the levels' only names: the packages that grade (probe's
// profile, replay, storm, check) write verdict.Good, never a copy of their own.
const (
	// Good: nothing the caller needs to act on.
	Good Level = "good"
	// Provisional (probe): the recommendation is the best the samples allow, but fewer of them
	// than the cut-off needs back it: it may move as more requests are made.
	Provisional Level = "provisional"
	// Degraded (replay, storm): the service stays up but some requests fail, are answered
	// from a fallback or are left in an unknown state.
	Degraded Level = "degraded"
	// Bad: the caller must act — the dependency failed or was not measured (probe), the
	// service goes down with it, duplicates side effects, multiplies load or never recovers
	// (replay, storm).
	Bad Level = "bad"
	// NotGraded: the run was stopped (Ctrl-C) before this part of it finished, so its
	// figures cover only what ran and no grade is given; it ranks with Good (nothing the
	// figures show calls for action) but prints its own mark, never ✓.
	NotGraded Level = "not_graded"
)

// Rank orders levels by seriousness: 0 good (or unset), 1 provisional or degraded, 2 bad.
func (l Level) Rank() int {
	switch l {
	case Provisional, Degraded:
		return 1
	case Bad:
		return 2
	}
	return 0
}

// Symbol is the mark a report leads a verdict with, the same in every format: ✓ good,
// ~ provisional or degraded, ✗ bad, – not graded.
func (l Level) Symbol() string {
	if l == NotGraded {
		return "–"
	}
	switch l.Rank() {
	case 1:
		return "~"
	case 2:
		return "✗"
	}
	return "✓"
}

// Worse returns the more serious of l and o (the first of equals; Good when both are unset).
func (l Level) Worse(o Level) Level {
	if o.Rank() > l.Rank() {
		return o
	}
	if l == "" {
		return Good
	}
	return l
}

// CodeLegacy is the code of the one clause a verdict read from a plain string has: files
// saved before verdicts had levels.
const CodeLegacy = "legacy"

// Reason is one clause of a verdict: what was seen (its code), how serious it is on its own,
// and the sentence that says it.
type Reason struct {
	Code  string `json:"code"`
	Level Level  `json:"level"`
	Text  string `json:"text"`
}

// Verdict is a judgement: its level (the most serious of its clauses') and the clauses
// behind it, the most serious first.
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

// String is Text, so a verdict prints as its sentence wherever a string is expected.
func (v Verdict) String() string { return v.Text() }

// Headline is the first (most serious) clause: the line a report leads with.
func (v Verdict) Headline() string {
	if len(v.Reasons) == 0 {
		return ""
	}
	return v.Reasons[0].Text
}

// Has reports whether the verdict holds a clause with the given code.
func (v Verdict) Has(code string) bool {
	for _, r := range v.Reasons {
		if r.Code == code {
			return true
		}
	}
	return false
}

// Reason returns the clause with the given code (the zero Reason when there is none).
func (v Verdict) Reason(code string) Reason {
	for _, r := range v.Reasons {
		if r.Code == code {
			return r
		}
	}
	return Reason{}
}

// Add inserts a clause after every clause at least as serious (so the most serious come
// first and equals keep the order they were added in) and raises the level to it.
func (v *Verdict) Add(code string, level Level, text string) {
	r := Reason{Code: code, Level: level, Text: text}
	i := len(v.Reasons)
	for i > 0 && v.Reasons[i-1].Level.Rank() < level.Rank() {
		i--
	}
	v.Reasons = append(v.Reasons, Reason{})
	copy(v.Reasons[i+1:], v.Reasons[i:])
	v.Reasons[i] = r
	v.Level = v.Level.Worse(level)
}

// Append adds a clause at the end and raises the level to it: for verdicts written as a
// narrative, where the caller orders the clauses and one may refer to the one before it
// (replay's "12% failed; 40 of them arrived while the dependency failed every call").
func (v *Verdict) Append(code string, level Level, text string) {
	v.Reasons = append(v.Reasons, Reason{Code: code, Level: level, Text: text})
	v.Level = v.Level.Worse(level)
}

// UnmarshalJSON reads a verdict object, or the plain string older files held (one legacy
// clause, level unknown), so they still load.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*v = Verdict{Reasons: []Reason{{Code: CodeLegacy, Text: s}}}
		return nil
	}
	type plain Verdict
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*v = Verdict(p)
	return nil
}
