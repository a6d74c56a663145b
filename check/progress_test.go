package check

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Options.Progress follows the replays of a run's scenarios: a total of ReplayUnits per
// scenario from the first call, done never going back and through each replay (the
// simulator's own progress), and at the total at the end.
func TestRunProgress(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"one", "two"} {
		p := filepath.Join(dir, name+".yaml")
		sc := "name: " + name + "\nduration: 2m\nload: {rate: 50/s}\ntarget:\n  latency: {fixed: 10ms}\npolicies:\n  - {name: a, timeout: 1s}\n  - {name: b, timeout: 2s}\n"
		if err := os.WriteFile(p, []byte(sc), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	f, err := Load("patience.yaml", []byte("scenarios: ["+paths[0]+", "+paths[1]+"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var calls [][2]int
	res, err := Run(context.Background(), []*File{f}, Options{Progress: func(done, total int) {
		calls = append(calls, [2]int{done, total})
	}})
	if err != nil || res.Summary.Scenarios != 2 {
		t.Fatalf("err %v, %d scenarios", err, res.Summary.Scenarios)
	}
	const total = 2 * ReplayUnits
	inside := map[int]bool{}
	for i, c := range calls {
		if c[1] != total {
			t.Errorf("call %d: total %d, want %d", i, c[1], total)
		}
		if i > 0 && c[0] < calls[i-1][0] {
			t.Errorf("call %d: done %d after %d", i, c[0], calls[i-1][0])
		}
		if c[0]%ReplayUnits != 0 {
			inside[c[0]/ReplayUnits] = true
		}
	}
	if len(calls) == 0 || calls[0][0] != 0 || calls[len(calls)-1][0] != total {
		t.Fatalf("calls %v: want from 0 to %d", calls, total)
	}
	if !inside[0] || !inside[1] {
		t.Errorf("no progress inside a replay (scenarios with some: %v) in %d calls", inside, len(calls))
	}
}

// A run that lists no scenario does not call Progress.
func TestRunProgressNoScenario(t *testing.T) {
	f, err := Load("patience.yaml", []byte("dependencies:\n  - name: search\n    policy: {timeout: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	called := false
	if _, err := Run(context.Background(), []*File{f}, Options{Progress: func(int, int) { called = true }}); err != nil {
		t.Fatal(err)
	}
	if called {
		t.Error("Progress called for a run with no scenario")
	}
}
