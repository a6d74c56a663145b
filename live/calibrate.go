package live

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/scenario"
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

// Trial measures the machine's timer lateness while it does the work itself: it replays sc
// at speed for warm+d of real time (the scenario's first (warm+d) × speed), measures the
// lateness over the last d (MeasureLateness beside the replay), then stops the replay and
// returns the measure. Unlike MeasureLateness on an idle process, it sees what the replay will compete
// for: a machine whose cores are busy keeps an idle timer on time (the kernel wakes a
// sleeper first) but not a replay's hundreds of goroutines.
func Trial(ctx context.Context, sc *scenario.Scenario, speed float64, warm, d time.Duration) (Fidelity, error) {
	tctx, cancel := context.WithTimeout(ctx, warm+d)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := Replay(tctx, sc, Options{Speed: speed})
		errc <- err
	}()
	var f Fidelity
	select {
	case <-time.After(warm):
		f = MeasureLateness(tctx, d)
	case err := <-errc:
		return f, err
	}
	err := <-errc
	if err != nil && ctx.Err() == nil && tctx.Err() != nil {
		err = nil // the trial's own end
	}
	return f, err
}

// TrialMargin is how much later than in its Trial timers may fire during the whole live
// replay: ChooseSpeed keeps the trial's lateness × TrialMargin × speed within
// FaithfulLatenessMs. Measured with bench/demo_margin.sh on 2 cores (docs/contributing.md):
// on a steady machine the whole replay ran 0.3–1.0× the trial's lateness (the trial, at the
// fastest speed, is the heavier run), and 0.1–5.3× while other work came and went, which
// nothing measured beforehand can foresee. 2 covers the steady case twice over; a run the
// machine slows down later is caught by the agreement's own test (NewAgreement), which
// judges the lateness measured during the run.
//
// The earlier measure, 0.5 s of an idle timer before the replay with a margin of 4, was
// wrong both ways: a quiet machine's replay ran 6–15× later than the idle timer (one run
// predicted faithful was not: 282 ms), and with two busy loops on two cores 13–52× (the
// kernel wakes a lone sleeper at once; the replay's goroutines queue behind the loops).
const TrialMargin = 2

// TrialWarmup and TrialLength are the Trial the demo runs before its live stage: the first
// half second (servers starting, the first connections) is busier than the rest and is
// not measured.
const (
	TrialWarmup = 500 * time.Millisecond
	TrialLength = 500 * time.Millisecond
)

// SpeedChoice is the speed ChooseSpeed picked and why.
type SpeedChoice struct {
	Speed float64
	// Faithful says the measured lateness predicts a faithful run at Speed (Agreement's
	// test, with TrialMargin); when false no speed in the range did, and Speed is the fallback.
	Faithful bool
	// Why is one sentence for the reader: the measure, and the speed it allows.
	Why string
}

// ChooseSpeed picks the time compression of a live replay from the timer lateness its Trial
// measured (real time, p99): the fastest speed in [slowest, fastest] at which that lateness,
// times TrialMargin, costs no more than FaithfulLatenessMs of
// scenario time — fast on a quiet machine, slower on a busy one. When even slowest would
// not keep time, it returns fallback, not faithful: a slower run would take longer and still
// not be a check of the model.
func ChooseSpeed(latenessP99 time.Duration, slowest, fastest, fallback float64) SpeedChoice {
	ms := math.Max(float64(latenessP99)/float64(time.Millisecond), 0.001)
	allowed := FaithfulLatenessMs / (ms * TrialMargin)
	measured := fmt.Sprintf("timers ran %s late (p99) in a 1 s trial of the live part", units.Duration(latenessP99))
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
