package cmd

import (
	"context"
	"fmt"
	"github.com/charmbracelet/lipgloss"
	"strings"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
	"github.com/patience-dev/patience/storm"
	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8/decor"
)

// ReplayOptions are the flags of `patience replay`.
type ReplayOptions struct {
	IO *report.IOStreams
	// Scenario is a file path or a bundled name; "" = scenario.DefaultName.
	Scenario string
	// Policies replace the scenario's policies: files or preset:NAME.
	Policies []string
	// Chains replace them too: FILE#DEPENDENCY, a check file's dependency whose via: chain
	// of real configs becomes the layered policy replayed (check.ChainPolicy).
	Chains []string
	// Seed overrides the scenario's seed when SeedSet.
	Seed    int64
	SeedSet bool
	Output  string
	// Live replays over real loopback sockets instead of simulating (replay_live.go).
	Live LiveFlags
	// MaxCost is the budget a simulated replay's estimated cost must fit: storm's --max-cost,
	// with the same default and syntax (storm.ParseBudget).
	MaxCost string
	// NoFail exits 0 though a policy was judged ✗ (the report is the same).
	NoFail bool
}

// NewCmdReplay builds `patience replay`.
func NewCmdReplay(f *Factory, runF func(*ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "replay [SCENARIO|NAME]",
		Short: "Replay a failure scenario through timeout, retry, breaker and fallback policies",
		Long: `Replay a failure scenario through every policy it lists, side by side, in a deterministic
discrete-event simulation: the same arrivals and the same target behaviour for each policy, so
the differences come from the policies alone. Ten minutes of traffic take well under a second.

SCENARIO is a scenario file or the name of a bundled one (see 'patience scenarios'); without
it, the bundled ` + scenario.DefaultName + ` story is replayed.

The report says in plain words what each policy would do to the service (stuck workers,
duplicated charges, amplified load), then the figures as columns, then a per-second chart of
successes, failures and requests in flight. The same input and seed always give the same
output; -o json gives the machine contract (schema patience/replay/v1). A simulation whose
estimated time or memory is above the --max-cost budget (` + storm.DefaultBudget.String() + ` by default, as for storm)
is refused before it starts, with the estimate.

The model (docs/commands.md, "replay"): Poisson arrivals spread over the clients at random (or closed loops, or
a burst at t=0); each client's workers stay busy through timeouts and backoff sleeps, and an
arrival that finds none free fails as "no worker"; the target's faults and latency are drawn
per attempt when it arrives, and work goes on after the caller gave up ("wasted work"); with
layers, a lower layer keeps retrying after the layer above gave up on it, as it would in
reality; requests still in flight when the drain ends fail as "stuck".

A policy judged ✗ exits 1, naming it on stderr, as every ✗ does; --no-fail exits 0 with the
same report (a comparison kept as a report, the bundled lessons' anti-patterns).

` + scenario.PresetHelp(),
		Example: `  patience replay
  patience replay payment-double-charge -o markdown
  patience replay my-scenario.yaml --policy preset:aws-standard --policy ours.yaml
  patience replay layered-retries --seed 42 -o json
  patience replay payment-double-charge --live --speed 10`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Scenario = args[0]
			}
			opts.SeedSet = c.Flags().Changed("seed")
			if err := checkLiveFlags(c, &opts.Live); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return replayRun(c.Context(), opts)
		},
	}
	c.Flags().StringArrayVar(&opts.Chains, "chain", nil, "FILE#DEPENDENCY: replay the chain of real configs a check file's dependency names with via: (ingress, sidecar, its own policy) as one layered policy, instead of the scenario's policies (repeatable; -#DEPENDENCY reads the check file from stdin)")
	c.Flags().StringArrayVar(&opts.Policies, "policy", nil, "policy FILE (- reads stdin) or preset:NAME to replay instead of the scenario's policies (repeatable; presets: "+strings.Join(scenario.PresetNames(), ", ")+")")
	c.Flags().BoolVar(&opts.NoFail, "no-fail", false, noFailHelp)
	c.Flags().Int64Var(&opts.Seed, "seed", 0, "seed of the simulation (default: the scenario's seed)")
	c.Flags().StringVar(&opts.MaxCost, "max-cost", "", "refuse a replay, simulated or --live, estimated to take longer or more memory than this: a time, a size, both (30m,8GiB) or none (default "+storm.DefaultBudget.String()+")")
	addOutputFlag(c, &opts.Output, report.ReplayFormats.Names())
	addLiveFlags(c, &opts.Live)
	_ = c.RegisterFlagCompletionFunc("policy", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, n := range scenario.PresetNames() {
			out = append(out, "preset:"+n)
		}
		return out, cobra.ShellCompDirectiveDefault
	})
	return c
}

