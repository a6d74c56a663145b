package replay

import (
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// End is how a logical request (or one layer's call of it) ended, as both engines count it.
type End int

// The ends of a logical request. EndDegraded is a success answered by a fallback somewhere
// below: the engines turn a success into it when the request was degraded on the way.
const (
	EndSucceeded End = iota
	EndFailed
	EndDegraded
)

// Finished is one logical request at its end, as Tally counts it.
type Finished struct {
	End End
	// Reason is why it failed (a Reason* constant or ReasonOf an outcome); "" otherwise.
	Reason string
	// Start is when it arrived, in scenario time.
	Start time.Duration
	// TurnedAway is set when some bottom call of it found no free worker: its failure is the
	// caller's service giving out, not the dependency's.
	TurnedAway bool
}

// Tally counts a finished logical request of scenario sc in p and in s, the second it
// finished in: successes, degraded answers, failures by reason, and among those the ones
// FailedWhileDown excuses (the request arrived while the target was down, and failed on the
// dependency's account, not for want of a worker or by hanging). The simulator and the live
// driver both call it, so their tallies cannot drift.
func (p *PolicyResult) Tally(sc *scenario.Scenario, s *Second, f Finished) {
	switch f.End {
	case EndSucceeded:
		p.Succeeded++
		s.Succeeded++
	case EndDegraded:
		p.Degraded++
		s.Degraded++
	default:
		p.Failed++
		s.Failed++
		p.FailureReasons[f.Reason]++
		if !f.TurnedAway && DependencyFailure(f.Reason) && sc.DownAt(f.Start) {
			p.FailedWhileDown++
		}
	}
}

// AnswerAbove is what a finished call of a lower layer is to the attempt of the layer above
// that issued it: a 200 when it succeeded (degraded or not), else its last outcome, a 503
// when the breaker or bulkhead refused it before any attempt, a timeout otherwise. The
// simulator and the live driver both call it.
func AnswerAbove(end End, reason string, last policy.Outcome, hasLast bool) policy.Outcome {
	switch {
	case end != EndFailed:
		return policy.Outcome{Kind: policy.Success, Status: 200}
	case hasLast:
		return last
	case reason == ReasonBreakerOpen || reason == ReasonBulkhead:
		return policy.Outcome{Kind: policy.Status, Status: 503}
	}
	return policy.Outcome{Kind: policy.Timeout}
}
