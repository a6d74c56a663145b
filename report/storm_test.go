package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/storm"
)

func f64(x float64) *float64 { return &x }

// stormFixture is a hand-made storm result: 100 s of arrivals at 150/s against 300/s, a 10 s
// stall at t=30; the first policy collapses at 2.0× capacity, the second recovers 8 s after
// the stall, the third runs out of time while recovering. Hand-made, so the goldens test the
// rendering only and do not move when the engine is tuned.
func stormFixture() *storm.Result {
	n := 130
	collapse, recover := make([]replay.Second, n), make([]replay.Second, n)
	series := make([]storm.Point, n)
	for t := 0; t < n; t++ {
		arr := 150
		if t >= 100 {
			arr = 0
		}
		c := replay.Second{T: t, Arrivals: arr, Attempts: arr, Succeeded: arr}
		r := c
		switch {
		case t >= 30 && t < 40:
			c.Attempts, c.Succeeded, c.QueueLength = 450, 0, (t-29)*450
			r.Attempts, r.Succeeded, r.QueueLength = 150, 0, (t-29)*150
		case t >= 40 && t < 100:
			c.Attempts, c.Succeeded, c.QueueLength = 600, 0, 4500+(t-39)*300
			if t < 48 {
				r.Succeeded, r.QueueLength = 300, 1500-(t-39)*150
			}
		case t >= 100:
			c.Attempts, c.QueueLength = 0, max(0, 22500-(t-99)*300)
		}
		collapse[t], recover[t] = c, r
		series[t] = storm.Point{T: t, Arrivals: c.Arrivals, OfferedPerS: c.Attempts, GoodputPerS: c.Succeeded, QueueLength: c.QueueLength}
	}
	first := storm.Analysis{
		PeakOfferedPerS: 612, PeakLoadRatio: f64(2.04), FinalOfferedPerS: 600, FinalLoadRatio: f64(2.0),
		GoodputPerS:     0,
		StableBelowPerS: f64(66), Bisection: &storm.Bisection{StableBelowPerS: 66, FirstFailurePerS: f64(72), LoPerS: 6, HiPerS: 300, TolerancePerS: 6, Runs: 8},
		FluidBoundPerS: f64(75), FluidHorizonBoundPerS: f64(69.13), FluidBasis: "C/ΠN (retry on timeout)",
	}
	second := storm.Analysis{
		PeakOfferedPerS: 180, PeakLoadRatio: f64(0.6), FinalOfferedPerS: 150, FinalLoadRatio: f64(0.5),
		GoodputPerS: 149.5, RecoveryS: f64(8),
		StableBelowPerS: f64(300), Bisection: &storm.Bisection{StableBelowPerS: 300, LoPerS: 6, HiPerS: 300, TolerancePerS: 6, Runs: 7},
		FluidBoundPerS: f64(300), FluidBasis: "C (no retries)",
	}
	third := storm.Analysis{
		PeakOfferedPerS: 630, PeakLoadRatio: f64(2.1), FinalOfferedPerS: 150, FinalLoadRatio: f64(0.5),
		GoodputPerS: 120,
	}
	theory4, theory1 := 4.0, 1.0
	pr := func(name string, tl []replay.Second, attempts, wasted int, theory *float64) replay.PolicyResult {
		return replay.PolicyResult{Name: name, Requests: 15000, Succeeded: 4500, Attempts: attempts, Amplification: float64(attempts) / 15000,
			TheoreticalAmplification: theory, WastedWork: wasted, Timeline: tl, FailureReasons: map[string]int{}}
	}
	recFirst := replay.Recovery{Judged: true, Metastable: true}
	recSecond := replay.Recovery{Judged: true, Recovered: true, RecoveryMs: f64(8000)}
	recThird := replay.Recovery{RecoveringS: 12}
	triggers := []storm.Trigger{{Name: "outage", Kind: "stall", AtMs: 30_000, ForMs: 10_000}}
	// Each policy's outcome and verdict come from the storm library, as in a real run.
	mk := func(p replay.PolicyResult, rec replay.Recovery, a storm.Analysis) storm.PolicyResult {
		p.Recovery = rec
		out := storm.NewPolicyResult(p, a)
		out.Outcome = storm.OutcomeOf(rec, a)
		out.Verdict = storm.VerdictOf(150, triggers, rec, a)
		return out
	}
	policies := []storm.PolicyResult{
		mk(pr("retries", collapse, 52500, 38000, &theory4), recFirst, first),
		mk(pr("no-retries", recover, 15000, 1200, &theory1), recSecond, second),
		mk(pr("token-bucket", recover, 20000, 5000, &theory4), recThird, third),
	}
	res := &storm.Result{
		Schema: storm.Schema, Scenario: "storm", Seed: 1, DurationMs: 100_000,
		Model:    &storm.Model{Clients: 100, RatePerS: 150, CapacityPerS: 300, Workers: 30, ServiceMs: 100, TimeoutMs: 1000, Attempts: []int{4}},
		RatePerS: 150, CapacityPerS: f64(300),
		Triggers:       triggers,
		LastFaultEndMs: 40_000,
		Policy:         "retries", Requests: 15000, Attempts: 52500,
		Amplification: storm.Amplification{Theoretical: &theory4, Observed: 3.5},
		WastedWork:    38000, Recovery: recFirst, Analysis: policies[0].Analysis, Series: series,
		Policies: policies,
	}
	res.Verdict = storm.Summary(res)
	return res
}

