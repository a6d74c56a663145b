package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/patience-dev/patience/demo"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
	"github.com/spf13/cobra"
)

// DemoOptions are the flags of `patience demo`.
type DemoOptions struct {
	IO     *report.IOStreams
	Ctx    context.Context
	Output string
	Seed   uint64
	// Rate is --rate as given ("200/s", or a bare 200 for per second).
	Rate     string
	Duration time.Duration
	// Speed is the time compression of the live replay stage; SpeedSet says --speed was
	// given, else the stage chooses it (demoSpeed).
	Speed    float64
	SpeedSet bool
}

// The live stage's speed when --speed is not given (live.ChooseSpeed): the fastest a quiet
// machine keeps faithful (the 4-minute scenario in 4 s), the slowest the tour waits for (12
// s), and the speed of a machine too busy for either, which the tour ran at before it chose.
const (
	demoFastest  = 60
	demoSlowest  = 20
	demoFallback = 30
	// demoCalibration is how long the live stage's trial takes (live.Trial).
	demoCalibration = live.TrialWarmup + live.TrialLength
)

// demoStep is one stage of the tour: it runs and fills its part of the demo document.
// Steps run in order; in text the command prints each stage as soon as it is done, in the
// other formats the whole document at the end.
type demoStep struct {
	name string
	run  func(ctx context.Context, opts *DemoOptions, d *demo.Result) error
}

// demoSteps is the tour, in the order of demo.Sections.
var demoSteps = []demoStep{
	{name: "probe", run: demoProbe},
	{name: "replay", run: demoReplay},
	{name: "live", run: demoLive},
}

