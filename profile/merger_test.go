package profile

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mergerProfile(t *testing.T, v float64, url string) *Profile {
	t.Helper()
	samples := make([]float64, 100)
	for i := range samples {
		samples[i] = v + float64(i%7)
	}
	m := &measurement{hists: set(samples...), status: map[string]int64{"200": 100}, errors: map[string]int64{"timeout": 1},
		samples: map[string]ErrorSample{}, requests: 101, responses: 100, durationMs: 1000,
		schedule: Schedule{RequestedPerS: ptr(100.0), AchievedPerS: 100, RateHeld: true, MaxInFlight: 10}}
	r, err := build(m, Profile{Target: Target{URL: url, Method: "GET"}, Model: "open", Conn: "reuse"}, RecommendParams{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMergerMatchesMerge: profiles added one at a time give what Merge gives the list, and
// Profile may be asked twice (or between adds) without changing what follows.
func TestMergerMatchesMerge(t *testing.T) {
	ps := []*Profile{mergerProfile(t, 10, "http://a/"), mergerProfile(t, 30, "http://a/"), mergerProfile(t, 50, "http://b/")}
	want, err := Merge(ps, RecommendParams{})
	if err != nil {
		t.Fatal(err)
	}
	g := NewMerger(RecommendParams{})
	for i, r := range ps {
		if err := g.Add(r); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Result(); err != nil { // between adds: must not disturb the sums
			t.Fatalf("after %d: %v", i+1, err)
		}
	}
	got, err := g.Result()
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := json.Marshal(want)
	gb, _ := json.Marshal(got)
	if diff := cmp.Diff(string(wb), string(gb)); diff != "" {
		t.Errorf("incremental merge differs from Merge (-want +got):\n%s", diff)
	}
	if got.Merged != 3 || got.Requests != 303 || got.Target.URL != "(several targets)" {
		t.Errorf("merged %d, requests %d, target %q", got.Merged, got.Requests, got.Target.URL)
	}
	if _, err := NewMerger(RecommendParams{}).Result(); err == nil || err.Error() != "nothing to merge" {
		t.Errorf("empty merger: %v", err)
	}
}

// TestMergerRefusalLeavesItUnchanged: a refused profile is named by position and adds
// nothing.
func TestMergerRefusalLeavesItUnchanged(t *testing.T) {
	g := NewMerger(RecommendParams{})
	if err := g.Add(mergerProfile(t, 10, "http://a/")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    *Profile
		want string
	}{
		{&Profile{Requests: 1}, "profile 2 has no per-phase histograms"},
		{&Profile{Requests: -1, Histograms: map[string]string{"x": ""}}, "profile 2: a negative count"},
		{&Profile{Requests: 1 << 53, Histograms: map[string]string{"x": ""}}, "profile 2: field requests: the merged total passes 2^53"},
		{&Profile{Histograms: map[string]string{SeriesGood: "not base64!"}}, "profile 2: histograms.good"},
	} {
		if err := g.Add(c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
	r, err := g.Result()
	if err != nil || r.Merged != 1 || r.Requests != 101 {
		t.Errorf("after refusals: %v, merged %d, requests %d", err, r.Merged, r.Requests)
	}
}

// TestMergerKeepsNoProfile: the merger holds no reference to a profile once added (issue 24
// item 4). 40 profiles, each carrying 2 MiB of notes, handed over one at a time and dropped:
// the live heap after a GC stays near one profile, not forty. Allocation based.
func TestMergerKeepsNoProfile(t *testing.T) {
	const n, pad = 40, 2 << 20
	base := mergerProfile(t, 10, "http://a/")
	next := func() *Profile {
		r := *base
		r.Notes = []string{strings.Repeat("n", pad)}
		return &r
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	g := NewMerger(RecommendParams{})
	var peak uint64
	for range n {
		if err := g.Add(next()); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > before {
			peak = max(peak, ms.HeapAlloc-before)
		}
	}
	if r, err := g.Result(); err != nil || r.Merged != n {
		t.Fatalf("%v, merged %d", err, r.Merged)
	}
	if peak > 4*pad {
		t.Errorf("live heap grew by %d MiB over %d profiles of 2 MiB: the merger keeps them", peak>>20, n)
	}
	runtime.KeepAlive(g)
}
