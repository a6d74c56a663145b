package timing

import (
	"slices"
	"testing"
	"time"
)

// Watch measures how late the host's timers fire while a timing test runs: a goroutine
// sleeps 1 ms at a time and records each overshoot. A quiet host overshoots by well under a
// millisecond; a host that overshoots by several cannot judge a latency to the millisecond —
// the target's own sleeps and the client's scheduling both run late, and a test's bounds
// then measure the host, not the code (a clean-clone CI run beside other work saw a target's
// own p99 of 196 ms where its distribution gives 33).
type Watch struct {
	stop chan struct{}
	done chan []time.Duration
}

// StartWatch starts measuring timer lateness until Stop or SkipIfBusy.
func StartWatch() *Watch {
	w := &Watch{stop: make(chan struct{}), done: make(chan []time.Duration, 1)}
	go func() {
		var late []time.Duration
		for {
			select {
			case <-w.stop:
				w.done <- late
				return
			default:
			}
			start := time.Now()
			time.Sleep(time.Millisecond)
			late = append(late, time.Since(start)-time.Millisecond)
		}
	}()
	return w
}

// Stop ends the measure and returns the 99th percentile of the overshoots (0 when none).
func (w *Watch) Stop() time.Duration {
	close(w.stop)
	return p99(<-w.done)
}

// p99 is the nearest-rank 99th percentile of late (sorted in place; 0 when empty).
func p99(late []time.Duration) time.Duration {
	if len(late) == 0 {
		return 0
	}
	slices.Sort(late)
	return late[(len(late)*99)/100]
}

// BusyLimit is the timer overshoot (p99) above which a host is too busy to judge a latency
// to the millisecond.
const BusyLimit = 5 * time.Millisecond

// SkipIfBusy stops w and skips t, saying what was measured, when the host's timers ran more
// than BusyLimit late at p99 during the test: its figures measured the host.
func (w *Watch) SkipIfBusy(t testing.TB) {
	t.Helper()
	if p99 := w.Stop(); p99 > BusyLimit {
		t.Skipf("host too busy to judge accuracy: its timers fired %s late (p99) during the test, past %s", p99, BusyLimit)
	}
}
