package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/verdict"
)

// ReplayFormats are the renderers of `patience replay` (and of the live replay, which fills
// the same struct).
var ReplayFormats = Registry[*replay.Result]{
	"text":     ReplayText,
	"json":     JSON[*replay.Result],
	"markdown": ReplayMarkdown,
	"html":     ReplayHTML,
}

// lessonText is the lesson line under the verdicts: "The lesson: NAME — WHY (NOTE)".
func lessonText(l *replay.Lesson) string {
	if l == nil {
		return ""
	}
	s := "The lesson: " + l.Recommends
	if l.Why != "" {
		s += " — " + l.Why
	}
	if l.Note != "" {
		s += " (" + l.Note + ")"
	}
	return s
}

// verdictMark is the terminal mark of a verdict level, coloured.
func verdictMark(l replay.Level, st Styles) string {
	switch l {
	case verdict.Degraded:
		return st.Warn.Render(l.Symbol())
	case verdict.Bad:
		return st.Bad.Render(l.Symbol())
	case verdict.NotGraded:
		return st.Muted.Render(l.Symbol())
	}
	return st.Good.Render(l.Symbol())
}

// replayRow is one metric of the replay table, policies as columns.
type replayRow struct {
	label string
	value func(p replay.PolicyResult) string
}

// replayRows are the table's metrics, one row each, policies as columns.
var replayRows = []replayRow{
	{"requests", func(p replay.PolicyResult) string { return replayCount(p.Requests) }},
	{"success", func(p replay.PolicyResult) string { return replayPercent(p.SuccessRate) }},
	{"failed", func(p replay.PolicyResult) string { return replayCount(p.Failed) }},
	{"degraded", func(p replay.PolicyResult) string { return replayCount(p.Degraded) }},
	{"attempts", func(p replay.PolicyResult) string { return replayCount(p.Attempts) }},
	{"amplification", func(p replay.PolicyResult) string { return replayRatio(p.Amplification) }},
	{"  at most", func(p replay.PolicyResult) string {
		if p.TheoreticalAmplification == nil {
			return "unbounded"
		}
		return replayRatio(*p.TheoreticalAmplification)
	}},
	{"latency p50", func(p replay.PolicyResult) string { return replayDuration(p.Latency.P50Ms) }},
	{"latency p99", func(p replay.PolicyResult) string { return replayDuration(p.Latency.P99Ms) }},
	{"latency max", func(p replay.PolicyResult) string { return replayDuration(p.Latency.MaxMs) }},
	{"finished at", func(p replay.PolicyResult) string { return replayDuration(p.FinishedMs) }},
	{"duplicates", func(p replay.PolicyResult) string { return replayCount(p.Duplicates) }},
	{"unknown outcome", func(p replay.PolicyResult) string { return replayCount(p.UnknownOutcomes) }},
	{"peak in flight", func(p replay.PolicyResult) string { return replayCount(p.PeakInFlight) }},
	{"worker saturation", func(p replay.PolicyResult) string {
		if p.WorkerSaturation == 0 {
			return "n/a"
		}
		return replayPercent(p.WorkerSaturation)
	}},
	{"no worker", func(p replay.PolicyResult) string { return replayCount(p.NoWorker) }},
	{"peak target load", func(p replay.PolicyResult) string { return units.Rate(p.PeakTargetLoadPerS) }},
	{"peak retry burst", func(p replay.PolicyResult) string { return units.Rate(p.PeakRetryBurstPerS) }},
	{"wasted work", func(p replay.PolicyResult) string { return replayCount(p.WastedWork) }},
}

// streamRows are the rows a stream target adds (docs/design.md §6, streams): what became of
// its streams and what the restarts cost.
var streamRows = []replayRow{
	{"streams completed", func(p replay.PolicyResult) string { return replayCount(streamTally(p).Completed) }},
	{"  cut by a timer", func(p replay.PolicyResult) string { return replayCount(streamTally(p).Cut) }},
	{"  dropped", func(p replay.PolicyResult) string { return replayCount(streamTally(p).Dropped) }},
	{"  restarted", func(p replay.PolicyResult) string { return replayCount(streamTally(p).Restarted) }},
	{"events wasted", func(p replay.PolicyResult) string { return replayCount(streamTally(p).EventsWasted) }},
}

// streamTally is p's stream figures, zero when it has none.
func streamTally(p replay.PolicyResult) replay.StreamTally {
	if p.Streams == nil {
		return replay.StreamTally{}
	}
	return *p.Streams
}

// replayRowsOf are the table's rows for r: replayRows, and for a stream target the latency
// rows named for what they measure (the first event) and streamRows after them.
func replayRowsOf(r *replay.Result) []replayRow {
	if len(r.Policies) == 0 || r.Policies[0].LatencyFrom != replay.LatencyFirstEvent {
		return replayRows
	}
	rows := make([]replayRow, 0, len(replayRows)+len(streamRows))
	for _, row := range replayRows {
		if rest, ok := strings.CutPrefix(row.label, "latency "); ok {
			row.label = "first event " + rest
		}
		rows = append(rows, row)
	}
	return append(rows, streamRows...)
}

