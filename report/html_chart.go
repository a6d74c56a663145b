package report

import (
	"bytes"
	"html/template"
	"math"
	"sort"

	"github.com/go-analyze/charts"
	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/replay"
)

// The HTML report's charts are SVG drawn by github.com/go-analyze/charts (README,
// "Dependencies"): pure Go, deterministic bytes for the same input, text escaped by the
// library, no script in the output. They read the same fields as the text charts and span
// the same seconds (chartSpanOf).

// htmlChartWidth and htmlChartHeight are the SVG's own size; the page scales it to its width.
const (
	htmlChartWidth  = 880
	htmlChartHeight = 330
)

// htmlSeries is one line of a chart.
type htmlSeries struct {
	Name   string
	Values []float64
}

// svgBytes finishes a painter into inline SVG.
func svgBytes(p *charts.Painter) (template.HTML, error) {
	b, err := p.Bytes()
	if err != nil {
		return "", err
	}
	if i := bytes.Index(b, []byte("<svg")); i > 0 {
		b = b[i:] // no XML prolog inside HTML
	}
	return template.HTML(b), nil
}

func newSVGPainter() *charts.Painter {
	return charts.NewPainter(charts.PainterOptions{OutputFormat: charts.ChartOutputSVG, Width: htmlChartWidth, Height: htmlChartHeight})
}

// svgLineChart draws series over categorical x labels on one value axis that starts at 0.
func svgLineChart(labels []string, series []htmlSeries, yTitle string, symbols bool) (template.HTML, error) {
	values := make([][]float64, len(series))
	names := make([]string, len(series))
	for i, s := range series {
		values[i], names[i] = s.Values, s.Name
	}
	opt := charts.NewLineChartOptionWithData(values)
	opt.XAxis.Labels = labels
	opt.XAxis.BoundaryGap = charts.Ptr(symbols)
	opt.Legend.SeriesNames = names
	opt.YAxis = []charts.YAxisOption{{Title: yTitle, Min: charts.Ptr(0.0)}}
	opt.LineStrokeWidth = 2
	if symbols {
		opt.XAxis.LabelCount = len(labels) // a few named points: label each one
	} else {
		opt.Symbol.Shape = charts.SymbolNone
	}
	p := newSVGPainter()
	if err := p.LineChart(opt); err != nil {
		return "", err
	}
	return svgBytes(p)
}

// svgBarChart draws one series of bars over categorical x labels.
func svgBarChart(labels []string, values []float64, name, yTitle string) (template.HTML, error) {
	opt := charts.NewBarChartOptionWithData([][]float64{values})
	opt.CategoryAxis.Labels = labels
	opt.Legend.SeriesNames = []string{name}
	opt.ValueAxis = []charts.ValueAxisOption{{Title: yTitle, Min: charts.Ptr(0.0)}}
	p := newSVGPainter()
	if err := p.BarChart(opt); err != nil {
		return "", err
	}
	return svgBytes(p)
}

// probeHistogramChart is the total-latency distribution as bars, one per log-spaced bucket.
func probeHistogramChart(r *probe.Result) (*htmlChart, error) {
	if len(r.Distribution) == 0 || r.Phases.Total == nil {
		return nil, nil
	}
	labels := make([]string, len(r.Distribution))
	counts := make([]float64, len(r.Distribution))
	for i, k := range r.Distribution {
		labels[i] = "≤ " + probe.FormatMs(k.ToMs)
		counts[i] = float64(k.Count)
	}
	svg, err := svgBarChart(labels, counts, "responses", "responses")
	if err != nil {
		return nil, err
	}
	return &htmlChart{ID: "latency-histogram", Title: "Total latency",
		Caption: "responses by total latency (from the intended send), log-spaced buckets labelled by their upper bound; n=" + replayCount(int(r.Phases.Total.Count)),
		SVG:     svg}, nil
}

