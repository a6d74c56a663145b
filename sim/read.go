package sim

import (
	"math"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// ending is how a bottom attempt ends for its caller once its request is written.
type ending uint8

const (
	// endAnswered: the response came, head and body, before any timer fired.
	endAnswered ending = iota
	// endTimeout: the per-attempt total (policy.Timeout, or the deadline's remainder) fired.
	endTimeout
	// endReadTimeout: a silence lasted the read timeout (policy.ReadTimeout).
	endReadTimeout
	// endNever: nothing ends it — a hang with neither timer.
	endNever
)

// noHead is the head of a response that never comes (a hang).
const noHead = time.Duration(math.MaxInt64)

// pace is the body of a response after its head: pieces pieces, every apart, the first every
// after the head (a drip fault's scenario.Drip). The zero pace is a response that arrives
// whole with its head.
type pace struct {
	every  time.Duration
	pieces int
}

// paceOf is the pace of a drip fault's body.
func paceOf(d *scenario.Drip) pace { return pace{every: d.Every, pieces: d.Pieces()} }

// length is how long the body takes after the head.
func (p pace) length() time.Duration { return time.Duration(p.pieces) * p.every }

// attemptEnd says when and how an attempt ends (docs/design.md §6, the target model), in
// time since its request was written: the head comes at head (noHead: never), then the body
// at pace b, so the response is whole at head + b.length(). read is the read timeout and
// total what is left of the per-attempt timeout when the request is written (0: none of
// either). The read timeout fires at the first silence of at least read: at read when the
// head is no earlier, else at head + read when the pieces are at least read apart; otherwise
// never — a body dripping a piece just inside it is never ended by it. The total fires at
// total when the response is not whole before it. Both set, the earlier ends the attempt; a
// tie goes to the timer, as the engine's ties between an answer and its timeout do (expire),
// and between the two timers to the total.
func attemptEnd(head time.Duration, b pace, read, total time.Duration) (time.Duration, ending) {
	at, how := noHead, endNever
	if read > 0 {
		switch {
		case head >= read:
			at, how = read, endReadTimeout
		case b.pieces > 0 && b.every >= read:
			at, how = head+read, endReadTimeout
		}
	}
	whole := noHead
	if head != noHead {
		whole = head + b.length()
	}
	if total > 0 && whole >= total && total <= at {
		at, how = total, endTimeout
	}
	if how == endNever && head != noHead {
		return whole, endAnswered
	}
	return at, how
}
