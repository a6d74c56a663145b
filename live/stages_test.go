package live

import (
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// TestSpeedInRange: the one speed check, which Replay and cmd's --speed bound ask.
func TestSpeedInRange(t *testing.T) {
	for _, c := range []struct {
		speed float64
		ok    bool
	}{
		{MinSpeed, true}, {1, true}, {MaxSpeed, true},
		{0, false}, {-1, false}, {MinSpeed / 2, false}, {math.Nextafter(MaxSpeed, math.Inf(1)), false},
		{math.Inf(1), false}, {math.Inf(-1), false}, {math.NaN(), false},
	} {
		if got := SpeedInRange(c.speed); got != c.ok {
			t.Errorf("SpeedInRange(%g) = %v, want %v", c.speed, got, c.ok)
		}
	}
}

// TestSpeedOrDefault: an unset speed (0 or below) is real time.
func TestSpeedOrDefault(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0, 1}, {-3, 1}, {0.5, 0.5}, {30, 30}} {
		if got := speedOrDefault(c.in); got != c.want {
			t.Errorf("speedOrDefault(%g) = %g, want %g", c.in, got, c.want)
		}
	}
}

// TestDrawsOf: a request takes the simulator's draws for its attempt only with a numeric
// logical id (tagged or not) and an attempt index; otherwise the server draws its own.
func TestDrawsOf(t *testing.T) {
	sc := &scenario.Scenario{Name: "s", Seed: 3, Target: scenario.Target{Connect: fixed(time.Millisecond)}}
	s := NewServer(sc, ServerOptions{})
	for _, c := range []struct {
		name    string
		logical string
		attempt string
		wantID  uint64
		wantJ   uint64
		common  bool
	}{
		{"tagged id and attempt", "p1:42", "2", 42, 2, true},
		{"bare id", "7", "0", 7, 0, true},
		{"no attempt header", "p1:42", "", 0, 0, false},
		{"attempt not a number", "p1:42", "x", 0, 0, false},
		{"attempt over 32 bits", "p1:42", "4294967296", 0, 0, false},
		{"key as logical id", "order-17", "1", 0, 0, false},
		{"no logical id", "", "1", 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			if c.attempt != "" {
				r.Header.Set(AttemptHeader, c.attempt)
			}
			got := s.drawsOf(r, c.logical)
			if !c.common {
				if got != nil {
					t.Fatalf("draws %+v, want the server's own (nil)", got)
				}
				return
			}
			want := attemptDraws(sc, sc.Seed, c.wantID, c.wantJ)
			if got == nil || got.u != want.u || got.connect != want.connect {
				t.Fatalf("draws %+v, want attempt %d of request %d: %+v", got, c.wantJ, c.wantID, want)
			}
		})
	}
}
