package profile

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/units"
)

// streamRun is a synthetic streaming run: per stream its first event and its gaps (ms).
type streamRun struct {
	first    []float64
	gaps     [][]float64
	timedOut int64
}

// evidence is what a probe of the run would hand Recommend: each stream completed (totals =
// first event + gaps), its events counted.
func (s streamRun) evidence() Evidence {
	var first, gaps, totals Sample
	events := make([]int64, 0, len(s.first))
	for i, f := range s.first {
		first = append(first, f)
		t := f
		for _, g := range s.gaps[i] {
			gaps = append(gaps, g)
			t += g
		}
		totals = append(totals, t)
		events = append(events, int64(len(s.gaps[i])+1))
	}
	slices.Sort(first)
	slices.Sort(gaps)
	slices.Sort(totals)
	slices.Sort(events)
	n := int64(len(s.first))
	low := events[quantileRank(n, StreamLowShare)-1]
	return Evidence{
		Good: totals, Status: map[string]int64{"200": n}, NoAnswer: s.timedOut, MaxTimeout: 2 * time.Minute,
		Stream: &StreamEvidence{
			Counts:     StreamCounts{Count: n + s.timedOut, Completed: n, TimedOut: s.timedOut},
			FirstEvent: first, Gap: gaps, Total: totals,
			EventsLow: low, EventsMax: events[len(events)-1],
		},
	}
}

// simStreams draws n streams: first event 200 ms–2 s, events uniform in [minEv, maxEv], gaps
// Pareto-tailed from 20 ms (α 3), and a stall of stallMs replacing one gap in a share
// stallShare of the streams. Deterministic per seed.
func simStreams(seed uint64, n, minEv, maxEv int, stallShare, stallMs float64) streamRun {
	rng := rand.New(rand.NewPCG(seed, 29))
	var s streamRun
	for range n {
		s.first = append(s.first, 200+1800*rng.Float64())
		k := minEv + rng.IntN(maxEv-minEv+1) - 1
		g := make([]float64, k)
		for j := range g {
			g[j] = 20 / math.Pow(1-rng.Float64(), 1.0/3)
		}
		if k > 0 && rng.Float64() < stallShare {
			g[rng.IntN(k)] = stallMs
		}
		s.gaps = append(s.gaps, g)
	}
	return s
}

// cutShare is the share of streams with any gap above idle.
func (s streamRun) cutShare(idle float64) float64 {
	cut := 0
	for _, g := range s.gaps {
		if slices.Max(append([]float64{0}, g...)) > idle {
			cut++
		}
	}
	return float64(cut) / float64(len(s.gaps))
}

func TestStreamAdvice(t *testing.T) {
	cases := []struct {
		name                  string
		run                   streamRun
		first, idle, total    float64 // 0: want none (total: unbounded)
		idleAbove, idleBelow  float64
		level                 string
		derivation, unbounded string
	}{
		{name: "healthy", run: simStreams(1, 1500, 40, 40, 0, 0),
			first: 2500, idleAbove: 100, idleBelow: 2000, total: 1, level: "good", derivation: "per-gap quantile 1 − 0.1%/N̄, N̄ = 39 gaps per stream"},
		{name: "stall-prone: 2% of streams stall 20 s, more than the cut-off", run: simStreams(2, 1500, 40, 40, 0.02, 20_000),
			first: 2500, idleAbove: 20_000, idleBelow: 30_000, total: 1, level: "good", derivation: "stalls to end and retry rather than wait out"},
		{name: "rare stalls: below the cut-off, caught", run: simStreams(3, 3000, 40, 40, 0.0003, 20_000),
			first: 2500, idleAbove: 100, idleBelow: 20_000, total: 1, level: "good"},
		{name: "too few streams", run: simStreams(4, 200, 40, 40, 0, 0),
			first: 2500, idleAbove: 100, idleBelow: 2000, total: 1, level: "provisional", derivation: "needs ≥ 1,000 streams, have 200: the longest seen"},
		{name: "lengths follow the content", run: simStreams(5, 1500, 100, 600, 0, 0),
			first: 2500, idleAbove: 100, idleBelow: 3000, level: "good", unbounded: "so the length follows the content: " + StreamUnboundedAdvice},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := Recommend(c.run.evidence(), Caller{Budget: 10 * time.Minute}, RecommendOptions{})
			a := rec.StreamAdvice
			if a == nil || a.FirstEventTimeoutMs == nil || a.IdleTimeoutMs == nil {
				t.Fatalf("stream advice %+v, want first-event and idle timeouts\n%s", a, strings.Join(rec.Derivation, "\n"))
			}
			if *a.FirstEventTimeoutMs != c.first {
				t.Errorf("first event %g, want %g", *a.FirstEventTimeoutMs, c.first)
			}
			if idle := *a.IdleTimeoutMs; idle <= c.idleAbove || idle >= c.idleBelow {
				t.Errorf("idle %g, want in (%g, %g)", idle, c.idleAbove, c.idleBelow)
			}
			if (a.StreamTimeoutMs != nil) != (c.total != 0) {
				t.Errorf("stream total %v, want derived %v (%s)", a.StreamTimeoutMs, c.total != 0, a.StreamUnbounded)
			}
			if c.unbounded != "" && !strings.HasSuffix(a.StreamUnbounded, c.unbounded) {
				t.Errorf("unbounded reason %q, want ending %q", a.StreamUnbounded, c.unbounded)
			}
			if got := string(rec.Verdict.Level); got != c.level {
				t.Errorf("verdict level %q, want %q: %s", got, c.level, rec.Verdict.Text())
			}
			if !strings.Contains(rec.Verdict.Text(), "stream: first event "+msLabel(*a.FirstEventTimeoutMs)) {
				t.Errorf("verdict %q lacks the stream clause", rec.Verdict.Text())
			}
			if c.derivation != "" && !strings.Contains(strings.Join(rec.Derivation, "\n"), c.derivation) {
				t.Errorf("derivation lacks %q:\n%s", c.derivation, strings.Join(rec.Derivation, "\n"))
			}
		})
	}
}

