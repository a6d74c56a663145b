package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/storm"
	"github.com/patience-dev/patience/verdict"
)

// StormText renders the storm for a terminal, fitted to its width: the verdict first, the
// model, the chart of offered load against capacity and goodput, then every policy side by
// side.
func StormText(w io.Writer, r *storm.Result, opts Options) error {
	st := opts.Styles
	width := textWidth(opts)
	var b strings.Builder
	writeHanging(&b, verdictMark(r.Verdict.Level, st)+" ", 2, textSafe(r.Verdict.Text()), width, st.Verdict)
	for _, l := range wrapSeparated(stormSubtitleParts(r), " · ", width) {
		b.WriteString(st.Muted.Render(l) + "\n")
	}
	if line := stormStable(r.Analysis); line != "" {
		writeWrapped(&b, line, width, lipgloss.NewStyle())
	}
	if r.FluidNote != "" {
		writeWrapped(&b, r.FluidNote, width, st.Muted)
	}
	b.WriteString("\n")
	if err := stormChart(&b, r, width, st); err != nil {
		return err
	}
	b.WriteString("\n")

	if len(r.Policies) > 1 {
		nameW := 0
		for _, p := range r.Policies {
			nameW = max(nameW, lipgloss.Width(textSafe(p.Name)))
		}
		for _, p := range r.Policies {
			head := verdictMark(p.Verdict.Level, st) + " " + st.Verdict.Render(fmt.Sprintf("%-*s", nameW, textSafe(p.Name))) + "  "
			writeHanging(&b, head, nameW+4, textSafe(p.Verdict.Text()), width, lipgloss.NewStyle())
		}
		b.WriteString("\n")
	}
	b.WriteString(fitTable(st, stormHeaders, stormRows(r), width, stormNumeric) + "\n")
	writeWrapped(&b, stormFootnote(r), width, st.Muted)
	if r.Interrupted {
		b.WriteString(st.Warn.Render("interrupted: only the policies above were simulated") + "\n")
	}
	levels := []verdict.Level{r.Verdict.Level}
	for _, p := range r.Policies {
		levels = append(levels, p.Verdict.Level)
	}
	writeLegend(&b, st, width, policyLegend, anyNotGraded(levels...))
	_, err := io.WriteString(w, b.String())
	return err
}

// stormHeaders are the columns of the policy table, most important first: a narrow terminal
// moves the later ones into a second table.
var stormHeaders = []string{"policy", "outcome", "peak load", "final load", "goodput", "amplification", "wasted", "stable below", "fluid bound"}

// stormNumeric says which columns of the policy table hold numbers.
func stormNumeric(col int) bool { return col >= 2 }

func stormRows(r *storm.Result) [][]string {
	rows := make([][]string, len(r.Policies))
	for i, p := range r.Policies {
		rows[i] = stormRow(p)
	}
	return rows
}

// stormChart writes the per-second chart of every policy on one time axis: the fault as a
// band and the capacity first, then for each policy its offered load (on the capacity's
// scale), its goodput and its queue (each on a scale of its own). Every scale is shared by
// the policies, so they compare by eye; goodput has its own because a collapse's offered load
// (often several times the capacity) would flatten it. Each row's figure is its own maximum
// over the seconds drawn, whatever the width. It spans the active period, zoomed onto the
// fault (and on to the last recovery), and its caption says which.
func stormChart(b *strings.Builder, r *storm.Result, width int, st Styles) error {
	tls := make([][]replay.Second, len(r.Policies))
	for i, p := range r.Policies {
		tls[i] = p.Timeline
	}
	activeFrom, activeTo, ok := activeSeconds(tls)
	if !ok {
		return nil
	}
	faults, recovered := stormFaults(r)
	span := chartSpanOf(activeFrom, activeTo, faults, recovered...)
	writeWrapped(b, "per second, "+span.caption+"; for every policy, offered load (attempts started at the dependency) on the capacity's scale, goodput and the queue each on a scale of its own", width, st.Muted)
	return Chart(b, stormSeries(r, faults, activeTo, st), ChartOptions{Width: width, From: span.from, To: span.to}, st)
}

// stormFaults are the storm's triggers as chart windows, and the moments its policies
// recovered (the end of the last fault plus each recovered policy's recovery_ms).
func stormFaults(r *storm.Result) ([]chartWindow, []float64) {
	var faults []chartWindow
	for _, t := range r.Triggers {
		faults = append(faults, chartWindow{what: "the " + t.Kind, name: t.Kind, atMs: t.AtMs, forMs: t.ForMs})
	}
	var recovered []float64
	for _, p := range r.Policies {
		if p.Recovery.Recovered && p.Recovery.RecoveryMs != nil && len(faults) > 0 {
			recovered = append(recovered, r.LastFaultEndMs+*p.Recovery.RecoveryMs)
		}
	}
	return faults, recovered
}

