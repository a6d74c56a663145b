package profile

import "github.com/patience-dev/patience/verdict"

// A probe's verdict grades the measurement: what it lets a caller rely on. Its shape — level,
// clauses, the most serious first — is package verdict's, shared with replay and storm.
type (
	// Level grades a probe verdict.
	Level = verdict.Level
	// Reason is one clause of a verdict: what was seen, how serious it is, the sentence.
	Reason = verdict.Reason
	// Verdict is the judgement of a probe: its level and the clauses behind it, the most
	// serious first. It is computed by Recommend, carried in the JSON (recommendation.verdict)
	// and only printed by report.
	Verdict = verdict.Verdict
)

// Reason codes of a probe verdict, one per kind of clause. cmd chooses the exit code from
// them (README "Exit codes"): the measurement codes exit 3, the failure codes exit 1.
const (
	// Could not measure (exit 3).
	CodeUnreachable    = "unreachable"      // the first requests could not connect
	CodeAllFailed      = "all_failed"       // no request got any response
	CodeNoGoodResponse = "no_good_response" // responses, but none with a status below 400
	CodeRateNotHeld    = "rate_not_held"    // the generator fell behind its schedule (RateKept)
	// The dependency fails (exit 1).
	CodeNoAnswer   = "no_answer"   // more than --max-error-rate got no answer within --max-timeout
	CodeTailBeyond = "tail_beyond" // the cut-off quantile lies beyond --max-timeout
	CodeErrorRate  = "error_rate"  // more than --max-error-rate failed otherwise
	// The caller's budget cannot hold one normal call (exit 1 with --strict).
	CodeBudget = "budget"
	// The recommendation itself: good, or provisional below the samples the cut-off needs.
	CodeRecommendation = "recommendation"
	CodeProvisional    = "provisional"
	// The stream advice where no total timeout was derived (docs/design.md §7 "Streams"):
	// the first-event and idle timeouts stand without one.
	CodeStream = "stream"
	// A verdict read from a profile saved before verdicts had levels (a plain string).
	CodeLegacy = verdict.CodeLegacy
)
