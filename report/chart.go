package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// ChartSeries is one row of a per-second chart: a value per second, drawn as a strip of
// block glyphs in its own style.
type ChartSeries struct {
	// Name labels the row ("ok/s", "failed/s", "in flight").
	Name string
	// Values holds one value per second, from t=0.
	Values []float64
	// Peak aggregates the seconds that share a column by their maximum (levels such as
	// "in flight"); otherwise by their mean (rates such as successes per second).
	Peak bool
	// Style colours the strip; the zero style draws plain glyphs.
	Style lipgloss.Style
	// Unit follows the scale figure at the end of the row ("/s").
	Unit string
}

// chartLevels are the glyphs of a strip, from nothing to full scale. A value above zero
// never draws the blank glyph, so a single failure stays visible.
var chartLevels = []rune(" ▁▂▃▄▅▆▇█")

// ChartOptions shape a chart.
type ChartOptions struct {
	// Width is the total width available (the terminal's); the strip gets what the labels
	// leave, at least 10 columns.
	Width int
	// Shared scales every series to the largest value among them, so rows compare; otherwise
	// each row is scaled to its own peak, printed at its end.
	Shared bool
}

// Chart writes a small-multiple chart: one strip per series, time flowing left to right,
// seconds folded into columns to fit the width, then a time axis. It is generic so every
// command with a per-second timeline (replay, storm) draws the same way.
func Chart(w io.Writer, series []ChartSeries, opts ChartOptions, st Styles) error {
	if len(series) == 0 {
		return nil
	}
	n := 0
	label := 0
	for _, s := range series {
		n = max(n, len(s.Values))
		label = max(label, lipgloss.Width(s.Name))
	}
	if n == 0 {
		return nil
	}
	width := opts.Width
	if width <= 0 {
		width = 80
	}
	const scaleCol = 11 // " max 1,234/s"
	cols := max(width-label-2-scaleCol-1, 10)
	per := (n + cols - 1) / cols // seconds per column
	cols = (n + per - 1) / per
	folded := make([][]float64, len(series))
	shared := 0.0
	for i, s := range series {
		folded[i] = chartFold(s.Values, per, cols, s.Peak)
		for _, v := range folded[i] {
			shared = math.Max(shared, v)
		}
	}
	var b strings.Builder
	for i, s := range series {
		top := shared
		if !opts.Shared {
			top = 0
			for _, v := range folded[i] {
				top = math.Max(top, v)
			}
		}
		var strip strings.Builder
		for _, v := range folded[i] {
			strip.WriteRune(chartGlyph(v, top))
		}
		fmt.Fprintf(&b, "%-*s  %s %s\n", label, s.Name, s.Style.Render(strip.String()),
			st.Muted.Render("max "+chartNumber(top)+s.Unit))
	}
	// Time axis: the start, the middle and the end of the run.
	axis := []rune(strings.Repeat(" ", cols))
	place := func(col int, text string) {
		r := []rune(text)
		if col+len(r) > cols {
			col = cols - len(r)
		}
		if col < 0 {
			return
		}
		for j, c := range r {
			axis[col+j] = c
		}
	}
	place(0, "0s")
	if cols >= 24 {
		place(cols/2-2, chartSeconds(n/2))
	}
	place(cols-len([]rune(chartSeconds(n))), chartSeconds(n))
	fmt.Fprintf(&b, "%-*s  %s\n", label, "", st.Muted.Render(string(axis)))
	if per > 1 {
		fmt.Fprintf(&b, "%-*s  %s\n", label, "", st.Muted.Render(fmt.Sprintf("one column = %ds", per)))
	}
	_, err := io.WriteString(w, b.String())
	return err
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

// chartNumber writes a scale figure with about three significant digits.
func chartNumber(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// chartSeconds writes a time-axis label: 45s, 10m, 12m30s, 1h5m.
func chartSeconds(s int) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		if s%60 == 0 {
			return fmt.Sprintf("%dm", s/60)
		}
		return fmt.Sprintf("%dm%ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%dm", s/3600, (s%3600)/60)
}
