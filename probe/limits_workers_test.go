package probe_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/probe"
)

// TestConcurrencyBound (issue 24 item 1): `-c 1000000000 -n 3` grew to 23 GB because one
// goroutine per worker was started before anything else was looked at. A worker count past
// the documented bound is refused by Validate, naming the flag and the bound, before any
// worker exists; the bound itself is accepted.
func TestConcurrencyBound(t *testing.T) {
	for _, c := range []int{1_000_000_000, 1_000_000, 10_001} {
		cfg := probe.Config{URL: "http://127.0.0.1:1/", Concurrency: c, Requests: 3}
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), "--concurrency") || !strings.Contains(err.Error(), "10000") {
			t.Errorf("-c %d: Validate() = %v, want it refused, naming --concurrency and the bound 10000", c, err)
		}
	}
	cfg := probe.Config{URL: "http://127.0.0.1:1/", Concurrency: 10_000, Requests: 3}
	if err := cfg.Validate(); err != nil {
		t.Errorf("-c 10000: %v, want the bound itself accepted", err)
	}
	cfg = probe.Config{URL: "http://127.0.0.1:1/", MaxInFlight: 1_000_000_000}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--max-in-flight") {
		t.Errorf("--max-in-flight 1e9: Validate() = %v, want it refused naming the flag", err)
	}
}

// mallocsOf counts the heap allocations of one probe run: work, not wall time, so the
// assertion holds on a loaded machine.
func mallocsOf(t *testing.T, ctx context.Context, cfg probe.Config) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := probe.Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

// TestWorkersNoMoreThanRequests (issue 24 item 1): `-c 10000 -n 3` starts 3 workers, not
// 10,000: its allocations are those of `-c 3 -n 3` give or take a few thousand (each
// worker costs at least its caller, read buffer, context and goroutine: 40,000 allocations
// for 10,000 of them).
func TestWorkersNoMoreThanRequests(t *testing.T) {
	url := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }))
	cfg := func(c int) probe.Config {
		return probe.Config{URL: url + "/", Concurrency: c, Requests: 3, Conn: "reuse", MaxTimeout: 5 * time.Second}
	}
	mallocsOf(t, context.Background(), cfg(3)) // warm up (lazy package state)
	few := mallocsOf(t, context.Background(), cfg(3))
	many := mallocsOf(t, context.Background(), cfg(10_000))
	if many > few+5_000 {
		t.Errorf("-c 10000 -n 3 made %d allocations, -c 3 -n 3 %d: workers were started beyond the 3 requests", many, few)
	}
}

// TestCancelledBeforeWorkersStart (issue 24 item 1): Ctrl-C while the workers are being
// started stops the starting; a run whose context is already done starts none of its
// 10,000 workers and comes back interrupted.
func TestCancelledBeforeWorkersStart(t *testing.T) {
	url := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) }))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	base := mallocsOf(t, ctx, probe.Config{URL: url + "/", Concurrency: 1, Duration: time.Hour})
	n := mallocsOf(t, ctx, probe.Config{URL: url + "/", Concurrency: 10_000, Duration: time.Hour})
	if n > base+5_000 {
		t.Errorf("a cancelled -c 10000 run made %d allocations (-c 1: %d): its workers were started anyway", n, base)
	}
	r, err := probe.Run(ctx, probe.Config{URL: url + "/", Concurrency: 10_000, Duration: time.Hour})
	if err != nil || !r.Interrupted || r.Requests != 0 {
		t.Errorf("cancelled run: %+v, %v; want interrupted with no request", r, err)
	}
}
