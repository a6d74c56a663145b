package probe

import (
	"errors"
	"fmt"
)

// Merger combines saved profiles one at a time (Merge is a Merger fed a list): it keeps the
// merged histograms and counters, never the profiles added, so a merge of many large files
// holds one of them at a time, not all (issue 24 item 4: 40 × 15 MB profiles took 804 MB).
type Merger struct {
	p         AdviceParams
	m         *measurement
	meta      Result
	requested float64
	allOpen   bool
	held      bool
	n         int
	// requests and responses are the running totals checked against 2^53 before each add.
	requests, responses int64
}

// NewMerger returns an empty merger; p is what Result grades the merged figures with.
func NewMerger(p AdviceParams) *Merger {
	return &Merger{
		p:       p,
		m:       &measurement{hists: histSet{}, status: map[string]int64{}, errors: map[string]int64{}, samples: map[string]ErrorSample{}},
		allOpen: true,
		held:    true,
	}
}

// Len is the number of profiles added.
func (g *Merger) Len() int { return g.n }

// Add merges r into the figures so far and keeps no reference to it. A profile refused (an
// error naming it by its 1-based position) leaves the merger as it was.
func (g *Merger) Add(r *Result) error {
	i := g.n + 1
	if err := checkMergeTotal(i, r, g.requests, g.responses); err != nil {
		return err
	}
	if len(r.Histograms) == 0 {
		return fmt.Errorf("profile %d has no per-phase histograms (save it with patience probe --save)", i)
	}
	set := histSet{}
	for _, name := range series {
		enc, ok := r.Histograms[name]
		if !ok {
			continue
		}
		h, err := DecodeHistogram(enc)
		if err != nil {
			return fmt.Errorf("profile %d: histograms.%s: %v", i, name, err)
		}
		set[name] = h
	}
	g.n = i
	g.requests += r.Requests
	g.responses += r.Responses
	m, meta := g.m, &g.meta
	if i == 1 {
		meta.Target, meta.Model, meta.Conn = r.Target, r.Model, r.Conn
	}
	m.hists.merge(set)
	for k, v := range r.Status {
		m.status[k] += v
	}
	for k, v := range r.Errors {
		m.errors[k] += v
	}
	for k, v := range r.ErrorSamples {
		if _, ok := m.samples[k]; !ok {
			m.samples[k] = v
		}
	}
	// A request unanswered by the longest bound was unanswered by every shorter one.
	m.maxTimeout = max(m.maxTimeout, msDuration(r.MaxTimeoutMs))
	m.requests += r.Requests
	m.responses += r.Responses
	m.cut += r.InterruptedInFlight
	m.durationMs = max(m.durationMs, r.DurationMs)
	s := r.Schedule
	if s.RequestedPerS == nil {
		g.allOpen = false
	} else {
		g.requested += *s.RequestedPerS
	}
	g.held = g.held && s.RateHeld
	m.schedule.AchievedPerS += s.AchievedPerS
	m.schedule.Late += s.Late
	m.schedule.LateAfterMs = s.LateAfterMs
	m.schedule.WaitedForSlot += s.WaitedForSlot
	m.schedule.Dropped += s.Dropped
	m.schedule.Resent += s.Resent
	m.schedule.MaxInFlight += s.MaxInFlight
	m.schedule.PeakInFlight += s.PeakInFlight
	meta.Interrupted = meta.Interrupted || r.Interrupted
	meta.Concurrency += r.Concurrency
	if r.Target.URL != meta.Target.URL || r.Target.Method != meta.Target.Method {
		meta.Target = Target{URL: "(several targets)", Method: meta.Target.Method}
	}
	if r.Model != meta.Model {
		meta.Model = "mixed"
	}
	if r.Conn != meta.Conn {
		meta.Conn = "mixed"
	}
	return nil
}

// Result grades the profiles added so far. It copies what it reads, so more profiles may be
// added after it.
func (g *Merger) Result() (*Result, error) {
	if g.n == 0 {
		return nil, errors.New("nothing to merge")
	}
	m := *g.m
	m.hists = histSet{}
	m.hists.merge(g.m.hists)
	m.status = copyCounts(g.m.status)
	m.errors = copyCounts(g.m.errors)
	m.samples = make(map[string]ErrorSample, len(g.m.samples))
	for k, v := range g.m.samples {
		m.samples[k] = v
	}
	if g.allOpen {
		m.schedule.RequestedPerS = ptr(g.requested)
	}
	if m.maxTimeout <= 0 {
		m.maxTimeout = g.p.MaxTimeout
	}
	m.schedule.RateHeld = g.held
	meta := g.meta
	meta.Merged = g.n
	return build(&m, meta, g.p)
}

func copyCounts(in map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}
