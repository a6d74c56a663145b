package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/advise"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
)

// AdviseFormats renders an advise result: the probe report of every sample (one source of
// report code), then what only data read from logs has — the bucket bracket, the proxy's
// attempts per request, the distribution per window and the groups.
var AdviseFormats = Registry[*advise.Result]{
	"text":     AdviseText,
	"json":     adviseJSON,
	"markdown": AdviseMarkdown,
	"html":     AdviseHTML,
}

func adviseJSON(w io.Writer, r *advise.Result, _ Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// adviseAttempts is adviseAttemptsLine in legacy figures: the HTML report's.
func adviseAttempts(a *advise.Attempts) string { return adviseAttemptsLine(a, unitFigures) }

// adviseAttemptsLine is the attempts line: "1.04 per request, measured (320 attempts for 312
// requests; by attempts 1: 304 · 2: 8)".
func adviseAttemptsLine(a *advise.Attempts, fig figures) string {
	keys := make([]int, 0, len(a.ByCount))
	for k := range a.ByCount {
		n, _ := strconv.Atoi(k)
		keys = append(keys, n)
	}
	sort.Ints(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d: %s", k, fig.count(a.ByCount[strconv.Itoa(k)])))
	}
	return fmt.Sprintf("%s per request, measured (%s attempts for %s requests; by attempts %s)",
		units.Sig(a.PerRequest), fig.count(a.Attempts), fig.count(a.Requests), strings.Join(parts, " · "))
}

// adviseBracket is one quantile's bucket line.
func adviseBracket(q advise.Bracket) string {
	if q.LowerOnly {
		return fmt.Sprintf("%-6s ≥ %s (above the top bucket: lower bound only)", q.Label, units.Millis(q.LowerMs))
	}
	return fmt.Sprintf("%-6s in (%s, %s], estimate %s", q.Label, units.Millis(q.LowerMs), units.Millis(*q.UpperMs), units.Millis(q.EstimateMs))
}

// adviseGroupBrackets are the --by groups that carry their own bucket brackets (bucketed
// input), in the groups' order.
func adviseGroupBrackets(r *advise.Result) []advise.Group {
	var out []advise.Group
	for _, g := range r.Groups {
		if len(g.Buckets) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// adviseGroupCells is adviseGroupRow in legacy figures: the HTML report's.
func adviseGroupCells(g advise.Group) []string { return adviseGroupRow(g, unitFigures) }

// adviseGroupRow is one group's row: key, samples, p50, p99, timeout, connect, attempts,
// verdict.
func adviseGroupRow(g advise.Group, fig figures) []string {
	r := g.Result
	p50, p99 := "n/a", "n/a"
	if t := r.Phases.Total; t != nil {
		if t.P50Ms != nil {
			p50 = units.Millis(*t.P50Ms)
		}
		if t.P99Ms != nil {
			p99 = units.Millis(*t.P99Ms)
		} else {
			p99 = "n/a (n=" + fig.count(t.Count) + ")"
		}
	}
	rec := r.Recommendation
	timeout, connect, attempts := "none", probeConnect(rec), strconv.Itoa(rec.MaxAttempts)
	if rec.TimeoutMs > 0 {
		timeout = units.Millis(rec.TimeoutMs)
	} else {
		connect, attempts = "-", "-"
	}
	return []string{textSafe(g.Key), fig.count(g.Samples), p50, p99, timeout, connect, attempts, rec.Verdict.Level.Symbol()}
}

var adviseGroupHeaders = []string{"group", "n", "p50", "p99", "timeout", "connect", "attempts", ""}

// adviseGroupNumeric says which columns of the group table hold numbers: all but the key
// and the verdict's mark.
func adviseGroupNumeric(col int) bool { return col > 0 && col < len(adviseGroupHeaders)-1 }

// adviseWindowBar scales a window's p99 to a bar of at most width cells.
func adviseWindowBar(v, peak float64, width int) string {
	if peak <= 0 {
		return ""
	}
	return strings.Repeat("█", max(1, int(v/peak*float64(width)+0.5)))
}

func adviseWindowLabel(r *advise.Result, w advise.Window) string {
	if r.WindowMs >= 86_400_000 {
		return w.Start.Format("2006-01-02")
	}
	return w.Start.Format("2006-01-02 15:04")
}

// adviseWindowCaption says what the window chart shows.
func adviseWindowCaption(r *advise.Result) string {
	return "p99 of good responses per " + units.Millis(r.WindowMs)
}

// adviseWindowBars draws the p99 of each window as a bar beside its start, count and
// value, at most 30 cells and no wider than width allows.
func adviseWindowBars(b *strings.Builder, r *advise.Result, width int, st Styles) {
	peak := 0.0
	labels, counts, values := make([]string, len(r.Windows)), make([]string, len(r.Windows)), make([]string, len(r.Windows))
	lw, cw, vw := 0, 1, 0
	for i, win := range r.Windows {
		if win.P99Ms != nil {
			peak = max(peak, *win.P99Ms)
			values[i] = units.Millis(*win.P99Ms)
		} else {
			values[i] = "n/a"
		}
		labels[i], counts[i] = adviseWindowLabel(r, win), units.Count(int(win.Count))
		lw, cw, vw = max(lw, len(labels[i])), max(cw, len(counts[i])), max(vw, len(values[i]))
	}
	// "  " label "  " count "  " value " " bar
	bar := min(30, max(4, width-(2+lw+2+cw+2+vw+1)))
	for i, win := range r.Windows {
		line := fmt.Sprintf("  %-*s  %*s  %*s", lw, labels[i], cw, counts[i], vw, values[i])
		if win.P99Ms != nil {
			line += " " + st.Bar.Render(adviseWindowBar(*win.P99Ms, peak, bar))
		}
		b.WriteString(line + "\n")
	}
}

// AdviseText is the terminal report: with --by, the groups' table first — the per-group
// answer asked for (issue 26: it came last, after a 24-line window chart) — then the probe
// report of all the samples, the proxy's attempts, the buckets and the p99 per window,
// fitted to the width.
func AdviseText(w io.Writer, r *advise.Result, o Options) error {
	st := o.Styles
	width := textWidth(o)
	var b strings.Builder
	if len(r.Groups) > 0 {
		writeTitle(&b, st, "By "+string(r.By), fmt.Sprintf("one recommendation per group, most samples first (%d)", len(r.Groups)), width)
		b.WriteString(adviseGroupTable(r, width, st) + "\n\n")
		writeTitle(&b, st, "All groups together", plural(int(r.Profile.Requests), "request"), width)
	}
	b.WriteString(probeTextBody(r.Profile, o).b.String())
	if r.Attempts != nil {
		b.WriteString("\n")
		writeTitle(&b, st, "Upstream attempts", "what the proxy's own retries did", width)
		writeHanging(&b, "  ", 2, adviseAttemptsLine(r.Attempts, unitFigures), width, lipgloss.NewStyle())
	}
	if r.Buckets != nil {
		b.WriteString("\n")
		writeTitle(&b, st, "Buckets", textSafe(r.Buckets.Metric+", "+r.Buckets.Window), width)
		for _, q := range r.Buckets.Quantiles {
			writeHanging(&b, "  ", 2, adviseBracket(q), width, lipgloss.NewStyle())
		}
	}
	if groups := adviseGroupBrackets(r); len(groups) > 0 {
		b.WriteString("\n")
		writeTitle(&b, st, "Buckets by "+string(r.By), "each group's own brackets", width)
		for _, g := range groups {
			writeHanging(&b, "  ", 2, textSafe(g.Key), width, st.Value)
			for _, q := range g.Buckets {
				writeHanging(&b, "    ", 4, adviseBracket(q), width, lipgloss.NewStyle())
			}
		}
	}
	if len(r.Windows) > 1 {
		b.WriteString("\n")
		writeTitle(&b, st, "By window", adviseWindowCaption(r), width)
		adviseWindowBars(&b, r, width, st)
		for _, t := range r.TailMoved {
			writeHanging(&b, st.Warn.Render("  ! tail moved:")+" ", 16, textSafe(t), width, st.Warn)
		}
	}
	writeEmitText(&b, st, width, adviseGroupEmissions(r))
	writeLegend(&b, st, width, probeLegend, false)
	_, err := io.WriteString(w, b.String())
	return err
}

// adviseGroupEmissions are the --by groups' emitted texts, in the groups' order (the
// recommendation for all samples carries its own, rendered with it).
func adviseGroupEmissions(r *advise.Result) []profile.Emission {
	var out []profile.Emission
	for _, g := range r.Groups {
		if g.Result != nil {
			out = append(out, g.Result.Emit...)
		}
	}
	return out
}

// adviseGroupTable is the groups' table for a terminal: each group's verdict mark before
// its key, then its figures. Keys wrap by word and between path segments into the room the
// figures leave; when too little is left the later columns stack under the keys instead.
func adviseGroupTable(r *advise.Result, width int, st Styles) string {
	headers := adviseGroupHeaders[:len(adviseGroupHeaders)-1]
	rows := make([][]string, len(r.Groups))
	marks := make([]string, len(r.Groups))
	for i, g := range r.Groups {
		row := adviseGroupRow(g, unitFigures)
		marks[i], rows[i] = row[len(row)-1], row[:len(row)-1]
	}
	// The room the figures leave the keys: each column its widest cell, padding and border.
	room := width - 4 - 2 // borders and padding of the key column, the mark and its space
	for c := 1; c < len(headers); c++ {
		w := lipgloss.Width(headers[c])
		for _, row := range rows {
			w = max(w, lipgloss.Width(row[c]))
		}
		room -= w + 3
	}
	if room < 12 {
		room = max(width/3-2, 12) // the later columns will stack under the keys
	}
	for i, row := range rows {
		lines := wrapPath(row[0], room)
		for k := range lines {
			if k == 0 {
				lines[k] = marks[i] + " " + lines[k]
			} else {
				lines[k] = "  " + lines[k]
			}
		}
		row[0] = strings.Join(lines, "\n")
	}
	return fitTable(st, headers, rows, width, adviseGroupNumeric)
}

// AdviseMarkdown renders the result for PR comments and step summaries.
// With --by, the groups come first, as in the terminal report.
func AdviseMarkdown(w io.Writer, r *advise.Result, o Options) error {
	if len(r.Groups) > 0 {
		var g strings.Builder
		fmt.Fprintf(&g, "#### By %s\n\n", r.By)
		rows := make([][]string, len(r.Groups))
		for i, gr := range r.Groups {
			rows[i] = adviseGroupRow(gr, unitFigures)
		}
		writeMDTable(&g, adviseGroupHeaders, rows, adviseGroupNumeric)
		fmt.Fprintf(&g, "\n#### All groups together\n\n")
		if _, err := io.WriteString(w, g.String()); err != nil {
			return err
		}
	}
	if err := ProbeMarkdown(w, r.Profile, o); err != nil {
		return err
	}
	var b strings.Builder
	if r.Attempts != nil {
		fmt.Fprintf(&b, "\n#### Upstream attempts\n\n%s\n", mdText(adviseAttemptsLine(r.Attempts, unitFigures)))
	}
	if r.Buckets != nil {
		fmt.Fprintf(&b, "\n#### Buckets\n\n%s, %s.\n\n", mdText(r.Buckets.Metric), mdText(r.Buckets.Window))
		for _, q := range r.Buckets.Quantiles {
			fmt.Fprintf(&b, "- %s\n", mdText(strings.Join(strings.Fields(adviseBracket(q)), " ")))
		}
	}
	if groups := adviseGroupBrackets(r); len(groups) > 0 {
		fmt.Fprintf(&b, "\n#### Buckets by %s\n\nEach group's own brackets.\n\n", mdText(string(r.By)))
		for _, g := range groups {
			fmt.Fprintf(&b, "- %s\n", mdText(g.Key))
			for _, q := range g.Buckets {
				fmt.Fprintf(&b, "  - %s\n", mdText(strings.Join(strings.Fields(adviseBracket(q)), " ")))
			}
		}
	}
	if len(r.Windows) > 1 {
		b.WriteString("\n#### By window\n\n")
		rows := make([][]string, len(r.Windows))
		for i, win := range r.Windows {
			p50, p99 := "n/a", "n/a"
			if win.P50Ms != nil {
				p50 = units.Millis(*win.P50Ms)
			}
			if win.P99Ms != nil {
				p99 = units.Millis(*win.P99Ms)
			}
			rows[i] = []string{adviseWindowLabel(r, win), units.Count(int(win.Count)), units.Count(int(win.Failed)), p50, p99}
		}
		writeMDTable(&b, []string{"window", "n", "failed", "p50", "p99"}, rows, func(c int) bool { return c > 0 })
		var chart strings.Builder
		adviseWindowBars(&chart, r, mdChartWidth, Styles{})
		writeMDChart(&b, adviseWindowCaption(r), chart.String())
		for _, t := range r.TailMoved {
			fmt.Fprintf(&b, "\n> ⚠️ tail moved: %s\n", mdText(t))
		}
	}
	writeEmitMarkdown(&b, adviseGroupEmissions(r))
	_, err := io.WriteString(w, b.String())
	return err
}
