package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

const sec = time.Second

// TestAttemptEnd: every combination of docs/design.md §6's attempt model — the head against
// the read timeout, the pace against it, the whole response against the total, both timers,
// neither, and the ties (a tie goes to the timer; between the two timers, to the total).
func TestAttemptEnd(t *testing.T) {
	drip := func(every time.Duration, pieces int) pace { return pace{every: every, pieces: pieces} }
	for _, tc := range []struct {
		name        string
		head        time.Duration
		body        pace
		read, total time.Duration
		at          time.Duration
		how         ending
	}{
		// neither timer
		{"whole, no timers", 2 * sec, pace{}, 0, 0, 2 * sec, endAnswered},
		{"drip, no timers: a very slow success", 0, drip(9*sec, 64), 0, 0, 576 * sec, endAnswered},
		{"hang, no timers", noHead, pace{}, 0, 0, noHead, endNever},
		// the read timeout alone
		{"head before R", 2 * sec, pace{}, 3 * sec, 0, 2 * sec, endAnswered},
		{"head after R: ended at R", 5 * sec, pace{}, 3 * sec, 0, 3 * sec, endReadTimeout},
		{"head at R: the timer wins the tie", 3 * sec, pace{}, 3 * sec, 0, 3 * sec, endReadTimeout},
		{"hang, R", noHead, pace{}, 3 * sec, 0, 3 * sec, endReadTimeout},
		{"drip every < R: never fires", 0, drip(9*sec, 64), 10 * sec, 0, 576 * sec, endAnswered},
		{"drip every > R: at L + R", sec, drip(9*sec, 64), 5 * sec, 0, 6 * sec, endReadTimeout},
		{"drip every = R: at L + R", sec, drip(5*sec, 64), 5 * sec, 0, 6 * sec, endReadTimeout},
		{"drip head after R", 6 * sec, drip(sec, 3), 5 * sec, 0, 5 * sec, endReadTimeout},
		// the total alone
		{"whole before T", 2 * sec, pace{}, 0, 3 * sec, 2 * sec, endAnswered},
		{"whole after T", 4 * sec, pace{}, 0, 3 * sec, 3 * sec, endTimeout},
		{"whole at T: the timer wins the tie", 3 * sec, pace{}, 0, 3 * sec, 3 * sec, endTimeout},
		{"hang, T", noHead, pace{}, 0, 3 * sec, 3 * sec, endTimeout},
		{"drip within T", sec, drip(sec, 3), 0, 5 * sec, 4 * sec, endAnswered},
		{"drip past T", sec, drip(9*sec, 64), 0, 2 * sec, 2 * sec, endTimeout},
		// both: the earlier
		{"drip every < R, past T: the total ends it", 0, drip(9*sec, 64), 10 * sec, 2 * sec, 2 * sec, endTimeout},
		{"drip every > R, R before T", 0, drip(9*sec, 64), 5 * sec, 20 * sec, 5 * sec, endReadTimeout},
		{"drip every > R, T before L + R", 2 * sec, drip(9*sec, 64), 5 * sec, 6 * sec, 6 * sec, endTimeout},
		{"drip within both", sec, drip(sec, 3), 2 * sec, 5 * sec, 4 * sec, endAnswered},
		{"hang, R < T", noHead, pace{}, 3 * sec, 5 * sec, 3 * sec, endReadTimeout},
		{"hang, T < R", noHead, pace{}, 5 * sec, 3 * sec, 3 * sec, endTimeout},
		{"hang, R = T: the total", noHead, pace{}, 3 * sec, 3 * sec, 3 * sec, endTimeout},
		{"slow head, R < T", 8 * sec, pace{}, 3 * sec, 5 * sec, 3 * sec, endReadTimeout},
		{"slow head, T < R", 8 * sec, pace{}, 5 * sec, 3 * sec, 3 * sec, endTimeout},
		{"head between R and T", 4 * sec, pace{}, 3 * sec, 5 * sec, 3 * sec, endReadTimeout},
		{"head before both", 2 * sec, pace{}, 3 * sec, 5 * sec, 2 * sec, endAnswered},
	} {
		at, how := attemptEnd(tc.head, tc.body, tc.read, tc.total)
		if at != tc.at || how != tc.how {
			t.Errorf("%s: attemptEnd(%v, %+v, R %v, T %v) = %v, %d; want %v, %d", tc.name, tc.head, tc.body, tc.read, tc.total, at, how, tc.at, tc.how)
		}
	}
}

// oneRequest is a scenario of one GET at t=0 against a target of fixed latency with a fault
// for the whole run (none when kind is ""), connecting in connect.
func oneRequest(latency, connect time.Duration, f *scenario.Fault) *scenario.Scenario {
	sc := &scenario.Scenario{
		Name: "one", Seed: 5, Duration: sec, Drain: time.Hour,
		Load: scenario.Load{Clients: 1, Burst: 1, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistFixed, Fixed: latency},
			Connect: scenario.Distribution{Kind: scenario.DistFixed, Fixed: connect},
		},
	}
	if f != nil {
		sc.Target.Phases = []scenario.Phase{{Name: "fault", For: 2 * time.Hour, Faults: []scenario.Fault{*f}}}
	}
	return sc
}

