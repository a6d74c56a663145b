package probe

import (
	"encoding/json"
	"strings"
)

// Level grades a probe verdict: what the measurement lets a caller rely on.
type Level string

// Levels of a Verdict, best first.
const (
	// Good: enough samples back the cut-off, failures stay within --max-error-rate and the
	// recommendation fits the caller.
	Good Level = "good"
	// Provisional: the recommendation is the best the samples allow, but fewer of them than
	// the cut-off needs back it (1,000 for p99.9): it may move as more requests are made.
	Provisional Level = "provisional"
	// Bad: the dependency failed, was not measured, or the caller's budget cannot hold it.
	Bad Level = "bad"
)

// Levels lists every Level, best first.
var Levels = []Level{Good, Provisional, Bad}

func (l Level) rank() int {
	switch l {
	case Provisional:
		return 1
	case Bad:
		return 2
	}
	return 0
}

// Symbol is the mark a report leads the verdict with: ✓ good, ~ provisional, ✗ bad.
func (l Level) Symbol() string {
	switch l {
	case Provisional:
		return "~"
	case Bad:
		return "✗"
	}
	return "✓"
}

// Reason codes of a probe verdict, one per kind of clause. cmd chooses the exit code from
// them (README "Exit codes"): the measurement codes exit 3, the failure codes exit 1.
const (
	// Could not measure (exit 3).
	CodeUnreachable    = "unreachable"      // the first requests could not connect
	CodeAllFailed      = "all_failed"       // no request got any response
	CodeNoGoodResponse = "no_good_response" // responses, but none with a status below 400
	CodeRateNotHeld    = "rate_not_held"    // the generator fell more than 1% short
	// The dependency fails (exit 1).
	CodeNoAnswer   = "no_answer"   // more than --max-error-rate got no answer within --max-timeout
	CodeTailBeyond = "tail_beyond" // the cut-off quantile lies beyond --max-timeout
	CodeErrorRate  = "error_rate"  // more than --max-error-rate failed otherwise
	// The caller's budget cannot hold one normal call (exit 1 with --strict).
	CodeBudget = "budget"
	// The recommendation itself: good, or provisional below the samples the cut-off needs.
	CodeRecommendation = "recommendation"
	CodeProvisional    = "provisional"
	// A verdict read from a profile saved before verdicts had levels (a plain string).
	CodeLegacy = "legacy"
)

// Reason is one clause of a verdict: what was seen, how serious it is, the sentence.
type Reason struct {
	Code  string `json:"code"`
	Level Level  `json:"level"`
	Text  string `json:"text"`
}

// Verdict is the judgement of a probe: its level and the clauses behind it, the most serious
// first. It is computed by Advise, carried in the JSON (recommendation.verdict) and only
// printed by report.
type Verdict struct {
	Level   Level    `json:"level"`
	Reasons []Reason `json:"reasons"`
}

// Text joins the clauses into one line.
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

// add appends a clause, keeping the most serious first (stable among equals), and raises the
// level to it.
func (v *Verdict) add(code string, level Level, text string) {
	r := Reason{Code: code, Level: level, Text: text}
	i := len(v.Reasons)
	for i > 0 && v.Reasons[i-1].Level.rank() < level.rank() {
		i--
	}
	v.Reasons = append(v.Reasons, Reason{})
	copy(v.Reasons[i+1:], v.Reasons[i:])
	v.Reasons[i] = r
	if level.rank() > v.Level.rank() || v.Level == "" {
		v.Level = level
	}
}

// UnmarshalJSON reads a verdict object, or the plain string profiles held before verdicts had
// levels (one legacy clause, level unknown), so old `--save` files still load.
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
