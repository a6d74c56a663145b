package check

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/profile"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// goodDependency passes every rule: bounded attempts that fit the budget through a deadline,
// jittered exponential backoff, a key on the POST, Retry-After capped, a budget for volume.
const goodDependency = `
  - name: shipping
    caller: {kind: interactive, budget: 3s, rate: 50/s}
    request: {method: POST, idempotency_key: true}
    policy:
      connect_timeout: 500ms
      timeout: 1s
      deadline: 3s
      retry:
        max_attempts: 3
        on: [connect, timeout, reset, 408, 409, 429, 5xx]
        non_idempotent: with_key
        backoff: exponential
        base: 100ms
        jitter: full
        retry_after: honor
        retry_after_max: 2s
      budget: {kind: token_bucket}
`

// runYAML loads a check file from text and runs it with fakes for profiles and replays.
func runYAML(t *testing.T, text string, opts Options) *Result {
	t.Helper()
	f, err := Load("patience.yaml", []byte(text))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if opts.LoadProfile == nil {
		opts.LoadProfile = func(string) (*profile.Profile, error) { return nil, errors.New("no profile in this test") }
	}
	if opts.Replay == nil {
		opts.Replay = func(context.Context, string) (*Replay, error) { return nil, errors.New("no replay in this test") }
	}
	res, err := Run(context.Background(), []*File{f}, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func ruleIDs(res *Result) []string {
	var ids []string
	for _, f := range res.Findings {
		ids = append(ids, f.Rule)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func TestGoodPolicyHasNoFindings(t *testing.T) {
	res := runYAML(t, "dependencies:"+goodDependency, Options{})
	if len(res.Findings) != 0 {
		t.Fatalf("want no findings on the good policy, got %+v", res.Findings)
	}
	if !res.Passed {
		t.Fatal("want passed")
	}
	if got := len(res.Checked[0].Rules); got != 17 {
		t.Errorf("checked %d rules on the dependency, want 17 (PT001–PT017)", got)
	}
}

func TestRules(t *testing.T) {
	tests := []struct {
		name string
		dep  string // a dependency entry
		want []string
	}{
		{"no timeout", `
  - name: a
    policy: {retry: {max_attempts: 1}}`, []string{"PT001"}},
		{"timeout none", `
  - name: a
    policy: {timeout: none}`, []string{"PT001"}},
		{"preset none", `
  - name: a
    policy: preset:none`, []string{"PT001"}},
		{"connect timeout equals timeout", `
  - name: a
    policy: {connect_timeout: 2s, timeout: 2s}`, []string{"PT002"}},
		{"read timeout equals timeout", `
  - name: a
    policy: {read_timeout: 2s, timeout: 2s}`, []string{"PT015"}},
		{"read timeout above timeout", `
  - name: a
    policy: {read_timeout: 5s, timeout: 2s}`, []string{"PT015"}},
		{"read timeout below timeout", `
  - name: a
    policy: {connect_timeout: 500ms, read_timeout: 1s, timeout: 2s}`, nil},
		{"read timeout without a total drips forever", `
  - name: a
    policy: {read_timeout: 1s}`, []string{"PT001"}},
		{"read timeout with a deadline only", `
  - name: a
    policy: {read_timeout: 1s, deadline: 5s}`, []string{"PT001"}},
		{"timeout above interactive budget", `
  - name: a
    caller: {kind: interactive, budget: 1s}
    policy: {timeout: 2s}`, []string{"PT003"}},
		{"timeout above job timeout", `
  - name: a
    caller: {kind: job, timeout: 1s}
    policy: {timeout: 2s}`, []string{"PT003"}},
		{"deadline bounds a long timeout", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 5s, deadline: 3s}`, nil},
		{"deadline alone above budget", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: none, deadline: 5s}`, []string{"PT001", "PT003"}},
		{"absurd attempt count neither overflows nor allocates", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 5s, deadline: 3s, retry: {max_attempts: 4000000000, cap: 1s, retry_after: ignore, retry_after_max: 1s}}`, []string{"PT008", "PT009"}},
		{"many attempts past the budget", `
  - name: a
    caller: {kind: job, timeout: 10m}
    policy: {timeout: 1s, retry: {max_attempts: 1000000, cap: 1s, retry_after_max: 1s}}`, []string{"PT004", "PT009"}},
		{"attempts exceed budget", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 1s, retry: {max_attempts: 3, retry_after_max: 100ms}}`, []string{"PT004"}},
		{"Retry-After that does not fit ends the call: never PT004", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 500ms, retry: {max_attempts: 2, retry_after_max: 10s}}`, nil},
		{"interactive retry_after_max unset is PT008", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 1s, retry: {max_attempts: 2}}`, []string{"PT008"}},
		{"interactive retry_after_max unset, deadline within budget", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 1s, deadline: 3s, retry: {max_attempts: 2}}`, nil},
		{"job retry_after_max unset is fine", `
  - name: a
    caller: {kind: job, timeout: 20s}
    policy: {timeout: 5s, retry: {max_attempts: 2}}`, nil},
		{"deadline within budget stops in time", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 2s, deadline: 3s, retry: {max_attempts: 3}}`, nil},
		{"deadline past budget", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 2s, deadline: 5s, retry: {max_attempts: 3}}`, []string{"PT004", "PT008"}},
		{"unlimited attempts without deadline", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 1s, retry: {max_attempts: unlimited}}`, []string{"PT004", "PT008", "PT009"}},
		{"POST retried always without key", `
  - name: a
    request: {method: POST}
    policy: {timeout: 1s, retry: {max_attempts: 3, non_idempotent: always}}`, []string{"PT005"}},
		{"POST always with key is safe", `
  - name: a
    request: {method: POST, idempotency_key: true}
    policy: {timeout: 1s, retry: {max_attempts: 3, non_idempotent: always}}`, nil},
		{"POST with_key without key does not retry unknown outcomes", `
  - name: a
    request: {method: POST}
    policy: {timeout: 1s, retry: {max_attempts: 3, non_idempotent: with_key}}`, nil},
		{"POST always but only connect failures retried", `
  - name: a
    request: {method: POST}
    policy: {timeout: 1s, retry: {max_attempts: 3, non_idempotent: always, on: [connect, 429]}}`, nil},
		{"no jitter", `
  - name: a
    policy: {timeout: 1s, retry: {max_attempts: 3, jitter: none}}`, []string{"PT006"}},
		{"decorrelated needs no jitter", `
  - name: a
    policy: {timeout: 1s, retry: {max_attempts: 3, backoff: decorrelated, jitter: none}}`, nil},
		{"retry 4xx", `
  - name: a
    policy: {timeout: 1s, retry: {max_attempts: 2, on: [4xx]}}`, []string{"PT007"}},
		{"retry 400", `
  - name: a
    policy: {timeout: 1s, retry: {max_attempts: 2, on: [timeout, "400"]}}`, []string{"PT007"}},
		{"retry 408 409 429 is fine", `
  - name: a
    policy: {timeout: 1s, retry: {max_attempts: 2, on: [408, 409, 429]}}`, nil},
		{"Retry-After ignored", `
  - name: a
    policy: {timeout: 1s, retry: {max_attempts: 2, retry_after: ignore}}`, []string{"PT008"}},
		{"Retry-After uncapped", `
  - name: a
    policy: {timeout: 1s, retry: {max_attempts: 2, retry_after: honor, retry_after_max: none}}`, []string{"PT008"}},
		{"layers multiply", `
  - name: a
    layers: [{name: frontend, max_attempts: 4}, {name: api, max_attempts: 4}]
    policy: {timeout: 1s, retry: {max_attempts: 4}}`, []string{"PT009"}},
		{"policy layers multiply", `
  - name: a
    policy:
      timeout: 1s
      retry: {max_attempts: 4}
      layers: [{name: frontend, policy: {retry: {max_attempts: 4}}}]`, []string{"PT009"}},
		{"job timeout at retry_after", `
  - name: a
    caller: {kind: job, timeout: 90s, retry_after: 90s}
    policy: {timeout: 1s}`, []string{"PT011"}},
		{"high volume without budget or breaker", `
  - name: a
    caller: {kind: interactive, budget: 3s, rate: 20/s}
    policy: {timeout: 1s}`, []string{"PT012"}},
		{"low volume needs no budget", `
  - name: a
    caller: {kind: interactive, budget: 3s, rate: 5/s}
    policy: {timeout: 1s}`, nil},
		{"breaker is enough", `
  - name: a
    caller: {kind: interactive, budget: 3s, rate: 20/s}
    policy: {timeout: 1s, breaker: {failure_rate: 50%}}`, nil},
		{"immediate retries", `
  - name: a
    policy: {timeout: 1s, retry: {max_attempts: 3, backoff: none}}`, []string{"PT013"}},
		{"zero delays", `
  - name: a
    policy: {timeout: 1s, retry: {max_attempts: 3, backoff: list, delays: [0s, 0s]}}`, []string{"PT013"}},
		{"policy-level key makes always safe", `
  - name: a
    request: {method: POST}
    policy: {timeout: 1s, idempotency_key: true, retry: {max_attempts: 3, non_idempotent: always}}`, nil},
		{"naive preset", `
  - name: a
    caller: {kind: interactive, budget: 3s}
    request: {method: POST}
    policy: preset:naive`, []string{"PT001", "PT005", "PT006", "PT007", "PT008", "PT013"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runYAML(t, "dependencies:"+tt.dep, Options{})
			if diff := cmp.Diff(tt.want, ruleIDs(res)); diff != "" {
				t.Errorf("rules (-want +got):\n%s\nfindings: %+v", diff, res.Findings)
			}
		})
	}
}

