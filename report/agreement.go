package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/replay"
)

// agreementFidelity is the line under the table that says how well the machine kept time;
// warn is the library's judgement (live.Agreement.Faithful), printed, not made here.
func agreementFidelity(a *live.Agreement) (warn bool, text string) {
	text = fmt.Sprintf("live timers fired up to %s late (p99), %s of scenario time at speed %g",
		replayDuration(a.TimerLatenessP99Ms), replayDuration(a.ScenarioLatenessP99Ms), a.Speed)
	if !a.Faithful {
		return true, text + ": the machine was too busy for a faithful live run; where the columns differ, the simulation is the reference (try a lower --speed)"
	}
	return false, text
}

// AgreementFormats are the renderers of a simulated-vs-live comparison.
var AgreementFormats = Registry[*live.Agreement]{
	"text":     AgreementText,
	"json":     JSON[*live.Agreement],
	"markdown": AgreementMarkdown,
}

// agreementRows are the figures compared, each rendered for one policy result.
var agreementRows = []struct {
	label string
	value func(replay.PolicyResult) string
}{
	{"success", func(p replay.PolicyResult) string { return replayPercent(p.SuccessRate) }},
	{"degraded", func(p replay.PolicyResult) string { return replayCount(p.Degraded) }},
	{"amplification", func(p replay.PolicyResult) string { return replayRatio(p.Amplification) }},
	{"duplicates", func(p replay.PolicyResult) string { return replayCount(p.Duplicates) }},
	{"worker saturation", func(p replay.PolicyResult) string { return replayPercent(p.WorkerSaturation) }},
	{"latency p99", func(p replay.PolicyResult) string { return replayDuration(p.Latency.P99Ms) }},
}

// agreementPairs matches the live policies to the simulated ones by name, in simulated order.
func agreementPairs(a *live.Agreement) (names []string, simP, liveP []replay.PolicyResult) {
	byName := map[string]replay.PolicyResult{}
	for _, p := range a.Live.Policies {
		byName[p.Name] = p
	}
	for _, p := range a.Simulated.Policies {
		l, ok := byName[p.Name]
		if !ok {
			continue
		}
		names = append(names, p.Name)
		simP = append(simP, p)
		liveP = append(liveP, l)
	}
	return names, simP, liveP
}

// AgreementText renders the comparison as one table, fitted to the width: a row per figure,
// a "simulated / live" cell per policy.
func AgreementText(w io.Writer, a *live.Agreement, opts Options) error {
	st := opts.Styles
	width := textWidth(opts)
	var b strings.Builder
	writeHeadline(&b, st, "simulated vs live · "+textSafe(a.Simulated.Scenario), []string{fmt.Sprintf("real sockets at speed %g", a.Speed)}, width)
	b.WriteString(st.Muted.Render("each cell: simulated / live") + "\n")
	headers, rows := agreementTable(a)
	b.WriteString(fitTable(st, headers, rows, width, func(int) bool { return true }) + "\n")
	warn, text := agreementFidelity(a)
	style := st.Muted
	if warn {
		style = st.Warn
	}
	writeWrapped(&b, text, width, style)
	_, err := io.WriteString(w, b.String())
	return err
}

// agreementTable is the comparison's header and rows: a "simulated / live" cell per policy.
func agreementTable(a *live.Agreement) (headers []string, rows [][]string) {
	names, simP, liveP := agreementPairs(a)
	headers = append([]string{""}, textSafeAll(names)...)
	for _, row := range agreementRows {
		cells := []string{row.label}
		for i := range names {
			// A live policy cut by Ctrl-C has figures of part of a run: they are not set
			// beside the simulation's whole run as if comparable.
			live := row.value(liveP[i])
			if liveP[i].Interrupted {
				live = "interrupted"
			}
			cells = append(cells, row.value(simP[i])+" / "+live)
		}
		rows = append(rows, cells)
	}
	return headers, rows
}

// AgreementMarkdown renders the comparison as a Markdown table, numbers right-aligned.
func AgreementMarkdown(w io.Writer, a *live.Agreement, _ Options) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Simulated vs live · %s\n\n_real sockets at speed %g; each cell: simulated / live_\n\n", mdCode(a.Simulated.Scenario), a.Speed)
	headers, rows := agreementTable(a)
	writeMDTable(&b, headers, rows, func(col int) bool { return col > 0 })
	_, text := agreementFidelity(a)
	b.WriteString("\n" + mdText(strings.ToUpper(text[:1])+text[1:]) + ".\n")
	_, err := io.WriteString(w, b.String())
	return err
}
