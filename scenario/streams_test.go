package scenario

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestPickFault(t *testing.T) {
	ph := &Phase{Faults: []Fault{
		{Kind: FaultStatus, Percent: 0.25},
		{Kind: FaultHang, Percent: 0.5},
	}}
	for _, tc := range []struct {
		ph   *Phase
		u    float64
		want int
	}{
		{ph, 0, 0},
		{ph, 0.2499, 0},
		{ph, 0.25, 1}, // each fault takes [acc, acc+percent)
		{ph, 0.7499, 1},
		{ph, 0.75, -1},
		{ph, 0.9999, -1},
		{nil, 0, -1},
		{&Phase{}, 0, -1},
	} {
		if got := tc.ph.PickFault(tc.u); got != tc.want {
			t.Errorf("PickFault(%v, %v) = %d, want %d", tc.ph, tc.u, got, tc.want)
		}
	}
}

func TestPhaseAtAndLatency(t *testing.T) {
	slow := Distribution{Kind: DistFixed, Fixed: time.Second}
	sc := &Scenario{Target: Target{
		Latency: Distribution{Kind: DistFixed, Fixed: time.Millisecond},
		Phases: []Phase{
			{Name: "late", At: 20 * time.Second, For: 5 * time.Second},
			{Name: "slow", At: 10 * time.Second, For: 5 * time.Second, Latency: &slow},
		},
	}}
	for _, tc := range []struct {
		t       time.Duration
		phase   int
		latency time.Duration
	}{
		{0, -1, time.Millisecond},
		{10 * time.Second, 1, time.Second}, // a phase starts at At...
		{15*time.Second - 1, 1, time.Second},
		{15 * time.Second, -1, time.Millisecond}, // ...and ends before At+For
		{22 * time.Second, 0, time.Millisecond},  // no latency of its own: the base one
	} {
		p := sc.PhaseAt(tc.t)
		if p != tc.phase {
			t.Errorf("PhaseAt(%v) = %d, want %d", tc.t, p, tc.phase)
			continue
		}
		if got := sc.PhaseLatency(p).Fixed; got != tc.latency {
			t.Errorf("PhaseLatency(%d) = %v, want %v", p, got, tc.latency)
		}
	}
}

func TestStallsOfSortsStallPhases(t *testing.T) {
	sc := &Scenario{Target: Target{Phases: []Phase{
		{Name: "b", At: 30, For: 5, Stall: true},
		{Name: "x", At: 0, For: 5},
		{Name: "a", At: 10, For: 10, Stall: true},
	}}}
	got := sc.Stalls()
	if len(got) != 2 || got[0] != [2]time.Duration{10, 20} || got[1] != [2]time.Duration{30, 35} {
		t.Fatalf("StallsOf = %v, want [[10 20] [30 35]]", got)
	}
}

// SeedTarget reseeds in place: the draws after it depend only on (seed, id, attempt), not on
// what the generator did before, and differ between attempts.
func TestSeedTargetIsAFunctionOfItsArguments(t *testing.T) {
	var p rand.PCG
	draw := func(id, attempt uint64) uint64 {
		SeedTarget(&p, 7, id, attempt)
		return p.Uint64()
	}
	a := draw(3, 1)
	p.Uint64()
	if b := draw(3, 1); b != a {
		t.Fatalf("same (seed, id, attempt) drew %d then %d", a, b)
	}
	if draw(3, 2) == a || draw(4, 1) == a {
		t.Fatal("another attempt or request drew the same number")
	}
}