// TestFindingPointsAtTheValue checks that findings carry the line of the value that set them.
func TestFindingPointsAtTheValue(t *testing.T) {
	text := `dependencies:
  - name: a
    request: {method: POST}
    policy:
      timeout: 1s
      retry:
        max_attempts: 3
        non_idempotent: always
        jitter: none
`
	res := runYAML(t, text, Options{})
	lines := map[string]int{}
	for _, f := range res.Findings {
		lines[f.Rule] = f.Line
		if f.File != "patience.yaml" || f.Col == 0 {
			t.Errorf("%s: position %s:%d:%d", f.Rule, f.File, f.Line, f.Col)
		}
	}
	want := map[string]int{"PT005": 8, "PT006": 9}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestPT004ShowsTheSum(t *testing.T) {
	res := runYAML(t, `dependencies:
  - name: a
    caller: {kind: interactive, budget: 3s}
    policy: {timeout: 1s, retry: {max_attempts: 3, base: 100ms, retry_after: ignore}}
    # patience:ignore PT008
`, Options{})
	var msg string
	for _, f := range res.Findings {
		if f.Rule == "PT004" {
			msg = f.Message
		}
	}
	// 3 × 1s + d(1)=100ms + d(2)=200ms (full jitter's upper bound) = 3.3s > 3s, in the
	// reports' unit style (internal/units).
	if !strings.Contains(msg, "3 × 1 s + 100 ms + 200 ms = 3.3 s") || !strings.Contains(msg, "budget (3 s)") {
		t.Errorf("PT004 message %q does not show the sum", msg)
	}
}

func TestConfigDisablesLevelsAndIgnores(t *testing.T) {
	text := `rules:
  disable: [PT013]
  levels: {PT006: error}
dependencies:
  - name: a
    policy:
      timeout: 1s
      retry:
        max_attempts: 3
        jitter: none
  - name: b
    policy:
      timeout: 1s
      retry:
        max_attempts: 3
        # patience:ignore PT006
        jitter: none
  - name: c
    policy:
      timeout: 1s
      retry: {max_attempts: 3, backoff: none, retry_after: ignore}  # patience:ignore PT008
`
	res := runYAML(t, text, Options{})
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Dependency+" "+f.Rule+" "+string(f.Level))
	}
	want := []string{"a PT006 error"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if res.Summary.Suppressed != 2 {
		t.Errorf("suppressed = %d, want 2", res.Summary.Suppressed)
	}
	if res.Passed {
		t.Error("PT006 raised to error must fail the gate")
	}
	for _, r := range res.Rules {
		if r.ID == "PT013" {
			t.Error("a disabled rule is listed among the rules that ran")
		}
		if r.ID == "PT006" && r.Level != SeverityError {
			t.Errorf("PT006 runs at %s, want the file's error", r.Level)
		}
	}
}

