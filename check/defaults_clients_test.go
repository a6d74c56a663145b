package check

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// assumedFields lists the fields check assumed for the dependency named dep.
func assumedFields(t *testing.T, res *Result, dep string) map[string]Assumed {
	t.Helper()
	for _, c := range res.Checked {
		if c.Dependency == dep {
			out := map[string]Assumed{}
			for _, a := range c.Assumed {
				out[a.Field] = a
			}
			return out
		}
	}
	t.Fatalf("no checked entry for %s", dep)
	return nil
}

// findingsOf lists the rules that fired on dependency dep, each with its message.
func findingsOf(res *Result, dep string) map[string]Finding {
	out := map[string]Finding{}
	for _, f := range res.Findings {
		if f.Dependency == dep {
			out[f.Rule] = f
		}
	}
	return out
}

// TestRetriedPOSTWithoutNonIdempotentIsPT005 is issue 23's "a default that hides the double
// charge": a retried POST or PATCH with no key and no word on non_idempotent is what a user
// writes for Laravel's Http::retry(3), and the clients retry it whatever the method:
//   - laravel/framework bd71b45 src/Illuminate/Http/Client/PendingRequest.php:671 retry($times,
//     $sleepMilliseconds = 0, $when = null, $throw = true); send() :1083-1088 retries every
//     unsuccessful response when no $when callback is given (the method is only handed to that
//     callback), and ConnectionException — a timeout included — goes through the same retry().
//   - hashicorp/go-retryablehttp fd00458 client.go:495-540 baseRetryPolicy: errors, 429, 0 and
//     5xx but 501; it never reads req.Method (client.go:678-842 only logs it).
//   - aws/aws-sdk-go-v2 aws/retry/standard.go (1489ddb) DefaultRetryables: connection errors,
//     500/502/503/504, throttling codes; no method in the retryer's interface.
//   - grpc/proposal A6-client-retries.md:119 "gRPC retries do not provide a mechanism to
//     specifically mark a method as idempotent".
//
// So check assumes `always`: PT005 fires and says so; written values win.
func TestRetriedPOSTWithoutNonIdempotentIsPT005(t *testing.T) {
	const retry = "{timeout: 1s, retry: {max_attempts: 3%s, base: 100ms, jitter: full, retry_after: honor, retry_after_max: 1s}}"
	dep := func(name, request, extra string) string {
		s := "\n  - name: " + name + "\n"
		if request != "" {
			s += "    request: " + request + "\n"
		}
		return s + "    policy: " + strings.Replace(retry, "%s", extra, 1)
	}
	file := "dependencies:" +
		dep("post", "{method: POST}", "") +
		dep("patch", "{method: PATCH}", "") +
		dep("post-never", "{method: POST}", ", non_idempotent: never") +
		dep("post-with-key", "{method: POST}", ", non_idempotent: with_key") +
		dep("post-key", "{method: POST, idempotency_key: true}", "") +
		dep("put", "{method: PUT}", "") +
		dep("get-default", "", "") +
		"\n  - name: post-once\n    request: {method: POST}\n    policy: {timeout: 1s}\n" +
		"  - name: post-laravel\n    request: {method: POST}\n    policy: preset:laravel-http\n"
	res := runYAML(t, file, Options{})
	for _, tt := range []struct {
		dep        string
		pt005      bool
		assumed    string // the non_idempotent value assumed, "" = none
		assumedFor []string
	}{
		{"post", true, "always", []string{"PT005", "PT009"}},
		{"patch", true, "always", []string{"PT005", "PT009"}},
		{"post-never", false, "", nil},
		{"post-with-key", false, "", nil}, // with_key without a key retries no unknown outcome
		// The key makes the retries safe: the assumption only counts them (PT009).
		{"post-key", false, "always", []string{"PT009"}},
		{"put", false, "", nil},         // idempotent (RFC 9110 §9.2.2)
		{"get-default", false, "", nil}, // the method itself is assumed: see below
		{"post-once", false, "", nil},   // no retries
		// A preset states every field: scenario/presets.go's laravel-http retries POST
		// (`always`), so PT005 fires as written, without an assumption.
		{"post-laravel", true, "", nil},
	} {
		t.Run(tt.dep, func(t *testing.T) {
			f, fired := findingsOf(res, tt.dep)["PT005"]
			if fired != tt.pt005 {
				t.Fatalf("PT005 fired %t, want %t (%+v)", fired, tt.pt005, findingsOf(res, tt.dep))
			}
			a, ok := assumedFields(t, res, tt.dep)["policy.retry.non_idempotent"]
			if (tt.assumed != "") != ok || a.Value != tt.assumed {
				t.Fatalf("non_idempotent assumed %q (%t), want %q", a.Value, ok, tt.assumed)
			}
			if ok {
				if diff := cmp.Diff(tt.assumedFor, a.Rules); diff != "" {
					t.Errorf("rules (-want +got):\n%s", diff)
				}
			}
			if !fired {
				return
			}
			wantPrefix := "non_idempotent not set: assumed `always`, as Laravel Http::retry, go-retryablehttp and the AWS SDKs retry whatever the method"
			if got := strings.HasPrefix(f.Message, wantPrefix); got != (tt.assumed != "") {
				t.Errorf("message says the assumption: %t, want %t: %s", got, tt.assumed != "", f.Message)
			}
			if tt.assumed != "" && f.Line != 4+(map[string]int{"post": 0, "patch": 3}[tt.dep]) {
				// dependencies[i].policy is on line 4+3i; the finding points at the retries
				t.Errorf("PT005 at line %d", f.Line)
			}
		})
	}
	if a := assumedFields(t, res, "get-default")["request.method"]; a.Value != "GET" || !slices.Equal(a.Rules, []string{"PT005"}) {
		t.Errorf("get-default: request.method assumed %+v, want GET deciding PT005", a)
	}
}

