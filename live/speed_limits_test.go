package live

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/patience-dev/patience/scenario"
)

// TestReplaySpeedBounds: Replay refuses a speed outside [MinSpeed, MaxSpeed], the bound
// cmd's --speed checks (issue 24 item 6: the library took (0, 1000], so 1e-308 passed it).
// A scenario without load passes the speed check and stops at the next one.
func TestReplaySpeedBounds(t *testing.T) {
	sc := &scenario.Scenario{Name: "s"}
	for _, c := range []struct {
		speed float64
		ok    bool
	}{
		{MinSpeed, true}, {1, true}, {MaxSpeed, true}, {0, true}, // 0 means the default, 1
		{1e-308, false}, {MinSpeed / 2, false}, {math.Nextafter(MaxSpeed, math.Inf(1)), false},
		{math.Inf(1), false}, {math.NaN(), false}, {-2, true}, // negative: the default, as 0
	} {
		_, err := Replay(context.Background(), sc, Options{Speed: c.speed})
		ranged := err != nil && strings.Contains(err.Error(), "out of range [0.01, 1000]")
		if ranged == c.ok {
			t.Errorf("speed %g: %v", c.speed, err)
		}
	}
}
