package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/scenario/sim"
)

// loadProfile reads a `probe --save` profile and returns its total-latency histogram
// (microseconds). It reads the JSON contract (patience/probe/v1) directly, so it depends
// only on probe's result type and histogram codec.
func loadProfile(path string) (*hdrhistogram.Histogram, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read profile %s: %v", path, err)
	}
	var res probe.Result
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("profile %s is not a probe profile: %v", path, err)
	}
	if res.Schema != probe.Schema {
		return nil, fmt.Errorf("profile %s has schema %q, want %q (save one with patience probe URL --save FILE)", path, res.Schema, probe.Schema)
	}
	if res.Histogram == "" {
		return nil, fmt.Errorf("profile %s has no histogram (save one with patience probe URL --save FILE)", path)
	}
	h, err := probe.DecodeHistogram(res.Histogram)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %v", path, err)
	}
	return h, nil
}

// replayScenario loads the scenario at path with the scenario loader and replays every
// policy in the simulator.
func replayScenario(ctx context.Context, path string) (*Replay, error) {
	sc, err := scenario.Open(path)
	if err != nil {
		return nil, err
	}
	res, err := sim.Run(ctx, sc, sim.Options{})
	if err != nil {
		return nil, err
	}
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
	return out, nil
}
