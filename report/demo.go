package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/replay"
)

// DemoSchema is the value of Demo.Schema.
const DemoSchema = "patience/demo/v1"

// Demo is the result of `patience demo`: the tour's three stages in one document, so
// `-o json` is one JSON value and `-o markdown` one comment.
type Demo struct {
	Schema string `json:"schema"`
	// Target is the loopback server the probe measured.
	Target DemoTarget `json:"target"`
	// RatePerS and DurationMs are the probe's rate and length; Speed is the live stage's
	// time compression.
	RatePerS   float64 `json:"rate_per_s"`
	DurationMs float64 `json:"duration_ms"`
	Speed      float64 `json:"speed"`
	// Probe, Replay and Live are the stages' results, null for a stage that did not run.
	Probe  *profile.Profile `json:"probe"`
	Replay *replay.Result   `json:"replay"`
	Live   *Agreement       `json:"live"`
}

// DemoTarget is the demo's target: patience serve on a bundled scenario, on loopback.
type DemoTarget struct {
	// Scenario is the bundled scenario served.
	Scenario string `json:"scenario"`
	// URL is where it listened while the demo ran (a loopback address, gone afterwards).
	URL string `json:"url"`
	// Description says what the scenario's API does.
	Description string `json:"description"`
}

// DemoSections are the stages of the tour, in order.
var DemoSections = []string{"probe", "replay", "live"}

// DemoFormats are the renderers of `patience demo`.
var DemoFormats = Registry[*Demo]{
	"text":     DemoText,
	"json":     JSON[*Demo],
	"markdown": DemoMarkdown,
	"html":     DemoHTML,
}

// demoIntro is the sentence that opens a stage.
func demoIntro(d *Demo, section string) string {
	switch section {
	case "probe":
		return fmt.Sprintf("patience serve %s at %s: %s. Probing it at %s for %s; every latency counts from its intended send time.",
			textSafe(d.Target.Scenario), textSafe(d.Target.URL), textProse(d.Target.Description), units.Rate(d.RatePerS), units.Millis(d.DurationMs))
	case "replay":
		return "The same scenario in the simulator: what no timeout, timeouts, a breaker with a fallback and a bulkhead do to a checkout page when the API hangs."
	case "live":
		return fmt.Sprintf("The same scenario over real loopback sockets: patience serve per policy, a net/http client per web server, every duration ÷ %s.", units.Sig(d.Speed))
	}
	return ""
}

// Ran says whether a stage has a result to show.
func (d *Demo) Ran(section string) bool {
	switch section {
	case "probe":
		return d.Probe != nil
	case "replay":
		return d.Replay != nil
	case "live":
		return d.Live != nil
	}
	return false
}

// DemoText renders every stage that ran, for a terminal.
func DemoText(w io.Writer, d *Demo, opts Options) error {
	first := true
	for _, s := range DemoSections {
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
	return nil
}

// DemoSectionText renders one stage for a terminal: its title, the sentence that says what
// it does, and the stage's own report. The command prints each stage as soon as it is done.
func DemoSectionText(w io.Writer, d *Demo, section string, opts Options) error {
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
func DemoMarkdown(w io.Writer, d *Demo, opts Options) error {
	var b strings.Builder
	b.WriteString("## patience demo\n\n_On a built-in loopback target: no network, no configuration._\n")
	for i, s := range DemoSections {
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
