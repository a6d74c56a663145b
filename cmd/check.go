package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/emit"
	"github.com/patience-dev/patience/internal/atomicfile"
	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/storm"
	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8/decor"
)

// CheckOptions are the flags of `patience check`.
type CheckOptions struct {
	IO  *report.IOStreams
	Ctx context.Context

	// Files are the check files (default patience.yaml).
	Files []string
	// Profile is a probe profile for every dependency that names none (PT010).
	Profile string
	// FailOn is the lowest level that fails the run: error or warning.
	FailOn string
	// NoFail exits 0 whatever was found (every report is still written).
	NoFail bool
	// AllowEmpty passes a run that checked nothing (no dependency, config or scenario);
	// without it such a run exits 2, saying what was read and why each file was skipped.
	AllowEmpty bool
	// GatewayImpl names who translates Gateway API routes: istio or envoy-gateway ("" = from
	// the inputs: a GatewayClass's controllerName, a Gateway's class, an Istio or Envoy
	// Gateway resource; when none says, the worse of the two, stated in the report).
	GatewayImpl string

	Output string
	// Reports are extra FORMAT=PATH outputs written in the same run.
	Reports []string
	// MaxCost is the budget each replayed scenario's estimated cost must fit: replay's and
	// storm's --max-cost, with the same default and syntax (storm.ParseBudget).
	MaxCost string

	// Init writes a starter file instead of checking.
	Init bool
	// Emit is --emit with --init: the starter's recommendation in clients' and proxies'
	// own knobs, printed on stdout or written to TARGET=PATH.
	Emit           emitFlags
	Caller         string
	Budget         string
	Method         string
	Name           string
	IdempotencyKey bool
}

// NewCmdCheck builds `patience check`.
func NewCmdCheck(f *Factory, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "check [FILE|DIR...]",
		Short: "Check timeout and retry policies against rules PT001–PT017 (a CI gate)",
		Long:  checkLong(),
		Example: `  patience check                                   # reads patience.yaml
  patience check -o github --report junit=check.xml --report sarif=check.sarif
  patience check --fail-on warning services/*.yaml
  patience check --init --budget 3s --method POST --idempotency-key
  patience check --init --profile probe.json --caller job`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			opts.Ctx = c.Context()
			if opts.Init && len(args) > 1 {
				return UsageErrorf("--init writes one file, got %d", len(args))
			}
			if !opts.Init {
				for _, name := range []string{"budget", "method", "name", "idempotency-key", "caller", "emit"} {
					if c.Flags().Changed(name) {
						return UsageErrorf("--%s only applies with --init", name)
					}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return checkRun(opts)
		},
	}
	fl := c.Flags()
	addOutputFlag(c, &opts.Output, report.CheckFormats.Names())
	addEnumFlag(c, &opts.FailOn, "fail-on", "error", "lowest finding level that fails the run (exit 1)", check.Levels)
	fl.BoolVar(&opts.NoFail, "no-fail", false, "exit 0 whatever was found; every report is still written")
	addEnumFlag(c, &opts.GatewayImpl, "gateway-impl", "", "who translates Gateway API HTTPRoutes (default: from the GatewayClass, Gateway or Istio/Envoy Gateway resources read; when none says, the worse of both, stated)", []string{string(check.GatewayImplIstio), string(check.GatewayImplEnvoyGateway)})
	fl.BoolVar(&opts.AllowEmpty, "allow-empty", false, "pass a run that checked nothing (no dependency, config or scenario); the report still says so")
	fl.StringVar(&opts.MaxCost, "max-cost", "", "refuse to replay a scenario: entry estimated to take longer or more memory than this: a time, a size, both (30m,8GiB) or none (default "+storm.DefaultBudget.String()+")")
	fl.StringArrayVar(&opts.Reports, "report", nil, "also write FORMAT=PATH ("+strings.Join(report.CheckFormats.Names(), "|")+"); repeatable")
	fl.StringVar(&opts.Profile, "profile", "", "probe profile (patience probe --save; - reads stdin) for dependencies that name none; with --init, the source of the recommendation")
	fl.BoolVar(&opts.Init, "init", false, "write a commented starter file (patience.yaml) with the recommended policy; never overwrites")
	addEmitFlag(c, &opts.Emit)
	callers := make([]string, 0, 2)
	for _, k := range profile.CallerKinds() {
		callers = append(callers, string(k))
	}
	addEnumFlag(c, &opts.Caller, "caller", string(profile.CallerInteractive), "with --init: who waits — interactive (one retry at most) or job (the queue design; needs --profile)", callers)
	fl.StringVar(&opts.Budget, "budget", "", "with --init: the caller's budget (default: the profile's, else 5s); for a job, its retry_until")
	fl.StringVar(&opts.Method, "method", "GET", "with --init: the HTTP method of the call")
	fl.StringVar(&opts.Name, "name", "api", "with --init: the dependency's name")
	fl.BoolVar(&opts.IdempotencyKey, "idempotency-key", false, "with --init: the call sends an Idempotency-Key")
	return c
}

