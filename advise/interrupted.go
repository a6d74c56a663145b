package advise

import (
	"fmt"
	"strings"
)

// stopPoint is where a run the user stopped (Ctrl-C, SIGTERM) ended: the file being read, the
// lines of it merged before the stop, how many named inputs after it were never opened, and
// the stop's error (returned when nothing was read).
type stopPoint struct {
	file   string
	lines  int64
	unread int
	err    error
}

// result is the interrupted run's report: the figures of every line read before the stop,
// with Interrupted set and a note saying where reading stopped, as probe reports the part of
// a run that finished. A stop before any sample returns the stop's error: nothing to report.
func (s *stopPoint) result(a *accum, o Options) (*Result, error) {
	// First: it limits every figure after it.
	a.notes = append([]string{s.note()}, a.notes...)
	res, err := a.result(o)
	if err != nil {
		return nil, s.err
	}
	res.Profile.Interrupted = true
	for _, g := range res.Groups {
		g.Result.Interrupted = true
	}
	return res, nil
}

// note says what the interrupted figures cover.
func (s *stopPoint) note() string {
	var b strings.Builder
	fmt.Fprintf(&b, "interrupted: reading stopped in %s", s.file)
	if s.lines > 0 {
		fmt.Fprintf(&b, " after %d lines", s.lines)
	}
	b.WriteString("; these figures cover only what was read before the stop")
	if s.unread > 0 {
		fmt.Fprintf(&b, " (%d more input(s) not read)", s.unread)
	}
	return b.String()
}
