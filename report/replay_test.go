package report

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// replayFixture is a real, seeded, short simulation: a dependency hangs for 30 s; three
// policies face it. Deterministic, so the goldens are byte-stable.
func replayFixture(t testing.TB) *replay.Result {
	t.Helper()
	sc := &scenario.Scenario{
		Name: "hang-demo", Description: "A dependency hangs for 30 s; each client has 4 workers.",
		Seed: 11, Duration: 2 * time.Minute, Drain: time.Minute,
		Load: scenario.Load{Clients: 2, Workers: 4, Rate: 10, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency: scenario.Distribution{Kind: scenario.DistLognormal, P50: 50 * time.Millisecond, P99: 200 * time.Millisecond},
			Phases: []scenario.Phase{{Name: "hang", At: 30 * time.Second, For: 30 * time.Second,
				Faults: []scenario.Fault{{Kind: scenario.FaultHang, Percent: 1}}}},
		},
		Policies: []*policy.Policy{
			{Name: "no-timeout", Retry: policy.Retry{MaxAttempts: 1}},
			{Name: "timeout-2s", Timeout: 2 * time.Second, Retry: policy.Retry{MaxAttempts: 2, On: []string{"timeout"}, Backoff: "none", Jitter: "none"}},
			{Name: "breaker", Timeout: 2 * time.Second, Fallback: true, Retry: policy.Retry{MaxAttempts: 1},
				Breaker: &policy.Breaker{FailureRate: 0.5, MinRequests: 5, Window: 10 * time.Second, OpenFor: 10 * time.Second, HalfOpen: 1}},
		},
	}
	res, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func replayOptions(color bool, width int) Options {
	r := lipgloss.NewRenderer(&bytes.Buffer{})
	r.SetColorProfile(termenv.Ascii)
	if color {
		r.SetColorProfile(termenv.ANSI256)
	}
	return Options{Styles: NewStyles(r), Width: width, Color: color}
}

// goldenWidths are the terminal widths every text report is checked at.
var goldenWidths = []int{80, 100, 160}

func TestReplayGoldens(t *testing.T) {
	res := replayFixture(t)
	type golden_ struct {
		name   string
		format string
		color  bool
		width  int
	}
	cases := []golden_{{"replay_text_color", "text", true, 100}, {"replay_markdown", "markdown", false, 100}}
	for _, w := range goldenWidths {
		cases = append(cases, golden_{fmt.Sprintf("replay_text_%d", w), "text", false, w})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			render, err := ReplayFormats.Get(tc.format)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := render(&buf, res, replayOptions(tc.color, tc.width)); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, tc.name, buf.Bytes())
			// Same input, same bytes.
			var again bytes.Buffer
			if err := render(&again, replayFixture(t), replayOptions(tc.color, tc.width)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), again.Bytes()) {
				t.Error("two renderings of the same replay differ")
			}
		})
	}
}

func TestReplayVerdicts(t *testing.T) {
	res := replayFixture(t)
	var buf bytes.Buffer
	if err := ReplayText(&buf, res, replayOptions(false, 100)); err != nil {
		t.Fatal(err)
	}
	// Verdicts wrap under themselves; join the lines back to read them.
	out := regexp.MustCompile(`\n +`).ReplaceAllString(buf.String(), " ")
	for _, want := range []string{
		"✗ no-timeout  every worker of a client stuck for",
		"unrelated pages die",
		"answered from the fallback (degraded, not failed)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestChartFitsWidth(t *testing.T) {
	vals := make([]float64, 600)
	for i := range vals {
		vals[i] = float64(i % 37)
	}
	for _, width := range []int{40, 80, 200} {
		var buf bytes.Buffer
		err := Chart(&buf, []ChartSeries{{Name: "ok", Values: vals, Unit: "/s"}, {Name: "in flight", Values: vals, Peak: true}},
			ChartOptions{Width: width}, replayOptions(false, width).Styles)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
			if w := lipgloss.Width(line); w > width {
				t.Errorf("width %d: line %q is %d wide", width, line, w)
			}
		}
	}
}

func TestChartGlyphs(t *testing.T) {
	for _, tc := range []struct {
		v, top float64
		want   rune
	}{
		{0, 10, ' '},
		{0.01, 10, '▁'}, // any non-zero value stays visible
		{10, 10, '█'},
		{5, 10, '▄'},
		{3, 0, ' '},
	} {
		if got := chartGlyph(tc.v, tc.top); got != tc.want {
			t.Errorf("chartGlyph(%v, %v) = %q, want %q", tc.v, tc.top, got, tc.want)
		}
	}
}

// The JSON contract (docs/design.md §3) that live, check and storm read: field names and shapes. The
// timelines are cut to three seconds to keep the golden readable.
func TestReplayJSONGolden(t *testing.T) {
	res := replayFixture(t)
	for i := range res.Policies {
		res.Policies[i].Timeline = res.Policies[i].Timeline[:3]
	}
	var buf bytes.Buffer
	if err := JSON(&buf, res, Options{}); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "replay_json", buf.Bytes())
}

// TestReplayDrippingBodyGolden: the bundled dripping-body scenario as `patience replay
// dripping-body` prints it (issue 27 item 5): the read timeout alone ✗ (every worker held by
// drips it never ends), the total and the retry within a deadline ~. The simulation is
// seeded, so the bytes are stable; a change of the drip model shows here.
func TestReplayDrippingBodyGolden(t *testing.T) {
	sc, err := scenario.Open("dripping-body")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	render, err := ReplayFormats.Get("text")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := render(&buf, res, replayOptions(false, 100)); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "replay_dripping_body_text", buf.Bytes())
	// JSON carries the same judgement the text prints: the levels and the reasons.
	want := map[string]struct {
		level  string
		reason string
	}{"read-timeout-only": {"bad", replay.ReasonNoWorker}, "total-timeout": {"degraded", replay.ReasonTimeout}, "retry-deadline": {"degraded", replay.ReasonTimeout}}
	for _, p := range res.Policies {
		w := want[p.Name]
		if string(p.Verdict.Level) != w.level || p.FailureReasons[w.reason] == 0 {
			t.Errorf("%s: verdict %s, reasons %v; want %s with %s failures", p.Name, p.Verdict.Level, p.FailureReasons, w.level, w.reason)
		}
	}
}
