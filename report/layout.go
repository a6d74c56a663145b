package report

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
)

// textWidth is the width a text report fits: the terminal's (Options.Width), or 100 when
// it is unknown.
func textWidth(opts Options) int {
	if opts.Width > 0 {
		return opts.Width
	}
	return 100
}

// unitWord matches a unit written after its number ("ms", "s;", "min)", and "s–10m" of a
// range "10 s–10m"), which a line must not start with.
var unitWord = regexp.MustCompile(`^(ms|s|min|h)([[:punct:]]*|[–-].*)$`)

// numberWord matches a number as reports write them ("30", "32.3", "1,169").
var numberWord = regexp.MustCompile(`^[0-9][0-9.,]*$`)

// wrapTokens splits s at spaces into the pieces a line may break between: a number stays
// with its unit, so "2 min 30 s" and "1 per 32.3 s" are one piece each.
func wrapTokens(s string) []string {
	var out []string
	for _, w := range strings.Fields(s) {
		n := len(out)
		join := false
		if n > 0 {
			last := out[n-1]
			join = unitWord.MatchString(w) || (w == "per" && numberWord.MatchString(last)) || strings.HasSuffix(last, " per") ||
				(numberWord.MatchString(w) && (strings.HasSuffix(last, " min") || strings.HasSuffix(last, " h")))
		}
		if join {
			out[n-1] += " " + w
		} else {
			out = append(out, w)
		}
	}
	return out
}

// wrapWords breaks s at spaces so that no line is wider than width. Nothing is cut: a word
// wider than width gets a line of its own, and a number keeps its unit (wrapTokens).
func wrapWords(s string, width int) []string {
	var lines []string
	var line strings.Builder
	lw := 0
	for _, word := range wrapTokens(s) {
		ww := lipgloss.Width(word)
		if lw > 0 && lw+1+ww > width {
			lines = append(lines, line.String())
			line.Reset()
			lw = 0
		}
		if lw > 0 {
			line.WriteByte(' ')
			lw++
		}
		line.WriteString(word)
		lw += ww
	}
	if lw > 0 || len(lines) == 0 {
		lines = append(lines, line.String())
	}
	return lines
}

// wrapSeparated breaks a list joined by sep (" · ") between items, and an item wider than
// width by words, so that no line is wider than width.
func wrapSeparated(items []string, sep string, width int) []string {
	var lines []string
	cur := ""
	for _, it := range items {
		switch {
		case cur == "":
			cur = it
		case lipgloss.Width(cur+sep+it) <= width:
			cur += sep + it
		default:
			lines = append(lines, cur)
			cur = it
		}
		if lipgloss.Width(cur) > width {
			parts := wrapWords(cur, width)
			lines = append(lines, parts[:len(parts)-1]...)
			cur = parts[len(parts)-1]
		}
	}
	return append(lines, strings.TrimSuffix(cur, sep))
}

// writeWrapped writes text wrapped to width, each line in style, one Render per line
// (lipgloss pads a multi-line block to its widest line).
func writeWrapped(b *strings.Builder, text string, width int, style lipgloss.Style) {
	for _, paragraph := range strings.Split(text, "\n") {
		for _, l := range wrapWords(paragraph, width) {
			b.WriteString(style.Render(l) + "\n")
		}
	}
}

// writeHanging writes head (already styled, headW columns wide) and then text wrapped to
// width, its later lines indented under the text's first: the verdict lines of a report,
// whose names stay in a column however narrow the terminal. Each line of text is rendered
// in style on its own.
func writeHanging(b *strings.Builder, head string, headW int, text string, width int, style lipgloss.Style) {
	if width-headW < 30 {
		// Too narrow to keep a column: the text goes under the head.
		b.WriteString(strings.TrimRight(head, " ") + "\n")
		for _, l := range wrapWords(text, width-2) {
			b.WriteString("  " + style.Render(l) + "\n")
		}
		return
	}
	lines := wrapWords(text, width-headW)
	b.WriteString(head + style.Render(lines[0]) + "\n")
	for _, l := range lines[1:] {
		b.WriteString(strings.Repeat(" ", headW) + style.Render(l) + "\n")
	}
}

// fitTable renders a table whose first column labels the rows, in as many stacked tables as
// it takes to fit width: each keeps the first column and as many of the next ones as fit, in
// order, so the columns later in the list (the lower-priority ones) move down rather than the
// table wrapping mid-cell. A column too wide even alone beside the labels has its cells
// wrapped by word. right says which columns hold numbers (right-aligned).
func fitTable(st Styles, headers []string, rows [][]string, width int, right func(col int) bool) string {
	return fitTableKeys(st, headers, rows, width, 1, right)
}

// fitTableKeys is fitTable for a table whose first keys columns label the rows together
// (probe's phase and connection kind): every stacked table repeats them all.
func fitTableKeys(st Styles, headers []string, rows [][]string, width, keys int, right func(col int) bool) string {
	t := newKeyedTable(st, headers, rows, width, keys, right)
	var out []string
	for _, g := range t.groups() {
		out = append(out, t.render(g))
	}
	return strings.Join(out, "\n")
}

