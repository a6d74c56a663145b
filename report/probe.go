package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/verdict"
)

// ProbeFormats renders a probe result: text for terminals, json (`patience/probe/v1`) for
// programs, markdown for PR comments and step summaries.
var ProbeFormats = Registry[*profile.Profile]{
	"text":     ProbeText,
	"json":     probeJSON,
	"markdown": ProbeMarkdown,
	"html":     ProbeHTML,
}

// probeJSON writes the result without HTML escaping, so derivations read "<" and not "\u003c".
func probeJSON(w io.Writer, r *profile.Profile, _ Options) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// figures is how a probe report writes its counts and its long durations: every format uses
// the one unit style of internal/units ("1,980", "1 min 30 s").
type figures struct {
	count func(int64) string
	long  func(ms float64) string
	num   func(float64) string
}

var (
	unitFigures = figures{count: func(n int64) string { return units.Count(int(n)) }, long: units.Millis, num: units.Figure}
)

// plural is "1 request", "1,980 requests".
func (f figures) plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return f.count(n) + " " + noun + "s"
}

// probeVerdict is the symbol and level of the leading line: the library's verdict
// (recommendation.verdict), never graded here.
func probeVerdict(r *profile.Profile) (symbol string, level profile.Level) {
	l := r.Recommendation.Verdict.Level
	return l.Symbol(), l
}

// probeHeadline is the one-line verdict: its most serious clause.
func probeHeadline(r *profile.Profile) string {
	sym, _ := probeVerdict(r)
	return sym + " " + r.Recommendation.Verdict.Headline()
}

// probeMoreReasons are the verdict's other clauses, each with its own mark.
func probeMoreReasons(r *profile.Profile) []string {
	reasons := r.Recommendation.Verdict.Reasons
	var out []string
	for i := 1; i < len(reasons); i++ {
		out = append(out, reasons[i].Level.Symbol()+" "+reasons[i].Text)
	}
	return out
}

// probeErrorSamples are the first message of each error class seen, with its hint.
func probeErrorSamples(r *profile.Profile) []string {
	var out []string
	for _, c := range profile.ErrorClasses {
		s, ok := r.ErrorSamples[c]
		if !ok || r.Errors[c] == 0 {
			continue
		}
		line := c + ": " + textSafe(s.Message) // a server's or a resolver's words
		if s.Hint != "" {
			line += " — " + textSafe(s.Hint)
		}
		out = append(out, line)
	}
	return out
}

// probeConnect names the connect timeout: none when the total timeout bounds the connect.
func probeConnect(rec profile.Recommendation) string {
	if rec.ConnectTimeoutMs == 0 {
		return "none"
	}
	return units.Millis(rec.ConnectTimeoutMs)
}

// probeAttempts says what the attempts mean and how many the budget would hold.
func probeAttempts(rec profile.Recommendation) string {
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
		what += fmt.Sprintf(" · %d would fit the %s budget", rec.AttemptsFit, units.Millis(rec.BudgetMs))
	}
	return what
}

// probeBudget is the caller's budget: a job without a retry window has none.
func probeBudget(rec profile.Recommendation) string {
	if rec.BudgetMs == 0 {
		return "none"
	}
	return units.Millis(rec.BudgetMs)
}

// probeJobRows are the queue design's rows: name, value.
func probeJobRows(j *profile.JobDesign) [][2]string {
	delays := make([]string, len(j.BackoffMs))
	for i, d := range j.BackoffMs {
		delays[i] = units.Millis(d)
	}
	backoff := "none"
	if len(delays) > 0 {
		backoff = fmt.Sprintf("%s + up to %s%% jitter", strings.Join(delays, ", "), units.Sig(j.JitterFactor*100))
	}
	return [][2]string{
		{"tries", strconv.Itoa(j.Tries)},
		{"backoff", backoff},
		{"job timeout", units.Millis(j.TimeoutMs)},
		{"retry_after", units.Millis(j.RetryAfterMs)},
		{"give up", "after " + units.Millis(j.GiveUpAfterMs)},
	}
}

