package cmd

import (
	"context"
	"fmt"
	"runtime"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
	"github.com/patience-dev/patience/storm"
	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8/decor"
)

// StormOptions are the flags of `patience storm`.
type StormOptions struct {
	IO *report.IOStreams
	// Overrides are the scenario and quick-model flags; storm applies them (Apply).
	storm.Overrides
	NoBisect bool
	Output   string
	// MaxCost is the budget a run's estimated cost must fit (storm.ParseBudget).
	MaxCost string
	// Chains are FILE#DEPENDENCY specs: a check file's via: chain as one layered policy.
	Chains []string
	// NoFail exits 0 though a policy was judged ✗ (the report is the same).
	NoFail bool
}

// NewCmdStorm builds `patience storm`.
func NewCmdStorm(f *Factory, runF func(*StormOptions) error) *cobra.Command {
	opts := &StormOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "storm [SCENARIO]",
		Short: "Retry amplification across clients and layers, and metastable collapse",
		Long: `Simulate many clients retrying against one finite-capacity dependency, hit by a stall or an
error burst, and say whether the system comes back once the fault is over.

Without SCENARIO a quick model is built from the flags: --clients send --rate logical requests/s
(Poisson) to a dependency that serves --capacity requests/s (workers × a fixed service time of
about 100 ms, FIFO queue, unbounded unless --queue), through one or more retrying layers
(--attempts 4,4,4: attempts per layer, caller first, first try included; the bottom layer times
out after --timeout, upper layers wait for the layer below). --outage LEN@AT stops the server
(requests keep queueing, work resumes after); --errors LEN@AT answers every request 503 at once.
By default it compares the mitigations side by side on the same arrivals: retries, no retries,
full jitter, an AWS token bucket, a 10% ratio budget, a breaker and (with layers) retrying at one
layer only. --policy FILE|preset:NAME (repeatable) compares those instead; --timeout and
--attempts, when given, override those fields of every policy.

With SCENARIO (a file or a bundled name) its load, target and policies are used; quick-model
flags you set override the scenario's values.

Verdicts (docs/json.md): recovered when, after the last fault ends, the 5 s moving average of
goodput stays within 10% of the arrivals for 30 s; metastable when the run ends without that.
stable below is the largest arrival rate that still recovers after the same trigger, found by
bisection over simulated runs (to 2% of capacity); the fluid bound beside it is the closed form
capacity / Π attempts for retry-on-timeout policies.

A policy judged ✗ (one that never recovers, for instance) exits 1, naming it on stderr, as
every ✗ does; --no-fail exits 0 with the same report.`,
		Example: `  patience storm
  patience storm --rate 60/s
  patience storm --attempts 4,4,4 --rate 20/s --outage 10s@30s
  patience storm --errors 30s@60s --duration 4m --policy preset:aws-standard --policy preset:naive
  patience storm -o json`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Scenario = args[0]
			}
			opts.Changed = map[string]bool{}
			for _, name := range storm.OverrideFlags {
				opts.Changed[name] = c.Flags().Changed(name)
			}
			if runF != nil {
				return runF(opts)
			}
			return stormRun(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.IntVar(&opts.Clients, "clients", storm.DefaultClients, "caller instances (each has its own retry budget and breaker)")
	fl.StringVar(&opts.Rate, "rate", fmt.Sprintf("%g/s", storm.DefaultRate), "logical requests per second across all clients (Poisson); at least one on average in --duration")
	fl.StringVar(&opts.Capacity, "capacity", fmt.Sprintf("%g/s", storm.DefaultCapacity), "requests per second the dependency serves; at least one in --duration")
	fl.IntVar(&opts.Queue, "queue", 0, "bound of the dependency's FIFO queue, overflow answers 503 (0 = unbounded)")
	fl.StringVar(&opts.Timeout, "timeout", storm.DefaultTimeout.String(), "per-attempt timeout of the bottom layer")
	fl.StringVar(&opts.Attempts, "attempts", "4", "attempts per layer, caller first, first try included (4,4,4 = three layers)")
	fl.StringArrayVar(&opts.Outages, "outage", nil, "LEN@AT: the server stops serving for LEN from AT while requests keep queueing (repeatable; default 10s@30s when no --errors)")
	fl.StringArrayVar(&opts.Errors, "errors", nil, "LEN@AT: every request fails fast with 503 for LEN from AT (repeatable)")
	fl.StringVar(&opts.Duration, "duration", "3m", "how long requests arrive")
	fl.Int64Var(&opts.Seed, "seed", storm.DefaultSeed, "seed of the simulation")
	fl.StringArrayVar(&opts.Policies, "policy", nil, "policy FILE (- reads stdin) or preset:NAME to compare instead of the built-in mitigations (repeatable)")
	fl.StringArrayVar(&opts.Chains, "chain", nil, "FILE#DEPENDENCY: compare the chain of real configs a check file's dependency names with via: as one layered policy (repeatable; -#DEPENDENCY reads the check file from stdin)")
	fl.BoolVar(&opts.NoFail, "no-fail", false, noFailHelp)
	fl.BoolVar(&opts.NoBisect, "no-bisect", false, "skip the stable_below_per_s search (one run per policy)")
	fl.StringVar(&opts.MaxCost, "max-cost", "", "refuse a run estimated to take longer or more memory than this: a time, a size, both (30m,8GiB) or none (default "+storm.DefaultBudget.String()+")")
	addOutputFlag(c, &opts.Output, report.StormFormats.Names())
	_ = c.RegisterFlagCompletionFunc("policy", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, n := range scenario.PresetNames() {
			out = append(out, "preset:"+n)
		}
		return out, cobra.ShellCompDirectiveDefault
	})
	return c
}

