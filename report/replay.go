package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/replay"
)

// ReplayFormats are the renderers of `patience replay` (and of the live replay, which fills
// the same struct).
var ReplayFormats = Registry[*replay.Result]{
	"text":     ReplayText,
	"json":     JSON[*replay.Result],
	"markdown": ReplayMarkdown,
}

// replayLevel grades a verdict line.
type replayLevel int

const (
	replayGood replayLevel = iota
	replayWarn
	replayBad
)

// replayVerdict says in plain words what the policy would do to the service, from the facts
// the simulator measured. The most serious consequence comes first.
func replayVerdict(p replay.PolicyResult, hasPhases bool) (replayLevel, string) {
	level := replayGood
	var clauses []string
	bad := func(s string) { level = replayBad; clauses = append(clauses, s) }
	if p.WorkerSaturation >= 1 && p.SaturatedMs >= 1000 {
		s := "every worker of a client stuck for " + replayDuration(p.SaturatedMs) + ": unrelated pages die"
		if p.NoWorker > 0 {
			s += " (" + replayCount(p.NoWorker) + " calls turned away)"
		}
		bad(s)
	}
	if stuck := p.FailureReasons[replay.ReasonStuck]; stuck > 0 {
		bad(replayCount(stuck) + " requests still hanging when the run ended")
	}
	if p.Duplicates > 0 {
		bad(replayCount(p.Duplicates) + " side effects executed twice (customers charged twice)")
	}
	if p.UnknownOutcomes > 0 {
		level = max(level, replayWarn)
		clauses = append(clauses, replayCount(p.UnknownOutcomes)+" requests in an unknown state (the server may have acted): someone must confirm them")
	}
	// PT009's default max_amplification is 10: above it a retry policy multiplies an outage.
	switch {
	case p.Amplification >= 10:
		bad("each request became " + replayRatio(p.Amplification) + " calls to the dependency")
	case p.Amplification >= 3:
		level = max(level, replayWarn)
		clauses = append(clauses, "each request became "+replayRatio(p.Amplification)+" calls to the dependency")
	}
	if p.Requests > 0 {
		failRate := float64(p.Failed) / float64(p.Requests)
		switch {
		case failRate >= 0.10:
			level = replayBad
		case failRate >= 0.005 && level < replayWarn:
			level = replayWarn
		}
		if p.Failed > 0 {
			clauses = append(clauses, replayPercent(failRate)+" failed ("+replayTopReasons(p.FailureReasons, 2)+")")
		}
	}
	if p.Degraded > 0 {
		if level < replayWarn {
			level = replayWarn
		}
		clauses = append(clauses, replayCount(p.Degraded)+" answered from the fallback (degraded, not failed)")
	}
	switch {
	case p.Recovered && p.RecoveryMs != nil && *p.RecoveryMs > 0:
		clauses = append(clauses, "recovers "+replayDuration(*p.RecoveryMs)+" after the incident ends")
	case hasPhases && p.Failed+p.Degraded > 0:
		level = replayBad
		clauses = append(clauses, "does not recover before arrivals stop")
	}
	if p.WastedWork > 0 && p.Requests > 0 && float64(p.WastedWork) >= 0.01*float64(p.Requests) {
		clauses = append(clauses, replayCount(p.WastedWork)+" calls served after the caller gave up")
	}
	if len(clauses) == 0 || level == replayGood {
		clauses = append([]string{replayPercent(p.SuccessRate) + " succeeded"}, clauses...)
	}
	return level, strings.Join(clauses, "; ")
}

// replayTopReasons lists the commonest failure reasons, most frequent first.
func replayTopReasons(m map[string]int, n int) string {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v || (all[i].v == all[j].v && all[i].k < all[j].k) })
	var parts []string
	for i, e := range all {
		if i == n {
			break
		}
		parts = append(parts, strings.ReplaceAll(e.k, "_", " ")+" "+replayCount(e.v))
	}
	return strings.Join(parts, ", ")
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
		level, text := replayVerdict(p, r.IncidentEndMs != nil)
		mark := st.Good.Render("✓")
		switch level {
		case replayWarn:
			mark = st.Warn.Render("!")
		case replayBad:
			mark = st.Bad.Render("✗")
		}
		// Wrap the verdict under itself, so a narrow terminal keeps the names in a column.
		indent := nameW + 4
		lines := strings.Split(replayWrap(text, max(opts.Width-indent, 30)), "\n")
		fmt.Fprintf(&b, "%s %s  %s\n", mark, st.Verdict.Render(fmt.Sprintf("%-*s", nameW, p.Name)), lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat(" ", indent), l)
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
		level, text := replayVerdict(p, r.IncidentEndMs != nil)
		mark := "✅"
		switch level {
		case replayWarn:
			mark = "⚠️"
		case replayBad:
			mark = "❌"
		}
		fmt.Fprintf(&b, "- %s **%s**: %s\n", mark, replayMDEscape(p.Name), text)
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

// replayCount writes an integer with thousands separators.
func replayCount(n int) string {
	s := fmt.Sprintf("%d", n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// replayPercent writes a ratio as a percentage with one decimal, never rounding a partial
// success up to 100% or a partial failure down to 0%.
func replayPercent(x float64) string {
	s := fmt.Sprintf("%.1f%%", 100*x)
	switch {
	case x < 1 && s == "100.0%":
		return ">99.9%"
	case x > 0 && s == "0.0%":
		return "<0.1%"
	}
	return s
}

// replayRatio writes a multiplier: ×1, ×1.23, ×18.
func replayRatio(x float64) string {
	switch {
	case x == math.Trunc(x):
		return fmt.Sprintf("×%.0f", x)
	case x >= 10:
		return fmt.Sprintf("×%.1f", x)
	}
	return fmt.Sprintf("×%.2f", x)
}

// replayDuration writes milliseconds with about three significant digits: 0.41ms, 412ms,
// 4.12s, 4m12s, 1h5m.
func replayDuration(ms float64) string {
	switch {
	case ms <= 0:
		return "0"
	case ms < 10:
		return fmt.Sprintf("%.2fms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0fms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.3gs", ms/1000)
	case ms < 3_600_000:
		s := int(math.Round(ms / 1000))
		if s%60 == 0 {
			return fmt.Sprintf("%dm", s/60)
		}
		return fmt.Sprintf("%dm%ds", s/60, s%60)
	}
	m := int(math.Round(ms / 60_000))
	return fmt.Sprintf("%dh%dm", m/60, m%60)
}
