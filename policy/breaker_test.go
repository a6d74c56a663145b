package policy

import (
	"testing"
	"time"
)

// breakerOp is one step against a breaker: Allow (allow=true) or Record(success), then the
// state expected afterwards.
type breakerOp struct {
	at      time.Duration
	allow   bool // call Allow instead of Record
	success bool // Record's argument
	want    bool // Allow's expected answer
	state   string
}

func runBreaker(t *testing.T, b *BreakerState, ops []breakerOp) {
	t.Helper()
	for i, op := range ops {
		if op.allow {
			if got := b.Allow(op.at); got != op.want {
				t.Fatalf("op %d: Allow(%v) = %v, want %v", i+1, op.at, got, op.want)
			}
		} else {
			b.Record(op.at, op.success)
		}
		if got := b.State(op.at); got != op.state {
			t.Fatalf("op %d at %v: state %s, want %s", i+1, op.at, got, op.state)
		}
	}
}

func allowOp(at time.Duration, want bool, state string) breakerOp {
	return breakerOp{at: at, allow: true, want: want, state: state}
}
func rec(at time.Duration, success bool, state string) breakerOp {
	return breakerOp{at: at, success: success, state: state}
}

var stdBreaker = Breaker{FailureRate: 0.5, MinRequests: 4, Window: 10 * sec, OpenFor: 30 * sec, HalfOpen: 1}

func TestBreakerTransitions(t *testing.T) {
	b := NewBreakerState(&stdBreaker)
	runBreaker(t, b, []breakerOp{
		allowOp(0, true, BreakerClosed),
		rec(1*sec, false, BreakerClosed),
		rec(2*sec, false, BreakerClosed),
		rec(3*sec, true, BreakerClosed), // 2/3 failing but only 3 < min_requests results
		rec(4*sec, true, BreakerOpen),   // 2/4 = 50% ≥ 50% over 4 results → open at 4s
		allowOp(5*sec, false, BreakerOpen),
		rec(6*sec, true, BreakerOpen), // a late result while open is dropped
		allowOp(34*sec-1, false, BreakerOpen),
		allowOp(34*sec, true, BreakerHalfOpen),  // open_for 30s passed: one probe
		allowOp(34*sec, false, BreakerHalfOpen), // half_open 1: no second probe
		rec(35*sec, false, BreakerOpen),         // probe failed → open again from 35s
		allowOp(64*sec, false, BreakerOpen),
		allowOp(65*sec, true, BreakerHalfOpen),
		rec(66*sec, true, BreakerClosed), // probe succeeded → closed, window empty
		allowOp(66*sec, true, BreakerClosed),
		rec(67*sec, false, BreakerClosed),
		rec(67*sec, false, BreakerClosed),
		rec(67*sec, false, BreakerClosed), // 3 failures < min_requests: the window was emptied
		rec(67*sec, false, BreakerOpen),
	})
	if b.Opens() != 3 {
		t.Errorf("Opens = %d, want 3", b.Opens())
	}
}

func TestBreakerBelowThreshold(t *testing.T) {
	b := NewBreakerState(&stdBreaker)
	runBreaker(t, b, []breakerOp{
		rec(0, false, BreakerClosed), rec(0, true, BreakerClosed), rec(0, true, BreakerClosed),
		rec(0, true, BreakerClosed),                               // 1/4 = 25%
		rec(0, true, BreakerClosed), rec(0, false, BreakerClosed), // 2/6 = 33%
		rec(0, false, BreakerClosed), // 3/7 = 43%
		rec(0, false, BreakerOpen),   // 4/8 = 50%
	})
}

func TestBreakerWindowSlides(t *testing.T) {
	b := NewBreakerState(&stdBreaker) // 10s window in 1s buckets
	runBreaker(t, b, []breakerOp{
		rec(0, false, BreakerClosed),
		rec(1*sec, false, BreakerClosed),
		rec(2*sec, false, BreakerClosed),
		// At 12s the buckets of 0–2s have left: only this success is in the window.
		rec(12*sec, true, BreakerClosed),
		rec(12*sec, false, BreakerClosed),
		rec(12*sec, false, BreakerClosed),
		rec(12*sec, false, BreakerOpen), // 3/4
	})
	// Without a window everything since the last close counts.
	nw := stdBreaker
	nw.Window = 0
	runBreaker(t, NewBreakerState(&nw), []breakerOp{
		rec(0, false, BreakerClosed), rec(time.Hour, false, BreakerClosed),
		rec(2*time.Hour, true, BreakerClosed), rec(3*time.Hour, true, BreakerOpen),
	})
}

