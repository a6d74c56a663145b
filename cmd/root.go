// Package cmd wires patience's commands with cobra. It is deliberately thin: flags bind into
// an options struct, the command calls a library function, and report renders the result.
// It holds no math.
package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenarios"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Factory carries what every command needs: the streams and the global flags.
type Factory struct {
	IO *report.IOStreams
	// ColorMode is the raw value of --color (auto|always|never).
	ColorMode string
}

// Main runs patience with args and returns the process exit code. Exit codes are decided
// only here, from the typed errors in exit.go.
//
// The first Ctrl-C (SIGINT) or SIGTERM cancels the run's context: the command stops, prints
// and saves what finished, and exits 130; every read of user input watches that context
// (input.SetInterrupt, and standard input through input.NewReader), so a FIFO with no writer
// or an idle pipe stops too. A second one returns 130 at once, whatever the run is waiting
// on; main's os.Exit ends the goroutine still running it.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	f := &Factory{IO: report.System(stdin, stdout, stderr)}
	return runStoppable(sigs, f.IO.ErrOut, func(ctx context.Context) int {
		f.IO.In = input.NewReader(ctx, "standard input", stdin)
		return run(ctx, f, args)
	})
}

// runStoppable runs command in a goroutine under a context the first signal on sigs cancels
// (and that every input read watches: input.SetInterrupt). It returns command's exit code,
// or ExitInterrupted as soon as a second signal arrives, saying so on errOut.
func runStoppable(sigs <-chan os.Signal, errOut io.Writer, command func(ctx context.Context) int) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer input.SetInterrupt(ctx)()
	done := make(chan int, 1)
	go func() { done <- command(ctx) }()
	signalled := false
	for {
		select {
		case code := <-done:
			return code
		case sig := <-sigs:
			if !signalled {
				signalled = true
				cancel()
				continue
			}
			fmt.Fprintf(errOut, "\ninterrupted again (%s): exiting now, without waiting for the run to stop\n", signalName(sig))
			return ExitInterrupted
		}
	}
}

// signalName is the name a user knows a signal by: Ctrl-C for SIGINT.
func signalName(sig os.Signal) string {
	if sig == os.Interrupt {
		return "Ctrl-C"
	}
	if s, ok := sig.(syscall.Signal); ok && s == syscall.SIGTERM {
		return "SIGTERM"
	}
	return sig.String()
}

// run executes the command tree on a prepared Factory; tests call it with report.Test streams.
func run(ctx context.Context, f *Factory, args []string) (code int) {
	defer recoverInternal(f.IO.ErrOut, &code)
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	err := root.ExecuteContext(ctx)
	if err != nil && strings.HasPrefix(err.Error(), "unknown command") {
		err = UsageError(err)
	}
	if code, ok := workerPanic(f.IO.ErrOut, err); ok {
		return code
	}
	code = ExitCode(err)
	if code == ExitUsage && ctx.Err() != nil {
		// An input error once the run was stopped is the stop's doing: a read abandoned
		// (input.StoppedError), or a loader's error that no longer says why.
		err, code = interruptedInput(err), ExitInterrupted
	}
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
		_ = report.WrapNote(f.IO.ErrOut, f.IO.ErrWidth, label+" "+interruptedText(err))
		return
	}
	// Errors quote file names, URLs and values as given: no control character of theirs
	// reaches the terminal.
	// Wrapped by word to stderr's width like every note; a width unknown (a log, CI) keeps
	// each line of the error whole.
	_ = report.WrapNote(f.IO.ErrOut, f.IO.ErrWidth, label+" "+report.Sanitize(err.Error()))
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "patience",
		Short: "How long to wait for an external call, and whether to try again — measured",
		Long: `patience measures and simulates the timeouts and retries of calls to other people's APIs.

  probe URL          measure latency per phase and recommend timeouts and attempts
  advise FILE...     the same recommendation from latency data you already have (logs, HAR, traces)
  replay [SCENARIO]  replay a failure scenario through retry/backoff/breaker policies
  storm  [SCENARIO]  retry-storm amplification and metastable collapse across many clients
  check  [FILE...]   the same knowledge as a CI gate with stable rule IDs
  serve  [SCENARIO]  a loopback HTTP target that misbehaves on a script

Marks: ✓ good · ~ provisional (probe: too few samples yet) or degraded (replay, storm:
stays up, some requests fail) · ✗ bad: act on it · – not graded (the run was stopped).

Exit codes: 0 ok, 1 a gate failed, 2 usage or input error, 3 could not measure, 130 interrupted,
70 an internal error (a bug: please report it).`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			if err := f.IO.ResolveColor(f.ColorMode); err != nil {
				return UsageError(err)
			}
			return nil
		},
	}
	v := currentVersion()
	root.Version = v.Version
	root.SetVersionTemplate(fmt.Sprintf("patience %s (commit %s, built %s, %s)\n", v.Version, v.Commit, v.Date, v.Go))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return UsageError(flagError(c, err)) })
	// Help fits the terminal as every report does: cobra renders it, report wraps it by word
	// (paragraphs reflowed, flags and presets under their text column).
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		var buf bytes.Buffer
		out := c.OutOrStdout()
		c.SetOut(&buf)
		defaultHelp(c, args)
		c.SetOut(out)
		fmt.Fprint(out, report.WrapHelp(buf.String(), f.IO.Width))
	})
	pf := root.PersistentFlags()
	pf.StringVar(&f.ColorMode, "color", "auto", "colour output: "+strings.Join(report.ColorModes, "|")+" (auto honours NO_COLOR, CLICOLOR, CLICOLOR_FORCE and TTY)")
	pf.BoolVarP(&f.IO.Quiet, "quiet", "q", false, "no progress output")
	_ = root.RegisterFlagCompletionFunc("color", fixedCompletion(report.ColorModes))

	root.AddCommand(
		NewCmdVersion(f, nil),
		NewCmdProbe(f, nil),
		NewCmdAdvise(f, nil),
		NewCmdReplay(f, nil),
		NewCmdStorm(f, nil),
		NewCmdCheck(f, nil),
		NewCmdServe(f, nil),
		NewCmdScenarios(f, nil),
		NewCmdDemo(f, nil),
		NewCmdMan(f, nil),
	)
	// SCENARIO arguments complete to the bundled scenarios' names (and still to files).
	for _, c := range root.Commands() {
		switch c.Name() {
		case "replay", "serve", "storm":
			if c.ValidArgsFunction == nil {
				c.ValidArgsFunction = bundledScenarioCompletion
			}
		}
	}
	return root
}

