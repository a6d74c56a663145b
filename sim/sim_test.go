package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// failing is a scenario whose target answers 503 to everything, for the whole run.
func failing(rate float64, d time.Duration) *scenario.Scenario {
	return &scenario.Scenario{
		Name: "failing", Seed: 1, Duration: d, Drain: time.Minute,
		Load: scenario.Load{Clients: 4, Rate: rate, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistFixed, Fixed: 10 * time.Millisecond},
			Phases: []scenario.Phase{{Name: "down", At: 0, For: d + time.Hour,
				Faults: []scenario.Fault{{Kind: scenario.FaultStatus, Status: 503, Percent: 1}}}},
		},
	}
}

func retrying(name string, attempts int) *policy.Policy {
	return &policy.Policy{Name: name, Timeout: time.Second, Retry: policy.Retry{
		MaxAttempts: attempts, On: []string{"5xx", "timeout"}, Backoff: "constant", Base: 10 * time.Millisecond, Jitter: "none",
	}}
}

func layered(name string, attempts ...int) *policy.Policy {
	bottom := retrying(name, attempts[len(attempts)-1])
	for i, a := range attempts[:len(attempts)-1] {
		lp := retrying("layer", a)
		lp.Timeout = 0 // upper layers wait for the whole lower call
		bottom.Layers = append(bottom.Layers, policy.Layer{Name: string(rune('a' + i)), Policy: lp})
	}
	return bottom
}

// With the dependency always failing, every layer exhausts its attempts: the observed
// amplification is exactly the product of max_attempts (docs/design.md §5).
func TestLayeredAmplificationIsTheProduct(t *testing.T) {
	for _, tc := range []struct {
		attempts []int
		want     float64
	}{
		{[]int{4}, 4},
		{[]int{3, 6}, 18},
		{[]int{4, 4, 4}, 64},
		{[]int{1, 1}, 1},
	} {
		sc := failing(20, 10*time.Second)
		pr, err := RunPolicy(context.Background(), sc, layered("p", tc.attempts...))
		if err != nil {
			t.Fatal(err)
		}
		if pr.Requests == 0 || pr.Failed != pr.Requests {
			t.Fatalf("%v: %d requests, %d failed; want all failed", tc.attempts, pr.Requests, pr.Failed)
		}
		if pr.Amplification != tc.want {
			t.Errorf("%v: amplification %v, want %v", tc.attempts, pr.Amplification, tc.want)
		}
		if pr.TheoreticalAmplification == nil || *pr.TheoreticalAmplification != tc.want {
			t.Errorf("%v: theoretical %v, want %v", tc.attempts, pr.TheoreticalAmplification, tc.want)
		}
	}
}

func hangScenario() *scenario.Scenario {
	return &scenario.Scenario{
		Name: "hang", Seed: 3, Duration: 2 * time.Minute, Drain: time.Minute,
		Load: scenario.Load{Clients: 2, Workers: 4, Rate: 10, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistLognormal, P50: 50 * time.Millisecond, P99: 200 * time.Millisecond},
			Phases: []scenario.Phase{{Name: "hang", At: 30 * time.Second, For: 30 * time.Second,
				Faults: []scenario.Fault{{Kind: scenario.FaultHang, Percent: 1}}}},
		},
		Policies: []*policy.Policy{
			{Name: "none", Retry: policy.Retry{MaxAttempts: 1}},
			{Name: "timeout", Timeout: 2 * time.Second, Retry: policy.Retry{MaxAttempts: 1}},
		},
	}
}

