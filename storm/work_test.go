package storm

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"
)

// Options.Work is called before the first simulation ends, with a total that never changes,
// and then after every simulation: done only grows, stays below total until the last policy
// is complete, and ends at total — on one worker and on several.
func TestWorkProgress(t *testing.T) {
	for _, parallel := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallel=%d", parallel), func(t *testing.T) {
			m := DefaultModel()
			sc := m.Scenario(Mitigations(m.Attempts, time.Second)[:3])
			f := &fakeEngine{threshold: map[string]float64{"retries": 80, "no-retries": 250, "jitter": 1e9}, rates: map[string][]float64{}}
			var mu sync.Mutex
			var calls [][2]int
			res, err := Run(context.Background(), sc, Options{Bisect: true, Parallel: parallel, engine: f.run,
				Work: func(done, total int) {
					mu.Lock()
					calls = append(calls, [2]int{done, total})
					mu.Unlock()
				}})
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) == 0 || calls[0][0] != 0 {
				t.Fatalf("calls %v: want a first call at 0 before any simulation", calls)
			}
			total := calls[0][1]
			c := *res.CapacityPerS
			want := 0
			for range sc.Policies {
				want += 1 + searchProbes(c*DefaultTolerance, c, c*DefaultTolerance)
			}
			if total != want {
				t.Errorf("total %d, want %d (a run and the most probes of a search per policy)", total, want)
			}
			runs := 0
			for _, p := range res.Policies {
				runs += 1 + p.Bisection.Runs
			}
			if int(f.calls.Load()) < runs || len(calls) < runs+1 {
				t.Errorf("%d calls for %d simulations (%d kept): want one at the start and one per kept simulation", len(calls), f.calls.Load(), runs)
			}
			for i, c := range calls {
				if c[1] != total {
					t.Errorf("call %d: total %d, want %d throughout", i, c[1], total)
				}
				if i > 0 && c[0] < calls[i-1][0] {
					t.Errorf("call %d: done %d after %d: went back", i, c[0], calls[i-1][0])
				}
			}
			if last := calls[len(calls)-1]; last[0] != total {
				t.Errorf("last call %v: want done = total", last)
			}
		})
	}
}

// searchProbes bounds what Bisect takes, for brackets whose answer is anywhere in them.
func TestSearchProbesBoundsBisect(t *testing.T) {
	for _, tc := range []struct{ lo, hi, tol float64 }{{6, 300, 6}, {0.47, 300, 0.47}, {1, 2, 0.01}, {5, 300, 1}} {
		bound := searchProbes(tc.lo, tc.hi, tc.tol)
		for k := 0; k <= 40; k++ {
			threshold := tc.lo * 0.5 * math.Pow(tc.hi/tc.lo*4, float64(k)/40)
			b, err := Bisect(context.Background(), func(_ context.Context, r float64) (bool, error) { return r < threshold, nil }, tc.lo, tc.hi, tc.tol)
			if err != nil {
				t.Fatal(err)
			}
			if b.Runs > bound {
				t.Errorf("bracket %v threshold %g: %d runs > searchProbes %d", tc, threshold, b.Runs, bound)
			}
		}
	}
}
