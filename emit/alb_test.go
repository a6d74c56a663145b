package emit_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/emit"
	"github.com/patience-dev/patience/profile"
)

// streamingProfile is a profile of 10,000 streams of 20 events whose first event takes
// firstMs for all but 0.05% of them (which take 2 × firstMs) and whose gaps take gapMs: what
// probe would have measured for a recommendation whose first-event timeout is above firstMs.
func streamingProfile(t *testing.T, firstMs, gapMs int64) *profile.Profile {
	t.Helper()
	rec := func(pairs ...int64) string {
		h := profile.NewHistogram()
		for i := 0; i+1 < len(pairs); i += 2 {
			if err := h.RecordValues(pairs[i], pairs[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		enc, err := profile.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		return enc
	}
	return &profile.Profile{Schema: profile.Schema, Histograms: map[string]string{
		profile.SeriesFirstEventFresh: rec(firstMs*1000, 9_995, 2*firstMs*1000, 5),
		profile.SeriesGapFresh:        rec(gapMs*1000, 190_000),
		profile.SeriesStreamTotal:     rec((firstMs+19*gapMs)*1000, 10_000),
		profile.SeriesStreamEvents:    rec(20, 10_000),
		profile.SeriesGood:            rec((firstMs+19*gapMs)*1000, 10_000),
	}}
}

// checkALB writes the Ingress text and a check file whose dependency streams through it, runs
// check with prof as the dependency's profile, and returns the findings as "file:line rule
// message" and the ALB layer read.
func checkALB(t *testing.T, ingress string, prof *profile.Profile) ([]string, check.ChainLayer) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"ingress.yaml": ingress,
		"patience.yaml": "dependencies:\n  - name: llm\n    profile: llm.json\n    request: {method: POST, idempotency_key: true}\n" +
			"    caller: {kind: interactive, budget: 10m}\n    via:\n      - {file: ingress.yaml}\n      - {self: true}\n" +
			"    policy: {timeout: 10m, retry: {max_attempts: 1}}\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := check.LoadPaths([]string{filepath.Join(dir, "patience.yaml")})
	if err != nil {
		t.Fatalf("LoadPaths: %v", err)
	}
	load := func(string) (*profile.Profile, error) { return prof, nil }
	res, err := check.Run(context.Background(), in.Files, check.Options{Configs: in.Configs, LoadProfile: load})
	if err != nil || res.Error != nil {
		t.Fatalf("check: %v %+v", err, res.Error)
	}
	var found []string
	for _, f := range res.Findings {
		found = append(found, filepath.Base(f.File)+":"+strconv.Itoa(f.Line)+" "+f.Rule+" "+f.Message)
	}
	return found, layerFrom(t, res, filepath.Join(dir, "ingress.yaml"))
}

// TestALBStream is the ALB's end of issue 29 item 2 and 4: a streaming recommendation's ALB
// Ingress carries the larger of its first-event and idle timeouts as the idle timeout (whole
// seconds, rounded up), check reads it back as timeouts.idle_ms, and PT017 — against a
// profile whose first events and gaps the recommendation covers — finds nothing; the same
// Ingress without the annotation, left to the ALB's 60 s, fires on first events of 80 s.
func TestALBStream(t *testing.T) {
	for _, fx := range streamFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			e, err := emit.Emit(emit.ALB, fx.in)
			if err != nil {
				t.Fatal(err)
			}
			a := fx.in.Rec.StreamAdvice
			wantIdle := math.Ceil(a.PerReadMs()/1000) * 1000
			// The profile the advice was made from, as far as the timeouts go: first events
			// and gaps below the first-event and idle timeouts.
			prof := streamingProfile(t, int64(*a.FirstEventTimeoutMs)/4, int64(*a.IdleTimeoutMs)/4)
			found, l := checkALB(t, e.Text, prof)
			if len(found) != 0 {
				t.Errorf("findings on the emitted Ingress:\n%s\n%s", strings.Join(found, "\n"), e.Text)
			}
			if l.Timeouts.IdleMs == nil || *l.Timeouts.IdleMs != wantIdle {
				t.Errorf("idle_ms read back %v, want %v", l.Timeouts.IdleMs, wantIdle)
			}
			if !strings.Contains(strings.Join(e.Missing, "\n"), "a separate first-event") {
				t.Errorf("missing does not say the first-event and idle timeouts share the idle timeout: %q", e.Missing)
			}
		})
	}
	e, err := emit.Emit(emit.ALB, streamFixtures()[0].in)
	if err != nil {
		t.Fatal(err)
	}
	bare := strings.Join(slicesDeleteLine(strings.Split(e.Text, "\n"), "alb.ingress.kubernetes.io/load-balancer-attributes:"), "\n")
	found, l := checkALB(t, bare, streamingProfile(t, 80_000, 100))
	if *l.Timeouts.IdleMs != 60_000 {
		t.Errorf("without the annotation idle_ms %v, want the ALB's 60000", *l.Timeouts.IdleMs)
	}
	if len(found) != 1 || !strings.Contains(found[0], "PT017 ALB llm: idle_timeout.timeout_seconds 1 min (ALB default") || !strings.Contains(found[0], "first event p99.9 = 1 min 20 s") {
		t.Errorf("ALB default under 80 s first events: want one PT017, got %q", found)
	}
}

// slicesDeleteLine drops the lines containing s.
func slicesDeleteLine(lines []string, s string) []string {
	var out []string
	for _, l := range lines {
		if !strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}