// probeStreamRows are the stream advice's rows (docs/design.md §7 "Streams"), nil for a
// dependency that does not stream: the first-event and idle timeouts, the stream total or
// "unbounded" (its reason is in the derivation), and which phase the caller's budget reads.
func probeStreamRows(rec *profile.Recommendation) [][2]string {
	a := rec.StreamAdvice
	if a == nil {
		return nil
	}
	val := func(p *float64) string {
		if p == nil {
			return "none derived"
		}
		return units.Millis(*p)
	}
	total := "unbounded"
	if a.StreamTimeoutMs != nil {
		total = units.Millis(*a.StreamTimeoutMs)
	}
	rows := [][2]string{
		{"stream", "timeouts for a streaming response"},
		{"first event", val(a.FirstEventTimeoutMs)},
		{"idle", val(a.IdleTimeoutMs)},
		{"stream total", total},
	}
	if r := budgetReadsText(rec); r != "" {
		rows = append(rows, [2]string{"budget reads", r})
	}
	return rows
}

// budgetReadsText says which phase the budget holds per attempt (recommendation.budget_reads),
// "" when the recommendation does not say (a response that does not stream).
func budgetReadsText(rec *profile.Recommendation) string {
	switch {
	case rec.BudgetReads == profile.BudgetReadsFirstEvent:
		return "the first event (the caller's wait per attempt)"
	case rec.BudgetReads == profile.BudgetReadsTotal && rec.Caller.Kind == profile.CallerJob:
		return "the total (a job consumes the whole stream)"
	case rec.BudgetReads == profile.BudgetReadsTotal:
		return "the total (no first-event timeout was derived)"
	}
	return ""
}

// probeRetryBudgetRows are the retry budget's rows (docs/design.md §7): the load it was
// sized from, each target's knobs and what an outage may cost; nil without a budget.
func probeRetryBudgetRows(b *profile.RetryBudget) [][2]string {
	if b == nil {
		return nil
	}
	load := fmt.Sprintf("%s · %s in flight (Little's law)", units.Rate(b.RatePerS), units.Sig(b.Concurrency))
	if b.MaxTokens == 0 {
		return [][2]string{
			{"retry budget", load},
			{"envoy/istio", "budget_percent 0 · min_retry_concurrency 0 (no retry)"},
			{"linkerd", "retryRatio 0 · minRetriesPerSecond 0 (no retry)"},
			{"grpc", "no retryPolicy, so no retryThrottling"},
		}
	}
	return [][2]string{
		{"retry budget", fmt.Sprintf("%s · transient failures %s (≤ %s)", load, probePercent(b.TransientShare), probePercent(b.TransientUpper))},
		{"envoy/istio", fmt.Sprintf("budget_percent %s%% · min_retry_concurrency %d", units.Sig(b.Percent), b.MinRetryConcurrency)},
		{"linkerd", fmt.Sprintf("retryRatio %s · minRetriesPerSecond %d · ttl %s", strconv.FormatFloat(b.Percent/100, 'f', -1, 64), b.MinRetriesPerSecond, units.Seconds(b.WindowS))},
		{"grpc", fmt.Sprintf("retryThrottling maxTokens %d · tokenRatio %s", b.MaxTokens, strconv.FormatFloat(b.TokenRatio, 'f', -1, 64))},
		{"outage", fmt.Sprintf("≤ %s attempts per request (%s with the floors at this load)", units.Sig(b.OutageAmplification), units.Sig(b.FloorAmplification))},
	}
}

// probeDerivation is every derivation line of a recommendation: the timeouts' and
// attempts', then the retry budget's.
func probeDerivation(rec profile.Recommendation) []string {
	if rec.RetryBudget == nil {
		return rec.Derivation
	}
	return append(slices.Clip(rec.Derivation), rec.RetryBudget.Derivation...)
}

// probeCutoffValue is a cut-off point's timeout: "> 30 s" beyond --max-timeout.
func probeCutoffValue(r *profile.Profile, c profile.Cutoff) (string, bool) {
	switch {
	case c.Beyond:
		return "> " + units.Millis(r.MaxTimeoutMs), true
	case c.TimeoutMs == nil:
		return "", false
	}
	return units.Millis(*c.TimeoutMs), true
}

