package policy

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Worst cases by hand (docs/design.md §5: d(n) at its jitter upper bound, raised to retry_after_max
// when Retry-After is honoured with a cap).
func TestWorstCase(t *testing.T) {
	const s = time.Second
	expFull := Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 2 * s, Jitter: JitterFull, RetryAfter: RetryAfterIgnore}
	raCapped := Retry{Backoff: BackoffExponential, Base: s, Multiplier: 2, Cap: 10 * s, Jitter: JitterFull, RetryAfter: RetryAfterHonor, RetryAfterMax: 5 * s}
	raDefault := raCapped
	raDefault.RetryAfter = "" // "" behaves as honor
	raUncapped := raCapped
	raUncapped.RetryAfterMax = 0
	raIgnored := raCapped
	raIgnored.RetryAfter = RetryAfterIgnore
	tests := []struct {
		name     string
		r        Retry
		attempts int
		timeout  time.Duration
		waits    []time.Duration
		want     time.Duration
	}{
		// Full jitter reaches d(n): 100, 200, 400, 800, 1600ms, then the 2s cap three times:
		// 9 × 2s + 9.1s.
		{"exponential full jitter", expFull, 9, 2 * s,
			[]time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 2 * s, 2 * s, 2 * s}, 27100 * ms},
		// Equal jitter never exceeds d(n) either: 3 × 1s + 100 + 200ms.
		{"exponential equal jitter", Retry{Backoff: BackoffExponential, Base: 100 * ms, Jitter: JitterEqual}, 3, s,
			[]time.Duration{100 * ms, 200 * ms}, 3300 * ms},
		// d + 0.5·d: 1.5s, 3s, then the list's last delay again: 5 × 1s + 1.5 + 3 + 3 + 3s.
		{"proportional jitter", Retry{Backoff: BackoffList, Delays: []time.Duration{s, 2 * s}, Jitter: JitterProportional, JitterFactor: 0.5}, 5, s,
			[]time.Duration{1500 * ms, 3 * s, 3 * s, 3 * s}, 15500 * ms},
		// min(cap, base·3^n): 300ms, 900ms, 1s: 4 × 500ms + 2.2s.
		{"decorrelated", Retry{Backoff: BackoffDecorrelated, Base: 100 * ms, Cap: s}, 4, 500 * ms,
			[]time.Duration{300 * ms, 900 * ms, s}, 4200 * ms},
		// delays[min(n, len)−1]: 4 × 1s + 10 + 30 + 30s.
		{"list", Retry{Backoff: BackoffList, Delays: []time.Duration{10 * s, 30 * s}, Jitter: JitterNone}, 4, s,
			[]time.Duration{10 * s, 30 * s, 30 * s}, 74 * s},
		// max(d(n), 5s): d = 1, 2, 4, 8s → 5, 5, 5, 8s; 5 × 1s + 23s.
		{"Retry-After honoured with cap", raCapped, 5, s, []time.Duration{5 * s, 5 * s, 5 * s, 8 * s}, 28 * s},
		{"Retry-After default is honour", raDefault, 5, s, []time.Duration{5 * s, 5 * s, 5 * s, 8 * s}, 28 * s},
		// No cap: nothing but the deadline bounds the pause, so only the backoff counts.
		{"Retry-After honoured uncapped", raUncapped, 5, s, []time.Duration{s, 2 * s, 4 * s, 8 * s}, 20 * s},
		{"Retry-After ignored", raIgnored, 5, s, []time.Duration{s, 2 * s, 4 * s, 8 * s}, 20 * s},
		{"one attempt", expFull, 1, 2 * s, nil, 2 * s},
		{"no attempt", expFull, 0, 2 * s, nil, 0},
		// 100 listed waits of 1s, the other 50 repeat the last.
		{"past MaxListedWaits", Retry{Backoff: BackoffConstant, Base: s}, 151, 0, nil, 150 * s},
		{"saturates: uncapped exponential", Retry{Backoff: BackoffExponential, Base: s, Multiplier: 2}, 200, s, nil, MaxWait},
		{"saturates: absurd attempts", Retry{Backoff: BackoffConstant, Base: time.Hour}, 1 << 40, time.Hour, nil, MaxWait},
		{"saturates: unlimited", expFull, Unlimited, s, nil, MaxWait},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.waits != nil {
				if diff := cmp.Diff(tt.waits, tt.r.WorstCaseWaits(tt.attempts)); diff != "" {
					t.Errorf("WorstCaseWaits(%d) (-want +got):\n%s", tt.attempts, diff)
				}
			}
			if got := tt.r.WorstCase(tt.attempts, tt.timeout); got != tt.want {
				t.Errorf("WorstCase(%d, %v) = %v, want %v", tt.attempts, tt.timeout, got, tt.want)
			}
		})
	}
}

