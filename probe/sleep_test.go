package probe

import (
	"testing"
	"time"
)

// TestSleepPrecisely: never shorter than asked (nanosleep resumes after a signal with what
// is left), nothing for a wait already past. How close it comes is bench/accuracy.sh's
// "late" figure, not a timed test.
func TestSleepPrecisely(t *testing.T) {
	for _, d := range []time.Duration{-time.Millisecond, 0, 300 * time.Microsecond, 2 * time.Millisecond} {
		start := time.Now()
		sleepPrecisely(d)
		if got := time.Since(start); got < d || got > d+time.Second {
			t.Errorf("sleepPrecisely(%v) took %v", d, got)
		}
	}
}
