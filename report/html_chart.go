package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/go-analyze/charts"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
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

// svgLineChart draws series over categorical x labels on one value axis that starts at 0,
// with bands shaded behind them.
func svgLineChart(labels []string, series []htmlSeries, yTitle string, symbols bool, bands ...htmlBand) (template.HTML, error) {
	return svgScaledLineChart(labels, series, yTitle, nil, symbols, bands...)
}

// svgScaledLineChart is svgLineChart on a logarithmic value axis when scale is set.
func svgScaledLineChart(labels []string, series []htmlSeries, yTitle string, scale *logScale, symbols bool, bands ...htmlBand) (template.HTML, error) {
	values := make([][]float64, len(series))
	names := make([]string, len(series))
	for i, s := range series {
		values[i], names[i] = s.Values, textSafe(s.Name) // the library escapes for SVG, keeps line breaks
		if scale != nil {
			values[i] = scale.values(s.Values)
		}
	}
	opt := charts.NewLineChartOptionWithData(values)
	opt.XAxis.Labels = textSafeAll(labels)
	opt.XAxis.BoundaryGap = charts.Ptr(symbols)
	opt.Legend.SeriesNames = names
	opt.YAxis = []charts.YAxisOption{{Title: textSafe(yTitle), Min: charts.Ptr(0.0)}}
	if scale != nil {
		opt.YAxis = []charts.YAxisOption{scale.axis(yTitle)}
	}
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
	svg, err := svgBytes(p)
	if err != nil || len(bands) == 0 || len(labels) < 2 {
		return svg, err // a single point has no width to shade
	}
	if symbols {
		return "", errors.New("bands need a chart without boundary gaps")
	}
	return svgWithBands(svg, len(labels), bands)
}

// htmlBand is a shaded stretch of a line chart's x axis (a fault phase): from and to are
// positions on it, 0 at the first label and len(labels)-1 at the last, fractions between
// labels; label names it inside the band.
type htmlBand struct {
	from, to float64
	label    string
}

// go-analyze/charts v0.6 has mark lines (horizontal, at a value) and mark points but no
// mark area, so a band is drawn here: an SVG rect inserted right after the chart's
// background, so the grid and the series are drawn over it. Its corners come from the chart
// the library drew: the x of every label is where the first series' path has its points (a
// chart without boundary gap puts point i on label i), the top and bottom are the highest
// and lowest horizontal lines that span the plot to its last point (the top grid line and
// the x axis).
var (
	svgSeriesPath = regexp.MustCompile(`<path d="M (-?[0-9.]+) (-?[0-9.]+)((?:\s*L -?[0-9.]+ -?[0-9.]+)+)"`)
	svgPoint      = regexp.MustCompile(`L (-?[0-9.]+) (-?[0-9.]+)`)
)

// svgPlotArea finds the x of each of n points and the plot's top and bottom in a line chart's
// SVG.
func svgPlotArea(svg string, n int) (xs []float64, top, bottom float64, err error) {
	type line struct{ x1, y1, x2, y2 float64 }
	var horizontal []line
	for _, m := range svgSeriesPath.FindAllStringSubmatch(svg, -1) {
		x0, _ := strconv.ParseFloat(m[1], 64)
		y0, _ := strconv.ParseFloat(m[2], 64)
		pts := svgPoint.FindAllStringSubmatch(m[3], -1)
		if len(pts) == 1 {
			x1, _ := strconv.ParseFloat(pts[0][1], 64)
			y1, _ := strconv.ParseFloat(pts[0][2], 64)
			if y1 == y0 && x1 > x0 {
				horizontal = append(horizontal, line{x0, y0, x1, y1})
			}
		}
		if xs != nil || len(pts) != n-1 {
			continue
		}
		cand := []float64{x0}
		for _, pt := range pts {
			x, _ := strconv.ParseFloat(pt[1], 64)
			if x <= cand[len(cand)-1] {
				break
			}
			cand = append(cand, x)
		}
		if len(cand) == n {
			xs = cand
		}
	}
	if xs == nil {
		return nil, 0, 0, fmt.Errorf("no series of %d points in the chart", n)
	}
	top, bottom = math.Inf(1), math.Inf(-1)
	for _, l := range horizontal {
		if l.x1 <= xs[0] && l.x2 == xs[n-1] {
			top, bottom = math.Min(top, l.y1), math.Max(bottom, l.y1)
		}
	}
	if !(bottom > top) {
		return nil, 0, 0, errors.New("no grid lines spanning the plot")
	}
	return xs, top, bottom, nil
}

// svgWithBands inserts the bands into a line chart of n points, behind everything but the
// background.
func svgWithBands(svg template.HTML, n int, bands []htmlBand) (template.HTML, error) {
	s := string(svg)
	xs, top, bottom, err := svgPlotArea(s, n)
	if err != nil {
		return "", fmt.Errorf("shading the chart's bands: %w", err)
	}
	at := func(pos float64) float64 {
		pos = math.Min(math.Max(pos, 0), float64(n-1))
		i := min(int(pos), n-2)
		return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
	}
	var b strings.Builder
	for _, band := range bands {
		x1, x2 := at(band.from), at(band.to)
		if x2 <= x1 {
			continue
		}
		fmt.Fprintf(&b, `<rect class="band" x="%.1f" y="%.0f" width="%.1f" height="%.0f" style="stroke:none;fill:%s;fill-opacity:%.2f"/>`,
			x1, top, x2-x1, bottom-top, htmlBandFill, htmlBandOpacity)
		fmt.Fprintf(&b, `<text class="band-label" x="%.1f" y="%.0f" style="stroke:none;fill:%s;font-size:13px;font-family:sans-serif">%s</text>`,
			x1+4, top+15, htmlBandText, template.HTMLEscapeString(textSafe(band.label)))
	}
	// The background is the first element: a path over the whole canvas.
	start := strings.Index(s, "<path ")
	end := strings.Index(s[max(start, 0):], "/>")
	if start < 0 || end < 0 || !strings.HasPrefix(s[start:], `<path d="M 0 0`) {
		return "", errors.New("shading the chart's bands: no background in the chart")
	}
	end += start + len("/>")
	return template.HTML(s[:end] + b.String() + s[end:]), nil
}

