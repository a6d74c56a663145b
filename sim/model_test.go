package sim

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// Common random numbers: a policy's result does not depend on which other policies are
// compared with it, or in which order.
func TestPolicyResultIndependentOfOthers(t *testing.T) {
	sc := hangScenario()
	alone, err := RunPolicy(context.Background(), sc, sc.Policies[1])
	if err != nil {
		t.Fatal(err)
	}
	sc.Policies = append(sc.Policies, retrying("extra", 3))
	sc.Policies[0], sc.Policies[1] = sc.Policies[1], sc.Policies[0]
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(alone, res.Policies[0]); d != "" {
		t.Errorf("policy alone vs among others (-alone +among):\n%s", d)
	}
}

// Adding a client changes which client an arrival goes to, but not the arrival times: the
// request count is the same.
func TestArrivalsDoNotDependOnClients(t *testing.T) {
	sc := hangScenario()
	a, _ := RunPolicy(context.Background(), sc, sc.Policies[1])
	sc.Load.Clients = 5
	b, _ := RunPolicy(context.Background(), sc, sc.Policies[1])
	if a.Requests != b.Requests {
		t.Errorf("requests %d with 2 clients, %d with 5: arrivals should not depend on the client count", a.Requests, b.Requests)
	}
}

// single-row conflicts: writers that read the same version collide; the loser gets 409 and,
// when it retries, tries again. Each write counts as one more attempt.
func TestSingleRowConflicts(t *testing.T) {
	sc := &scenario.Scenario{
		Name: "row", Seed: 2, Duration: time.Second, Drain: time.Minute,
		Load: scenario.Load{Clients: 10, Burst: 50, Request: scenario.Request{Method: "PUT"}},
		Target: scenario.Target{
			Latency:   scenario.Distribution{Kind: scenario.DistUniform, Min: 5 * time.Millisecond, Max: 15 * time.Millisecond},
			Conflicts: "single-row",
		},
	}
	once, err := RunPolicy(context.Background(), sc, &policy.Policy{Name: "once", Retry: policy.Retry{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if once.FailureReasons["http_409"] == 0 || once.Succeeded == 0 {
		t.Fatalf("once: %+v; want some writes to win and some to conflict", once.FailureReasons)
	}
	if once.Attempts != 2*once.Requests {
		t.Errorf("once: %d attempts for %d requests; a read and a write each", once.Attempts, once.Requests)
	}
	retry := &policy.Policy{Name: "retry", Retry: policy.Retry{MaxAttempts: policy.Unlimited, On: []string{"409"}, Backoff: "exponential",
		Base: 10 * time.Millisecond, Multiplier: 2, Cap: time.Second, Jitter: "full"}}
	r, err := RunPolicy(context.Background(), sc, retry)
	if err != nil {
		t.Fatal(err)
	}
	if r.Succeeded != r.Requests {
		t.Errorf("unlimited retries on 409: %d of %d succeeded", r.Succeeded, r.Requests)
	}
	if r.TheoreticalAmplification != nil {
		t.Errorf("unlimited retries: theoretical amplification %v, want null", *r.TheoreticalAmplification)
	}
}

// Closed model: each loop waits for its answer and thinks before the next request, so the
// throughput is loops / (latency + think).
func TestClosedModelThroughput(t *testing.T) {
	sc := &scenario.Scenario{
		Name: "closed", Seed: 1, Duration: 100 * time.Second, Drain: time.Minute,
		Load: scenario.Load{Clients: 2, Concurrency: 10, Think: 400 * time.Millisecond},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistFixed, Fixed: 100 * time.Millisecond},
		},
	}
	pr, err := RunPolicy(context.Background(), sc, &policy.Policy{Name: "p", Retry: policy.Retry{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// 10 loops × 100 s / 0.5 s per cycle = 2000 requests (the last cycle may start before
	// the end and finish after it).
	if pr.Requests < 1990 || pr.Requests > 2010 || pr.Succeeded != pr.Requests {
		t.Errorf("closed model: %d requests, %d succeeded; want 2000 all succeeded", pr.Requests, pr.Succeeded)
	}
	if pr.PeakInFlight != 10 {
		t.Errorf("peak in flight %d, want the 10 loops", pr.PeakInFlight)
	}
}

// Retry-After in HTTP-date form is written at the target relative to the run's epoch and
// honoured by the policy: the retry waits for it (to the second, as HTTP-dates go).
func TestRetryAfterHTTPDateIsHonoured(t *testing.T) {
	sc := &scenario.Scenario{
		Name: "ra", Seed: 1, Duration: 10 * time.Second, Drain: time.Minute,
		Load: scenario.Load{Clients: 1, Rate: 5, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistFixed, Fixed: 10 * time.Millisecond},
			Phases: []scenario.Phase{{Name: "limited", At: 0, For: time.Hour, Faults: []scenario.Fault{
				{Kind: scenario.FaultStatus, Status: 429, Percent: 1, RetryAfter: &scenario.RetryAfter{Delay: 5 * time.Second, Date: true}}}}},
		},
	}
	p := &policy.Policy{Name: "honor", Retry: policy.Retry{MaxAttempts: 2, On: []string{"429"}, Backoff: "none", Jitter: "none", RetryAfter: "honor"}}
	pr, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	if pr.MalformedRetryAfter != 0 {
		t.Fatalf("%d malformed Retry-After values", pr.MalformedRetryAfter)
	}
	// Two attempts, the second after the date: between 4 s (the date is truncated to the
	// second) and 5 s.
	if pr.Latency.P50Ms < 4000 || pr.Latency.MaxMs > 5100 || pr.Attempts != 2*pr.Requests {
		t.Errorf("latency p50 %vms max %vms, %d attempts for %d requests; want each retry ~5 s later",
			pr.Latency.P50Ms, pr.Latency.MaxMs, pr.Attempts, pr.Requests)
	}
	p.Retry.RetryAfter = "ignore"
	ig, _ := RunPolicy(context.Background(), sc, p)
	if ig.Latency.MaxMs > 100 {
		t.Errorf("ignore: max latency %vms; the retry should not wait", ig.Latency.MaxMs)
	}
}

// FuzzRunPolicy builds small scenarios from fuzzed knobs: the simulator must not panic, must
// finish, and must account for every request.
func FuzzRunPolicy(f *testing.F) {
	f.Add(uint8(2), uint8(4), uint16(20), uint8(3), uint8(50), uint8(1), uint8(0), uint8(2), uint16(500), uint8(0), false, false)
	f.Add(uint8(1), uint8(0), uint16(5), uint8(1), uint8(100), uint8(2), uint8(1), uint8(0), uint16(0), uint8(3), true, true)
	f.Add(uint8(3), uint8(1), uint16(1), uint8(6), uint8(30), uint8(3), uint8(2), uint8(1), uint16(50), uint8(1), true, false)
	f.Fuzz(func(t *testing.T, clients, workers uint8, rate uint16, attempts, faultPct, faultKind, layers, capW uint8, timeoutMs uint16, jitter uint8, key, stall bool) {
		kinds := []scenario.FaultKind{scenario.FaultStatus, scenario.FaultHang, scenario.FaultReset, scenario.FaultRefuse}
		sc := &scenario.Scenario{
			Name: "fuzz", Seed: int64(rate), Duration: 5 * time.Second, Drain: 10 * time.Second,
			Load: scenario.Load{Clients: int(clients%4) + 1, Workers: int(workers % 8), Rate: float64(rate%200) + 1,
				Request: scenario.Request{Method: "POST", IdempotencyKey: key}},
			Target: scenario.Target{
				Latency: scenario.Distribution{Kind: scenario.DistExponential, Min: time.Millisecond, ExpMean: 20 * time.Millisecond},
				Phases: []scenario.Phase{{Name: "f", At: time.Second, For: 2 * time.Second, Stall: stall,
					Faults: []scenario.Fault{{Kind: kinds[int(faultKind)%len(kinds)], Status: 503, Percent: float64(faultPct%101) / 100}}}},
			},
		}
		if capW%4 != 0 {
			sc.Target.Capacity = &scenario.Capacity{Workers: int(capW % 4), Queue: int(capW % 3)}
		}
		jitters := []policy.Jitter{policy.JitterNone, policy.JitterFull, policy.JitterEqual, policy.JitterProportional}
		mk := func(n int) *policy.Policy {
			return &policy.Policy{Name: "p", Timeout: time.Duration(timeoutMs%2000) * time.Millisecond, Deadline: 3 * time.Second,
				Retry: policy.Retry{MaxAttempts: n, On: []string{"connect", "timeout", "reset", "5xx", "409"}, NonIdempotent: "with_key",
					Backoff: policy.BackoffExponential, Base: 10 * time.Millisecond, Multiplier: 2, Cap: 200 * time.Millisecond, Jitter: jitters[int(jitter)%4], JitterFactor: 0.5},
				Breaker:  &policy.Breaker{FailureRate: 0.5, MinRequests: 5, Window: time.Second, OpenFor: 500 * time.Millisecond, HalfOpen: 1},
				Fallback: key,
			}
		}
		p := mk(int(attempts%6) + 1)
		for i := 0; i < int(layers%3); i++ {
			p.Layers = append(p.Layers, policy.Layer{Name: "l", Policy: mk(2)})
		}
		pr, err := RunPolicy(context.Background(), sc, p)
		if err != nil {
			t.Fatal(err)
		}
		if pr.Succeeded+pr.Failed+pr.Degraded != pr.Requests {
			t.Fatalf("%d + %d + %d != %d requests", pr.Succeeded, pr.Failed, pr.Degraded, pr.Requests)
		}
		checkTimeline(t, pr)
		if pr.WorkerSaturation > 1 || pr.SuccessRate > 1 {
			t.Fatalf("saturation %v, success %v", pr.WorkerSaturation, pr.SuccessRate)
		}
		if th := pr.TheoreticalAmplification; th != nil && pr.Amplification > *th+1e-9 {
			t.Fatalf("amplification %v above the theoretical %v", pr.Amplification, *th)
		}
	})
}

// checkTimeline asserts the per-second buckets add up to the totals.
func checkTimeline(t *testing.T, pr replay.PolicyResult) {
	t.Helper()
	var arr, att, ok, failed, deg int
	for i, s := range pr.Timeline {
		if s.T != i {
			t.Fatalf("bucket %d has t=%d", i, s.T)
		}
		arr, att, ok, failed, deg = arr+s.Arrivals, att+s.Attempts, ok+s.Succeeded, failed+s.Failed, deg+s.Degraded
	}
	if arr != pr.Requests || att != pr.Attempts || ok != pr.Succeeded || failed != pr.Failed || deg != pr.Degraded {
		t.Fatalf("timeline sums %d/%d/%d/%d/%d, totals %d/%d/%d/%d/%d (arrivals/attempts/ok/failed/degraded)",
			arr, att, ok, failed, deg, pr.Requests, pr.Attempts, pr.Succeeded, pr.Failed, pr.Degraded)
	}
}

func TestTimelineAddsUp(t *testing.T) {
	res, err := Run(context.Background(), hangScenario(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range res.Policies {
		checkTimeline(t, pr)
	}
}

// A bulkhead caps concurrent calls per client; rejections answer from the fallback
// (degraded) when the policy has one, else fail with reason bulkhead.
func TestBulkhead(t *testing.T) {
	sc := &scenario.Scenario{
		Name: "bulk", Seed: 1, Duration: 10 * time.Second, Drain: time.Minute,
		Load: scenario.Load{Clients: 1, Rate: 50, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistFixed, Fixed: time.Second}, // 50 in flight wanted
		},
	}
	p := &policy.Policy{Name: "bulk", Retry: policy.Retry{MaxAttempts: 1}, Bulkhead: &policy.Bulkhead{MaxConcurrent: 10}}
	pr, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	if pr.FailureReasons[replay.ReasonBulkhead] == 0 || pr.Attempts > pr.Requests/3 {
		t.Errorf("bulkhead 10 at 50 in flight: %d attempts of %d requests, reasons %v", pr.Attempts, pr.Requests, pr.FailureReasons)
	}
	p.Fallback = true
	fb, _ := RunPolicy(context.Background(), sc, p)
	if fb.Degraded != pr.FailureReasons[replay.ReasonBulkhead] || fb.Failed != 0 {
		t.Errorf("with fallback: %d degraded, %d failed; want the %d rejections degraded", fb.Degraded, fb.Failed, pr.FailureReasons[replay.ReasonBulkhead])
	}
}

// A worker stays busy through the backoff sleep between attempts (the seeds' Gunicorn
// story): with one worker and a long backoff, arrivals meanwhile find no worker.
func TestWorkerBusyThroughBackoff(t *testing.T) {
	sc := failing(2, 10*time.Second)
	sc.Load.Clients, sc.Load.Workers = 1, 1
	p := retrying("sleepy", 2)
	p.Retry.Base = 5 * time.Second
	pr, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	if pr.NoWorker == 0 || pr.WorkerSaturation != 1 || pr.SaturatedMs < 5000 {
		t.Errorf("no worker %d, saturation %v for %vms; the sleeping retry should hold the only worker", pr.NoWorker, pr.WorkerSaturation, pr.SaturatedMs)
	}
}

// Recovery: after the hang ends, a policy with a timeout stops failing within seconds; one
// without keeps failing (its workers never come back).
func TestRecovery(t *testing.T) {
	sc := hangScenario()
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.IncidentEndMs == nil || *res.IncidentEndMs != 60_000 {
		t.Fatalf("incident end %v, want 60000", res.IncidentEndMs)
	}
	none, to := res.Policies[0], res.Policies[1]
	if none.Recovered || none.RecoveryMs != nil {
		t.Errorf("no timeout: recovered %v after %v; stuck workers never come back", none.Recovered, none.RecoveryMs)
	}
	if !to.Recovered || to.RecoveryMs == nil || *to.RecoveryMs > 5000 {
		t.Errorf("timeout: recovered %v after %v ms; want within a few seconds of the hang's end", to.Recovered, to.RecoveryMs)
	}
}

// An answer that arrives exactly at the caller's timeout is too late: the timer fires first.
func TestAnswerAtTheTimeoutIsATimeout(t *testing.T) {
	sc := &scenario.Scenario{
		Name: "tie", Seed: 1, Duration: 5 * time.Second, Drain: time.Minute,
		Load: scenario.Load{Clients: 1, Rate: 10, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistFixed, Fixed: time.Second},
		},
	}
	p := &policy.Policy{Name: "tie", Timeout: time.Second, Retry: policy.Retry{MaxAttempts: 1}}
	pr, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	if pr.FailureReasons[replay.ReasonTimeout] != pr.Requests || pr.WastedWork != pr.Requests {
		t.Errorf("%d requests: %v, wasted %d; want every one timed out and its work wasted", pr.Requests, pr.FailureReasons, pr.WastedWork)
	}
	p.Timeout = time.Second + time.Nanosecond
	ok, _ := RunPolicy(context.Background(), sc, p)
	if ok.Succeeded != ok.Requests {
		t.Errorf("a nanosecond more: %d of %d succeeded", ok.Succeeded, ok.Requests)
	}
}

// An upper layer that gives up on a lower call does not stop it: the lower layer does not know
// and keeps retrying, so even with short upper timeouts against a hanging dependency every
// layer's attempts multiply.
func TestAbandonedLowerCallsKeepRetrying(t *testing.T) {
	sc := failing(10, 10*time.Second)
	sc.Target.Phases[0].Faults = []scenario.Fault{{Kind: scenario.FaultHang, Percent: 1}}
	p := layered("p", 3, 6)
	p.Timeout = 100 * time.Millisecond
	p.Layers[0].Policy.Timeout = 50 * time.Millisecond // gives up long before the lower call ends
	pr, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Amplification != 18 {
		t.Errorf("amplification %v, want 18: abandoned lower calls still make their 6 attempts", pr.Amplification)
	}
	if pr.FailureReasons[replay.ReasonTimeout] != pr.Requests {
		t.Errorf("reasons %v; every logical request should time out at the top", pr.FailureReasons)
	}
}