func TestFailOnWarning(t *testing.T) {
	text := "dependencies:\n  - name: a\n    policy: {timeout: 1s, retry: {max_attempts: 3, jitter: none}}\n"
	if res := runYAML(t, text, Options{}); !res.Passed {
		t.Error("a warning must not fail --fail-on error")
	}
	if res := runYAML(t, text, Options{FailOn: SeverityWarning}); res.Passed {
		t.Error("a warning must fail --fail-on warning")
	}
}

func TestPT010FromProfile(t *testing.T) {
	// 10,000 good responses: 9,900 at 100ms, 100 at 800ms (1%).
	h := hdrhistogram.New(1, 60_000_000, 3)
	_ = h.RecordValues(100_000, 9900)
	_ = h.RecordValues(800_000, 100)
	load := func(path string) (*profile.Profile, error) {
		if path != "profiles/a.json" {
			t.Errorf("profile path %q, want it relative to the file", path)
		}
		return profileWith(t, map[string]*hdrhistogram.Histogram{profile.SeriesGood: h}), nil
	}
	dep := func(timeout string) string {
		return "dependencies:\n  - name: a\n    profile: profiles/a.json\n    policy: {timeout: " + timeout + "}\n"
	}
	res := runYAML(t, dep("500ms"), Options{LoadProfile: load})
	if diff := cmp.Diff([]string{"PT010"}, ruleIDs(res)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if msg := res.Findings[0].Message; !strings.Contains(msg, "cuts off 1% of good") || !strings.Contains(msg, "p99.9 = 800") {
		t.Errorf("PT010 message %q lacks the share and the tail", msg)
	}
	if res := runYAML(t, dep("1s"), Options{LoadProfile: load}); len(res.Findings) != 0 {
		t.Errorf("a timeout above the tail fired: %+v", res.Findings)
	}
}

func TestPT100(t *testing.T) {
	text := "scenarios: [outage.yaml]\n"
	replay := func(_ context.Context, path string) (*Replay, error) {
		if path != "outage.yaml" {
			t.Errorf("path %q", path)
		}
		return &Replay{
			Scenario: "outage", File: "outage.yaml",
			Expect: map[string]scenario.Expect{
				"ours": {SuccessRate: ">= 99%", Duplicates: "0", Pos: map[string]policy.Pos{"success_rate": {Line: 12, Col: 21}}},
				"*":    {Amplification: "<= 2"},
			},
			Policies: []ReplayedPolicy{
				{Name: "ours", SuccessRate: 0.95, Duplicates: 0, Amplification: 5},
				{Name: "naive", SuccessRate: 0.5, Amplification: 3},
			},
		}, nil
	}
	res := runYAML(t, text, Options{Replay: replay})
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Dependency+": "+f.Message)
	}
	// "*" applies to ours too: its amplification 5 breaks "<= 2" as well.
	want := []string{
		"outage/ours: scenario outage, policy ours: amplification 5, expected <= 2",
		"outage/naive: scenario outage, policy naive: amplification 3, expected <= 2",
		"outage/ours: scenario outage, policy ours: success rate 95%, expected >= 99%",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if res.Findings[2].Line != 12 || res.Findings[2].File != "outage.yaml" {
		t.Errorf("PT100 points at %s:%d, want outage.yaml:12", res.Findings[2].File, res.Findings[2].Line)
	}
	if res.Summary.Scenarios != 1 || len(res.Checked) != 2 {
		t.Errorf("summary %+v, checked %+v", res.Summary, res.Checked)
	}
}

