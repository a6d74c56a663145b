package cmd

import (
	"math"
	"testing"

	"github.com/patience-dev/patience/live"
)

// TestSpeedFactorIsLiveBound: --speed has one definition, the live package's: speedFactor
// accepts exactly [live.MinSpeed, live.MaxSpeed] (it had its own 0.01–1000 beside live's
// (0, 1000]).
func TestSpeedFactorIsLiveBound(t *testing.T) {
	for _, c := range []struct {
		v   float64
		bad bool
	}{
		{live.MinSpeed, false}, {live.MaxSpeed, false}, {1, false},
		{math.Nextafter(live.MinSpeed, 0), true}, {math.Nextafter(live.MaxSpeed, math.Inf(1)), true},
		{0, true}, {1e-308, true}, {math.NaN(), true}, {math.Inf(1), true},
	} {
		if got := speedFactor(c.v).bad; got != c.bad {
			t.Errorf("speedFactor(%g).bad = %v, want %v", c.v, got, c.bad)
		}
	}
	if speedRange != "0.01 to 1000" {
		t.Errorf("speedRange %q", speedRange)
	}
}
