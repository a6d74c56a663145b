package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

func TestPickFault(t *testing.T) {
	ph := &scenario.Phase{Faults: []scenario.Fault{
		{Kind: scenario.FaultStatus, Percent: 0.25},
		{Kind: scenario.FaultHang, Percent: 0.5},
	}}
	for _, tc := range []struct {
		ph   *scenario.Phase
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
		{&scenario.Phase{}, 0, -1},
	} {
		if got := PickFault(tc.ph, tc.u); got != tc.want {
			t.Errorf("PickFault(%v, %v) = %d, want %d", tc.ph, tc.u, got, tc.want)
		}
	}
}

func TestPhaseAtAndLatency(t *testing.T) {
	slow := scenario.Distribution{Kind: scenario.DistFixed, Fixed: time.Second}
	sc := &scenario.Scenario{Target: scenario.Target{
		Latency: scenario.Distribution{Kind: scenario.DistFixed, Fixed: time.Millisecond},
		Phases: []scenario.Phase{
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
		p := PhaseAt(sc, tc.t)
		if p != tc.phase {
			t.Errorf("PhaseAt(%v) = %d, want %d", tc.t, p, tc.phase)
			continue
		}
		if got := PhaseLatency(sc, p).Fixed; got != tc.latency {
			t.Errorf("PhaseLatency(%d) = %v, want %v", p, got, tc.latency)
		}
	}
}

func TestStallsOfSortsStallPhases(t *testing.T) {
	sc := &scenario.Scenario{Target: scenario.Target{Phases: []scenario.Phase{
		{Name: "b", At: 30, For: 5, Stall: true},
		{Name: "x", At: 0, For: 5},
		{Name: "a", At: 10, For: 10, Stall: true},
	}}}
	got := StallsOf(sc)
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

func TestRecoveryRule(t *testing.T) {
	sc := &scenario.Scenario{Duration: 60 * time.Second, Target: scenario.Target{Phases: []scenario.Phase{
		{Name: "outage", At: 10 * time.Second, For: 10 * time.Second},
	}}}
	tl := func(failedUntil int) []replay.Second {
		s := make([]replay.Second, 70)
		for i := range s {
			s[i].T = i
			if i >= 10 && i < failedUntil {
				s[i].Failed = 1
			}
		}
		return s
	}
	for _, tc := range []struct {
		name      string
		sc        *scenario.Scenario
		tl        []replay.Second
		recovered bool
		ms        float64
	}{
		{"quiet at the phase's end", sc, tl(20), true, 0},
		{"failures 5 s after the end", sc, tl(25), true, 5000},
		{"failures into the last 10 s", sc, tl(51), false, 0},
		{"failures after the arrivals do not count", sc, append(tl(20), replay.Second{T: 70, Failed: 1}), true, 0},
		{"no phase", &scenario.Scenario{Duration: 60 * time.Second}, tl(0), false, 0},
	} {
		ok, ms := Recovery(tc.sc, tc.tl)
		if ok != tc.recovered || (ok && (ms == nil || *ms != tc.ms)) || (!ok && ms != nil) {
			t.Errorf("%s: Recovery = %v, %v; want %v, %v", tc.name, ok, ms, tc.recovered, tc.ms)
		}
	}
}
