package live

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/patience-dev/patience/internal/units"
)

// MeasureLateness measures the machine's timer lateness for d (a 5 ms timer, as Fidelity
// measures it during a replay), or until ctx ends. A command runs it before a live replay
// to choose a speed the machine can keep (ChooseSpeed).
func MeasureLateness(ctx context.Context, d time.Duration) Fidelity {
	var f Fidelity
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchClock(stop, &f, 1)
	}()
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
	close(stop)
	<-done
	return f
}

// LoadMargin is how much later timers fire during a live replay than in the measure before
// it (MeasureLateness): the replay's own clients and servers load the machine. ChooseSpeed
// keeps the measured lateness × LoadMargin × speed within FaithfulLatenessMs.
const LoadMargin = 4

// SpeedChoice is the speed ChooseSpeed picked and why.
type SpeedChoice struct {
	Speed float64
	// Faithful says the measured lateness predicts a faithful run at Speed (Agreement's
	// test, with LoadMargin); when false no speed in the range did, and Speed is the fallback.
	Faithful bool
	// Why is one sentence for the reader: the measure, and the speed it allows.
	Why string
}

// ChooseSpeed picks the time compression of a live replay from the timer lateness measured
// before it (real time, p99): the fastest speed in [slowest, fastest] at which that lateness,
// times LoadMargin for the replay's own load, costs no more than FaithfulLatenessMs of
// scenario time — fast on a quiet machine, slower on a busy one. When even slowest would
// not keep time, it returns fallback, not faithful: a slower run would take longer and still
// not be a check of the model.
func ChooseSpeed(latenessP99 time.Duration, slowest, fastest, fallback float64) SpeedChoice {
	ms := math.Max(float64(latenessP99)/float64(time.Millisecond), 0.001)
	allowed := FaithfulLatenessMs / (ms * LoadMargin)
	measured := fmt.Sprintf("timers ran %s late (p99) before the live part", units.Duration(latenessP99))
	switch {
	case allowed >= fastest:
		return SpeedChoice{Speed: fastest, Faithful: true,
			Why: fmt.Sprintf("%s: speed %s, the fastest the demo uses, keeps them within %d ms of scenario time", measured, units.Sig(fastest), FaithfulLatenessMs)}
	case allowed >= slowest:
		s := math.Floor(allowed)
		return SpeedChoice{Speed: s, Faithful: true,
			Why: fmt.Sprintf("%s: speed %s keeps them within %d ms of scenario time", measured, units.Sig(s), FaithfulLatenessMs)}
	}
	return SpeedChoice{Speed: fallback,
		Why: fmt.Sprintf("%s: the machine is too busy for a faithful live run at any speed down to %s; speed %s, and the simulation is the reference", measured, units.Sig(slowest), units.Sig(fallback))}
}
