package scenario

import (
	"strings"
	"testing"
	"time"
)

// dripTarget is a target-only scenario (enough for serve) with one fault line, line 4.
func dripTarget(fault string) string {
	return "target:\n  latency: {fixed: 1ms}\n  phases:\n    - {at: 0s, for: 1m, faults: [" + fault + "]}\n"
}

// TestDripFaultLoadsForServe: a drip fault's pace and body, with the defaults.
func TestDripFaultLoadsForServe(t *testing.T) {
	for _, tc := range []struct {
		fault string
		want  Drip
	}{
		{"{drip: 50%, every: 2s}", Drip{Every: 2 * time.Second, Bytes: 1, Size: 64}},
		{"{drip: 100%, every: 50ms, bytes: 2, size: 5}", Drip{Every: 50 * time.Millisecond, Bytes: 2, Size: 5}},
	} {
		sc, err := ParseFor([]byte(dripTarget(tc.fault)), "d.yaml", ForServe)
		if err != nil {
			t.Fatalf("%s: %v", tc.fault, err)
		}
		f := sc.Target.Phases[0].Faults[0]
		if f.Kind != FaultDrip || f.Drip == nil || *f.Drip != tc.want {
			t.Errorf("%s: got %+v %+v, want %+v", tc.fault, f, f.Drip, tc.want)
		}
	}
	if got := (Drip{Bytes: 2, Size: 5}).Pieces(); got != 3 {
		t.Errorf("Pieces of 5 bytes 2 at a time = %d, want 3", got)
	}
}

// TestDripFaultErrors: each problem at its file:line:col and path (the fault's { is column 34:
// a missing every points at the drip key, a bad value at the value, a stray key at the key).
func TestDripFaultErrors(t *testing.T) {
	for _, tc := range []struct {
		fault, want string
	}{
		{"{drip: 100%}", "d.yaml:4:35: target.phases[0].faults[0].every: required"},
		{"{drip: 100%, every: 0s}", "d.yaml:4:54: target.phases[0].faults[0].every: must be above 0"},
		{"{drip: 100%, every: 1s, size: 2000000}", "d.yaml:4:64: target.phases[0].faults[0].size: 2000000 is above the 1048576 bytes"},
		{"{drip: 100%, every: 1s, size: 0}", "d.yaml:4:64: target.phases[0].faults[0].size: must be at least 1"},
		{"{drip: 100%, every: 1s, size: 4, bytes: 5}", "d.yaml:4:74: target.phases[0].faults[0].bytes: 5 is more than the body's size, 4"},
		{"{drip: 100%, every: 1m}", "d.yaml:4:54: target.phases[0].faults[0].every: 64 pieces every 1m take over 1h"},
		{"{drip: 100%, every: 1s, percent: 5%}", "d.yaml:4:58: target.phases[0].faults[0].percent: only a status fault takes percent"},
		{"{hang: 100%, every: 1s}", "d.yaml:4:47: target.phases[0].faults[0].every: only a drip fault takes every"},
		{"{status: 503, size: 3}", "d.yaml:4:48: target.phases[0].faults[0].size: only a drip fault takes size"},
		{"{drip: 50%, hang: 50%, every: 1s}", "a fault is exactly one of"},
	} {
		_, err := ParseFor([]byte(dripTarget(tc.fault)), "d.yaml", ForServe)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.fault, err, tc.want)
		}
	}
}

// TestDripFaultLoadsForReplay: the simulator models a body's pace (docs/design.md §6), so
// replay, storm and check load a drip fault as serve does, with the same pace.
func TestDripFaultLoadsForReplay(t *testing.T) {
	src := "duration: 1m\nload: {rate: 1/s}\npolicy: {timeout: 1s}\n" + dripTarget("{drip: 10%, every: 1s, size: 8}")
	for _, p := range []Purpose{ForReplay, ForServe} {
		sc, err := ParseFor([]byte(src), "d.yaml", p)
		if err != nil {
			t.Fatalf("for %s: %v", p, err)
		}
		f := sc.Target.Phases[0].Faults[0]
		if f.Kind != FaultDrip || f.Percent != 0.1 || f.Drip == nil || *f.Drip != (Drip{Every: time.Second, Bytes: 1, Size: 8}) {
			t.Errorf("for %s: got %+v %+v", p, f, f.Drip)
		}
	}
	// The pace's checks hold for replay too.
	bad := "duration: 1m\nload: {rate: 1/s}\npolicy: {timeout: 1s}\n" + dripTarget("{drip: 100%}")
	if _, err := Parse([]byte(bad), "d.yaml"); err == nil || !strings.Contains(err.Error(), "d.yaml:7:35: target.phases[0].faults[0].every: required") {
		t.Errorf("a drip without every, for replay: got %v", err)
	}
}