// NewCmdDemo builds `patience demo`: the tour on embedded defaults, loopback only, offline.
func NewCmdDemo(f *Factory, runF func(*DemoOptions) error) *cobra.Command {
	opts := &DemoOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "demo",
		Short: "A tour on a built-in loopback target: probe it and get a timeout policy",
		Long: `Demo is the tour, on embedded defaults and loopback only: it needs no network and no
configuration.

1. It starts patience serve on the bundled ` + scenario.DefaultName + ` scenario (a delivery-date
   API, lognormal p50 80 ms, p99 400 ms, that will hang after a minute) on 127.0.0.1, probes it
   with the open model, and prints the latency report and the recommended timeouts.
2. It replays the scenario in the simulator: what no timeout, timeouts, and timeouts with a
   breaker and a fallback do to a checkout page when the API hangs.
3. It replays the same scenario live, over real loopback sockets with a real net/http client
   per web server, at --speed (every duration divided by it), and puts the simulated and live
   figures side by side. Without --speed it first runs a 1 s trial of the live part,
   measures how late the machine's timers fire in it, picks the fastest speed from 20 to 60
   that keeps the live run faithful, and says which and why.

-o json and -o markdown print the three stages as one document (schema patience/demo/v1).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = c.Context()
			opts.SpeedSet = c.Flags().Changed("speed")
			if runF != nil {
				return runF(opts)
			}
			return demoRun(opts)
		},
	}
	c.Flags().Uint64Var(&opts.Seed, "seed", 7, "seed of the demo target's latency")
	c.Flags().StringVar(&opts.Rate, "rate", "200/s", "probe sends per second: 200/s, 12000/m, or a bare number per second, at most "+strconv.Itoa(demoMaxRate)+"/s (200/s for 5 s backs a p99.9 with 1,000 samples)")
	c.Flags().DurationVar(&opts.Duration, "duration", 5*time.Second, "how long to probe, at most "+scenario.FormatDuration(demoMaxDuration))
	c.Flags().Float64Var(&opts.Speed, "speed", demoFallback, "time compression of the live replay, "+speedRange+"; without it the fastest from 20 to 60 the machine's timers keep faithful (the scenario's 5 minutes take 10 s at 30)")
	addOutputFlag(c, &opts.Output, report.DemoFormats.Names())
	return c
}

func demoRun(opts *DemoOptions) error {
	rate, err := scenario.ParseFlagRate(opts.Rate)
	if err != nil {
		return UsageErrorf("--rate %s", err)
	}
	if err := firstBadFlag(append(demoProbeBounds(opts.Rate, rate, opts.Duration), speedFactor(opts.Speed))...); err != nil {
		return UsageError(err)
	}
	render, err := report.DemoFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	d := &demo.Result{Schema: demo.Schema, RatePerS: rate, DurationMs: float64(opts.Duration) / float64(time.Millisecond), Speed: opts.Speed}
	if sc, err := scenario.Open(scenario.DefaultName); err == nil {
		announceDemo(opts, sc, rate)
	}
	text := opts.Output == "text"
	o := opts.IO.Options()
	var stepErr error
	printed := 0
	for _, s := range demoSteps {
		stepErr = s.run(ctx, opts, d)
		if text && d.Ran(s.name) {
			if printed > 0 {
				fmt.Fprintln(opts.IO.Out)
			}
			printed++
			if err := report.DemoSectionText(opts.IO.Out, d, s.name, o); err != nil {
				return err
			}
		}
		if stepErr != nil || ctx.Err() != nil {
			break
		}
	}
	if text && printed > 0 {
		if err := report.DemoLegend(opts.IO.Out, o); err != nil {
			return err
		}
	}
	if !text {
		if err := render(opts.IO.Out, d, o); err != nil {
			return err
		}
	}
	if stepErr != nil {
		return stepErr
	}
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	return nil
}

// demoTargetDescription says what the demo's target does, for the probe stage's sentence.
const demoTargetDescription = "a delivery-date API, lognormal p50 80 ms, p99 400 ms, that hangs from 1 min"

// demoProbe starts patience serve on the bundled default scenario, probes it before its
// incident begins, and fills the probe stage.
func demoProbe(ctx context.Context, opts *DemoOptions, d *demo.Result) error {
	sc, err := scenario.Open(scenario.DefaultName)
	if err != nil {
		return err
	}
	srv := live.NewServer(sc, live.ServerOptions{Speed: 1, Seed: int64(opts.Seed)})
	if err := srv.Start("127.0.0.1:0"); err != nil {
		return CannotMeasureError(fmt.Errorf("demo target: %w", err))
	}
	defer srv.Stop(time.Second)
	d.Target = demo.Target{Scenario: sc.Name, URL: srv.URL() + sc.Load.Request.Path, Description: demoTargetDescription}
	popts := &ProbeOptions{IO: opts.IO, Output: opts.Output}
	cfg := probe.Config{URL: d.Target.URL, Rate: d.RatePerS, Duration: opts.Duration, Conn: "both", Budget: 2 * time.Second}
	res, err := probeMeasure(ctx, popts, cfg)
	if err != nil {
		return err
	}
	d.Probe = res
	switch {
	case res.Interrupted:
		return ErrInterrupted
	case res.Unreachable || res.Responses == 0:
		return CannotMeasureError(fmt.Errorf("the demo target did not answer: %s", errorCounts(res.Errors)))
	}
	// A busy machine may miss the demo's rate; the report says so in its notes, and the
	// tour goes on rather than failing the README's first command.
	return nil
}

// demoReplay is the replay stage: the bundled default scenario (scenario.DefaultName),
// simulated.
func demoReplay(ctx context.Context, opts *DemoOptions, d *demo.Result) error {
	sc, err := scenario.Open(scenario.DefaultName)
	if err != nil {
		return err
	}
	progress, done := replayProgress(opts.IO, opts.Output, sc.Name)
	res, err := sim.Run(ctx, sc, sim.Options{Progress: progress})
	done(err != nil)
	d.Replay = res
	if err != nil {
		return stopped(err)
	}
	return nil
}

// demoLive replays the default scenario over real loopback sockets, beside the simulation.
func demoLive(ctx context.Context, opts *DemoOptions, d *demo.Result) error {
	sc, err := scenario.Open(scenario.DefaultName)
	if err != nil {
		return err
	}
	simRes := d.Replay
	if simRes == nil {
		if simRes, err = sim.Run(ctx, sc, sim.Options{}); err != nil {
			return err
		}
	}
	if err := demoSpeed(ctx, opts, d, sc); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	lopts := live.Options{Speed: d.Speed, Fidelity: &live.Fidelity{}}
	var logw io.Writer = io.Discard
	if !opts.IO.Quiet {
		logw = noteWriter(opts.IO)
	}
	progress, done, logw := liveProgress(opts.IO, opts.Output, sc.Name, logw)
	lopts.Progress, lopts.Log = progress, logw
	liveRes, err := live.Replay(ctx, sc, lopts)
	done(err != nil || (liveRes != nil && liveRes.Interrupted))
	if err != nil {
		return err
	}
	d.Live = live.NewAgreement(simRes, liveRes, d.Speed, float64(lopts.Fidelity.LatenessP99)/float64(time.Millisecond))
	if liveRes.Interrupted {
		return ErrInterrupted
	}
	return nil
}

// demoSpeed sets the live stage's speed and says why: --speed as given, or the one
// live.ChooseSpeed picks from the timer lateness a 1 s trial of the live stage measured
// (live.Trial of sc at the fastest speed). A trial that cannot run (a server that cannot
// start) stops the stage; an interrupted one leaves the caller to see ctx.
func demoSpeed(ctx context.Context, opts *DemoOptions, d *demo.Result, sc *scenario.Scenario) error {
	if opts.SpeedSet {
		d.Speed, d.SpeedReason = opts.Speed, "speed "+units.Sig(opts.Speed)+" as given with --speed"
		return nil
	}
	f, err := live.Trial(ctx, sc, demoFastest, live.TrialWarmup, live.TrialLength)
	if err != nil && ctx.Err() == nil {
		return err
	}
	choice := live.ChooseSpeed(f.LatenessP99, demoSlowest, demoFastest, demoFallback)
	d.Speed, d.SpeedReason = choice.Speed, choice.Why
	d.CalibrationLatenessP99Ms = float64(f.LatenessP99) / float64(time.Millisecond)
	return nil
}

// announceDemo says before the tour how long it should take: the probe, and the live replay
// at --speed, or between the fastest and the slowest speed the tour may choose.
func announceDemo(opts *DemoOptions, sc *scenario.Scenario, rate float64) {
	probe := fmt.Sprintf("probe %s at %s", units.Duration(opts.Duration), units.Rate(rate))
	if opts.SpeedSet {
		typical, _ := live.Estimate(sc, opts.Speed)
		announceDuration(opts.IO, opts.Duration+typical, fmt.Sprintf("%s, live replay %s at speed %s",
			probe, units.Duration(typical), units.Sig(opts.Speed)))
		return
	}
	quick, _ := live.Estimate(sc, demoFastest)
	slow, _ := live.Estimate(sc, demoSlowest)
	announceDuration(opts.IO, opts.Duration+demoCalibration+slow, fmt.Sprintf("%s, live replay %s to %s at a speed chosen for this machine",
		probe, units.Duration(quick), units.Duration(slow)))
}
