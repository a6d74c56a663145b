package check

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/patience-dev/patience/probe"
)

// TestStarterAttemptsAgreeWithPT004 runs what --init writes through check: the max_attempts
// it writes is the largest count PT004 accepts for the retry block it writes. The starter
// itself passes (its deadline equals the budget); with the deadline taken out and Retry-After
// ignored — the two things that stop PT004 from adding up k × timeout + Σ backoff against
// the budget alone — k attempts still pass and k+1 raise PT004.
func TestStarterAttemptsAgreeWithPT004(t *testing.T) {
	maxAttempts := regexp.MustCompile(`(?m)^(\s+max_attempts: )(\d+)`)
	deadline := regexp.MustCompile(`(?m)^\s+deadline: .*\n`)
	retryAfter := regexp.MustCompile(`(?m)^(\s+retry_after: )honor$`)
	// 30s: 9 × 2s + 100 + 200 + 400 + 800 + 1600ms + 3 × 2s (the written cap) = 27.1s; a
	// 10th attempt needs 31.1s. The backoff probe assumes (cap 10s) would allow only 8.
	for _, tt := range []struct {
		budget time.Duration
		want   int
	}{{3 * time.Second, 1}, {5 * time.Second, 2}, {10 * time.Second, 4}, {30 * time.Second, 9}, {time.Minute, probe.MaxAttemptsCap}} {
		budget := tt.budget
		t.Run(budget.String(), func(t *testing.T) {
			data, err := Starter(StarterOptions{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			m := maxAttempts.FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("no max_attempts in\n%s", text)
			}
			k, _ := strconv.Atoi(m[2])
			if k != tt.want {
				t.Errorf("max_attempts: %d, want %d", k, tt.want)
			}
			if ids := ruleIDs(runYAML(t, text, Options{FailOn: LevelWarning})); len(ids) != 0 {
				t.Errorf("the starter has findings %v\n%s", ids, text)
			}
			bare := retryAfter.ReplaceAllString(deadline.ReplaceAllString(text, ""), "${1}ignore")
			if bare == text || !retryAfter.MatchString(text) {
				t.Fatalf("the starter's deadline or retry_after line moved:\n%s", text)
			}
			if ids := ruleIDs(runYAML(t, bare, Options{})); slices.Contains(ids, "PT004") {
				t.Errorf("%d attempts raise PT004 without the deadline:\n%s", k, bare)
			}
			if k == probe.MaxAttemptsCap {
				return // capped: more would fit, --init does not advise them
			}
			more := maxAttempts.ReplaceAllString(bare, "${1}"+fmt.Sprint(k+1))
			if ids := ruleIDs(runYAML(t, more, Options{})); !slices.Contains(ids, "PT004") {
				t.Errorf("%d attempts fit the %s budget too, but --init wrote %d:\n%s", k+1, budget, k, more)
			}
		})
	}
}