// loadReplayScenario opens the scenario and applies --policy and --seed; every input
// problem is a usage error (exit 2) that names the file, line, column and field.
func loadReplayScenario(opts *ReplayOptions) (*scenario.Scenario, error) {
	name := opts.Scenario
	if name == "" {
		name = scenario.DefaultName
	}
	if err := oneStdin(stdinUse("the scenario", name), stdinUses("--policy", opts.Policies), chainStdin(opts.Chains)); err != nil {
		return nil, err
	}
	sc, err := scenario.OpenStdin(name, scenario.ForReplay, opts.IO.In)
	if err != nil {
		return nil, UsageError(err)
	}
	if len(opts.Policies)+len(opts.Chains) > 0 {
		sc.Policies = sc.Policies[:0]
		for _, spec := range opts.Policies {
			p, err := scenario.ResolvePolicyStdin(spec, opts.IO.In)
			if err != nil {
				return nil, UsageError(err)
			}
			// A --policy replaces the scenario's policies but still sits under its callers.
			sc.AttachLayers(p)
			sc.Policies = append(sc.Policies, p)
		}
		chains, err := resolveChains(opts.IO, opts.Chains)
		if err != nil {
			return nil, err
		}
		sc.Policies = append(sc.Policies, chains...)
	}
	if opts.SeedSet {
		sc.Seed = opts.Seed
	}
	return sc, nil
}

func replayRun(ctx context.Context, opts *ReplayOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	render, err := report.ReplayFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	budget, err := storm.ParseBudget(opts.MaxCost)
	if err != nil {
		return UsageError(fmt.Errorf("--max-cost: %w", err))
	}
	sc, err := loadReplayScenario(opts)
	if err != nil {
		return err
	}
	// The simulation replays the policies one after another, as one storm run each without
	// bisection: storm's estimate and budget, one definition for both commands. A live
	// replay does the same attempts and holds the same requests, over real sockets, so the
	// same budget bounds it before any socket opens (issue 24: 1,000,000 clients with a
	// burst of 10,000,000, both within a file's bounds, took a live replay past 800 MB in
	// 17 s); its real time, the scenario's over --speed, is said on stderr before it starts.
	if err := budget.Check(storm.EstimateCost(sc, false, 1)); err != nil {
		return UsageError(err)
	}
	var res *replay.Result
	var runErr error
	if opts.Live.Live {
		res, runErr = replayLiveWith(ctx, opts, sc, &opts.Live)
	} else {
		progress, done := replayProgress(opts.IO, opts.Output, sc.Name)
		res, runErr = sim.Run(ctx, sc, sim.Options{Progress: progress})
		done(runErr != nil)
	}
	return replayFinish(opts, render, res, runErr)
}

// replayFinish renders what the replay returned and chooses the exit (finishPolicies); a
// replay that returned no result at all returns its error.
func replayFinish(opts *ReplayOptions, render report.Renderer[*replay.Result], res *replay.Result, runErr error) error {
	if res == nil {
		return runErr
	}
	return finishPolicies(opts.IO, render, res, len(res.Policies), runErr, policiesGate(res.Failing(), opts.NoFail))
}

// replayProgress draws a bar over the simulated events of the replay (progressBar). A
// scenario name too long to sit beside the bar is left out rather than cut (the report's
// title names it).
func replayProgress(s *report.IOStreams, format, name string) (func(done, total int), func(aborted bool)) {
	label := "replay " + report.Sanitize(name)
	if lipgloss.Width(label) > maxBarLabel {
		label = "replay"
	}
	return progressBar(s, format, label, decor.NewPercentage("%d"))
}

// maxBarLabel is the widest a bar's label may be: with the bar and its figures, the line
// still fits 80 columns.
const maxBarLabel = 32

// resolveChains reads each --chain FILE#DEPENDENCY into its layered policy, saying on stderr
// where the simulator approximates a layer; an unreadable file or an unknown dependency is a
// usage error. -#DEPENDENCY reads the check file from standard input (the caller has refused
// a second reader of it: oneStdin).
func resolveChains(io *report.IOStreams, specs []string) ([]*policy.Policy, error) {
	var out []*policy.Policy
	for _, spec := range specs {
		p, notes, err := check.ChainPolicyStdin(spec, io.In)
		if err != nil {
			return nil, UsageError(err)
		}
		for _, n := range notes {
			notef(io, "chain %s: %s", spec, n)
		}
		out = append(out, p)
	}
	return out, nil
}
