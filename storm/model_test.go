package storm

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseWindow(t *testing.T) {
	tests := []struct {
		in      string
		want    Window
		wantErr string
	}{
		{"10s@60s", Window{At: 60 * time.Second, For: 10 * time.Second}, ""},
		{" 1m30s@0 ", Window{At: 0, For: 90 * time.Second}, ""},
		{"250ms@1s", Window{At: time.Second, For: 250 * time.Millisecond}, ""},
		{"10s", Window{}, "LENGTH@START"},
		{"0s@10s", Window{}, "must be positive"},
		{"10@60s", Window{}, "no unit"},
		{"10s@x", Window{}, "start"},
		{"-1s@1s", Window{}, "negative"},
		{"100h@1s", Window{}, "longer than"},
	}
	for _, tt := range tests {
		got, err := ParseWindow(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseWindow(%q) error = %v, want it to mention %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseWindow(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseAttempts(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"4", []int{4}, ""},
		{"4,4,4", []int{4, 4, 4}, ""},
		{" 3, 6 ", []int{3, 6}, ""},
		{"x", nil, "not a whole number"},
		{"4,,4", nil, "not a whole number"},
		{"0", nil, "between 1 and 100"},
		{"101", nil, "between 1 and 100"},
		{"", nil, "empty"},
		{"1,1,1,1,1,1,1,1,1", nil, "at most 8 layers"},
	}
	for _, tt := range tests {
		got, err := ParseAttempts(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseAttempts(%q) error = %v, want it to mention %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("ParseAttempts(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"10s@60s", "1m@0", "@", "10s@", "1h@1h", "-5s@1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWindow(s)
		if err != nil {
			return
		}
		if w.For <= 0 || w.At < 0 || w.For > maxModelTime || w.At > maxModelTime {
			t.Fatalf("ParseWindow(%q) = %+v: out of range", s, w)
		}
	})
}

func FuzzParseAttempts(f *testing.F) {
	for _, s := range []string{"4", "4,4,4", "3,6", "x", "0", ",", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		as, err := ParseAttempts(s)
		if err != nil {
			return
		}
		if len(as) == 0 || len(as) > maxLayers {
			t.Fatalf("ParseAttempts(%q) = %v", s, as)
		}
		for _, a := range as {
			if a < 1 || a > maxAttemptsPerLayer {
				t.Fatalf("ParseAttempts(%q) = %v: value out of range", s, as)
			}
		}
	})
}

func TestServerFor(t *testing.T) {
	tests := []struct {
		capacity float64
		workers  int
	}{
		{300, 30},
		{7, 1},
		{2000, 200},
		{0.5, 1},
	}
	for _, tt := range tests {
		w, s := ServerFor(tt.capacity)
		if w != tt.workers {
			t.Errorf("ServerFor(%g) workers = %d, want %d", tt.capacity, w, tt.workers)
		}
		got := float64(w) / s.Seconds()
		if d := got - tt.capacity; d > 1e-6*tt.capacity || d < -1e-6*tt.capacity {
			t.Errorf("ServerFor(%g) = %d workers × %s = %g/s", tt.capacity, w, s, got)
		}
	}
}

func TestModelValidate(t *testing.T) {
	m := DefaultModel()
	if err := m.Validate(); err != nil {
		t.Fatalf("default model: %v", err)
	}
	// A run too short to judge recovery still runs: amplification and load are answered,
	// and the verdict says recovery was not judged (issue 12).
	short := DefaultModel()
	short.Duration = 60 * time.Second
	if err := short.Validate(); err != nil {
		t.Errorf("60s run after a stall ending at 40s: err = %v, want it to run", err)
	}
	tight := DefaultModel()
	tight.CapacityPerS = 0.5 // one worker serving 2 s per request
	if err := tight.Validate(); err == nil || !strings.Contains(err.Error(), "shorter than one service time") {
		t.Errorf("timeout below service time: err = %v", err)
	}
}

func TestModelScenario(t *testing.T) {
	m := DefaultModel()
	m.Errors = []Window{{At: 100 * time.Second, For: 5 * time.Second}}
	sc := m.Scenario(Mitigations(m.Attempts, DefaultTimeout))
	if got, ok := CapacityOf(sc); !ok || got < 299.999 || got > 300.001 {
		t.Errorf("capacity = %g, %v; want 300", got, ok)
	}
	if sc.Target.Capacity.Queue != UnboundedQueue {
		t.Errorf("queue = %d, want unbounded", sc.Target.Capacity.Queue)
	}
	if len(sc.Target.Phases) != 2 || !sc.Target.Phases[0].Stall || sc.Target.Phases[1].Faults[0].Status != 503 {
		t.Errorf("phases = %+v", sc.Target.Phases)
	}
	if got := sc.Target.LastPhaseEnd(); got != 105*time.Second {
		t.Errorf("last fault end = %s, want 105s", got)
	}
	kinds := []string{}
	for _, tr := range Triggers(sc) {
		kinds = append(kinds, tr.Kind)
	}
	if !cmp.Equal(kinds, []string{"stall", "errors"}) {
		t.Errorf("trigger kinds = %v", kinds)
	}
}