// A hung attempt without a timeout holds its worker forever: every worker ends up stuck,
// later arrivals are turned away, and what is still stuck at the drain end fails as "stuck".
func TestHangWithoutTimeoutSaturatesWorkers(t *testing.T) {
	res, err := Run(context.Background(), hangScenario(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	none, to := res.Policies[0], res.Policies[1]
	if none.WorkerSaturation != 1 {
		t.Errorf("no timeout: saturation %v, want 1", none.WorkerSaturation)
	}
	if got := none.FailureReasons[replay.ReasonStuck]; got != 8 {
		t.Errorf("no timeout: %d stuck, want 8 (2 clients × 4 workers)", got)
	}
	if none.NoWorker == 0 || none.SaturatedMs < 60_000 {
		t.Errorf("no timeout: no_worker %d, saturated %vms; want turned-away requests and ≥ 60s saturated", none.NoWorker, none.SaturatedMs)
	}
	if none.FinishedMs != ms(3*time.Minute) {
		t.Errorf("no timeout: finished at %vms, want the drain end", none.FinishedMs)
	}
	if to.FailureReasons[replay.ReasonStuck] != 0 || to.SuccessRate <= none.SuccessRate {
		t.Errorf("timeout: stuck %d, success %v vs %v without: want 0 stuck and more success",
			to.FailureReasons[replay.ReasonStuck], to.SuccessRate, none.SuccessRate)
	}
	if to.Requests != none.Requests {
		t.Errorf("policies saw %d and %d arrivals; common random numbers want the same", to.Requests, none.Requests)
	}
}

// Same input and seed → byte-identical JSON; another seed changes the numbers.
func TestDeterministic(t *testing.T) {
	run := func(seed int64) []byte {
		sc := hangScenario()
		sc.Seed = seed
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := run(3), run(3), run(4)
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same seed differ")
	}
	if bytes.Equal(a, c) {
		t.Error("a different seed gave identical results")
	}
}

func paymentScenario(key bool) *scenario.Scenario {
	return &scenario.Scenario{
		Name: "pay", Seed: 5, Duration: time.Minute, Drain: time.Minute,
		Load: scenario.Load{Clients: 2, Rate: 20, Request: scenario.Request{Method: "POST", IdempotencyKey: key}},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistFixed, Fixed: 100 * time.Millisecond},
			Phases: []scenario.Phase{{Name: "slow", At: 10 * time.Second, For: 20 * time.Second,
				Latency: &scenario.Distribution{Kind: scenario.DistFixed, Fixed: 3 * time.Second}}},
		},
	}
}

// Without a key, a POST retried after a timeout is executed again; with a key the target
// deduplicates and answers the stored response.
func TestIdempotencyKeyPreventsDuplicates(t *testing.T) {
	p := &policy.Policy{Name: "retry", Timeout: time.Second, Retry: policy.Retry{
		MaxAttempts: 3, On: []string{"timeout", "409", "5xx"}, NonIdempotent: "always", Backoff: "constant", Base: 3 * time.Second, Jitter: "none"}}
	without, err := RunPolicy(context.Background(), paymentScenario(false), p)
	if err != nil {
		t.Fatal(err)
	}
	with, err := RunPolicy(context.Background(), paymentScenario(true), p)
	if err != nil {
		t.Fatal(err)
	}
	if without.Duplicates == 0 {
		t.Error("without key: no duplicates, want some")
	}
	if with.Duplicates != 0 {
		t.Errorf("with key: %d duplicates, want 0", with.Duplicates)
	}
	if with.WastedWork == 0 || without.WastedWork == 0 {
		t.Errorf("wasted work %d / %d: the slow phase finishes work after callers gave up", with.WastedWork, without.WastedWork)
	}
	if with.Succeeded <= without.Succeeded-without.Duplicates-1 && with.SuccessRate < 0.9 {
		t.Errorf("with key success %v: the stored response should answer retries", with.SuccessRate)
	}
}

