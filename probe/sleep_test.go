package probe

import (
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/timing"
)

// TestSleepPrecisely: never shorter than asked (nanosleep resumes after a signal with what
// is left), nothing for a wait already past. How close it comes is bench/accuracy.sh's
// "late" figure; the upper bound here, a second of slack, is a wall-clock bound a loaded
// machine can break, so it is checked only with PATIENCE_TIMING=1 (issue 24 item 12).
func TestSleepPrecisely(t *testing.T) {
	for _, d := range []time.Duration{-time.Millisecond, 0, 300 * time.Microsecond, 2 * time.Millisecond} {
		start := time.Now()
		sleepPrecisely(d)
		got := time.Since(start)
		if got < d || (timing.Enabled() && got > d+time.Second) {
			t.Errorf("sleepPrecisely(%v) took %v", d, got)
		}
	}
}
