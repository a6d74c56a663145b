package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/patience-dev/patience/probe/probetest"
	"github.com/patience-dev/patience/profile"
)

// TestMergeHoldsOneProfileAtATime: `probe --merge` of many large profiles holds about one of
// them at a time (issue 24 item 4: it loaded every profile into a list before merging, and
// 40 × 15 MB profiles took 804 MB). Measured as live heap after a GC as each profile is
// added — allocation based, never wall-clock. With the list, the heap after the 40th of
// these 2 MB profiles holds all 40 (≈ 80 MB, more than the bound below).
func TestMergeHoldsOneProfileAtATime(t *testing.T) {
	srv, err := probetest.Start(probetest.Fast())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	save := filepath.Join(dir, "small.json")
	if code, _, errOut := runCmd(t, context.Background(), "", "probe", srv.URL+"/", "-c", "1", "-n", "20", "--save", save, "-q"); code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	r, err := profile.Load(save)
	if err != nil {
		t.Fatal(err)
	}
	// Padding a profile carries and a merge never keeps: 2 MiB of notes, decoded into
	// strings a Result holds for as long as it lives.
	const pad = 2 << 20
	for range 32 {
		r.Notes = append(r.Notes, strings.Repeat("n", pad/32))
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	args := []string{"probe", "--merge", "-o", "json"}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("p%02d.json", i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	b = nil
	r = nil
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	added := 0
	mergeAdded = func(k int) {
		added = k
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base {
			peak = max(peak, ms.HeapAlloc-base)
		}
	}
	defer func() { mergeAdded = nil }()
	code, out, errOut := runCmd(t, context.Background(), "", args...)
	if code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if added != n || !strings.Contains(out, fmt.Sprintf(`"merged": %d`, n)) {
		t.Fatalf("added %d profiles, output merged: %v", added, strings.Contains(out, `"merged"`))
	}
	// One profile's notes live while it is added; ten would already be a leak.
	if limit := uint64(10 * pad); peak > limit {
		t.Errorf("live heap grew by %d MiB while merging %d profiles of 2 MiB (bound %d MiB): profiles are kept", peak>>20, n, limit>>20)
	}
	t.Logf("peak live heap growth %.1f MiB over %d profiles of 2 MiB", float64(peak)/(1<<20), n)
}
