package scenario

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"250ms", 250 * time.Millisecond, ""},
		{"1m30s", 90 * time.Second, ""},
		{" 2s ", 2 * time.Second, ""},
		{"0", 0, ""},
		{"0s", 0, ""},
		{"1.5s", 1500 * time.Millisecond, ""},
		{"5", 0, "no unit"},
		{"0.5", 0, "no unit"},
		{"-1s", 0, "negative"},
		{"", 0, "empty"},
		{"none", 0, "not allowed"},
		{"soon", 0, "not a duration"},
		{"2 seconds", 0, "not a duration"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseDuration(%q) error = %v, want it to mention %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr string
	}{
		{"40/s", 40, ""},
		{"2400/m", 40, ""},
		{"2400/min", 40, ""},
		{"36000/h", 10, ""},
		{"0.5/s", 0.5, ""},
		{" 10 / s ", 10, ""},
		{"0/s", 0, ""},
		{"40", 0, "no unit"},
		{"40/ms", 0, "unknown unit"},
		{"40/d", 0, "unknown unit"},
		{"-1/s", 0, "negative"},
		{"NaN/s", 0, "not a rate"},
		{"Inf/s", 0, "not a rate"},
		{"fast", 0, "not a rate"},
		{"/s", 0, "not a rate"},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRate(%q) error = %v, want it to mention %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParsePercent(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr string
	}{
		{"50%", 0.5, ""},
		{"0.1%", 0.001, ""},
		{"100%", 1, ""},
		{"0%", 0, ""},
		{" 5 %", 0.05, ""},
		{"0.5", 0, "write a percentage such as 50%"},
		{"1", 0, "write a percentage such as 100%"},
		{"101%", 0, "over 100%"},
		{"-5%", 0, "negative"},
		{"%", 0, "not a percentage"},
		{"half", 0, "not a percentage"},
		{"NaN%", 0, "not a percentage"},
	}
	for _, tt := range tests {
		got, err := ParsePercent(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParsePercent(%q) error = %v, want it to mention %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseComparison(t *testing.T) {
	tests := []struct {
		in      string
		percent bool
		want    Comparison
		wantErr string
	}{
		{">= 99%", true, Comparison{Op: ">=", Value: 0.99, Percent: true}, ""},
		{"<50%", true, Comparison{Op: "<", Value: 0.5, Percent: true}, ""},
		{"<= 2", false, Comparison{Op: "<=", Value: 2}, ""},
		{"0", false, Comparison{Op: "==", Value: 0}, ""},
		{"= 3", false, Comparison{Op: "==", Value: 3}, ""},
		{"> 1.5", false, Comparison{Op: ">", Value: 1.5}, ""},
		{">= 0.99", true, Comparison{}, "write a percentage such as 99%"},
		{"<= 2%", false, Comparison{}, "plain number"},
		{"~ 2", false, Comparison{}, "not a comparison"},
		{">= -1", false, Comparison{}, "negative"},
	}
	for _, tt := range tests {
		got, err := ParseComparison(tt.in, tt.percent)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseComparison(%q) error = %v, want it to mention %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got.Op != tt.want.Op || math.Abs(got.Value-tt.want.Value) > 1e-12 || got.Percent != tt.want.Percent {
			t.Errorf("ParseComparison(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestComparisonHolds(t *testing.T) {
	tests := []struct {
		c    Comparison
		x    float64
		want bool
	}{
		{Comparison{Op: ">=", Value: 0.99}, 0.99, true},
		{Comparison{Op: ">=", Value: 0.99}, 0.98, false},
		{Comparison{Op: ">", Value: 2}, 2, false},
		{Comparison{Op: "<", Value: 0.5}, 0.49, true},
		{Comparison{Op: "<=", Value: 2}, 2.01, false},
		{Comparison{Op: "==", Value: 0}, 0, true},
		{Comparison{Op: "==", Value: 0}, 1, false},
	}
	for _, tt := range tests {
		if got := tt.c.Holds(tt.x); got != tt.want {
			t.Errorf("%s holds for %v = %v, want %v", tt.c, tt.x, got, tt.want)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"250ms", "1m30s", "0", "-1s", "5", "none", "1e400s", "9223372036854775807ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err == nil && d < 0 {
			t.Fatalf("ParseDuration(%q) = %v: negative without error", s, d)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"40/s", "2400/m", "1/h", "40", "-1/s", "1e308/s", "NaN/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err == nil && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("ParseRate(%q) = %v without error", s, v)
		}
	})
}

func FuzzParsePercent(f *testing.F) {
	for _, s := range []string{"50%", "0.1%", "100%", "0.5", "101%", "-0%", "1e-320%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePercent(s)
		if err == nil && !(v >= 0 && v <= 1) {
			t.Fatalf("ParsePercent(%q) = %v: outside [0, 1] without error", s, v)
		}
	})
}

func FuzzParseComparison(f *testing.F) {
	for _, s := range []string{">= 99%", "<= 2", "0", "==1", "<"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, percent bool) {
		c, err := ParseComparison(s, percent)
		if err == nil && (c.Value < 0 || math.IsNaN(c.Value)) {
			t.Fatalf("ParseComparison(%q) = %+v without error", s, c)
		}
	})
}

// TestFormatDuration: the literal ParseDuration reads back, without Go's trailing zero units.
func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {250 * time.Millisecond, "250ms"}, {1100 * time.Millisecond, "1.1s"},
		{10 * time.Minute, "10m"}, {time.Hour, "1h"}, {90 * time.Second, "1m30s"},
		{time.Hour + time.Minute, "1h1m"}, {1500 * time.Microsecond, "1.5ms"},
	} {
		got := FormatDuration(tc.d)
		if got != tc.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
		if back, err := ParseDuration(got); err != nil || back != tc.d {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", got, back, err, tc.d)
		}
	}
}
