package profile

import (
	"errors"
	"fmt"
	"time"
)

// Merger combines saved profiles one at a time (Merge is a Merger fed a list): a Builder fed
// each profile's histograms and counters, never keeping the profiles added, so a merge of
// many large files holds one of them at a time, not all (issue 24 item 4: 40 × 15 MB
// profiles took 804 MB).
type Merger struct {
	b          *Builder
	maxTimeout time.Duration
	requested  float64
	allOpen    bool
	held       bool
	n          int
	// requests and responses are the running totals checked against 2^53 before each add.
	requests, responses int64
}

// NewMerger returns an empty merger; p is what Profile grades the merged figures with.
func NewMerger(p RecommendParams) *Merger {
	return &Merger{b: NewBuilder(Profile{}, p), allOpen: true, held: true}
}

// Len is the number of profiles added.
func (g *Merger) Len() int { return g.n }

// Add merges r into the figures so far and keeps no reference to it. A profile refused (an
// error naming it by its 1-based position) leaves the merger as it was.
func (g *Merger) Add(r *Profile) error {
	i := g.n + 1
	if err := checkMergeTotal(i, r, g.requests, g.responses); err != nil {
		return err
	}
	set, err := decodeSeries(i, r)
	if err != nil {
		return err
	}
	g.n = i
	g.requests += r.Requests
	g.responses += r.Responses
	g.b.Add(Part{
		Series: set, Status: r.Status, Errors: r.Errors, ErrorSamples: r.ErrorSamples,
		Requests: r.Requests, Responses: r.Responses, InterruptedInFlight: r.InterruptedInFlight,
		Streams: r.streamCounts(),
	})
	// A request unanswered by the longest bound was unanswered by every shorter one.
	g.maxTimeout = max(g.maxTimeout, msDuration(r.MaxTimeoutMs))
	g.addSchedule(r.Schedule)
	g.addHead(i, r)
	return nil
}

// decodeSeries decodes the split series of profile i (1-based).
func decodeSeries(i int, r *Profile) (histSet, error) {
	if len(r.Histograms) == 0 {
		return nil, fmt.Errorf("profile %d has no per-phase histograms (save it with patience probe --save)", i)
	}
	set := histSet{}
	for _, name := range SeriesNames() {
		enc, ok := r.Histograms[name]
		if !ok {
			continue
		}
		h, err := DecodeHistogram(enc)
		if err != nil {
			return nil, fmt.Errorf("profile %d: histograms.%s: %v", i, name, err)
		}
		set[name] = h
	}
	return set, nil
}

// streamCounts are r's stream counts (zero when it saw no stream).
func (r *Profile) streamCounts() StreamCounts {
	if r.Streams == nil {
		return StreamCounts{}
	}
	c := r.Streams.StreamCounts
	if m := r.Streams.EventsPerStream.Max; m != nil {
		c.MaxEvents = *m
	}
	return c
}

// addSchedule adds the schedule of one profile: rates and counts add up, the runs being
// taken to be concurrent.
func (g *Merger) addSchedule(s Schedule) {
	m := &g.b.head.Schedule
	if s.RequestedPerS == nil {
		g.allOpen = false
	} else {
		g.requested += *s.RequestedPerS
	}
	g.held = g.held && s.RateHeld
	m.AchievedPerS += s.AchievedPerS
	m.Late += s.Late
	m.LateAfterMs = s.LateAfterMs
	m.WaitedForSlot += s.WaitedForSlot
	m.Dropped += s.Dropped
	m.Resent += s.Resent
	m.MaxInFlight += s.MaxInFlight
	m.PeakInFlight += s.PeakInFlight
}

// addHead merges the description of profile i: the first one's target, model and
// connection mode, "(several targets)" and "mixed" when they differ.
func (g *Merger) addHead(i int, r *Profile) {
	meta := &g.b.head
	if i == 1 {
		meta.Target, meta.Model, meta.Conn = r.Target, r.Model, r.Conn
	}
	meta.DurationMs = max(meta.DurationMs, r.DurationMs)
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
}

// Profile grades the profiles added so far. More profiles may be added after it.
func (g *Merger) Result() (*Profile, error) {
	if g.n == 0 {
		return nil, errors.New("nothing to merge")
	}
	head := &g.b.head
	head.Schedule.RequestedPerS = nil
	if g.allOpen {
		head.Schedule.RequestedPerS = ptr(g.requested)
	}
	head.Schedule.RateHeld = g.held
	head.Merged = g.n
	g.b.maxTimeout = g.maxTimeout
	if g.b.maxTimeout <= 0 {
		g.b.maxTimeout = g.b.p.MaxTimeout
	}
	return g.b.Close()
}
