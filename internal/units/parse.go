package units

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"
)

// The value parsers every user-facing number goes through: scenario and policy files,
// `check` files and command flags (--rate, --cutoff, --timeout), the other side of the
// writers above. Each rejects what is ambiguous with a hint rather than guessing, and each
// has a fuzz target (scenario/parse_test.go, through scenario's names for them).

// ParseDuration parses a Go duration ("250ms", "1m30s", "0"). Negative durations and bare
// numbers other than 0 are rejected ("5" could mean seconds or milliseconds: the hint asks for
// a unit). "none" is not a duration: callers that accept it check for it first.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty duration (write e.g. 2s, 250ms or 1m30s)")
	}
	if s == "none" {
		return 0, errors.New(`"none" is not allowed here (write a duration such as 2s)`)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && s != "0" {
		return 0, fmt.Errorf("%q has no unit (write e.g. %ss or %sms)", s, s, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (write e.g. 2s, 250ms or 1m30s)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}

// rateUnits maps the accepted denominators of a rate to their length. "/ms" is not accepted:
// a thousand requests a millisecond is a load test's job, not a scenario's, and the suffix
// reads too much like "/m".
var rateUnits = map[string]time.Duration{
	"s":   time.Second,
	"sec": time.Second,
	"m":   time.Minute,
	"min": time.Minute,
	"h":   time.Hour,
}

// RateUnits are the denominators a rate accepts and their lengths (a copy: the reference
// documentation lists them).
func RateUnits() map[string]time.Duration { return maps.Clone(rateUnits) }

// ParseRate parses a rate such as "40/s", "2400/m" or "10/h" into requests per second.
// A bare number is rejected with a hint: "40" could be per second or per minute.
func ParseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, unit, ok := strings.Cut(s, "/")
	if !ok {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return 0, fmt.Errorf("%q has no unit (write %s/s or %s/m)", s, s, s)
		}
		return 0, fmt.Errorf("%q is not a rate (write e.g. 40/s or 2400/m)", s)
	}
	per, ok := rateUnits[strings.TrimSpace(unit)]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (use /s, /m or /h)", s, unit)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a rate (write e.g. 40/s or 2400/m)", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return v / per.Seconds(), nil
}

// ParseFlagRate parses a rate given on the command line: what ParseRate reads, and a bare
// number as a rate per second ("--rate 10" is 10/s, as in hey, oha and k6). Scenario files
// keep ParseRate's rule that a rate says its unit.
func ParseFlagRate(s string) (float64, error) {
	if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a rate (write e.g. 40/s or 2400/m)", s)
		}
		if v < 0 {
			return 0, fmt.Errorf("%q is negative", s)
		}
		return v, nil
	}
	return ParseRate(s)
}

// ParsePercent parses "50%" or "0.1%" into a fraction in [0, 1]. A bare number is rejected
// with a hint: is 0.5 a half or half a percent? Values above 100% are rejected.
func ParsePercent(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is ambiguous: write a percentage such as %s%%", s, strconv.FormatFloat(v*100, 'f', -1, 64))
		}
		return 0, fmt.Errorf("%q is not a percentage (write e.g. 50%% or 0.1%%)", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a percentage (write e.g. 50%% or 0.1%%)", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	if v > 100 {
		return 0, fmt.Errorf("%q is over 100%%", s)
	}
	return v / 100, nil
}
