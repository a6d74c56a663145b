package units

import (
	"testing"
	"time"
)

func TestUnits(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Count(1234567), "1,234,567"},
		{Count(-1234), "-1,234"},
		{Count(12), "12"},
		{Percent(0.99999), ">99.9%"},
		{Percent(0.00001), "<0.1%"},
		{Percent(0.5), "50.0%"},
		{Sig(0.4123), "0.412"},
		{Sig(4.0), "4"},
		{Sig(9.996), "10"},
		{Sig(69.13), "69.1"},
		{Sig(1234), "1230"},
		{Sig(0.00004123), "0.0000412"},
		{Number(22500), "22.5k"},
		{Number(999.7), "1k"},
		{Number(1.5e6), "1.5M"},
		{Ratio(18), "×18"},
		{Ratio(1.234), "×1.23"},
		{Ratio(0.2797), "×0.28"},
		{Ratio(3.5), "×3.5"},
		{Times(2.0), "2×"},
		{Times(0.6), "0.6×"},
		{Times(2.04), "2.04×"},
		{Millis(0), "0 ms"},
		{Millis(0.4123), "0.412 ms"},
		{Millis(48), "48 ms"},
		{Millis(412.4), "412 ms"},
		{Millis(999.7), "1 s"},
		{Millis(4123), "4.12 s"},
		{Millis(29_300), "29.3 s"},
		{Millis(59_970), "1 min"},
		{Millis(150_000), "2 min 30 s"},
		{Millis(252_000), "4 min 12 s"},
		{Millis(3_600_000), "1 h"},
		{Millis(3_900_000), "1 h 5 min"},
		{Duration(600 * time.Millisecond), "600 ms"},
		{Duration(3200 * time.Millisecond), "3.2 s"},
		{Seconds(8), "8 s"},
		{Seconds(0.5), "500 ms"},
		{Rate(0), "0/s"},
		{Rate(4.69), "4.69/s"},
		{Rate(66), "66/s"},
		{Rate(69.13), "69.1/s"},
		{Rate(150), "150/s"},
		{Rate(1234), "1.23k/s"},
		{Rate(0.031), "1 per 32.3 s"},
		{Rate(0.5), "1 per 2 s"},
		{Rate(1.0 / 120), "1 per 2 min"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestFigure: three significant digits with the thousands separator Count uses, so a table
// of milliseconds does not write 1260 beside a count of 1,800 (issue 26 item 5).
func TestFigure(t *testing.T) {
	for x, want := range map[float64]string{0.182: "0.182", 41.23: "41.2", 412: "412", 1260: "1,260", 4123: "4,120", -1500: "-1,500", 1234567: "1,230,000"} {
		if got := Figure(x); got != want {
			t.Errorf("Figure(%g) = %q, want %q", x, got, want)
		}
	}
}
