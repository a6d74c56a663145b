package profile_test

import (
	"testing"
	"time"

	"github.com/patience-dev/patience/profile"
)

// TestRateRule (issue 24 item 11): the rate rule judges what a scheduler can promise. A run
// is short of its rate when the generator ended behind a perfect schedule by more than 1% of
// the sending window — taken over one second at least, so 10 ms — and by more than one send
// interval. One request sent 5 ms late used to fail a 3-request run at the default 10/s (3
// sends in 305 ms: 9.84/s, more than 1% short), exit 3; 12 of 24 short runs did at load 16.
func TestRateRule(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	for _, tc := range []struct {
		name   string
		rate   float64
		sends  int64
		window time.Duration
		kept   bool
	}{
		// Short runs: one interval or 10 ms of lag is what a loaded scheduler costs.
		{"3 at 10/s, last 5 ms late", 10, 3, ms(305), true},
		{"3 at 10/s, last 60 ms late", 10, 3, ms(360), true},
		{"3 at 10/s, last 100 ms late (one interval)", 10, 3, ms(400), true},
		{"3 at 10/s, last 101 ms late", 10, 3, ms(401), false},
		{"3 at 1000/s, last 9 ms late (under 10 ms)", 1000, 3, ms(12), true},
		{"3 at 1000/s, last 11 ms late", 1000, 3, ms(14), false},
		{"1 at 10/s, 50 ms late", 10, 1, ms(150), true},
		{"on schedule", 10, 200, ms(20000), true},
		// Long runs: the 1% rule as before (200/s for 60 s: 1% is 600 ms, 120 sends).
		{"200/s 60 s, 119 sends short", 200, 12000 - 119, ms(60000), true},
		{"200/s 60 s, 121 sends short", 200, 12000 - 121, ms(60000), false},
		{"10/s 100 s, 1% short exactly", 10, 990, ms(100000), true},
		{"10/s 100 s, 2% short", 10, 980, ms(100000), false},
		// Nothing sent is not a kept rate.
		{"nothing sent", 10, 0, 0, false},
	} {
		if got := profile.RateKept(tc.rate, tc.sends, tc.window); got != tc.kept {
			t.Errorf("%s: RateKept(%g/s, %d sends, %v) = %v, want %v", tc.name, tc.rate, tc.sends, tc.window, got, tc.kept)
		}
	}
}
