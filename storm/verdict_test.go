package storm

import (
	"strings"
	"testing"

	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/verdict"
)

func f64p(x float64) *float64 { return &x }

// More goodput than arrivals at the end is a backlog still completing, not a collapse; little
// goodput after the trigger is.
func TestVerdictNotSettledVersusMetastable(t *testing.T) {
	triggers := []Trigger{{Name: "outage", Kind: "stall", AtMs: 30_000, ForMs: 10_000}}
	rec := replay.Recovery{Judged: true, Backlog: true}
	a := Analysis{GoodputPerS: 190, FinalOfferedPerS: 200, FinalLoadRatio: f64p(0.67)}
	v := VerdictOf(150, triggers, rec, a)
	if v.Level != verdict.Degraded || !strings.HasPrefix(v.Text(), "not settled: after the 10 s stall ends goodput never stays within 10% of arrivals; it ends at 190/s against 150/s") {
		t.Errorf("verdict = %v %q", v.Level, v.Text())
	}
	a.GoodputPerS = 3
	rec = replay.Recovery{Judged: true, Metastable: true}
	v = VerdictOf(150, triggers, rec, a)
	if v.Level != verdict.Bad || !strings.HasPrefix(v.Text(), "metastable: after the 10 s stall ends the dependency receives 0.67× its capacity") {
		t.Errorf("verdict = %v %q", v.Level, v.Text())
	}
	if got := OutcomeOf(rec, a); got != "metastable" {
		t.Errorf("outcome = %q, want metastable", got)
	}
	rec = replay.Recovery{Judged: true, Recovered: true, RecoveryMs: f64p(8000)}
	a.RecoveryS = rec.RecoverySeconds()
	if v := VerdictOf(150, triggers, rec, a); v.Level != verdict.Good || v.Text() != "recovers 8 s after the 10 s stall ends" {
		t.Errorf("verdict = %v %q", v.Level, v.Text())
	}
}
