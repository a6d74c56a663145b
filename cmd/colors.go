package cmd

import "github.com/charmbracelet/lipgloss"

// Colours for the error prefix on stderr; report styles live in report.Styles.
var (
	lipglossRed    = lipgloss.Color("1")
	lipglossYellow = lipgloss.Color("3")
)