// bundledScenarioCompletion completes a command's one SCENARIO argument to the names of the
// bundled scenarios it runs (serve's include the serve-only ones); files complete too, since
// a path is a scenario as well.
func bundledScenarioCompletion(c *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if c.Name() == "serve" {
		return scenarios.AllNames(), cobra.ShellCompDirectiveDefault
	}
	return scenarios.Names(), cobra.ShellCompDirectiveDefault
}

// pflag's error texts, rewritten by flagError.
var (
	unknownFlagErr = regexp.MustCompile(`^unknown flag: --([^ =]+)$`)
	invalidArgErr  = regexp.MustCompile(`^invalid argument "(.*)" for "(.+)" flag: (.*)$`)
)

// flagError makes a flag parse error name the flag and the value and say what was wanted —
// `--seed "x": want a whole number` rather than strconv's message — and suggests the flag
// meant for an unknown one (--durtion: did you mean --duration?), as cobra does for commands.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	if m := unknownFlagErr.FindStringSubmatch(msg); m != nil {
		if s := closestFlag(c, m[1]); s != "" {
			return fmt.Errorf("unknown flag --%s: did you mean --%s?", m[1], s)
		}
		return fmt.Errorf("unknown flag --%s (see %s --help)", m[1], c.CommandPath())
	}
	if m := invalidArgErr.FindStringSubmatch(msg); m != nil {
		value, flag, why := m[1], m[2], m[3]
		if i := strings.LastIndex(flag, "--"); i >= 0 {
			flag = flag[i:] // "-o, --output" → "--output"
		}
		switch {
		case strings.Contains(why, "strconv.ParseUint"), strings.Contains(why, "strconv.ParseInt"):
			why = "want a whole number"
		case strings.Contains(why, "strconv.ParseFloat"):
			why = "want a number"
		case strings.Contains(why, "strconv.ParseBool"):
			why = "want true or false"
		case strings.HasPrefix(why, "time: "):
			why = "want a duration such as 500ms, 5s or 2m"
		}
		return fmt.Errorf("%s %q: %s", flag, value, why)
	}
	return err
}

// closestFlag is the flag of c (its own or inherited) nearest to name: a prefix of one, or
// within two edits; "" when none is close.
func closestFlag(c *cobra.Command, name string) string {
	best, bestD := "", 3
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if d < bestD || (d == bestD && f.Name < best) {
			best, bestD = f.Name, d
		}
	}
	c.Flags().VisitAll(visit)
	c.InheritedFlags().VisitAll(visit)
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
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
			return UsageError(argsError(c, args, err))
		}
		return nil
	}
}
