package report

import (
	"math"
	"strconv"

	"github.com/go-analyze/charts"
	"github.com/patience-dev/patience/internal/units"
)

// logScale maps values onto a base-10 logarithmic axis, which go-analyze/charts (linear
// axes only) cannot draw itself: a chart plots scale.value(v) and labels its axis at whole
// powers of ten (axis). On a linear axis the few slow responses a timeout is chosen from are
// a bar of height zero beside the 1,500 fast ones, and a p50 of 40 ms is a flat line under a
// p99 of 800 ms (issue 26); on this one each power of ten gets the same room.
//
// With zero, the axis has a line for nothing one power of ten below the smallest value: a
// bucket of one response, or a timeout that cuts off 0.1%, stands above a zero.
type logScale struct {
	lo, hi int // the axis spans [lo, hi], in powers of ten
	zero   bool
	format func(float64) string
}

// newLogScale fits a scale to values (charts.GetNullValue() entries, and values ≤ 0 but
// for the zero line, are skipped), labelling powers of ten with format.
func newLogScale(values []float64, zero bool, format func(float64) string) logScale {
	s := logScale{zero: zero, format: format}
	first := true
	for _, v := range values {
		if v == charts.GetNullValue() || v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		lo, hi := int(math.Floor(math.Log10(v))), int(math.Ceil(math.Log10(v)))
		if first || lo < s.lo {
			s.lo = lo
		}
		if first || hi > s.hi {
			s.hi = hi
		}
		first = false
	}
	if zero {
		s.lo--
	}
	if s.hi <= s.lo {
		s.hi = s.lo + 1
	}
	return s
}

// value is where v plots: log10(v) − lo, so the axis's bottom is 0 (the library draws bars
// up from 0); with zero, v ≤ 0 on the zero line.
func (s logScale) value(v float64) float64 {
	switch {
	case v == charts.GetNullValue():
		return v
	case v <= 0 && s.zero:
		return 0
	case v <= 0:
		return charts.GetNullValue()
	}
	return math.Log10(v) - float64(s.lo)
}

// values maps every value of vs.
func (s logScale) values(vs []float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = s.value(v)
	}
	return out
}

// label is the axis label of a plotted position: the value it stands for.
func (s logScale) label(f float64) string {
	if s.zero && f < 0.5 {
		return "0"
	}
	return s.format(math.Pow(10, math.Round(f)+float64(s.lo)))
}

// axis is the value axis: from lo to hi, one label a power of ten, titled as "(log scale)".
func (s logScale) axis(title string) charts.ValueAxisOption {
	return charts.ValueAxisOption{
		Title:               textSafe(title + " (log scale)"),
		Min:                 charts.Ptr(0.0),
		Max:                 charts.Ptr(float64(s.hi - s.lo)),
		LabelCount:          s.hi - s.lo + 1,
		PreferNiceIntervals: charts.Ptr(false),
		ValueFormatter:      s.label,
	}
}

// countLabel, msLabel and percentLabel format the powers of ten of an axis of counts, of
// latencies and of percentages.
func countLabel(v float64) string   { return units.Count(int(math.Round(v))) }
func msLabel(v float64) string      { return units.Millis(v) }
func percentLabel(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) + "%" }
