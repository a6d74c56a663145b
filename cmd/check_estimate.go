package cmd

import (
	"time"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/report"
)

// announceReplays says up front how long check's replays should take — "about 25 s (2
// scenarios, 7 policies)", sim's estimate at this machine's speed — when above
// announceLongerThan. check asks for it only where it draws its bar (a terminal, without
// --quiet, a format for people): in a CI log the line would only be noise.
func announceReplays(s *report.IOStreams, est check.ReplayEstimate) {
	announceEstimate(s, est.Estimate, units.Count(est.Scenarios)+" "+plural(est.Scenarios, "scenario", "scenarios")+", "+
		units.Count(est.Policies)+" "+plural(est.Policies, "policy", "policies"))
}

// checkEstimate is check's Options.Estimate and EstimateOver: the announcement, asked for
// only where the bar is drawn (a terminal, without --quiet, a format for people), before it.
func checkEstimate(s *report.IOStreams, format string) (func(check.ReplayEstimate), time.Duration) {
	if !s.ShowProgress(format) {
		return nil, 0
	}
	return func(e check.ReplayEstimate) { announceReplays(s, e) }, announceLongerThan
}
