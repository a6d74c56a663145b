package storm

import (
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
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

// TestNoteJitterSame: a jittered policy whose outcome, level and amplification are an
// unjittered policy's says why (issue 26); one that differs, or an unjittered one, does not.
func TestNoteJitterSame(t *testing.T) {
	row := func(name, outcome string, level replay.Level, amp float64) PolicyResult {
		var p PolicyResult
		p.Name, p.Outcome, p.PolicyResult.Amplification = name, outcome, amp
		p.Verdict = replay.Verdict{Level: level, Reasons: []replay.Reason{{Code: CodeMetastable, Level: level, Text: outcome}}}
		return p
	}
	plain := Layered("retries", []int{4}, time.Second)
	jit := Layered("jitter", []int{4}, time.Second)
	eachLayer(jit, func(p *policy.Policy) { p.Retry.Jitter = policy.JitterFull })
	res := &Result{Policies: []PolicyResult{
		row("retries", "metastable", verdict.Bad, 3.49),
		row("jitter", "metastable", verdict.Bad, 3.491),
		row("jitter-recovers", "recovers in 8 s", verdict.Good, 1.2),
	}}
	noteJitterSame(res, []*policy.Policy{plain, jit, jit})
	if got := res.Policies[1].Verdict.Reason(CodeJitterSame).Text; got != "as with retries, each request still became ×3.49 calls: jitter spreads retries over time, it does not remove them" {
		t.Errorf("jitter: %q", got)
	}
	if res.Policies[1].Verdict.Level != verdict.Bad {
		t.Errorf("the note changed the level: %s", res.Policies[1].Verdict.Level)
	}
	for _, i := range []int{0, 2} {
		if v := res.Policies[i].Verdict; v.Has(CodeJitterSame) {
			t.Errorf("%s: %q", res.Policies[i].Name, v.Text())
		}
	}
}
