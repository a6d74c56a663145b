package timing

import (
	"testing"
	"time"
)

func TestP99(t *testing.T) {
	ms := time.Millisecond
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(99-i) * ms // 99 ms … 0 ms, unsorted
	}
	for _, tc := range []struct {
		name string
		in   []time.Duration
		want time.Duration
	}{
		{"none", nil, 0},
		{"one", []time.Duration{3 * ms}, 3 * ms},
		{"a hundred: the 100th smallest", hundred, 99 * ms},
		{"one late of two hundred", append(make([]time.Duration, 199), 50*ms), 0},
		{"three late of two hundred", append(make([]time.Duration, 197), 50*ms, 60*ms, 70*ms), 60 * ms},
	} {
		if got := p99(tc.in); got != tc.want {
			t.Errorf("%s: p99 %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestWatchSamples: a watch left 30 ms records sleeps (at least one) and reports a p99 no
// larger than the time it ran.
func TestWatchSamples(t *testing.T) {
	w := StartWatch()
	start := time.Now()
	time.Sleep(30 * time.Millisecond)
	p := w.Stop()
	if ran := time.Since(start); p < 0 || p > ran {
		t.Fatalf("p99 overshoot %s after %s", p, ran)
	}
}
