package live

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/verdict"
)

// hangScenario is a dependency that hangs for most of a minute: a replay stopped early has
// requests in flight, which a whole run would count as hanging.
const hangScenario = `name: hang
seed: 1
duration: 60s
drain: 30s
load: {clients: 1, workers: 20, rate: 20/s}
target:
  latency: {fixed: 10ms}
  phases:
    - {name: hang, at: 0s, for: 50s, latency: {fixed: 40s}}
policies:
  - {name: patient, timeout: 1m}
  - {name: brisk, timeout: 200ms}
lesson:
  recommends: patient
  why: for the test
`

// TestInterruptedPolicyNotGraded: Ctrl-C during a live replay marks the policy it cut
// interrupted, with one not_graded clause saying when it stopped, never the ✗ of "requests
// still hanging" or "does not recover" (issue 24 item 9: the user stopped the run, the
// dependency did not); a policy that never started is left out, and the lesson is not
// drawn from a cut policy.
func TestInterruptedPolicyNotGraded(t *testing.T) {
	sc, err := scenario.Parse([]byte(hangScenario), "hang.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Whenever the stop lands within the minute of arrivals, the first policy is cut.
	stop := time.AfterFunc(1500*time.Millisecond, cancel)
	defer stop.Stop()
	res, err := Replay(ctx, sc, Options{Speed: 1, Sequential: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if !res.Interrupted || len(res.Policies) != 1 {
		t.Fatalf("interrupted %v, %d policies; want the one cut policy", res.Interrupted, len(res.Policies))
	}
	p := res.Policies[0]
	if !p.Interrupted || p.Verdict.Level != verdict.NotGraded || len(p.Verdict.Reasons) != 1 || !p.Verdict.Has(CodeInterrupted) {
		t.Errorf("policy %s: interrupted %v, verdict %+v; want one not_graded interrupted clause", p.Name, p.Interrupted, p.Verdict)
	}
	if text := p.Verdict.Text(); !strings.HasPrefix(text, "interrupted at ") || !strings.Contains(text, "of 1 min of arrivals: not graded") {
		t.Errorf("verdict text %q", text)
	}
	if p.Verdict.Has(replay.CodeStuck) || p.Verdict.Has(replay.CodeNotRecovered) {
		t.Errorf("a cut policy is graded: %+v", p.Verdict)
	}
	if res.Lesson != nil {
		t.Errorf("lesson %+v drawn from a policy that did not finish", res.Lesson)
	}
}

// TestFinishedPolicyGraded: a replay that runs to its end grades every policy as before.
func TestFinishedPolicyGraded(t *testing.T) {
	sc, err := scenario.Parse([]byte(strings.Replace(strings.Replace(hangScenario, "60s", "1s", 1), "for: 50s", "for: 500ms", 1)), "hang.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.Drain = 2 * time.Second
	sc.Policies = sc.Policies[1:] // brisk: 200 ms timeouts end every request within the drain
	sc.Lesson = nil
	res, err := Replay(context.Background(), sc, Options{Speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Policies[0]; p.Interrupted || p.Verdict.Level == verdict.NotGraded || res.Interrupted {
		t.Errorf("a finished run marked interrupted: %+v", p.Verdict)
	}
}