// TestEngineEndsAttemptsAsAttemptEndSays: the engine ends one attempt where the model says, for
// each kind of answer — a slow head, a hang, a drip — and the read timeout's failures carry
// their own reason; a connection's set-up counts against the total, not the read timeout.
func TestEngineEndsAttemptsAsAttemptEndSays(t *testing.T) {
	hang := &scenario.Fault{Kind: scenario.FaultHang, Percent: 1}
	drip := func(every time.Duration, size int) *scenario.Fault {
		return &scenario.Fault{Kind: scenario.FaultDrip, Percent: 1, Drip: &scenario.Drip{Every: every, Bytes: 1, Size: size}}
	}
	for _, tc := range []struct {
		name             string
		latency, connect time.Duration
		fault            *scenario.Fault
		read, total      time.Duration
		finished         time.Duration
		reason           string // "" = succeeded
	}{
		{"slow head, R", 5 * sec, 0, nil, 3 * sec, 0, 3 * sec, replay.ReasonReadTimeout},
		{"slow head under R", 2 * sec, 0, nil, 3 * sec, 0, 2 * sec, ""},
		{"slow head, T before R", 5 * sec, 0, nil, 4 * sec, 3 * sec, 3 * sec, replay.ReasonTimeout},
		{"hang, R before T", 0, 0, hang, 3 * sec, 5 * sec, 3 * sec, replay.ReasonReadTimeout},
		{"hang, no timers", 0, 0, hang, 0, 0, sec + time.Hour, replay.ReasonStuck},
		{"drip under R: a slow success", 0, 0, drip(9*sec, 4), 10 * sec, 0, 36 * sec, ""},
		{"drip under R, T ends it", 0, 0, drip(9*sec, 4), 10 * sec, 2 * sec, 2 * sec, replay.ReasonTimeout},
		{"drip over R", 0, 0, drip(9*sec, 4), 5 * sec, 0, 5 * sec, replay.ReasonReadTimeout},
		{"drip within T", 0, 0, drip(sec, 3), 2 * sec, 5 * sec, 3 * sec, ""},
		{"connect, then R from the write", 3 * sec, sec, nil, 2 * sec, 0, 3 * sec, replay.ReasonReadTimeout},
		{"connect, drip over R", 0, sec, drip(9*sec, 4), 2 * sec, 0, 3 * sec, replay.ReasonReadTimeout},
		{"connect, T from the start", 0, sec, drip(sec, 4), 2 * sec, 4 * sec, 4 * sec, replay.ReasonTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := oneRequest(tc.latency, tc.connect, tc.fault)
			p := &policy.Policy{Name: "p", ReadTimeout: tc.read, Timeout: tc.total, Retry: policy.Retry{MaxAttempts: 1}}
			res, err := RunPolicy(context.Background(), sc, p)
			if err != nil {
				t.Fatal(err)
			}
			if got := time.Duration(res.FinishedMs * float64(time.Millisecond)); got != tc.finished {
				t.Errorf("finished at %v, want %v", got, tc.finished)
			}
			if tc.reason == "" && res.Succeeded != 1 {
				t.Errorf("want a success, got %+v", res.FailureReasons)
			}
			if tc.reason != "" && res.FailureReasons[tc.reason] != 1 {
				t.Errorf("want one failure %s, got %+v", tc.reason, res.FailureReasons)
			}
		})
	}
}

// TestReadTimeoutInTheQueue: the wait for the head includes the target's queue — an attempt
// queued behind another is ended by the read timeout while it waits, and the target still
// serves it (wasted work).
func TestReadTimeoutInTheQueue(t *testing.T) {
	sc := oneRequest(2*sec, 0, nil)
	sc.Load.Burst = 2
	sc.Target.Capacity = &scenario.Capacity{Workers: 1, Queue: 10}
	p := &policy.Policy{Name: "p", ReadTimeout: 3 * sec, Retry: policy.Retry{MaxAttempts: 1}}
	res, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Succeeded != 1 || res.FailureReasons[replay.ReasonReadTimeout] != 1 || res.WastedWork != 1 {
		t.Errorf("succeeded %d, reasons %+v, wasted %d; want the first served in 2s, the second (head at 4s) ended at 3s and served anyway",
			res.Succeeded, res.FailureReasons, res.WastedWork)
	}
}

