package cmd

import (
	"context"
	"errors"
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8/decor"
)

// LiveFlags are the flags `patience replay` gains for live replay over real sockets.
type LiveFlags struct {
	// Live replays against a real loopback server instead of simulating.
	Live bool
	// Speed divides every duration of the scenario and the policies in real time.
	Speed float64
	// Target is the base URL of a running `patience serve` (loopback only); "" starts one
	// in-process per policy.
	Target string
	// Parallel replays every policy at once instead of one after another: faster, but on a
	// busy machine the clients and servers compete for CPU and timeouts fire late.
	Parallel bool
}

// addLiveFlags registers --live, --speed and --target on `patience replay`.
func addLiveFlags(c *cobra.Command, o *LiveFlags) {
	fl := c.Flags()
	fl.BoolVar(&o.Live, "live", false, "replay over real sockets: a loopback patience serve per policy and a real net/http client per simulated client")
	fl.Float64Var(&o.Speed, "speed", 1, "with --live: divide every duration of the scenario and the policies by this factor in real time ("+speedRange+")")
	fl.StringVar(&o.Target, "target", "", "with --live: base URL of a running patience serve to replay against (loopback only)")
	fl.BoolVar(&o.Parallel, "parallel", false, "with --live: replay every policy at once (faster; less faithful on a busy machine)")
}

// checkLiveFlags rejects live-only flags given without --live: they would be silently ignored
// and the user would read a simulation as a live run.
func checkLiveFlags(c *cobra.Command, lf *LiveFlags) error {
	if lf.Live {
		return nil
	}
	for _, name := range []string{"speed", "target", "parallel"} {
		if c.Flags().Changed(name) {
			return UsageErrorf("--%s needs --live", name)
		}
	}
	return nil
}

// replayLiveWith runs the live replay of sc with the live flags lf: the same result schema
// as the simulation, mode "live". The real run time is printed on stderr before it starts
// (unless --quiet). A --target that is not loopback, or a bad --speed, is a usage error.
func replayLiveWith(ctx context.Context, opts *ReplayOptions, sc *scenario.Scenario, lf *LiveFlags) (*replay.Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := firstBadFlag(speedFactor(lf.Speed)); err != nil {
		return nil, UsageError(err)
	}
	if lf.Target != "" {
		if _, err := live.CheckTarget(lf.Target); err != nil {
			return nil, UsageError(err)
		}
	}
	var logw io.Writer = io.Discard
	if opts.IO != nil && !opts.IO.Quiet {
		logw = noteWriter(opts.IO)
	}
	// Policies run one after another unless --parallel: the agreement with the simulator
	// depends on timers firing on time (see live.Fidelity, reported on stderr).
	lopts := live.Options{Speed: lf.Speed, Target: lf.Target, Log: logw, Fidelity: &live.Fidelity{}, Sequential: !lf.Parallel}
	done := func(bool) {}
	if opts.IO != nil {
		lopts.Progress, done, lopts.Log = liveProgress(opts.IO, opts.Output, sc.Name, logw)
	}
	res, err := live.Replay(ctx, sc, lopts)
	done(err != nil)
	if errors.Is(err, live.ErrNotLoopback) {
		return nil, UsageError(err)
	}
	return res, err
}

// liveProgress draws a bar over a live replay's scenario time (live.Options.Progress): the
// estimate is said before it starts, the bar shows it going; live's notes written while the
// bar is up (its timer lateness) come after it is erased (progressBarLog).
func liveProgress(s *report.IOStreams, format, name string, log io.Writer) (func(done, total int), func(aborted bool), io.Writer) {
	label := "live " + report.Sanitize(name)
	if lipgloss.Width(label) > maxBarLabel {
		label = "live"
	}
	return progressBarLog(s, format, label, decor.NewPercentage("%d"), log)
}
