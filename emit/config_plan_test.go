package emit

import (
	"testing"
	"time"

	"github.com/patience-dev/patience/profile"
)

// TestPlanOf: the attempts and the deadline every config target writes, per caller.
func TestPlanOf(t *testing.T) {
	rec := func(method string, key bool, attempts int, budgetMs float64, kind profile.CallerKind) profile.Recommendation {
		return profile.Recommendation{TimeoutMs: 800, MaxAttempts: attempts, Caller: profile.CallerInfo{Kind: kind, Method: method, IdempotencyKey: key, BudgetMs: budgetMs}}
	}
	cases := []struct {
		name     string
		in       Input
		attempts int
		deadline time.Duration
	}{
		{"interactive GET within its budget", Input{Method: "GET", Rec: rec("GET", false, 2, 2000, profile.CallerInteractive)}, 2, 2 * time.Second},
		// No budget given: two 800 ms attempts and the 100 ms backoff bound between them.
		{"interactive GET without a budget", Input{Method: "GET", Rec: rec("GET", false, 2, 0, profile.CallerInteractive)}, 2, 1700 * time.Millisecond},
		{"POST with a key", Input{Method: "POST", Rec: rec("POST", true, 2, 4000, profile.CallerInteractive)}, 2, 4 * time.Second},
		// A recommendation that says 2 for a POST without a key is still written as 1.
		{"POST without a key", Input{Method: "POST", Rec: rec("POST", false, 2, 4000, profile.CallerInteractive)}, 1, 4 * time.Second},
		{"job: one attempt per run", Input{Method: "GET", Rec: rec("GET", false, 3, 60000, profile.CallerJob)}, 1, 800 * time.Millisecond},
		{"three attempts without a budget", Input{Method: "GET", Rec: rec("GET", false, 3, 0, profile.CallerInteractive)}, 3, 3*800*time.Millisecond + 300*time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := planOf(c.in)
			if p.attempts != c.attempts || p.deadline != c.deadline {
				t.Errorf("attempts %d deadline %v, want %d and %v", p.attempts, p.deadline, c.attempts, c.deadline)
			}
		})
	}
}

// TestDurationTexts: each format's duration syntax, rounded up to the millisecond so a bound
// is never written shorter than recommended.
func TestDurationTexts(t *testing.T) {
	cases := []struct {
		d                time.Duration
		ms, seconds, gep string
	}{
		{800 * time.Millisecond, "800ms", "0.8s", "800ms"},
		{2 * time.Second, "2000ms", "2s", "2s"},
		{1500*time.Millisecond + 1, "1501ms", "1.501s", "1s501ms"},
		{90*time.Second + 250*time.Millisecond, "90250ms", "90.25s", "1m30s250ms"},
		{2*time.Hour + time.Millisecond, "7200001ms", "7200.001s", "2h1ms"},
		{0, "0ms", "0s", "0s"},
	}
	for _, c := range cases {
		if got := msText(c.d); got != c.ms {
			t.Errorf("msText(%v) = %s, want %s", c.d, got, c.ms)
		}
		if got := secondsText(c.d); got != c.seconds {
			t.Errorf("secondsText(%v) = %s, want %s", c.d, got, c.seconds)
		}
		if got := gepDuration(c.d); got != c.gep {
			t.Errorf("gepDuration(%v) = %s, want %s", c.d, got, c.gep)
		}
	}
}
