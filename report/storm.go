package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/storm"
)

// StormText renders the storm for a terminal: the verdict first, the model, the chart of
// offered load against capacity and goodput, then every policy side by side.
func StormText(w io.Writer, r *storm.Result, opts Options) error {
	st := opts.Styles
	var b strings.Builder
	b.WriteString(verdictMark(r.Verdict.Level, st) + " " + st.Verdict.Render(r.Verdict.Text()) + "\n")
	b.WriteString(st.Muted.Render(stormSubtitle(r)) + "\n")
	if line := stormStable(r.Analysis); line != "" {
		b.WriteString(line + "\n")
	}
	if r.FluidNote != "" {
		b.WriteString(st.Muted.Render(r.FluidNote) + "\n")
	}
	b.WriteString("\n")

	b.WriteString(st.Title.Render(r.Policy) + st.Muted.Render(" · per second until 30s after arrivals end; offered load, capacity and goodput on one scale") + "\n")
	rates, levels := stormSeries(r, st)
	if err := Chart(&b, rates, ChartOptions{Width: opts.Width, Shared: true}, st); err != nil {
		return err
	}
	if err := Chart(&b, levels, ChartOptions{Width: opts.Width}, st); err != nil {
		return err
	}
	b.WriteString("\n")

	if len(r.Policies) > 1 {
		nameW := 0
		for _, p := range r.Policies {
			nameW = max(nameW, lipgloss.Width(p.Name))
		}
		for _, p := range r.Policies {
			fmt.Fprintf(&b, "%s %s  %s\n", verdictMark(p.Verdict.Level, st), st.Verdict.Render(fmt.Sprintf("%-*s", nameW, p.Name)), p.Verdict.Text())
		}
		b.WriteString("\n")
	}
	headers := []string{"policy", "outcome", "peak load", "final load", "goodput", "amplification", "wasted", "stable below", "fluid bound"}
	t := labelledTable(st, headers...)
	for _, p := range r.Policies {
		t.Row(stormRow(p)...)
	}
	b.WriteString(t.Render() + "\n")
	for _, line := range strings.Split(stormFootnote(r), "\n") {
		b.WriteString(st.Muted.Render(line) + "\n")
	}
	if r.Interrupted {
		b.WriteString(st.Warn.Render("interrupted: only the policies above were simulated") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stormPad right-pads a label to the width of another, so two charts line up.
func stormPad(s, like string) string {
	return s + strings.Repeat(" ", max(0, lipgloss.Width(like)-lipgloss.Width(s)))
}

// stormSeries are the chart rows up to 30 s after arrivals end (the drain of a collapse can
// run for minutes and would squeeze the part that matters): offered load, capacity and
// goodput on a shared scale, then the queue and the fault windows each on their own.
func stormSeries(r *storm.Result, st Styles) (rates, levels []ChartSeries) {
	n := min(len(r.Series), int(r.DurationMs/1000)+30)
	offered, capacity, goodput := make([]float64, n), make([]float64, n), make([]float64, n)
	queue, fault := make([]float64, n), make([]float64, n)
	for i, p := range r.Series[:n] {
		offered[i], goodput[i], queue[i] = float64(p.OfferedPerS), float64(p.GoodputPerS), float64(p.QueueLength)
		if r.CapacityPerS != nil {
			capacity[i] = *r.CapacityPerS
		}
	}
	for _, t := range r.Triggers {
		for i := int(t.AtMs / 1000); i < n && float64(i)*1000 < t.AtMs+t.ForMs; i++ {
			fault[i] = 1
		}
	}
	rates = []ChartSeries{{Name: "offered", Values: offered, Style: st.BarAlt, Unit: "/s"}}
	if r.CapacityPerS != nil {
		rates = append(rates, ChartSeries{Name: "capacity", Values: capacity, Style: st.Muted, Unit: "/s"})
	}
	rates = append(rates, ChartSeries{Name: "goodput", Values: goodput, Style: st.Good, Unit: "/s"})
	levels = []ChartSeries{{Name: stormPad("queue", "capacity"), Values: queue, Peak: true, Style: st.Bar}}
	if len(r.Triggers) > 0 {
		levels = append(levels, ChartSeries{Name: "fault", Values: fault, Peak: true, Style: st.BarThird})
	}
	return rates, levels
}

func stormSubtitle(r *storm.Result) string {
	parts := []string{}
	if m := r.Model; m != nil {
		parts = append(parts, fmt.Sprintf("%s clients", replayCount(m.Clients)),
			fmt.Sprintf("%s against %s capacity (%d workers × %s)", stormRate(m.RatePerS), stormRate(m.CapacityPerS), m.Workers, replayDuration(m.ServiceMs)),
			"timeout "+replayDuration(m.TimeoutMs), "attempts "+stormInts(m.Attempts))
		if m.Queue > 0 {
			parts = append(parts, fmt.Sprintf("queue %s", replayCount(m.Queue)))
		} else {
			parts = append(parts, "unbounded queue")
		}
	} else {
		parts = append(parts, "scenario "+r.Scenario)
		if r.RatePerS > 0 {
			parts = append(parts, stormRate(r.RatePerS))
		}
		if r.CapacityPerS != nil {
			parts = append(parts, stormRate(*r.CapacityPerS)+" capacity")
		}
	}
	for _, t := range r.Triggers {
		parts = append(parts, fmt.Sprintf("%s %s@%s", t.Kind, replayDuration(t.ForMs), replayDuration(t.AtMs)))
	}
	parts = append(parts, fmt.Sprintf("%s of arrivals", replayDuration(r.DurationMs)), fmt.Sprintf("seed %d", r.Seed))
	return strings.Join(parts, " · ")
}

// stormStable is the stable_below line of the first policy, with the fluid bound beside it.
func stormStable(a storm.Analysis) string {
	var parts []string
	if a.StableBelowPerS != nil && a.Bisection != nil {
		s := "stable below " + stormRate(*a.StableBelowPerS)
		if a.Bisection.FirstFailurePerS == nil {
			s = "stable up to " + stormRate(*a.StableBelowPerS) + " (the capacity: every rate tried recovers)"
		} else if *a.StableBelowPerS == 0 {
			s = "never stable: even " + stormRate(*a.Bisection.FirstFailurePerS) + " does not recover"
		}
		parts = append(parts, fmt.Sprintf("%s (bisection: %d runs, ±%s)", s, a.Bisection.Runs, stormRate(a.Bisection.TolerancePerS)))
	}
	if a.FluidOmitted != "" {
		parts = append(parts, a.FluidOmitted)
	}
	if a.FluidBoundPerS != nil {
		s := fmt.Sprintf("fluid bound %s = %s", a.FluidBasis, stormRate(*a.FluidBoundPerS))
		if a.FluidHorizonBoundPerS != nil {
			s += fmt.Sprintf(", %s within this run's length", stormRate(*a.FluidHorizonBoundPerS))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func stormRow(p storm.PolicyResult) []string {
	opt := func(v *float64, f func(float64) string) string {
		if v == nil {
			return "n/a"
		}
		return f(*v)
	}
	amp := replayRatio(math.Round(p.PolicyResult.Amplification*100) / 100)
	if p.TheoreticalAmplification != nil {
		amp += " of " + replayRatio(*p.TheoreticalAmplification)
	}
	stable := "n/a"
	if p.StableBelowPerS != nil {
		stable = stormRate(*p.StableBelowPerS)
		if p.Bisection != nil && p.Bisection.FirstFailurePerS == nil {
			stable = "≥ " + stable
		}
	}
	return []string{
		p.Name,
		p.Outcome,
		opt(p.PeakLoadRatio, stormTimes),
		opt(p.FinalLoadRatio, stormTimes),
		stormRate(p.GoodputPerS),
		amp,
		replayCount(p.WastedWork),
		stable,
		opt(p.FluidBoundPerS, stormRate),
	}
}

func stormFootnote(r *storm.Result) string {
	return "load = attempts started at the dependency ÷ capacity (final: the last 30s of arrivals); goodput = successes/s over the same 30s;\n" +
		"wasted = attempts served after their caller gave up; stable below = largest arrival rate that still recovers after the same trigger;\n" +
		"fluid bound: C/ΠN when every attempt times out and is retried (capacity ÷ attempts), C without retries or with a token bucket."
}

// StormMarkdown renders the storm for a pull-request comment.
func StormMarkdown(w io.Writer, r *storm.Result, _ Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### storm `%s`\n\n**%s**\n\n_%s_\n\n", r.Scenario, r.Verdict.Text(), stormSubtitle(r))
	if line := stormStable(r.Analysis); line != "" {
		b.WriteString(line + "\n\n")
	}
	if r.FluidNote != "" {
		b.WriteString("_" + r.FluidNote + "_\n\n")
	}
	b.WriteString("| policy | outcome | peak load | final load | goodput | amplification | wasted | stable below | fluid bound |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range r.Policies {
		cells := stormRow(p)
		for i := range cells {
			cells[i] = replayMDEscape(cells[i])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
	for _, p := range r.Policies {
		fmt.Fprintf(&b, "- **%s**: %s\n", replayMDEscape(p.Name), replayMDEscape(p.Verdict.Text()))
	}
	if r.Interrupted {
		b.WriteString("\n_interrupted: only the policies above were simulated_\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func stormInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// StormFormats are the formats of `patience storm`.
var StormFormats = Registry[*storm.Result]{
	"text":     StormText,
	"json":     JSON[*storm.Result],
	"markdown": StormMarkdown,
}

var stormRate = units.Rate
var stormTimes = units.Times
var stormSeconds = units.Seconds
