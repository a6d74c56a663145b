package live

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// ChooseSpeed: the fastest speed in range on a quiet machine, the one that keeps the
// predicted scenario-time lateness (measure × TrialMargin × speed) within FaithfulLatenessMs
// on a busier one, and the fallback, not faithful, when even the slowest would not.
func TestChooseSpeed(t *testing.T) {
	for _, tc := range []struct {
		p99      time.Duration
		speed    float64
		faithful bool
		why      string
	}{
		{0, 60, true, "speed 60, the fastest the demo uses"},
		{500 * time.Microsecond, 60, true, "timers ran 0.5 ms late (p99) in a 1 s trial of the live part: speed 60"},
		{2 * time.Millisecond, 60, true, "speed 60, the fastest"},             // 250 / (2 × 2) = 62.5
		{4 * time.Millisecond, 31, true, "speed 31 keeps them within 250 ms"}, // 31.25
		{6 * time.Millisecond, 20, true, "speed 20 keeps them within 250 ms"}, // 20.8
		{7 * time.Millisecond, 30, false, "too busy for a faithful live run"}, // 17.9 < 20
		{time.Second, 30, false, "any speed down to 20; speed 30, and the simulation is the reference"},
	} {
		c := ChooseSpeed(tc.p99, 20, 60, 30)
		if c.Speed != tc.speed || c.Faithful != tc.faithful || !strings.Contains(c.Why, tc.why) {
			t.Errorf("p99 %v: %+v, want speed %g faithful %v and %q", tc.p99, c, tc.speed, tc.faithful, tc.why)
		}
		// What it predicts is what NewAgreement would judge at the margin it assumes.
		if tc.faithful && float64(tc.p99)/float64(time.Millisecond)*TrialMargin*c.Speed > FaithfulLatenessMs {
			t.Errorf("p99 %v: speed %g predicted faithful but NewAgreement would not judge it so", tc.p99, c.Speed)
		}
	}
}

// MeasureLateness measures for about the time asked, and stops early with its context.
func TestMeasureLateness(t *testing.T) {
	start := time.Now()
	f := MeasureLateness(context.Background(), 100*time.Millisecond)
	if el := time.Since(start); el < 100*time.Millisecond {
		t.Errorf("measured for %v, want at least 100 ms", el)
	}
	if f.Scale != 1 || f.LatenessMax < f.LatenessP99 {
		t.Errorf("fidelity %+v: want scale 1 and max ≥ p99", f)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan struct{})
	go func() {
		MeasureLateness(ctx, time.Hour)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("MeasureLateness did not stop with its context")
	}
}

// Trial replays for warm+d, measures only over d, returns without error at its own end,
// and stops early, with the context's error, when the context ends.
func TestTrial(t *testing.T) {
	sc, err := scenario.Open(scenario.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f, err := Trial(context.Background(), sc, 60, 50*time.Millisecond, 100*time.Millisecond)
	if err != nil {
		t.Fatalf("trial: %v", err)
	}
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Errorf("trial took %v, want at least warm-up + measure (150 ms)", el)
	}
	if f.Scale != 1 || f.LatenessMax < f.LatenessP99 {
		t.Errorf("fidelity %+v: want scale 1 (real time) and max ≥ p99", f)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Trial(ctx, sc, 60, time.Hour, time.Hour)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a cancelled trial returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Trial did not stop with its context")
	}
}
