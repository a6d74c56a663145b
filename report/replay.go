package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/replay"
)

// ReplayFormats are the renderers of `patience replay` (and of the live replay, which fills
// the same struct).
var ReplayFormats = Registry[*replay.Result]{
	"text":     ReplayText,
	"json":     JSON[*replay.Result],
	"markdown": ReplayMarkdown,
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

// verdictMark is the terminal mark of a verdict level.
func verdictMark(l replay.Level, st Styles) string {
	switch l {
	case replay.Degraded:
		return st.Warn.Render("!")
	case replay.Bad:
		return st.Bad.Render("✗")
	}
	return st.Good.Render("✓")
}

// verdictMarkdownMark is the Markdown mark of a verdict level.
func verdictMarkdownMark(l replay.Level) string {
	switch l {
	case replay.Degraded:
		return "⚠️"
	case replay.Bad:
		return "❌"
	}
	return "✅"
}

// replayRows are the table's metrics, one row each, policies as columns.
var replayRows = []struct {
	label string
	value func(p replay.PolicyResult) string
}{
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
	{"peak target load", func(p replay.PolicyResult) string { return chartNumber(p.PeakTargetLoadPerS) + "/s" }},
	{"peak retry burst", func(p replay.PolicyResult) string { return chartNumber(p.PeakRetryBurstPerS) + "/s" }},
	{"wasted work", func(p replay.PolicyResult) string { return replayCount(p.WastedWork) }},
}

// ReplayText renders the replay for a terminal: the story, a verdict per policy, the
// policies side by side, and a per-second chart per policy.
func ReplayText(w io.Writer, r *replay.Result, opts Options) error {
	st := opts.Styles
	var b strings.Builder
	b.WriteString(st.Title.Render("replay "+r.Scenario) + st.Muted.Render(" · "+replaySubtitle(r)) + "\n")
	if r.Description != "" {
		b.WriteString(replayWrap(r.Description, max(opts.Width, 40)) + "\n")
	}
	b.WriteString("\n")
	nameW := 0
	for _, p := range r.Policies {
		nameW = max(nameW, lipgloss.Width(p.Name))
	}
	for _, p := range r.Policies {
		mark, text := verdictMark(p.Verdict.Level, st), p.Verdict.Text()
		// Wrap the verdict under itself, so a narrow terminal keeps the names in a column.
		indent := nameW + 4
		lines := strings.Split(replayWrap(text, max(opts.Width-indent, 30)), "\n")
		fmt.Fprintf(&b, "%s %s  %s\n", mark, st.Verdict.Render(fmt.Sprintf("%-*s", nameW, p.Name)), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat(" ", indent), l)
		}
	}
	if text := lessonText(r.Lesson); text != "" {
		b.WriteString("\n")
		for _, l := range strings.Split(replayWrap(text, max(opts.Width, 40)), "\n") {
			b.WriteString(st.Muted.Render(l) + "\n")
		}
	}
	b.WriteString("\n")

	headers := []string{""}
	for _, p := range r.Policies {
		headers = append(headers, p.Name)
	}
	t := labelledTable(st, headers...)
	for _, row := range replayRows {
		cells := []string{row.label}
		for _, p := range r.Policies {
			cells = append(cells, row.value(p))
		}
		t.Row(cells...)
	}
	table := t.Render()
	if opts.Width > 0 && lipgloss.Width(table) > opts.Width {
		// Too wide for the terminal: let the table wrap its cells to fit.
		table = t.Width(opts.Width).Render()
	}
	b.WriteString(table + "\n\n")

	for _, p := range r.Policies {
		b.WriteString(st.Title.Render(p.Name) + st.Muted.Render(" · per second") + "\n")
		if err := Chart(&b, replaySeries(p, st), ChartOptions{Width: opts.Width}, st); err != nil {
			return err
		}
		b.WriteString("\n")
	}
	if r.Interrupted {
		b.WriteString(st.Warn.Render("interrupted: only the policies above were replayed") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// replaySeries are the chart rows of one policy: goodput, failures, fallbacks (when any) and
// logical requests in flight.
func replaySeries(p replay.PolicyResult, st Styles) []ChartSeries {
	n := len(p.Timeline)
	ok, failed, degraded, inFlight := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, s := range p.Timeline {
		ok[i], failed[i], degraded[i], inFlight[i] = float64(s.Succeeded), float64(s.Failed), float64(s.Degraded), float64(s.InFlight)
	}
	series := []ChartSeries{
		{Name: "ok", Values: ok, Style: st.Good, Unit: "/s"},
		{Name: "failed", Values: failed, Style: st.BarAlt, Unit: "/s"},
	}
	if p.Degraded > 0 {
		series = append(series, ChartSeries{Name: "degraded", Values: degraded, Style: st.BarThird, Unit: "/s"})
	}
	return append(series, ChartSeries{Name: "in flight", Values: inFlight, Peak: true, Style: st.Bar})
}

func replaySubtitle(r *replay.Result) string {
	return fmt.Sprintf("%s · seed %d · %s of arrivals", r.Mode, r.Seed, replayDuration(r.DurationMs))
}

// ReplayMarkdown renders the replay for a pull-request comment.
func ReplayMarkdown(w io.Writer, r *replay.Result, opts Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### replay `%s`\n\n_%s_\n\n", r.Scenario, replaySubtitle(r))
	if r.Description != "" {
		b.WriteString(r.Description + "\n\n")
	}
	for _, p := range r.Policies {
		mark, text := verdictMarkdownMark(p.Verdict.Level), p.Verdict.Text()
		fmt.Fprintf(&b, "- %s **%s**: %s\n", mark, replayMDEscape(p.Name), text)
	}
	if text := lessonText(r.Lesson); text != "" {
		b.WriteString("\n" + replayMDEscape(text) + "\n")
	}
	b.WriteString("\n|   |")
	for _, p := range r.Policies {
		b.WriteString(" " + replayMDEscape(p.Name) + " |")
	}
	b.WriteString("\n|---|")
	for range r.Policies {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, row := range replayRows {
		b.WriteString("| " + row.label + " |")
		for _, p := range r.Policies {
			b.WriteString(" " + replayMDEscape(row.value(p)) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n<details><summary>per second</summary>\n\n```text\n")
	plain := Styles{}
	for _, p := range r.Policies {
		b.WriteString(p.Name + "\n")
		if err := Chart(&b, replaySeries(p, plain), ChartOptions{Width: 80}, plain); err != nil {
			return err
		}
	}
	b.WriteString("```\n\n</details>\n")
	if r.Interrupted {
		b.WriteString("\n> interrupted: only the policies above were replayed\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func replayMDEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// replayWrap breaks text at spaces to fit width.
func replayWrap(s string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		wl := lipgloss.Width(word)
		if i > 0 {
			if line+1+wl > width {
				b.WriteString("\n")
				line = 0
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(word)
		line += wl
	}
	return b.String()
}

var replayCount = units.Count
var replayPercent = units.Percent
var replayRatio = units.Ratio
var replayDuration = units.Millis