// TestNamedPolicyHandsDownWhatItWrote: a policy named by another dependency (base: NAME) hands
// down what its file wrote, never what check assumed for it: a POST based on a policy that
// said nothing about non_idempotent is assumed `always` again (PT005, saying so), and one
// based on a policy that wrote `never` is not.
func TestNamedPolicyHandsDownWhatItWrote(t *testing.T) {
	res := runYAML(t, `dependencies:
  - name: pay
    request: {method: POST}
    policy: {name: pay, timeout: 1s, retry: {max_attempts: 3, base: 100ms, jitter: full, retry_after: honor, retry_after_max: 1s}}
  - name: refund
    request: {method: POST}
    policy: {base: pay}
  - name: careful
    request: {method: POST}
    policy: {name: careful, timeout: 1s, retry: {max_attempts: 3, non_idempotent: never, base: 100ms, jitter: full, retry_after: honor, retry_after_max: 1s}}
  - name: careful-refund
    request: {method: POST}
    policy: careful
`, Options{})
	for dep, want := range map[string]bool{"pay": true, "refund": true, "careful": false, "careful-refund": false} {
		f, fired := findingsOf(res, dep)["PT005"]
		if fired != want {
			t.Errorf("%s: PT005 %t, want %t", dep, fired, want)
		}
		if fired && !strings.HasPrefix(f.Message, "non_idempotent not set: assumed `always`") {
			t.Errorf("%s: PT005 does not say what it assumed: %s", dep, f.Message)
		}
	}
	// The base's other unwritten fields are unwritten for refund too; what pay wrote is not.
	got := assumedFields(t, res, "refund")
	if _, ok := got["policy.retry.on"]; !ok {
		t.Errorf("refund: retry.on (unwritten in pay) not listed: %v", got)
	}
	if _, ok := got["policy.retry.jitter"]; ok {
		t.Errorf("refund: jitter (written in pay) listed as assumed: %v", got)
	}
}

