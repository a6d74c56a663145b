package profile

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// set builds a histSet with the given total-latency samples (ms) on reused connections.
func set(samples ...float64) histSet {
	hs := histSet{}
	for _, name := range series {
		hs[name] = NewHistogram()
	}
	for _, v := range samples {
		RecordClamped(hs[SeriesTotalReused], int64(v*1000))
		RecordClamped(hs[SeriesGood], int64(v*1000))
	}
	return hs
}

func TestSummaryHidesUnbackedPercentiles(t *testing.T) {
	samples := make([]float64, 150)
	for i := range samples {
		samples[i] = float64(i + 1)
	}
	s := summarize(set(samples...)[SeriesTotalReused])
	if s.Count != 150 || s.P99Ms == nil || s.P999Ms != nil {
		t.Fatalf("n=150: want p99 shown and p99.9 null, got count %d p99 %v p999 %v", s.Count, s.P99Ms, s.P999Ms)
	}
	// HDR reports the top of a value's bucket: at 3 significant digits at most 0.1% above.
	near := func(got, want float64) bool { return got >= want && got <= want*1.001 }
	if !near(*s.P50Ms, 75) || !near(*s.MinMs, 1) || !near(*s.MaxMs, 150) {
		t.Errorf("p50 %g min %g max %g, want 75, 1, 150 (+0.1%%)", *s.P50Ms, *s.MinMs, *s.MaxMs)
	}
}

func TestShareAboveAndDistribution(t *testing.T) {
	// 90 samples at 10 ms, 10 at 100 ms.
	var samples []float64
	for range 90 {
		samples = append(samples, 10)
	}
	for range 10 {
		samples = append(samples, 100)
	}
	h := set(samples...)[SeriesGood]
	if got := shareAbove(populated(h), h.TotalCount(), 50); got != 0.1 {
		t.Errorf("shareAbove(50 ms) = %g, want 0.1", got)
	}
	if got := shareAbove(populated(h), h.TotalCount(), 100); got != 0 {
		t.Errorf("shareAbove(100 ms) = %g, want 0", got)
	}
	bars := distribution(h)
	var total int64
	for _, b := range bars {
		total += b.Count
	}
	if total != 100 || len(bars) > 12 || bars[0].FromMs > 10 || bars[len(bars)-1].ToMs < 100 {
		t.Errorf("bars %+v: want ≤ 12 bars covering 10–100 ms holding 100 samples", bars)
	}
}

func TestSaveLoadMerge(t *testing.T) {
	// Run A: 1000 samples at 10 ms; run B: 1000 at 30 ms. The merged p50 must come from the
	// merged histogram (10 or 30 ms, an actual sample), never the average 20 ms.
	mk := func(v float64, rate float64) *Profile {
		samples := make([]float64, 1000)
		for i := range samples {
			samples[i] = v
		}
		m := &measurement{hists: set(samples...), status: map[string]int64{"200": 1000}, errors: map[string]int64{"timeout": 1},
			requests: 1001, responses: 1000, durationMs: 10000, schedule: Schedule{RequestedPerS: ptr(rate), AchievedPerS: rate, RateHeld: true, MaxInFlight: 1000}}
		r, err := build(m, Profile{Target: Target{URL: "http://127.0.0.1/", Method: "GET"}, Model: "open", Conn: "reuse"}, RecommendParams{})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	if err := Save(a, mk(10, 100)); err != nil {
		t.Fatal(err)
	}
	if err := Save(b, mk(30, 50)); err != nil {
		t.Fatal(err)
	}
	ra, err := Load(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ra.TotalHistogram()
	if err != nil || h.TotalCount() != 1000 {
		t.Fatalf("TotalHistogram: %v, count %d", err, h.TotalCount())
	}
	m, err := Merge([]*Profile{ra, rb}, RecommendParams{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Merged != 2 || m.Requests != 2002 || m.Responses != 2000 || m.Status["200"] != 2000 || m.Errors["timeout"] != 2 {
		t.Errorf("merged counters: %d runs, %d requests, %d responses, status %v, errors %v", m.Merged, m.Requests, m.Responses, m.Status, m.Errors)
	}
	if *m.Schedule.RequestedPerS != 150 || m.Schedule.AchievedPerS != 150 {
		t.Errorf("merged rates %g/%g, want 150/150", *m.Schedule.RequestedPerS, m.Schedule.AchievedPerS)
	}
	tot := m.Phases.Total
	if tot.Count != 2000 || *tot.P50Ms < 9.99 || *tot.P50Ms > 10.01 || *tot.P90Ms < 29.9 || *tot.P90Ms > 30.1 {
		t.Errorf("merged total: count %d p50 %v p90 %v; want 2000, 10, 30 (never averaged)", tot.Count, *tot.P50Ms, *tot.P90Ms)
	}
	// p99.9 of good = 30 ms → 36 ms → 40 ms.
	if m.Recommendation.TimeoutMs != 40 {
		t.Errorf("merged recommendation %g ms, want 40 (30 ms × 1.2 rounded up)", m.Recommendation.TimeoutMs)
	}
	// Merging a profile with itself doubles counts and keeps the quantiles.
	self, err := Merge([]*Profile{ra, ra}, RecommendParams{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ra.Phases.Total.P99Ms, self.Phases.Total.P99Ms); diff != "" || self.Phases.Total.Count != 2000 {
		t.Errorf("self-merge changed p99 (%s) or count %d", diff, self.Phases.Total.Count)
	}
}

func TestParseProfileErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"{\n  \"schema\": \"patience/probe/v1\",\n  \"requests\": \"many\"\n}", "p.json:3:"},
		{"{\n  \"schema\": \"patience/probe/v1\",\n  oops\n}", "p.json:3:3"},
		{`{"schema": "patience/replay/v1"}`, `field schema: want "patience/probe/v1"`},
		{`{"schema": "patience/probe/v1"}`, "field histogram: missing"},
		{`{"schema": "patience/probe/v1", "histogram": "!!"}`, "field histogram: histogram is not base64"},
		{`{"schema": "patience/probe/v1", "histogram": "AAAA"}`, "field histogram: histogram does not decode"},
	} {
		_, err := Parse("p.json", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseProfile(%q) = %v, want an error containing %q", tc.doc, err, tc.want)
		}
	}
}

// FuzzParseProfile: a profile is user input; no document may panic the loader.
func FuzzParseProfile(f *testing.F) {
	f.Add([]byte(`{"schema": "patience/probe/v1", "histogram": "HISTFAAAACN4nJNpmSzMwMDAxgABzFCaEUTr2H+AsNXXALgBLoAASACqAcwJPQ=="}`))
	f.Add(streamingDoc(f)) // phases.first_event and gap, streams, the stream series
	f.Add([]byte(`{"schema":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Parse("f.json", b)
		if err == nil {
			if _, err := r.TotalHistogram(); err != nil {
				t.Fatalf("accepted profile has a bad histogram: %v", err)
			}
		}
	})
}

var _ = time.Second
