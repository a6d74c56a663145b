package storm

import (
	"context"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/timing"
	"github.com/patience-dev/patience/policy"
)

// peakHeap samples the heap's live objects every 20 ms while f runs and returns the largest
// value seen: a stand-in for peak RSS that works inside `go test -bench`. It reads
// runtime/metrics, which does not stop the world (runtime.ReadMemStats would, and would slow
// the run it measures).
func peakHeap(f func()) uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// benchStorm runs one policy of a big quick model and reports simulated attempts per second
// of CPU and the peak live heap.
func benchStorm(b *testing.B, m Model, p *policy.Policy) {
	sc := m.Scenario([]*policy.Policy{p})
	var attempts int
	var res *Result
	start := time.Now()
	cpu0 := timing.CPUTime()
	heap := peakHeap(func() {
		for i := 0; i < b.N; i++ {
			var err error
			res, err = Run(context.Background(), sc, Options{})
			if err != nil {
				b.Fatal(err)
			}
			attempts += res.Attempts
		}
	})
	elapsed, cpu := time.Since(start), timing.CPUTime()-cpu0
	// Per second of CPU (user + system of the whole process) as well as per wall second: on
	// a shared machine the wall clock measures the neighbours too.
	b.ReportMetric(float64(attempts)/cpu.Seconds(), "attempts/cpu-s")
	b.ReportMetric(float64(attempts)/elapsed.Seconds(), "attempts/wall-s")
	b.ReportMetric(float64(res.Attempts), "attempts/run")
	b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MB")
	b.ReportMetric(*res.PeakLoadRatio, "peak-load-ratio")
	if res.Metastable {
		b.ReportMetric(1, "metastable")
	} else {
		b.ReportMetric(0, "metastable")
	}
}

// The issue's benchmark: 100,000 clients, 2,000 logical requests/s for 10 simulated minutes
// with a 10 s stall at t=60 s, 4 attempts, 1 s timeout.
func bigModel(capacity float64, queue int) Model {
	m := DefaultModel()
	m.Clients, m.RatePerS, m.CapacityPerS, m.Queue = 100_000, 2000, capacity, queue
	m.Duration = 10 * time.Minute
	m.Outages = []Window{{At: 60 * time.Second, For: 10 * time.Second}}
	return m
}

// BenchmarkStorm100kRecovers: capacity 10,000/s > λN = 8,000/s, so the backlog of the stall
// drains and the run recovers.
func BenchmarkStorm100kRecovers(b *testing.B) {
	benchStorm(b, bigModel(10_000, 0), Layered("retries", []int{4}, time.Second))
}

// BenchmarkStorm100kCollapses: capacity 5,000/s < λN, with the queue bounded at 50,000 (10 s
// of work) so memory stays bounded while the system stays collapsed for nine minutes.
func BenchmarkStorm100kCollapses(b *testing.B) {
	benchStorm(b, bigModel(5_000, 50_000), Layered("retries", []int{4}, time.Second))
}

// BenchmarkStableBelowDefault: the bisection of the default quick model (C = 300/s, 4
// attempts, 10 s stall, 3 min), the search `patience storm` runs per policy.
func BenchmarkStableBelowDefault(b *testing.B) {
	m := DefaultModel()
	sc := m.Scenario([]*policy.Policy{Layered("retries", []int{4}, time.Second)})
	var res *Result
	for i := 0; i < b.N; i++ {
		var err error
		res, err = Run(context.Background(), sc, Options{Bisect: true})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(*res.StableBelowPerS, "stable-below/s")
	b.ReportMetric(float64(res.Bisection.Runs), "runs")
}

// BenchmarkStorm100Recovers is BenchmarkStorm100kRecovers with 100 clients: the difference
// is what per-client state costs (cache misses over 100,000 clients' budgets and breakers).
func BenchmarkStorm100Recovers(b *testing.B) {
	m := bigModel(10_000, 0)
	m.Clients = 100
	benchStorm(b, m, Layered("retries", []int{4}, time.Second))
}

// issue17Model is issue 17's storm: 100,000 clients, 2,000 logical requests/s for 10
// simulated minutes, a 20 s stall at t=60 s, 3 attempts, capacity 2,200/s with an unbounded
// queue. It collapses: the queue holds millions of attempts whose callers have gone.
func issue17Model() Model {
	m := bigModel(2200, 0)
	m.Outages = []Window{{At: 60 * time.Second, For: 20 * time.Second}}
	m.Attempts = []int{3}
	return m
}

// BenchmarkStormCollapsedQueue is issue 17's storm, one policy: the compact queue's case.
func BenchmarkStormCollapsedQueue(b *testing.B) {
	benchStorm(b, issue17Model(), Layered("retries", []int{3}, time.Second))
}
