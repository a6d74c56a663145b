package report

import "strings"

// mdChartWidth is the width of a text chart in a Markdown report: a pull-request comment's
// code block shows about 80 columns without scrolling.
const mdChartWidth = 80

// writeMDTable writes a GitHub-flavoured Markdown table; right says which columns hold
// numbers (right-aligned). Cells are escaped here.
func writeMDTable(b *strings.Builder, headers []string, rows [][]string, right func(col int) bool) {
	b.WriteString("|")
	for _, h := range headers {
		b.WriteString(" " + mdText(h) + " |")
	}
	b.WriteString("\n|")
	for c := range headers {
		if right != nil && right(c) {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("|")
		for _, cell := range r {
			b.WriteString(" " + mdText(strings.ReplaceAll(cell, "\n", " ")) + " |")
		}
		b.WriteString("\n")
	}
}

// writeMDChart writes a text chart as a fenced block inside a collapsed section titled
// summary (HTML-escaped here: Markdown is not read inside <summary>); nothing when the chart
// is empty. A chart whose text holds < or & (from a name) or
// a run of three backticks, which would end the fence, goes in a <pre> block with its text
// HTML-escaped instead: the fence would show it verbatim but let a name close it.
func writeMDChart(b *strings.Builder, summary, chart string) {
	if strings.TrimSpace(chart) == "" {
		return
	}
	pre := strings.ContainsAny(chart, "<&") || strings.Contains(chart, "```")
	if pre {
		b.WriteString("\n<details><summary>" + htmlText(summary) + "</summary>\n\n<pre>\n")
	} else {
		b.WriteString("\n<details><summary>" + htmlText(summary) + "</summary>\n\n```text\n")
	}
	for _, l := range strings.Split(strings.TrimRight(chart, "\n"), "\n") {
		l = strings.TrimRight(l, " ")
		if pre {
			l = htmlText(l)
		}
		b.WriteString(l + "\n")
	}
	if pre {
		b.WriteString("</pre>\n\n</details>\n")
	} else {
		b.WriteString("```\n\n</details>\n")
	}
}
