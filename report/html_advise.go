package report

import (
	"io"
	"strconv"
	"strings"

	"github.com/go-analyze/charts"
	"github.com/patience-dev/patience/advise"
	"github.com/patience-dev/patience/internal/units"
)

// AdviseHTML renders an advise result as one self-contained HTML page: with --by, the groups
// with their own verdicts first; then the probe report of every sample (its verdict first,
// the histogram and the cut-off curve) and what only data read from logs has — the proxy's
// attempts per request, the bucket bracket and the tail per window as a chart.
func AdviseHTML(w io.Writer, r *advise.Result, _ Options) error {
	lead, blocks, err := probeHTMLParts(r.Profile)
	if err != nil {
		return err
	}
	if len(r.Groups) > 0 {
		t := &htmlTable{Caption: "one recommendation per group, most samples first (" + strconv.Itoa(len(r.Groups)) + ")",
			Headers: append(append([]string{}, adviseGroupHeaders[:len(adviseGroupHeaders)-1]...), "verdict")}
		for _, g := range r.Groups {
			cells := adviseGroupCells(g)
			row := make([]htmlCell, 0, len(cells))
			for i, c := range cells[:len(cells)-1] {
				cell := htmlCell{Text: c, Head: i == 0}
				if i > 0 {
					cell.Class = "num"
				}
				row = append(row, cell)
			}
			v := g.Result.Recommendation.Verdict
			row = append(row, htmlCell{Mark: v.Level.Symbol(), Text: v.Headline(), Class: "lvl-" + string(v.Level)})
			t.Rows = append(t.Rows, row)
		}
		blocks = append([]htmlBlock{{Heading: "By " + string(r.By)}, {Table: t}, {Heading: "All groups together"}}, blocks...)
	}
	if r.Attempts != nil {
		blocks = append(blocks, htmlBlock{Heading: "Upstream attempts"}, para("", adviseAttempts(r.Attempts)))
	}
	if r.Buckets != nil {
		items := make([]string, len(r.Buckets.Quantiles))
		for i, q := range r.Buckets.Quantiles {
			items[i] = strings.Join(strings.Fields(adviseBracket(q)), " ")
		}
		blocks = append(blocks, htmlBlock{Heading: "Buckets"}, para("muted", r.Buckets.Metric+", "+r.Buckets.Window), list("", items))
	}
	if groups := adviseGroupBrackets(r); len(groups) > 0 {
		blocks = append(blocks, htmlBlock{Heading: "Buckets by " + string(r.By)}, para("muted", "each group's own brackets"))
		for _, g := range groups {
			items := make([]string, len(g.Buckets))
			for i, q := range g.Buckets {
				items[i] = strings.Join(strings.Fields(adviseBracket(q)), " ")
			}
			blocks = append(blocks, para("", g.Key), list("", items))
		}
	}
	if len(r.Windows) > 1 {
		c, err := adviseWindowChart(r)
		if err != nil {
			return err
		}
		blocks = append(blocks, htmlBlock{Heading: "By window"}, htmlBlock{Chart: c})
		if len(r.TailMoved) > 0 {
			moved := make([]string, len(r.TailMoved))
			for i, t := range r.TailMoved {
				moved[i] = "tail moved: " + t
			}
			blocks = append(blocks, list("notes", moved))
		}
	}
	blocks = append(blocks, emitHTMLBlocks(adviseGroupEmissions(r))...)
	return writeHTML(w, htmlDoc{Title: "patience advise", Subtitle: probeHTMLSubtitle(r.Profile),
		Lead: lead, Sections: []htmlSection{{Blocks: blocks}}})
}

// adviseWindowChart is the good-response latency per window: p50 and p99, a gap where a
// window had too few responses for the figure.
func adviseWindowChart(r *advise.Result) (*htmlChart, error) {
	labels := make([]string, len(r.Windows))
	p50, p99 := make([]float64, len(r.Windows)), make([]float64, len(r.Windows))
	orNull := func(v *float64) float64 {
		if v == nil {
			return charts.GetNullValue()
		}
		return *v
	}
	for i, win := range r.Windows {
		labels[i] = adviseWindowLabel(r, win)
		p50[i], p99[i] = orNull(win.P50Ms), orNull(win.P99Ms)
	}
	// A log scale: the p50 is not a flat line under the p99, and a window's tail shows.
	scale := newLogScale(append(append([]float64{}, p50...), p99...), false, msLabel)
	svg, err := svgScaledLineChart(labels, []htmlSeries{{Name: "p50", Values: p50}, {Name: "p99", Values: p99}}, "latency", &scale, len(labels) <= 12)
	if err != nil {
		return nil, err
	}
	return &htmlChart{ID: "advise-windows", Title: "Latency of good responses per window",
		Caption: "p50 and p99 per " + units.Millis(r.WindowMs) + ", in time order, on a log scale", SVG: svg}, nil
}
