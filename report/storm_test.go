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
	// docs/design.md §3 storm fields, top level describing the first policy.
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

// stormChartRow is one row of a text chart: the policy heading it is under ("" for the
// rows before any policy), its name, its strip and its figure.
type stormChartRow struct{ group, name, strip, figure string }

// stormChartRows splits a text chart into its rows. The capacity row is a full strip: where
// it starts and ends is where every strip does.
func stormChartRows(t *testing.T, text string, policies []string) []stormChartRow {
	t.Helper()
	isPolicy := map[string]bool{}
	for _, p := range policies {
		isPolicy[p] = true
	}
	lines := strings.Split(text, "\n")
	col, stripW := -1, 0
	for _, line := range lines {
		if i := strings.IndexRune(line, '▄'); strings.HasPrefix(line, "capacity ") && i > 0 {
			col, stripW = len([]rune(line[:i])), strings.Count(line, "▄")
		}
	}
	if col < 0 {
		t.Fatalf("no capacity row:\n%s", text)
	}
	var rows []stormChartRow
	group := ""
	for _, line := range lines {
		if isPolicy[line] {
			group = line
			continue
		}
		r := []rune(line)
		if len(r) <= col || strings.TrimSpace(string(r[:col])) == "" {
			continue // the caption, the axis
		}
		strip := string(r[col:min(col+stripW, len(r))])
		if strings.Trim(strip, " ▁▂▃▄▅▆▇█") != "" {
			continue // a caption line
		}
		figure := ""
		if len(r) > col+stripW {
			figure = strings.TrimSpace(string(r[col+stripW:]))
		}
		rows = append(rows, stormChartRow{group: group, name: strings.TrimSpace(string(r[:col])), strip: strip, figure: figure})
	}
	return rows
}

// The storm chart shows every policy, on one time axis, with the fault as a band (no
// figure: a boolean is not a rate), the capacity once, and per-row figures that are the
// row's own maximum over the seconds drawn — the same at every width.
func TestStormChartEveryPolicyOneAxis(t *testing.T) {
	r := stormFixture()
	names := make([]string, len(r.Policies))
	for i, p := range r.Policies {
		names[i] = p.Name
	}
	figuresAt := map[int]map[string]string{}
	for _, width := range goldenWidths {
		var b strings.Builder
		if err := stormChart(&b, r, width, Styles{}); err != nil {
			t.Fatal(err)
		}
		text := b.String()
		rows := stormChartRows(t, text, names)
		if len(rows) != 2+3*len(names) {
			t.Fatalf("width %d: %d chart rows, want the band, the capacity and 3 per policy:\n%s", width, len(rows), text)
		}
		if rows[0].name != "stall" || rows[0].figure != "" || rows[0].group != "" {
			t.Errorf("width %d: first row %+v, want the stall band without a figure", width, rows[0])
		}
		if rows[1].name != "capacity" || rows[1].figure != "300/s" {
			t.Errorf("width %d: second row %+v, want capacity 300/s", width, rows[1])
		}
		figures := map[string]string{}
		for _, row := range rows {
			figures[row.group+"/"+row.name] = row.figure
		}
		for _, p := range names {
			for _, row := range []string{"offered", "goodput", "queue"} {
				if _, ok := figures[p+"/"+row]; !ok {
					t.Errorf("width %d: no %s row for %s", width, row, p)
				}
			}
		}
		// One axis for every policy: up to the end of the stall band, each policy's goodput
		// is blank exactly under the band (all three serve nothing during the stall).
		band := []rune(rows[0].strip)
		first := strings.IndexRune(rows[0].strip, '█')
		for _, row := range rows {
			if row.name != "goodput" {
				continue
			}
			g := []rune(row.strip)
			for c, b := range band {
				if (b == '█') != (g[c] == ' ') {
					t.Errorf("width %d: %s's goodput at column %d is %q under band %q: not on the band's axis", width, row.group, c, g[c], b)
					break
				}
			}
		}
		if first <= 0 {
			t.Errorf("width %d: the stall band starts at column %d, want after the zoom's lead-in", width, first)
		}
		if !strings.Contains(text, "20 s") || !strings.Contains(text, "1 min 10 s") {
			t.Errorf("width %d: the axis does not run from 20 s to 1 min 10 s:\n%s", width, text)
		}
		figuresAt[width] = figures
	}
	// The figures are each row's own, from the data, whatever the width.
	want := map[string]string{"retries/offered": "max 600/s", "retries/goodput": "max 150/s", "retries/queue": "max 13.5k",
		"no-retries/offered": "150/s", "no-retries/goodput": "max 300/s", "no-retries/queue": "max 1.5k"}
	for _, width := range goldenWidths {
		for k, v := range want {
			if got := figuresAt[width][k]; got != v {
				t.Errorf("width %d: %s figure %q, want %q", width, k, got, v)
			}
		}
	}
}

