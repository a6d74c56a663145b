package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// minimal is the smallest valid scenario; bad cases append to it or replace a line.
// withPhases puts a phases line under minimal's target (line 6).
func withPhases(phases string) string {
	return strings.Replace(minimal, "  latency: {fixed: 10ms}\n", "  latency: {fixed: 10ms}\n"+phases, 1)
}

const minimal = `name: t
duration: 1m
load: {rate: 10/s}
target:
  latency: {fixed: 10ms}
policy: {timeout: 1s}
`

// TestParseErrors: every input problem is an *Error naming file:line:col and the field.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		line  int
		col   int
		field string
		msg   string
	}{
		{"unknown top field", minimal + "colour: red\n", 7, 1, "colour", "unknown field"},
		{"unknown nested field", strings.Replace(minimal, "{rate: 10/s}", "{rate: 10/s, clientz: 3}", 1), 3, 20, "load.clientz", "unknown field"},
		{"wrong type", strings.Replace(minimal, "{rate: 10/s}", "{rate: 10/s, clients: many}", 1), 3, 29, "load.clients", "want a whole number"},
		{"negative workers", strings.Replace(minimal, "{rate: 10/s}", "{rate: 10/s, workers: -1}", 1), 3, 29, "load.workers", "at least 0"},
		{"bare rate", strings.Replace(minimal, "10/s", "10", 1), 3, 14, "load.rate", "no unit"},
		{"negative duration", strings.Replace(minimal, "duration: 1m", "duration: -1m", 1), 2, 11, "duration", "negative"},
		{"duration without unit", strings.Replace(minimal, "duration: 1m", "duration: 60", 1), 2, 11, "duration", "no unit"},
		{"missing duration", strings.Replace(minimal, "duration: 1m\n", "", 1), 1, 1, "duration", "required"},
		{"missing policy", strings.Replace(minimal, "policy: {timeout: 1s}\n", "", 1), 1, 1, "policy", "required"},
		{"missing latency", strings.Replace(minimal, "latency: {fixed: 10ms}", "connect: {fixed: 1ms}", 1), 5, 3, "target.latency", "required"},
		{"rate and concurrency", strings.Replace(minimal, "{rate: 10/s}", "{rate: 10/s, concurrency: 5}", 1), 3, 20, "load.concurrency", "not both"},
		{"rate too high", strings.Replace(minimal, "10/s", "10000000/s", 1), 3, 14, "load.rate", "above the 1e+06/s"},
		{"too many clients", strings.Replace(minimal, "{rate: 10/s}", "{rate: 10/s, clients: 2000000}", 1), 3, 29, "load.clients", "above the 1000000"},
		{"duration too long", strings.Replace(minimal, "duration: 1m", "duration: 48h", 1), 2, 11, "duration", "longer than"},
		{"no load kind", strings.Replace(minimal, "{rate: 10/s}", "{clients: 2}", 1), 3, 7, "load", "needs rate"},
		{"lowercase method", strings.Replace(minimal, "{rate: 10/s}", "{rate: 10/s, request: {method: post}}", 1), 3, 38, "load.request.method", "capitals"},
		{"bare percent", withPhases("  phases: [{at: 10s, for: 5s, faults: [{hang: 0.5}]}]\n"), 6, 47, "target.phases[0].faults[0].hang", "write a percentage such as 50%"},
		{"percent over 100", withPhases("  phases: [{at: 10s, for: 5s, faults: [{reset: 120%}]}]\n"), 6, 48, "target.phases[0].faults[0].reset", "over 100%"},
		{"faults over 100", withPhases("  phases: [{at: 10s, for: 5s, faults: [{hang: 60%}, {status: 503, percent: 50%}]}]\n"), 6, 53, "target.phases[0].faults[1]", "110%"},
		{"two fault kinds", withPhases("  phases: [{at: 10s, for: 5s, faults: [{hang: 10%, reset: 5%}]}]\n"), 6, 40, "target.phases[0].faults[0]", "hang and reset"},
		{"percent on hang", withPhases("  phases: [{at: 10s, for: 5s, faults: [{hang: 10%, percent: 5%}]}]\n"), 6, 52, "target.phases[0].faults[0].percent", "only a status fault"},
		{"bad status", withPhases("  phases: [{at: 10s, for: 5s, faults: [{status: 999}]}]\n"), 6, 49, "target.phases[0].faults[0].status", "not an HTTP status"},
		{"retry_after date", withPhases("  phases: [{at: 10s, for: 5s, faults: [{status: 429, retry_after: {date: soon}}]}]\n"), 6, 74, "target.phases[0].faults[0].retry_after.date", "not a duration"},
		{"phase without for", withPhases("  phases: [{at: 10s, faults: [{hang: 10%}]}]\n"), 6, 12, "target.phases[0].for", "required"},
		{"phase that does nothing", withPhases("  phases: [{at: 10s, for: 5s}]\n"), 6, 12, "target.phases[0]", "changes nothing"},
		{"overlapping phases", withPhases("  phases:\n    - {name: a, at: 10s, for: 20s, stall: true}\n    - {name: b, at: 20s, for: 5s, stall: true}\n"), 8, 21, "target.phases[1].at", "overlap"},
		{"phase after the run", withPhases("  phases: [{at: 20m, for: 5s, stall: true}]\n"), 6, 17, "target.phases[0].at", "after the run ends (duration 1m0s + drain 10m0s)"},
		{"lognormal p99 below p50", strings.Replace(minimal, "{fixed: 10ms}", "{p50: 80ms, p99: 40ms}", 1), 5, 29, "target.latency.p99", "below p50"},
		{"lognormal half", strings.Replace(minimal, "{fixed: 10ms}", "{p50: 80ms}", 1), 5, 12, "target.latency.p99", "both p50 and p99"},
		{"two distributions", strings.Replace(minimal, "{fixed: 10ms}", "{fixed: 10ms, p50: 1ms, p99: 2ms}", 1), 5, 12, "target.latency", "fixed and p50"},
		{"uniform reversed", strings.Replace(minimal, "{fixed: 10ms}", "{uniform: [30ms, 10ms]}", 1), 5, 29, "target.latency.uniform[1]", "below low"},
		{"bad conflicts", strings.Replace(minimal, "latency: {fixed: 10ms}", "latency: {fixed: 10ms}\n  conflicts: multi-row", 1), 6, 14, "target.conflicts", "not one of"},
		{"unknown policy field", strings.Replace(minimal, "{timeout: 1s}", "{timeout: 1s, retries: 3}", 1), 6, 23, "policy.retries", "unknown field"},
		{"bad enum", strings.Replace(minimal, "{timeout: 1s}", "{retry: {jitter: lots}}", 1), 6, 26, "policy.retry.jitter", `"lots" is not one of none, full, equal, proportional`},
		{"zero attempts", strings.Replace(minimal, "{timeout: 1s}", "{retry: {max_attempts: 0}}", 1), 6, 32, "policy.retry.max_attempts", "at least 1"},
		{"timeout 0", strings.Replace(minimal, "{timeout: 1s}", "{timeout: 0s}", 1), 6, 19, "policy.timeout", "write none"},
		{"negative timeout", strings.Replace(minimal, "{timeout: 1s}", "{timeout: -1s}", 1), 6, 19, "policy.timeout", "negative"},
		{"retry on 200", strings.Replace(minimal, "{timeout: 1s}", "{retry: {on: [timeout, 200]}}", 1), 6, 32, "policy.retry.on[1]", "only 4xx and 5xx"},
		{"list without delays", strings.Replace(minimal, "{timeout: 1s}", "{retry: {max_attempts: 3, backoff: list}}", 1), 6, 35, "policy.retry.delays", "needs delays"},
		{"proportional without factor", strings.Replace(minimal, "{timeout: 1s}", "{retry: {jitter: proportional}}", 1), 6, 18, "policy.retry.jitter_factor", "jitter_factor"},
		{"breaker 0.5", strings.Replace(minimal, "{timeout: 1s}", "{breaker: {failure_rate: 0.5}}", 1), 6, 34, "policy.breaker.failure_rate", "50%"},
		{"budget without kind", strings.Replace(minimal, "{timeout: 1s}", "{budget: {capacity: 10}}", 1), 6, 18, "policy.budget.kind", "required"},
		{"budget field of the other kind", strings.Replace(minimal, "{timeout: 1s}", "{budget: {kind: ratio, capacity: 10}}", 1), 6, 32, "policy.budget.capacity", "not a field of a ratio budget"},
		{"unknown preset", strings.Replace(minimal, "policy: {timeout: 1s}", "policies: [preset:nope]", 1), 6, 12, "policies[0]", `unknown preset "nope"`},
		{"unknown preset base", strings.Replace(minimal, "policy: {timeout: 1s}", "policies: [{base: preset:nope, name: x}]", 1), 6, 19, "policies[0].base", `unknown preset "nope"`},
		{"missing base", strings.Replace(minimal, "policy: {timeout: 1s}", "policies: [{base: ours, name: x}]", 1), 6, 19, "policies[0].base", `no policy named "ours"`},
		{"base cycle", strings.Replace(minimal, "policy: {timeout: 1s}", "policies:\n  - {name: a, base: b}\n  - {name: b, base: a}", 1), 8, 21, "policies[1].base", "base cycle: a → b → a"},
		{"self base", strings.Replace(minimal, "policy: {timeout: 1s}", "policies: [{name: a, base: a}]", 1), 6, 28, "policies[0].base", "base cycle: a → a"},
		{"duplicate names", strings.Replace(minimal, "policy: {timeout: 1s}", "policies: [{name: a}, {name: a}]", 1), 6, 23, "policies[1]", `second policy named "a"`},
		{"unnamed entry", strings.Replace(minimal, "policy: {timeout: 1s}", "policies: [{timeout: 1s}]", 1), 6, 12, "policies[0].name", "required"},
		{"layer without policy", minimal + "layers: [{name: gw}]\n", 7, 10, "layers[0].policy", "required"},
		{"nested layers", minimal + "layers: [{name: gw, policy: {layers: []}}]\n", 7, 30, "layers[0].policy.layers", "cannot nest"},
		{"expect unknown policy", minimal + "expect: {ours: {success_rate: '>= 99%'}}\n", 7, 10, "expect.ours", `no policy named "ours"`},
		{"expect bare ratio", minimal + "expect: {policy: {success_rate: '>= 0.99'}}\n", 7, 33, "expect.policy.success_rate", "99%"},
		{"expect unknown key", minimal + "expect: {policy: {latency: '< 1s'}}\n", 7, 19, "expect.policy.latency", "unknown field"},
		{"duplicate key", minimal + "seed: 1\nseed: 2\n", 8, 1, "seed", "set twice"},
		{"anchor on an unknown field", minimal + "x: &a {seed: 1}\n", 7, 1, "x", "unknown field"},
		{"merge key", strings.Replace(minimal, "policy: {timeout: 1s}", "policy: {<<: {timeout: 1s}}", 1), 6, 10, "policy", "merge keys (<<) are not supported"},
		{"list for a mapping", strings.Replace(minimal, "{rate: 10/s}", "[10/s]", 1), 3, 7, "load", "got a list"},
		{"null value", strings.Replace(minimal, "{timeout: 1s}", "{timeout: }", 1), 6, 19, "policy.timeout", "got nothing"},
		{"yes is not a boolean", strings.Replace(minimal, "{timeout: 1s}", "{fallback: yes}", 1), 6, 20, "policy.fallback", `want true or false, got "yes"`},
		{"string for a number", strings.Replace(minimal, "{timeout: 1s}", "{retry: {multiplier: twice}}", 1), 6, 30, "policy.retry.multiplier", "want a number"},
		{"yaml syntax", "name: [unclosed\n", 1, 1, "", "did not find expected"},
		{"not a mapping", "- a\n- b\n", 1, 1, "", "want a mapping"},
		{"second document", minimal + "---\nname: u\n", 7, 1, "", "second YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), "s.yaml")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if e.File != "s.yaml" || e.Line != tt.line || e.Col != tt.col || e.Field != tt.field || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got  %s\nwant s.yaml:%d:%d: %s: …%s…", e, tt.line, tt.col, tt.field, tt.msg)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	allowed := []string{"max_attempts", "timeout", "connect_timeout", "retry_after"}
	tests := map[string]string{
		"max_attempt":    "max_attempts",
		"maxAttempts":    "max_attempts",
		"timout":         "timeout",
		"retry-after":    "retry_after",
		"colour":         "",
		"connecttimeout": "connect_timeout",
	}
	for in, want := range tests {
		if got := Suggest(in, allowed); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAnchors: YAML anchors and aliases read like what they point at.
func TestAnchors(t *testing.T) {
	src := strings.Replace(minimal, "  latency: {fixed: 10ms}\n", "  latency: &l {fixed: 10ms}\n  connect: *l\n", 1)
	sc, err := Parse([]byte(src), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Target.Connect.Fixed != 10*time.Millisecond {
		t.Errorf("connect = %v", sc.Target.Connect)
	}
}

func TestStrings(t *testing.T) {
	ms := time.Millisecond
	tests := []struct{ got, want string }{
		{(&Distribution{Kind: DistFixed, Fixed: 20 * ms}).String(), "fixed 20ms"},
		{(&Distribution{Kind: DistUniform, Min: 10 * ms, Max: 30 * ms}).String(), "uniform [10ms, 30ms]"},
		{(&Distribution{Kind: DistExponential, Min: 10 * ms, ExpMean: 5 * ms}).String(), "exponential min 10ms mean 5ms"},
		{(&Distribution{Kind: DistLognormal, P50: 80 * ms, P99: 400 * ms}).String(), "lognormal p50 80ms p99 400ms"},
		{(&Distribution{Kind: DistProfile, Profile: "p.json"}).String(), "profile p.json"},
		{Comparison{Op: ">=", Value: 0.99, Percent: true}.String(), ">= 99%"},
		{Comparison{Op: "<=", Value: 2}.String(), "<= 2"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "a.yaml", Line: 3, Col: 5, Field: "load.rate", Msg: "bad"}, "a.yaml:3:5: load.rate: bad"},
		{Error{File: "a.yaml", Msg: "no such file"}, "a.yaml: no such file"},
		{Error{File: "a.yaml", Line: 1, Col: 1, Msg: "empty"}, "a.yaml:1:1: empty"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestParseDefaults: what a minimal file gets.
func TestParseDefaults(t *testing.T) {
	sc, err := Parse([]byte(minimal), "dir/s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Scenario{
		Name: "t", Seed: 1, Duration: time.Minute, Drain: 10 * time.Minute,
		Load: Load{Clients: 1, Rate: 10, Request: Request{Method: "GET", Path: "/"}},
		Target: Target{
			Latency:   Distribution{Kind: DistFixed, Fixed: 10 * time.Millisecond},
			Connect:   Distribution{Kind: DistFixed, Fixed: time.Millisecond},
			Conflicts: "none",
		},
		Policies: []*policy.Policy{func() *policy.Policy {
			p := defaultPolicy()
			p.Name = "policy"
			p.Timeout = time.Second
			return p
		}()},
		Expect: map[string]Expect{},
		File:   "dir/s.yaml",
	}
	opts := cmp.Options{cmpopts.IgnoreUnexported(Distribution{}), cmpopts.IgnoreFields(policy.Policy{}, "Source")}
	if diff := cmp.Diff(want, sc, opts); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

// full exercises every section of docs/design.md §4.
const full = `name: delivery-date
description: The API hangs.
seed: 7
duration: 10m
drain: 2m
load:
  clients: 10
  workers: 8
  rate: 2400/m
  burst: 100
  request: {method: POST, path: /v1/charges, idempotency_key: true}
target:
  latency: {p50: 80ms, p99: 400ms}
  connect: {exponential: {min: 1ms, mean: 2ms}}
  capacity: {workers: 64, queue: 1000}
  conflicts: single-row
  phases:
    - name: brown-out
      at: 3m
      for: 1m
      latency: {fixed: 6s}
      faults:
        - {status: 503, percent: 50%, retry_after: 2s}
        - {status: 429, percent: 10%, retry_after: {date: +1s}}
        - {reset: 5%}
        - {refuse: 5%}
    - {name: outage, at: 2m, for: 30s, faults: [{hang: 100%}], stall: true}
policy:
  name: ours
  connect_timeout: 2s
  timeout: 5s
  deadline: 20s
  retry:
    max_attempts: 4
    on: [connect, timeout, reset, 408, 409, 429, 5xx]
    never: [501]
    non_idempotent: with_key
    backoff: exponential
    base: 100ms
    multiplier: 2
    cap: 10s
    jitter: full
    retry_after: honor
    retry_after_max: 60s
  budget: {kind: token_bucket, capacity: 500, retry_cost: 5, timeout_cost: 10, refill: 1}
  breaker: {failure_rate: 50%, min_requests: 10, window: 10s, open_for: 30s, half_open: 1}
  bulkhead: {max_concurrent: 20}
  fallback: true
policies:
  - preset:none
  - {base: ours, name: no-jitter, retry: {jitter: none}}
  - {base: preset:aws-standard, name: aws, timeout: 2s}
  - {base: later, name: chained, deadline: none}
  - {name: later, timeout: 3s, retry: {max_attempts: unlimited}, layers: []}
layers:
  - {name: frontend, policy: {retry: {max_attempts: 4}}}
  - {name: api, policy: {base: ours, retry: {max_attempts: 2}}}
expect:
  ours: {success_rate: ">= 99%", amplification: "<= 2", duplicates: 0, worker_saturation: "< 50%"}
  "*": {duplicates: 0}
`

func TestParseFull(t *testing.T) {
	sc, err := Parse([]byte(full), "full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Load.Rate != 40 || sc.Load.Burst != 100 || !sc.Load.Request.IdempotencyKey || sc.Load.Request.Method != "POST" {
		t.Errorf("load = %+v", sc.Load)
	}
	tg := sc.Target
	if tg.Capacity == nil || *tg.Capacity != (Capacity{Workers: 64, Queue: 1000}) || tg.Conflicts != "single-row" {
		t.Errorf("target = %+v", tg)
	}
	if tg.Connect.Kind != DistExponential || tg.Connect.Min != time.Millisecond || tg.Connect.ExpMean != 2*time.Millisecond {
		t.Errorf("connect = %+v", tg.Connect)
	}
	wantFaults := []Fault{
		{Kind: FaultStatus, Status: 503, Percent: 0.5, RetryAfter: &RetryAfter{Delay: 2 * time.Second}},
		{Kind: FaultStatus, Status: 429, Percent: 0.1, RetryAfter: &RetryAfter{Delay: time.Second, Date: true}},
		{Kind: FaultReset, Percent: 0.05},
		{Kind: FaultRefuse, Percent: 0.05},
	}
	if diff := cmp.Diff(wantFaults, tg.Phases[0].Faults); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
	if !tg.Phases[1].Stall || tg.Phases[1].End() != 150*time.Second {
		t.Errorf("outage = %+v", tg.Phases[1])
	}

	names := make([]string, len(sc.Policies))
	byName := map[string]*policy.Policy{}
	for i, p := range sc.Policies {
		names[i] = p.Name
		byName[p.Name] = p
	}
	if diff := cmp.Diff([]string{"ours", "preset:none", "no-jitter", "aws", "chained", "later"}, names); diff != "" {
		t.Errorf("policy order (-want +got):\n%s", diff)
	}
	ours := byName["ours"]
	if ours.Budget == nil || ours.Budget.Capacity != 500 || ours.Breaker == nil || ours.Breaker.FailureRate != 0.5 || ours.Bulkhead.MaxConcurrent != 20 || !ours.Fallback {
		t.Errorf("ours = %+v", ours)
	}
	// Deep override: no-jitter keeps everything of ours but the jitter.
	nj := byName["no-jitter"]
	if nj.Retry.Jitter != "none" || nj.Retry.MaxAttempts != 4 || nj.Timeout != 5*time.Second || nj.Budget == nil || nj.Budget == ours.Budget {
		t.Errorf("no-jitter = %+v (budget shared: %v)", nj, nj.Budget == ours.Budget)
	}
	if ours.Retry.Jitter != "full" {
		t.Error("inheriting changed the base")
	}
	aws := byName["aws"]
	if aws.Timeout != 2*time.Second || aws.Retry.MaxAttempts != 3 || aws.Retry.Base != 50*time.Millisecond || aws.Budget == nil {
		t.Errorf("aws = %+v", aws)
	}
	ch := byName["chained"]
	if ch.Timeout != 3*time.Second || ch.Retry.MaxAttempts != policy.Unlimited || ch.Deadline != 0 {
		t.Errorf("chained = %+v", ch)
	}
	// Scenario layers go to every policy without its own layers:, and to those inheriting none.
	for _, n := range []string{"ours", "preset:none", "no-jitter", "aws"} {
		p := byName[n]
		if len(p.Layers) != 2 || p.Layers[0].Name != "frontend" || p.Layers[1].Policy.Retry.MaxAttempts != 2 || p.Layers[1].Policy.Timeout != 5*time.Second {
			t.Errorf("%s layers = %+v", n, p.Layers)
		}
	}
	if len(byName["later"].Layers) != 0 {
		t.Errorf("layers: [] kept %d layers", len(byName["later"].Layers))
	}
	if len(byName["chained"].Layers) != 0 {
		t.Errorf("chained inherits later's own layers: []; got %d", len(byName["chained"].Layers))
	}
	if byName["ours"].Layers[0].Policy == byName["no-jitter"].Layers[0].Policy {
		t.Error("policies share layer values")
	}
	// A --policy policy gets the scenario's layers, unless it has its own.
	naive, _ := ResolvePolicy("preset:naive")
	sc.AttachLayers(naive)
	if len(naive.Layers) != 2 || naive.Layers[0].Name != "frontend" {
		t.Errorf("AttachLayers: %+v", naive.Layers)
	}
	own := byName["later"]
	sc.AttachLayers(own)
	if len(own.Layers) != 0 {
		t.Errorf("AttachLayers replaced a policy's own layers: []")
	}
	ex := sc.Expect["ours"]
	if ex.SuccessRate != ">= 99%" || ex.Amplification != "<= 2" || ex.Duplicates != "0" || ex.WorkerSaturation != "< 50%" {
		t.Errorf("expect = %+v", ex)
	}
	if p := ex.Pos["success_rate"]; p.Line != 59 || p.Col != 24 || p.File != "full.yaml" {
		t.Errorf("expect position = %+v", p)
	}
	if _, ok := sc.Expect["*"]; !ok {
		t.Error(`expect "*" missing`)
	}
}

// TestPolicySource: positions of set fields, and of inherited ones at the base: line.
func TestPolicySource(t *testing.T) {
	sc, err := Parse([]byte(full), "full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := func(name string) map[string]policy.Pos {
		for _, p := range sc.Policies {
			if p.Name == name {
				return p.Source
			}
		}
		t.Fatalf("no policy %s", name)
		return nil
	}
	tests := []struct {
		policy, key string
		line, col   int
	}{
		{"ours", "timeout", 31, 3},
		{"ours", "retry.max_attempts", 34, 5},
		{"ours", "retry.jitter", 42, 5},
		{"ours", "budget", 45, 3},
		{"ours", "budget.capacity", 45, 32},
		{"ours", "breaker.failure_rate", 46, 13},
		{"no-jitter", "retry.jitter", 51, 43},
		{"no-jitter", "timeout", 51, 6},      // inherited: the base: key
		{"no-jitter", "budget", 51, 6},       // inherited
		{"aws", "retry.max_attempts", 52, 6}, // from the preset: the base: line
		{"aws", "timeout", 52, 44},
		{"preset:none", "timeout", 50, 5}, // a bare preset: its own line
	}
	for _, tt := range tests {
		got := src(tt.policy)[tt.key]
		if got.Line != tt.line || got.Col != tt.col || got.File != "full.yaml" {
			t.Errorf("%s %s at %d:%d, want %d:%d", tt.policy, tt.key, got.Line, got.Col, tt.line, tt.col)
		}
	}
}

func TestDecodePolicy(t *testing.T) {
	named := map[string]*policy.Policy{"ours": func() *policy.Policy {
		p := defaultPolicy()
		p.Name, p.Timeout = "ours", 3*time.Second
		return p
	}()}
	decode := func(src string) (*policy.Policy, error) {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(src), &n); err != nil {
			t.Fatal(err)
		}
		return DecodePolicy(&n, "patience.yaml", named)
	}
	p, err := decode("base: ours\nretry: {max_attempts: 3}\n")
	if err != nil {
		t.Fatal(err)
	}
	if p.Timeout != 3*time.Second || p.Retry.MaxAttempts != 3 || p.Source["timeout"].Line != 1 || p.Source["retry.max_attempts"].Line != 2 {
		t.Errorf("p = %+v source %v", p, p.Source)
	}
	if named["ours"].Retry.MaxAttempts != 1 {
		t.Error("DecodePolicy changed a named base")
	}
	p, err = decode("base: preset:aws-standard\ntimeout: 2s\n")
	if err != nil || p.Name != "" || p.Retry.MaxAttempts != 3 {
		t.Errorf("a based policy without name: is unnamed (the caller names it): %q %v", p.Name, err)
	}
	p, err = decode("preset:polly")
	if err != nil || p.Retry.Backoff != "constant" || p.Source["retry.backoff"].Line != 1 {
		t.Errorf("preset string: %+v %v", p, err)
	}
	_, err = decode("base: theirs\n")
	var e *Error
	if !errors.As(err, &e) || e.Field != "base" || !strings.Contains(e.Msg, "known: ours") {
		t.Errorf("unknown base: %v", err)
	}
}

func TestResolvePolicy(t *testing.T) {
	for _, n := range PresetNames() {
		p, err := ResolvePolicy("preset:" + n)
		if err != nil || p.Name != "preset:"+n {
			t.Errorf("preset:%s: %v %v", n, p, err)
		}
	}
	if _, err := ResolvePolicy("preset:nope"); err == nil || !strings.Contains(err.Error(), "unknown preset") {
		t.Errorf("preset:nope: %v", err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tight.yaml")
	if err := os.WriteFile(file, []byte("timeout: 500ms\nretry: {max_attempts: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ResolvePolicy(file)
	if err != nil || p.Name != "tight" || p.Timeout != 500*time.Millisecond {
		t.Errorf("file policy: %+v %v", p, err)
	}
	if err := os.WriteFile(file, []byte("timeout: 500ms\nretries: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ResolvePolicy(file)
	if err == nil || err.Error() != file+":2:1: retries: unknown field (want one of "+strings.Join(policyTable.keys, ", ")+")" {
		t.Errorf("bad file policy: %v", err)
	}
	var e *Error
	if _, err := ResolvePolicy(filepath.Join(dir, "missing.yaml")); !errors.As(err, &e) || !strings.Contains(e.Msg, "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestOpen(t *testing.T) {
	sc, err := Open(DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	if sc.File != "scenarios/"+DefaultName+".yaml" {
		t.Errorf("File = %q", sc.File)
	}
	var e *Error
	if _, err := Open("no-such-scenario"); !errors.As(err, &e) || !strings.Contains(e.Msg, DefaultName) {
		t.Errorf("unknown name: %v (want the list of bundled names)", err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(file, []byte(minimal), 0o644); err != nil {
		t.Fatal(err)
	}
	if sc, err := Open(file); err != nil || sc.Name != "t" {
		t.Errorf("Open(file) = %v, %v", sc, err)
	}
	if _, err := Open(filepath.Join(dir, "missing.yaml")); !errors.As(err, &e) || e.Msg != "no such file" {
		t.Errorf("missing path: %v", err)
	}
}

// FuzzDecodePolicy: no policy mapping panics, and every failure is an *Error.
func FuzzDecodePolicy(f *testing.F) {
	f.Add("timeout: 1s\nretry: {max_attempts: 3, backoff: list, delays: [1s]}\n")
	f.Add("base: ours\nbudget: {kind: ratio, percent: 10%}\n")
	f.Add("preset:naive")
	f.Add("layers: [{name: a, policy: {base: ours}}]")
	named := map[string]*policy.Policy{"ours": defaultPolicy()}
	f.Fuzz(func(t *testing.T, src string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(src), &n) != nil {
			return
		}
		if _, err := DecodePolicy(&n, "p.yaml", named); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not *Error", err, err)
			}
		}
	})
}

// FuzzParse: no input panics, and every failure is an *Error.
func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte(full))
	f.Add([]byte("policies: [{name: a, base: b}, {name: b, base: a}]"))
	f.Add([]byte("a: &x [*x]"))
	f.Add([]byte("load: {rate: 1e400/s}\n"))
	// Rates too slow for one arrival in the run (limits_rates_test.go, issue 24 item 6).
	f.Add([]byte(rateFile("1m", "{rate: 1e-12/s}")))
	f.Add([]byte(rateFile("1ns", "{rate: 40/s}")))
	f.Add([]byte(rateFile("24h", "{rate: 5e-324/s, burst: 3}")))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data, "f.yaml")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not *Error", err, err)
			}
			return
		}
		if len(sc.Policies) == 0 {
			t.Fatal("a scenario without policies loaded")
		}
		if r, d := sc.Load.Rate, sc.Duration; r > 0 && d > 0 && r*d.Seconds() < MinArrivals {
			t.Fatalf("rate %g/s over %s loaded: fewer than %g arrivals expected", r, d, float64(MinArrivals))
		}
	})
}

// TestDesignExample: the example scenario of docs/design.md §4 (docs/scenario.md shows it) loads.
func TestDesignExample(t *testing.T) {
	sc, err := Open("testdata/design_example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Policies) != 5 || sc.Policies[0].Name != "ours" || len(sc.Target.Phases) != 2 {
		t.Errorf("policies %d, phases %d", len(sc.Policies), len(sc.Target.Phases))
	}
}

// TestDecodeReadTimeout: read_timeout is a policy field like timeout — a duration or none,
// its line kept for check's findings, handed down by base:, and its errors at its value's
// line and column.
func TestDecodeReadTimeout(t *testing.T) {
	named := map[string]*policy.Policy{}
	decode := func(src string) (*policy.Policy, error) {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(src), &n); err != nil {
			t.Fatal(err)
		}
		p, err := DecodePolicy(&n, "p.yaml", named)
		if err == nil && p.Name == "ours" {
			named["ours"] = p
		}
		return p, err
	}
	p, err := decode("name: ours\ntimeout: 5s\nread_timeout: 1500ms\n")
	if err != nil || p.ReadTimeout != 1500*time.Millisecond || p.Source["read_timeout"] != (policy.Pos{File: "p.yaml", Line: 3, Col: 1}) {
		t.Fatalf("read_timeout: %v at %+v (%v), want 1.5s at p.yaml:3:1", p.ReadTimeout, p.Source["read_timeout"], err)
	}
	if p, err := decode("base: ours\ntimeout: 9s\n"); err != nil || p.ReadTimeout != 1500*time.Millisecond || p.Source["read_timeout"].Line != 1 {
		t.Errorf("inherited: %v at %+v (%v), want 1.5s from the base: line", p.ReadTimeout, p.Source["read_timeout"], err)
	}
	if p, err := decode("base: ours\nread_timeout: none\n"); err != nil || p.ReadTimeout != 0 {
		t.Errorf("none: %v (%v), want 0", p.ReadTimeout, err)
	}
	if p := defaultPolicy(); p.ReadTimeout != 0 {
		t.Errorf("default read_timeout %v, want none", p.ReadTimeout)
	}
	for _, tc := range []struct{ src, want string }{
		{"timeout: 2s\nread_timeout: 0s\n", "p.yaml:2:15: read_timeout: 0 would mean no time at all; write none for no bound"},
		{"timeout: 2s\nread_timeout: soon\n", `p.yaml:2:15: read_timeout: "soon" is not a duration (write e.g. 2s, 250ms or 1m30s)`},
		{"timeout: 2s\nread_timeout: -1s\n", `p.yaml:2:15: read_timeout: "-1s" is negative`},
		{"timeout: 2s\nread_timeout: [1s]\n", "p.yaml:2:15: read_timeout: "},
	} {
		_, err := decode(tc.src)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %s…", tc.src, err, tc.want)
		}
	}
}