// checkLong lists every rule with its default level, from the catalog.
func checkLong() string {
	var b strings.Builder
	b.WriteString(`check reads patience.yaml (or the files named) and applies the rules below to the timeout
and retry policy of every dependency; scenarios listed under scenarios: are replayed in the
simulator and their expect: blocks checked (PT100). Findings name the YAML line that set the
value. Markdown is appended to $GITHUB_STEP_SUMMARY when it is set.

Rules (default level; change with rules: {levels: {PT006: error}, disable: [PT012]} or a
# patience:ignore PT006 comment on the value's line or the line above):
`)
	for _, r := range check.Catalog {
		fmt.Fprintf(&b, "  %s  %-7s  %s\n", r.ID, r.Level, r.Title)
	}
	b.WriteString(`
Exit codes: 0 no finding at or above --fail-on, 1 findings at or above --fail-on (after every
report is written), 2 unreadable or invalid input (FILE:LINE:COL: FIELD: message) or nothing
checked (no dependency, config or scenario; --allow-empty passes it), 130
interrupted (Ctrl-C): the findings of what finished are printed and every report written,
marked interrupted, with the scenarios not replayed.`)
	return b.String()
}

// reportTarget is one --report FORMAT=PATH.
type reportTarget struct {
	format, path string
	render       report.Renderer[*check.Result]
}

func parseReports(specs []string) ([]reportTarget, error) {
	var out []reportTarget
	for _, s := range specs {
		format, path, ok := strings.Cut(s, "=")
		if !ok || format == "" || path == "" {
			return nil, UsageErrorf("--report %q: want FORMAT=PATH, e.g. junit=check.xml", s)
		}
		render, err := report.CheckFormats.Get(format)
		if err != nil {
			return nil, UsageErrorf("--report %q: %v", s, err)
		}
		out = append(out, reportTarget{format: format, path: path, render: render})
	}
	return out, nil
}

