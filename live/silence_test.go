package live

import (
	"context"
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/timing"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// dripScenario is a short load whose middle second answers every attempt with fault f, against
// one policy: 20 requests/s for 3 s, attempts not retried.
func dripScenario(p *policy.Policy, f scenario.Fault) *scenario.Scenario {
	p.Retry = policy.Retry{MaxAttempts: 1}
	return &scenario.Scenario{
		Name: "drip", Seed: 4, Duration: 3 * time.Second, Drain: 5 * time.Second,
		Load: scenario.Load{Clients: 2, Rate: 20, Request: scenario.Request{Method: "GET", Path: "/"}},
		Target: scenario.Target{
			Latency: fixed(10 * time.Millisecond),
			Phases:  []scenario.Phase{{Name: "bad", At: time.Second, For: time.Second, Faults: []scenario.Fault{f}}},
		},
		Policies: []*policy.Policy{p},
	}
}

// TestReplayReadTimeoutMatchesSimulator plays serve's drip and hang through the live client
// with each of the simulator's endings (docs/design.md §6): a read timeout the pace never
// reaches (the drip succeeds, slowly), one it does (read_timeout), a total the drip outlasts
// (timeout), and a hang ended by the read timeout. The margins are wide (a pause 4× the read
// timeout, or a quarter of it), so every run asserts the live failure reasons are the
// simulator's; the counts, within a slack, need PATIENCE_TIMING=1.
func TestReplayReadTimeoutMatchesSimulator(t *testing.T) {
	drip := func(every time.Duration) scenario.Fault {
		return scenario.Fault{Kind: scenario.FaultDrip, Percent: 1, Drip: &scenario.Drip{Every: every, Bytes: 1, Size: 4}}
	}
	for _, tc := range []struct {
		name   string
		pol    *policy.Policy
		fault  scenario.Fault
		reason string // "" = every request succeeds
	}{
		{"read above the pace", &policy.Policy{Name: "p", ReadTimeout: 400 * time.Millisecond}, drip(100 * time.Millisecond), ""},
		{"read below the pace", &policy.Policy{Name: "p", ReadTimeout: 100 * time.Millisecond}, drip(400 * time.Millisecond), replay.ReasonReadTimeout},
		{"total below the body", &policy.Policy{Name: "p", ReadTimeout: 400 * time.Millisecond, Timeout: 200 * time.Millisecond}, drip(100 * time.Millisecond), replay.ReasonTimeout},
		{"hang, read before total", &policy.Policy{Name: "p", ReadTimeout: 100 * time.Millisecond, Timeout: time.Second}, scenario.Fault{Kind: scenario.FaultHang, Percent: 1}, replay.ReasonReadTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := dripScenario(tc.pol, tc.fault)
			want, err := sim.Run(context.Background(), sc, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			fid := &Fidelity{}
			got, err := Replay(context.Background(), sc, Options{Speed: 2, Fidelity: fid})
			if err != nil {
				t.Fatal(err)
			}
			w, g := want.Policies[0], got.Policies[0]
			t.Logf("sim %d/%d ok %v; live %d/%d ok %v; lateness p99 %s", w.Succeeded, w.Requests, w.FailureReasons, g.Succeeded, g.Requests, g.FailureReasons, fid.LatenessP99)
			if g.Requests != w.Requests {
				t.Fatalf("requests %d, simulated %d", g.Requests, w.Requests)
			}
			// The simulator's own classes: the test's premise.
			if tc.reason == "" && w.Succeeded != w.Requests || tc.reason != "" && (w.FailureReasons[tc.reason] == 0 || len(w.FailureReasons) != 1) {
				t.Fatalf("simulated %d/%d ok, reasons %v; want reason %q only", w.Succeeded, w.Requests, w.FailureReasons, tc.reason)
			}
			for reason := range g.FailureReasons {
				if reason != tc.reason {
					t.Errorf("live failure reason %s (%d), the simulator has none: %v", reason, g.FailureReasons[reason], g.FailureReasons)
				}
			}
			if tc.reason != "" && g.FailureReasons[tc.reason] == 0 {
				t.Errorf("no live failure of reason %s: %v", tc.reason, g.FailureReasons)
			}
			timing.Require(t)
			if fid.LatenessP99 > 50*time.Millisecond {
				t.Skipf("machine too busy: timer lateness p99 %s", fid.LatenessP99)
			}
			slack := 2 + w.Requests/50
			if d := g.Failed - w.Failed; d < -slack || d > slack {
				t.Errorf("failed live %d vs simulated %d", g.Failed, w.Failed)
			}
		})
	}
}
