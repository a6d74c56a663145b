package replay

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// TestTally: each end lands in the result and in its second, failures by reason, and
// FailedWhileDown only for a dependency's failure of a request that arrived while the
// target was down (a stall from 1 s to 2 s here) and was not turned away.
func TestTally(t *testing.T) {
	sc := &scenario.Scenario{Target: scenario.Target{Phases: []scenario.Phase{{Name: "down", At: time.Second, For: time.Second, Stall: true}}}}
	down, up := 1500*time.Millisecond, 500*time.Millisecond
	for _, c := range []struct {
		name       string
		f          Finished
		want       PolicyResult
		wantSecond Second
	}{
		{"succeeded", Finished{End: EndSucceeded, Start: down},
			PolicyResult{Succeeded: 1, FailureReasons: map[string]int{}}, Second{Succeeded: 1}},
		{"degraded", Finished{End: EndDegraded, Start: down},
			PolicyResult{Degraded: 1, FailureReasons: map[string]int{}}, Second{Degraded: 1}},
		{"failed while up", Finished{End: EndFailed, Reason: ReasonTimeout, Start: up},
			PolicyResult{Failed: 1, FailureReasons: map[string]int{ReasonTimeout: 1}}, Second{Failed: 1}},
		{"failed while down", Finished{End: EndFailed, Reason: ReasonTimeout, Start: down},
			PolicyResult{Failed: 1, FailedWhileDown: 1, FailureReasons: map[string]int{ReasonTimeout: 1}}, Second{Failed: 1}},
		{"turned away while down", Finished{End: EndFailed, Reason: ReasonTimeout, Start: down, TurnedAway: true},
			PolicyResult{Failed: 1, FailureReasons: map[string]int{ReasonTimeout: 1}}, Second{Failed: 1}},
		{"no worker while down", Finished{End: EndFailed, Reason: ReasonNoWorker, Start: down},
			PolicyResult{Failed: 1, FailureReasons: map[string]int{ReasonNoWorker: 1}}, Second{Failed: 1}},
		{"stuck while down", Finished{End: EndFailed, Reason: ReasonStuck, Start: down},
			PolicyResult{Failed: 1, FailureReasons: map[string]int{ReasonStuck: 1}}, Second{Failed: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := PolicyResult{FailureReasons: map[string]int{}}
			var s Second
			got.Tally(sc, &s, c.f)
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
			if s != c.wantSecond {
				t.Errorf("second %+v, want %+v", s, c.wantSecond)
			}
		})
	}
}

// TestAnswerAbove: what the layer above sees of a finished lower call.
func TestAnswerAbove(t *testing.T) {
	last := policy.Outcome{Kind: policy.Status, Status: 429, RetryAfter: "2"}
	ok := policy.Outcome{Kind: policy.Success, Status: 200}
	for _, c := range []struct {
		name    string
		end     End
		reason  string
		hasLast bool
		want    policy.Outcome
	}{
		{"succeeded", EndSucceeded, "", true, ok},
		{"degraded", EndDegraded, "", false, ok},
		{"failed after an answer", EndFailed, ReasonBudget, true, last},
		{"breaker before any attempt", EndFailed, ReasonBreakerOpen, false, policy.Outcome{Kind: policy.Status, Status: 503}},
		{"bulkhead before any attempt", EndFailed, ReasonBulkhead, false, policy.Outcome{Kind: policy.Status, Status: 503}},
		{"deadline before any attempt", EndFailed, ReasonDeadline, false, policy.Outcome{Kind: policy.Timeout}},
	} {
		l := policy.Outcome{}
		if c.hasLast {
			l = last
		}
		if got := AnswerAbove(c.end, c.reason, l, c.hasLast); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
