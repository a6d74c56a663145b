package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/patience-dev/patience/probe"
)

// ProbeFormats renders a probe result: text for terminals, json (`patience/probe/v1`) for
// programs, markdown for PR comments and step summaries.
var ProbeFormats = Registry[*probe.Result]{
	"text":     ProbeText,
	"json":     probeJSON,
	"markdown": ProbeMarkdown,
	"html":     ProbeHTML,
}

// probeJSON writes the result without HTML escaping, so derivations read "<" and not "\u003c".
func probeJSON(w io.Writer, r *probe.Result, _ Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// probeVerdict is the symbol and level of the leading line: the library's verdict
// (recommendation.verdict), never graded here.
func probeVerdict(r *probe.Result) (symbol string, level probe.Level) {
	l := r.Recommendation.Verdict.Level
	return l.Symbol(), l
}

// probeHeadline is the one-line verdict: its most serious clause.
func probeHeadline(r *probe.Result) string {
	sym, _ := probeVerdict(r)
	return sym + " " + r.Recommendation.Verdict.Headline()
}

// probeMoreReasons are the verdict's other clauses, each with its own mark.
func probeMoreReasons(r *probe.Result) []string {
	reasons := r.Recommendation.Verdict.Reasons
	var out []string
	for i := 1; i < len(reasons); i++ {
		out = append(out, reasons[i].Level.Symbol()+" "+reasons[i].Text)
	}
	return out
}

// probeErrorSamples are the first message of each error class seen, with its hint.
func probeErrorSamples(r *probe.Result) []string {
	var out []string
	for _, c := range probe.ErrorClasses {
		s, ok := r.ErrorSamples[c]
		if !ok || r.Errors[c] == 0 {
			continue
		}
		line := c + ": " + s.Message
		if s.Hint != "" {
			line += " — " + s.Hint
		}
		out = append(out, line)
	}
	return out
}

// probeConnect names the connect timeout: none when the total timeout bounds the connect.
func probeConnect(rec probe.Recommendation) string {
	if rec.ConnectTimeoutMs == 0 {
		return "none"
	}
	return probe.FormatMs(rec.ConnectTimeoutMs)
}

// probeAttempts says what the attempts mean and how many the budget would hold.
func probeAttempts(rec probe.Recommendation) string {
	what := ""
	switch {
	case rec.Job != nil:
		what = " per run (the queue retries)"
	case rec.MaxAttempts == 1:
		what = " (no retry)"
	case rec.MaxAttempts == 2:
		what = " (one retry)"
	}
	if rec.Job == nil {
		what += fmt.Sprintf(" · %d would fit the %s budget", rec.AttemptsFit, probe.FormatMs(rec.BudgetMs))
	}
	return what
}

// probeBudget is the caller's budget: a job without a retry window has none.
func probeBudget(rec probe.Recommendation) string {
	if rec.BudgetMs == 0 {
		return "none"
	}
	return probe.FormatLong(rec.BudgetMs)
}

// probeJobRows are the queue design's rows: name, value.
func probeJobRows(j *probe.JobDesign) [][2]string {
	delays := make([]string, len(j.BackoffMs))
	for i, d := range j.BackoffMs {
		delays[i] = probe.FormatLong(d)
	}
	backoff := "none"
	if len(delays) > 0 {
		backoff = fmt.Sprintf("%s + up to %g%% jitter", strings.Join(delays, ", "), j.JitterFactor*100)
	}
	return [][2]string{
		{"tries", strconv.Itoa(j.Tries)},
		{"backoff", backoff},
		{"job timeout", probe.FormatLong(j.TimeoutMs)},
		{"retry_after", probe.FormatLong(j.RetryAfterMs)},
		{"give up", "after " + probe.FormatLong(j.GiveUpAfterMs)},
	}
}

// probeCutoffValue is a cut-off point's timeout: "> 30 s" beyond --max-timeout.
func probeCutoffValue(r *probe.Result, c probe.Cutoff) (string, bool) {
	switch {
	case c.Beyond:
		return "> " + probe.FormatMs(r.MaxTimeoutMs), true
	case c.TimeoutMs == nil:
		return "", false
	}
	return probe.FormatMs(*c.TimeoutMs), true
}

// probeCutoffTitle is what the cut-off curve shows.
const probeCutoffTitle = "share of requests a timeout would cut off (good responses, and unanswered ones)"

// probeSetup describes how the probe ran: method, URL, model, sample size — or, for a result
// read from existing data (patience advise), where it came from.
func probeSetup(r *probe.Result) string {
	if r.Source != nil {
		return probeSourceLine(r)
	}
	var model string
	switch {
	case r.Model == "closed":
		model = fmt.Sprintf("closed model, %d workers", r.Concurrency)
		if r.Concurrency == 1 {
			model = "closed model, 1 worker"
		}
	case r.Schedule.RequestedPerS != nil:
		model = fmt.Sprintf("open model %s/s", probeNum(*r.Schedule.RequestedPerS))
	default:
		model = r.Model + " model"
	}
	s := fmt.Sprintf("%s %s · %s · conn %s · %s in %s", r.Target.Method, r.Target.URL, model, r.Conn, plural(int(r.Requests), "request"), probe.FormatMs(r.DurationMs))
	if r.Merged > 0 {
		s += fmt.Sprintf(" · merged from %d profiles", r.Merged)
	}
	return s
}

// probePhaseRow is one row of the phase table.
type probePhaseRow struct {
	phase, conn string
	s           *probe.Summary
}

func probePhaseRows(r *probe.Result) []probePhaseRow {
	var rows []probePhaseRow
	add := func(phase, conn string, s *probe.Summary) {
		if s != nil && s.Count > 0 {
			rows = append(rows, probePhaseRow{phase, conn, s})
		}
	}
	p := r.Phases
	add("dns", "fresh", p.DNS)
	add("connect", "fresh", p.Connect)
	add("tls", "fresh", p.TLS)
	for _, ph := range []struct {
		name string
		s    *probe.Summary
	}{{"ttfb", p.TTFB}, {"total", p.Total}} {
		if ph.s == nil {
			continue
		}
		if ph.s.Fresh == nil && ph.s.Reused == nil {
			add(ph.name, "all", ph.s)
			continue
		}
		add(ph.name, "fresh", ph.s.Fresh)
		add(ph.name, "reused", ph.s.Reused)
		// The blended row only when both kinds were seen; otherwise it repeats one of them.
		if ph.s.Fresh != nil && ph.s.Reused != nil && ph.s.Fresh.Count > 0 && ph.s.Reused.Count > 0 {
			add(ph.name, "all", ph.s)
		}
	}
	// Sent (from the actual send) once, blended: it is there to compare with total.
	add("sent", "all", p.Sent)
	return rows
}

// probePhaseCells are the numbers of one row: count, p50, p90, p99, p99.9, max.
func probePhaseCells(s *probe.Summary) []string {
	pct := func(v *float64, need int64) string {
		if v == nil {
			if s.Count < need {
				return fmt.Sprintf("n/a (n=%d)", s.Count)
			}
			return "n/a"
		}
		return probeNum(*v)
	}
	return []string{
		strconv.FormatInt(s.Count, 10),
		pct(s.P50Ms, 2), pct(s.P90Ms, 10), pct(s.P99Ms, 100), pct(s.P999Ms, 1000), pct(s.MaxMs, 1),
	}
}

var probePhaseHeaders = []string{"phase", "conn", "count", "p50", "p90", "p99", "p99.9", "max"}

// ProbeText is the terminal report: verdict first, then warnings, the phase table, responses
// and errors, the schedule, a small latency histogram, the recommendation with its
// derivation and the cut-off curve.
func ProbeText(w io.Writer, r *probe.Result, o Options) error {
	st := o.Styles
	var b strings.Builder
	_, level := probeVerdict(r)
	verdict := st.Verdict
	switch level {
	case probe.Good:
		verdict = verdict.Inherit(st.Good)
	case probe.Provisional:
		verdict = verdict.Inherit(st.Warn)
	default:
		verdict = verdict.Inherit(st.Bad)
	}
	fmt.Fprintln(&b, verdict.Render(probeHeadline(r)))
	for _, m := range probeMoreReasons(r) {
		fmt.Fprintln(&b, st.Warn.Render(m))
	}
	fmt.Fprintln(&b, st.Muted.Render(probeSetup(r)))
	if l := probeConnLine(r); l != "" {
		fmt.Fprintln(&b, st.Muted.Render(l))
	}
	for _, n := range r.Notes {
		fmt.Fprintln(&b, st.Warn.Render("! "+n))
	}
	for _, h := range r.Target.Headers {
		fmt.Fprintln(&b, st.Muted.Render("  "+h))
	}

	if rows := probePhaseRows(r); len(rows) > 0 {
		fmt.Fprintln(&b)
		caption := "  total = from intended send (CO-corrected) · sent = from actual send"
		if r.Source != nil {
			caption = "  as the source recorded them"
		}
		fmt.Fprintln(&b, st.Title.Render("Latency by phase (ms)")+st.Muted.Render(caption))
		t := table.New().
			Border(lipgloss.NormalBorder()).
			BorderStyle(st.Border).
			Headers(probePhaseHeaders...).
			StyleFunc(func(row, col int) lipgloss.Style {
				s := st.Cell
				if row == table.HeaderRow {
					s = st.Header
				}
				if col >= 2 {
					s = s.Align(lipgloss.Right)
				}
				return s
			})
		for _, pr := range rows {
			t.Row(append([]string{pr.phase, pr.conn}, probePhaseCells(pr.s)...)...)
		}
		fmt.Fprintln(&b, t.Render())
	}

	fmt.Fprintln(&b)
	kv := func(k, v string) { fmt.Fprintf(&b, "%s %s\n", st.Key.Render(fmt.Sprintf("%-10s", k)), v) }
	kv("responses", probeStatusLine(r.Status))
	kv("errors", probeErrorLine(r.Errors))
	for _, e := range probeErrorSamples(r) {
		fmt.Fprintf(&b, "%s %s\n", strings.Repeat(" ", 10), st.Muted.Render(e))
	}
	// The schedule line is long; on a terminal it is split after the rate figures.
	sched := strings.SplitN(probeScheduleLine(r), " · ", 2)
	if r.Source != nil {
		sched = []string{probeSourceDetail(r.Source)}
		for _, m := range r.Source.MalformedSample {
			sched = append(sched, st.Muted.Render(m))
		}
		kv("source", sched[0])
		sched = sched[1:]
	} else {
		kv("schedule", sched[0])
		sched = sched[1:]
	}
	for _, line := range sched {
		fmt.Fprintf(&b, "%s %s\n", strings.Repeat(" ", 10), line)
	}

	if len(r.Distribution) > 0 {
		fmt.Fprintln(&b)
		fmt.Fprintln(&b, st.Title.Render("Total latency")+st.Muted.Render(fmt.Sprintf("  n=%d", r.Phases.Total.Count)))
		probeBars(&b, r.Distribution, o)
	}

	rec := r.Recommendation
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, st.Title.Render("Recommendation"))
	if rec.TimeoutMs > 0 {
		kv("  timeout", st.Value.Render(probe.FormatMs(rec.TimeoutMs)))
		kv("  connect", st.Value.Render(probeConnect(rec)))
		attempts := st.Value.Render(strconv.Itoa(rec.MaxAttempts))
		if !rec.FitsBudget {
			attempts = st.Bad.Render("0")
		}
		kv("  attempts", attempts+st.Muted.Render(probeAttempts(rec)))
		if rec.Job != nil {
			for _, row := range probeJobRows(rec.Job) {
				fmt.Fprintf(&b, "%s %s\n", st.Key.Render(fmt.Sprintf("%-13s", "  "+row[0])), st.Value.Render(row[1]))
			}
		}
	}
	for _, d := range rec.Derivation {
		fmt.Fprintln(&b, st.Muted.Render("  · "+d))
	}

	if len(r.CutoffCurve) > 0 && r.CutoffCurve[0].Samples > 0 {
		fmt.Fprintln(&b)
		n := r.CutoffCurve[0].Samples
		fmt.Fprintln(&b, st.Title.Render("Cut-off curve")+st.Muted.Render(fmt.Sprintf("  %s, n=%d", probeCutoffTitle, n)))
		for _, c := range r.CutoffCurve {
			label := fmt.Sprintf("  %-12s", c.Label)
			v, ok := probeCutoffValue(r, c)
			switch {
			case !ok:
				fmt.Fprintln(&b, label+st.Muted.Render(fmt.Sprintf("n/a (n=%d)", c.Samples)))
			case c.CutRate == nil:
				fmt.Fprintln(&b, label+v+st.Muted.Render("  beyond --max-timeout: unanswered requests"))
			default:
				fmt.Fprintf(&b, "%s%-10s %s\n", label, v, st.Value.Render(probePercent(*c.CutRate)))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// probeBars draws the distribution as horizontal bars scaled to the widest count.
func probeBars(b *strings.Builder, buckets []probe.Bucket, o Options) {
	var peak int64
	labels := make([]string, len(buckets))
	lw := 0
	for i, k := range buckets {
		peak = max(peak, k.Count)
		labels[i] = fmt.Sprintf("%s – %s", probe.FormatMs(k.FromMs), probe.FormatMs(k.ToMs))
		lw = max(lw, len([]rune(labels[i])))
	}
	width := 40
	if o.Width > 0 && o.Width-lw-14 < width {
		width = max(10, o.Width-lw-14)
	}
	for i, k := range buckets {
		// count × width overflows int64 for the counts merged or crafted profiles hold
		// (issue 17: strings.Repeat with a negative count): those scale in floating point.
		n := 0
		if peak > 0 && k.Count > 0 {
			if k.Count <= (math.MaxInt64-peak)/int64(width) {
				n = int((k.Count*int64(width) + peak - 1) / peak)
			} else {
				n = int(math.Ceil(float64(k.Count) / float64(peak) * float64(width)))
			}
			n = min(width, max(1, n))
		}
		pad := strings.Repeat(" ", lw-len([]rune(labels[i])))
		fmt.Fprintf(b, "  %s%s %s %d\n", labels[i], pad, o.Styles.Bar.Render(strings.Repeat("█", n)), k.Count)
	}
}

// probeStatusLine lists status codes in numeric order: "200: 1980 · 503: 20".
func probeStatusLine(status map[string]int64) string {
	if len(status) == 0 {
		return "none"
	}
	codes := make([]string, 0, len(status))
	for c := range status {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s: %d", c, status[c])
	}
	return strings.Join(parts, " · ")
}

// probeErrorLine lists the error classes with counts, "none" when all are zero.
func probeErrorLine(errs map[string]int64) string {
	var parts []string
	for _, c := range probe.ErrorClasses {
		if errs[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", c, errs[c]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " · ")
}

// probeScheduleLine says whether the generator kept its schedule.
func probeScheduleLine(r *probe.Result) string {
	s := r.Schedule
	var parts []string
	if s.RequestedPerS != nil {
		parts = append(parts, fmt.Sprintf("requested %s/s, achieved %s/s", probeNum(*s.RequestedPerS), probeNum(s.AchievedPerS)))
		late := fmt.Sprintf("late %d (> %s)", s.Late, probe.FormatMs(s.LateAfterMs))
		if s.LateP99Ms != nil {
			late += ", lateness p99 " + probe.FormatMs(*s.LateP99Ms)
		}
		parts = append(parts, late, fmt.Sprintf("waited for a slot %d", s.WaitedForSlot), fmt.Sprintf("dropped %d", s.Dropped))
	} else {
		parts = append(parts, fmt.Sprintf("achieved %s/s", probeNum(s.AchievedPerS)))
	}
	parts = append(parts, fmt.Sprintf("peak in flight %d of %d", s.PeakInFlight, s.MaxInFlight))
	return strings.Join(parts, " · ")
}

// num prints a number with about three significant digits and no exponent.
func probeNum(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v == 0:
		return "0"
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// percent prints a ratio as a percentage with enough digits for small tails.
func probePercent(v float64) string {
	switch {
	case v == 0:
		return "0%"
	case v < 0.0001:
		return strconv.FormatFloat(v*100, 'f', 4, 64) + "%"
	case v < 0.01:
		return strconv.FormatFloat(v*100, 'f', 2, 64) + "%"
	}
	return strconv.FormatFloat(v*100, 'f', 1, 64) + "%"
}

// ProbeMarkdown renders the result for PR comments and GitHub step summaries.
func ProbeMarkdown(w io.Writer, r *probe.Result, _ Options) error {
	var b strings.Builder
	title := "patience probe"
	if r.Source != nil {
		title = "patience advise"
	}
	fmt.Fprintf(&b, "### %s\n\n**%s**\n\n", title, probeMD(probeHeadline(r)))
	for _, m := range probeMoreReasons(r) {
		fmt.Fprintf(&b, "- %s\n", probeMD(m))
	}
	if len(probeMoreReasons(r)) > 0 {
		fmt.Fprintln(&b)
	}
	fmt.Fprintf(&b, "%s\n", probeMD(probeSetup(r)))
	if l := probeConnLine(r); l != "" {
		fmt.Fprintf(&b, "\n%s\n", probeMD(l))
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(&b)
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "> ⚠️ %s\n", probeMD(n))
		}
	}
	if rows := probePhaseRows(r); len(rows) > 0 {
		fmt.Fprintf(&b, "\n#### Latency by phase (ms)\n\n| %s |\n|%s\n", strings.Join(probePhaseHeaders, " | "), strings.Repeat("---|", len(probePhaseHeaders)))
		for _, pr := range rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(append([]string{pr.phase, pr.conn}, probePhaseCells(pr.s)...), " | "))
		}
		if r.Source == nil {
			fmt.Fprintln(&b, "\n_total_ runs from the intended send time (coordinated omission corrected); _sent_ from the actual send.")
		}
	}
	fmt.Fprintf(&b, "\n- **Responses:** %s\n- **Errors:** %s\n", probeStatusLine(r.Status), probeErrorLine(r.Errors))
	for _, e := range probeErrorSamples(r) {
		fmt.Fprintf(&b, "  - %s\n", probeMD(e))
	}
	if r.Source != nil {
		fmt.Fprintf(&b, "- **Source:** %s\n", probeMD(probeSourceDetail(r.Source)))
		for _, m := range r.Source.MalformedSample {
			fmt.Fprintf(&b, "  - %s\n", probeMD(m))
		}
	} else {
		fmt.Fprintf(&b, "- **Schedule:** %s\n", probeScheduleLine(r))
	}

	rec := r.Recommendation
	fmt.Fprintln(&b, "\n#### Recommendation")
	fmt.Fprintln(&b)
	if rec.TimeoutMs > 0 {
		fmt.Fprintf(&b, "| timeout | connect timeout | attempts | budget |\n|---|---|---|---|\n| %s | %s | %d%s | %s |\n\n",
			probe.FormatMs(rec.TimeoutMs), probeConnect(rec), rec.MaxAttempts, probeMD(probeAttempts(rec)), probeBudget(rec))
		if rec.Job != nil {
			fmt.Fprintln(&b, "| queue | |\n|---|---|")
			for _, row := range probeJobRows(rec.Job) {
				fmt.Fprintf(&b, "| %s | %s |\n", probeMD(row[0]), probeMD(row[1]))
			}
			fmt.Fprintln(&b)
		}
	}
	for _, d := range rec.Derivation {
		fmt.Fprintf(&b, "- %s\n", probeMD(d))
	}
	if len(r.CutoffCurve) > 0 && r.CutoffCurve[0].Samples > 0 {
		fmt.Fprintf(&b, "\n#### Cut-off curve\n\nThe %s (n=%d).\n\n| timeout at | value | cut off |\n|---|---|---|\n", probeMD(probeCutoffTitle), r.CutoffCurve[0].Samples)
		for _, c := range r.CutoffCurve {
			v, ok := probeCutoffValue(r, c)
			switch {
			case !ok:
				fmt.Fprintf(&b, "| %s | n/a (n=%d) | |\n", c.Label, c.Samples)
			case c.CutRate == nil:
				fmt.Fprintf(&b, "| %s | %s | beyond --max-timeout |\n", c.Label, v)
			default:
				fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Label, v, probePercent(*c.CutRate))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// probeMD keeps table pipes and emphasis markers from breaking Markdown.
func probeMD(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`).Replace(s)
}

// probeSourceLine is the setup line of a result read from existing data (patience advise):
// what the samples are (a route, a host, everything), the format and the time they span.
func probeSourceLine(r *probe.Result) string {
	src := r.Source
	what := r.Target.URL
	if r.Target.Method != "" && (what == "" || strings.HasPrefix(what, "/")) {
		what = strings.TrimSpace(r.Target.Method + " " + what)
	}
	s := fmt.Sprintf("%s · from %s", what, src.Format)
	if r.DurationMs > 0 {
		s += " spanning " + probe.FormatLong(r.DurationMs)
	}
	return s + " · " + plural(int(r.Requests), "request")
}

// probeSourceDetail names the files, the lines read and how many could not be parsed.
func probeSourceDetail(src *probe.Source) string {
	files := strings.Join(src.Files, ", ")
	if len(src.Files) > 3 {
		files = fmt.Sprintf("%s, … (%d files)", strings.Join(src.Files[:2], ", "), len(src.Files))
	}
	s := fmt.Sprintf("%s · %s read, %d malformed", files, plural(int(src.Lines), "line"), src.Malformed)
	if src.Unit != "" {
		s += " · durations in " + src.Unit
	}
	return s
}
