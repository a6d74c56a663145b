package check

import (
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/profile"
)

// TestBudgetRulesReadTheFirstEvent: PT003 and PT004 hold the caller's budget against what it
// waits for per attempt — for an interactive caller of a dependency whose profile streams,
// the first event (first_event_timeout, else read_timeout), not the stream's total; for a job,
// or a profile without streams, the total (profile.BudgetReadsFor, the rule probe and advise
// apply).
func TestBudgetRulesReadTheFirstEvent(t *testing.T) {
	streams := func(string) (*profile.Profile, error) { return streamProfile(t), nil }
	good := profile.NewHistogram()
	_ = good.RecordValues(1_000_000, 1000)
	plain := func(string) (*profile.Profile, error) {
		return profileWith(t, map[string]*hdrhistogram.Histogram{profile.SeriesGood: good}), nil
	}
	dep := func(caller, pol string) string {
		return "dependencies:\n  - name: llm\n    profile: llm.json\n    caller: " + caller + "\n    policy: " + pol + "\n"
	}
	const interactive = "{kind: interactive, budget: 5m}"
	cases := []struct {
		name, caller, policy string
		load                 func(string) (*profile.Profile, error)
		want                 map[string]string // rule → a phrase its finding must hold; absent: must not fire
		line                 map[string]int
	}{
		{name: "stream, first event fits", caller: interactive, load: streams,
			policy: "{timeout: 10m, first_event_timeout: 2m, read_timeout: 30s, retry: {max_attempts: 2}}"},
		{name: "stream, retries of the first event exceed the budget", caller: interactive, load: streams,
			policy: "{timeout: 10m, first_event_timeout: 2m, read_timeout: 30s, retry: {max_attempts: 3}}",
			want:   map[string]string{"PT004": "for the stream's first event (policy.first_event_timeout"}},
		{name: "stream, read timeout bounds the first event", caller: interactive, load: streams,
			policy: "{timeout: 10m, read_timeout: 6m}",
			want:   map[string]string{"PT003": "one attempt may wait 6 min for the stream's first event (policy.read_timeout"}, line: map[string]int{"PT003": 5}},
		{name: "no streams: the total", caller: interactive, load: plain,
			policy: "{timeout: 10m, first_event_timeout: 2m, read_timeout: 30s}",
			want:   map[string]string{"PT003": "one attempt may wait 10 min but the caller gives up"}},
		{name: "a job consumes the stream: the total", caller: "{kind: job, timeout: 5m}", load: streams,
			policy: "{timeout: 10m, first_event_timeout: 2m, read_timeout: 30s}",
			want:   map[string]string{"PT003": "one attempt may wait 10 min but the job is stopped"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := runYAML(t, dep(c.caller, c.policy), Options{LoadProfile: c.load})
			got := map[string]Finding{}
			for _, f := range res.Findings {
				if f.Rule == "PT003" || f.Rule == "PT004" {
					got[f.Rule] = f
				}
			}
			for _, rule := range []string{"PT003", "PT004"} {
				f, fired := got[rule]
				phrase, want := c.want[rule]
				if fired != want {
					t.Errorf("%s fired %v, want %v: %+v", rule, fired, want, f)
					continue
				}
				if want && !strings.Contains(f.Message, phrase) {
					t.Errorf("%s: %q lacks %q", rule, f.Message, phrase)
				}
				if l := c.line[rule]; want && l != 0 && f.Line != l {
					t.Errorf("%s at line %d, want %d", rule, f.Line, l)
				}
			}
		})
	}
}
