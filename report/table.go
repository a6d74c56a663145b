package report

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
)

// labelledTable is the table of the comparison reports (replay, storm, simulated vs live): a
// header row, a first column of row labels, the rest plain cells, all from one style set.
func labelledTable(st Styles, headers ...string) *table.Table {
	return table.New().
		Border(lipgloss.NormalBorder()).
		BorderStyle(st.Border).
		Headers(headers...).
		StyleFunc(func(row, col int) lipgloss.Style {
			switch {
			case row == table.HeaderRow:
				return st.Header
			case col == 0:
				return st.Key.Padding(0, 1)
			}
			return st.Cell
		})
}