// probeCutoffTitle is what the cut-off curve shows.
const probeCutoffTitle = "share of requests a timeout would cut off (good responses, and unanswered ones)"

// probeSetup is probeSetupParts in legacy figures, joined: the HTML report's subtitle.
func probeSetup(r *profile.Profile) string {
	return strings.Join(probeSetupParts(r, unitFigures), " · ")
}

// probeSetupParts describe how the probe ran — method and URL, model, connections, sample
// size — or, for a result read from existing data (patience advise), where it came from.
func probeSetupParts(r *profile.Profile, fig figures) []string {
	if r.Source != nil {
		return probeSourceParts(r, fig)
	}
	var model string
	switch {
	case r.Model == "closed":
		model = "closed model, " + fig.plural(int64(r.Concurrency), "worker")
	case r.Schedule.RequestedPerS != nil:
		model = "open model " + units.Rate(*r.Schedule.RequestedPerS)
	default:
		model = r.Model + " model"
	}
	parts := []string{textSafe(r.Target.Method + " " + r.Target.URL), model, "conn " + r.Conn,
		fig.plural(r.Requests, "request") + " in " + units.Millis(r.DurationMs)}
	if r.Merged > 0 {
		parts = append(parts, "merged from "+plural(r.Merged, "profile"))
	}
	return parts
}

// probePhaseRow is one row of the phase table.
type probePhaseRow struct {
	phase, conn string
	s           *profile.Summary
}

