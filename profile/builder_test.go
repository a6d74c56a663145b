package profile

import (
	"encoding/json"
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
