package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
)

// TestPresetValues pins every preset to the defaults its source documents (see presets.go):
// attempts, timeouts and the worst-case wait before each retry.
func TestPresetValues(t *testing.T) {
	s, ms := time.Second, time.Millisecond
	tests := []struct {
		name       string
		attempts   int
		timeout    time.Duration
		deadline   time.Duration
		nonIdem    policy.NonIdempotent
		retryAfter policy.RetryAfterMode
		raMax      time.Duration
		maxDelays  []time.Duration // MaxDelay(1), MaxDelay(2), …
		budget     policy.BudgetKind
		retriesOn  []string
		notRetryOn []string
	}{
		{"none", 1, 0, 0, "never", "honor", 60 * s, nil, "", nil, nil},
		{"naive", 4, 0, 0, "always", "ignore", 60 * s, []time.Duration{0, 0, 0}, "", []string{"4xx", "5xx", "timeout"}, nil},
		// aws-sdk-go-v2 v1.48: b·min(x·2^(n−1), 20s), b ∈ [0,1), x = 50ms or 1s after a 429
		// (MaxDelay bounds both bases, so the 1s one).
		{"aws-standard", 3, 0, 0, "always", "ignore", 60 * s, []time.Duration{s, 2 * s}, "token_bucket", []string{"429", "503", "timeout"}, []string{"5xx", "4xx"}},
		// aws-sdk-go-v2 ≤ v1.47: b·2^n s.
		{"aws-standard-legacy", 3, 0, 0, "always", "ignore", 60 * s, []time.Duration{2 * s, 4 * s}, "token_bucket", []string{"429", "503", "timeout"}, []string{"5xx", "4xx"}},
		// grpc-go v1.85 with gRFC A6's example: min(0.1s·2^(n−1), 1s)·U[0.8, 1.2].
		{"grpc", 4, 0, 0, "always", "replace_reset", 0, []time.Duration{120 * ms, 240 * ms, 480 * ms}, "", []string{"503", "429"}, []string{"timeout"}},
		// Envoy: 1 retry, 25ms base, 15s route timeout.
		{"envoy", 2, 15 * s, 15 * s, "always", "ignore", 60 * s, []time.Duration{25 * ms}, "", []string{"5xx", "reset", "connect"}, nil},
		{"envoy-budget", 2, 15 * s, 15 * s, "always", "ignore", 60 * s, []time.Duration{25 * ms}, "ratio", nil, nil},
		// go-retryablehttp: RetryMax 4, 1·2^n s up to 30s, no jitter, Retry-After uncapped.
		{"retryablehttp", 5, 0, 0, "always", "replace", 0, []time.Duration{s, 2 * s, 4 * s, 8 * s}, "", []string{"429", "5xx"}, nil},
		// cenkalti: 500ms·1.5^(n−1) ·(1 ± 0.5), interval ≤ 60s, 15m elapsed.
		{"cenkalti", policy.Unlimited, 0, 15 * time.Minute, "always", "ignore", 60 * s, []time.Duration{750 * ms, 1125 * ms, 1687500 * time.Microsecond}, "", nil, nil},
		// Polly v8: 3 retries, constant 2s; ShouldHandle handles exceptions only.
		{"polly", 4, 0, 0, "always", "ignore", 60 * s, []time.Duration{2 * s, 2 * s, 2 * s}, "", []string{"connect", "reset"}, []string{"5xx", "timeout"}},
		// Laravel Http::retry(3): 3 attempts, 0 ms sleep, every 4xx/5xx and connection error.
		{"laravel-http", 3, 30 * s, 0, "always", "ignore", 60 * s, []time.Duration{0, 0}, "", []string{"4xx", "5xx", "timeout", "connect"}, nil},
		{"recommended", 2, 2 * s, 3 * s, "with_key", "honor", 10 * s, []time.Duration{100 * ms}, "token_bucket", []string{"timeout", "5xx"}, nil},
	}
	if len(tests) != len(PresetNames()) {
		t.Errorf("%d presets tested, %d exist", len(tests), len(PresetNames()))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := Preset(tt.name)
			if !ok {
				t.Fatal("missing")
			}
			r := p.Retry
			if r.MaxAttempts != tt.attempts || p.Timeout != tt.timeout || p.Deadline != tt.deadline {
				t.Errorf("attempts %d timeout %v deadline %v; want %d %v %v", r.MaxAttempts, p.Timeout, p.Deadline, tt.attempts, tt.timeout, tt.deadline)
			}
			if r.NonIdempotent != tt.nonIdem || r.RetryAfter != tt.retryAfter || r.RetryAfterMax != tt.raMax {
				t.Errorf("non_idempotent %s retry_after %s max %v; want %s %s %v", r.NonIdempotent, r.RetryAfter, r.RetryAfterMax, tt.nonIdem, tt.retryAfter, tt.raMax)
			}
			for i, want := range tt.maxDelays {
				if got := r.MaxDelay(i + 1); got != want {
					t.Errorf("MaxDelay(%d) = %v, want %v", i+1, got, want)
				}
			}
			var kind policy.BudgetKind
			if p.Budget != nil {
				kind = p.Budget.Kind
			}
			if kind != tt.budget {
				t.Errorf("budget %q, want %q", kind, tt.budget)
			}
			for _, on := range tt.retriesOn {
				if !contains(r.On, on) {
					t.Errorf("on %v lacks %s", r.On, on)
				}
			}
			for _, on := range tt.notRetryOn {
				if contains(r.On, on) {
					t.Errorf("on %v has %s", r.On, on)
				}
			}
			// Every preset must pass the loader's own checks.
			d := &decoder{NodeDecoder: NewNodeDecoder("preset")}
			if err := d.checkPolicy(p, ""); err != nil {
				t.Errorf("preset fails validation: %v", err)
			}
			for _, o := range r.On {
				if err := validRetryOn(o); err != nil {
					t.Errorf("on: %v", err)
				}
			}
		})
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestPresetIsFresh: changing what Preset returns does not change the next call's value.
func TestPresetIsFresh(t *testing.T) {
	a, _ := Preset("aws-standard")
	a.Budget.Capacity = 1
	a.Retry.On[0] = "x"
	b, _ := Preset("aws-standard")
	if b.Budget.Capacity != 500 || b.Retry.On[0] == "x" {
		t.Error("presets share state between calls")
	}
}

