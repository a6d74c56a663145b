package sim

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/timing"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// benchScenario is the benchmark of the issue: 100 clients for 10 minutes, a lognormal
// target with a capacity, and a dependency that fails a fifth of its calls so the policy
// retries (with backoff and jitter, a token-bucket budget and a breaker on the hot path).
func benchScenario(d time.Duration) (*scenario.Scenario, *policy.Policy) {
	sc := &scenario.Scenario{
		Name: "bench", Seed: 1, Duration: d, Drain: time.Minute,
		Load: scenario.Load{Clients: 100, Workers: 64, Rate: 2000, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency:  scenario.Distribution{Kind: scenario.DistLognormal, P50: 20 * time.Millisecond, P99: 200 * time.Millisecond},
			Capacity: &scenario.Capacity{Workers: 400, Queue: 1000},
			Phases: []scenario.Phase{{Name: "flaky", At: 0, For: d,
				Faults: []scenario.Fault{{Kind: scenario.FaultStatus, Status: 503, Percent: 0.2}, {Kind: scenario.FaultReset, Percent: 0.02}}}},
		},
	}
	p := &policy.Policy{Name: "retry", Timeout: 2 * time.Second, Retry: policy.Retry{
		MaxAttempts: 4, On: []string{"5xx", "timeout", "reset"}, Backoff: "exponential", Base: 50 * time.Millisecond,
		Multiplier: 2, Cap: time.Second, Jitter: "full"},
		Budget:  &policy.Budget{Kind: "token_bucket", Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1},
		Breaker: &policy.Breaker{FailureRate: 0.9, MinRequests: 100, Window: 10 * time.Second, OpenFor: 5 * time.Second, HalfOpen: 1},
	}
	return sc, p
}

// BenchmarkRunPolicy reports simulated attempts per second of wall time on one goroutine, and
// the heap in use at the end of a run (memory follows the timeline, not the request count).
func BenchmarkRunPolicy(b *testing.B) {
	sc, p := benchScenario(10 * time.Minute)
	b.ReportAllocs()
	attempts := 0
	var heap uint64
	cpu0 := timing.CPUTime()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		pr, err := RunPolicy(context.Background(), sc, p)
		if err != nil {
			b.Fatal(err)
		}
		attempts += pr.Attempts
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapInuse)
	}
	elapsed := time.Since(start).Seconds()
	cpu := (timing.CPUTime() - cpu0).Seconds()
	b.ReportMetric(float64(attempts)/elapsed, "attempts/s")
	// On a shared machine the wall clock includes time spent waiting for a core; CPU time
	// (run with GOMAXPROCS=1, so the process is one core plus a little GC) is the fair figure.
	b.ReportMetric(float64(attempts)/cpu, "attempts/cpu-s")
	b.ReportMetric(float64(attempts)/float64(b.N), "attempts/op")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}

// Memory is bounded by concurrency and the timeline, not by how many requests pass: ten
// times the run length must not cost anywhere near ten times the allocations.
func TestAllocationsDoNotGrowWithRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two simulations")
	}
	allocs := func(d time.Duration) (float64, int) {
		sc, p := benchScenario(d)
		sc.Load.Rate = 200
		var pr replay.PolicyResult
		n := testing.AllocsPerRun(1, func() {
			var err error
			if pr, err = RunPolicy(context.Background(), sc, p); err != nil {
				t.Fatal(err)
			}
		})
		return n, pr.Requests
	}
	short, reqShort := allocs(time.Minute)
	long, reqLong := allocs(10 * time.Minute)
	if reqLong < 9*reqShort {
		t.Fatalf("requests %d vs %d: the long run should have ~10×", reqLong, reqShort)
	}
	if long > 3*short {
		t.Errorf("allocations: %v for %d requests vs %v for %d; want memory bounded, not per request", long, reqLong, short, reqShort)
	}
}
