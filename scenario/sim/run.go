package sim

import (
	"context"
	"errors"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/scenario/policy"
)

// Options tune a Run.
type Options struct {
	// Progress, when set, is called after each policy with how many are done.
	Progress func(done, total int)
}

// Run simulates every policy of sc on the same arrivals and the same target draws (common
// random numbers), so differences between the policies come from the policies alone.
// When ctx is cancelled, Run returns the policies finished so far (Interrupted set) together
// with ctx's error.
func Run(ctx context.Context, sc *scenario.Scenario, opts Options) (*Result, error) {
	if sc == nil {
		return nil, errors.New("sim: nil scenario")
	}
	res := &Result{
		Schema:      Schema,
		Mode:        ModeSimulated,
		Scenario:    sc.Name,
		Description: sc.Description,
		Seed:        sc.Seed,
		DurationMs:  ms(sc.Duration),
		Policies:    make([]PolicyResult, 0, len(sc.Policies)),
	}
	for i, p := range sc.Policies {
		pr, err := RunPolicy(ctx, sc, p)
		if err != nil {
			res.Interrupted = true
			return res, err
		}
		res.Policies = append(res.Policies, pr)
		if opts.Progress != nil {
			opts.Progress(i+1, len(sc.Policies))
		}
	}
	return res, nil
}

// RunPolicy simulates one policy against sc's load and target. Storm's bisection calls it
// many times, so it allocates per concurrent request (free lists), not per request.
func RunPolicy(ctx context.Context, sc *scenario.Scenario, p *policy.Policy) (PolicyResult, error) {
	if err := validate(sc, p); err != nil {
		return PolicyResult{}, err
	}
	e := newEngine(sc, p)
	if err := e.run(ctx); err != nil {
		return PolicyResult{}, err
	}
	return e.res, nil
}

func validate(sc *scenario.Scenario, p *policy.Policy) error {
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