func stormRun(ctx context.Context, opts *StormOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	render, err := report.StormFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	budget, err := storm.ParseBudget(opts.MaxCost)
	if err != nil {
		return UsageError(fmt.Errorf("--max-cost: %w", err))
	}
	if err := oneStdin(stdinUse("the scenario", opts.Scenario), stdinUses("--policy", opts.Policies), chainStdin(opts.Chains)); err != nil {
		return err
	}
	if opts.Given, err = resolveChains(opts.IO, opts.Chains); err != nil {
		return err
	}
	opts.Stdin = opts.IO.In // storm - reads the scenario, or a --policy -, from standard input
	sc, model, err := opts.Overrides.Apply()
	if err != nil {
		return UsageError(err)
	}
	parallel := runtime.GOMAXPROCS(0)
	cost := storm.EstimateCost(sc, !opts.NoBisect, parallel)
	if err := budget.Check(cost); err != nil {
		return UsageError(err)
	}
	if !opts.IO.Quiet {
		if est, ok := storm.Expect(ctx, sc, !opts.NoBisect, parallel, cost, announceLongerThan); ok {
			announceStorm(opts.IO, sc, est, !opts.NoBisect, parallel)
		}
	}
	progress, done := stormProgress(opts.IO, opts.Output)
	res, runErr := storm.Run(ctx, sc, storm.Options{Bisect: !opts.NoBisect, Model: model, Work: progress,
		Parallel: parallel})
	done(runErr != nil)
	if res == nil {
		return runErr
	}
	return finishPolicies(opts.IO, render, res, len(res.Policies), runErr, policiesGate(res.Failing(), opts.NoFail))
}

// stormProgress draws one bar over the run's simulations (storm.Options.Work: a policy's run
// and its search's probes), drawn from the start: a policy with its search can take minutes.
func stormProgress(s *report.IOStreams, format string) (func(done, total int), func(aborted bool)) {
	return progressBar(s, format, "storm", decor.NewPercentage("%d"))
}

// announceStorm says up front how long a storm should take (storm.Expect: the expected work
// at this machine's speed now), when above announceLongerThan.
func announceStorm(s *report.IOStreams, sc *scenario.Scenario, est sim.Estimate, bisect bool, parallel int) {
	what := units.Count(len(sc.Policies)) + " " + plural(len(sc.Policies), "policy", "policies")
	if bisect {
		what += " and their stable-rate searches"
	}
	announceEstimate(s, est, fmt.Sprintf("%s on %s %s", what, units.Count(parallel), plural(parallel, "core", "cores")))
}
