package profile

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseProfileRejectsBadCounters: counters a probe cannot have written are refused
// naming the file and the field (they were taken as written: a negative status count
// lowered the error rate, responses past requests made a success rate above 100%).
func TestParseProfileRejectsBadCounters(t *testing.T) {
	m := &measurement{hists: set(10, 20, 30), status: map[string]int64{"200": 3}, errors: map[string]int64{"timeout": 0}, requests: 3, responses: 3, durationMs: 1000}
	good, err := build(m, Profile{Target: Target{URL: "http://127.0.0.1/", Method: "GET"}, Model: "closed", Conn: "reuse"}, RecommendParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func(r *Profile)
		want   string
	}{
		{"negative status count", func(r *Profile) { r.Status["500"] = -5 }, "p.json: field status.500: -5: a count cannot be negative"},
		{"negative error count", func(r *Profile) { r.Errors["timeout"] = -1 }, "p.json: field errors.timeout: -1"},
		{"negative requests", func(r *Profile) { r.Requests = -3 }, "p.json: field requests: -3"},
		{"past 2^53", func(r *Profile) { r.Requests = 1 << 60 }, "p.json: field requests: 1152921504606846976: more than 2^53"},
		{"responses past requests", func(r *Profile) { r.Responses = 4 }, "p.json: field responses: 4, more than the 3 requests sent"},
		{"histogram past responses", func(r *Profile) { r.Requests, r.Responses = 2, 2 }, "p.json: field histograms.good: 3 good responses, more than the 2 responses"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r Profile
			b, _ := json.Marshal(good)
			json.Unmarshal(b, &r)
			c.change(&r)
			b, _ = json.Marshal(&r)
			_, err := Parse("p.json", b)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	b, _ := json.Marshal(good)
	if _, err := Parse("p.json", b); err != nil {
		t.Errorf("the unchanged profile: %v", err)
	}
}

// TestMergeTotalsBounded: merged counters past 2^53 are refused naming the profile.
func TestMergeTotalsBounded(t *testing.T) {
	big := &Profile{Requests: 1 << 52, Responses: 1 << 52, Histograms: map[string]string{"x": ""}}
	_, err := Merge([]*Profile{big, big, big}, RecommendParams{})
	if err == nil || !strings.Contains(err.Error(), "profile 3: field requests: the merged total passes 2^53") {
		t.Errorf("err = %v", err)
	}
}
