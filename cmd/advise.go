package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/patience-dev/patience/advise"
	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
)

// AdviseOptions are the flags of `patience advise`.
type AdviseOptions struct {
	IO     *report.IOStreams
	Ctx    context.Context
	Output string

	Files        []string
	Format       string
	LogFormat    string
	Unit         string
	By           string
	Filter       string
	Since        string
	Until        string
	Window       time.Duration
	Top          int
	Budget       time.Duration
	Cutoff       string
	Caller       string
	MaxErrorRate string
	ConnectFloor time.Duration
	Save         string
	// Force lets --save replace a profile with a run that got no good response (exit 3).
	Force bool
	// Emit is --emit and --emit-url: the recommendation in clients' and proxies' own knobs,
	// for all samples and for each --by group.
	Emit emitFlags

	budgetSet bool
}

// NewCmdAdvise builds `patience advise`.
func NewCmdAdvise(f *Factory, runF func(*AdviseOptions) error) *cobra.Command {
	opts := &AdviseOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "advise FILE... ",
		Short: "Recommend timeouts and attempts from latency data you already have",
		Long: `Advise reads the latency data you already have — access logs, load balancer logs, HAR files,
OpenTelemetry traces, Prometheus histograms, k6, vegeta and curl timings — and gives the report
and recommendation probe gives, from the same advice code: the timeout above the slow side of
the distribution in your logs, the connect timeout and the attempts, with the confidence
interval of the quantile it rests on.

Files are read in one pass with memory bounded by the histograms; '-' is standard input and
gzip is read transparently. The format is detected from the content (--format to say it).
Durations are read in each source's own unit (nginx and ALB seconds, HAProxy, Envoy, HAR
and k6 milliseconds, vegeta and OTLP nanoseconds, curl seconds, cumulative); a source whose
unit is not written down (a CSV column without _ms, a metric without _seconds) needs --unit.
Malformed lines are counted and reported, never fatal.

Also read: Traefik (common format "<n>ms", JSON Duration ns), Caddy (duration in seconds,
its default duration_format), Apache common/combined + %D (µs; --format apache), W3C/IIS
(time-taken in ms when #Software names IIS, else --unit), Cloudflare Logpush
(EdgeEndTimestamp − EdgeStartTimestamp, unixnano), Zipkin v2 and Jaeger JSON spans (µs;
CLIENT spans when there are any) and HdrHistogram .hlog interval logs (jHiccup: the unit from
the max column; distributions without status). Lines wrapped by the container runtime
(Docker json-file, CRI, as Kubernetes nodes keep them) are unwrapped, partial lines joined.
The format is detected from a sample of up to 200 lines: the one most lines match.

nginx: the log_format is compiled from --log-format (the directive's string, or an
nginx.conf, path#name to pick one, -#name for one on stdin, read once before the logs);
ingress-nginx's default and the common rt=/urt= variants are known. A line is one request:
its status is $status, its latency that of the upstream attempt that answered it (nginx's
timeouts are per attempt); the attempts per request the proxy made (proxy_next_upstream) are
counted apart.

Prometheus: one exposition is the process's lifetime, two (files, or a range query) a
window. Each quantile is given as its bucket bracket and the timeout is rounded up to the
bucket's upper bound; observations above the top bucket are only known to be longer.

--filter selects records: host=api.example.com and status<500, path~'^/v1/',
status=5xx, time>=2024-05-01T13:00:00Z, duration>2s (fields host method path route status
error time duration; operators = != ~ !~ < <= > >=; and, or, not, parentheses).`,
		Example: `  patience advise /var/log/nginx/access.log* --by route
  patience advise access.log --log-format /etc/nginx/nginx.conf#timed --filter 'host=api.example.com'
  kubectl logs deploy/ingress-nginx-controller | patience advise -
  patience advise /var/log/pods/kube-system_traefik-*/traefik/0.log --by route
  patience advise session.har -o markdown
  patience advise k6.json --caller job --save profile.json
  patience advise before.prom after.prom`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ctx = c.Context()
			opts.Files = args
			opts.budgetSet = c.Flags().Changed("budget")
			if runF != nil {
				return runF(opts)
			}
			return adviseRun(opts)
		},
	}
	fl := c.Flags()
	formats := make([]string, 0, len(advise.Formats()))
	for _, f := range advise.Formats() {
		formats = append(formats, string(f))
	}
	bys := make([]string, 0, len(advise.Bys()))
	for _, b := range advise.Bys() {
		bys = append(bys, string(b))
	}
	addEnumFlag(c, &opts.Format, "format", "auto", "input format", formats)
	fl.StringVar(&opts.LogFormat, "log-format", "", "nginx log_format string or nginx.conf[#name] (-[#name]: the nginx.conf on stdin); a curl -w template for --format curl")
	fl.StringVar(&opts.Unit, "unit", "", "duration unit for sources that do not say: s|ms|us|ns")
	addEnumFlag(c, &opts.By, "by", "none", "one recommendation per group", bys)
	fl.StringVar(&opts.Filter, "filter", "", "select records: e.g. 'host=api.example.com and status<500'")
	fl.StringVar(&opts.Since, "since", "", "only records at or after this time (RFC 3339, or 2006-01-02 15:04 UTC)")
	fl.StringVar(&opts.Until, "until", "", "only records before this time")
	fl.DurationVar(&opts.Window, "window", time.Hour, "width of the per-window distribution")
	fl.IntVar(&opts.Top, "top", 20, "most groups reported with --by (the rest are folded into one)")
	fl.DurationVar(&opts.Budget, "budget", profile.DefaultBudget, "the caller's whole time budget, retries and backoff included (--caller job: the retry window, none by default)")
	addEnumFlag(c, &opts.Caller, "caller", string(profile.CallerInteractive), "who waits for the call", callerKindNames())
	fl.StringVar(&opts.Cutoff, "cutoff", "0.1%", "share of good responses a timeout may cut off")
	fl.StringVar(&opts.MaxErrorRate, "max-error-rate", "5%", "share of failed requests above which the verdict fails (exit 1)")
	fl.DurationVar(&opts.ConnectFloor, "connect-floor", profile.DefaultConnectFloor, "lowest connect timeout to recommend (survives one lost SYN)")
	fl.StringVar(&opts.Save, "save", "", "write the profile (patience/probe/v1 with HDR histograms) to this JSON file")
	fl.BoolVar(&opts.Force, "force", false, "let --save replace a profile even with data that has no good response")
	addEmitFlag(c, &opts.Emit)
	addEmitURLFlag(c, &opts.Emit)
	addOutputFlag(c, &opts.Output, report.AdviseFormats.Names())
	return c
}

