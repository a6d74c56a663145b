package check

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/profile"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // the whole error: FILE:LINE:COL: FIELD: MSG
	}{
		{"empty", "", "p.yaml: empty file: want a mapping with dependencies:"},
		{"syntax", "dependencies: [\n", "p.yaml:1:1: did not find expected node content"},
		{"unknown top-level field", "dependency:\n  - name: a\n", "p.yaml:1:1: dependency: unknown field (want one of max_amplification, dependencies, scenarios, rules)"},
		{"nothing to check", "max_amplification: 5\n", "p.yaml:1:1: dependencies: nothing to check: list at least one dependency (or a scenario)"},
		{"unknown dependency field", "dependencies:\n  - name: a\n    timeout: 2s\n", "p.yaml:3:5: dependencies[0].timeout: unknown field (want one of name, caller, request, profile, cutoff, layers, via, policy)"},
		{"missing name", "dependencies:\n  - policy: {timeout: 1s}\n", "p.yaml:2:5: dependencies[0].name: missing: every dependency needs a name"},
		{"missing policy", "dependencies:\n  - name: a\n", "p.yaml:2:5: dependencies[0].policy: missing: what timeout and retry policy guards a? (policy: {timeout: 2s, ...} or policy: preset:recommended)"},
		{"bad caller kind", "dependencies:\n  - name: a\n    caller: {kind: cron}\n    policy: {timeout: 1s}\n", "p.yaml:3:20: dependencies[0].caller.kind: want interactive or job, got \"cron\""},
		{"job field on interactive", "dependencies:\n  - name: a\n    caller: {kind: interactive, retry_after: 1s}\n    policy: {timeout: 1s}\n", "p.yaml:3:33: dependencies[0].caller.retry_after: not a field of an interactive caller (want one of kind, budget, rate)"},
		{"duration without unit", "dependencies:\n  - name: a\n    caller: {kind: job, timeout: 20}\n    policy: {timeout: 1s}\n", "p.yaml:3:34: dependencies[0].caller.timeout: \"20\" has no unit (write e.g. 20s or 20ms)"},
		{"bare rate", "dependencies:\n  - name: a\n    caller: {kind: job, rate: 50}\n    policy: {timeout: 1s}\n", "p.yaml:3:31: dependencies[0].caller.rate: \"50\" has no unit (write 50/s or 50/m)"},
		{"policy field", "dependencies:\n  - name: a\n    policy: {timeout: 1s, retry: {jitter: lots}}\n", "p.yaml:3:"},
		{"unknown rule", "rules: {disable: [PT999]}\ndependencies:\n  - name: a\n    policy: {timeout: 1s}\n", "p.yaml:1:19: rules.disable[0]: unknown rule \"PT999\" (rules are PT001–PT017 and PT100)"},
		{"bad level", "rules: {levels: {PT006: fatal}}\ndependencies:\n  - name: a\n    policy: {timeout: 1s}\n", "p.yaml:1:25: rules.levels.PT006: unknown level \"fatal\": want one of error, warning"},
		{"duplicate key", "dependencies:\n  - name: a\n    name: b\n    policy: {timeout: 1s}\n", "p.yaml:3:5: dependencies[0].name: set twice (first at line 2)"},
		{"duplicate dependency", "dependencies:\n  - name: a\n    policy: {timeout: 1s}\n  - name: a\n    policy: {timeout: 1s}\n", "p.yaml:4:5: dependencies[1].name: dependency \"a\" is declared twice (first at line 2)"},
		{"max_amplification", "max_amplification: 0\ndependencies:\n  - name: a\n    policy: {timeout: 1s}\n", "p.yaml:1:20: max_amplification: want a number ≥ 1, got \"0\""},
		{"layer attempts", "dependencies:\n  - name: a\n    layers: [{name: g, max_attempts: 0}]\n    policy: {timeout: 1s}\n", "p.yaml:3:38: dependencies[0].layers[0].max_attempts: want a whole number from 1 to 1000 or unlimited, got \"0\""},
		{"cutoff as a fraction", "dependencies:\n  - name: a\n    cutoff: 0.001\n    policy: {timeout: 1s}\n", "p.yaml:3:13: dependencies[0].cutoff: \"0.001\" is ambiguous: write a percentage such as 0.1%"},
		// The helpers below are scenario.NodeDecoder's: a check file reports these in the
		// scenario loader's words and at the same node.
		{"misspelt field", "dependencies:\n  - name: a\n    polcy: {timeout: 1s}\n", "p.yaml:3:5: dependencies[0].polcy: unknown field (did you mean policy? want one of name, caller, request, profile, cutoff, layers, via, policy)"},
		{"merge key", "base: &b {name: a}\ndependencies:\n  - <<: *b\n    policy: {timeout: 1s}\n", "p.yaml:1:1: base: unknown field"},
		{"merge key in a dependency", "dependencies:\n  - &b {name: a, policy: {timeout: 1s}}\n  - <<: *b\n", "p.yaml:3:5: dependencies[1]: merge keys (<<) are not supported; write the fields out or use base:"},
		{"dependencies not a list", "dependencies: {name: a}\n", "p.yaml:1:15: dependencies: want a list, got a mapping"},
		{"dependency not a mapping", "dependencies: [a]\n", "p.yaml:1:16: dependencies[0]: want a mapping with keys name, caller, request, profile, cutoff, layers, via, policy, got \"a\""},
		{"empty scenario name", "scenarios: ['  ']\n", "p.yaml:1:13: scenarios[0]: must not be empty"},
		{"null method", "dependencies:\n  - name: a\n    request: {method: ~}\n    policy: {timeout: 1s}\n", "p.yaml:3:23: dependencies[0].request.method: want a string, got nothing"},
		{"idempotency_key not a bool", "dependencies:\n  - name: a\n    request: {idempotency_key: yes}\n    policy: {timeout: 1s}\n", "p.yaml:3:32: dependencies[0].request.idempotency_key: want true or false, got \"yes\""},
		{"zero budget", "dependencies:\n  - name: a\n    caller: {kind: interactive, budget: 0s}\n    policy: {timeout: 1s}\n", "p.yaml:3:41: dependencies[0].caller.budget: must be above 0"},
		{"budget not a scalar", "dependencies:\n  - name: a\n    caller: {kind: interactive, budget: [1s]}\n    policy: {timeout: 1s}\n", "p.yaml:3:41: dependencies[0].caller.budget: want a duration such as 2s, got a list"},
		{"cutoff of everything", "dependencies:\n  - name: a\n    cutoff: 100%\n    policy: {timeout: 1s}\n", "p.yaml:3:13: dependencies[0].cutoff: want a share between 0% and 100%, got \"100%\""},
		// An alias reads as what it points at, so the error is at the anchored node.
		{"aliased dependency", "dependencies:\n  - &d {name: a, policy: {timeout: 1s}}\n  - *d\n", "p.yaml:2:5: dependencies[1].name: dependency \"a\" is declared twice (first at line 2)"},
		{"two documents", "dependencies: []\n---\nfoo: 1\n", "p.yaml:2:1: more than one YAML document; a check file holds one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("p.yaml", []byte(tt.text))
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Fatalf("want *scenario.Error, got %T %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", err, tt.want)
			}
		})
	}
}

