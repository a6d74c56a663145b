package conformance

import (
	"testing"
	"time"

	backoffv4 "github.com/cenkalti/backoff/v4"
	backoffv5 "github.com/cenkalti/backoff/v5"

	"github.com/patience-dev/patience/policy"
)

// fakeClock is a backoff/v4 Clock the test advances.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// TestCenkaltiIntervals samples NewExponentialBackOff's NextBackOff (v4.3.0 and v5.0.3, their
// defaults) for retries 1–8 and compares each with the cenkalti preset's wait.
func TestCenkaltiIntervals(t *testing.T) {
	const n = 3000
	p := preset(t, "cenkalti")
	o := policy.Outcome{Kind: policy.Status, Status: 503}
	sc := presetSchedule(p, policy.Request{}, time.Time{}, reply{status: 503})
	for _, version := range []string{"v4.3.0", "v5.0.3"} {
		for retry := 1; retry <= 8; retry++ {
			lib := make([]time.Duration, n)
			for i := range lib {
				var d time.Duration
				if version == "v4.3.0" {
					b := backoffv4.NewExponentialBackOff()
					for range retry {
						d = b.NextBackOff()
					}
				} else {
					b := backoffv5.NewExponentialBackOff()
					for range retry {
						d = b.NextBackOff()
					}
				}
				lib[i] = d
			}
			pre := presetWaits(p, o, retry, n, uint64(retry))
			ok, why := sampleStats(lib, pre, sc.lo[retry-1], sc.hi[retry-1])
			record(t, "cenkalti", version+" interval distribution, retries 1-8", ok, "retry %d: %s", retry, why)
		}
	}
}

// TestCenkaltiGiveUp: v4's MaxElapsedTime (15m) against the preset's deadline. With instant
// operations the retry count until Stop depends only on the draws, so both are run with their
// randomization at the ends the preset's schedule uses: the library with RandomizationFactor 0
// (the midpoint) against the preset without jitter.
func TestCenkaltiGiveUp(t *testing.T) {
	clk := &fakeClock{now: time.Unix(0, 0)}
	b := backoffv4.NewExponentialBackOff()
	b.RandomizationFactor, b.Clock = 0, clk
	b.Reset()
	libRetries := 0
	for {
		d := b.NextBackOff()
		if d == backoffv4.Stop {
			break
		}
		libRetries++
		clk.now = clk.now.Add(d)
	}
	p := preset(t, "cenkalti")
	p.Retry.Jitter = policy.JitterNone
	c := policy.NewCall(p, policy.Request{}, 0)
	now := time.Duration(0)
	preRetries := 0
	for {
		d := c.Next(now, policy.Outcome{Kind: policy.Status, Status: 503}, nil, time.Time{}, nil)
		if !d.Retry {
			break
		}
		preRetries++
		now += d.Wait
	}
	record(t, "cenkalti", "v4.3.0 gives up after 15m elapsed", libRetries == preRetries, "library %d retries, preset %d", libRetries, preRetries)
}
