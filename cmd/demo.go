package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/probe/probetest"
	"github.com/patience-dev/patience/report"
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
}

// NewCmdDemo builds `patience demo`: the tour on embedded defaults, loopback only, offline.
func NewCmdDemo(f *Factory, runF func(*DemoOptions) error) *cobra.Command {
	opts := &DemoOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "demo",
		Short: "A tour on a built-in loopback target: probe it and get a timeout policy",
		Long: `Demo starts an in-process HTTP server on 127.0.0.1 whose latency is lognormal
(p50 about 40 ms, p99 about 300 ms) with about 1% 503s, all from a seeded RNG, probes it
with the open model and prints the report and the recommended timeouts. Then it replays the
bundled ` + "`" + `delivery-date-hang` + "`" + ` scenario (simulated, deterministic): what no timeout, timeouts, and
timeouts with a breaker and fallback do to a checkout page when an API hangs. It needs no
network and no configuration.`,
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
	c.Flags().Float64Var(&opts.Rate, "rate", 50, "probe sends per second")
	c.Flags().DurationVar(&opts.Duration, "duration", 5*time.Second, "how long to probe")
	addOutputFlag(c, &opts.Output, report.ProbeFormats.Names())
	return c
}

func demoRun(opts *DemoOptions) error {
	if opts.Rate <= 0 || opts.Duration <= 0 {
		return UsageErrorf("--rate and --duration must be positive")
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

// demoProbe probes the built-in lognormal target and prints the report.
func demoProbe(ctx context.Context, opts *DemoOptions) error {
	srv, err := probetest.Start(probetest.Lognormal(opts.Seed, 40*time.Millisecond, 300*time.Millisecond, 0.01))
	if err != nil {
		return CannotMeasureError(fmt.Errorf("demo target: %w", err))
	}
	defer srv.Close()
	render, err := report.ProbeFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	if !report.IsMachineFormat(opts.Output) {
		st := opts.IO.Options().Styles
		fmt.Fprintln(opts.IO.Out, st.Title.Render("patience demo · probe"))
		// One Render per line: lipgloss pads a multi-line block to its widest line.
		fmt.Fprintln(opts.IO.Out, st.Muted.Render(fmt.Sprintf(
			"A loopback server (%s) answers after a lognormal latency, p50 ≈ 40 ms, p99 ≈ 300 ms, with ~1%% 503s.", srv.URL)))
		fmt.Fprintln(opts.IO.Out, st.Muted.Render(fmt.Sprintf(
			"Probing it at %g/s for %s; every latency counts from its intended send time.", opts.Rate, opts.Duration)))
		fmt.Fprintln(opts.IO.Out)
	}
	popts := &ProbeOptions{IO: opts.IO, Output: opts.Output}
	cfg := probe.Config{URL: srv.URL + "/", Rate: opts.Rate, Duration: opts.Duration, Conn: "both", Budget: 2 * time.Second}
	res, err := probeMeasure(ctx, popts, cfg)
	if err != nil {
		return err
	}
	// The target is loopback, so this URL means nothing after the demo; say what it was.
	res.Target.URL = "demo target (lognormal p50 40 ms, p99 300 ms, 1% 503)"
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
