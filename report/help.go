package report

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// WrapHelp fits a command's help text to width without cutting a word: the hand-wrapped
// paragraphs of a Long text (runs of lines that start in the first column) are joined and
// wrapped again by word; an indented line — a flag, a command, a preset, an example — wraps
// under its own text column (where its description starts after a gap of two spaces or more),
// so the label column stays clear; a list item ("- …") wraps under its text; a command under
// "Examples:" wraps between its arguments with a shell continuation (" \\"), so the wrapped
// example still pastes as one command. Lines that fit are kept as they are.
func WrapHelp(text string, width int) string {
	if width <= 0 {
		return text
	}
	var out []string
	var para []string
	bullet, examples := false, false
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
		case (line[0] == ' ' || line[0] == '\t') && examples:
			flush()
			out = append(out, wrapCommand(line, width)...)
		case line[0] == ' ' || line[0] == '\t':
			flush()
			out = append(out, wrapIndented(line, width)...)
		case strings.HasPrefix(line, "- "):
			flush()
			para, bullet = []string{line}, true
			examples = false
		default:
			para = append(para, line)
			examples = line == "Examples:"
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
	col := indent + textColumn(trimmed, width/2-indent) // the byte where the wrapped text starts
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

// textColumn is the byte of label where its text starts: after the last gap of two spaces or
// more that ends before limit (a label may hold a gap of its own, "storm  [SCENARIO]  …",
// aligned with its neighbours); 0 when there is none.
func textColumn(label string, limit int) int {
	col := 0
	for i := 0; i < len(label) && i < limit; {
		if !strings.HasPrefix(label[i:], "  ") {
			i++
			continue
		}
		j := i
		for j < len(label) && label[j] == ' ' {
			j++
		}
		if j < len(label) && (j <= limit || col == 0) {
			col = j
		}
		i = j
	}
	return col
}

// wrapCommand wraps an example command line between its arguments — never inside a quoted
// one — ending each broken line with " \\" and indenting the rest four more columns, so what
// is shown still pastes into a shell as the one command. A word wider than the line stays
// whole.
func wrapCommand(line string, width int) []string {
	if lipgloss.Width(line) <= width {
		return []string{line}
	}
	trimmed := strings.TrimLeft(line, " \t")
	indent := line[:len(line)-len(trimmed)]
	words := flagsWithValues(shellWords(trimmed))
	var out []string
	cur := indent + words[0]
	for _, w := range words[1:] {
		if lipgloss.Width(cur+" "+w)+2 > width {
			out = append(out, cur+" \\")
			cur = indent + "    " + w
			continue
		}
		cur += " " + w
	}
	return append(out, cur)
}

// flagsWithValues keeps a flag and the value after it ("--budget 2s") on one line: a break
// between them reads as two arguments.
func flagsWithValues(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "-") && len(w) > 1 && !strings.Contains(w, "=") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
			w += " " + words[i+1]
			i++
		}
		out = append(out, w)
	}
	return out
}

// shellWords splits a command line at its spaces outside quotes.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == ' ':
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	return words
}