// A finite server queues FIFO and answers 503 when the queue is full.
func TestCapacityOverflowAnswers503(t *testing.T) {
	sc := &scenario.Scenario{
		Name: "cap", Seed: 1, Duration: 10 * time.Second, Drain: time.Minute,
		Load: scenario.Load{Clients: 1, Rate: 100, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency:  scenario.Distribution{Kind: scenario.DistFixed, Fixed: 100 * time.Millisecond},
			Capacity: &scenario.Capacity{Workers: 5, Queue: 10}, // 50/s served, 100/s offered
		},
	}
	pr, err := RunPolicy(context.Background(), sc, &policy.Policy{Name: "once", Retry: policy.Retry{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	served := pr.Succeeded
	if served < 450 || served > 520 {
		t.Errorf("served %d in 10s by 5 workers × 100ms; want about 500", served)
	}
	if pr.FailureReasons["http_503"] == 0 {
		t.Errorf("no overflow 503: %v", pr.FailureReasons)
	}
	for _, s := range pr.Timeline {
		if s.QueueLength > 10 || s.TargetBusy > 5 {
			t.Fatalf("second %d: queue %d busy %d beyond capacity", s.T, s.QueueLength, s.TargetBusy)
		}
	}
}

// A stall pauses service; work resumes where it was when the phase ends.
func TestAdvanceThroughStalls(t *testing.T) {
	stalls := scenario.Stalls{{10, 20}, {30, 35}}
	for _, tc := range []struct{ t, d, want time.Duration }{
		{0, 5, 5},
		{0, 10, 10},
		{0, 15, 25},  // 10 before the stall, 5 after it
		{12, 3, 23},  // starts inside the stall
		{5, 30, 50},  // crosses both: 5..10, 20..30, 35..50
		{40, 10, 50}, // after every stall
	} {
		if got := stalls.Advance(tc.t, tc.d); got != tc.want {
			t.Errorf("advance(%d, %d) = %d, want %d", tc.t, tc.d, got, tc.want)
		}
	}
}

func TestHeapPopsInTimeThenInsertionOrder(t *testing.T) {
	var h eventHeap
	rng := rand.New(rand.NewPCG(1, 2))
	var want []event
	for i := 0; i < 500; i++ {
		ev := event{at: time.Duration(rng.IntN(50)), gen: uint32(i)}
		h.push(ev)
		ev.seq = h.seq
		want = append(want, ev)
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].at < want[j].at })
	for i := range want {
		got := h.pop()
		if got.at != want[i].at || got.gen != want[i].gen {
			t.Fatalf("pop %d: (%d, %d), want (%d, %d)", i, got.at, got.gen, want[i].at, want[i].gen)
		}
	}
}

// A breaker rejection with fallback is degraded, not failed.
func TestBreakerFallbackDegrades(t *testing.T) {
	sc := failing(50, 30*time.Second)
	p := retrying("breaker", 1)
	p.Breaker = &policy.Breaker{FailureRate: 0.5, MinRequests: 10, Window: 10 * time.Second, OpenFor: 5 * time.Second, HalfOpen: 1}
	p.Fallback = true
	pr, err := RunPolicy(context.Background(), sc, p)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Degraded == 0 || pr.Attempts >= pr.Requests {
		t.Errorf("degraded %d, attempts %d of %d requests: an open breaker should spare the target", pr.Degraded, pr.Attempts, pr.Requests)
	}
	if pr.Succeeded+pr.Failed+pr.Degraded != pr.Requests {
		t.Errorf("%d + %d + %d != %d requests", pr.Succeeded, pr.Failed, pr.Degraded, pr.Requests)
	}
}

// The agenda's lanes and heap together pop in (time, insertion) order, whatever lane an
// event was offered to.
func TestQueuePopsInOrderAcrossLanes(t *testing.T) {
	var q queue
	rng := rand.New(rand.NewPCG(3, 4))
	type key struct {
		at time.Duration
		n  int
	}
	var want []key
	now := time.Duration(0)
	for i := 0; i < 2000; i++ {
		if rng.IntN(3) == 0 && q.len() > 0 {
			ev := q.pop()
			now = ev.at
			if len(want) == 0 || want[0].at != ev.at || want[0].n != int(ev.gen) {
				t.Fatalf("pop %d: (%d, %d), want %v", i, ev.at, ev.gen, want[:1])
			}
			want = want[1:]
			continue
		}
		at := now + time.Duration(rng.IntN(100))
		lane := rng.IntN(numLanes+1) - 1
		if lane >= 0 {
			at = now + 50 // timeouts: a fixed delay, so mostly in order
		}
		q.push(event{at: at, gen: uint32(i)}, lane)
		want = append(want, key{at, i})
		sort.SliceStable(want, func(a, b int) bool { return want[a].at < want[b].at })
	}
}

// A Prepared distribution (the lognormal parameters cached) draws exactly what the
// hand-built one draws.
func TestPreparedMatchesDistribution(t *testing.T) {
	for _, d := range []scenario.Distribution{
		{Kind: scenario.DistLognormal, P50: 80 * time.Millisecond, P99: 400 * time.Millisecond},
		{Kind: scenario.DistUniform, Min: time.Second, Max: 2 * time.Second},
		{Kind: scenario.DistFixed, Fixed: time.Millisecond},
		{},
	} {
		s := d.Prepared()
		r1, r2 := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 1000; i++ {
			if a, b := s.Sample(r1), d.Sample(r2); a != b {
				t.Fatalf("%v draw %d: Prepared %v, Distribution.Sample %v", d.Kind, i, a, b)
			}
		}
	}
}