func TestPresetHelp(t *testing.T) {
	h := PresetHelp()
	for _, n := range PresetNames() {
		if !strings.Contains(h, "  "+n+" ") {
			t.Errorf("help lacks %s", n)
		}
	}
	if strings.Count(h, "source: ") != len(PresetNames()) || strings.Count(h, "checked: ") != len(PresetNames()) {
		t.Errorf("not every preset cites a source and how it was checked:\n%s", h)
	}
	// A preset checked in conformance/ names the version it models (docs/design.md §4).
	for _, d := range presets {
		if strings.HasPrefix(d.checked, checkedConformance) && !strings.Contains(d.source, " v") {
			t.Errorf("%s: source %q names no library version", d.name, d.source)
		}
	}
}

// TestPoliciesValidate cross-checks the loader with the policy mechanics: every preset and
// every policy (and layer) the loader produces passes policy.Validate.
func TestPoliciesValidate(t *testing.T) {
	var all []*policy.Policy
	for _, n := range PresetNames() {
		p, _ := Preset(n)
		all = append(all, p)
	}
	sc, err := Parse([]byte(full), "full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, sc.Policies...)
	bundled, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bundled {
		sc, _ := Open(b.Name)
		all = append(all, sc.Policies...)
	}
	for _, p := range all {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		for _, l := range p.Layers {
			if err := l.Policy.Validate(); err != nil {
				t.Errorf("%s layer %s: %v", p.Name, l.Name, err)
			}
		}
	}
}
