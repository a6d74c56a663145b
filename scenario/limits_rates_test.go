package scenario

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// rateFile is a scenario whose load line (line 3) and duration (line 2) a case sets.
func rateFile(duration, load string) string {
	return "name: t\nduration: " + duration + "\nload: " + load + "\ntarget:\n  latency: {fixed: 10ms}\npolicy: {timeout: 1s}\n"
}

// TestRateBounds: a rate is above 0, at most MaxRate, and brings at least one request on
// average in the time arrivals last (rate × duration ≥ 1); outside that the error names
// file:line:col and load.rate, never a panic in the simulator (issue 24 item 6: rate:
// 1e-12/s made a gap of 1e21 ns, past time.Duration's range, and the run indexed second
// -9223372036).
func TestRateBounds(t *testing.T) {
	tests := []struct {
		name, duration, load string
		col                  int    // of the error; 0 = the file loads
		msg                  string // part of the error
	}{
		{"tiny rate", "1m", "{rate: 1e-12/s}", 14, "6e-11 requests on average in 1m"},
		{"one an hour in a minute", "1m", "{rate: 1/h}", 14, "want at least 1: a rate of at least 0.0167/s"},
		{"just under one", "1m", "{rate: 0.99/m}", 14, "0.99 requests"},
		{"exactly one", "1m", "{rate: 1/m}", 0, ""},
		{"one an hour for an hour", "1h", "{rate: 1/h}", 0, ""},
		{"one a day", "24h", "{rate: 0.0000116/s}", 0, ""},
		{"nanosecond run", "1ns", "{rate: 40/s}", 14, "or a longer duration"},
		{"denormal", "1m", "{rate: 5e-324/s}", 14, "want at least 1"},
		{"zero", "1m", "{rate: 0/s}", 14, "must be above 0"},
		{"max", "1m", "{rate: 1000000/s}", 0, ""},
		{"above max", "1m", "{rate: 1000001/s}", 14, "above the 1e+06/s"},
		{"burst alone needs no rate", "1m", "{burst: 5}", 0, ""},
		{"rate with a burst still needs one arrival", "1m", "{rate: 1e-12/s, burst: 5}", 14, "want at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse([]byte(rateFile(tt.duration, tt.load)), "f.yaml")
			if tt.col == 0 {
				if err != nil {
					t.Fatalf("want the file to load, got %v", err)
				}
				if sc.Load.Rate > 0 && sc.Load.Rate*sc.Duration.Seconds() < MinArrivals {
					t.Fatalf("loaded rate %g × duration %s below %g arrivals", sc.Load.Rate, sc.Duration, float64(MinArrivals))
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("want an *Error, got %v", err)
			}
			if e.Line != 3 || e.Col != tt.col || e.Field != "load.rate" || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("got %d:%d %s: %s; want 3:%d load.rate: …%s…", e.Line, e.Col, e.Field, e.Msg, tt.col, tt.msg)
			}
		})
	}
}

// TestSparseRate is the arithmetic of the rule every rate input shares (scenario files,
// storm's --rate and --capacity, demo's --rate).
func TestSparseRate(t *testing.T) {
	tests := []struct {
		rate   float64
		d      time.Duration
		sparse bool
		msg    string
	}{
		{1, time.Second, false, ""},
		{1.0 / 60, time.Minute, false, ""},
		{0.5, time.Second, true, "0.5 requests on average in 1s"},
		{1e-12, 3 * time.Minute, true, "1.8e-10 requests on average in 3m; want at least 1: a rate of at least 0.00556/s"},
		{150, time.Nanosecond, true, "1.5e-07 requests"},
		{math.SmallestNonzeroFloat64, MaxDuration, true, "a rate of at least 1.16e-05/s"},
		// Not this rule's business: zero, negative and unset durations are refused elsewhere.
		{0, time.Minute, false, ""},
		{1e-12, 0, false, ""},
	}
	for _, tt := range tests {
		msg := SparseRate(tt.rate, tt.d)
		if (msg != "") != tt.sparse || !strings.Contains(msg, tt.msg) {
			t.Errorf("SparseRate(%g, %s) = %q; want sparse %v containing %q", tt.rate, tt.d, msg, tt.sparse, tt.msg)
		}
	}
}
