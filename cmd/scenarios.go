package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/scenarios"
	"github.com/spf13/cobra"
)

// ScenariosOptions are the flags of `patience scenarios` and its subcommands.
type ScenariosOptions struct {
	IO     *report.IOStreams
	Output string
	// Action is "list", "show" or "validate".
	Action string
	// Name is the bundled scenario of `show`.
	Name string
	// Files are the scenario files of `validate`.
	Files []string
	// For is the command `validate` checks the files for (scenario.PurposeNames: replay or
	// serve), which decides the sections a file must have.
	For string
}

// NewCmdScenarios builds `patience scenarios` (list), `scenarios show NAME` (the YAML,
// verbatim) and `scenarios validate FILE...` (run the strict loader without simulating).
func NewCmdScenarios(f *Factory, runF func(*ScenariosOptions) error) *cobra.Command {
	opts := &ScenariosOptions{IO: f.IO, Action: "list"}
	run := func() error {
		if runF != nil {
			return runF(opts)
		}
		return scenariosRun(opts)
	}
	c := &cobra.Command{
		Use:   "scenarios",
		Short: "List the bundled scenarios, print one, or validate scenario files",
		Long: `List the scenarios bundled in the binary, each a real incident with its lesson.
Replay one with patience replay NAME; print its YAML with patience scenarios show NAME
(a starting point for your own); check a file of your own with patience scenarios validate FILE.

` + scenario.PresetHelp(),
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error { return run() },
	}
	addOutputFlag(c, &opts.Output, report.ScenarioListFormats.Names())

	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a bundled scenario's YAML, verbatim",
		Args:  usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return scenarios.AllNames(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Action, opts.Name = "show", args[0]
			return run()
		},
	}
	validate := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Load scenario files strictly and report the first problem of each (file:line:col and field)",
		Long: `Load scenario files strictly, as the command given by --for would, without running
anything, and report the first problem of each file (file:line:col and field); the files
that load are listed on stdout.

--for replay (the default; storm and check read scenarios the same way) needs load,
duration (unless the load is a burst alone), target and a policy; --for serve needs only
target, and checks load, duration and policy when they are present. Missing sections are
reported together, in one error.`,
		Example: `  patience scenarios validate my-incident.yaml
  patience scenarios validate --for serve flaky-api.yaml`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Action, opts.Files = "validate", args
			return run()
		},
	}
	var validateOutput string
	addOutputFlag(validate, &validateOutput, report.ScenarioValidationFormats.Names())
	addEnumFlag(validate, &opts.For, "for", scenario.ForReplay.String(), "the command the files are for", scenario.PurposeNames())
	validate.PreRun = func(*cobra.Command, []string) { opts.Output = validateOutput }
	c.AddCommand(show, validate)
	return c
}

func scenariosRun(opts *ScenariosOptions) error {
	switch opts.Action {
	case "show":
		data, err := scenarios.Read(opts.Name)
		if err != nil {
			return UsageErrorf("no bundled scenario %q (bundled: %s)", opts.Name, strings.Join(scenarios.AllNames(), ", "))
		}
		_, err = opts.IO.Out.Write(data)
		return err
	case "validate":
		return scenariosValidate(opts)
	}
	render, err := report.ScenarioListFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	list, err := scenario.BundledList()
	if err != nil {
		return fmt.Errorf("a bundled scenario does not load (a bug): %w", err)
	}
	return render(opts.IO.Out, list, opts.IO.Options())
}

// scenariosValidate loads every file; the files that load are reported on stdout, and the
// first problem of each file that does not is an input error (exit 2).
func scenariosValidate(opts *ScenariosOptions) error {
	render, err := report.ScenarioValidationFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	purpose := scenario.ForReplay
	if opts.For != "" {
		if purpose, err = scenario.ParsePurpose(opts.For); err != nil {
			return UsageError(err)
		}
	}
	res, problems := scenario.ValidateStdin(opts.Files, purpose, opts.IO.In)
	if err := render(opts.IO.Out, res, opts.IO.Options()); err != nil {
		return err
	}
	if len(problems) > 0 {
		return UsageError(errors.Join(problems...))
	}
	return nil
}