// ReplayText renders the replay for a terminal, fitted to its width: the story, a verdict
// per policy, the policies side by side, and one per-second chart of every policy on a
// shared time axis.
func ReplayText(w io.Writer, r *replay.Result, opts Options) error {
	st := opts.Styles
	width := textWidth(opts)
	var b strings.Builder
	writeHeadline(&b, st, "replay "+textSafe(r.Scenario), replaySubtitleParts(r), width)
	if r.Description != "" {
		writeWrapped(&b, textProse(r.Description), width, lipgloss.NewStyle())
	}
	b.WriteString("\n")
	nameW := 0
	for _, p := range r.Policies {
		nameW = max(nameW, lipgloss.Width(textSafe(p.Name)))
	}
	for _, p := range r.Policies {
		// The verdict wraps under itself, so a narrow terminal keeps the names in a column.
		head := verdictMark(p.Verdict.Level, st) + " " + st.Verdict.Render(fmt.Sprintf("%-*s", nameW, textSafe(p.Name))) + "  "
		writeHanging(&b, head, nameW+4, textSafe(p.Verdict.Text()), width, lipgloss.NewStyle())
	}
	if text := lessonText(r.Lesson); text != "" {
		b.WriteString("\n")
		writeWrapped(&b, textProse(text), width, st.Muted)
	}
	b.WriteString("\n")

	headers := []string{""}
	for _, p := range r.Policies {
		headers = append(headers, textSafe(p.Name))
	}
	var rows [][]string
	for _, row := range replayRowsOf(r) {
		cells := []string{row.label}
		for _, p := range r.Policies {
			cells = append(cells, row.value(p))
		}
		rows = append(rows, cells)
	}
	b.WriteString(fitTable(st, headers, rows, width, func(int) bool { return true }) + "\n")
	if note := amplificationNote(r.Policies); note != "" {
		writeWrapped(&b, note, width, st.Muted)
	}
	b.WriteString("\n")

	if err := replayChart(&b, r, width, st); err != nil {
		return err
	}
	if r.Interrupted {
		b.WriteString(st.Warn.Render("interrupted: only the policies above were replayed") + "\n")
	}
	levels := make([]verdict.Level, 0, len(r.Policies))
	for _, p := range r.Policies {
		levels = append(levels, p.Verdict.Level)
	}
	writeLegend(&b, st, width, policyLegend, anyNotGraded(levels...))
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHeadline writes a report's first line, the title then its facts joined by " · ",
// wrapped between facts to width.
func writeHeadline(b *strings.Builder, st Styles, title string, parts []string, width int) {
	lines := wrapSeparated(append([]string{title}, parts...), " · ", width)
	first := lines[0]
	if rest, ok := strings.CutPrefix(first, title); ok {
		b.WriteString(st.Title.Render(title) + st.Muted.Render(rest) + "\n")
	} else {
		b.WriteString(st.Title.Render(first) + "\n")
	}
	for _, l := range lines[1:] {
		b.WriteString(st.Muted.Render(l) + "\n")
	}
}

// amplificationNote gathers the policies whose amplification is below ×1, with the reason
// replay gave for each (PolicyResult.AmplificationNote), into the one sentence reports print;
// "" when every policy made at least one call per request.
func amplificationNote(ps []replay.PolicyResult) string {
	var parts []string
	for _, p := range ps {
		if p.Requests == 0 || p.Amplification >= 1 {
			continue
		}
		s := textSafe(p.Name) + " " + replayRatio(p.Amplification)
		if p.AmplificationNote != "" {
			s += " (" + p.AmplificationNote + ")"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "amplification below ×1: fewer calls reached the dependency than requests arrived, as some requests never made one — " +
		strings.Join(parts, "; ") + "."
}

// replayChart writes the per-second chart of every policy on one time axis: the active
// period, zoomed onto the incident when there is one (and on to the last recovery), with a
// caption saying which; a run too short for seconds to mean anything says so instead.
func replayChart(b *strings.Builder, r *replay.Result, width int, st Styles) error {
	tls := make([][]replay.Second, len(r.Policies))
	finished := 0.0
	for i, p := range r.Policies {
		tls[i] = p.Timeline
		finished = math.Max(finished, p.FinishedMs)
	}
	activeFrom, activeTo, ok := activeSeconds(tls)
	if !ok {
		if len(r.Policies) > 0 {
			b.WriteString(st.Muted.Render("every request finished within "+replayDuration(finished)+": too short for a per-second chart") + "\n\n")
		}
		return nil
	}
	faults, recovered := replayFaults(r)
	span := chartSpanOf(activeFrom, activeTo, faults, recovered...)
	writeWrapped(b, "per second, "+span.caption+"; the rates of every policy on one scale, requests in flight on another", width, st.Muted)
	var series []ChartSeries
	if len(faults) > 0 {
		series = append(series, ChartSeries{Name: chartBandName(faults, "incident"), Values: chartBand(faults, activeTo), Band: true, Style: st.BarThird})
	}
	for _, p := range r.Policies {
		series = append(series, replaySeries(p, st)...)
	}
	return Chart(b, series, ChartOptions{Width: width, From: span.from, To: span.to}, st)
}

// replayFaults are a replay's incidents as chart windows, and the moments its policies
// recovered (the end of the last incident plus each recovered policy's recovery_ms).
func replayFaults(r *replay.Result) ([]chartWindow, []float64) {
	var faults []chartWindow
	for _, in := range r.Incidents {
		name := replayIncidentName(in)
		faults = append(faults, chartWindow{what: "phase " + name, name: name, atMs: in.AtMs, forMs: in.ForMs})
	}
	var recovered []float64
	if r.IncidentEndMs != nil {
		for _, p := range r.Policies {
			if p.Recovery.Recovered && p.Recovery.RecoveryMs != nil {
				recovered = append(recovered, *r.IncidentEndMs+*p.Recovery.RecoveryMs)
			}
		}
	}
	return faults, recovered
}

// replayIncidentName names a phase for a chart: its name, or "incident".
func replayIncidentName(in replay.Incident) string {
	if in.Name != "" {
		return in.Name
	}
	return "incident"
}

// replaySeries are the chart rows of one policy: goodput, failures, fallbacks (when any) and
// logical requests in flight. Rates share one scale across the policies, and so do the
// requests in flight, so the policies compare by eye.
func replaySeries(p replay.PolicyResult, st Styles) []ChartSeries {
	n := len(p.Timeline)
	ok, failed, degraded, inFlight := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, s := range p.Timeline {
		ok[i], failed[i], degraded[i], inFlight[i] = float64(s.Succeeded), float64(s.Failed), float64(s.Degraded), float64(s.InFlight)
	}
	series := []ChartSeries{
		{Name: "ok", Group: p.Name, Values: ok, Style: st.Good, Unit: "/s", Scale: "rate"},
		{Name: "failed", Group: p.Name, Values: failed, Style: st.BarAlt, Unit: "/s", Scale: "rate"},
	}
	if p.Degraded > 0 {
		series = append(series, ChartSeries{Name: "degraded", Group: p.Name, Values: degraded, Style: st.BarThird, Unit: "/s", Scale: "rate"})
	}
	return append(series, ChartSeries{Name: "in flight", Group: p.Name, Values: inFlight, Peak: true, Style: st.Bar, Scale: "in flight"})
}

func replaySubtitleParts(r *replay.Result) []string {
	return []string{r.Mode, fmt.Sprintf("seed %d", r.Seed), replayDuration(r.DurationMs) + " of arrivals"}
}

// ReplayMarkdown renders the replay for a pull-request comment: a heading, the verdicts
// marked ✓/~/✗, the table with its numbers right-aligned, and the text chart in a fenced
// block.
func ReplayMarkdown(w io.Writer, r *replay.Result, _ Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### replay %s\n\n_%s_\n\n", mdCode(r.Scenario), strings.Join(replaySubtitleParts(r), " · "))
	if r.Description != "" {
		b.WriteString(mdProse(r.Description) + "\n\n")
	}
	for _, p := range r.Policies {
		fmt.Fprintf(&b, "- %s **%s**: %s\n", p.Verdict.Level.Symbol(), mdText(p.Name), mdText(p.Verdict.Text()))
	}
	if text := lessonText(r.Lesson); text != "" {
		b.WriteString("\n" + mdProse(text) + "\n")
	}
	headers := []string{""}
	for _, p := range r.Policies {
		headers = append(headers, p.Name)
	}
	var rows [][]string
	for _, row := range replayRowsOf(r) {
		cells := []string{row.label}
		for _, p := range r.Policies {
			cells = append(cells, row.value(p))
		}
		rows = append(rows, cells)
	}
	b.WriteString("\n")
	writeMDTable(&b, headers, rows, func(col int) bool { return col > 0 })
	if note := amplificationNote(r.Policies); note != "" {
		b.WriteString("\n" + mdText(note) + "\n")
	}
	var chart strings.Builder
	if err := replayChart(&chart, r, mdChartWidth, Styles{}); err != nil {
		return err
	}
	writeMDChart(&b, "per second", chart.String())
	if r.Interrupted {
		b.WriteString("\n> interrupted: only the policies above were replayed\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var replayCount = units.Count
var replayPercent = units.Percent
var replayRatio = units.Ratio
var replayDuration = units.Millis
