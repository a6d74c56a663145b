package policy

import (
	"testing"
	"time"
)

func TestDescribeBackoff(t *testing.T) {
	for _, tc := range []struct {
		r    Retry
		want string
	}{
		{Retry{Backoff: BackoffExponential, Base: 100 * time.Millisecond, Multiplier: 2, Cap: 10 * time.Second, Jitter: JitterFull},
			"exponential base 100 ms ×2 cap 10 s, full jitter"},
		{Retry{Backoff: BackoffExponential, Base: 10 * time.Second, Multiplier: 3, Cap: 600 * time.Second, Jitter: JitterProportional, JitterFactor: 0.25},
			"exponential base 10 s ×3 cap 600 s, proportional jitter 25%"},
		{Retry{Backoff: BackoffConstant, Base: 1500 * time.Millisecond}, "constant base 1.5 s, no jitter"},
		{Retry{Backoff: BackoffList, Delays: []time.Duration{time.Second, 2 * time.Second}, Jitter: JitterEqual}, "list 1 s, 2 s, equal jitter"},
		{Retry{}, "none, no jitter"},
	} {
		if got := tc.r.DescribeBackoff(); got != tc.want {
			t.Errorf("DescribeBackoff(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}