// keyedTable is a table being fitted by fitTableKeys: its columns' widths and the width of
// the key columns every stacked table repeats. Its methods are the stages: group the other
// columns, then render each group.
type keyedTable struct {
	st      Styles
	headers []string
	rows    [][]string
	width   int
	keys    int
	right   func(col int) bool
	// widths are the columns' widths with their padding; base is the labels' width: the
	// left border and each key column with its right border.
	widths []int
	base   int
}

func newKeyedTable(st Styles, headers []string, rows [][]string, width, keys int, right func(col int) bool) *keyedTable {
	t := &keyedTable{st: st, headers: headers, rows: rows, width: width, right: right}
	t.keys = min(max(keys, 1), len(headers))
	t.widths = make([]int, len(headers))
	for c := range t.widths {
		t.widths[c] = t.columnWidth(c)
	}
	t.base = 1
	for c := range t.keys {
		t.base += t.widths[c] + 1
	}
	return t
}

// columnWidth is column c's widest line, header included, plus its padding.
func (t *keyedTable) columnWidth(c int) int {
	w := lipgloss.Width(t.headers[c])
	for _, r := range t.rows {
		for _, l := range strings.Split(r[c], "\n") {
			w = max(w, lipgloss.Width(l))
		}
	}
	return w + 2
}

// groups puts the columns after the keys greedily into tables, each base + Σ(width+1)
// wide; there is always one, if only of the keys.
func (t *keyedTable) groups() [][]int {
	var groups [][]int
	cur, curW := []int{}, t.base
	for c := t.keys; c < len(t.headers); c++ {
		if len(cur) > 0 && curW+t.widths[c]+1 > t.width {
			groups = append(groups, cur)
			cur, curW = []int{}, t.base
		}
		cur = append(cur, c)
		curW += t.widths[c] + 1
	}
	if len(cur) > 0 || len(groups) == 0 {
		groups = append(groups, cur)
	}
	return groups
}

// render draws one stacked table: the key columns, then the group's. A column alone beside
// the labels and too wide even so has its header and cells wrapped by word.
func (t *keyedTable) render(g []int) string {
	cols := make([]int, 0, t.keys+len(g))
	for c := range t.keys {
		cols = append(cols, c)
	}
	cols = append(cols, g...)
	room := t.width - t.base - 1 - 2 // one column beside the labels
	cell := func(i, c int, text string) string {
		if len(g) == 1 && i == t.keys && t.widths[c] > room+2 {
			return strings.Join(wrapWords(text, room), "\n")
		}
		return text
	}
	hs := make([]string, len(cols))
	for i, c := range cols {
		hs[i] = cell(i, c, t.headers[c])
	}
	tb := labelledTable(t.st, hs...)
	if t.right != nil || t.keys > 1 {
		tb.StyleFunc(t.style(cols))
	}
	for _, r := range t.rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = cell(i, c, r[c])
		}
		tb.Row(cells...)
	}
	return tb.Render()
}

// style is the cell style of a stacked table showing cols: headers, key columns, and the
// numeric columns right-aligned.
func (t *keyedTable) style(cols []int) func(row, col int) lipgloss.Style {
	return func(row, col int) lipgloss.Style {
		s := t.st.Cell
		switch {
		case row == table.HeaderRow:
			s = t.st.Header
		case col < t.keys:
			return t.st.Key.Padding(0, 1)
		}
		if col >= t.keys && t.right != nil && t.right(cols[col]) {
			s = s.Align(lipgloss.Right)
		}
		return s
	}
}

// writeTitle writes a section's title and, after two spaces, its caption in muted style;
// when both do not fit width, the caption goes under the title, wrapped and indented.
func writeTitle(b *strings.Builder, st Styles, title, caption string, width int) {
	if caption == "" || lipgloss.Width(title)+2+lipgloss.Width(caption) <= width {
		b.WriteString(st.Title.Render(title))
		if caption != "" {
			b.WriteString(st.Muted.Render("  " + caption))
		}
		b.WriteString("\n")
		return
	}
	b.WriteString(st.Title.Render(title) + "\n")
	writeHanging(b, "  ", 2, caption, width, st.Muted)
}

// wrapPath is wrapWords for a name made of path segments (a route such as "GET
// /v2/merchants/{id}/settlements", a URL): a piece still wider than width breaks before a
// "/", "?" or "&", between segments or query parameters, never inside one.
func wrapPath(s string, width int) []string {
	var out []string
	for _, l := range wrapWords(s, width) {
		if lipgloss.Width(l) <= width {
			out = append(out, l)
			continue
		}
		// Segments each start at a "/" (the first at the start of the piece).
		var segs []string
		from := 0
		for i := 1; i < len(l); i++ {
			if l[i] == '/' && l[i-1] != '/' && l[i-1] != ':' || l[i] == '?' || l[i] == '&' {
				segs = append(segs, l[from:i])
				from = i
			}
		}
		segs = append(segs, l[from:])
		cur := ""
		for _, seg := range segs {
			if cur != "" && lipgloss.Width(cur)+lipgloss.Width(seg) > width {
				out = append(out, cur)
				cur = ""
			}
			cur += seg
		}
		out = append(out, cur)
	}
	return out
}
