package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/patience-dev/patience/check"
)

// chainCount renders one attempts count: "9", "1.2", "∞" for unlimited.
func chainCount(v float64) string {
	if v < 0 {
		return "∞"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// multiLayer are the chains with more than one layer: the ones whose table says something a
// finding does not (a chain of one layer is its own attempts row).
func multiLayer(r *check.Result) (shown []check.Chain, single int) {
	for _, ch := range r.Chains {
		if len(ch.Layers) > 1 {
			shown = append(shown, ch)
		} else {
			single++
		}
	}
	return shown, single
}

// chainRows are a chain's table rows: one per layer (what it makes for each class it sees),
// the attempts at the bottom, and the uncapped product when the caps changed it.
func chainRows(ch check.Chain) (names []string, rows [][]string) {
	row := func(a check.Attempts) []string {
		out := make([]string, len(check.FailureClasses))
		for i, c := range check.FailureClasses {
			out[i] = chainCount(a.Of(c))
		}
		return out
	}
	for _, l := range ch.Layers {
		names = append(names, l.Label())
		rows = append(rows, row(l.Attempts))
	}
	names = append(names, "attempts at "+ch.Dependency)
	rows = append(rows, row(ch.Attempts))
	if ch.Uncapped != ch.Attempts {
		names = append(names, "uncapped")
		rows = append(rows, row(ch.Uncapped))
	}
	return names, rows
}

// checkChainsText writes each multi-layer chain as a layer × failure-class table that fits
// width: the failure classes are columns in check.FailureClasses' order, and those that do
// not fit beside the layer names stack into a second table below (fitTable); a layer name
// too long for a third of the width wraps by word.
func checkChainsText(b *strings.Builder, r *check.Result, st Styles, width int) {
	shown, single := multiLayer(r)
	const indent = 2
	labelW := max(16, (width-indent)/3)
	for _, ch := range shown {
		names, rows := chainRows(ch)
		b.WriteString("\n")
		writeIndented(b, "", 0, []piece{{text: "chain", style: st.Key}, {text: textSafe(ch.Dependency), style: st.Value}},
			"· attempts per failure at "+textSafe(ch.Dependency)+", outermost layer first", st.Muted, width, 4)
		headers := []string{"layer"}
		for _, c := range check.FailureClasses {
			headers = append(headers, string(c))
		}
		cells := make([][]string, len(names))
		for i, n := range names {
			cells[i] = append([]string{strings.Join(wrapWords(textSafe(n), labelW), "\n")}, rows[i]...)
		}
		table := fitTable(st, headers, cells, width-indent, func(col int) bool { return col > 0 })
		for _, l := range strings.Split(table, "\n") {
			b.WriteString(strings.Repeat(" ", indent) + l + "\n")
		}
		for _, a := range ch.Assumptions {
			writeIndented(b, "  "+st.Muted.Render("assumes")+" ", 10, nil, textSafe(a), st.Muted, width, 10)
		}
	}
	if single > 0 && len(shown) > 0 {
		writeHanging(b, "  ", 2, fmt.Sprintf("and %s of one layer (-o json lists them)", plural(single, "chain")), width, st.Muted)
	}
}

// checkChainsMarkdown writes each multi-layer chain as a Markdown table.
func checkChainsMarkdown(b *strings.Builder, r *check.Result) {
	shown, _ := multiLayer(r)
	for _, ch := range shown {
		names, rows := chainRows(ch)
		fmt.Fprintf(b, "**Chain %s** (attempts per failure at %s, outermost layer first)\n\n| Layer |", mdText(ch.Dependency), mdText(ch.Dependency))
		for _, c := range check.FailureClasses {
			fmt.Fprintf(b, " %s |", c)
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(check.FailureClasses)) + "\n")
		for i, n := range names {
			n = mdText(n)
			if i >= len(ch.Layers) {
				n = "**" + n + "**"
			}
			fmt.Fprintf(b, "| %s |", n)
			for _, v := range rows[i] {
				fmt.Fprintf(b, " %s |", v)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
}

// configScope says what real configs were read and skipped: "3 config files; 1 skipped".
func configScope(r *check.Result) string {
	if len(r.Configs) == 0 && len(r.Skipped) == 0 {
		return ""
	}
	s := plural(len(r.Configs), "config file")
	if len(r.Skipped) > 0 {
		s += fmt.Sprintf(", %d skipped", len(r.Skipped))
	}
	return s
}
