package profile

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBuilderPartsAddUp: a measurement fed as several parts grades exactly as the same
// figures fed as one, Close may be called again with the same result, and the head's
// description (source, connection mode, schedule) is kept as given.
func TestBuilderPartsAddUp(t *testing.T) {
	head := Profile{
		Target: Target{URL: "http://127.0.0.1/", Method: "GET"}, Model: "log", Conn: "unknown", DurationMs: 1000,
		Schedule: Schedule{RateHeld: true, AchievedPerS: 300}, Source: &Source{Format: "nginx", Files: []string{"a.log"}},
	}
	p := RecommendParams{MaxTimeout: 2 * time.Second}
	var fast, slow []float64
	for i := range 200 {
		fast = append(fast, 10+float64(i%9))
		slow = append(slow, 40+float64(i%13))
	}
	one := NewBuilder(head, p)
	one.Add(Part{
		Series: set(append(append([]float64{}, fast...), slow...)...), Status: map[string]int64{"200": 400, "503": 2},
		Errors: map[string]int64{"timeout": 1}, ErrorSamples: map[string]ErrorSample{"timeout": {Message: "first"}},
		Requests: 403, Responses: 402,
	})
	two := NewBuilder(head, p)
	for _, part := range []Part{
		{Series: set(fast...), Status: map[string]int64{"200": 200}, Errors: map[string]int64{"timeout": 1},
			ErrorSamples: map[string]ErrorSample{"timeout": {Message: "first"}}, Requests: 201, Responses: 200},
		{Series: set(slow...), Status: map[string]int64{"200": 200, "503": 2},
			ErrorSamples: map[string]ErrorSample{"timeout": {Message: "second: the first is kept"}}, Requests: 202, Responses: 202},
	} {
		two.Add(part)
	}
	want := mustClose(t, one)
	for _, b := range []*Builder{two, two} { // twice: Close keeps nothing it returned
		if diff := cmp.Diff(mustJSON(t, want), mustJSON(t, mustClose(t, b))); diff != "" {
			t.Errorf("two parts grade unlike one (-one +two):\n%s", diff)
		}
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"conn", want.Conn, "unknown"},
		{"source", want.Source.Format, "nginx"},
		{"achieved", want.Schedule.AchievedPerS, 300.0},
		{"max timeout", want.MaxTimeoutMs, 2000.0},
		{"requests", want.Requests, int64(403)},
		{"sample", want.ErrorSamples["timeout"].Message, "first"},
		{"merged", want.Merged, 0},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func mustClose(t *testing.T, b *Builder) *Profile {
	t.Helper()
	r, err := b.Close()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustJSON(t *testing.T, r *Profile) string {
	t.Helper()
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSilenceSeriesRoundTrip: the silence series make the silence phase (fresh and reused
// apart), the read timeout, a blended "silence" histogram for readers and the silence.good
// series Evidence reads back from a saved profile; a merge adds them up. A profile saved
// before the phase existed merges too, adding nothing to it.
func TestSilenceSeriesRoundTrip(t *testing.T) {
	part := func(n int, silence float64) Part {
		hs := set()
		for i := range n {
			v := int64((20 + float64(i%10)) * 1000)
			RecordClamped(hs[SeriesTotalFresh], v)
			RecordClamped(hs[SeriesGood], v)
			s := int64((silence + float64(i%5)) * 1000)
			RecordClamped(hs[SeriesSilenceFresh], s)
			RecordClamped(hs[SeriesSilenceGood], s)
		}
		return Part{Series: hs, Status: map[string]int64{"200": int64(n)}, Requests: int64(n), Responses: int64(n)}
	}
	b := NewBuilder(Profile{Target: Target{URL: "http://a/", Method: "GET"}, Model: "open", Conn: "fresh"}, RecommendParams{})
	b.Add(part(100, 5))
	r := mustClose(t, b)
	if s := r.Phases.Silence; s == nil || s.Count != 100 || s.Fresh.Count != 100 || s.Reused.Count != 0 {
		t.Fatalf("silence phase %+v: want 100, all fresh", s)
	}
	for _, k := range []string{SeriesSilenceFresh, SeriesSilenceReused, SeriesSilenceGood, "silence"} {
		if _, ok := r.Histograms[k]; !ok {
			t.Errorf("histograms.%s missing", k)
		}
	}
	// 9 ms (the slowest of 100) × 1.2 = 10.8 → 12 ms, below the 30 ms total (29 × 1.2 = 34.8 → 40).
	if rec := r.Recommendation; rec.ReadTimeoutMs == nil || *rec.ReadTimeoutMs != 12 || rec.TimeoutMs != 40 {
		t.Errorf("read %v total %g, want 12 and 40\n%s", rec.ReadTimeoutMs, rec.TimeoutMs, strings.Join(rec.Derivation, "\n"))
	}
	ev, err := r.Evidence()
	if err != nil || ev.Silence.Count() != 100 {
		t.Fatalf("evidence silence %v (%v), want 100", ev.Silence, err)
	}
	old := mustClose(t, func() *Builder {
		b := NewBuilder(Profile{Target: Target{URL: "http://a/", Method: "GET"}, Model: "open", Conn: "fresh"}, RecommendParams{})
		p := part(50, 5)
		for _, k := range []string{SeriesSilenceFresh, SeriesSilenceReused, SeriesSilenceGood} {
			delete(p.Series, k)
		}
		b.Add(p)
		return b
	}())
	for _, k := range []string{SeriesSilenceFresh, SeriesSilenceReused, SeriesSilenceGood, "silence"} {
		delete(old.Histograms, k) // as a profile saved before issue 27 has none
	}
	m, err := Merge([]*Profile{r, r, old}, RecommendParams{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Phases.Silence.Count != 200 || m.Phases.Total.Count != 250 {
		t.Errorf("merged silence %d total %d, want 200 and 250", m.Phases.Silence.Count, m.Phases.Total.Count)
	}
}