func TestStormGoldens(t *testing.T) {
	res := stormFixture()
	cases := []struct {
		name   string
		format string
		color  bool
		width  int
	}{{"storm_text_color", "text", true, 100}, {"storm_markdown", "markdown", false, 100}}
	for _, w := range goldenWidths {
		cases = append(cases, struct {
			name   string
			format string
			color  bool
			width  int
		}{fmt.Sprintf("storm_text_%d", w), "text", false, w})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			render, err := StormFormats.Get(tc.format)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := render(&b, res, replayOptions(tc.color, tc.width)); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, tc.name, b.Bytes())
		})
	}
}

func TestStormTextLeadsWithVerdict(t *testing.T) {
	var b bytes.Buffer
	if err := StormText(&b, stormFixture(), replayOptions(false, 80)); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(b.String(), "\n")
	want := "✗ 1 of 3 policies recover (no-retries); retries collapses and never recovers"
	if !strings.HasPrefix(first, want) {
		t.Errorf("first line = %q, want it to start with %q", first, want)
	}
	// Verdicts wrap under themselves; join the lines back to read them.
	text := regexp.MustCompile(`\n +`).ReplaceAllString(b.String(), " ")
	for _, s := range []string{"metastable: after the 10 s stall ends the dependency receives 2× its capacity and never recovers", "recovers 8 s after the 10 s stall ends", "inconclusive: goodput had been back for only 12 s", "stable below 66/s", "≥ 300/s"} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q", s)
		}
	}
}

func TestStormJSONContract(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, stormFixture(), Options{}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// DESIGN §3 storm fields, top level describing the first policy.
	for _, k := range []string{"schema", "requests", "attempts", "amplification", "capacity_per_s", "peak_offered_per_s",
		"peak_load_ratio", "goodput_per_s", "recovered", "recovery_s", "metastable", "stable_below_per_s", "policies", "series", "wasted_work"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if doc["schema"] != "patience/storm/v1" {
		t.Errorf("schema = %v", doc["schema"])
	}
	amp := doc["amplification"].(map[string]any)
	if amp["theoretical"] != 4.0 || amp["observed"] != 3.5 {
		t.Errorf("amplification = %v", amp)
	}
	// policies[] keep replay's shape (amplification a number) plus the storm fields.
	p := doc["policies"].([]any)[1].(map[string]any)
	for _, k := range []string{"name", "success_rate", "amplification", "timeline", "peak_target_load_per_s", "recovered", "recovery_s", "stable_below_per_s", "fluid_bound_per_s"} {
		if _, ok := p[k]; !ok {
			t.Errorf("policies[1] lacks %q", k)
		}
	}
	if _, ok := p["amplification"].(float64); !ok {
		t.Errorf("policies[1].amplification = %v, want replay's number", p["amplification"])
	}
}