// adviseOptions turns the flags into advise.Options.
func adviseOptions(opts *AdviseOptions) (advise.Options, error) {
	o := advise.Options{
		Files: opts.Files, Stdin: opts.IO.In, Format: advise.Format(opts.Format), LogFormat: opts.LogFormat,
		Unit: opts.Unit, By: advise.By(opts.By), Filter: opts.Filter, Window: opts.Window, Top: opts.Top,
	}
	if opts.Unit != "" {
		if _, err := advise.ParseUnit(opts.Unit); err != nil {
			return o, fmt.Errorf("--unit: %w", err)
		}
	}
	for _, t := range []struct {
		flag, v string
		dst     *time.Time
	}{{"--since", opts.Since, &o.Since}, {"--until", opts.Until, &o.Until}} {
		if t.v == "" {
			continue
		}
		v, err := advise.ParseTime(t.v)
		if err != nil {
			return o, fmt.Errorf("%s %q: %w", t.flag, t.v, err)
		}
		*t.dst = v
	}
	if err := firstBadFlag(
		positiveDuration("--window", opts.Window),
		positiveInt("--top", opts.Top),
		positiveDuration("--budget", opts.Budget),
		positiveDuration("--connect-floor", opts.ConnectFloor),
	); err != nil {
		return o, err
	}
	cut, err := scenario.ParsePercent(opts.Cutoff)
	if err != nil {
		return o, fmt.Errorf("--cutoff %w", err)
	}
	if cut <= 0 || cut >= 1 {
		return o, fmt.Errorf("--cutoff %q: want more than 0%% and less than 100%%", opts.Cutoff)
	}
	maxErr, err := parseErrorRate(opts.MaxErrorRate)
	if err != nil {
		return o, err
	}
	budget := opts.Budget
	if profile.CallerKind(opts.Caller) == profile.CallerJob && !opts.budgetSet {
		budget = 0 // a job's retry window is only what --budget says
	}
	o.Advice = profile.RecommendParams{
		Caller:  profile.Caller{Kind: profile.CallerKind(opts.Caller), Budget: budget},
		Options: profile.RecommendOptions{Cutoff: cut, ConnectFloor: opts.ConnectFloor, MaxErrorRate: maxErr},
	}
	return o, nil
}

func adviseRun(opts *AdviseOptions) error {
	render, err := report.AdviseFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	o, err := adviseOptions(opts)
	if err != nil {
		return UsageError(err)
	}
	// A --save that cannot be written is found before any input is read.
	if opts.Save != "" {
		if err := profile.CheckSavePath(opts.Save); err != nil {
			return UsageErrorf("--save: %v", err)
		}
	}
	if err := opts.Emit.parse(); err != nil {
		return err
	}
	if err := adviseStdinLogFormat(opts, &o); err != nil {
		return err
	}
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var size int64
	for _, f := range opts.Files {
		if st, err := os.Stat(f); err == nil {
			size += st.Size()
		}
	}
	bar, finish := adviseProgress(opts, size)
	o.Progress = bar
	res, err := advise.Run(ctx, o)
	finish(err != nil || res.Interrupted)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			// Stopped before any sample was read (a stop after some returns them, marked
			// interrupted): nothing was printed, and stderr says so.
			return adviseStopped(err)
		case errors.Is(err, advise.ErrNoSamples):
			return CannotMeasureError(err)
		}
		return UsageError(err)
	}
	adviseEmit(opts, res)
	return finishProfile(opts.IO, render, res,
		func() error {
			return errors.Join(saveProfile(opts.IO, opts.Save, opts.Force, res.Profile), writeEmitted(opts.IO, res.Emit))
		},
		func() error { return adviseExit(res.Profile) })
}

