package cmd

import (
	"strconv"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// The bounds of demo's probe stage: the demo is a tour of a loopback target, not a load
// test. 10000/s is fifty times the default and more than one loopback server answers on a
// shared machine; 10 minutes is 120 times the default 5 s. Beyond either, `patience probe`
// against the target is the tool. (--rate 1e12/s and --duration 10000h ran until
// interrupted.)
const (
	demoMaxRate     = 10_000 // requests per second
	demoMaxDuration = 10 * time.Minute
)

// demoProbeBounds are the bounds of demo's --rate (given as text, parsed as rate) and
// --duration, in --help's order: each positive and at most its maximum, and together at
// least one request on average (scenario.SparseRate: --rate 1e-12/s waited 1e12 s for its
// second request, past the 5 s the demo announced).
func demoProbeBounds(text string, rate float64, d time.Duration) []flagBound {
	return []flagBound{
		{flag: "--rate", value: text, bad: !(rate > 0), want: "want a positive rate, e.g. 200/s"},
		positiveDuration("--duration", d),
		{flag: "--rate", value: text, bad: rate > demoMaxRate, want: "want at most " + strconv.Itoa(demoMaxRate) + "/s in the demo (a load test is patience probe's job)"},
		{flag: "--duration", value: d.String(), bad: d > demoMaxDuration, want: "want at most " + scenario.FormatDuration(demoMaxDuration) + " in the demo (a load test is patience probe's job)"},
		{flag: "--rate", value: text, bad: scenario.SparseRate(rate, d) != "", want: scenario.SparseRate(rate, d)},
	}
}