func checkRun(opts *CheckOptions) error {
	if opts.Init {
		return checkInit(opts)
	}
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	render, err := report.CheckFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	targets, err := parseReports(opts.Reports)
	if err != nil {
		return err
	}
	failOn, err := check.ParseLevel(opts.FailOn)
	if err != nil {
		return UsageError(err)
	}
	budget, err := storm.ParseBudget(opts.MaxCost)
	if err != nil {
		return UsageError(fmt.Errorf("--max-cost: %w", err))
	}
	paths, err := checkPaths(opts)
	if err != nil {
		return err
	}
	profileName, stdinProfile, err := checkStdinProfile(opts, paths)
	if err != nil {
		return err
	}
	// "-" reads standard input; reports name it (stdin), as its errors do.
	in, err := check.LoadPathsStdin(paths, opts.IO.In)
	paths = stdinNamed(paths)
	copts := check.Options{FailOn: failOn, Profile: profileName, StdinProfile: stdinProfile, Version: currentVersion().Version,
		// A scenarios: entry is replayed as `patience replay` would: refused above the budget.
		Admit: func(sc *scenario.Scenario) error { return budget.Check(storm.EstimateCost(sc, false, 1)) }}
	// Check files, config files recognised by content, and directories walked for both
	// (read above, before the paths were renamed).
	if err != nil && ctx.Err() != nil {
		// Ctrl-C while a file was read (a FIFO with no writer): nothing was checked, and
		// no report says the input failed.
		return interruptedInput(err)
	}
	if err != nil {
		return checkInputFailed(opts, render, targets, check.InputFailed(err, paths, copts), err)
	}
	in.Configs.Getenv = opts.IO.Getenv
	in.Configs.GatewayImpl = check.GatewayImpl(opts.GatewayImpl)
	copts.Configs, copts.Paths, copts.Read, copts.AllowEmpty = in.Configs, paths, len(in.Read), opts.AllowEmpty
	copts.Sources = in.Sources
	progress, done := progressBar(opts.IO, opts.Output, "check replays", decor.NewPercentage("%d"))
	copts.Progress = progress
	copts.Estimate, copts.EstimateOver = checkEstimate(opts.IO, opts.Output)
	res, err := check.Run(ctx, in.Files, copts)
	done(err != nil)
	if res != nil && res.Interrupted {
		// Ctrl-C during the replays: what finished is rendered and saved like a whole run,
		// marked interrupted, and the exit is 130 whatever was found.
		if !res.Finished() {
			return stoppedEmpty(context.Canceled)
		}
		if err := renderCheck(opts, render, targets, res); err != nil {
			return err
		}
		return ErrInterrupted
	}
	if err != nil {
		// A replay stopped by Ctrl-C before the run could note it: the context says what
		// happened (not the replay's "context canceled", exit 2).
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return stoppedEmpty(context.Canceled)
		}
		var se *scenario.Error
		if errors.As(err, &se) {
			return checkInputFailed(opts, render, targets, check.InputFailed(err, paths, copts), err)
		}
		return err
	}

	// Render first, then exit.
	if err := renderCheck(opts, render, targets, res); err != nil {
		return err
	}
	return checkExit(opts, res)
}

// checkPaths are the files and directories to check: those named, else check.DefaultFile,
// which must then exist (a usage error that points at --init).
func checkPaths(opts *CheckOptions) ([]string, error) {
	if len(opts.Files) > 0 {
		return opts.Files, nil
	}
	if _, err := os.Stat(check.DefaultFile); errors.Is(err, os.ErrNotExist) {
		return nil, UsageErrorf("%s: no such file (patience check --init writes a starter, or name the files to check)", check.DefaultFile)
	}
	return []string{check.DefaultFile}, nil
}

// renderCheck writes the result everywhere it goes, in order: stdout, every --report file,
// the step summary. A whole run and one stopped by Ctrl-C are written the same way.
func renderCheck(opts *CheckOptions, render report.Renderer[*check.Result], targets []reportTarget, res *check.Result) error {
	if err := render(opts.IO.Out, res, opts.IO.Options()); err != nil {
		return err
	}
	return writeCheckReports(opts, targets, res)
}

// checkExit chooses the exit of a run that finished, after it was rendered: an input error
// when nothing was checked, a failed gate when the findings fail it (unless --no-fail).
func checkExit(opts *CheckOptions, res *check.Result) error {
	if res.Error != nil {
		// Nothing checked (check.Result.NothingChecked): every format, text included, has
		// said what was read and why each file was skipped; stderr repeats the one line
		// where stdout is for a machine. --no-fail does not turn an input error into a pass.
		switch opts.Output {
		case "", "text", "markdown":
			return &ExitError{Code: ExitUsage}
		}
		return UsageErrorf("%s: %s", res.Error.Location(), res.Error.Message)
	}
	if !res.Passed && !opts.NoFail {
		return GateFailed(nil)
	}
	return nil
}

// checkInputFailed renders an input error where CI reads it — as the one annotation of
// -o github, the document of -o json/junit/sarif, every --report file and the step summary —
// and then exits 2 with the error on stderr. Text and Markdown on stdout would only repeat
// stderr, so they print nothing.
func checkInputFailed(opts *CheckOptions, render report.Renderer[*check.Result], targets []reportTarget, res *check.Result, cause error) error {
	switch opts.Output {
	case "", "text", "markdown":
	default:
		if err := render(opts.IO.Out, res, opts.IO.Options()); err != nil {
			return err
		}
	}
	if err := writeCheckReports(opts, targets, res); err != nil {
		return UsageError(errors.Join(cause, err))
	}
	return UsageError(cause)
}