func probePhaseRows(r *profile.Profile) []probePhaseRow {
	var rows []probePhaseRow
	add := func(phase, conn string, s *profile.Summary) {
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
		s    *profile.Summary
	}{{"ttfb", p.TTFB}, {"silence", p.Silence}, {"first_event", p.FirstEvent}, {"gap", p.Gap}, {"total", p.Total}} {
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

// probePhaseCells is probePhaseValues in legacy figures: the HTML report's phase table.
func probePhaseCells(s *profile.Summary) []string { return probePhaseValues(s, unitFigures) }

// probePhaseValues are the numbers of one row: count, then p50, p90, p99, p99.9 and max in
// milliseconds with three significant digits, "n/a (n=…)" where too few samples back one.
func probePhaseValues(s *profile.Summary, fig figures) []string {
	pct := func(v *float64, need int64) string {
		if v == nil {
			if s.Count < need {
				return "n/a (n=" + fig.count(s.Count) + ")"
			}
			return "n/a"
		}
		return fig.num(*v)
	}
	return []string{
		fig.count(s.Count),
		pct(s.P50Ms, 2), pct(s.P90Ms, 10), pct(s.P99Ms, 100), pct(s.P999Ms, 1000), pct(s.MaxMs, 1),
	}
}

var probePhaseHeaders = []string{"phase", "conn", "count", "p50", "p90", "p99", "p99.9", "max"}

// probePhaseTable is the phase table's rows for text and Markdown.
func probePhaseTable(r *profile.Profile) [][]string {
	var rows [][]string
	for _, pr := range probePhaseRows(r) {
		rows = append(rows, append([]string{pr.phase, pr.conn}, probePhaseValues(pr.s, unitFigures)...))
	}
	return rows
}

// probeNumeric says which columns of the phase table hold numbers.
func probeNumeric(col int) bool { return col >= 2 }

// probePhaseCaption says where the latencies are timed from.
func probePhaseCaption(r *profile.Profile) string {
	if r.Source != nil {
		return "as the source recorded them"
	}
	return "total = from intended send (CO-corrected) · sent = from actual send" + probeStreamCaption(r)
}

// probeKeyW is the width of a key of the report's key-value lines ("responses  ").
const probeKeyW = 11

// ProbeText is the terminal report, fitted to the width: verdict first, then warnings, the
// phase table, responses and errors, the schedule, a small latency histogram, the
// recommendation with its derivation and the cut-off curve. Prose wraps by word (a number
// keeps its unit), lists wrap between items, and the phase table stacks its later columns
// under the phase and connection columns when it does not fit.
func ProbeText(w io.Writer, r *profile.Profile, o Options) error {
	t := probeTextBody(r, o)
	writeLegend(&t.b, t.st, t.width, probeLegend, false)
	_, err := io.WriteString(w, t.b.String())
	return err
}

// probeTextBody is ProbeText without its legend: advise writes its own sections before the
// legend.
func probeTextBody(r *profile.Profile, o Options) *probeText {
	t := &probeText{r: r, st: o.Styles, width: textWidth(o), fig: unitFigures}
	t.writeVerdict()
	t.writeSetup()
	t.writePhases()
	t.writeCounts()
	t.writeDistribution()
	t.writeRecommendation()
	t.writeCutoffCurve()
	writeEmitText(&t.b, t.st, t.width, t.r.Emit)
	return t
}

// probeText is the terminal report being written: its methods are ProbeText's sections, in
// order.
type probeText struct {
	b     strings.Builder
	r     *profile.Profile
	st    Styles
	width int
	fig   figures
}

// probeVerdictStyle is the leading line's style for a verdict level: good, provisional
// (a warning) or bad.
func probeVerdictStyle(level verdict.Level, st Styles) lipgloss.Style {
	switch level {
	case verdict.Good:
		return st.Verdict.Inherit(st.Good)
	case verdict.Provisional:
		return st.Verdict.Inherit(st.Warn)
	}
	return st.Verdict.Inherit(st.Bad)
}

// writeVerdict leads with the verdict's most serious clause, then its other clauses.
func (t *probeText) writeVerdict() {
	sym, level := probeVerdict(t.r)
	style := probeVerdictStyle(level, t.st)
	writeHanging(&t.b, style.Render(sym)+" ", 2, textSafe(t.r.Recommendation.Verdict.Headline()), t.width, style)
	reasons := t.r.Recommendation.Verdict.Reasons
	for _, reason := range reasons[min(1, len(reasons)):] {
		writeHanging(&t.b, t.st.Warn.Render(reason.Level.Symbol())+" ", 2, textSafe(reason.Text), t.width, t.st.Warn)
	}
}

// writeSetup says what was probed and how: the target and load, the connections, the notes
// and the headers sent.
func (t *probeText) writeSetup() {
	st, width := t.st, t.width
	for _, l := range wrapSeparated(probeSetupParts(t.r, t.fig), " · ", width) {
		// A URL wider than the terminal breaks between its path segments.
		for _, p := range wrapPath(l, width) {
			t.b.WriteString(st.Muted.Render(p) + "\n")
		}
	}
	if parts := probeConnParts(t.r); len(parts) > 0 {
		for _, l := range wrapSeparated(parts, " · ", width) {
			t.b.WriteString(st.Muted.Render(l) + "\n")
		}
	}
	for _, n := range t.r.Notes {
		writeHanging(&t.b, st.Warn.Render("!")+" ", 2, textSafe(n), width, st.Warn)
	}
	for _, h := range t.r.Target.Headers {
		writeHanging(&t.b, "  ", 2, textSafe(h), width, st.Muted)
	}
}

// writePhases is the latency-by-phase table, when there are phases.
func (t *probeText) writePhases() {
	rows := probePhaseTable(t.r)
	if len(rows) == 0 {
		return
	}
	t.b.WriteString("\n")
	writeTitle(&t.b, t.st, "Latency by phase (ms)", probePhaseCaption(t.r), t.width)
	t.b.WriteString(fitTableKeys(t.st, probePhaseHeaders, rows, t.width, 2, probeNumeric) + "\n")
}

// kv writes a key-value line: the key in its column, the items wrapped beside it.
func (t *probeText) kv(k string, items []string) {
	indent := strings.Repeat(" ", probeKeyW)
	lines := wrapSeparated(items, " · ", max(t.width-probeKeyW, 20))
	t.b.WriteString(t.st.Key.Render(fmt.Sprintf("%-10s", k)) + " " + lines[0] + "\n")
	for _, l := range lines[1:] {
		t.b.WriteString(indent + l + "\n")
	}
}

// writeCounts is the responses and errors (with a sample of each error class), then where
// the figures came from: the source of advise, or the schedule of a probe.
func (t *probeText) writeCounts() {
	r, indent := t.r, strings.Repeat(" ", probeKeyW)
	t.b.WriteString("\n")
	t.kv("responses", probeStatusItems(r.Status, t.fig))
	t.kv("errors", probeErrorItems(r.Errors, t.fig))
	for _, e := range probeErrorSamples(r) {
		writeHanging(&t.b, indent, probeKeyW, e, t.width, t.st.Muted)
	}
	if items := probeStreamItems(r.Streams, t.fig); items != nil {
		t.kv("streams", items)
	}
	if r.Source == nil {
		t.kv("schedule", probeScheduleParts(r, t.fig))
		return
	}
	t.kv("source", probeSourceDetailParts(r.Source, t.fig))
	for _, m := range r.Source.MalformedSample {
		writeHanging(&t.b, indent, probeKeyW, textSafe(m), t.width, t.st.Muted)
	}
}

// writeDistribution is the total latency as bars, when there is a distribution.
func (t *probeText) writeDistribution() {
	r := t.r
	if len(r.Distribution) == 0 {
		return
	}
	t.b.WriteString("\n")
	n := int64(0)
	if r.Phases.Total != nil {
		n = r.Phases.Total.Count
	}
	writeTitle(&t.b, t.st, "Total latency", "n="+t.fig.count(n), t.width)
	probeBars(&t.b, r.Distribution, t.width, t.st)
}

// key is a recommendation key padded to w cells, then a space.
func (t *probeText) key(k string, w int) string {
	return t.st.Key.Render(fmt.Sprintf("%-*s", w, k)) + " "
}

// writeRecommendation is the recommended timeouts and attempts (a job's schedule too), when
// a timeout could be derived, then the derivation line by line.
func (t *probeText) writeRecommendation() {
	st, width, rec := t.st, t.width, t.r.Recommendation
	t.b.WriteString("\n" + st.Title.Render("Recommendation") + "\n")
	if rec.TimeoutMs > 0 {
		writeHanging(&t.b, t.key("  timeout", 10), probeKeyW, units.Millis(rec.TimeoutMs), width, st.Value)
		writeHanging(&t.b, t.key("  connect", 10), probeKeyW, probeConnect(rec), width, st.Value)
		if rec.ReadTimeoutMs != nil {
			writeHanging(&t.b, t.key("  read", 10), probeKeyW, units.Millis(*rec.ReadTimeoutMs), width, st.Value)
		}
		attempts, attemptsW := st.Value.Render(strconv.Itoa(rec.MaxAttempts)), len(strconv.Itoa(rec.MaxAttempts))
		if !rec.FitsBudget {
			attempts, attemptsW = st.Bad.Render("0"), 1
		}
		writeHanging(&t.b, t.key("  attempts", 10)+attempts+" ", probeKeyW+attemptsW+1, strings.TrimSpace(probeAttempts(rec)), width, st.Muted)
		if rec.Job != nil {
			for _, row := range probeJobRows(rec.Job) {
				writeHanging(&t.b, t.key("  "+row[0], 13), 14, row[1], width, st.Value)
			}
		}
		for _, row := range probeRetryBudgetRows(rec.RetryBudget) {
			writeHanging(&t.b, t.key("  "+row[0], 14), 15, row[1], width, st.Value)
		}
	}
	for _, row := range probeStreamRows(&rec) {
		writeHanging(&t.b, t.key("  "+row[0], 14), 15, row[1], width, st.Value)
	}
	for _, d := range probeDerivation(rec) {
		writeHanging(&t.b, st.Muted.Render("  · "), 4, d, width, st.Muted)
	}
}

// writeCutoffCurve is the share cut off at each candidate timeout, when it has samples.
func (t *probeText) writeCutoffCurve() {
	r, st := t.r, t.st
	if len(r.CutoffCurve) == 0 || r.CutoffCurve[0].Samples == 0 {
		return
	}
	t.b.WriteString("\n")
	writeTitle(&t.b, st, "Cut-off curve", probeCutoffTitle+", n="+t.fig.count(r.CutoffCurve[0].Samples), t.width)
	for _, c := range r.CutoffCurve {
		label := fmt.Sprintf("  %-12s", c.Label)
		v, ok := probeCutoffValue(r, c)
		switch {
		case !ok:
			t.b.WriteString(label + st.Muted.Render("n/a (n="+t.fig.count(c.Samples)+")") + "\n")
		case c.CutRate == nil:
			writeHanging(&t.b, label+v+"  ", 14+lipgloss.Width(v)+2, "beyond --max-timeout: unanswered requests", t.width, st.Muted)
		default:
			fmt.Fprintf(&t.b, "%s%-10s %s\n", label, v, st.Value.Render(probePercent(*c.CutRate)))
		}
	}
}

// probeBars draws the distribution as horizontal bars scaled to the widest count, at most
// 40 cells and no wider than width allows beside the labels and counts.
func probeBars(b *strings.Builder, buckets []profile.Bucket, width int, st Styles) {
	var peak int64
	labels := make([]string, len(buckets))
	counts := make([]string, len(buckets))
	lw, cw := 0, 0
	for i, k := range buckets {
		peak = max(peak, k.Count)
		labels[i] = fmt.Sprintf("%s – %s", units.Millis(k.FromMs), units.Millis(k.ToMs))
		lw = max(lw, lipgloss.Width(labels[i]))
		counts[i] = units.Count(int(k.Count))
		cw = max(cw, len(counts[i]))
	}
	// "  " label " " bar " " count
	bar := min(40, max(10, width-2-lw-1-1-cw))
	for i, k := range buckets {
		// count × width overflows int64 for the counts merged or crafted profiles hold
		// (issue 17: strings.Repeat with a negative count): those scale in floating point.
		n := 0
		if peak > 0 && k.Count > 0 {
			if k.Count <= (math.MaxInt64-peak)/int64(bar) {
				n = int((k.Count*int64(bar) + peak - 1) / peak)
			} else {
				n = int(math.Ceil(float64(k.Count) / float64(peak) * float64(bar)))
			}
			n = min(bar, max(1, n))
		}
		pad := strings.Repeat(" ", lw-lipgloss.Width(labels[i]))
		fmt.Fprintf(b, "  %s%s %s %s\n", labels[i], pad, st.Bar.Render(strings.Repeat("█", n)), counts[i])
	}
}

// probeStatusLine is probeStatusItems in legacy figures, joined: the HTML report's.
func probeStatusLine(status map[string]int64) string {
	return strings.Join(probeStatusItems(status, unitFigures), " · ")
}

// probeStatusItems are the status codes in numeric order with their counts: "200: 1,980",
// "503: 20"; "none" when there are none.
func probeStatusItems(status map[string]int64, fig figures) []string {
	if len(status) == 0 {
		return []string{"none"}
	}
	codes := make([]string, 0, len(status))
	for c := range status {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = c + ": " + fig.count(status[c])
	}
	return parts
}

// probeErrorLine is probeErrorItems in legacy figures, joined: the HTML report's.
func probeErrorLine(errs map[string]int64) string {
	return strings.Join(probeErrorItems(errs, unitFigures), " · ")
}

// probeErrorItems are the error classes with counts, "none" when all are zero.
func probeErrorItems(errs map[string]int64, fig figures) []string {
	var parts []string
	for _, c := range profile.ErrorClasses {
		if errs[c] > 0 {
			parts = append(parts, c+": "+fig.count(errs[c]))
		}
	}
	if len(parts) == 0 {
		return []string{"none"}
	}
	return parts
}

// probeScheduleLine is probeScheduleParts in legacy figures, joined: the HTML report's.
func probeScheduleLine(r *profile.Profile) string {
	return strings.Join(probeScheduleParts(r, unitFigures), " · ")
}

// probeScheduleParts say whether the generator kept its schedule.
func probeScheduleParts(r *profile.Profile, fig figures) []string {
	s := r.Schedule
	var parts []string
	if s.RequestedPerS != nil {
		parts = append(parts, "requested "+units.Rate(*s.RequestedPerS)+", achieved "+units.Rate(s.AchievedPerS))
		late := fmt.Sprintf("late %s (> %s)", fig.count(s.Late), units.Millis(s.LateAfterMs))
		if s.LateP99Ms != nil {
			late += ", lateness p99 " + units.Millis(*s.LateP99Ms)
		}
		parts = append(parts, late, "waited for a slot "+fig.count(s.WaitedForSlot), "dropped "+fig.count(s.Dropped))
	} else {
		parts = append(parts, "achieved "+units.Rate(s.AchievedPerS))
	}
	parts = append(parts, fmt.Sprintf("peak in flight %s of %s", fig.count(s.PeakInFlight), fig.count(int64(s.MaxInFlight))))
	return parts
}

// probePercent prints a ratio as a percentage with enough digits for small tails.
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

// ProbeMarkdown renders the result for PR comments and GitHub step summaries: headings,
// the verdict with its marks, tables with numbers right-aligned, and the latency histogram
// as a fenced block of the text chart.
func ProbeMarkdown(w io.Writer, r *profile.Profile, _ Options) error {
	fig := unitFigures
	var b strings.Builder
	title := "patience probe"
	if r.Source != nil {
		title = "patience advise"
	}
	fmt.Fprintf(&b, "### %s\n\n**%s**\n\n", title, mdText(probeHeadline(r)))
	for _, m := range probeMoreReasons(r) {
		fmt.Fprintf(&b, "- %s\n", mdText(m))
	}
	if len(probeMoreReasons(r)) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(mdText(strings.Join(probeSetupParts(r, fig), " · ")) + "\n")
	if parts := probeConnParts(r); len(parts) > 0 {
		b.WriteString("\n" + mdText(strings.Join(parts, " · ")) + "\n")
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "> ⚠️ %s\n", mdText(n))
		}
	}
	if rows := probePhaseTable(r); len(rows) > 0 {
		b.WriteString("\n#### Latency by phase (ms)\n\n")
		writeMDTable(&b, probePhaseHeaders, rows, probeNumeric)
		if r.Source == nil {
			b.WriteString("\n_total_ runs from the intended send time (coordinated omission corrected); _sent_ from the actual send.")
			if r.Streams != nil {
				b.WriteString(" _first_event_ runs from the intended send time to the end of a stream's first event; _gap_ between two events of a stream.")
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "\n- **Responses:** %s\n- **Errors:** %s\n",
		mdText(strings.Join(probeStatusItems(r.Status, fig), " · ")), mdText(strings.Join(probeErrorItems(r.Errors, fig), " · ")))
	for _, e := range probeErrorSamples(r) {
		fmt.Fprintf(&b, "  - %s\n", mdText(e))
	}
	if items := probeStreamItems(r.Streams, fig); items != nil {
		fmt.Fprintf(&b, "- **Streams:** %s\n", mdText(strings.Join(items, " · ")))
	}
	if r.Source != nil {
		fmt.Fprintf(&b, "- **Source:** %s\n", mdText(strings.Join(probeSourceDetailParts(r.Source, fig), " · ")))
		for _, m := range r.Source.MalformedSample {
			fmt.Fprintf(&b, "  - %s\n", mdText(m))
		}
	} else {
		fmt.Fprintf(&b, "- **Schedule:** %s\n", mdText(strings.Join(probeScheduleParts(r, fig), " · ")))
	}
	if len(r.Distribution) > 0 {
		var chart strings.Builder
		probeBars(&chart, r.Distribution, mdChartWidth, Styles{})
		n := int64(0)
		if r.Phases.Total != nil {
			n = r.Phases.Total.Count
		}
		writeMDChart(&b, "Total latency, n="+fig.count(n), chart.String())
	}

	rec := r.Recommendation
	b.WriteString("\n#### Recommendation\n\n")
	if rec.TimeoutMs > 0 {
		head := []string{"timeout", "connect timeout", "attempts", "budget"}
		row := []string{units.Millis(rec.TimeoutMs), probeConnect(rec), strconv.Itoa(rec.MaxAttempts) + probeAttempts(rec), probeBudget(rec)}
		if rec.ReadTimeoutMs != nil {
			head = slices.Insert(head, 2, "read timeout")
			row = slices.Insert(row, 2, units.Millis(*rec.ReadTimeoutMs))
		}
		attempts := slices.Index(head, "attempts")
		writeMDTable(&b, head, [][]string{row}, func(c int) bool { return c != attempts })
		b.WriteString("\n")
		if rec.Job != nil {
			var rows [][]string
			for _, row := range probeJobRows(rec.Job) {
				rows = append(rows, []string{row[0], row[1]})
			}
			writeMDTable(&b, []string{"queue", ""}, rows, nil)
			b.WriteString("\n")
		}
		if budget := probeRetryBudgetRows(rec.RetryBudget); budget != nil {
			var rows [][]string
			for _, row := range budget[1:] {
				rows = append(rows, []string{row[0], row[1]})
			}
			writeMDTable(&b, []string{"retry budget", budget[0][1]}, rows, nil)
			b.WriteString("\n")
		}
	}
	if rows := probeStreamRows(&rec); rows != nil {
		var md [][]string
		for _, row := range rows[1:] {
			md = append(md, []string{row[0], row[1]})
		}
		writeMDTable(&b, []string{rows[0][0], rows[0][1]}, md, nil)
		b.WriteString("\n")
	}
	for _, d := range probeDerivation(rec) {
		fmt.Fprintf(&b, "- %s\n", mdText(d))
	}
	if len(r.CutoffCurve) > 0 && r.CutoffCurve[0].Samples > 0 {
		fmt.Fprintf(&b, "\n#### Cut-off curve\n\nThe %s (n=%s).\n\n", mdText(probeCutoffTitle), fig.count(r.CutoffCurve[0].Samples))
		var rows [][]string
		for _, c := range r.CutoffCurve {
			v, ok := probeCutoffValue(r, c)
			switch {
			case !ok:
				rows = append(rows, []string{c.Label, "n/a (n=" + fig.count(c.Samples) + ")", ""})
			case c.CutRate == nil:
				rows = append(rows, []string{c.Label, v, "beyond --max-timeout"})
			default:
				rows = append(rows, []string{c.Label, v, probePercent(*c.CutRate)})
			}
		}
		writeMDTable(&b, []string{"timeout at", "value", "cut off"}, rows, func(c int) bool { return c > 0 })
	}
	writeEmitMarkdown(&b, r.Emit)
	_, err := io.WriteString(w, b.String())
	return err
}

// probeSourceParts are the setup line of a result read from existing data (patience
// advise): what the samples are (a route, a host, everything), the format and the time
// they span, how many.
func probeSourceParts(r *profile.Profile, fig figures) []string {
	src := r.Source
	what := r.Target.URL
	if r.Target.Method != "" && (what == "" || strings.HasPrefix(what, "/")) {
		what = strings.TrimSpace(r.Target.Method + " " + what)
	}
	what = textSafe(what) // a route, host or file from the data
	from := "from " + src.Format
	if r.DurationMs > 0 {
		from += " spanning " + fig.long(r.DurationMs)
	}
	return []string{what, from, fig.plural(r.Requests, "request")}
}

// probeSourceDetail is probeSourceDetailParts in legacy figures, joined: the HTML report's.
func probeSourceDetail(src *profile.Source) string {
	return strings.Join(probeSourceDetailParts(src, unitFigures), " · ")
}

// probeSourceDetailParts name the files, the lines read and how many could not be parsed,
// and the unit the source writes durations in.
func probeSourceDetailParts(src *profile.Source, fig figures) []string {
	names := textSafeAll(src.Files)
	files := strings.Join(names, ", ")
	if len(names) > 3 {
		files = fmt.Sprintf("%s, … (%d files)", strings.Join(names[:2], ", "), len(names))
	}
	parts := []string{files, fmt.Sprintf("%s read, %s malformed", fig.plural(src.Lines, "line"), fig.count(src.Malformed))}
	if src.Unit != "" {
		parts = append(parts, "durations in "+src.Unit)
	}
	return parts
}
