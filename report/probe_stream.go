package report

import (
	"github.com/patience-dev/patience/profile"
)

// The streams of a probe (issue 29 item 1; profile/stream.go): the first_event and gap rows
// of the phase table, a caption clause saying how they are timed, and one line of counts.
// A profile without streams renders as it did before streams were measured.

// probeStreamCaption is the phase caption's clause for the stream phases, "" without streams.
func probeStreamCaption(r *profile.Profile) string {
	if r.Streams == nil {
		return ""
	}
	return " · first_event = from intended send to the first event's end · gap = between two events"
}

// probeStreamItems are the streams line's items: how many, how they ended, the events per
// stream. Nil without streams.
func probeStreamItems(s *profile.Streams, fig figures) []string {
	if s == nil {
		return nil
	}
	items := []string{fig.plural(s.Count, "stream"), "completed " + fig.count(s.Completed), "cut " + fig.count(s.Cut)}
	if s.TimedOut > 0 {
		items = append(items, "timed out "+fig.count(s.TimedOut)+" (--max-timeout)")
	}
	if s.Streaming > 0 {
		items = append(items, "of them still streaming "+fig.count(s.Streaming)+" (answered, longer than --max-timeout)")
	}
	e := s.EventsPerStream
	count := func(label string, v *int64, need int64) string {
		if v == nil {
			if s.Count < need {
				return label + " n/a (n=" + fig.count(s.Count) + ")"
			}
			return label + " n/a"
		}
		return label + " " + fig.count(*v)
	}
	return append(items, "events/stream "+count("p50", e.P50, 2)+", "+count("p99", e.P99, 100)+", "+count("max", e.Max, 1))
}
