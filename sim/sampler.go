package sim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// z99 is the standard normal quantile of 0.99, as in scenario's lognormal through p50/p99.
const z99 = 2.3263478740408408

// maxSample bounds a lognormal draw like scenario.Distribution.Sample does.
const maxSample = time.Duration(1e15)

// sampler draws from a distribution on the hot path. A lognormal's mu and sigma are worked
// out once instead of on every draw (two logarithms per sample otherwise); the draws are the
// same numbers Distribution.Sample gives for the same generator state, so the simulator and
// the live target agree. Other kinds go straight to Distribution.Sample.
type sampler struct {
	d         *scenario.Distribution
	lognormal bool
	mu, sigma float64
}

func newSampler(d *scenario.Distribution) *sampler {
	s := &sampler{d: d}
	if d.Kind == scenario.DistLognormal && d.P50 > 0 {
		s.lognormal = true
		s.mu = math.Log(float64(d.P50))
		s.sigma = (math.Log(float64(d.P99)) - s.mu) / z99
	}
	return s
}

func (s *sampler) sample(r *rand.Rand) time.Duration {
	if !s.lognormal {
		return s.d.Sample(r)
	}
	ns := math.Exp(s.mu + s.sigma*r.NormFloat64())
	if !(ns < float64(maxSample)) {
		return maxSample
	}
	if ns < 0 {
		return 0
	}
	return time.Duration(ns)
}
