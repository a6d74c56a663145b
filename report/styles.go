package report

import "github.com/charmbracelet/lipgloss"

// Styles holds every terminal style patience uses, built from one renderer so colour
// decisions are made once (after charmbracelet/mods' makeStyles). Report code takes its
// styles from here and never creates package-level styles.
type Styles struct {
	Title    lipgloss.Style // report heading
	Verdict  lipgloss.Style // the one-line verdict that leads every report
	Good     lipgloss.Style // passes, successes, "fits"
	Warn     lipgloss.Style // warnings, degraded
	Bad      lipgloss.Style // failures, errors, "does not fit"
	Muted    lipgloss.Style // derivations, footnotes, n/a
	Key      lipgloss.Style // labels in key: value lines
	Value    lipgloss.Style // numbers
	Header   lipgloss.Style // table header cells
	Cell     lipgloss.Style // table body cells
	Border   lipgloss.Style // table borders
	Bar      lipgloss.Style // histogram / chart bars
	BarAlt   lipgloss.Style // second series in charts
	BarThird lipgloss.Style // third series in charts
}

// NewStyles builds the style set on a renderer.
func NewStyles(r *lipgloss.Renderer) Styles {
	return Styles{
		Title:    r.NewStyle().Bold(true),
		Verdict:  r.NewStyle().Bold(true),
		Good:     r.NewStyle().Foreground(lipgloss.Color("2")),
		Warn:     r.NewStyle().Foreground(lipgloss.Color("3")),
		Bad:      r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
		Muted:    r.NewStyle().Foreground(lipgloss.Color("8")),
		Key:      r.NewStyle().Foreground(lipgloss.Color("6")),
		Value:    r.NewStyle().Bold(true),
		Header:   r.NewStyle().Bold(true).Padding(0, 1),
		Cell:     r.NewStyle().Padding(0, 1),
		Border:   r.NewStyle().Foreground(lipgloss.Color("8")),
		Bar:      r.NewStyle().Foreground(lipgloss.Color("4")),
		BarAlt:   r.NewStyle().Foreground(lipgloss.Color("1")),
		BarThird: r.NewStyle().Foreground(lipgloss.Color("3")),
	}
}
