package scenario

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/profile"
)

// z99 is the standard normal quantile of 0.99: a lognormal through p50 and p99 has
// sigma = (ln p99 − ln p50) / z99.
const z99 = 2.3263478740408408 // the one copy: sim and storm use Distribution's methods

// profileSteps is how many equal-probability steps the inverse CDF of a profile holds
// (1001 quantiles, 0‰ … 1000‰); sampling interpolates linearly between neighbours.
const profileSteps = 1000

// maxSample bounds a draw so a heavy lognormal tail cannot overflow time.Duration
// (about 11.6 days: longer than any drain).
const maxSample = time.Duration(1e15)

// Sample draws one latency. It is the only randomness a distribution uses, so a seeded
// *rand.Rand makes runs reproducible.
func (d *Distribution) Sample(r *rand.Rand) time.Duration {
	switch d.Kind {
	case DistFixed, "":
		return d.Fixed
	case DistUniform:
		return d.Min + time.Duration(r.Float64()*float64(d.Max-d.Min))
	case DistExponential:
		return clampSample(float64(d.Min) + r.ExpFloat64()*float64(d.ExpMean))
	case DistLognormal:
		mu, sigma := d.lognormal()
		return clampSample(math.Exp(mu + sigma*r.NormFloat64()))
	case DistProfile:
		return d.profileAt(r.Float64())
	}
	return d.Fixed
}

// Quantile is the exact q-quantile (0 ≤ q ≤ 1) of the distribution; reports and tests use it.
// The exponential's q=1 is unbounded and returns the sampling bound.
func (d *Distribution) Quantile(q float64) time.Duration {
	q = math.Min(1, math.Max(0, q))
	switch d.Kind {
	case DistUniform:
		return d.Min + time.Duration(q*float64(d.Max-d.Min))
	case DistExponential:
		if q == 1 {
			return maxSample
		}
		return clampSample(float64(d.Min) - math.Log1p(-q)*float64(d.ExpMean))
	case DistLognormal:
		if q == 0 {
			return 0
		}
		if q == 1 {
			return maxSample
		}
		mu, sigma := d.lognormal()
		return clampSample(math.Exp(mu + sigma*math.Sqrt2*math.Erfinv(2*q-1)))
	case DistProfile:
		return d.profileAt(q)
	}
	return d.Fixed
}

// lognormal returns mu and sigma of ln(latency in ns): mu = ln p50,
// sigma = (ln p99 − ln p50) / z99.
func (d *Distribution) lognormal() (mu, sigma float64) {
	if d.lnSet {
		return d.lnMu, d.lnSigma
	}
	mu = math.Log(float64(d.P50))
	return mu, (math.Log(float64(d.P99)) - mu) / z99
}

// Mean is the distribution's mean: exact for fixed, uniform, exponential and lognormal
// (exp(μ + σ²/2)), the mean of 1000 mid-point quantiles for a measured profile.
func (d *Distribution) Mean() time.Duration {
	switch d.Kind {
	case DistFixed, "":
		return d.Fixed
	case DistUniform:
		return (d.Min + d.Max) / 2
	case DistExponential:
		return d.Min + d.ExpMean
	case DistLognormal:
		if d.P50 <= 0 || d.P99 <= d.P50 {
			return d.P50
		}
		mu, sigma := d.lognormal()
		return time.Duration(math.Exp(mu + sigma*sigma/2))
	}
	const n = 1000
	sum := 0.0
	for i := 0; i < n; i++ {
		sum += float64(d.Quantile((float64(i) + 0.5) / n))
	}
	return time.Duration(sum / n)
}

// Prepared returns a copy of d with a lognormal's parameters worked out once (as the loader
// does), so a hand-built Distribution draws on the hot path without two logarithms per
// sample. The draws are the same numbers d.Sample gives for the same generator state.
func (d Distribution) Prepared() Distribution {
	if d.Kind == DistLognormal && !d.lnSet {
		d.lnMu, d.lnSigma = d.lognormal()
		d.lnSet = true
	}
	return d
}

