package check

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/profile"
)

// The per-attempt wait the budget rules (PT003, PT004) hold against the caller's budget: the
// one definition probe and advise apply (profile.BudgetReadsFor, profile.PolicyWait;
// docs/design.md §7 "Streams"). A stream's caller waits for its first event, so for an
// interactive caller of a dependency whose profile measured streams the wait is the policy's
// bound on the first event — first_event_timeout, else read_timeout (which bounds the first
// silence), else timeout — not the stream's total, whose length is the content's. A job
// consumes the whole stream: its run holds the total.

// budgetWait is one attempt's wait as the caller's budget reads it.
type budgetWait struct {
	phase profile.BudgetPhase
	d     time.Duration
	// field is the policy field that sets d ("" when none does).
	field string
}

// firstEvent says whether the wait is the first event's.
func (w budgetWait) firstEvent() bool { return w.phase == profile.BudgetReadsFirstEvent }

// what names the wait in a finding: "" for the total, " for the stream's first event".
func (w budgetWait) what() string {
	if w.firstEvent() {
		return " for the stream's first event (policy." + w.field + "; a stream's caller waits for its first event)"
	}
	return ""
}

// callerWait is d's per-attempt wait for its caller's budget. An unreadable profile is the
// input error it is, as in every rule that reads one.
func callerWait(p *pass, d *Dependency) (budgetWait, error) {
	streams, err := profileStreams(p, d)
	if err != nil {
		return budgetWait{}, err
	}
	phase := profile.BudgetReadsFor(profile.CallerKind(d.Caller.Kind), streams)
	w, field := profile.PolicyWait(phase, d.Policy)
	return budgetWait{phase: phase, d: w, field: field}, nil
}

// profileStreams says whether d's profile (profile:, or --profile) measured streams: a first
// event in its first_event series, as PT017 reads it. False without a profile.
func profileStreams(p *pass, d *Dependency) (bool, error) {
	path := profilePath(p, d)
	if path == "" {
		return false, nil
	}
	res, err := p.opts.LoadProfile(path)
	if err == nil {
		var h *hdrhistogram.Histogram
		if h, err = streamDecode(res, profile.SeriesFirstEventFresh, profile.SeriesFirstEventReused); err == nil {
			return h.TotalCount() > 0, nil
		}
	}
	return false, profileError(p, d, err)
}
