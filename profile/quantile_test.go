package profile

import "testing"

// TestQuantileCI: the ranks bounding a quantile with 95% confidence. Expected values were
// computed apart from this code, by exact binomial sums in rational arithmetic (Python's
// fractions) and, for the two large cases, by summing the binomial mass in log space; the
// median rows are the textbook ones (n=10: 2nd and 9th; n=100: 40th and 61st samples).
func TestQuantileCI(t *testing.T) {
	for _, tc := range []struct {
		n         int64
		q         float64
		low, high int64
		open      bool
	}{
		{10, 0.5, 2, 9, false},
		{100, 0.5, 40, 61, false},
		{200, 0.99, 195, 0, true},
		{1000, 0.999, 997, 0, true}, // the minimum for a p99.9: nothing bounds it from above
		{2000, 0.99, 1971, 1989, false},
		{5000, 0.999, 4990, 5000, false},
		{10000, 0.999, 9983, 9997, false},
		{100000, 0.999, 99880, 99920, false},   // normal approximation (n·p = 100)…
		{1000000, 0.99, 989805, 990196, false}, // …and n·p = 10,000
	} {
		low, high, open := QuantileCI(tc.n, tc.q, 0.95)
		if low != tc.low || high != tc.high || open != tc.open {
			t.Errorf("QuantileCI(%d, %g) = %d, %d, open %v; want %d, %d, open %v", tc.n, tc.q, low, high, open, tc.low, tc.high, tc.open)
		}
	}
}