// The band's colours: a grey wash under the series (so they keep their colours) and a darker
// grey for its label.
const (
	htmlBandFill    = "rgb(110,112,121)"
	htmlBandOpacity = 0.16
	htmlBandText    = "rgb(70,70,70)"
)

// svgBarChart draws one series of bars over categorical x labels, on a log scale of counts
// (logScale): the tail's few responses show beside the body's many.
func svgBarChart(labels []string, values []float64, name, yTitle string) (template.HTML, error) {
	scale := newLogScale(values, true, countLabel)
	opt := charts.NewBarChartOptionWithData([][]float64{scale.values(values)})
	opt.CategoryAxis.Labels = textSafeAll(labels)
	opt.Legend.SeriesNames = []string{textSafe(name)}
	opt.ValueAxis = []charts.ValueAxisOption{scale.axis(yTitle)}
	p := newSVGPainter()
	if err := p.BarChart(opt); err != nil {
		return "", err
	}
	return svgBytes(p)
}

// probeHistogramChart is the total-latency distribution as bars, one per log-spaced bucket.
func probeHistogramChart(r *profile.Profile) (*htmlChart, error) {
	if len(r.Distribution) == 0 || r.Phases.Total == nil {
		return nil, nil
	}
	labels := make([]string, len(r.Distribution))
	counts := make([]float64, len(r.Distribution))
	for i, k := range r.Distribution {
		labels[i] = "≤ " + units.Millis(k.ToMs)
		counts[i] = float64(k.Count)
	}
	svg, err := svgBarChart(labels, counts, "responses", "responses")
	if err != nil {
		return nil, err
	}
	return &htmlChart{ID: "latency-histogram", Title: "Total latency",
		Caption: "responses by total latency (from the intended send), log-spaced buckets labelled by their upper bound, counts on a log scale (the tail shows); n=" + replayCount(int(r.Phases.Total.Count)),
		SVG:     svg}, nil
}

// probeCutoffChart is the cut-off curve: each candidate timeout (in increasing order) and
// the share of requests it would cut off. Points without a timeout (too few samples, or
// beyond --max-timeout) are in the table, not on the curve.
func probeCutoffChart(r *profile.Profile) (*htmlChart, error) {
	type point struct {
		label   string
		ms, cut float64
	}
	var pts []point
	for _, c := range r.CutoffCurve {
		if c.TimeoutMs == nil || c.CutRate == nil {
			continue
		}
		pts = append(pts, point{c.Label + " · " + units.Millis(*c.TimeoutMs), *c.TimeoutMs, *c.CutRate * 100})
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
	// A log scale: the tail's 0.1% shows beside the p90's 10% (a recommended timeout that
	// cuts off nothing sits on the zero line).
	scale := newLogScale(cut, true, percentLabel)
	svg, err := svgScaledLineChart(labels, []htmlSeries{{Name: "cut off (%)", Values: cut}}, "cut off", &scale, true)
	if err != nil {
		return nil, err
	}
	return &htmlChart{ID: "cutoff-curve", Title: "Cut-off curve",
		Caption: probeCutoffTitle + ", for each candidate timeout in increasing order, on a log scale; n=" + replayCount(int(r.CutoffCurve[0].Samples)),
		SVG:     svg}, nil
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
func timelineCharts(idPrefix string, ps []policyTimeline, faults []chartWindow, recoveredMs []float64, figures []timelineFigure) ([]htmlChart, string, error) {
	tls := make([][]replay.Second, len(ps))
	for i, p := range ps {
		tls[i] = p.timeline
	}
	from, to, ok := activeSeconds(tls)
	if !ok {
		return nil, "", nil
	}
	span := chartSpanOf(from, to, faults, recoveredMs...)
	labels := secondLabels(span.from, span.to)
	// Point i is second span.from+i; a fault from 30.5 s is shaded from half-way between
	// the points of 30 s and 31 s.
	var bands []htmlBand
	for _, f := range faults {
		bands = append(bands, htmlBand{from: f.atMs/1000 - float64(span.from), to: math.Min(f.endMs()/1000, float64(to)) - float64(span.from), label: f.name})
	}
	caption := "per second, " + span.caption
	if cut, ok := strings.CutSuffix(caption, " marked"); ok {
		caption = cut + " shaded"
	} else if span.marked != "" {
		caption += "; " + span.marked + " shaded"
	}
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
		svg, err := svgLineChart(labels, series, fig.unit, false, bands...)
		if err != nil {
			return nil, "", err
		}
		out = append(out, htmlChart{ID: idPrefix + "-" + fig.id, Title: fig.title, Caption: caption, SVG: svg})
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
