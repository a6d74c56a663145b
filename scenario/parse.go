package scenario

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
)

// The value parsers every user-facing number goes through (scenario and policy files, `check`
// files and command flags) are the units' own (internal/units, parse.go); the names below
// keep them where the file formats' callers look for them. Each has a fuzz target here.

// FormatDuration writes d in the syntax ParseDuration reads, without Go's trailing zero units:
// "10m", "1h", "1m30s", "1.1s", "250ms" (not "10m0s", "1h0m0s"). It is for literals a user
// types or pastes back — a flag's value, a field of a file; prose uses internal/units ("10 min").
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ParseDuration is units.ParseDuration: a duration with its unit ("250ms", "1m30s", "0").
func ParseDuration(s string) (time.Duration, error) { return units.ParseDuration(s) }

// rateUnits are the denominators a rate accepts (docs/scenario.md lists them).
var rateUnits = units.RateUnits()

// ParseRate is units.ParseRate: a rate with its unit ("40/s", "2400/m") in requests per second.
func ParseRate(s string) (float64, error) { return units.ParseRate(s) }

// ParseFlagRate is units.ParseFlagRate: ParseRate, and a bare number as a rate per second.
func ParseFlagRate(s string) (float64, error) { return units.ParseFlagRate(s) }

// ParsePercent is units.ParsePercent: "50%" or "0.1%" as a fraction in [0, 1].
func ParsePercent(s string) (float64, error) { return units.ParsePercent(s) }

// Comparison is one expectation of `expect:` such as ">= 99%", "<= 2" or "0" (meaning "== 0").
// Percent values are stored as fractions (99% → 0.99).
type Comparison struct {
	Op    string // one of >=, <=, >, <, ==
	Value float64
	// Percent says the value was written as a percentage.
	Percent bool
}

// Holds says whether x satisfies the comparison.
func (c Comparison) Holds(x float64) bool {
	switch c.Op {
	case ">=":
		return x >= c.Value
	case "<=":
		return x <= c.Value
	case ">":
		return x > c.Value
	case "<":
		return x < c.Value
	default:
		return x == c.Value
	}
}

// String renders the comparison as written in canonical form (">= 99%").
func (c Comparison) String() string {
	if c.Percent {
		return c.Op + " " + strconv.FormatFloat(c.Value*100, 'f', -1, 64) + "%"
	}
	return c.Op + " " + strconv.FormatFloat(c.Value, 'f', -1, 64)
}

// ParseComparison parses an expectation: an optional operator (>=, <=, >, <, ==, =; none means
// ==) and a value. With percent, the value must be a percentage ("99%"); without, a plain
// non-negative number.
func ParseComparison(s string, percent bool) (Comparison, error) {
	t := strings.TrimSpace(s)
	c := Comparison{Op: "==", Percent: percent}
	for _, op := range []string{">=", "<=", "==", ">", "<", "="} {
		if rest, ok := strings.CutPrefix(t, op); ok {
			c.Op, t = op, strings.TrimSpace(rest)
			if op == "=" {
				c.Op = "=="
			}
			break
		}
	}
	if percent {
		v, err := ParsePercent(t)
		if err != nil {
			return Comparison{}, err
		}
		c.Value = v
		return c, nil
	}
	if strings.HasSuffix(t, "%") {
		return Comparison{}, fmt.Errorf("%q: this value is a plain number, not a percentage", s)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Comparison{}, fmt.Errorf("%q is not a comparison (write e.g. \">= 99%%\", \"<= 2\" or 0)", s)
	}
	if v < 0 {
		return Comparison{}, fmt.Errorf("%q is negative", s)
	}
	c.Value = v
	return c, nil
}
