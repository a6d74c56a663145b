// Package cmd wires patience's commands with cobra. It is deliberately thin: flags bind into
// an options struct, the command calls a library function, and report renders the result.
// It holds no math.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/patience-dev/patience/report"
	"github.com/spf13/cobra"
)

// Factory carries what every command needs: the streams and the global flags.
type Factory struct {
	IO *report.IOStreams
	// ColorMode is the raw value of --color (auto|always|never).
	ColorMode string
}

// Main runs patience with args and returns the process exit code. Exit codes are decided
// only here, from the typed errors in exit.go.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := &Factory{IO: report.System(stdin, stdout, stderr)}
	return run(ctx, f, args)
}

// run executes the command tree on a prepared Factory; tests call it with report.Test streams.
func run(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	err := root.ExecuteContext(ctx)
	if err != nil && strings.HasPrefix(err.Error(), "unknown command") {
		err = UsageError(err)
	}
	code := ExitCode(err)
	var ee *ExitError
	if err != nil && !(errors.As(err, &ee) && ee.Err == nil) {
		printError(f, err)
	}
	return code
}

func printError(f *Factory, err error) {
	r := f.IO.ErrRenderer(f.ColorMode)
	label := r.NewStyle().Foreground(lipglossRed).Bold(true).Render("error:")
	if ExitCode(err) == ExitInterrupted {
		label = r.NewStyle().Foreground(lipglossYellow).Bold(true).Render("interrupted:")
		fmt.Fprintln(f.IO.ErrOut, label, "partial results above")
		return
	}
	fmt.Fprintln(f.IO.ErrOut, label, err)
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "patience",
		Short: "How long to wait for an external call, and whether to try again — measured",
		Long: `patience measures and simulates the timeouts and retries of calls to other people's APIs.

  probe URL          measure latency per phase and recommend timeouts and attempts
  replay [SCENARIO]  replay a failure scenario through retry/backoff/breaker policies
  storm  [SCENARIO]  retry-storm amplification and metastable collapse across many clients
  check  [FILE...]   the same knowledge as a CI gate with stable rule IDs
  serve  [SCENARIO]  a loopback HTTP target that misbehaves on a script

Exit codes: 0 ok, 1 a gate failed, 2 usage or input error, 3 could not measure, 130 interrupted.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			if err := f.IO.ResolveColor(f.ColorMode); err != nil {
				return UsageError(err)
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UsageError(err) })
	pf := root.PersistentFlags()
	pf.StringVar(&f.ColorMode, "color", "auto", "colour output: "+strings.Join(report.ColorModes, "|")+" (auto honours NO_COLOR, CLICOLOR, CLICOLOR_FORCE and TTY)")
	pf.BoolVarP(&f.IO.Quiet, "quiet", "q", false, "no progress output")
	_ = root.RegisterFlagCompletionFunc("color", fixedCompletion(report.ColorModes))

	root.AddCommand(
		NewCmdVersion(f, nil),
		NewCmdProbe(f, nil),
		NewCmdReplay(f, nil),
		NewCmdStorm(f, nil),
		NewCmdCheck(f, nil),
		NewCmdServe(f, nil),
		NewCmdScenarios(f, nil),
		NewCmdDemo(f, nil),
	)
	return root
}

// addOutputFlag registers -o/--output with the formats of one command's registry,
// validated at parse time and completed in the shell.
func addOutputFlag(c *cobra.Command, target *string, formats []string) {
	*target = "text"
	c.Flags().VarP(&enumValue{value: target, choices: formats}, "output", "o", "output format: "+strings.Join(formats, "|"))
	_ = c.RegisterFlagCompletionFunc("output", fixedCompletion(formats))
}

// enumValue is a pflag.Value restricted to a fixed set of choices.
type enumValue struct {
	value   *string
	choices []string
}

func (e *enumValue) String() string { return *e.value }
func (e *enumValue) Type() string   { return "string" }
func (e *enumValue) Set(s string) error {
	for _, c := range e.choices {
		if s == c {
			*e.value = s
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(e.choices, ", "))
}

// addEnumFlag registers a string flag restricted to choices.
func addEnumFlag(c *cobra.Command, target *string, name, def, usage string, choices []string) {
	*target = def
	c.Flags().Var(&enumValue{value: target, choices: choices}, name, usage+": "+strings.Join(choices, "|"))
	_ = c.RegisterFlagCompletionFunc(name, fixedCompletion(choices))
}

func fixedCompletion(choices []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return choices, cobra.ShellCompDirectiveNoFileComp
	}
}

// usageArgs wraps a cobra argument validator so a wrong argument count exits 2.
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if err := v(c, args); err != nil {
			return UsageError(err)
		}
		return nil
	}
}
