package profile

import (
	"fmt"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
)

// The caller's wait for a stream (issue 29 item 5's rule, docs/design.md §7 "Streams"): a
// person or an upstream request waiting on a streaming response waits for its first event —
// from then on it has something to show — and the stream's own length is the content's,
// bounded by the idle and stream timeouts. So the budget holds the first-event timeout per
// attempt, not the stream's total. A queue job consumes the whole stream in its run: its
// budget reads the total. replay's simulator applies the same rule to the latency it reports
// (latency_from "first_event").

// BudgetPhase says which phase of a call the caller's budget holds per attempt. Its text form,
// in JSON (recommendation.budget_reads), is the string itself.
type BudgetPhase string

// Budget phases.
const (
	// BudgetReadsTotal: the budget holds the total timeout per attempt (every response but a
	// stream's, and a stream a queue job consumes).
	BudgetReadsTotal BudgetPhase = "total"
	// BudgetReadsFirstEvent: the budget holds the first-event timeout per attempt (a stream an
	// interactive caller waits on).
	BudgetReadsFirstEvent BudgetPhase = "first_event"
)

// BudgetReadsFor is the phase a caller's budget reads: the first event for a streaming
// response and an interactive caller (any kind but job), the total otherwise. The one
// definition probe, advise, check's PT003/PT004 and emit read.
func BudgetReadsFor(kind CallerKind, streams bool) BudgetPhase {
	if streams && kind != CallerJob {
		return BudgetReadsFirstEvent
	}
	return BudgetReadsTotal
}

// CallerWaitMs is the per-attempt wait the budget holds (Recommendation.BudgetReads): the
// first-event timeout for a stream an interactive caller waits on — never above the total
// timeout, which ends the attempt first — else the total timeout; 0 when that figure was not
// derived.
func (r *Recommendation) CallerWaitMs() float64 {
	if r.BudgetReads == BudgetReadsFirstEvent && r.StreamAdvice != nil && r.FirstEventTimeoutMs != nil {
		if r.TimeoutMs > 0 {
			return min(*r.FirstEventTimeoutMs, r.TimeoutMs)
		}
		return *r.FirstEventTimeoutMs
	}
	return r.TimeoutMs
}

// PolicyWait is the per-attempt wait of a client policy that phase reads, and the policy
// field that sets it ("" when none bounds it): for the total, the timeout; for the first
// event, first_event_timeout, else read_timeout (which bounds the first silence when no
// first_event_timeout is set, policy.Policy.FirstEventTimeout), else the timeout — never
// above the timeout, which ends the attempt first.
func PolicyWait(phase BudgetPhase, p *policy.Policy) (time.Duration, string) {
	if phase == BudgetReadsFirstEvent {
		var d time.Duration
		var field string
		switch {
		case p.FirstEventTimeout > 0:
			d, field = p.FirstEventTimeout, "first_event_timeout"
		case p.ReadTimeout > 0:
			d, field = p.ReadTimeout, "read_timeout"
		}
		if d > 0 && (p.Timeout <= 0 || d < p.Timeout) {
			return d, field
		}
	}
	if p.Timeout > 0 {
		return p.Timeout, "timeout"
	}
	return 0, ""
}

// setBudgetReads decides what the budget reads for this recommendation, after the stream
// stage: first_event needs a derived first-event timeout. It is set (and in JSON) only for a
// streaming response; absent, the budget reads the total.
func (r *recommender) setBudgetReads() {
	a := r.rec.StreamAdvice
	if a == nil {
		return
	}
	r.rec.BudgetReads = BudgetReadsFor(r.c.Kind, a.FirstEventTimeoutMs != nil)
	total := "unbounded"
	if r.rec.TimeoutMs > 0 {
		total = units.Millis(r.rec.TimeoutMs)
	}
	switch {
	case r.rec.BudgetReads == BudgetReadsFirstEvent:
		r.rec.Derivation = append(r.rec.Derivation, fmt.Sprintf(
			"budget: reads the first event — a stream: the caller waits for the first event (%s first-event timeout per attempt), not for the stream's total (%s); the stream's own length is bounded by the idle and stream timeouts, and a retry comes before the first event only (after it, it restarts the stream)",
			units.Millis(r.rec.CallerWaitMs()), total))
	case r.c.Kind == CallerJob:
		r.rec.Derivation = append(r.rec.Derivation, fmt.Sprintf(
			"budget: reads the total — a job consumes the whole stream in its run, so its run holds the stream's total (%s)", total))
	default:
		r.rec.Derivation = append(r.rec.Derivation, fmt.Sprintf(
			"budget: reads the total (%s) — no first-event timeout was derived for this stream", total))
	}
}