// writeCheckReports writes every --report file and appends Markdown to the step summary,
// after stdout was rendered; a file that cannot be written is an input error (exit 2).
func writeCheckReports(opts *CheckOptions, targets []reportTarget, res *check.Result) error {
	var writeErrs []error
	for _, t := range targets {
		if err := writeReport(t.path, false, t.render, res); err != nil {
			writeErrs = append(writeErrs, fmt.Errorf("--report %s=%s: %w", t.format, t.path, err))
		}
	}
	if summary := opts.IO.Getenv("GITHUB_STEP_SUMMARY"); summary != "" {
		if err := writeReport(summary, true, report.CheckMarkdown, res); err != nil {
			writeErrs = append(writeErrs, fmt.Errorf("GITHUB_STEP_SUMMARY=%s: %w", summary, err))
		}
	}
	if len(writeErrs) > 0 {
		return UsageError(errors.Join(writeErrs...))
	}
	return nil
}

// writeReport renders res into path without colour, appending when asked (the step summary
// collects every step's Markdown). A report replaces its file atomically (internal/atomicfile:
// a full disk keeps the old report whole) and is never written through a symbolic link.
func writeReport(path string, appendTo bool, render report.Renderer[*check.Result], res *check.Result) error {
	fill := func(w io.Writer) error {
		plain := report.Test(nil, w, io.Discard)
		return render(w, res, plain.Options())
	}
	if appendTo {
		return atomicfile.Append(path, fill)
	}
	return atomicfile.Write(path, fill)
}

// checkInit writes the starter file, refusing to overwrite one that exists.
func checkInit(opts *CheckOptions) error {
	path := check.DefaultFile
	if len(opts.Files) == 1 {
		path = opts.Files[0]
	}
	so := check.StarterOptions{Name: opts.Name, Method: opts.Method, IdempotencyKey: opts.IdempotencyKey, Profile: opts.Profile, Caller: profile.CallerKind(opts.Caller)}
	var err error
	if so.Profile, so.Loaded, err = checkStdinProfile(opts, nil); err != nil {
		return err
	}
	if opts.Budget != "" {
		d, err := scenario.ParseDuration(opts.Budget)
		if err != nil || d <= 0 {
			if err == nil {
				err = errors.New("must be above 0")
			}
			return UsageErrorf("--budget: %v", err)
		}
		so.Budget = d
	}
	if err := opts.Emit.parse(); err != nil {
		return err
	}
	data, err := check.Starter(so)
	if err != nil {
		return UsageError(err)
	}
	// Written whole or not at all, never over a file or through a link (internal/atomicfile).
	if err := atomicfile.WriteNew(path, data); err != nil {
		if errors.Is(err, os.ErrExist) {
			return UsageErrorf("%s already exists; --init never overwrites (remove it or name another file)", path)
		}
		return UsageError(err)
	}
	fmt.Fprintf(opts.IO.ErrOut, "wrote %s; run patience check %s\n", path, path)
	return checkInitEmit(opts, so)
}

// checkInitEmit writes --emit's texts for the starter's recommendation: to each PATH, the
// others on stdout.
func checkInitEmit(opts *CheckOptions, so check.StarterOptions) error {
	if len(opts.Emit.Requests) == 0 {
		return nil
	}
	rec, target, err := check.StarterRecommendation(so)
	if err != nil {
		return UsageError(err)
	}
	ems, errs := emit.ForRecommendation(target, rec, "patience check --init", so.Name, opts.Emit.Requests, "", "")
	for _, err := range errs {
		notef(opts.IO, "--emit: %v", err)
	}
	werr := writeEmitted(opts.IO, ems)
	var shown []profile.Emission
	for _, e := range ems {
		if e.Path == "" {
			shown = append(shown, e)
		}
	}
	if err := report.EmitText(opts.IO.Out, shown, opts.IO.Options()); err != nil {
		return err
	}
	return werr
}

// stdinNamed is paths with "-" named as check names standard input: (stdin).
func stdinNamed(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if p == input.Stdin {
			out[i] = check.StdinName
		}
	}
	return out
}
