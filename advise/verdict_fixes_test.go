package advise

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/verdict"
)

// TestMalformedMajorityFailsVerdict: a file where 9 lines of 10 are not HAProxy request lines
// (advise/testdata/haproxy-mostly-malformed-fixes.log) yielded a recommendation from its one
// line; the verdict now fails with malformed_input, carried in the JSON.
func TestMalformedMajorityFailsVerdict(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/haproxy-mostly-malformed-fixes.log"}, Format: FormatHAProxy})
	v := r.Recommendation.Verdict
	if v.Level != verdict.Bad || !v.Has(CodeMalformedInput) || v.Reasons[0].Code != CodeMalformedInput {
		t.Fatalf("verdict %+v: want bad, led by %s", v, CodeMalformedInput)
	}
	if !strings.Contains(v.Reason(CodeMalformedInput).Text, "9 of 10 lines could not be read (90%)") {
		t.Errorf("text %q", v.Reason(CodeMalformedInput).Text)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"code":"malformed_input","level":"bad"`) {
		t.Errorf("JSON does not carry the clause: %.300s", b)
	}
}

// TestJudgeMalformedThreshold: "most" is more than half of the lines read, or of the
// entries read when a JSON document has fewer lines than entries.
func TestJudgeMalformedThreshold(t *testing.T) {
	for _, c := range []struct {
		lines, malformed, requests int64
		want                       bool
	}{
		{10, 9, 1, true}, {10, 6, 4, true}, {10, 5, 5, false}, {17, 4, 13, false}, {1, 1, 0, true}, {3, 0, 3, false},
		// A minified HAR: one line (or none counted), 1 malformed entry of 10 read; 6 of 10.
		{0, 1, 9, false}, {1, 1, 9, false}, {1, 6, 4, true},
	} {
		a := newAccum()
		a.lines, a.malformed, a.all.requests = c.lines, c.malformed, c.requests
		var v profile.Verdict
		a.judgeMalformed(&v)
		if got := v.Has(CodeMalformedInput); got != c.want || (got && v.Level != verdict.Bad) {
			t.Errorf("%d malformed, %d lines, %d read: clause %v level %q, want %v", c.malformed, c.lines, c.requests, got, v.Level, c.want)
		}
	}
}

// TestBasisNullWhenNoTimeout: docs/design.md §3 — recommendation.basis_ms is null, never 0, when no
// timeout could be derived (here 2 of 5 requests got no answer); a derived one is a number.
func TestBasisNullWhenNoTimeout(t *testing.T) {
	none := run(t, Options{Files: []string{"testdata/alb-unanswered-fixes.log"}})
	good := "10.0.0.1 [01/May/2024:10:00:00 +0000] \"GET /v1/a HTTP/1.1\" 200 0.120\n"
	some := run(t, Options{Files: []string{write(t, "good.log", good)}, LogFormat: `$remote_addr [$time_local] "$request" $status $request_time`})
	if b := some.Recommendation.BasisMs; b < 119.9 || b > 120.1 { // the histogram bucket of 120 ms
		t.Fatalf("basis %v, want the one 120 ms answer", some.Recommendation.BasisMs)
	}
	for _, c := range []struct {
		r    *Result
		want string
	}{{none, `"basis_ms":null,`}, {some, `"basis_ms":null,`}} {
		b, err := json.Marshal(c.r)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), c.want); got != (c.r.Recommendation.BasisMs == 0) {
			t.Errorf("basis %v: JSON has %s = %v", c.r.Recommendation.BasisMs, c.want, got)
		}
		var back profile.Profile
		if err := json.Unmarshal(b, &back); err != nil || back.Recommendation.BasisMs != c.r.Recommendation.BasisMs {
			t.Errorf("read back: basis %v (%v), want %v", back.Recommendation.BasisMs, err, c.r.Recommendation.BasisMs)
		}
	}
	if none.Recommendation.BasisMs != 0 {
		t.Errorf("no timeout derived, basis %v", none.Recommendation.BasisMs)
	}
}
