package sim

import (
	"context"
	"testing"

	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/scenarios"
)

// runBundled replays a bundled scenario and returns its policies by name.
func runBundled(t *testing.T, name string) map[string]replay.PolicyResult {
	t.Helper()
	sc, err := scenario.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]replay.PolicyResult{}
	for _, p := range res.Policies {
		if p.Requests == 0 {
			t.Errorf("%s/%s: no requests", name, p.Name)
		}
		if p.Succeeded+p.Failed+p.Degraded != p.Requests {
			t.Errorf("%s/%s: %d + %d + %d != %d requests", name, p.Name, p.Succeeded, p.Failed, p.Degraded, p.Requests)
		}
		out[p.Name] = p
	}
	return out
}

func need(t *testing.T, m map[string]replay.PolicyResult, name string) replay.PolicyResult {
	t.Helper()
	p, ok := m[name]
	if !ok {
		t.Fatalf("no policy %q", name)
	}
	return p
}

// Every bundled scenario replays and accounts for every request.
func TestEveryBundledScenarioReplays(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) { runBundled(t, name) })
	}
}

// Each bundled scenario promises a lesson; these tests hold the simulator to it, with the
// numbers of the seeded run.

func TestLessonDeliveryDateHang(t *testing.T) {
	m := runBundled(t, "delivery-date-hang")
	none, bf := need(t, m, "no-timeout"), need(t, m, "breaker-fallback")
	if none.WorkerSaturation != 1 || none.FailureReasons[replay.ReasonStuck] == 0 {
		t.Errorf("no-timeout: saturation %v, stuck %d; want every worker stuck", none.WorkerSaturation, none.FailureReasons[replay.ReasonStuck])
	}
	if !(none.SuccessRate*1.5 < bf.SuccessRate) {
		t.Errorf("success: no-timeout %v vs breaker-fallback %v; want much lower without timeouts", none.SuccessRate, bf.SuccessRate)
	}
	if bf.Degraded == 0 || bf.Failed*10 > none.Failed {
		t.Errorf("breaker-fallback: degraded %d, failed %d (no-timeout %d); want fallbacks instead of failures", bf.Degraded, bf.Failed, none.Failed)
	}
}

func TestLessonPaymentDoubleCharge(t *testing.T) {
	m := runBundled(t, "payment-double-charge")
	with, without, none := need(t, m, "with-key"), need(t, m, "without-key"), need(t, m, "no-retry")
	if with.Duplicates != 0 || none.Duplicates != 0 {
		t.Errorf("duplicates: with-key %d, no-retry %d; want 0", with.Duplicates, none.Duplicates)
	}
	if without.Duplicates == 0 {
		t.Error("without-key: no duplicate charges; the lesson needs some")
	}
	if none.UnknownOutcomes == 0 || with.UnknownOutcomes != 0 {
		t.Errorf("unknown outcomes: no-retry %d, with-key %d; not retrying leaves charges to confirm by hand", none.UnknownOutcomes, with.UnknownOutcomes)
	}
	if none.SuccessRate >= with.SuccessRate {
		t.Errorf("no-retry success %v ≥ with-key %v; not retrying should leave charges unconfirmed", none.SuccessRate, with.SuccessRate)
	}
}

func TestLessonLayeredRetries(t *testing.T) {
	m := runBundled(t, "layered-retries")
	every, one := need(t, m, "retry-every-layer"), need(t, m, "retry-one-layer")
	if every.Amplification < 17.1 || every.Amplification > 18 {
		t.Errorf("retry-every-layer amplification %v, want ≈ 18 (3 × 6)", every.Amplification)
	}
	if one.Amplification > 6 {
		t.Errorf("retry-one-layer amplification %v, want ≤ 6", one.Amplification)
	}
}