// stormSeries are the chart rows, read from each policy's timeline (the same figures as
// policies[].timeline in JSON: attempts, succeeded, queue_length) and capacity_per_s.
func stormSeries(r *storm.Result, faults []chartWindow, n int, st Styles) []ChartSeries {
	var series []ChartSeries
	if len(faults) > 0 {
		series = append(series, ChartSeries{Name: chartBandName(faults, "fault"), Values: chartBand(faults, n), Band: true, Style: st.BarThird})
	}
	if r.CapacityPerS != nil {
		capacity := make([]float64, n)
		for i := range capacity {
			capacity[i] = *r.CapacityPerS
		}
		series = append(series, ChartSeries{Name: "capacity", Values: capacity, Style: st.Muted, Unit: "/s", Scale: "rate"})
	}
	for _, p := range r.Policies {
		m := len(p.Timeline)
		offered, goodput, queue := make([]float64, m), make([]float64, m), make([]float64, m)
		for i, s := range p.Timeline {
			offered[i], goodput[i], queue[i] = float64(s.Attempts), float64(s.Succeeded), float64(s.QueueLength)
		}
		series = append(series,
			ChartSeries{Name: "offered", Group: p.Name, Values: offered, Style: st.BarAlt, Unit: "/s", Scale: "rate"},
			ChartSeries{Name: "goodput", Group: p.Name, Values: goodput, Style: st.Good, Unit: "/s", Scale: "goodput"},
			ChartSeries{Name: "queue", Group: p.Name, Values: queue, Peak: true, Style: st.Bar, Scale: "queue"})
	}
	return series
}

func stormSubtitleParts(r *storm.Result) []string {
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
		parts = append(parts, "scenario "+textSafe(r.Scenario))
		if r.RatePerS > 0 {
			parts = append(parts, stormRate(r.RatePerS))
		}
		if r.CapacityPerS != nil {
			parts = append(parts, stormRate(*r.CapacityPerS)+" capacity")
		}
	}
	for _, t := range r.Triggers {
		parts = append(parts, fmt.Sprintf("%s of %s at %s", t.Kind, replayDuration(t.ForMs), replayDuration(t.AtMs)))
	}
	parts = append(parts, fmt.Sprintf("%s of arrivals", replayDuration(r.DurationMs)), fmt.Sprintf("seed %d", r.Seed))
	return parts
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
	amp := replayRatio(p.PolicyResult.Amplification)
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
		textSafe(p.Name),
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
	s := "load = attempts started at the dependency ÷ capacity (final: the last 30 s of arrivals); goodput = successes/s over the same 30 s; " +
		"wasted = attempts served after their caller gave up; stable below = largest arrival rate that still recovers after the same trigger; " +
		"fluid bound: C/ΠN when every attempt times out and is retried (capacity ÷ attempts), C without retries or with a token bucket."
	ps := make([]replay.PolicyResult, len(r.Policies))
	for i, p := range r.Policies {
		ps[i] = p.PolicyResult
	}
	if note := amplificationNote(ps); note != "" {
		s += "\n" + note
	}
	return s
}

// StormMarkdown renders the storm for a pull-request comment: a heading, the verdict marked
// ✓/~/✗, the table with its numbers right-aligned, each policy's verdict, and the text chart
// in a fenced block.
func StormMarkdown(w io.Writer, r *storm.Result, _ Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### storm %s\n\n%s **%s**\n\n_%s_\n\n", mdCode(r.Scenario), r.Verdict.Level.Symbol(), mdText(r.Verdict.Text()),
		mdText(strings.Join(stormSubtitleParts(r), " · ")))
	if line := stormStable(r.Analysis); line != "" {
		b.WriteString(mdText(line) + "\n\n")
	}
	if r.FluidNote != "" {
		b.WriteString("_" + mdText(r.FluidNote) + "_\n\n")
	}
	writeMDTable(&b, stormHeaders, stormRows(r), stormNumeric)
	b.WriteString("\n")
	for _, p := range r.Policies {
		fmt.Fprintf(&b, "- %s **%s**: %s\n", p.Verdict.Level.Symbol(), mdText(p.Name), mdText(p.Verdict.Text()))
	}
	for _, para := range strings.Split(stormFootnote(r), "\n") {
		b.WriteString("\n" + mdText(para) + "\n")
	}
	var chart strings.Builder
	if err := stormChart(&chart, r, mdChartWidth, Styles{}); err != nil {
		return err
	}
	writeMDChart(&b, "per second", chart.String())
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
	"html":     StormHTML,
}

var stormRate = units.Rate
var stormTimes = units.Times
