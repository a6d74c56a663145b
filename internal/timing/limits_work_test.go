package timing

import (
	"runtime"
	"testing"
	"time"
)

// TestThreadWorkCountsWorkNotWaiting: a sleep costs no CPU, a busy loop does; so a bound on
// ThreadWork holds on a loaded machine and still catches a function that loops.
func TestThreadWorkCountsWorkNotWaiting(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU clock read on Linux only")
	}
	slept, ok := ThreadWork(func() { time.Sleep(50 * time.Millisecond) })
	if !ok || slept > 20*time.Millisecond {
		t.Errorf("a 50 ms sleep cost %v of thread CPU (ok %v), want next to none", slept, ok)
	}
	n := 0
	busy, ok := ThreadWork(func() {
		for i := 0; i < 20_000_000; i++ {
			n += i & 1
		}
	})
	if !ok || busy < time.Millisecond || n == 0 {
		t.Errorf("20M loop iterations cost %v of thread CPU (ok %v), want some", busy, ok)
	}
}