// TestAssumedListsDefaultsThatDecideRules: a retried call that leaves every retry field to
// the loader lists each default that decides a rule, with the value check used; an explicit
// file lists none; a call that does not retry lists only max_attempts; `retry: none` is
// explicit.
func TestAssumedListsDefaultsThatDecideRules(t *testing.T) {
	res := runYAML(t, `dependencies:
  - name: bare
    policy: {timeout: 1s, retry: {max_attempts: 3}}
  - name: stated
    request: {method: GET}
    policy:
      timeout: 1s
      retry: {max_attempts: 3, on: [connect, timeout, 5xx], backoff: exponential, base: 1s, jitter: none, retry_after: ignore}
  - name: capped
    request: {method: GET}
    policy:
      timeout: 1s
      retry: {max_attempts: 6, on: [connect, timeout, 5xx], backoff: exponential, base: 1s, jitter: none, retry_after: ignore}
  - name: once
    policy: {timeout: 1s}
  - name: none
    policy: {timeout: 1s, retry: none}
  - name: preset
    policy: preset:retryablehttp
  - name: queued
    caller: {kind: job, timeout: 20s, retry_after: 90s, tries: 3}
    policy: {timeout: 1s, retry: none}
`, Options{})
	fields := func(dep string) map[string]string {
		out := map[string]string{}
		for k, a := range assumedFields(t, res, dep) {
			out[k] = a.Value
		}
		return out
	}
	for _, tt := range []struct {
		dep  string
		want map[string]string
	}{
		{"bare", map[string]string{
			"request.method":               "GET",
			"policy.retry.on":              "connect, timeout, reset, 408, 409, 429, 5xx",
			"policy.retry.backoff":         "exponential, base 100ms, multiplier 2, cap 10s",
			"policy.retry.jitter":          "full",
			"policy.retry.retry_after":     "honor",
			"policy.retry.retry_after_max": "1m",
		}},
		{"stated", map[string]string{}}, // waits 1 s, 2 s: the default cap (10 s) changes nothing
		// waits 1, 2, 4, 8, 16 s: the default cap shortens the last to 10 s.
		{"capped", map[string]string{"policy.retry.cap": "10s"}},
		{"once", map[string]string{"policy.retry.max_attempts": "1"}},
		{"none", map[string]string{}},
		// scenario/presets.go retryablehttp: every policy field comes from the preset; the
		// request is the file's, and it says no method.
		{"preset", map[string]string{"request.method": "GET"}},
		// tries: 3 without backoff: the queue re-runs at once (Laravel's queue:work
		// --backoff=0, laravel/framework bd71b45 src/Illuminate/Queue/Console/WorkCommand.php:44).
		{"queued", map[string]string{"caller.backoff": "none"}},
	} {
		if diff := cmp.Diff(tt.want, fields(tt.dep)); diff != "" {
			t.Errorf("%s: assumed (-want +got):\n%s", tt.dep, diff)
		}
	}
	// An assumption that keeps a rule quiet names it: PT006 for the assumed jitter.
	if a := assumedFields(t, res, "bare")["policy.retry.jitter"]; !slices.Equal(a.Rules, []string{"PT006"}) || !strings.Contains(a.Why, "jitter: none") {
		t.Errorf("bare: jitter assumption %+v", a)
	}
	if got := AssumedText(res.Checked[3].Assumed); got != "policy.retry.max_attempts 1 (PT004, PT005, PT006, PT007, PT008, PT009, PT013)" {
		t.Errorf("AssumedText: %q", got)
	}
}

// TestJobWithoutTriesAssumesOne: a job caller without tries is assumed to run once, as
// Laravel's queue:work --tries=1 (laravel/framework bd71b45
// src/Illuminate/Queue/Console/WorkCommand.php:52 `{--tries=1 : ...}`).
func TestJobWithoutTriesAssumesOne(t *testing.T) {
	res := runYAML(t, `dependencies:
  - name: ship
    caller: {kind: job, timeout: 20s, retry_after: 90s}
    policy: {timeout: 5s, retry: none}
`, Options{})
	a, ok := assumedFields(t, res, "ship")["caller.tries"]
	if !ok || a.Value != "1" || !slices.Contains(a.Rules, "PT009") {
		t.Errorf("caller.tries assumed %+v (%t)", a, ok)
	}
}

// TestAssumptionsMatchTheClientPresets holds the why texts to the presets that model those
// clients (scenario/presets.go, each citing its source, checked against the real Go libraries
// in conformance/): what a text says a client does, its preset does.
func TestAssumptionsMatchTheClientPresets(t *testing.T) {
	for _, tt := range []struct {
		preset     string
		always     bool // retries a POST without a key
		jitter     bool
		retryAfter bool // reads Retry-After
	}{
		// laravel/framework bd71b45 PendingRequest.php:671 retry(): a fixed sleep (0 ms by
		// default), no jitter; no Retry-After anywhere in the client.
		{"laravel-http", true, false, false},
		// go-retryablehttp fd00458 client.go:551-566 DefaultBackoff: min·2^n capped, no jitter;
		// Retry-After on 429 and 503 (client.go:553).
		{"retryablehttp", true, false, true},
		// aws-sdk-go-v2 aws/retry/jitter_backoff.go: a random share of the exponential delay;
		// the standard retryer does not read Retry-After.
		{"aws-standard", true, true, false},
	} {
		p, ok := scenario.Preset(tt.preset)
		if !ok {
			t.Fatalf("no preset %s", tt.preset)
		}
		r := p.Retry
		if got := r.NonIdempotent == policy.NonIdempotentAlways; got != tt.always {
			t.Errorf("%s: retries a POST without a key: %t, the texts say %t", tt.preset, got, tt.always)
		}
		if got := !noJitter(r); got != tt.jitter {
			t.Errorf("%s: jitter %t, the texts say %t", tt.preset, got, tt.jitter)
		}
		if got := r.HonorsRetryAfter(); got != tt.retryAfter {
			t.Errorf("%s: reads Retry-After %t, the texts say %t", tt.preset, got, tt.retryAfter)
		}
		for _, why := range []string{whyNonIdempotent, whyJitter, whyRetryAfter} {
			if !strings.Contains(why, map[string]string{"laravel-http": "Laravel", "retryablehttp": "go-retryablehttp", "aws-standard": "AWS SDKs"}[tt.preset]) {
				t.Errorf("%q does not name %s", why, tt.preset)
			}
		}
	}
}