// Every series the chart draws is in storm's JSON: each policy's timeline (attempts,
// succeeded, queue_length per second), capacity_per_s and the triggers.
func TestStormChartSeriesAreInJSON(t *testing.T) {
	r := stormFixture()
	var b bytes.Buffer
	if err := JSON(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		CapacityPerS float64 `json:"capacity_per_s"`
		Triggers     []struct {
			Kind  string  `json:"kind"`
			AtMs  float64 `json:"at_ms"`
			ForMs float64 `json:"for_ms"`
		} `json:"triggers"`
		Policies []struct {
			Name     string `json:"name"`
			Timeline []struct {
				T           int `json:"t"`
				Attempts    int `json:"attempts"`
				Succeeded   int `json:"succeeded"`
				QueueLength int `json:"queue_length"`
			} `json:"timeline"`
		} `json:"policies"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	faults, _ := stormFaults(r)
	series := stormSeries(r, faults, 130, Styles{})
	group := map[string][]ChartSeries{}
	for _, s := range series {
		group[s.Group] = append(group[s.Group], s)
	}
	shared := group[""]
	if len(shared) != 2 || shared[0].Name != doc.Triggers[0].Kind || shared[1].Values[0] != doc.CapacityPerS {
		t.Fatalf("band and capacity rows %+v do not match the JSON's triggers and capacity_per_s", shared)
	}
	for i, v := range shared[0].Values {
		in := float64(i)*1000 >= doc.Triggers[0].AtMs && float64(i)*1000 < doc.Triggers[0].AtMs+doc.Triggers[0].ForMs
		if (v > 0) != in {
			t.Errorf("band at %d s is %v, the trigger says %v", i, v, in)
		}
	}
	if len(doc.Policies) != len(r.Policies) {
		t.Fatalf("%d policies in JSON, %d in the result", len(doc.Policies), len(r.Policies))
	}
	for _, p := range doc.Policies {
		rows := group[p.Name]
		if len(rows) != 3 {
			t.Fatalf("%s: %d chart rows", p.Name, len(rows))
		}
		for _, s := range p.Timeline {
			for j, v := range []int{s.Attempts, s.Succeeded, s.QueueLength} {
				if rows[j].Values[s.T] != float64(v) {
					t.Errorf("%s %s at %d s: chart %v, JSON %d", p.Name, rows[j].Name, s.T, rows[j].Values[s.T], v)
				}
			}
		}
	}
}

// The span of a per-second chart: the active period, zoomed onto the faults, on to the last
// recovery when that comes later, and captioned with what it shows.
func TestChartSpan(t *testing.T) {
	stall := []chartWindow{{what: "the stall", name: "stall", atMs: 30_000, forMs: 10_000}}
	for _, tc := range []struct {
		name             string
		from, to         int
		faults           []chartWindow
		recovered        []float64
		wantFrom, wantTo int
		caption          string
	}{
		{"no fault: the active period", 0, 130, nil, nil, 0, 130, "0 s – 2 min 10 s, first arrival to last completion"},
		{"a stall: zoomed", 0, 130, stall, nil, 20, 70,
			"20 s – 1 min 10 s around the stall (30 s – 40 s), of 0 s – 2 min 10 s from first arrival to last completion"},
		{"a recovery inside the zoom changes nothing", 0, 130, stall, []float64{48_000}, 20, 70,
			"20 s – 1 min 10 s around the stall (30 s – 40 s), of 0 s – 2 min 10 s from first arrival to last completion"},
		{"a later recovery: the zoom reaches past it", 0, 200, stall, []float64{48_000, 87_400}, 20, 98,
			"20 s – 1 min 38 s around the stall (30 s – 40 s) and the last recovery (1 min 27 s), of 0 s – 3 min 20 s from first arrival to last completion"},
		{"a zoom of most of the run: the whole run, the fault marked", 0, 60, stall, nil, 0, 60,
			"0 s – 1 min, first arrival to last completion; the stall (30 s – 40 s) marked"},
		{"a fault after the last completion: the whole run", 0, 100, []chartWindow{{what: "the stall", atMs: 109_000, forMs: 10_000}}, nil, 0, 100,
			"0 s – 1 min 40 s, first arrival to last completion; the stall (1 min 49 s – 1 min 59 s) marked"},
		{"a fault to the end of the run", 0, 300, []chartWindow{{what: "the stall", atMs: 200_000}}, nil, 175, 300,
			"2 min 55 s – 5 min around the stall (3 min 20 s – 5 min), of 0 s – 5 min from first arrival to last completion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := chartSpanOf(tc.from, tc.to, tc.faults, tc.recovered...)
			if got.from != tc.wantFrom || got.to != tc.wantTo || got.caption != tc.caption {
				t.Errorf("chartSpanOf = [%d, %d) %q\nwant [%d, %d) %q", got.from, got.to, got.caption, tc.wantFrom, tc.wantTo, tc.caption)
			}
		})
	}
}