func TestBreakerHalfOpenProbes(t *testing.T) {
	cfg := stdBreaker
	cfg.HalfOpen = 2
	cfg.MinRequests = 1
	cfg.FailureRate = 1
	b := NewBreakerState(&cfg)
	runBreaker(t, b, []breakerOp{
		rec(0, false, BreakerOpen),
		allowOp(30*sec, true, BreakerHalfOpen),
		allowOp(30*sec, true, BreakerHalfOpen),
		allowOp(30*sec, false, BreakerHalfOpen),
		rec(31*sec, true, BreakerHalfOpen), // one of two probes succeeded
		rec(31*sec, false, BreakerOpen),    // the other failed → open
		allowOp(61*sec, true, BreakerHalfOpen),
		allowOp(61*sec, true, BreakerHalfOpen),
		rec(62*sec, true, BreakerHalfOpen),
		rec(62*sec, true, BreakerClosed),
	})
}

// TestBreakerLostProbe: a probe admitted but never recorded (refused by the bulkhead after
// Allow, or hung) must not leave the breaker half-open forever: OpenFor after it was admitted,
// a new probe is admitted.
func TestBreakerLostProbe(t *testing.T) {
	b := NewBreakerState(&Breaker{FailureRate: 1, MinRequests: 1, OpenFor: 30 * sec, HalfOpen: 1})
	runBreaker(t, b, []breakerOp{
		rec(0, false, BreakerOpen),
		allowOp(30*sec, true, BreakerHalfOpen), // this probe is lost
		allowOp(59*sec, false, BreakerHalfOpen),
		allowOp(60*sec, true, BreakerHalfOpen), // re-armed
		allowOp(60*sec, false, BreakerHalfOpen),
		rec(61*sec, true, BreakerClosed),
	})
}

// TestBreakerNeverOpensWithoutFailures: failure_rate 0 would be met by 0 failures; a breaker
// must not open on a healthy dependency.
func TestBreakerNeverOpensWithoutFailures(t *testing.T) {
	cfg := stdBreaker
	cfg.FailureRate = 0
	b := NewBreakerState(&cfg)
	for i := 0; i < 100; i++ {
		b.Record(time.Duration(i)*ms, true)
	}
	if b.State(sec) != BreakerClosed {
		t.Fatal("opened without failures")
	}
	b.Record(sec, false)
	if b.State(sec) != BreakerOpen {
		t.Fatal("failure_rate 0: one failure should open")
	}
}

func TestBreakerNil(t *testing.T) {
	var b *BreakerState = NewBreakerState(nil)
	if b != nil {
		t.Fatal("nil config → nil state")
	}
	b.Record(0, false)
	if !b.Allow(0) || b.State(0) != BreakerClosed || b.Opens() != 0 {
		t.Error("nil breaker must allow everything")
	}
}

func TestBulkhead(t *testing.T) {
	b := NewBulkheadState(&Bulkhead{MaxConcurrent: 2})
	steps := []struct {
		acquire bool
		want    bool
		inUse   int
	}{
		{true, true, 1}, {true, true, 2}, {true, false, 2}, {false, true, 1}, {true, true, 2}, {true, false, 2},
		{false, true, 1}, {false, true, 0},
	}
	for i, s := range steps {
		if s.acquire {
			if got := b.TryAcquire(); got != s.want {
				t.Fatalf("step %d: TryAcquire = %v", i+1, got)
			}
		} else {
			b.Release()
		}
		if b.InUse() != s.inUse {
			t.Fatalf("step %d: InUse = %d, want %d", i+1, b.InUse(), s.inUse)
		}
	}
	if b.Rejected() != 2 {
		t.Errorf("Rejected = %d, want 2", b.Rejected())
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Release without TryAcquire did not panic")
			}
		}()
		b.Release()
	}()

	var none *BulkheadState = NewBulkheadState(nil)
	for i := 0; i < 1000; i++ {
		if !none.TryAcquire() {
			t.Fatal("nil bulkhead refused")
		}
	}
	none.Release()
	unlimited := NewBulkheadState(&Bulkhead{})
	for i := 0; i < 1000; i++ {
		if !unlimited.TryAcquire() {
			t.Fatal("max_concurrent 0 refused")
		}
	}
	if unlimited.InUse() != 1000 || none.InUse() != 0 || none.Rejected() != 0 {
		t.Error("counts")
	}
}
