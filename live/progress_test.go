package live

import (
	"context"
	"sync"
	"testing"

	"github.com/patience-dev/patience/scenario"
)

const progressScenario = `name: progress
seed: 1
duration: 20s
drain: 2s
load: {clients: 1, workers: 10, rate: 20/s}
target:
  latency: {fixed: 10ms}
policies:
  - {name: a, timeout: 1s}
  - {name: b, timeout: 2s}
`

// Options.Progress is called while a live replay runs, not only at its end: with the total
// of every policy's arrivals from the first call, done never going back, below the total
// until the end, and at the total once every policy is over — one after another and at once.
func TestReplayProgress(t *testing.T) {
	sc, err := scenario.Parse([]byte(progressScenario), "progress.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, sequential := range []bool{true, false} {
		var mu sync.Mutex
		var calls [][2]int
		// 20 s of arrivals at speed 20: 1 s of real time per policy, about 5 calls each.
		_, err := Replay(context.Background(), sc, Options{Speed: 20, Sequential: sequential, Progress: func(done, total int) {
			mu.Lock()
			calls = append(calls, [2]int{done, total})
			mu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		total := 2 * 20000
		if len(calls) < 4 {
			t.Fatalf("sequential %v: %d calls %v, want several during the run", sequential, len(calls), calls)
		}
		between := 0
		for i, c := range calls {
			if c[1] != total {
				t.Errorf("sequential %v call %d: total %d, want %d", sequential, i, c[1], total)
			}
			if i > 0 && c[0] < calls[i-1][0] {
				t.Errorf("sequential %v call %d: done %d after %d", sequential, i, c[0], calls[i-1][0])
			}
			if i < len(calls)-1 && c[0] >= total {
				t.Errorf("sequential %v call %d: done %d reached the total before the end", sequential, i, c[0])
			}
			if c[0] > 0 && c[0] < total {
				between++
			}
		}
		if between < 2 {
			t.Errorf("sequential %v: %d calls between start and end %v, want the bar to move", sequential, between, calls)
		}
		if last := calls[len(calls)-1]; last[0] != total {
			t.Errorf("sequential %v: last call %v, want done = total", sequential, last)
		}
	}
}
