// Package units writes the numbers of every report in one way: counts with thousands
// separators, shares, multipliers, durations, rates. The library's verdict sentences and the
// renderers both use it, so a number reads the same in a verdict and in the table beside it.
//
// The style, in one place:
//   - durations: a number, a space and the unit, three significant digits — "0.412 ms",
//     "48 ms", "4.12 s", "29.3 s"; from a minute on, whole units — "2 min 30 s", "1 h 5 min";
//   - rates: three significant digits per second — "4.69/s", "150/s", "1.23k/s"; below one
//     a second, one event per a duration — "1 per 32.3 s", "1 per 2 min";
//   - multipliers: "×3.5" for a factor (amplification), "2.04×" for a share of capacity;
//   - counts: "1,169"; shares: "72.7%".
//
// It also reads the numbers a user types (parse.go): durations, rates and percentages, each
// with its unit, as scenario files, check files and flags write them.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Count writes an integer with thousands separators.
func Count(n int) string {
	s := strconv.Itoa(n)
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

// round3 rounds x to three significant digits and says how many decimals that leaves.
func round3(x float64) (float64, int) {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x, 0
	}
	decimals := 2 - int(math.Floor(math.Log10(math.Abs(x))))
	p := math.Pow(10, float64(decimals))
	r := math.Round(x*p) / p
	// Rounding may carry into a new digit (9.996 → 10.0): one decimal fewer then.
	if decimals > 0 && math.Abs(r) >= math.Pow(10, float64(3-decimals)) {
		decimals--
	}
	return r, max(decimals, 0)
}

// Sig writes x with three significant digits and no trailing zeros or exponent: 0.412,
// 4.12, 41.2, 412, 4120.
func Sig(x float64) string {
	r, d := round3(x)
	s := strconv.FormatFloat(r, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// Figure is Sig with thousands separators, as Count writes them: 4.12, 412, 4,120 — for a
// table whose cells sit beside counts (a phase table in ms next to "1,800 requests").
func Figure(x float64) string {
	s := Sig(x)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if n, err := strconv.Atoi(intPart); err == nil && n >= 1000 {
		intPart = Count(n)
	}
	if neg {
		return "-" + intPart + frac
	}
	return intPart + frac
}

// Number writes a magnitude with three significant digits, thousands as k and millions as
// M: 8, 19.5, 600, 1.23k, 22.5k, 1.5M.
func Number(x float64) string {
	switch a := math.Abs(x); {
	case a >= 999.5e3:
		return Sig(x/1e6) + "M"
	case a >= 999.5:
		return Sig(x/1e3) + "k"
	}
	return Sig(x)
}

// Ratio writes a multiplier of calls or attempts: ×1, ×1.33, ×0.283, ×17.8.
func Ratio(x float64) string { return "×" + Sig(x) }

// Times writes a share of capacity: 2×, 0.6×, 2.04×.
func Times(x float64) string { return Sig(x) + "×" }

// Millis writes a duration given in milliseconds: 0.412 ms, 48 ms, 4.12 s, 2 min 30 s,
// 1 h 5 min (see the package comment).
func Millis(ms float64) string {
	if !(ms > 0) {
		return "0 ms"
	}
	if r, _ := round3(ms); r < 1000 {
		return Sig(ms) + " ms"
	}
	if r, _ := round3(ms / 1000); r < 60 {
		return Sig(ms/1000) + " s"
	}
	if s := int(math.Round(ms / 1000)); s < 3600 {
		if s%60 == 0 {
			return strconv.Itoa(s/60) + " min"
		}
		return strconv.Itoa(s/60) + " min " + strconv.Itoa(s%60) + " s"
	}
	m := int(math.Round(ms / 60_000))
	if m%60 == 0 {
		return strconv.Itoa(m/60) + " h"
	}
	return strconv.Itoa(m/60) + " h " + strconv.Itoa(m%60) + " min"
}

// Duration writes a time.Duration in the style of Millis.
func Duration(d time.Duration) string { return Millis(float64(d) / float64(time.Millisecond)) }

// Seconds writes a duration given in seconds in the style of Millis: "8 s", "0.5 s".
func Seconds(s float64) string { return Millis(s * 1000) }

// Rate writes events per second: 4.69/s, 66/s, 150/s, 1.23k/s; below one a second, the
// period between two: "1 per 32.3 s", "1 per 2 min".
func Rate(x float64) string {
	switch {
	case !(x > 0):
		return "0/s"
	case x < 0.9995:
		return "1 per " + Millis(1000/x)
	}
	return Number(x) + "/s"
}
