package probe

import "math"

// QuantileCI is the distribution-free confidence interval of the q-quantile of n samples,
// as ranks of the sorted samples (1 = fastest, n = slowest): the true quantile lies between
// the low-th and the high-th sample with probability at least level (two-sided, level/2
// a side). It needs no assumption about the latency distribution: the number of samples
// above the true quantile is Binomial(n, 1−q), whatever the shape of the tail.
//
// highOpen reports that no sample bounds the interval from above: so few samples are
// expected above the quantile (n·(1−q) small) that even the slowest one may lie below it —
// with n = 1/(1−q), the minimum to report the quantile at all, the chance that no sample
// lies above it is about 37%.
func QuantileCI(n int64, q, level float64) (low, high int64, highOpen bool) {
	if n <= 0 || !(q > 0 && q < 1) {
		return 0, 0, true
	}
	tail := (1 - level) / 2
	p := 1 - q
	cdf, from := binomialCDF(n, p)
	// The true quantile is at or below the (n−a)-th sample when at least a+1 samples lie
	// above it: take the largest a with P(T ≤ a) ≤ tail, T ~ Binomial(n, p) counting the
	// samples above the quantile.
	a := from - 1
	for k := from; k <= n && cdf(k) <= tail; k++ {
		a = k
	}
	if a < 0 {
		highOpen = true
	} else {
		high = n - a
	}
	// It is at or above the (n−b)-th sample when at most b samples lie above it: the
	// smallest b with P(T ≤ b) ≥ 1 − tail.
	b := a + 1
	for b < n && cdf(b) < 1-tail {
		b++
	}
	low = max(n-b, 1)
	return low, high, highOpen
}

// binomialCDF returns k ↦ P(T ≤ k) for T ~ Binomial(n, p), and a k from which to search
// (its CDF is far below any tail asked for). Exact (a running sum of the probability mass)
// while n·p is small enough for (1−p)^n to be represented; beyond that the normal
// approximation with continuity correction, whose error is far below the resolution of
// the ranks it chooses when n·p·(1−p) is that large.
func binomialCDF(n int64, p float64) (cdf func(k int64) float64, from int64) {
	mean := float64(n) * p
	if mean > 500 {
		sd := math.Sqrt(mean * (1 - p))
		return func(k int64) float64 {
			return 0.5 * math.Erfc(-(float64(k)+0.5-mean)/(sd*math.Sqrt2))
		}, int64(max(mean-10*sd, 0))
	}
	// Cumulative sums are extended on demand and kept: the callers walk k upwards.
	pmf := math.Exp(float64(n) * math.Log1p(-p))
	sums := []float64{pmf}
	return func(k int64) float64 {
		for int64(len(sums)) <= k {
			j := int64(len(sums) - 1)
			pmf *= float64(n-j) / float64(j+1) * p / (1 - p)
			sums = append(sums, sums[j]+pmf)
		}
		return math.Min(sums[k], 1)
	}, 0
}