// Lognormal builds the lognormal distribution through p50 and p99 with its parameters
// precomputed (a hand-built Distribution{Kind: DistLognormal, ...} works too, a little slower).
func Lognormal(p50, p99 time.Duration) Distribution {
	d := Distribution{Kind: DistLognormal, P50: p50, P99: p99}
	d.lnMu, d.lnSigma = d.lognormal()
	d.lnSet = true
	return d
}

// profileAt is the inverse CDF of a loaded profile at u in [0, 1], interpolated between the
// precomputed quantiles.
func (d *Distribution) profileAt(u float64) time.Duration {
	n := len(d.quantiles)
	if n == 0 {
		return 0
	}
	if n == 1 {
		return d.quantiles[0]
	}
	x := u * float64(n-1)
	i := int(x)
	if i >= n-1 {
		return d.quantiles[n-1]
	}
	frac := x - float64(i)
	lo, hi := d.quantiles[i], d.quantiles[i+1]
	return lo + time.Duration(frac*float64(hi-lo))
}

func clampSample(ns float64) time.Duration {
	if !(ns < float64(maxSample)) { // also catches NaN and +Inf
		return maxSample
	}
	if ns < 0 {
		return 0
	}
	return time.Duration(ns)
}

// String describes the distribution the way a scenario file writes it.
func (d *Distribution) String() string {
	switch d.Kind {
	case DistUniform:
		return fmt.Sprintf("uniform [%s, %s]", d.Min, d.Max)
	case DistExponential:
		return fmt.Sprintf("exponential min %s mean %s", d.Min, d.ExpMean)
	case DistLognormal:
		return fmt.Sprintf("lognormal p50 %s p99 %s", d.P50, d.P99)
	case DistProfile:
		return "profile " + d.Profile
	}
	return fmt.Sprintf("fixed %s", d.Fixed)
}

// ProfileDistribution builds a profile distribution from a latency histogram whose values are
// microseconds (probe's convention), precomputing its inverse CDF. path labels it.
func ProfileDistribution(h *hdrhistogram.Histogram, path string) (Distribution, error) {
	if h == nil || h.TotalCount() == 0 {
		return Distribution{}, errors.New("the profile's histogram holds no samples")
	}
	q := make([]time.Duration, profileSteps+1)
	for i := range q {
		var us int64
		switch i {
		case 0:
			us = h.Min()
		case profileSteps:
			us = h.Max()
		default:
			// ValueAtQuantile takes a percentile (0–100).
			us = h.ValueAtQuantile(100 * float64(i) / profileSteps)
		}
		q[i] = profileValue(us)
	}
	// ValueAtQuantile reports a bucket's highest equivalent value, which can exceed the next
	// step's; keep the inverse CDF monotone.
	for i := 1; i < len(q); i++ {
		if q[i] < q[i-1] {
			q[i] = q[i-1]
		}
	}
	return Distribution{Kind: DistProfile, Profile: path, quantiles: q}, nil
}

// profileValue converts a histogram value (µs) to a sample, clamped to [0, maxSample]: a
// value past 2^63 ns would wrap to a negative duration (issue 17: a profile with values past
// ≈292 years crashed the simulator).
func profileValue(us int64) time.Duration {
	if us <= 0 {
		return 0
	}
	if us >= int64(maxSample/time.Microsecond) {
		return maxSample
	}
	return time.Duration(us) * time.Microsecond
}

// loadProfile reads the total-latency histogram of a probe profile (the JSON written by
// `patience probe --save`; values in microseconds) through package probe, so the profile
// format has one reader.
func loadProfile(path string) (Distribution, error) {
	// Only regular files: a scenario naming /dev/stdin or a FIFO must not block the loader.
	if fi, err := os.Stat(path); err != nil {
		return Distribution{}, err
	} else if !fi.Mode().IsRegular() {
		return Distribution{}, fmt.Errorf("%s is not a regular file", path)
	}
	r, err := profile.Load(path)
	if err != nil {
		return Distribution{}, err
	}
	h, err := r.TotalHistogram()
	if err != nil {
		return Distribution{}, fmt.Errorf("%s: %v", path, err)
	}
	return ProfileDistribution(h, path)
}
