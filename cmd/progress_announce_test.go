package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/sim"
	"github.com/patience-dev/patience/storm"
)

// point is an estimate with no spread.
func point(d time.Duration) sim.Estimate { return sim.Estimate{Time: d, Low: d, High: d} }

// A storm expected to take longer than announceLongerThan says so on stderr before it runs,
// with what it runs on; a short one, or -q, says nothing.
func TestAnnounceStorm(t *testing.T) {
	m := storm.DefaultModel()
	sc := m.Scenario(storm.Mitigations(m.Attempts, time.Second))
	for _, tc := range []struct {
		est   sim.Estimate
		quiet bool
		want  string
	}{
		{point(25 * time.Second), false, "about 25 s (6 policies and their stable-rate searches on 2 cores)"},
		{sim.Estimate{Time: 20 * time.Second, Low: 9 * time.Second, High: 40 * time.Second}, false, "about 9–40 s (6 policies and their stable-rate searches on 2 cores)"},
		{point(5 * time.Second), false, ""},
		{point(25 * time.Second), true, ""},
	} {
		var errOut bytes.Buffer
		s := &report.IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut, ErrWidth: 100, Quiet: tc.quiet}
		announceStorm(s, sc, tc.est, true, 2)
		if got := strings.TrimSpace(errOut.String()); got != tc.want {
			t.Errorf("%+v quiet %v: stderr %q, want %q", tc.est, tc.quiet, got, tc.want)
		}
	}
}

// check says up front how long its replays should take when that is above
// announceLongerThan; short replays and -q get no line. (Whether it is asked at all — a
// terminal, a format for people — is checkEstimate's.)
func TestAnnounceReplays(t *testing.T) {
	long := check.ReplayEstimate{Scenarios: 2, Policies: 7, Estimate: point(25 * time.Second)}
	for _, tc := range []struct {
		name  string
		est   check.ReplayEstimate
		quiet bool
		want  string
	}{
		{"long", long, false, "about 25 s (2 scenarios, 7 policies)"},
		{"one of each", check.ReplayEstimate{Scenarios: 1, Policies: 1, Estimate: point(90 * time.Second)}, false, "about 1 min 30 s (1 scenario, 1 policy)"},
		{"short", check.ReplayEstimate{Scenarios: 1, Policies: 2, Estimate: point(3 * time.Second)}, false, ""},
		{"quiet", long, true, ""},
	} {
		var errOut bytes.Buffer
		s := &report.IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut, ErrWidth: 100, StderrTTY: true, Quiet: tc.quiet}
		announceReplays(s, tc.est)
		if got := strings.TrimSpace(errOut.String()); got != tc.want {
			t.Errorf("%s: stderr %q, want %q", tc.name, got, tc.want)
		}
	}
}

// An estimate is said to the second, as a range where the run may tip either way (its High
// more than 1.5 times its Low).
func TestEstimateProse(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		est  sim.Estimate
		want string
	}{
		{point(25 * s), "25 s"},
		{point(300 * time.Millisecond), "1 s"},
		{sim.Estimate{Time: 12 * s, Low: 10 * s, High: 14 * s}, "12 s"},
		{sim.Estimate{Time: 5 * s, Low: 3 * s, High: 8 * s}, "3–8 s"},
		{sim.Estimate{Time: 20 * s, Low: 400 * time.Millisecond, High: 40 * s}, "1–40 s"},
		{sim.Estimate{Time: 70 * s, Low: 50 * s, High: 130 * s}, "50 s to 2 min 10 s"},
		{sim.Estimate{Time: 90 * s}, "1 min 30 s"},
	} {
		if got := estimateProse(tc.est); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.est, got, tc.want)
		}
	}
}

// check asks for its estimate only where its bar is drawn: a terminal, without -q, in a
// format for people; in a CI log or a JSON run the line would only be noise.
func TestCheckEstimateWhere(t *testing.T) {
	for _, tc := range []struct {
		tty, quiet bool
		format     string
		want       bool
	}{
		{true, false, "text", true},
		{true, false, "markdown", true},
		{true, true, "text", false},
		{true, false, "json", false},
		{true, false, "sarif", false},
		{false, false, "text", false},
	} {
		s := &report.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}, StderrTTY: tc.tty, Quiet: tc.quiet}
		estimate, over := checkEstimate(s, tc.format)
		if got := estimate != nil; got != tc.want || (tc.want && over != announceLongerThan) {
			t.Errorf("tty %v quiet %v -o %s: asked %v (over %v), want %v", tc.tty, tc.quiet, tc.format, got, over, tc.want)
		}
	}
}