func TestLoadFields(t *testing.T) {
	text := `max_amplification: 20
rules: {disable: [PT012], levels: {PT006: error}}
dependencies:
  - name: shipping
    caller: {kind: job, timeout: 20s, retry_after: 90s, rate: 2400/m}
    request: {method: POST, idempotency_key: true}
    profile: profiles/shipping.json
    cutoff: 1%
    layers: [{name: gateway, max_attempts: 3}, {max_attempts: unlimited}]
    policy: {timeout: 2s}
scenarios: [scenarios/checkout.yaml]
`
	f, err := Load(filepath.Join("ci", "patience.yaml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	d := f.Dependencies[0]
	if f.MaxAmplification != 20 || !f.Disabled["PT012"] || f.Levels["PT006"] != SeverityError {
		t.Errorf("file settings: %+v", f)
	}
	wantCaller := Caller{Kind: "job", Timeout: 20 * time.Second, RetryAfter: 90 * time.Second, Rate: 40,
		Queue: policy.Retry{Backoff: policy.BackoffNone, Jitter: policy.JitterNone, RetryAfter: policy.RetryAfterIgnore}}
	if diff := cmp.Diff(wantCaller, d.Caller); diff != "" {
		t.Errorf("caller (-want +got):\n%s", diff)
	}
	if d.Request != (scenario.Request{Method: "POST", IdempotencyKey: true}) || d.Cutoff != 0.01 {
		t.Errorf("request %+v cutoff %v", d.Request, d.Cutoff)
	}
	if d.Profile != filepath.Join("ci", "profiles", "shipping.json") || f.Scenarios[0].Path != filepath.Join("ci", "scenarios", "checkout.yaml") {
		t.Errorf("paths are not relative to the file: %q %q", d.Profile, f.Scenarios[0].Path)
	}
	if len(d.Layers) != 2 || d.Layers[0].Policy.Retry.MaxAttempts != 3 || d.Layers[1].Policy.Retry.MaxAttempts != policy.Unlimited || d.Layers[1].Name != "layer 2" {
		t.Errorf("layers %+v", d.Layers)
	}
	if d.Policy.Timeout != 2*time.Second || d.Policy.Name != "shipping" {
		t.Errorf("policy %+v", d.Policy)
	}
}

func TestParseIgnores(t *testing.T) {
	got := parseIgnores([]byte("a: 1 # patience:ignore PT006, PT013\n# patience:ignore PT001\nb: 2\nc: 3 # nothing\n"))
	if !got[1]["PT006"] || !got[1]["PT013"] || !got[3]["PT001"] || got[2]["PT001"] || len(got) != 2 {
		t.Errorf("ignores %v", got)
	}
}

// TestStarterPassesCheck loads what --init writes and checks it: the starter must be valid
// and free of errors, for a GET and for a keyless POST.
func TestStarterPassesCheck(t *testing.T) {
	for _, o := range []StarterOptions{{}, {Method: "post", Budget: 3 * time.Second, Name: "payments"}, {Method: "POST", IdempotencyKey: true, Budget: 10 * time.Second}} {
		data, err := Starter(o)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Load("patience.yaml", data)
		if err != nil {
			t.Fatalf("starter does not load: %v\n%s", err, data)
		}
		res, err := Run(context.Background(), []*File{f}, Options{FailOn: SeverityWarning})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) != 0 {
			t.Errorf("starter %+v has findings %+v\n%s", o, res.Findings, data)
		}
		if o.Budget == 3*time.Second && !strings.Contains(string(data), "max_attempts: 1 ") {
			t.Errorf("2s timeout in a 3s budget leaves room for 1 attempt:\n%s", data)
		}
	}
}

// FuzzLoad feeds arbitrary bytes to the loader: it must return a file or a positioned
// *scenario.Error, never panic.
func FuzzLoad(f *testing.F) {
	f.Add([]byte("dependencies:" + goodDependency))
	f.Add([]byte("max_amplification: 10\nrules: {disable: [PT006], levels: {PT001: warning}}\ndependencies:\n  - name: a\n    caller: {kind: job, timeout: 20s, retry_after: 90s}\n    layers: [{name: g, max_attempts: 3}]\n    policy: preset:naive\nscenarios: [x.yaml]\n"))
	f.Add([]byte("dependencies:\n  - &a {name: a, policy: {timeout: 1s}}\n  - *a\n"))
	f.Add([]byte("[1, 2"))
	f.Add([]byte("dependencies:\n  - name: a\n    caller: {kind: interactive, budget: 2s}\n    via: [{source: app/a.go, line: 3}, {file: vs.yaml, host: a}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Load("f.yaml", data)
		if err != nil {
			var se *scenario.Error
			if !errors.As(err, &se) {
				t.Fatalf("error is %T, not *scenario.Error: %v", err, err)
			}
			return
		}
		if len(file.Dependencies) == 0 && len(file.Scenarios) == 0 {
			t.Fatal("loaded a file with nothing to check")
		}
		for _, d := range file.Dependencies {
			if d.Policy == nil || d.Name == "" {
				t.Fatalf("dependency without policy or name: %+v", d)
			}
		}
		// Every rule must cope with whatever the loader accepts.
		file.Scenarios = nil
		res, err := Run(context.Background(), []*File{file}, Options{
			LoadProfile: func(string) (*profile.Profile, error) { return &profile.Profile{Schema: profile.Schema}, nil },
		})
		if err != nil {
			// A via: naming a config or a call site not read is an input error at its entry.
			var se *scenario.Error
			if !errors.As(err, &se) || se.Line < 1 || !strings.Contains(se.Field, "via") {
				t.Fatalf("Run: %v", err)
			}
			return
		}
		for _, fd := range res.Findings {
			if fd.Message == "" || fd.Line < 1 {
				t.Fatalf("finding without message or line: %+v", fd)
			}
		}
	})
}
