package policy

import (
	"strconv"
	"strings"
	"time"
)

// DescribeBackoff says the backoff and jitter of r in words, from its own values:
// "exponential base 100 ms ×2 cap 10 s, full jitter". Texts that name a backoff (a
// derivation, JSON, a help text) print this rather than retype the values.
func (r *Retry) DescribeBackoff() string {
	kind := r.Backoff
	if kind == "" {
		kind = BackoffNone
	}
	parts := []string{string(kind)}
	switch kind {
	case BackoffNone:
	case BackoffList:
		delays := make([]string, len(r.Delays))
		for i, d := range r.Delays {
			delays[i] = spokenDuration(d)
		}
		parts = append(parts, strings.Join(delays, ", "))
	default:
		parts = append(parts, "base "+spokenDuration(r.Base))
	}
	if kind == BackoffExponential {
		parts = append(parts, "×"+strconv.FormatFloat(r.Multiplier, 'g', -1, 64))
	}
	if r.Cap > 0 && kind != BackoffNone && kind != BackoffList {
		parts = append(parts, "cap "+spokenDuration(r.Cap))
	}
	return strings.Join(parts, " ") + ", " + describeJitter(r.Jitter, r.JitterFactor)
}

// describeJitter names a jitter kind, with its factor where it has one.
func describeJitter(j Jitter, factor float64) string {
	switch j {
	case "", JitterNone:
		return "no jitter"
	case JitterProportional, JitterRandomized:
		return string(j) + " jitter " + strconv.FormatFloat(factor*100, 'g', -1, 64) + "%"
	}
	return string(j) + " jitter"
}

// spokenDuration writes d as a person says it: "100 ms" below a second, "10 s" from one.
func spokenDuration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'g', -1, 64) + " ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'g', -1, 64) + " s"
}
