package live

import (
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/verdict"
)

// CodeInterrupted is the one clause of the verdict of a policy whose live replay was
// stopped (Ctrl-C) before it finished.
const CodeInterrupted = "interrupted"

// markInterrupted replaces the verdict of p, a policy whose replay was stopped at scenario
// time at (of arrivals lasting duration), with "not graded": requests in flight at the stop
// read as hanging, and goodput after it as a collapse, but the user stopped the run, the
// dependency did not (issue 24 item 9: it was graded ✗ "requests still hanging … does not
// recover"). Its figures stay: they are what ran before the stop.
func markInterrupted(p *replay.PolicyResult, at, duration time.Duration) {
	p.Interrupted = true
	text := "interrupted at " + units.Duration(at.Round(100*time.Millisecond)) + " of " + units.Duration(duration) +
		" of arrivals: not graded (the figures cover what ran before the stop)"
	p.Verdict = verdict.Verdict{Level: verdict.NotGraded, Reasons: []verdict.Reason{{Code: CodeInterrupted, Level: verdict.NotGraded, Text: text}}}
}
