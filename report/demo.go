package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/patience-dev/patience/demo"
	"github.com/patience-dev/patience/internal/units"
)

// DemoFormats are the renderers of `patience demo`.
var DemoFormats = Registry[*demo.Result]{
	"text":     DemoText,
	"json":     JSON[*demo.Result],
	"markdown": DemoMarkdown,
	"html":     DemoHTML,
}

// demoIntro is the sentence that opens a stage.
func demoIntro(d *demo.Result, section string) string {
	switch section {
	case "probe":
		return fmt.Sprintf("patience serve %s at %s: %s. Probing it at %s for %s; every latency counts from its intended send time.",
			textSafe(d.Target.Scenario), textSafe(d.Target.URL), textProse(d.Target.Description), units.Rate(d.RatePerS), units.Millis(d.DurationMs))
	case "replay":
		return "The same scenario in the simulator: what no timeout, timeouts, a breaker with a fallback and a bulkhead do to a checkout page when the API hangs."
	case "live":
		intro := fmt.Sprintf("The same scenario over real loopback sockets: patience serve per policy, a net/http client per web server, every duration ÷ %s.", units.Sig(d.Speed))
		if d.SpeedReason != "" {
			intro += " " + textProse(strings.ToUpper(d.SpeedReason[:1])+d.SpeedReason[1:]) + "."
		}
		return intro
	}
	return ""
}

// DemoText renders every stage that ran, for a terminal.
func DemoText(w io.Writer, d *demo.Result, opts Options) error {
	first := true
	for _, s := range demo.Sections {
		if !d.Ran(s) {
			continue
		}
		if !first {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		first = false
		if err := DemoSectionText(w, d, s, opts); err != nil {
			return err
		}
	}
	if first {
		return nil
	}
	return DemoLegend(w, opts)
}

// DemoSectionText renders one stage for a terminal: its title, the sentence that says what
// it does, and the stage's own report. The command prints each stage as soon as it is done.
func DemoSectionText(w io.Writer, d *demo.Result, section string, opts Options) error {
	st := opts.Styles
	var b strings.Builder
	b.WriteString(st.Title.Render("patience demo · "+section) + "\n")
	writeWrapped(&b, demoIntro(d, section), textWidth(opts), st.Muted)
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	switch section {
	case "probe":
		return ProbeText(w, d.Probe, opts)
	case "replay":
		return ReplayText(w, d.Replay, opts)
	case "live":
		return AgreementText(w, d.Live, opts)
	}
	return nil
}

// DemoMarkdown renders the tour as one Markdown document: a heading per stage, its
// sentence, then the stage's own Markdown report.
func DemoMarkdown(w io.Writer, d *demo.Result, opts Options) error {
	var b strings.Builder
	b.WriteString("## patience demo\n\n_On a built-in loopback target: no network, no configuration._\n")
	for i, s := range demo.Sections {
		if !d.Ran(s) {
			continue
		}
		fmt.Fprintf(&b, "\n## %d. %s\n\n%s\n\n", i+1, strings.ToUpper(s[:1])+s[1:], mdText(demoIntro(d, s)))
		var err error
		switch s {
		case "probe":
			err = ProbeMarkdown(&b, d.Probe, opts)
		case "replay":
			err = ReplayMarkdown(&b, d.Replay, opts)
		case "live":
			err = AgreementMarkdown(&b, d.Live, opts)
		}
		if err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DemoLegend writes the footer that says what the demo's marks mean; the demo command writes
// it after the sections it printed one by one (DemoSectionText).
func DemoLegend(w io.Writer, opts Options) error {
	var b strings.Builder
	writeLegend(&b, opts.Styles, textWidth(opts), demoLegend, false)
	_, err := io.WriteString(w, b.String())
	return err
}