// TestStreamIdlePerStream is the per-stream false-abort property: with the recommended idle
// timeout, the share of whole streams with any gap above it is at most the cut-off — in the
// streams it was derived from (the union bound holds exactly on the sample), and in fresh
// streams drawn from the same distributions, for several stream lengths.
func TestStreamIdlePerStream(t *testing.T) {
	for _, c := range []struct {
		seed         uint64
		minEv, maxEv int
	}{{11, 10, 10}, {12, 40, 40}, {13, 100, 600}, {14, 1, 200}} {
		train := simStreams(c.seed, 2000, c.minEv, c.maxEv, 0, 0)
		rec := Recommend(train.evidence(), Caller{Budget: 10 * time.Minute}, RecommendOptions{})
		a := rec.StreamAdvice
		if a == nil || a.IdleTimeoutMs == nil {
			t.Fatalf("seed %d: no idle timeout", c.seed)
		}
		basis := *a.IdleTimeoutMs / DefaultHeadroom // the ladder only rounds up: basis × 1.2 ≤ idle
		if got := train.cutShare(basis); got > DefaultCutoff {
			t.Errorf("seed %d, %d–%d events: %g of the training streams have a gap above the idle basis %g ms, want ≤ %g", c.seed, c.minEv, c.maxEv, got, basis, DefaultCutoff)
		}
		fresh := simStreams(c.seed+100, 20_000, c.minEv, c.maxEv, 0, 0)
		if got := fresh.cutShare(*a.IdleTimeoutMs); got > DefaultCutoff {
			t.Errorf("seed %d, %d–%d events: idle %g ms cuts %g of fresh streams, want ≤ %g", c.seed, c.minEv, c.maxEv, *a.IdleTimeoutMs, got, DefaultCutoff)
		}
		// The per-request quantile of the gaps, the naive choice, is far lower: it would cut
		// many whole streams.
		if naive := train.evidence().Stream.Gap.AtRank(quantileRank(train.evidence().Stream.Gap.Count(), 1-DefaultCutoff)); c.maxEv >= 40 && train.cutShare(naive) <= DefaultCutoff {
			t.Errorf("seed %d: the per-gap p99.9 %g ms cuts only %g of streams; the case does not tell the rules apart", c.seed, naive, train.cutShare(naive))
		}
	}
}

// TestStreamAdviceAbsent: without streams no stream advice, and the JSON has none of its
// fields; with one, they are there, the total null when unbounded.
func TestStreamAdviceAbsent(t *testing.T) {
	ev := simStreams(21, 1500, 40, 40, 0, 0).evidence()
	plain := ev
	plain.Stream = nil
	for _, c := range []struct {
		ev   Evidence
		want bool
	}{{plain, false}, {ev, true}} {
		rec := Recommend(c.ev, Caller{}, RecommendOptions{})
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{`"first_event_timeout_ms":`, `"idle_timeout_ms":`, `"stream_timeout_ms":`} {
			if got := strings.Contains(string(b), key); got != c.want {
				t.Errorf("stream %v: JSON has %s = %v", c.want, key, got)
			}
		}
		var back Recommendation
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if (back.StreamAdvice != nil) != c.want {
			t.Errorf("stream %v: read back %+v", c.want, back.StreamAdvice)
		}
	}
	timedOut := simStreams(22, 1500, 40, 40, 0, 0)
	timedOut.timedOut = 3
	rec := Recommend(timedOut.evidence(), Caller{}, RecommendOptions{})
	if rec.StreamAdvice == nil || rec.StreamTimeoutMs != nil || !strings.Contains(rec.StreamUnbounded, "still open at --max-timeout") {
		t.Errorf("timed-out streams: %+v, want the total unbounded", rec.StreamAdvice)
	}
	b, _ := json.Marshal(rec)
	if !strings.Contains(string(b), `"stream_timeout_ms":null`) {
		t.Errorf("unbounded total not null in JSON: %s", b)
	}
}

func msLabel(v float64) string { return units.Millis(v) }
