package check

import (
	"context"
	"errors"
	"fmt"
	"os"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// loadProfile reads a `probe --save` profile (profile.Load), naming a file it cannot read.
func loadProfile(path string) (*profile.Profile, error) {
	res, err := profile.Load(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("cannot read profile %s: %v", path, pe.Err)
		}
		return nil, err
	}
	return res, nil
}

// profileHistogram is the histogram PT010 reads from a profile: its good responses, else all.
func profileHistogram(res *profile.Profile) (*hdrhistogram.Histogram, error) {
	if good, ok := res.Histograms[profile.SeriesGood]; ok {
		return profile.DecodeHistogram(good)
	}
	return res.TotalHistogram()
}

// silenceHistogram is the histogram PT016 reads from a profile: the longest silence of each
// good response (profile.SeriesSilenceGood); nil when the profile measured none (advise from
// logs that bound no silence, or a profile saved before silences were recorded).
func silenceHistogram(res *profile.Profile) (*hdrhistogram.Histogram, error) {
	s, ok := res.Histograms[profile.SeriesSilenceGood]
	if !ok {
		return nil, nil
	}
	return profile.DecodeHistogram(s)
}

// profileLoader is loadProfile, with StdinName standing for stdin when it is set.
func profileLoader(stdin *profile.Profile) func(string) (*profile.Profile, error) {
	if stdin == nil {
		return loadProfile
	}
	return func(path string) (*profile.Profile, error) {
		if path == StdinName {
			return stdin, nil
		}
		return loadProfile(path)
	}
}

// replayScenario loads the scenario at path with the scenario loader (unless sc is it,
// loaded already) and replays every policy in the simulator, once admit (when set) accepts it.
func replayScenario(ctx context.Context, path string, sc *scenario.Scenario, admit func(*scenario.Scenario) error, progress func(done, total int)) (*Replay, error) {
	if sc == nil {
		var err error
		if sc, err = scenario.Open(path); err != nil {
			return nil, err
		}
	}
	if admit != nil {
		if err := admit(sc); err != nil {
			return nil, err
		}
	}
	res, err := sim.Run(ctx, sc, sim.Options{Progress: progress})
	if err != nil && (res == nil || ctx.Err() == nil) {
		return nil, err
	}
	// Interrupted (err is ctx's): the policies that finished, with the error.
	out := &Replay{Scenario: sc.Name, File: sc.File, Expect: sc.Expect}
	for _, p := range res.Policies {
		out.Policies = append(out.Policies, ReplayedPolicy{
			Name:             p.Name,
			SuccessRate:      p.SuccessRate,
			Amplification:    p.Amplification,
			Duplicates:       float64(p.Duplicates),
			WorkerSaturation: p.WorkerSaturation,
		})
	}
	return out, err
}