func TestProfileErrorIsInputError(t *testing.T) {
	f, err := Load("patience.yaml", []byte("dependencies:\n  - name: a\n    profile: missing.json\n    policy: {timeout: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), []*File{f}, Options{})
	var se *scenario.Error
	if !errors.As(err, &se) || se.Line != 3 || !strings.Contains(se.Error(), "missing.json") {
		t.Fatalf("want a positioned *scenario.Error for the missing profile, got %v", err)
	}
}

func TestFormatting(t *testing.T) {
	durs := map[time.Duration]string{
		0: "0s", 250 * time.Millisecond: "250ms", 1100 * time.Millisecond: "1.1s", 20 * time.Second: "20s",
		90 * time.Second: "1m30s", 2 * time.Minute: "2m", 3 * time.Hour: "3h", 999999 * time.Second: "277h46m39s",
		1500 * time.Microsecond: "1.5ms",
	}
	for d, want := range durs {
		if got := yamlDur(d); got != want {
			t.Errorf("yamlDur(%v) = %q, want %q", d, got, want)
		}
	}
	pcts := map[float64]string{0: "0%", 0.01: "1%", 0.0123: "1.23%", 0.001: "0.1%", 0.25: "25%", 0.99: "99%", 0.000123: "0.0123%"}
	for v, want := range pcts {
		if got := fmtPct(v); got != want {
			t.Errorf("fmtPct(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestRunInterruptedKeepsWhatFinished: a run cancelled during its replays (Ctrl-C) returns
// the findings of every dependency, of the scenario that finished and of the policies of the
// interrupted one that finished, names what was not replayed, does not pass, and returns the
// context's error with it.
func TestRunInterruptedKeepsWhatFinished(t *testing.T) {
	f, err := Load("patience.yaml", []byte("dependencies:\n  - name: search\n    policy: {timeout: none}\nscenarios: [one.yaml, two.yaml, three.yaml]\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	failing := scenario.Expect{Amplification: "<= 0.5"}
	replay := func(ctx context.Context, path string) (*Replay, error) {
		rep := &Replay{Scenario: strings.TrimSuffix(path, ".yaml"), File: path, Expect: map[string]scenario.Expect{"*": failing}}
		switch path {
		case "one.yaml":
			rep.Policies = []ReplayedPolicy{{Name: "a", SuccessRate: 1, Amplification: 1}}
			return rep, nil
		case "two.yaml": // Ctrl-C after its first policy
			rep.Policies = []ReplayedPolicy{{Name: "a", SuccessRate: 1, Amplification: 1}}
			cancel()
			return rep, ctx.Err()
		}
		t.Errorf("%s replayed after the interruption", path)
		return rep, nil
	}
	res, err := Run(ctx, []*File{f}, Options{Replay: replay})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("Run: %v, %v; want the result and context.Canceled", res, err)
	}
	got := []string{}
	for _, fd := range res.Findings {
		got = append(got, fd.Rule+" "+fd.Dependency)
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{"PT001 search", "PT100 one/a", "PT100 two/a"}, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	want := []NotReplayed{
		{File: "patience.yaml", Line: 4, Col: 23, Scenario: "two.yaml", Replayed: []string{"a"}},
		{File: "patience.yaml", Line: 4, Col: 33, Scenario: "three.yaml"},
	}
	if diff := cmp.Diff(want, res.NotReplayed); diff != "" {
		t.Errorf("not replayed (-want +got):\n%s", diff)
	}
	if !res.Interrupted || res.Passed || !res.Finished() || res.Summary.Scenarios != 1 {
		t.Errorf("interrupted %v, passed %v, finished %v, scenarios %d; want true, false, true, 1", res.Interrupted, res.Passed, res.Finished(), res.Summary.Scenarios)
	}
	skipped := map[string]string{}
	for _, c := range res.Checked {
		for id, why := range c.Skipped {
			skipped[c.Dependency+" "+id] = why
		}
	}
	if skipped["two.yaml PT100"] != "interrupted: only a replayed" || skipped["three.yaml PT100"] != "interrupted before it was replayed" {
		t.Errorf("skipped test cases: %v", skipped)
	}
}

// profileWith is a profile holding the given series' histograms, as `probe --save` encodes them.
func profileWith(t *testing.T, series map[string]*hdrhistogram.Histogram) *profile.Profile {
	t.Helper()
	p := &profile.Profile{Schema: profile.Schema, Histograms: map[string]string{}}
	for name, h := range series {
		enc, err := profile.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		p.Histograms[name] = enc
	}
	return p
}

// TestPT016FromProfile: a read timeout below the tail of the longest silences fires at its
// line; above it, nothing; a profile without silences skips the rule, saying why.
func TestPT016FromProfile(t *testing.T) {
	// 10,000 good responses: 9,900 whose longest silence was 100ms, 100 at 800ms (1%).
	sil := hdrhistogram.New(1, 60_000_000, 3)
	_ = sil.RecordValues(100_000, 9900)
	_ = sil.RecordValues(800_000, 100)
	good := hdrhistogram.New(1, 60_000_000, 3)
	_ = good.RecordValues(900_000, 10000)
	with := func(string) (*profile.Profile, error) {
		return profileWith(t, map[string]*hdrhistogram.Histogram{profile.SeriesGood: good, profile.SeriesSilenceGood: sil}), nil
	}
	without := func(string) (*profile.Profile, error) {
		return profileWith(t, map[string]*hdrhistogram.Histogram{profile.SeriesGood: good}), nil
	}
	dep := func(read string) string {
		return "dependencies:\n  - name: a\n    profile: a.json\n    policy: {timeout: 2s,\n      read_timeout: " + read + "}\n"
	}
	res := runYAML(t, dep("500ms"), Options{LoadProfile: with})
	if diff := cmp.Diff([]string{"PT016"}, ruleIDs(res)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	f := res.Findings[0]
	if f.Line != 5 || !strings.Contains(f.Message, "read_timeout 500 ms cuts off 1% of good a responses by their longest silence") || !strings.Contains(f.Message, "p99.9 = 800") {
		t.Errorf("PT016 at line %d: %q", f.Line, f.Message)
	}
	if res := runYAML(t, dep("1s"), Options{LoadProfile: with}); len(res.Findings) != 0 {
		t.Errorf("a read timeout above the silences fired: %+v", res.Findings)
	}
	res = runYAML(t, dep("500ms"), Options{LoadProfile: without})
	if len(res.Findings) != 0 {
		t.Errorf("a profile without silences fired: %+v", res.Findings)
	}
	if why := res.Checked[0].Skipped["PT016"]; !strings.Contains(why, "the profile measured no silence") {
		t.Errorf("PT016 skipped with %q", why)
	}
}
