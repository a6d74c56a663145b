package profile

import "time"

// measurement and build are the figures and the grading of a profile as the tests written
// before the Builder spell them: build feeds m to a Builder described by meta.
type measurement struct {
	hists      histSet
	status     map[string]int64
	errors     map[string]int64
	samples    map[string]ErrorSample
	maxTimeout time.Duration
	requests   int64
	responses  int64
	cut        int64
	durationMs float64
	schedule   Schedule
}

func build(m *measurement, meta Profile, p RecommendParams) (*Profile, error) {
	meta.DurationMs, meta.Schedule = m.durationMs, m.schedule
	if m.maxTimeout > 0 {
		p.MaxTimeout = m.maxTimeout
	}
	b := NewBuilder(meta, p)
	b.Add(Part{
		Series: m.hists, Status: m.status, Errors: m.errors, ErrorSamples: m.samples,
		Requests: m.requests, Responses: m.responses, InterruptedInFlight: m.cut,
	})
	return b.Close()
}
