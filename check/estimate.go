package check

import (
	"context"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// ReplayEstimate is what the scenarios a run replays (PT100) are expected to take, said
// before the first starts (Options.Estimate).
type ReplayEstimate struct {
	// Scenarios and Policies are the scenarios that loaded and their policies.
	Scenarios int
	Policies  int
	// Estimate is the time of their replays, one after the other: the sum of
	// sim.EstimateReplay over the scenarios, at this machine's speed.
	sim.Estimate
}

// EstimateReplays is what replaying scs one after the other takes at speed: sim's estimate
// of each (sim.EstimateReplay), summed.
func EstimateReplays(scs []*scenario.Scenario, speed sim.Speed) ReplayEstimate {
	var est ReplayEstimate
	for _, sc := range scs {
		est.Scenarios++
		est.Policies += len(sc.Policies)
		est.Estimate = est.Add(sim.EstimateReplay(sc, speed))
	}
	return est
}

// estimateReplays loads the scenarios of replays, keeping each for its replay (a file is
// read once), and gives their estimate to Options.Estimate: made at sim.NominalSpeed, then
// calibrated on this machine (sim.Expect, one worker: the replays run one after the other)
// unless far under Options.EstimateOver. A scenario that does not load, or that
// Options.Admit refuses, is left out: its replay reports the error where the check file
// lists it. Nothing is done without
// Options.Estimate, with another Replay, or with no scenario.
func (r *run) estimateReplays(ctx context.Context, replays []replayTask) {
	if r.opts.Estimate == nil || !r.simulated || len(replays) == 0 {
		return
	}
	var scs []*scenario.Scenario
	for _, t := range replays {
		if ctx.Err() != nil {
			return
		}
		sc, err := scenario.Open(t.ref.Path)
		if err != nil {
			continue
		}
		r.loaded[t.ref.Path] = append(r.loaded[t.ref.Path], sc)
		if r.opts.Admit != nil && r.opts.Admit(sc) != nil {
			continue // refused before it runs: nothing to wait for
		}
		scs = append(scs, sc)
	}
	est := EstimateReplays(scs, sim.NominalSpeed)
	est.Estimate = sim.Expect(ctx, est.Estimate, 1, r.opts.EstimateOver)
	r.opts.Estimate(est)
}

// take is the scenario estimateReplays loaded for the next replay of path, or nil.
func (r *run) take(path string) *scenario.Scenario {
	q := r.loaded[path]
	if len(q) == 0 {
		return nil
	}
	r.loaded[path] = q[1:]
	return q[0]
}
