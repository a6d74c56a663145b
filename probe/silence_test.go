package probe_test

import (
	"testing"
	"time"

	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/probe/probetest"
	"github.com/patience-dev/patience/profile"
)

// dripGap is the drip target's pause before each body byte. Long enough that a response
// read in one piece — its stamps would then show no pause — needs the probe's goroutine to
// stall for the whole drip (dripBytes × dripGap), not for a moment.
const (
	dripGap   = 50 * time.Millisecond
	dripBytes = 3
)

// TestSilenceDrip: against a target that sends its head at once and then drips its body a
// byte at a time, each after sleeping at least dripGap, every response's longest silence is
// a pause of the body: the silence phase holds one value per response, and none below
// dripGap. Only relations that a loaded machine keeps are asserted, no wall-clock upper
// bound: the server sleeps at least dripGap between two bytes; with the kernel's receive
// stamps (64-bit Linux, plain TCP: HTTP/1.1 and h2c here) a read is stamped when its last
// byte arrived, so two reads are never closer than the bytes they end with, and only a read
// of the whole body at once — the probe's goroutine stalled for all of dripBytes × dripGap —
// could hide every pause. Stamped on return instead (other systems), a read late by more
// than the next one can shorten the pause before that one, so there only the longest
// silence of the run is held to dripGap. Every pause lies inside its response's total, and
// every silence is at least its wait for the first byte.
func TestSilenceDrip(t *testing.T) {
	kernel := probe.KernelStamps(t)
	for _, tc := range []struct {
		name, http string
		chunked    bool
	}{
		{"http/1.1 content-length", "1.1", false},
		{"http/1.1 chunked", "1.1", true},
		{"h2c", "2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := probetest.Drip(dripGap, dripBytes, tc.chunked)
			url := start(t, h)
			if tc.http == "2" {
				url = startH2C(t, h)
			}
			r := run(t, probe.Config{URL: url + "/", Concurrency: 1, Requests: 4, Conn: "both", HTTP: tc.http})
			noErrors(t, r)
			checkDripSilence(t, r, kernel)
		})
	}
}

// checkDripSilence asserts what every drip run keeps, whatever path read it; kernel says
// whether its reads carried the kernel's receive stamps.
func checkDripSilence(t *testing.T, r *profile.Profile, kernel bool) {
	t.Helper()
	ph := r.Phases
	if ph.Silence == nil || ph.Silence.Count != r.Status["200"] || ph.Silence.Count == 0 {
		t.Fatalf("silence %+v for %d responses: want one per response", ph.Silence, r.Status["200"])
	}
	if ph.Silence.Fresh.Count+ph.Silence.Reused.Count != ph.Silence.Count {
		t.Errorf("silence fresh %d + reused %d, want %d", ph.Silence.Fresh.Count, ph.Silence.Reused.Count, ph.Silence.Count)
	}
	// HDR reports a bucket's lowest value as the minimum: at 3 significant digits at most
	// 0.1% below the sample.
	gap := float64(dripGap) / float64(time.Millisecond)
	least, which := ph.Silence.MinMs, "min"
	if !kernel {
		least, which = ph.Silence.MaxMs, "max"
	}
	if *least < gap*0.999 {
		t.Errorf("silence %s %.3f ms, below the %v the target sleeps between two bytes", which, *least, dripGap)
	}
	// Per response: silence ≥ its TTFB (the wait is part of it) and ≤ its total (every pause
	// lies inside the response), so the sorted values keep that order at every rank.
	for _, q := range []struct {
		name                 string
		ttfb, silence, total *float64
	}{
		{"min", ph.TTFB.MinMs, ph.Silence.MinMs, ph.Total.MinMs},
		{"p50", ph.TTFB.P50Ms, ph.Silence.P50Ms, ph.Total.P50Ms},
		{"max", ph.TTFB.MaxMs, ph.Silence.MaxMs, ph.Total.MaxMs},
	} {
		if *q.silence < *q.ttfb || *q.silence > *q.total {
			t.Errorf("%s: ttfb %.3f, silence %.3f, total %.3f ms: want ttfb ≤ silence ≤ total", q.name, *q.ttfb, *q.silence, *q.total)
		}
	}
	// The total runs through every pause: at least dripBytes of them.
	if m := *ph.Total.MinMs; m < gap*dripBytes*0.999 {
		t.Errorf("total min %.3f ms, below the %d × %v the target drips for", m, dripBytes, dripGap)
	}
	rec := r.Recommendation
	t.Logf("ttfb %.3f–%.3f ms, silence %.3f–%.3f ms, total %.3f–%.3f ms; %q",
		*ph.TTFB.MinMs, *ph.TTFB.MaxMs, *ph.Silence.MinMs, *ph.Silence.MaxMs, *ph.Total.MinMs, *ph.Total.MaxMs, rec.Derivation)
	if rec.ReadTimeoutMs == nil {
		t.Fatalf("no read timeout recommended: %q", rec.Derivation)
	}
	if read := *rec.ReadTimeoutMs; read > rec.TimeoutMs || read < *ph.Silence.MaxMs {
		t.Errorf("read timeout %g ms, total %g ms, longest silence %.3f ms: want longest silence ≤ read ≤ total", read, rec.TimeoutMs, *ph.Silence.MaxMs)
	}
	if _, ok := r.Histograms[profile.SeriesSilenceGood]; !ok {
		t.Errorf("no %s histogram in the profile", profile.SeriesSilenceGood)
	}
}

// TestSilenceFast: against a target that answers at once the silence is the wait for the
// response, never shorter than the TTFB, and the read timeout is never above the total.
func TestSilenceFast(t *testing.T) {
	r := run(t, probe.Config{URL: start(t, probetest.Fast()) + "/", Concurrency: 2, Requests: 40, Conn: "both"})
	noErrors(t, r)
	ph := r.Phases
	if ph.Silence.Count != 40 || *ph.Silence.MinMs < *ph.TTFB.MinMs || *ph.Silence.MaxMs < *ph.TTFB.MaxMs {
		t.Errorf("silence %+v, ttfb %+v: want 40 values, each at least its TTFB", ph.Silence, ph.TTFB)
	}
	if rec := r.Recommendation; rec.ReadTimeoutMs == nil || *rec.ReadTimeoutMs > rec.TimeoutMs {
		t.Errorf("read timeout %v, total %g: want one, at most the total", rec.ReadTimeoutMs, rec.TimeoutMs)
	}
}
