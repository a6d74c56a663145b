package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/verdict"
)

// TestReplayInterruptedPolicyNotGraded: a policy the library marked interrupted (live
// replay stopped by Ctrl-C: Interrupted and a not_graded verdict) is printed as such in
// every format — the – mark and the library's sentence, never ✓ or ✗ — and the agreement
// table does not set its partial figures beside the simulation's (issue 24 item 9).
func TestReplayInterruptedPolicyNotGraded(t *testing.T) {
	res := replayFixture(t)
	res.Mode, res.Interrupted = "live", true
	cut := &res.Policies[len(res.Policies)-1]
	name := cut.Name
	const text = "interrupted at 45 s of 2 min of arrivals: not graded (the figures cover what ran before the stop)"
	cut.Interrupted = true
	cut.Verdict = verdict.Verdict{Level: verdict.NotGraded, Reasons: []verdict.Reason{{Code: "interrupted", Level: verdict.NotGraded, Text: text}}}
	for _, format := range ReplayFormats.Names() {
		render, err := ReplayFormats.Get(format)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := render(&b, res, replayOptions(false, 200)); err != nil {
			t.Fatal(err)
		}
		out := strings.Join(strings.Fields(b.String()), " ") // names padded to a column
		var want []string
		switch format {
		case "text":
			want = []string{"– " + name + " " + text}
		case "markdown":
			want = []string{"- – **" + name + "**: " + text}
		case "html":
			want = []string{`lvl-not_graded`, "–", text}
		case "json":
			want = []string{`"interrupted": true`, `"level": "not_graded"`, text}
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", format, w, out)
			}
		}
		for _, bad := range []string{"✗ " + name, "✓ " + name, "✗ **" + name, "✓ **" + name} {
			if strings.Contains(out, bad) {
				t.Errorf("%s grades the interrupted policy (%q)", format, bad)
			}
		}
	}

	sim := replayFixture(t)
	a := live.NewAgreement(sim, res, 10, 0)
	for _, format := range AgreementFormats.Names() {
		render, _ := AgreementFormats.Get(format)
		var b bytes.Buffer
		if err := render(&b, a, replayOptions(false, 200)); err != nil {
			t.Fatal(err)
		}
		if format != "json" && !strings.Contains(b.String(), "/ interrupted") {
			t.Errorf("agreement %s sets the cut policy's figures beside the simulation's:\n%s", format, b.String())
		}
	}
}
