package report

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// WrapHelp fits a command's help text to width without cutting a word: the hand-wrapped
// paragraphs of a Long text (runs of lines that start in the first column) are joined and
// wrapped again by word; an indented line — a flag, a command, a preset, an example — wraps
// under its own text column (where its description starts after a gap of two spaces or more),
// so the label column stays clear; a list item ("- …") wraps under its text. Lines that fit
// are kept as they are.
func WrapHelp(text string, width int) string {
	if width <= 0 {
		return text
	}
	var out []string
	var para []string
	bullet := false
	flush := func() {
		if len(para) == 0 {
			return
		}
		joined := strings.Join(para, " ")
		if bullet {
			for i, l := range wrapWords(strings.TrimPrefix(joined, "- "), width-2) {
				if i == 0 {
					out = append(out, "- "+l)
				} else {
					out = append(out, "  "+l)
				}
			}
		} else {
			out = append(out, wrapWords(breakChoices(joined, width), width)...)
		}
		para, bullet = nil, false
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " ")
		switch {
		case line == "":
			flush()
			out = append(out, "")
		case line[0] == ' ' || line[0] == '\t':
			flush()
			out = append(out, wrapIndented(line, width)...)
		case strings.HasPrefix(line, "- "):
			flush()
			para, bullet = []string{line}, true
		default:
			para = append(para, line)
		}
	}
	flush()
	return strings.Join(out, "\n")
}

// wrapIndented wraps one indented line under its text column.
func wrapIndented(line string, width int) []string {
	if lipgloss.Width(line) <= width {
		return []string{line}
	}
	trimmed := strings.TrimLeft(line, " \t")
	indent := len(line) - len(trimmed)
	col := indent // the byte where the wrapped text starts
	if i := strings.Index(trimmed, "  "); i > 0 {
		j := i
		for j < len(trimmed) && trimmed[j] == ' ' {
			j++
		}
		if j < len(trimmed) {
			col = indent + j
		}
	}
	head, rest := line[:col], line[col:]
	hang := lipgloss.Width(head)
	if width-hang < 24 { // too narrow to keep the column: wrap under the label instead
		head, rest, hang = line[:indent], trimmed, indent+4
	}
	var out []string
	for i, l := range wrapWords(breakChoices(rest, width-hang), width-hang) {
		if i == 0 {
			out = append(out, head+l)
		} else {
			out = append(out, strings.Repeat(" ", hang)+l)
		}
	}
	return out
}

// breakChoices splits a word wider than width at its "|" (a flag's list of choices,
// "auto|nginx|alb|…") into pieces that fit, so that it wraps between choices instead of
// running past the width. Greedy pieces never share a line, so no space shows between them.
func breakChoices(text string, width int) string {
	words := strings.Fields(text)
	changed := false
	for i, w := range words {
		if lipgloss.Width(w) <= width || !strings.Contains(w, "|") {
			continue
		}
		var pieces []string
		cur := ""
		for _, c := range strings.SplitAfter(w, "|") {
			if cur != "" && lipgloss.Width(cur+c) > width {
				pieces = append(pieces, cur)
				cur = ""
			}
			cur += c
		}
		words[i] = strings.Join(append(pieces, cur), " ")
		changed = true
	}
	if !changed {
		return text
	}
	return strings.Join(words, " ")
}
