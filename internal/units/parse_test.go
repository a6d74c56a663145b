package units

import (
	"testing"
	"time"
)

// TestParsers pins each parser's value and, for what it refuses, the exact message: the
// scenario loader and the flags print these texts after the field or flag name.
func TestParsers(t *testing.T) {
	dur := func(s string) parsed {
		d, err := ParseDuration(s)
		return result(float64(d)/float64(time.Millisecond), err)
	}
	for _, tc := range []struct {
		name string
		got  parsed
		want parsed
	}{
		{"duration", dur(" 1m30s "), parsed{v: 90_000}},
		{"duration zero", dur("0"), parsed{}},
		{"duration bare", dur("5"), parsed{err: `"5" has no unit (write e.g. 5s or 5ms)`}},
		{"duration empty", dur(""), parsed{err: "empty duration (write e.g. 2s, 250ms or 1m30s)"}},
		{"duration none", dur("none"), parsed{err: `"none" is not allowed here (write a duration such as 2s)`}},
		{"duration word", dur("soon"), parsed{err: `"soon" is not a duration (write e.g. 2s, 250ms or 1m30s)`}},
		{"duration negative", dur("-1s"), parsed{err: `"-1s" is negative`}},
		{"rate", result(ParseRate("2400/m")), parsed{v: 40}},
		{"rate bare", result(ParseRate("40")), parsed{err: `"40" has no unit (write 40/s or 40/m)`}},
		{"rate unit", result(ParseRate("40/ms")), parsed{err: `"40/ms": unknown unit "ms" (use /s, /m or /h)`}},
		{"rate word", result(ParseRate("lots/s")), parsed{err: `"lots/s" is not a rate (write e.g. 40/s or 2400/m)`}},
		{"rate negative", result(ParseRate("-1/s")), parsed{err: `"-1/s" is negative`}},
		{"flag rate bare", result(ParseFlagRate("10")), parsed{v: 10}},
		{"flag rate with unit", result(ParseFlagRate("60/m")), parsed{v: 1}},
		{"flag rate NaN", result(ParseFlagRate("NaN")), parsed{err: `"NaN" is not a rate (write e.g. 40/s or 2400/m)`}},
		{"percent", result(ParsePercent("12.5%")), parsed{v: 0.125}},
		{"percent bare", result(ParsePercent("0.5")), parsed{err: `"0.5" is ambiguous: write a percentage such as 50%`}},
		{"percent word", result(ParsePercent("half")), parsed{err: `"half" is not a percentage (write e.g. 50% or 0.1%)`}},
		{"percent over", result(ParsePercent("101%")), parsed{err: `"101%" is over 100%`}},
		{"percent negative", result(ParsePercent("-1%")), parsed{err: `"-1%" is negative`}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}

// parsed is what a parser returned: its value, or its error's text.
type parsed struct {
	v   float64
	err string
}

func result(v float64, err error) parsed {
	if err != nil {
		return parsed{err: err.Error()}
	}
	return parsed{v: v}
}
