package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/replay"
)

// ChartSeries is one row of a per-second chart: a value per second, drawn as a strip of
// block glyphs in its own style.
type ChartSeries struct {
	// Name labels the row ("ok", "failed", "in flight").
	Name string
	// Group heads a block of rows (a policy's name): a row whose Group differs from the
	// previous row's starts a new block under a heading line.
	Group string
	// Values holds one value per second, from t=0.
	Values []float64
	// Peak aggregates the seconds that share a column by their maximum (levels such as
	// "in flight"); otherwise by their mean (rates such as successes per second).
	Peak bool
	// Band draws an on/off row (a fault phase): a full block where the value is above zero,
	// nothing elsewhere, and no scale figure — a boolean is not a rate.
	Band bool
	// Scale names a shared scale: rows with the same non-empty Scale are drawn against the
	// largest value among them, so they compare by eye; a row without one is drawn against
	// its own peak. Either way the figure at the end of a row is that row's own.
	Scale string
	// Style colours the strip; the zero style draws plain glyphs.
	Style lipgloss.Style
	// Unit follows the row's figure ("/s").
	Unit string
	// Note replaces the row's figure (a band's name, say).
	Note string
}

// chartLevels are the glyphs of a strip, from nothing to full scale. A value above zero
// never draws the blank glyph, so a single failure stays visible.
var chartLevels = []rune(" ▁▂▃▄▅▆▇█")

// ChartOptions shape a chart.
type ChartOptions struct {
	// Width is the total width available (the terminal's); the strip gets what the labels
	// and figures leave, at least 10 columns.
	Width int
	// From and To bound the seconds drawn, [From, To); To 0 means the longest series.
	From, To int
}

// Chart writes a small-multiple chart: one strip per series, time flowing left to right,
// seconds folded into columns to fit the width, then one time axis under every row, so all
// the rows (every policy of a report) share it. The figure at the end of each row is the
// row's own maximum over the seconds drawn, whatever the width. It is generic so every
// command with a per-second timeline (replay, storm) draws the same way.
func Chart(w io.Writer, series []ChartSeries, opts ChartOptions, st Styles) error {
	if len(series) == 0 {
		return nil
	}
	c := newChartLayout(chartSafe(series), opts)
	if c.n <= 0 {
		return nil
	}
	c.measure()
	c.fold(opts.Width)
	var b strings.Builder
	c.writeRows(&b, st)
	c.writeAxis(&b, st)
	_, err := io.WriteString(w, b.String())
	return err
}

// chartLayout is what Chart works out before it draws: the seconds drawn, each row's window
// of values, scale and figure, and how the seconds fold into columns. Its methods are Chart's
// stages, in order.
type chartLayout struct {
	series []ChartSeries
	// from, to and n are the seconds drawn, [from, to), n of them.
	from, to, n int
	// grouped is set when some row has a Group: grouped rows are indented under a heading.
	grouped bool
	indent  int
	// label and figW are the widths of the name column and of the widest figure.
	label, figW int
	window      [][]float64
	rowMax      []float64
	scaleMax    map[string]float64
	figures     []string
	// per seconds fold into each of cols columns.
	per, cols int
}

// chartSafe makes each row's name, group and note one line: they may be a policy's or a
// phase's name.
func chartSafe(series []ChartSeries) []ChartSeries {
	safe := make([]ChartSeries, len(series))
	for i, s := range series {
		s.Name, s.Group, s.Note = textSafe(s.Name), textSafe(s.Group), textSafe(s.Note)
		safe[i] = s
	}
	return safe
}

// newChartLayout bounds the seconds drawn (To 0: the longest series) and sees whether the
// rows are grouped.
func newChartLayout(series []ChartSeries, opts ChartOptions) *chartLayout {
	c := &chartLayout{series: series, from: max(opts.From, 0), to: opts.To, scaleMax: map[string]float64{}}
	if c.to <= 0 {
		for _, s := range series {
			c.to = max(c.to, len(s.Values))
		}
	}
	c.n = c.to - c.from
	for _, s := range series {
		c.grouped = c.grouped || s.Group != ""
	}
	if c.grouped {
		c.indent = 2
	}
	return c
}

// measure cuts every row's window of seconds out of its values and works out the widths,
// the maxima (the row's and its shared scale's) and the figure at the end of each row.
func (c *chartLayout) measure() {
	c.window = make([][]float64, len(c.series))
	c.rowMax = make([]float64, len(c.series))
	c.figures = make([]string, len(c.series))
	for i, s := range c.series {
		width := lipgloss.Width(s.Name)
		if s.Group != "" {
			width += c.indent
		}
		c.label = max(c.label, width)
		var lo float64
		c.window[i], lo, c.rowMax[i] = chartWindowOf(s.Values, c.from, c.to)
		if s.Scale != "" {
			c.scaleMax[s.Scale] = math.Max(c.scaleMax[s.Scale], c.rowMax[i])
		}
		c.figures[i] = chartFigure(s, lo, c.rowMax[i])
		c.figW = max(c.figW, lipgloss.Width(c.figures[i]))
	}
}

