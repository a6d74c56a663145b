package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/sim"
	"github.com/spf13/cobra"
)

// DemoOptions are the flags of `patience demo`.
type DemoOptions struct {
	IO       *report.IOStreams
	Ctx      context.Context
	Output   string
	Seed     uint64
	Rate     float64
	Duration time.Duration
	// Speed is the time compression of the live replay stage.
	Speed float64
}

// demoStep is one stage of the tour. Steps run in order; each prints its own section. Later
// stages (replaying a bundled scenario, a storm) are appended to demoSteps.
type demoStep struct {
	name string
	run  func(ctx context.Context, opts *DemoOptions) error
}

// demoSteps is the tour, in order.
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
   figures side by side.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = c.Context()
			if runF != nil {
				return runF(opts)
			}
			return demoRun(opts)
		},
	}
	c.Flags().Uint64Var(&opts.Seed, "seed", 7, "seed of the demo target's latency")
	c.Flags().Float64Var(&opts.Rate, "rate", 200, "probe sends per second (200/s for 5 s backs a p99.9 with 1,000 samples)")
	c.Flags().DurationVar(&opts.Duration, "duration", 5*time.Second, "how long to probe")
	c.Flags().Float64Var(&opts.Speed, "speed", 30, "time compression of the live replay (the scenario's 5 minutes take 10 s at 30)")
	addOutputFlag(c, &opts.Output, report.ProbeFormats.Names())
	return c
}

func demoRun(opts *DemoOptions) error {
	if opts.Rate <= 0 || opts.Duration <= 0 {
		return UsageErrorf("--rate and --duration must be positive")
	}
	if !(opts.Speed > 0) || opts.Speed > 1000 {
		return UsageErrorf("--speed %g: want a factor in (0, 1000]", opts.Speed)
	}
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	for _, s := range demoSteps {
		if err := s.run(ctx, opts); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ErrInterrupted
		}
	}
	return nil
}

// demoProbe starts patience serve on the bundled default scenario, probes it before its
// incident begins, and prints the report.
func demoProbe(ctx context.Context, opts *DemoOptions) error {
	sc, err := scenario.Open(scenario.DefaultName)
	if err != nil {
		return err
	}
	srv := live.NewServer(sc, live.ServerOptions{Speed: 1, Seed: int64(opts.Seed)})
	if err := srv.Start("127.0.0.1:0"); err != nil {
		return CannotMeasureError(fmt.Errorf("demo target: %w", err))
	}
	defer srv.Stop(time.Second)
	render, err := report.ProbeFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	if !report.IsMachineFormat(opts.Output) {
		st := opts.IO.Options().Styles
		fmt.Fprintln(opts.IO.Out, st.Title.Render("patience demo · probe"))
		// One Render per line: lipgloss pads a multi-line block to its widest line.
		fmt.Fprintln(opts.IO.Out, st.Muted.Render(fmt.Sprintf(
			"patience serve %s (%s): a delivery-date API, lognormal p50 80 ms, p99 400 ms; it hangs from 1m.", sc.Name, srv.URL())))
		fmt.Fprintln(opts.IO.Out, st.Muted.Render(fmt.Sprintf(
			"Probing it at %g/s for %s; every latency counts from its intended send time.", opts.Rate, opts.Duration)))
		fmt.Fprintln(opts.IO.Out)
	}
	popts := &ProbeOptions{IO: opts.IO, Output: opts.Output}
	cfg := probe.Config{URL: srv.URL() + sc.Load.Request.Path, Rate: opts.Rate, Duration: opts.Duration, Conn: "both", Budget: 2 * time.Second}
	res, err := probeMeasure(ctx, popts, cfg)
	if err != nil {
		return err
	}
	// The target is loopback, so this URL means nothing after the demo; say what it was.
	res.Target.URL = "patience serve " + sc.Name + sc.Load.Request.Path
	if err := render(opts.IO.Out, res, opts.IO.Options()); err != nil {
		return err
	}
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

// demoLive replays the default scenario over real loopback sockets and shows the simulated
// and live figures side by side.
func demoLive(ctx context.Context, opts *DemoOptions) error {
	sc, err := scenario.Open(scenario.DefaultName)
	if err != nil {
		return err
	}
	simRes, err := sim.Run(ctx, sc, sim.Options{})
	if err != nil {
		return err
	}
	render, err := report.AgreementFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	if !report.IsMachineFormat(opts.Output) {
		st := opts.IO.Options().Styles
		fmt.Fprintln(opts.IO.Out)
		fmt.Fprintln(opts.IO.Out, st.Title.Render("patience demo · live"))
		fmt.Fprintln(opts.IO.Out, st.Muted.Render(fmt.Sprintf(
			"The same scenario over real loopback sockets: patience serve per policy, a net/http client per web server, every duration ÷ %g.", opts.Speed)))
		fmt.Fprintln(opts.IO.Out)
	}
	lopts := live.Options{Speed: opts.Speed, Fidelity: &live.Fidelity{}}
	if !opts.IO.Quiet {
		lopts.Log = opts.IO.ErrOut
	}
	liveRes, err := live.Replay(ctx, sc, lopts)
	if err != nil {
		return err
	}
	agreement := &report.Agreement{Schema: "patience/agreement/v1", Simulated: simRes, Live: liveRes, Speed: opts.Speed,
		TimerLatenessP99Ms: float64(lopts.Fidelity.LatenessP99) / float64(time.Millisecond)}
	if err := render(opts.IO.Out, agreement, opts.IO.Options()); err != nil {
		return err
	}
	if liveRes.Interrupted {
		return ErrInterrupted
	}
	return nil
}
