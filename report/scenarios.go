package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/scenario"
)

// ScenarioListFormats renders `patience scenarios`.
var ScenarioListFormats = Registry[scenario.List]{
	"text": scenarioListText,
	"json": JSON[scenario.List],
}

// ScenarioValidationFormats renders `patience scenarios validate`.
var ScenarioValidationFormats = Registry[scenario.Validation]{
	"text": scenarioValidationText,
	"json": JSON[scenario.Validation],
}

// scenarioListText is one line per scenario: the name padded to a column, the story wrapped
// to the terminal width under it.
func scenarioListText(w io.Writer, l scenario.List, o Options) error {
	width := 0
	for _, s := range l.Scenarios {
		width = max(width, lipgloss.Width(textSafe(s.Name)))
	}
	var b strings.Builder
	b.WriteString(o.Styles.Title.Render("Bundled scenarios") + "\n\n")
	descWidth := max(20, o.Width-width-4)
	for _, s := range l.Scenarios {
		lines := scenarioWrap(textProse(s.Description), descWidth)
		name := o.Styles.Key.Render(textSafe(s.Name)) + strings.Repeat(" ", width-lipgloss.Width(textSafe(s.Name)))
		for i, line := range lines {
			if i == 0 {
				fmt.Fprintf(&b, "  %s  %s\n", name, line)
			} else {
				fmt.Fprintf(&b, "  %s  %s\n", strings.Repeat(" ", width), line)
			}
		}
		pol := "policies: " + strings.Join(textSafeAll(s.Policies), ", ")
		if s.ServeOnly {
			pol = "for patience serve only"
		}
		if s.Default {
			pol += " · default for replay"
		}
		for _, line := range scenarioWrap(pol, descWidth) {
			fmt.Fprintf(&b, "  %s  %s\n", strings.Repeat(" ", width), o.Styles.Muted.Render(line))
		}
	}
	b.WriteString("\n" + o.Styles.Muted.Render("patience replay NAME runs one; patience scenarios show NAME prints its YAML.") + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func scenarioValidationText(w io.Writer, v scenario.Validation, o Options) error {
	var b strings.Builder
	for _, f := range v.Files {
		policies := "policies " + strings.Join(textSafeAll(f.Policies), ", ")
		if len(f.Policies) == 0 { // a file for serve, which needs none
			policies = "no policy"
		}
		// Wrapped by word under the mark: a file path and a policy list can be long.
		writeHanging(&b, o.Styles.Good.Render("✓")+" ", 2, fmt.Sprintf("%s: scenario %s, %s", textSafe(f.File), textSafe(f.Name), policies), textWidth(o), lipgloss.NewStyle())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// scenarioWrap breaks text into lines of at most width cells at spaces.
func scenarioWrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case lipgloss.Width(line)+1+lipgloss.Width(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
