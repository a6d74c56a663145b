package sim

import (
	"context"
	"errors"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// Options tune a Run.
type Options struct {
	// Progress, when set, is called now and then with how far the run is: total is 1000 per
	// policy, done counts thousandths of each policy's simulated horizon.
	Progress func(done, total int)
}

// Run simulates every policy of sc on the same arrivals and the same target draws (common
// random numbers), so differences between the policies come from the policies alone.
// When ctx is cancelled, Run returns the policies finished so far (Interrupted set) together
// with ctx's error.
func Run(ctx context.Context, sc *scenario.Scenario, opts Options) (*replay.Result, error) {
	if sc == nil {
		return nil, errors.New("sim: nil scenario")
	}
	res := &replay.Result{
		Schema:      replay.Schema,
		Mode:        replay.ModeSimulated,
		Scenario:    sc.Name,
		Description: sc.Description,
		Seed:        sc.Seed,
		DurationMs:  ms(sc.Duration),
		Policies:    make([]replay.PolicyResult, 0, len(sc.Policies)),
	}
	res.IncidentEndMs = replay.IncidentEndMs(sc)
	res.Incidents = replay.IncidentsOf(sc)
	total := 1000 * len(sc.Policies)
	for i, p := range sc.Policies {
		var tick func(now, horizon time.Duration)
		if opts.Progress != nil {
			tick = func(now, horizon time.Duration) {
				opts.Progress(1000*i+int(1000*float64(now)/float64(horizon)), total)
			}
		}
		if err := ctx.Err(); err != nil {
			res.Interrupted = true
			return res, err
		}
		pr, _, err := runPolicy(ctx, sc, p, tick, true)
		if err != nil {
			res.Interrupted = true
			return res, err
		}
		res.Policies = append(res.Policies, pr)
		res.Lesson = replay.LessonOf(sc, res.Policies)
		if opts.Progress != nil {
			opts.Progress(1000*(i+1), total)
		}
	}
	return res, nil
}

// RunPolicy simulates one policy against sc's load and target. Storm's bisection calls it
// many times, so it allocates per concurrent request (free lists), not per request, and a
// run reuses the buffers of the runs before it (scratch.go).
func RunPolicy(ctx context.Context, sc *scenario.Scenario, p *policy.Policy) (replay.PolicyResult, error) {
	pr, _, err := runPolicy(ctx, sc, p, nil, true)
	return pr, err
}

// Recovers simulates one policy against sc and says whether it recovered after the last
// fault (replay's recovery rule, PolicyResult.Recovered): storm's stable_below_per_s search
// asks only that of each probe. The result is RunPolicy's, but nothing of it is kept, so the
// next run reuses its timeline too.
func Recovers(ctx context.Context, sc *scenario.Scenario, p *policy.Policy) (bool, error) {
	pr, _, err := runPolicy(ctx, sc, p, nil, false)
	return pr.Recovered, err
}

// Events simulates one policy against sc like RunPolicy and returns how many events the
// engine handled: the work EstimateRun predicts (tests and bench/estimate.sh compare them).
func Events(ctx context.Context, sc *scenario.Scenario, p *policy.Policy) (int64, error) {
	_, n, err := runPolicy(ctx, sc, p, nil, false)
	return n, err
}

// runPolicy runs p on sc; keep says the caller keeps the result's timeline (else it goes back
// to the scratch, and the result returned has none).
func runPolicy(ctx context.Context, sc *scenario.Scenario, p *policy.Policy, tick func(now, horizon time.Duration), keep bool) (replay.PolicyResult, int64, error) {
	if err := validate(sc, p); err != nil {
		return replay.PolicyResult{}, 0, err
	}
	s := getScratch()
	e := newEngine(sc, p, s)
	e.tick = tick
	err := e.run(ctx)
	res := e.res
	if !keep {
		res.Timeline = nil
	}
	// Only a run that returns gives its buffers back: after a panic they may be half
	// updated, and are left to the garbage collector.
	events := e.events
	e.release(s, keep)
	if err != nil {
		return replay.PolicyResult{}, 0, err
	}
	return res, events, nil
}

func validate(sc *scenario.Scenario, p *policy.Policy) error {
	if sc == nil {
		return errors.New("sim: nil scenario")
	}
	if p == nil {
		return errors.New("sim: nil policy")
	}
	for _, l := range p.Layers {
		if l.Policy == nil {
			return errors.New("sim: layer " + l.Name + " has no policy")
		}
	}
	ld := sc.Load
	if ld.Rate <= 0 && ld.Concurrency <= 0 && ld.Burst <= 0 {
		return errors.New("sim: scenario " + sc.Name + " has no load (rate, concurrency or burst)")
	}
	return nil
}
