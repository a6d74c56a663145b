package profile

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
	cdf, from, to := binomialCDF(n, p)
	// The true quantile is at or below the (n−a)-th sample when at least a+1 samples lie
	// above it: take the largest a with P(T ≤ a) ≤ tail, T ~ Binomial(n, p) counting the
	// samples above the quantile. The CDF rises with k, so both ranks are found by bisection:
	// O(log n) evaluations, where a walk of one rank per step took ≈35 s for the 10^15
	// samples a 4 KB crafted profile can claim (issue 17).
	hi := min(n, to)
	a := hi
	if k, ok := firstAbove(from, hi, func(k int64) bool { return cdf(k) > tail }); ok {
		a = k - 1
	}
	if a < 0 {
		highOpen = true
	} else {
		high = n - a
	}
	// It is at or above the (n−b)-th sample when at most b samples lie above it: the
	// smallest b with P(T ≤ b) ≥ 1 − tail (n when no b below n has it).
	b := a + 1
	if b < n {
		hi := min(n-1, to)
		k, ok := firstAbove(b, hi, func(k int64) bool { return cdf(k) >= 1-tail })
		switch {
		case ok:
			b = k
		case hi == n-1:
			b = n
		default:
			b = hi + 1
		}
	}
	low = max(n-b, 1)
	return low, high, highOpen
}

// firstAbove is the least k in [lo, hi] for which ok holds, and whether there is one; ok must
// be false up to some k and true from there on. hi may be math.MaxInt64.
func firstAbove(lo, hi int64, ok func(int64) bool) (int64, bool) {
	if lo > hi {
		return lo, false
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, ok(lo)
}

// binomialCDF returns k ↦ P(T ≤ k) for T ~ Binomial(n, p), and the range [from, to] outside
// which its CDF is indistinguishable from 0 (below) and 1 (above) for any tail asked for.
// Exact (a running sum of the probability mass) while n·p is small enough for (1−p)^n to be
// represented; beyond that the normal approximation with continuity correction, whose error
// is far below the resolution of the ranks it chooses when n·p·(1−p) is that large.
func binomialCDF(n int64, p float64) (cdf func(k int64) float64, from, to int64) {
	mean := float64(n) * p
	sd := math.Sqrt(mean * (1 - p))
	if mean > 500 {
		return func(k int64) float64 {
			return 0.5 * math.Erfc(-(float64(k)+0.5-mean)/(sd*math.Sqrt2))
		}, int64(max(mean-10*sd, 0)), clampRank(mean + 10*sd + 1)
	}
	// Cumulative sums are extended on demand and kept. Beyond mean + 40 sd + 40 (at most
	// ≈1,400) the mass left is below 10^-30 (a Chernoff bound): the CDF is 1 there, and the
	// sums never grow past it whatever rank the search asks for.
	limit := int64(mean + 40*sd + 40)
	pmf := math.Exp(float64(n) * math.Log1p(-p))
	sums := []float64{pmf}
	return func(k int64) float64 {
		if k >= limit {
			return 1
		}
		for int64(len(sums)) <= k {
			j := int64(len(sums) - 1)
			pmf *= float64(n-j) / float64(j+1) * p / (1 - p)
			sums = append(sums, sums[j]+pmf)
		}
		return math.Min(sums[k], 1)
	}, 0, limit
}

// clampRank converts a rank bound to int64, saturating where float64 passes math.MaxInt64.
func clampRank(v float64) int64 {
	if !(v < math.MaxInt64) {
		return math.MaxInt64
	}
	return int64(v)
}
