package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/source"
)

// callHeaders are the inventory's columns: where the call is, the library and method that
// send it ("net/http POST"), its effective
// bounds with where each comes from (the total first: PT001's), how many attempts one request
// through it makes (the product of its retry layers, check.CallAttempts) and those layers,
// outermost first.
var callHeaders = []string{"where", "call", "total", "connect", "read", "attempts", "retry layers"}

// boundCell is one bound with its origin: "5 s client", "30 s default", "none", "unresolved".
func boundCell(ms *int64, o source.Origin) string {
	if ms == nil {
		return string(o)
	}
	return units.Duration(time.Duration(*ms)*time.Millisecond) + " " + string(o)
}

// callRow is one call's cells. A read bound that is ResponseHeaderTimeout says "head": it
// ends when the response head arrives (the call's notes say so in JSON).
func callRow(c check.Call) []string {
	read := boundCell(c.Timeouts.ReadMS, c.Origin.Read)
	if c.Timeouts.ReadMS != nil && headOnly(c) {
		read += " (head)"
	}
	call := c.Library + " " + c.Method
	if c.Method == "" {
		call = c.Library + " request"
	}
	return []string{fmt.Sprintf("%s:%d:%d", c.File, c.Line, c.Col), call, boundCell(c.Timeouts.TotalMS, c.Origin.Total),
		boundCell(c.Timeouts.ConnectMS, c.Origin.Connect), read, attemptsCell(&c), layersCell(&c)}
}

// attemptsCell is the attempts one request through the call makes: "18", "unlimited", or
// "?" when a layer's count is not static.
func attemptsCell(c *check.Call) string {
	n, unbounded, known := check.CallAttempts(c)
	switch {
	case unbounded:
		return "unlimited"
	case !known:
		return "?"
	}
	return strconv.Itoa(n)
}

// layersCell lists the call's retry layers, outermost first, each with its attempts:
// "laravel-job 6 × laravel-http 3"; "-" when nothing retries it.
func layersCell(c *check.Call) string {
	layers := c.Layers
	if len(layers) == 0 && c.Retry != nil {
		layers = []source.Retry{*c.Retry}
	}
	if len(layers) == 0 {
		return "-"
	}
	parts := make([]string, len(layers))
	for i, l := range layers {
		parts[i] = l.Layer + " " + attemptsCell(&check.Call{Retry: &layers[i]})
	}
	return strings.Join(parts, " × ")
}

// headOnly says whether the call's read bound ends at the response head.
func headOnly(c check.Call) bool {
	for _, n := range c.Notes {
		if strings.Contains(n, "ResponseHeaderTimeout") {
			return true
		}
	}
	return false
}

// callsSummary is the inventory's title: "12 outbound calls in source code: 4 with no total
// bound, 2 unresolved".
func callsSummary(r *check.Result) string {
	var noTotal, unresolved int
	for _, c := range r.Calls {
		switch c.Origin.Total {
		case source.OriginNone:
			noTotal++
		case source.OriginUnresolved:
			unresolved++
		}
	}
	return fmt.Sprintf("%s in source code: %d with no total bound, %d unresolved", plural(len(r.Calls), "outbound call"), noTotal, unresolved)
}

// checkCallsText writes the call inventory as a table that fits width (fitTable stacks the
// columns that do not fit beside the call's location).
func checkCallsText(b *strings.Builder, r *check.Result, st Styles, width int) {
	if len(r.Calls) == 0 {
		return
	}
	const indent = 2
	b.WriteString("\n")
	writeIndented(b, "", 0, []piece{{text: "calls", style: st.Key}}, "· "+callsSummary(r), st.Muted, width, 4)
	// A long path breaks before a slash (wrapPath), so the location column leaves room for the others.
	labelW := max(16, (width-indent)/3)
	rows := make([][]string, len(r.Calls))
	for i, c := range r.Calls {
		rows[i] = textSafeAll(callRow(c))
		rows[i][0] = strings.Join(wrapPath(rows[i][0], labelW), "\n")
	}
	table := fitTable(st, callHeaders, rows, width-indent, attemptsCol)
	for _, l := range strings.Split(table, "\n") {
		b.WriteString(strings.Repeat(" ", indent) + l + "\n")
	}
}

// checkCallsMarkdown writes the call inventory as a Markdown table.
func checkCallsMarkdown(b *strings.Builder, r *check.Result) {
	if len(r.Calls) == 0 {
		return
	}
	fmt.Fprintf(b, "**Calls**: %s\n\n", mdText(callsSummary(r)))
	rows := make([][]string, len(r.Calls))
	for i, c := range r.Calls {
		rows[i] = callRow(c) // writeMDTable escapes each cell
	}
	writeMDTable(b, callHeaders, rows, attemptsCol)
	b.WriteString("\n")
}

// checkCallsHTML is the call inventory under a heading, after the findings; nothing when no
// source was read.
func checkCallsHTML(r *check.Result) []htmlBlock {
	if len(r.Calls) == 0 {
		return nil
	}
	rows := make([][]string, len(r.Calls))
	for i, c := range r.Calls {
		rows[i] = callRow(c)
	}
	return []htmlBlock{{Heading: "Calls"}, para("muted", callsSummary(r)),
		{Table: textTable("", callHeaders, rows, attemptsCol)}}
}

// attemptsCol says whether col is the attempts column, a number aligned right.
func attemptsCol(col int) bool { return col == 5 }