// More waits by hand, one backoff kind each (moved from check, which used to own them).
func TestWorstCaseWaits(t *testing.T) {
	tests := []struct {
		name     string
		r        Retry
		attempts int
		want     []time.Duration
	}{
		{"single attempt", Retry{}, 1, nil},
		{"exponential full jitter", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 10 * time.Second, Jitter: JitterFull, RetryAfter: RetryAfterIgnore}, 4, []time.Duration{100 * ms, 200 * ms, 400 * ms}},
		{"exponential capped", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 3, Cap: 500 * ms, Jitter: JitterNone, RetryAfter: RetryAfterIgnore}, 4, []time.Duration{100 * ms, 300 * ms, 500 * ms}},
		{"constant proportional", Retry{Backoff: BackoffConstant, Base: 100 * ms, Jitter: JitterProportional, JitterFactor: 0.5, RetryAfter: RetryAfterIgnore}, 3, []time.Duration{150 * ms, 150 * ms}},
		{"linear", Retry{Backoff: BackoffLinear, Base: 100 * ms, RetryAfter: RetryAfterIgnore}, 3, []time.Duration{100 * ms, 200 * ms}},
		{"decorrelated 3^n", Retry{Backoff: BackoffDecorrelated, Base: 100 * ms, Cap: time.Second, RetryAfter: RetryAfterIgnore}, 3, []time.Duration{300 * ms, 900 * ms}},
		{"list", Retry{Backoff: BackoffList, Delays: []time.Duration{10 * ms, 30 * ms}, RetryAfter: RetryAfterIgnore}, 4, []time.Duration{10 * ms, 30 * ms, 30 * ms}},
		{"Retry-After cap raises the wait", Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, RetryAfter: RetryAfterHonor, RetryAfterMax: 150 * ms}, 3, []time.Duration{150 * ms, 200 * ms}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.r.WorstCaseWaits(tt.attempts)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestWorstCaseWaitsBounds(t *testing.T) {
	r := Retry{Backoff: BackoffConstant, Base: time.Second}
	for _, attempts := range []int{Unlimited, 0, 1} {
		if w := r.WorstCaseWaits(attempts); w != nil {
			t.Errorf("WorstCaseWaits(%d) = %v, want nil", attempts, w)
		}
	}
	if n := len(r.WorstCaseWaits(1000)); n != MaxListedWaits {
		t.Errorf("WorstCaseWaits(1000) lists %d waits, want %d", n, MaxListedWaits)
	}
}

func TestAttemptsWithin(t *testing.T) {
	const s = time.Second
	// The retry block `check --init` writes (cap 2s) and the one `probe` assumes (cap 10s).
	initBlock := Retry{Backoff: BackoffExponential, Base: 100 * ms, Multiplier: 2, Cap: 2 * s, Jitter: JitterFull, RetryAfter: RetryAfterIgnore}
	probeBlock := initBlock
	probeBlock.Cap = 10 * s
	tests := []struct {
		name            string
		r               Retry
		timeout, budget time.Duration
		limit, want     int
	}{
		// 9 × 2s + 9.1s = 27.1s ≤ 30s; 10 × 2s + 11.1s = 31.1s > 30s.
		{"init block 2s in 30s", initBlock, 2 * s, 30 * s, 10, 9},
		// 8 × 2s + 12.7s = 28.7s ≤ 30s; 9 × 2s + 22.7s = 40.7s > 30s.
		{"probe block 2s in 30s", probeBlock, 2 * s, 30 * s, 10, 8},
		// 2 × 2s + 100ms = 4.1s ≤ 5s; 3 × 2s + 300ms > 5s.
		{"probe block 2s in 5s", probeBlock, 2 * s, 5 * s, 10, 2},
		{"exactly one", probeBlock, 2 * s, 2 * s, 10, 1},
		{"not even one", probeBlock, 2 * s, 1999 * ms, 10, 0},
		{"no timeout", probeBlock, 0, 30 * s, 10, 0},
		{"limit", probeBlock, ms, time.Hour, 10, 10},
	}
	for _, tt := range tests {
		if got := tt.r.AttemptsWithin(tt.timeout, tt.budget, tt.limit); got != tt.want {
			t.Errorf("%s: AttemptsWithin(%v, %v, %d) = %d, want %d", tt.name, tt.timeout, tt.budget, tt.limit, got, tt.want)
		}
	}
}