// FuzzCheckFileDefaults: whatever a check file says, loading it never panics, every
// assumption names a field of the file's grammar with the rules it decides, and a dependency
// assumed `always` retries a non-idempotent request (the only assumption that changes the
// policy).
func FuzzCheckFileDefaults(f *testing.F) {
	for _, seed := range []string{
		"dependencies:\n  - name: a\n    request: {method: POST}\n    policy: {timeout: 1s, retry: {max_attempts: 3}}\n",
		"dependencies:\n  - name: a\n    policy: &p {name: p, timeout: 1s, retry: none}\n  - name: b\n    request: {method: PATCH}\n    policy: {base: p, retry: {max_attempts: 2}}\n",
		"dependencies:\n  - name: a\n    request: {method: POST}\n    policy: preset:laravel-http\n  - name: b\n    request: {method: POST}\n    policy: a\n",
		"dependencies:\n  - name: j\n    caller: {kind: job, timeout: 20s, retry_after: 90s, tries: 3, backoff: [10s]}\n    policy: {timeout: 1s, retry: {max_attempts: 6, backoff: exponential, base: 1s}}\n",
	} {
		f.Add(seed)
	}
	fields := map[string]bool{"request.method": true, "request.idempotency_key": true, "caller.tries": true, "caller.backoff": true, "caller.jitter": true}
	for _, k := range unsaidKeys {
		fields["policy."+k] = true
	}
	fields["policy.idempotency_key"] = false // listed as request.idempotency_key
	f.Fuzz(func(t *testing.T, text string) {
		file, err := Load("patience.yaml", []byte(text))
		if err != nil {
			return
		}
		for _, d := range file.Dependencies {
			for _, a := range d.Assumed {
				if !fields[a.Field] || a.Value == "" || a.Why == "" || len(a.Rules) == 0 {
					t.Fatalf("%s: assumption %+v", d.Name, a)
				}
				for _, id := range a.Rules {
					if _, ok := RuleByID(id); !ok {
						t.Fatalf("%s: %s names rule %s", d.Name, a.Field, id)
					}
				}
				if a.Field == "policy.retry.non_idempotent" && (d.Policy.Retry.NonIdempotent != policy.NonIdempotentAlways || !retries(d.Policy.Retry) || d.Request.Idempotent()) {
					t.Fatalf("%s: non_idempotent assumed on %s, %d attempts, policy says %q", d.Name, d.Request.Method, d.Policy.Retry.MaxAttempts, d.Policy.Retry.NonIdempotent)
				}
			}
		}
	})
}

// TestAssumedAlwaysCountsInTheChain: the assumption is the policy's, so a chain through the
// dependency's own policy counts the retries the client makes — a POST that times out is
// sent 3 times by Http::retry(3) (laravel/framework bd71b45 PendingRequest.php:1075, retry()
// over the whole send, whatever the method) — where `never`, written, counts 1.
func TestAssumedAlwaysCountsInTheChain(t *testing.T) {
	dir := t.TempDir()
	vs := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: partner}\nspec:\n  hosts: [partner.example.com]\n  http:\n    - route: [{destination: {host: partner.example.com}}]\n      timeout: 60s\n"
	dep := func(name, extra string) string {
		return "  - name: " + name + "\n    request: {method: POST}\n    via: [{self: true}, {file: vs.yaml, host: partner.example.com}]\n" +
			"    policy: {timeout: 5s, retry: {max_attempts: 3, backoff: none" + extra + "}}\n"
	}
	check := "max_amplification: 100\ndependencies:\n" + dep("assumed", "") + dep("never", ", non_idempotent: never")
	for name, text := range map[string]string{"vs.yaml": vs, "patience.yaml": check} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), in.Files, Options{Replay: noReplay, Configs: in.Configs})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, ch := range res.Chains {
		for _, l := range ch.Layers {
			if l.Kind == "patience" {
				got[ch.Dependency] = l.Attempts.Timeout
			}
		}
	}
	if diff := cmp.Diff(map[string]float64{"assumed": 3, "never": 1}, got); diff != "" {
		t.Errorf("the patience layer's attempts on a timeout (-want +got):\n%s", diff)
	}
}