// adviseStopped is the interruption of an advise run: the input still awaited when nothing
// was read (input.StoppedError), else that what was read is not reported.
func adviseStopped(err error) error {
	var se *input.StoppedError
	if errors.As(err, &se) {
		return &ExitError{Code: ExitInterrupted, Err: se}
	}
	return &ExitError{Code: ExitInterrupted, Err: errors.New("stopped before every input was read: advise reports once it has read them all, so nothing was printed")}
}

// adviseExit is probe's mapping from the verdict: nothing measurable exits 3, a failing
// dependency 1.
func adviseExit(res *profile.Profile) error {
	v := res.Recommendation.Verdict
	switch {
	case res.Interrupted:
		// Stopped by the user: what was read is printed above, marked interrupted.
		return ErrInterrupted
	case res.Responses == 0:
		return CannotMeasureError(fmt.Errorf("no request in the data got a response: %s", errorCounts(res.Errors)))
	case v.Has(profile.CodeNoGoodResponse):
		return CannotMeasureError(errors.New(v.Reason(profile.CodeNoGoodResponse).Text))
	}
	// malformed_input (most lines unreadable) is a ✗ like the others: it exits 1, and leads,
	// as it leads the verdict (the format, not the service, is the likelier story).
	return verdictExit(v, advise.CodeMalformedInput, profile.CodeNoAnswer, profile.CodeTailBeyond, profile.CodeErrorRate)
}

// adviseProgress is a bar of bytes read, with the speed and the time left, when stderr is a
// terminal: "advise 333 MiB of 1.1 GiB [====>---] 65 MiB/s · 12 s left". Standard input
// (size 0) has no total: it shows the bytes read and the speed only, with no bar.
func adviseProgress(opts *AdviseOptions, size int64) (func(int64), func(bool)) {
	show := opts.IO.ShowProgress(opts.Output)
	if !show {
		return nil, func(bool) {}
	}
	p := newProgress(context.Background(), opts.IO, true, 32)
	start := time.Now()
	speed := func(s decor.Statistics) float64 {
		if el := time.Since(start).Seconds(); el > 0 {
			return float64(s.Current) / el
		}
		return 0
	}
	var bar *mpb.Bar
	if size > 0 {
		bar = p.AddBar(size, mpb.BarRemoveOnComplete(),
			mpb.PrependDecorators(decor.Any(func(s decor.Statistics) string {
				return "advise " + bytesIEC(float64(s.Current)) + " of " + bytesIEC(float64(s.Total))
			})),
			mpb.AppendDecorators(decor.Any(func(s decor.Statistics) string {
				v := speed(s)
				line := bytesIEC(v) + "/s"
				if v > 0 && s.Current > 0 {
					// Whole seconds, and nothing in the last one: "0 ms left" says nothing.
					left := time.Duration(float64(s.Total-s.Current) / v * float64(time.Second))
					if left >= time.Second {
						line += " · " + units.Duration(left.Round(time.Second)) + " left"
					}
				}
				return line
			})),
		)
	} else {
		bar = p.New(0, mpb.NopStyle(), mpb.BarRemoveOnComplete(), mpb.BarFillerTrim(),
			mpb.PrependDecorators(decor.Any(func(s decor.Statistics) string {
				return "advise " + bytesIEC(float64(s.Current)) + " read · " + bytesIEC(speed(s)) + "/s"
			})),
		)
	}
	return func(read int64) {
			if size > 0 {
				bar.SetCurrent(min(read, size))
			} else {
				bar.SetCurrent(read)
			}
		}, func(aborted bool) {
			if aborted || !bar.Completed() {
				bar.Abort(true)
			}
			p.Wait()
		}
}

// adviseEmit attaches --emit's texts to the recommendation for all samples and to each
// --by group's (labelled with the group). Only the first is written to a --emit PATH: the
// groups' are in the report.
func adviseEmit(opts *AdviseOptions, res *advise.Result) {
	opts.Emit.attach(opts.IO, res.Profile, "")
	for i := range res.Groups {
		g := &res.Groups[i]
		if g.Result == nil {
			continue
		}
		opts.Emit.attach(opts.IO, g.Result, g.Key)
		for j := range g.Result.Emit {
			g.Result.Emit[j].Path = ""
		}
	}
}