// probeCutoffChart is the cut-off curve: each candidate timeout (in increasing order) and
// the share of requests it would cut off. Points without a timeout (too few samples, or
// beyond --max-timeout) are in the table, not on the curve.
func probeCutoffChart(r *probe.Result) (*htmlChart, error) {
	type point struct {
		label   string
		ms, cut float64
	}
	var pts []point
	for _, c := range r.CutoffCurve {
		if c.TimeoutMs == nil || c.CutRate == nil {
			continue
		}
		pts = append(pts, point{c.Label + " · " + probe.FormatMs(*c.TimeoutMs), *c.TimeoutMs, *c.CutRate * 100})
	}
	if len(pts) < 2 {
		return nil, nil
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].ms < pts[j].ms })
	labels := make([]string, len(pts))
	cut := make([]float64, len(pts))
	for i, p := range pts {
		labels[i], cut[i] = p.label, p.cut
	}
	svg, err := svgLineChart(labels, []htmlSeries{{Name: "cut off (%)", Values: cut}}, "% cut off", true)
	if err != nil {
		return nil, err
	}
	return &htmlChart{ID: "cutoff-curve", Title: "Cut-off curve",
		Caption: probeCutoffTitle + ", for each candidate timeout in increasing order; n=" + replayCount(int(r.CutoffCurve[0].Samples)),
		SVG:     svg}, nil
}

// activeSeconds is the active period of some timelines: from the first second with an
// arrival to the end of the last second with anything in it; ok is false when it is shorter
// than 3 s (too short for a per-second chart).
func activeSeconds(timelines [][]replay.Second) (from, to int, ok bool) {
	from = -1
	for _, tl := range timelines {
		for _, s := range tl {
			if s.Arrivals > 0 && (from < 0 || s.T < from) {
				from = s.T
			}
			if s.Arrivals+s.Attempts+s.Succeeded+s.Failed+s.Degraded+s.InFlight > 0 {
				to = max(to, s.T+1)
			}
		}
	}
	return from, to, from >= 0 && to-from >= 3
}

// perSecond picks one figure of a timeline for the seconds [from, to).
func perSecond(tl []replay.Second, from, to int, f func(replay.Second) int) []float64 {
	out := make([]float64, to-from)
	for _, s := range tl {
		if s.T >= from && s.T < to {
			out[s.T-from] = float64(f(s))
		}
	}
	return out
}

func secondLabels(from, to int) []string {
	labels := make([]string, 0, to-from)
	for s := from; s < to; s++ {
		labels = append(labels, chartSeconds(s))
	}
	return labels
}

// policyTimeline is one policy's name and its per-second timeline.
type policyTimeline struct {
	name     string
	timeline []replay.Second
}

// timelineCharts draws per-second charts of every policy on one time axis: one chart per
// figure, a line per policy, plus extra lines (storm's capacity) on the first chart.
func timelineCharts(idPrefix string, ps []policyTimeline, faults []chartWindow, figures []timelineFigure) ([]htmlChart, string, error) {
	tls := make([][]replay.Second, len(ps))
	for i, p := range ps {
		tls[i] = p.timeline
	}
	from, to, ok := activeSeconds(tls)
	if !ok {
		return nil, "", nil
	}
	span := chartSpanOf(from, to, faults)
	labels := secondLabels(span.from, span.to)
	var out []htmlChart
	for _, fig := range figures {
		var series []htmlSeries
		for _, p := range ps {
			series = append(series, htmlSeries{Name: p.name, Values: perSecond(p.timeline, span.from, span.to, fig.value)})
		}
		for _, extra := range fig.extra {
			v := make([]float64, len(labels))
			for i := range v {
				v[i] = extra.value
			}
			series = append(series, htmlSeries{Name: extra.name, Values: v})
		}
		svg, err := svgLineChart(labels, series, fig.unit, false)
		if err != nil {
			return nil, "", err
		}
		out = append(out, htmlChart{ID: idPrefix + "-" + fig.id, Title: fig.title, Caption: "per second, " + span.caption, SVG: svg})
	}
	return out, span.caption, nil
}

// timelineFigure is one per-second chart: which figure of a second it draws, and constant
// lines drawn beside the policies.
type timelineFigure struct {
	id, title, unit string
	value           func(replay.Second) int
	extra           []constantLine
}

type constantLine struct {
	name  string
	value float64
}

// finite reports whether a pointer holds a finite number.
func finite(v *float64) bool { return v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) }
