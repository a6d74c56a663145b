package profile

import (
	"fmt"
	"sort"
)

// Issue 24 item 4: a profile's counters were taken as written. A negative count, responses
// outnumbering requests, more good responses in the histogram than responses, or totals past
// 2^53 (where float64 rates stop being exact and merged sums head for int64 overflow) is no
// profile a probe saved: refused naming the file and the field.

// checkCounters refuses counters a probe cannot have written.
func checkCounters(name string, r *Profile) error {
	bad := func(field string, format string, args ...any) error {
		return fmt.Errorf("%s: field %s: %s", name, field, fmt.Sprintf(format, args...))
	}
	counts := []struct {
		field string
		n     int64
	}{
		{"requests", r.Requests}, {"responses", r.Responses}, {"interrupted_in_flight", r.InterruptedInFlight},
		{"schedule.late", r.Schedule.Late}, {"schedule.waited_for_slot", r.Schedule.WaitedForSlot},
		{"schedule.dropped", r.Schedule.Dropped}, {"schedule.resent", r.Schedule.Resent},
		{"schedule.peak_in_flight", r.Schedule.PeakInFlight},
	}
	if st := r.Streams; st != nil {
		counts = append(counts, []struct {
			field string
			n     int64
		}{{"streams.count", st.Count}, {"streams.completed", st.Completed}, {"streams.cut", st.Cut}, {"streams.timed_out", st.TimedOut}, {"streams.streaming_at_max_timeout", st.Streaming}}...)
		if m := st.EventsPerStream.Max; m != nil {
			counts = append(counts, struct {
				field string
				n     int64
			}{"streams.events_per_stream.max", *m})
		}
	}
	for _, m := range []struct {
		field string
		m     map[string]int64
	}{{"status", r.Status}, {"errors", r.Errors}} {
		keys := make([]string, 0, len(m.m))
		for k := range m.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			counts = append(counts, struct {
				field string
				n     int64
			}{m.field + "." + k, m.m[k]})
		}
	}
	for _, c := range counts {
		if c.n < 0 {
			return bad(c.field, "%d: a count cannot be negative", c.n)
		}
		if c.n > maxProfileCount {
			return bad(c.field, "%d: more than 2^53", c.n)
		}
	}
	if st := r.Streams; st != nil && st.Completed+st.Cut+st.TimedOut != st.Count {
		return bad("streams.count", "%d, not completed + cut + timed_out (%d + %d + %d)", st.Count, st.Completed, st.Cut, st.TimedOut)
	}
	if st := r.Streams; st != nil && st.Streaming > st.TimedOut {
		return bad("streams.streaming_at_max_timeout", "%d, more than the %d streams timed_out (it counts those of them that had sent an event)", st.Streaming, st.TimedOut)
	}
	if r.Responses > r.Requests {
		return bad("responses", "%d, more than the %d requests sent", r.Responses, r.Requests)
	}
	if enc, ok := r.Histograms[SeriesGood]; ok {
		h, err := DecodeHistogram(enc)
		if err != nil {
			return bad("histograms."+SeriesGood, "%v", err)
		}
		if n := h.TotalCount(); n > r.Responses {
			return bad("histograms."+SeriesGood, "%d good responses, more than the %d responses", n, r.Responses)
		}
	}
	return nil
}

// checkMergeTotals refuses a merge whose summed counters pass 2^53; profiles are named
// "profile i" as Merge's other errors name them.
func checkMergeTotals(profiles []*Profile) error {
	var requests, responses int64
	for i, r := range profiles {
		if err := checkMergeTotal(i+1, r, requests, responses); err != nil {
			return err
		}
		requests += r.Requests
		responses += r.Responses
	}
	return nil
}

// checkMergeTotal refuses profile i (1-based) when its counts are negative or would take the
// totals so far (requests, responses) past 2^53.
func checkMergeTotal(i int, r *Profile, requests, responses int64) error {
	if r.Requests < 0 || r.Responses < 0 {
		return fmt.Errorf("profile %d: a negative count of requests or responses", i)
	}
	if r.Requests > maxProfileCount-requests || r.Responses > maxProfileCount-responses {
		return fmt.Errorf("profile %d: field requests: the merged total passes 2^53", i)
	}
	return nil
}
