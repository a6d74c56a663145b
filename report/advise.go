package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/patience-dev/patience/advise"
	"github.com/patience-dev/patience/probe"
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

// adviseAttempts is the attempts line: "1.04 per request (2 attempts: 312 · 3: 8)".
func adviseAttempts(a *advise.Attempts) string {
	keys := make([]int, 0, len(a.ByCount))
	for k := range a.ByCount {
		n, _ := strconv.Atoi(k)
		keys = append(keys, n)
	}
	sort.Ints(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d: %d", k, a.ByCount[strconv.Itoa(k)]))
	}
	return fmt.Sprintf("%s per request, measured (%d attempts for %d requests; by attempts %s)",
		probeNum(a.PerRequest), a.Attempts, a.Requests, strings.Join(parts, " · "))
}

// adviseBracket is one quantile's bucket line.
func adviseBracket(q advise.Bracket) string {
	if q.LowerOnly {
		return fmt.Sprintf("%-6s ≥ %s (above the top bucket: lower bound only)", q.Label, probe.FormatMs(q.LowerMs))
	}
	return fmt.Sprintf("%-6s in (%s, %s], estimate %s", q.Label, probe.FormatMs(q.LowerMs), probe.FormatMs(*q.UpperMs), probe.FormatMs(q.EstimateMs))
}

// adviseGroupCells are one group's row: key, samples, p50, p99, timeout, connect, attempts,
// verdict.
func adviseGroupCells(g advise.Group) []string {
	r := g.Result
	p50, p99 := "n/a", "n/a"
	if t := r.Phases.Total; t != nil {
		if t.P50Ms != nil {
			p50 = probe.FormatMs(*t.P50Ms)
		}
		if t.P99Ms != nil {
			p99 = probe.FormatMs(*t.P99Ms)
		} else {
			p99 = fmt.Sprintf("n/a (n=%d)", t.Count)
		}
	}
	rec := r.Recommendation
	timeout, connect, attempts := "none", probeConnect(rec), strconv.Itoa(rec.MaxAttempts)
	if rec.TimeoutMs > 0 {
		timeout = probe.FormatMs(rec.TimeoutMs)
	} else {
		connect, attempts = "-", "-"
	}
	return []string{g.Key, strconv.FormatInt(g.Samples, 10), p50, p99, timeout, connect, attempts, rec.Verdict.Level.Symbol()}
}

var adviseGroupHeaders = []string{"group", "n", "p50", "p99", "timeout", "connect", "attempts", ""}

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

// AdviseText is the terminal report.
func AdviseText(w io.Writer, r *advise.Result, o Options) error {
	if err := ProbeText(w, r.Result, o); err != nil {
		return err
	}
	st := o.Styles
	var b strings.Builder
	if r.Attempts != nil {
		fmt.Fprintln(&b)
		fmt.Fprintln(&b, st.Title.Render("Upstream attempts")+st.Muted.Render("  what the proxy's own retries did"))
		fmt.Fprintln(&b, "  "+adviseAttempts(r.Attempts))
	}
	if r.Buckets != nil {
		fmt.Fprintln(&b)
		fmt.Fprintln(&b, st.Title.Render("Buckets")+st.Muted.Render("  "+r.Buckets.Metric+", "+r.Buckets.Window))
		for _, q := range r.Buckets.Quantiles {
			fmt.Fprintln(&b, "  "+adviseBracket(q))
		}
	}
	if len(r.Windows) > 1 {
		fmt.Fprintln(&b)
		fmt.Fprintln(&b, st.Title.Render("By window")+st.Muted.Render("  p99 of good responses per "+probe.FormatLong(r.WindowMs)))
		peak := 0.0
		for _, win := range r.Windows {
			if win.P99Ms != nil {
				peak = max(peak, *win.P99Ms)
			}
		}
		width := 30
		if o.Width > 0 {
			width = max(10, min(30, o.Width-50))
		}
		for _, win := range r.Windows {
			v := "n/a"
			bar := ""
			if win.P99Ms != nil {
				v, bar = probe.FormatMs(*win.P99Ms), adviseWindowBar(*win.P99Ms, peak, width)
			}
			fmt.Fprintf(&b, "  %s  %8d  %10s %s\n", adviseWindowLabel(r, win), win.Count, v, st.Bar.Render(bar))
		}
		for _, t := range r.TailMoved {
			fmt.Fprintln(&b, st.Warn.Render("  ! tail moved: "+t))
		}
	}
	if len(r.Groups) > 0 {
		fmt.Fprintln(&b)
		fmt.Fprintln(&b, st.Title.Render("By "+string(r.By))+st.Muted.Render(fmt.Sprintf("  one recommendation per group, most samples first (%d)", len(r.Groups))))
		rows := make([][]string, len(r.Groups))
		for i, g := range r.Groups {
			rows[i] = adviseGroupCells(g)
		}
		fmt.Fprint(&b, adviseTable(adviseGroupHeaders, rows))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// adviseTable lays rows out in plain aligned columns (numbers right-aligned).
func adviseTable(headers []string, rows [][]string) string {
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = len([]rune(h))
	}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString(" ")
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(" " + c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteString("\n")
	}
	line(headers)
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

// AdviseMarkdown renders the result for PR comments and step summaries.
func AdviseMarkdown(w io.Writer, r *advise.Result, o Options) error {
	if err := ProbeMarkdown(w, r.Result, o); err != nil {
		return err
	}
	var b strings.Builder
	if r.Attempts != nil {
		fmt.Fprintf(&b, "\n#### Upstream attempts\n\n%s\n", probeMD(adviseAttempts(r.Attempts)))
	}
	if r.Buckets != nil {
		fmt.Fprintf(&b, "\n#### Buckets\n\n%s, %s.\n\n", probeMD(r.Buckets.Metric), probeMD(r.Buckets.Window))
		for _, q := range r.Buckets.Quantiles {
			fmt.Fprintf(&b, "- %s\n", probeMD(adviseBracket(q)))
		}
	}
	if len(r.Windows) > 1 {
		fmt.Fprintf(&b, "\n#### By window\n\n| window | n | failed | p50 | p99 |\n|---|--:|--:|--:|--:|\n")
		for _, win := range r.Windows {
			p50, p99 := "n/a", "n/a"
			if win.P50Ms != nil {
				p50 = probe.FormatMs(*win.P50Ms)
			}
			if win.P99Ms != nil {
				p99 = probe.FormatMs(*win.P99Ms)
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %s |\n", adviseWindowLabel(r, win), win.Count, win.Failed, p50, p99)
		}
		for _, t := range r.TailMoved {
			fmt.Fprintf(&b, "\n> ⚠️ tail moved: %s\n", probeMD(t))
		}
	}
	if len(r.Groups) > 0 {
		fmt.Fprintf(&b, "\n#### By %s\n\n| %s |\n|---|--:|--:|--:|--:|--:|--:|---|\n", r.By, strings.Join(adviseGroupHeaders, " | "))
		for _, g := range r.Groups {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(mdCells(adviseGroupCells(g)), " | "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = probeMD(c)
	}
	return out
}