// chartWindowOf is values over the seconds [from, to), zero past their end, with its lowest
// and highest value.
func chartWindowOf(values []float64, from, to int) (window []float64, lo, hi float64) {
	window = make([]float64, to-from)
	lo = math.Inf(1)
	for t := from; t < to; t++ {
		v := 0.0
		if t < len(values) {
			v = values[t]
		}
		window[t-from] = v
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return window, lo, hi
}

// chartFigure is the figure at the end of a row: its note (a band's name), the value of a
// constant (a capacity), else the row's maximum over the seconds drawn.
func chartFigure(s ChartSeries, lo, hi float64) string {
	switch {
	case s.Note != "" || s.Band:
		return s.Note
	case lo == hi && hi > 0:
		return units.Number(hi) + s.Unit
	}
	return "max " + units.Number(hi) + s.Unit
}

// fold chooses how many seconds share a column so the strips fit the width (100 when it is
// unknown) beside the labels and figures, at least 10 columns.
func (c *chartLayout) fold(width int) {
	if width <= 0 {
		width = 100
	}
	avail := max(width-c.label-2-1-c.figW, 10)
	c.per = (c.n + avail - 1) / avail
	c.cols = (c.n + c.per - 1) / c.per
}

// writeRows writes a line per row: its name, its strip, its figure; a grouped row's block
// starts under its group's heading.
func (c *chartLayout) writeRows(b *strings.Builder, st Styles) {
	group := ""
	for i, s := range c.series {
		if c.grouped && (i == 0 || s.Group != group) {
			group = s.Group
			if group != "" { // rows shared by every group (a fault band, a capacity) come first, unheaded
				b.WriteString(st.Title.Render(group) + "\n")
			}
		}
		name := s.Name
		if s.Group != "" {
			name = strings.Repeat(" ", c.indent) + name
		}
		line := fmt.Sprintf("%-*s  %s", c.label, name, s.Style.Render(c.strip(i)))
		if c.figures[i] != "" {
			line += " " + st.Muted.Render(c.figures[i])
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// strip draws row i's columns: a band full or blank, any other row a glyph against its
// scale's maximum (its own without a shared scale).
func (c *chartLayout) strip(i int) string {
	s := c.series[i]
	top := c.rowMax[i]
	if s.Scale != "" {
		top = c.scaleMax[s.Scale]
	}
	var strip strings.Builder
	for _, v := range chartFold(c.window[i], c.per, c.cols, s.Peak || s.Band) {
		switch {
		case !s.Band:
			strip.WriteRune(chartGlyph(v, top))
		case v > 0:
			strip.WriteRune(chartLevels[len(chartLevels)-1])
		default:
			strip.WriteRune(' ')
		}
	}
	return strip.String()
}

// writeAxis writes the time axis under the rows: the start, the middle and the end of the
// seconds drawn, and how many seconds a column holds when more than one.
func (c *chartLayout) writeAxis(b *strings.Builder, st Styles) {
	axis := chartAxis([]rune(strings.Repeat(" ", c.cols)))
	first, last := chartSeconds(c.from), chartSeconds(c.to)
	axis.place(0, first)
	axis.place(c.cols-len([]rune(last)), last)
	mid := chartSeconds(c.from + c.n/2)
	axis.place(c.cols/2-len([]rune(mid))/2, mid)
	fmt.Fprintf(b, "%-*s  %s\n", c.label, "", st.Muted.Render(strings.TrimRight(string(axis), " ")))
	if c.per > 1 {
		fmt.Fprintf(b, "%-*s  %s\n", c.label, "", st.Muted.Render("one column = "+units.Seconds(float64(c.per))))
	}
}

// chartAxis is the time axis line, a rune per column.
type chartAxis []rune

// place writes text at col (moved left to fit), unless it would touch a label already
// placed; it says whether it did.
func (a chartAxis) place(col int, text string) bool {
	r := []rune(text)
	col = min(col, len(a)-len(r))
	if col < 0 {
		return false
	}
	for j := max(col-1, 0); j < min(col+len(r)+1, len(a)); j++ {
		if a[j] != ' ' {
			return false
		}
	}
	copy(a[col:], r)
	return true
}

// chartFold folds per consecutive values into one column, by max or mean.
func chartFold(v []float64, per, cols int, peak bool) []float64 {
	out := make([]float64, cols)
	for c := 0; c < cols; c++ {
		lo, hi := c*per, min((c+1)*per, len(v))
		if lo >= hi {
			continue
		}
		acc := 0.0
		for _, x := range v[lo:hi] {
			if peak {
				acc = math.Max(acc, x)
			} else {
				acc += x
			}
		}
		if !peak {
			acc /= float64(hi - lo)
		}
		out[c] = acc
	}
	return out
}

func chartGlyph(v, top float64) rune {
	if v <= 0 || top <= 0 {
		return chartLevels[0]
	}
	last := len(chartLevels) - 1
	i := int(math.Ceil(v / top * float64(last)))
	return chartLevels[min(max(i, 1), last)]
}

// chartSeconds writes a time-axis label in the report's one duration style.
func chartSeconds(s int) string {
	if s == 0 {
		return "0 s"
	}
	return units.Seconds(float64(s))
}

// chartSpan is the stretch of seconds a chart draws and the sentence that says which.
type chartSpan struct {
	from, to int
	caption  string
	// marked names the fault windows drawn ("the stall", "the faults"), empty without any.
	marked string
}

// chartWindow is one fault window in scenario time, for chartSpanOf; what names it in the
// caption ("the stall", "phase api-hangs"), name on the band that marks it ("stall",
// "api-hangs"). A window with forMs ≤ 0 lasts to the end of the run.
type chartWindow struct {
	what, name  string
	atMs, forMs float64
}

// endMs is when the window ends; +Inf for one that lasts to the end of the run.
func (w chartWindow) endMs() float64 {
	if w.forMs <= 0 {
		return math.Inf(1)
	}
	return w.atMs + w.forMs
}

// chartBand is the on/off row of some fault windows, one value per second for n seconds: 1
// in every second a window overlaps, 0 elsewhere.
func chartBand(faults []chartWindow, n int) []float64 {
	band := make([]float64, n)
	for _, f := range faults {
		for i := max(int(f.atMs/1000), 0); i < n && float64(i)*1000 < f.endMs(); i++ {
			band[i] = 1
		}
	}
	return band
}

// chartBandName labels the band row: the window's own name when there is one window (or
// all share a name), else plural.
func chartBandName(faults []chartWindow, plural string) string {
	for _, f := range faults[1:] {
		if f.name != faults[0].name {
			return plural
		}
	}
	return textSafe(faults[0].name)
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
			if s.Arrivals+s.Attempts+s.Succeeded+s.Failed+s.Degraded+s.InFlight+s.QueueLength > 0 {
				to = max(to, s.T+1)
			}
		}
	}
	return from, to, from >= 0 && to-from >= 3
}

// Zooming onto an incident: the chart starts chartZoomBefore (or a quarter of the incident,
// if longer) before it and ends chartZoomAfter (or the incident's length, if longer) after
// it — the recovery rule's window, so a recovery is in the picture when it happens — or
// chartZoomBefore after the last recovery, if later. A zoom that would keep two thirds of
// the active period or more shows the whole period instead.
const (
	chartZoomBefore = 10
	chartZoomAfter  = 30
)

// chartSpanOf picks the seconds to draw: the active period [activeFrom, activeTo) (first
// arrival to last completion), zoomed onto the fault windows when there are any, with the
// caption that says what is shown. recoveredMs are the moments policies recovered (the
// start of their steady window, in scenario time): the zoom reaches past the last of them.
func chartSpanOf(activeFrom, activeTo int, faults []chartWindow, recoveredMs ...float64) chartSpan {
	whole := chartSpan{from: activeFrom, to: activeTo,
		caption: fmt.Sprintf("%s – %s, first arrival to last completion", chartSeconds(activeFrom), chartSeconds(activeTo))}
	if len(faults) == 0 || activeTo-activeFrom < 3 {
		return whole
	}
	startMs, endMs := math.Inf(1), 0.0
	for _, f := range faults {
		startMs = math.Min(startMs, f.atMs)
		end := f.endMs()
		if math.IsInf(end, 1) {
			end = float64(activeTo) * 1000 // to the end of the run
		}
		endMs = math.Max(endMs, end)
	}
	start, end := int(startMs/1000), int(math.Ceil(endMs/1000))
	length := end - start
	from := max(activeFrom, start-max(chartZoomBefore, length/4))
	to := min(activeTo, end+max(chartZoomAfter, length))
	name := "the faults"
	if len(faults) == 1 {
		name = textSafe(faults[0].what) // a phase's or a trigger's name, in a caption
	}
	what := name + " (" + units.Millis(startMs) + " – " + units.Millis(endMs) + ")"
	lastRecovery := math.Inf(-1)
	for _, r := range recoveredMs {
		lastRecovery = math.Max(lastRecovery, r)
	}
	around := what
	if reach := min(activeTo, int(math.Ceil(lastRecovery/1000))+chartZoomBefore); lastRecovery > endMs && reach > to {
		to = reach
		around += " and the last recovery (" + units.Millis(lastRecovery) + ")"
	}
	if to-from < 3 || 3*(to-from) >= 2*(activeTo-activeFrom) {
		// Too short to draw (a fault after the last completion), or most of the run anyway.
		whole.caption += "; " + what + " marked"
		whole.marked = name
		return whole
	}
	return chartSpan{from: from, to: to, marked: name, caption: fmt.Sprintf("%s – %s around %s, of %s – %s from first arrival to last completion",
		chartSeconds(from), chartSeconds(to), around, chartSeconds(activeFrom), chartSeconds(activeTo))}
}