func TestLessonRetryStorm(t *testing.T) {
	m := runBundled(t, "retry-storm-10-servers")
	imm, exp, jit := need(t, m, "immediate"), need(t, m, "exponential"), need(t, m, "full-jitter")
	if !(imm.PeakTargetLoadPerS > exp.PeakTargetLoadPerS && imm.PeakTargetLoadPerS > jit.PeakTargetLoadPerS) {
		t.Errorf("peak load: immediate %v, exponential %v, full jitter %v; immediate retries should peak highest",
			imm.PeakTargetLoadPerS, exp.PeakTargetLoadPerS, jit.PeakTargetLoadPerS)
	}
	// Without jitter each wave of retries starts in the same instant; full jitter spreads it
	// over the backoff window. 2,976 refused herd calls retried at once is ≈ 30,000/s in one
	// 100 ms window; spread over U[0, 1s] it is ≈ 3,000/s.
	if !(imm.PeakRetryBurstPerS > exp.PeakRetryBurstPerS && exp.PeakRetryBurstPerS > 3*jit.PeakRetryBurstPerS) {
		t.Errorf("retry burst: immediate %v, exponential %v, full jitter %v; want immediate > exponential > 3 × full jitter",
			imm.PeakRetryBurstPerS, exp.PeakRetryBurstPerS, jit.PeakRetryBurstPerS)
	}
	if !(jit.Attempts < exp.Attempts && jit.SuccessRate > exp.SuccessRate+0.1) {
		t.Errorf("full jitter: %d attempts, success %v; exponential: %d, %v; jitter should do more with less",
			jit.Attempts, jit.SuccessRate, exp.Attempts, exp.SuccessRate)
	}
}

func TestLessonRateLimited(t *testing.T) {
	m := runBundled(t, "rate-limited")
	honor, ignore, uncapped, capped := need(t, m, "honor"), need(t, m, "ignore"), need(t, m, "preset:retryablehttp"), need(t, m, "capped")
	if !(ignore.Attempts > honor.Attempts && ignore.PeakTargetLoadPerS > honor.PeakTargetLoadPerS) {
		t.Errorf("ignore: %d attempts, peak %v/s; honor: %d, %v/s; ignoring Retry-After should hit the limiter harder",
			ignore.Attempts, ignore.PeakTargetLoadPerS, honor.Attempts, honor.PeakTargetLoadPerS)
	}
	if uncapped.Latency.MaxMs < 120_000 || uncapped.WorkerSaturation != 1 {
		t.Errorf("retryablehttp: max latency %vms, saturation %v; an uncapped 120 s Retry-After should park callers", uncapped.Latency.MaxMs, uncapped.WorkerSaturation)
	}
	if capped.Latency.MaxMs > 20_000 || capped.NoWorker != 0 {
		t.Errorf("capped: max latency %vms, no worker %d; a 5 s cap should keep callers moving", capped.Latency.MaxMs, capped.NoWorker)
	}
}

func TestLessonShippingQueue(t *testing.T) {
	m := runBundled(t, "shipping-queue")
	job, imm := need(t, m, "job"), need(t, m, "immediate-retries")
	if job.TheoreticalAmplification == nil || *job.TheoreticalAmplification != 6 {
		t.Errorf("job: theoretical amplification %v, want 6 tries", job.TheoreticalAmplification)
	}
	// A job that met the slow carrier waited out list delays (10 s, 30 s, ...) and Retry-After
	// (60 s): its latency runs to minutes, where immediate retries give up within seconds.
	if job.Latency.MaxMs < 60_000 {
		t.Errorf("job: max latency %vms; want the list delays and Retry-After to show", job.Latency.MaxMs)
	}
	if !(job.SuccessRate > imm.SuccessRate && job.PeakTargetLoadPerS < imm.PeakTargetLoadPerS) {
		t.Errorf("job: success %v, peak %v/s; immediate: %v, %v/s; patience should win on both",
			job.SuccessRate, job.PeakTargetLoadPerS, imm.SuccessRate, imm.PeakTargetLoadPerS)
	}
}