// TestUpperLayerReadTimeout: above the bottom, a read timeout bounds the wait for the call
// below (whose answer comes whole): a proxy's read timeout ends the caller's attempt.
func TestUpperLayerReadTimeout(t *testing.T) {
	sc := oneRequest(5*sec, 0, nil)
	p := &policy.Policy{Name: "p", Retry: policy.Retry{MaxAttempts: 1},
		Layers: []policy.Layer{{Name: "edge", Policy: &policy.Policy{ReadTimeout: 2 * sec, Retry: policy.Retry{MaxAttempts: 1}}}}}
	res, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.FailureReasons[replay.ReasonReadTimeout] != 1 || res.FinishedMs != 2000 {
		t.Errorf("reasons %+v finished %vms; want read_timeout at 2000ms", res.FailureReasons, res.FinishedMs)
	}
}

// TestReadTimeoutRetriedAsTimeout: a read timeout is a timeout for the policy — on: [timeout]
// retries it, and a non-idempotent request's failure after one is an unknown outcome.
func TestReadTimeoutRetriedAsTimeout(t *testing.T) {
	sc := oneRequest(0, 0, &scenario.Fault{Kind: scenario.FaultHang, Percent: 1})
	sc.Load.Request.Method = "POST"
	p := &policy.Policy{Name: "p", ReadTimeout: sec, Retry: policy.Retry{MaxAttempts: 3, On: []string{"timeout"},
		NonIdempotent: policy.NonIdempotentAlways, Backoff: policy.BackoffConstant, Base: sec, Jitter: policy.JitterNone}}
	res, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 3 || res.FailureReasons[replay.ReasonReadTimeout] != 1 || res.UnknownOutcomes != 1 || res.FinishedMs != 5000 {
		t.Errorf("attempts %d, reasons %+v, unknown %d, finished %vms; want 3 attempts ended at 1s each with 1s sleeps, read_timeout, unknown",
			res.Attempts, res.FailureReasons, res.UnknownOutcomes, res.FinishedMs)
	}
}

// dripLoad is a small run with a drip phase among healthy traffic, policies with and without
// each timer.
func dripLoad(seed int64) *scenario.Scenario {
	return &scenario.Scenario{
		Name: "drip", Seed: seed, Duration: 2 * time.Minute, Drain: time.Minute,
		Load: scenario.Load{Clients: 3, Workers: 12, Rate: 8, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistLognormal, P50: 50 * time.Millisecond, P99: 400 * time.Millisecond},
			Phases: []scenario.Phase{{Name: "drip", At: 30 * time.Second, For: 30 * time.Second,
				Faults: []scenario.Fault{{Kind: scenario.FaultDrip, Percent: 0.5, Drip: &scenario.Drip{Every: 900 * time.Millisecond, Bytes: 1, Size: 16}}}}},
		},
		Policies: []*policy.Policy{
			{Name: "read-only", ReadTimeout: sec, Retry: policy.Retry{MaxAttempts: 1}},
			{Name: "total", ReadTimeout: sec, Timeout: 2 * sec, Retry: policy.Retry{MaxAttempts: 2, On: []string{"timeout"}}},
			{Name: "jittered", ReadTimeout: 300 * time.Millisecond, Timeout: 2 * sec, Retry: policy.Retry{MaxAttempts: 3, On: []string{"timeout"},
				Backoff: policy.BackoffExponential, Base: 100 * time.Millisecond, Multiplier: 2, Cap: sec, Jitter: policy.JitterFull}},
		},
	}
}

// TestDripDeterministic: same scenario and seed, byte-identical JSON; another seed, other
// numbers. And the drip does what the model says at load: the read timeout alone never ends
// one (workers pile up), the total does.
func TestDripDeterministic(t *testing.T) {
	run := func(seed int64) ([]byte, *replay.Result) {
		res, err := Run(context.Background(), dripLoad(seed), Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b, res
	}
	a, res := run(11)
	b, _ := run(11)
	c, _ := run(12)
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same seed differ")
	}
	if bytes.Equal(a, c) {
		t.Error("a different seed gave identical results")
	}
	ro, tot := res.Policies[0], res.Policies[1]
	// A head in the latency's tail may outlast the 1 s read timeout; a drip never does.
	if ro.WorkerSaturation != 1 || ro.NoWorker == 0 || ro.FailureReasons[replay.ReasonTimeout] != 0 || ro.FailureReasons[replay.ReasonReadTimeout] > 2 {
		t.Errorf("read-only: saturation %v, no_worker %d, reasons %+v; want every worker held by drips and no drip timed out", ro.WorkerSaturation, ro.NoWorker, ro.FailureReasons)
	}
	if tot.NoWorker != 0 || tot.FailureReasons[replay.ReasonTimeout] == 0 || tot.SuccessRate <= ro.SuccessRate {
		t.Errorf("total: no_worker %d, reasons %+v, success %v vs %v; want drips ended by the total, no worker lost", tot.NoWorker, tot.FailureReasons, tot.SuccessRate, ro.SuccessRate)
	}
}
