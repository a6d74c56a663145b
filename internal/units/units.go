// Package units writes the numbers of every report in one way: counts with thousands
// separators, shares, multipliers, durations, rates. The library's verdict sentences and the
// renderers both use it, so a number reads the same in a verdict and in the table beside it.
package units

import (
	"fmt"
	"math"
	"strings"
)

// Count writes an integer with thousands separators.
func Count(n int) string {
	s := fmt.Sprintf("%d", n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Percent writes a ratio as a percentage with one decimal, never rounding a partial
// success up to 100% or a partial failure down to 0%.
func Percent(x float64) string {
	s := fmt.Sprintf("%.1f%%", 100*x)
	switch {
	case x < 1 && s == "100.0%":
		return ">99.9%"
	case x > 0 && s == "0.0%":
		return "<0.1%"
	}
	return s
}

// Ratio writes a multiplier: ×1, ×1.23, ×18.
func Ratio(x float64) string {
	switch {
	case x == math.Trunc(x):
		return fmt.Sprintf("×%.0f", x)
	case x >= 10:
		return fmt.Sprintf("×%.1f", x)
	}
	return fmt.Sprintf("×%.2f", x)
}

// Millis writes milliseconds with about three significant digits: 0.41ms, 412ms,
// 4.12s, 4m12s, 1h5m.
func Millis(ms float64) string {
	switch {
	case ms <= 0:
		return "0"
	case ms < 10:
		return fmt.Sprintf("%.2fms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0fms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.3gs", ms/1000)
	case ms < 3_600_000:
		s := int(math.Round(ms / 1000))
		if s%60 == 0 {
			return fmt.Sprintf("%dm", s/60)
		}
		return fmt.Sprintf("%dm%ds", s/60, s%60)
	}
	m := int(math.Round(ms / 60_000))
	return fmt.Sprintf("%dh%dm", m/60, m%60)
}

// Rate writes a rate with about three significant digits: 4.69/s, 66/s, 1.2k/s.
func Rate(x float64) string {
	switch {
	case x >= 1e4:
		return fmt.Sprintf("%.3gk/s", x/1e3)
	case x >= 100 || x == math.Trunc(x):
		return fmt.Sprintf("%.0f/s", x)
	case x >= 10:
		return fmt.Sprintf("%.1f/s", x)
	}
	return fmt.Sprintf("%.2f/s", x)
}

// Times writes a ratio to capacity: 2.0×, 0.55×.
func Times(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f×", x)
	}
	if x >= 1 {
		return fmt.Sprintf("%.1f×", x)
	}
	return fmt.Sprintf("%.2f×", x)
}

// Seconds writes whole or fractional seconds: "8 s", "0.5 s".
func Seconds(s float64) string {
	if s == math.Trunc(s) {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}
