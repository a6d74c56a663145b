package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/verdict"
	"github.com/spf13/cobra"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// ProbeOptions are the flags of `patience probe`.
type ProbeOptions struct {
	IO     *report.IOStreams
	Ctx    context.Context
	Output string

	URL     string
	Method  string
	Headers []string
	Data    string

	Rate string
	// Load is --load: the caller's production rate, which sizes the retry budget (the
	// probe's own --rate is not the caller's load).
	Load        string
	Concurrency int
	Requests    int64
	Duration    time.Duration
	Conn        string
	MaxInFlight int
	MaxTimeout  time.Duration
	// Stream times every response body as a stream (--stream), not only SSE and NDJSON.
	Stream       bool
	Insecure     bool
	Budget       time.Duration
	Cutoff       string
	ConnectFloor time.Duration
	// Caller is interactive or job; MaxErrorRate the --max-error-rate percentage.
	Caller       string
	MaxErrorRate string
	Save         string
	Strict       bool
	// Force lets --save replace a profile with a run that got no good response (exit 3).
	Force bool

	// HTTP is --http (auto, 1.1, 2); the TLS flags are as curl's.
	HTTP       string
	CACert     string
	Cert, Key  string
	ServerName string
	Resolve    []string

	// Merge lists saved profiles to combine instead of probing (--merge a.json b.json).
	Merge      bool
	MergeFiles []string

	// Emit is --emit: the recommendation in clients' and proxies' own knobs.
	Emit emitFlags

	rateSet     bool
	budgetSet   bool
	requestsSet bool
}

// NewCmdProbe builds `patience probe`.
func NewCmdProbe(f *Factory, runF func(*ProbeOptions) error) *cobra.Command {
	opts := &ProbeOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "probe URL | --merge PROFILE...",
		Short: "Measure latency per phase and recommend timeouts and attempts",
		Long: `Probe measures a live HTTP target and turns what it measured into a timeout policy.

The open model (default, --rate) sends on a fixed schedule whatever the target does, and
times every request from its intended send time, so a stall shows in the tail instead of
being hidden (coordinated omission). At most --max-in-flight requests are outstanding; a
send that finds them all taken waits and counts as late; one that is more than
--max-timeout late is dropped and counted. If the generator ends more than 1% of the
sending window (at least 10 ms) and more than one send interval behind its schedule, probe
says so and exits 3: one late send in a short run on a busy machine is not a rate missed.
-c/--concurrency switches to the closed model: N workers, at most 10000 (each can hold a
connection) and never more than -n requests; a Ctrl-C stops the starting of workers too.

--conn both (default) alternates fresh connections (DNS, connect, TLS measured) with
reused keep-alive ones, and reports the two apart. --http auto (default) speaks HTTP/2 when
the server chooses h2 by ALPN over TLS and HTTP/1.1 in clear; --http 2 over http:// is h2c
with prior knowledge. On HTTP/2 the streams share connections as Go's client does; DNS,
connect and TLS are measured once per connection, and REFUSED_STREAM, GOAWAY and other
stream resets are error classes of their own. Probe does not follow redirects. It sends
each request once, except that an idempotent one (GET, HEAD,
PUT, DELETE, OPTIONS, TRACE, or with an Idempotency-Key) goes out again on a new connection
when the kept-alive one turns out to have been closed before any response, as net/http
does; a kept-alive connection idle for more than 10 ms is checked before it is reused.

The recommendation: timeout = the latency at quantile 1 - --cutoff (p99.9) × 1.2, rounded up
on the 1-1.2-1.5-2-2.5-3-4-5-6-8 ladder, over good responses (status below 400) and the
requests with no answer within --max-timeout, which count as slower than it: when too many
hang, no timeout is recommended. Connect timeout = max(3 × connect p99.9, --connect-floor),
or none when that is not below the timeout (the timeout bounds the connect). Attempts, for
--caller interactive (default): at most 2 (one retry), fewer if k × timeout + worst-case
backoff (` + assumedBackoff() + `) does not fit --budget; 1 for a POST or
PATCH without an Idempotency-Key header (retry only with one). --caller job: one attempt per
run, and the queue design instead — 6 tries, backoff 10 s ×3 up to 10 min + 25% jitter, the
job timeout and queue retry_after these imply (--budget is then the retry window, if any).
The quantile the timeout rests on is given with its 95% confidence interval (order
statistics, no assumption about the distribution).

The verdict: ✓ when enough requests back the cut-off (1,000 for p99.9), failures are within
--max-error-rate (default 5%) and the budget holds a call; ~ provisional below that many
samples (it says how many more would settle it); ✗ otherwise. Exit 3 when nothing could be
measured (unreachable, every request failed, no good response — e.g. every response 404 —
or the rate was not kept); exit 1 when requests failed above --max-error-rate or too many
got no answer for a timeout to be derived, or when the budget cannot hold one normal call
(every ✗ exits non-zero; --strict is kept and changes nothing more).

A header or query parameter is shown as REDACTED in every report, saved profile and error
when its name (any case) is Authorization, Proxy-Authorization, Cookie, Set-Cookie or Policy;
starts with X-Amz- or X-Goog-; contains key, token, secret, passw, passphrase, passcode,
auth, sig, credential, creds, session, sessid, cookie, jwt, bearer, hmac, csrf, xsrf, saml
or assertion; or has pass, pwd, pin, otp, totp, hotp, mfa, code, sid or ticket as a word of
its own (X-Otp, mysql_pwd, userPwd, connect.sid — not footprint or bypass). So are userinfo
(user:password@ or a token@) and URL fragments. --save is checked before the run, written
atomically, never through a symbolic link, and does not replace a profile with a run that got
no good response (exit 3) unless --force.`,
		Example: `  patience probe https://api.example.com/v1/quote --rate 20/s -n 2000 --budget 2s
  patience probe https://127.0.0.1:8443/ --cacert test.pem --servername api.internal
  patience probe http://127.0.0.1:8080/ --http 2 -c 50 --duration 10s
  patience probe http://127.0.0.1:8080/ -c 50 --duration 10s --conn reuse
  patience probe https://api.example.com/ -H 'Authorization: Bearer …' --save eu.json
  patience probe --merge eu.json us.json -o markdown`,
		Args: usageArgs(func(c *cobra.Command, args []string) error {
			if opts.Merge {
				if len(args) == 0 {
					return errors.New("--merge needs at least one saved profile")
				}
				return nil
			}
			return cobra.ExactArgs(1)(c, args)
		}),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ctx = c.Context()
			if opts.Merge {
				opts.MergeFiles = args
			} else {
				opts.URL = args[0]
			}
			opts.rateSet = c.Flags().Changed("rate")
			opts.budgetSet = c.Flags().Changed("budget")
			opts.requestsSet = c.Flags().Changed("requests")
			if runF != nil {
				return runF(opts)
			}
			return probeRun(opts)
		},
	}
	fl := c.Flags()
	fl.StringVarP(&opts.Method, "method", "X", "GET", "HTTP method")
	fl.StringArrayVarP(&opts.Headers, "header", "H", nil, "request header 'Name: value' (repeatable)")
	fl.StringVarP(&opts.Data, "data", "d", "", "request body; @FILE reads a file")
	fl.StringVar(&opts.Rate, "rate", "10/s", "open model: sends per second (N/s, N/m or N/h)")
	fl.StringVar(&opts.Load, "load", "", "the caller's production rate (N/s, N/m or N/h): sizes the retry budget from it (--rate is the probe's own load, not the caller's)")
	fl.IntVarP(&opts.Concurrency, "concurrency", "c", 0, "closed model: N workers (at most 10000, and no more than -n), each sending when its previous request finished")
	fl.Int64VarP(&opts.Requests, "requests", "n", 0, "number of requests (default 200 when --duration is not set)")
	fl.DurationVar(&opts.Duration, "duration", 0, "how long to send (with -n, whichever comes first)")
	addEnumFlag(c, &opts.Conn, "conn", "both", "connections", []string{"both", "fresh", "reuse"})
	fl.IntVar(&opts.MaxInFlight, "max-in-flight", probe.DefaultMaxInFlight, "open model: most requests outstanding at once (at most 10000)")
	fl.DurationVar(&opts.MaxTimeout, "max-timeout", profile.DefaultMaxTimeout, "the probe's own per-request bound")
	fl.BoolVar(&opts.Stream, "stream", false, "time every response as a stream, each read of its body an event (text/event-stream and application/x-ndjson always are): first_event, gap, events per stream")
	fl.BoolVar(&opts.Insecure, "insecure", false, "skip TLS certificate verification")
	addEnumFlag(c, &opts.HTTP, "http", "auto", "protocol (auto: h2 by ALPN over TLS, HTTP/1.1 in clear; 2 in clear: h2c)", []string{"auto", "1.1", "2"})
	fl.StringVar(&opts.CACert, "cacert", "", "PEM file (- reads stdin) of the CA certificates to verify the server with, instead of the system's")
	fl.StringVar(&opts.Cert, "cert", "", "PEM file of a client certificate (with --key)")
	fl.StringVar(&opts.Key, "key", "", "PEM file of the client certificate's private key")
	fl.StringVar(&opts.ServerName, "servername", "", "name sent in TLS SNI and verified (default: the URL's host)")
	fl.StringArrayVar(&opts.Resolve, "resolve", nil, "HOST:PORT:ADDR: connect to ADDR for HOST:PORT, as curl (repeatable)")
	fl.DurationVar(&opts.Budget, "budget", profile.DefaultBudget, "the caller's whole time budget, retries and backoff included (--caller job: the retry window, none by default)")
	addEnumFlag(c, &opts.Caller, "caller", string(profile.CallerInteractive), "who waits for the call", callerKindNames())
	fl.StringVar(&opts.MaxErrorRate, "max-error-rate", "5%", "share of failed requests (errors, 4xx, 5xx) above which the verdict fails (exit 1)")
	fl.StringVar(&opts.Cutoff, "cutoff", "0.1%", "share of good responses a timeout may cut off")
	fl.DurationVar(&opts.ConnectFloor, "connect-floor", profile.DefaultConnectFloor, "lowest connect timeout to recommend (survives one lost SYN)")
	fl.StringVar(&opts.Save, "save", "", "write the result with its HDR histograms to this JSON file")
	fl.BoolVar(&opts.Force, "force", false, "let --save replace a profile even with a run that got no good response")
	fl.BoolVar(&opts.Strict, "strict", false, "exit 1 when the budget cannot hold one normal call (now always so: every ✗ exits non-zero)")
	fl.BoolVar(&opts.Merge, "merge", false, "merge saved profiles (arguments) instead of probing")
	addEmitFlag(c, &opts.Emit)
	addOutputFlag(c, &opts.Output, report.ProbeFormats.Names())
	return c
}

// probeConfig turns validated flags into a probe.Config.
func probeConfig(opts *ProbeOptions) (probe.Config, error) {
	cfg := probe.Config{
		URL: opts.URL, Method: strings.ToUpper(opts.Method), Conn: opts.Conn,
		Concurrency: opts.Concurrency, Requests: opts.Requests, Duration: opts.Duration,
		MaxInFlight: opts.MaxInFlight, MaxTimeout: opts.MaxTimeout, Stream: opts.Stream, Insecure: opts.Insecure,
		HTTP: opts.HTTP, CACert: opts.CACert, Cert: opts.Cert, Key: opts.Key, ServerName: opts.ServerName, Resolve: opts.Resolve,
		Budget: opts.Budget, ConnectFloor: opts.ConnectFloor, CallerKind: profile.CallerKind(opts.Caller),
	}
	if cfg.CallerKind == profile.CallerJob && !opts.budgetSet {
		cfg.Budget = 0 // a job's retry window is only what --budget says
	}
	rate, err := parseErrorRate(opts.MaxErrorRate)
	if err != nil {
		return cfg, err
	}
	cfg.MaxErrorRate = rate
	if opts.Concurrency > 0 && opts.rateSet {
		return cfg, errors.New("--rate and -c/--concurrency exclude each other: pick the open or the closed model")
	}
	if opts.requestsSet && opts.Requests == 0 && opts.Duration == 0 {
		return cfg, errors.New("-n 0: want at least one request, or --duration to send until it ends (or Ctrl-C)")
	}
	if err := firstBadFlag(
		notNegativeInt("--requests", opts.Requests),
		notNegativeDuration("--duration", opts.Duration),
		notNegativeInt("--concurrency", opts.Concurrency),
		positiveInt("--max-in-flight", opts.MaxInFlight),
		positiveDuration("--max-timeout", opts.MaxTimeout),
		positiveDuration("--budget", opts.Budget),
		positiveDuration("--connect-floor", opts.ConnectFloor),
	); err != nil {
		return cfg, err
	}
	if opts.Concurrency == 0 {
		r, err := parseRate(opts.Rate)
		if err != nil {
			return cfg, fmt.Errorf("--rate %w", err)
		}
		cfg.Rate = r
	}
	if cfg.Load, err = parseLoad(opts.Load); err != nil {
		return cfg, err
	}
	cut, err := scenario.ParsePercent(opts.Cutoff)
	if err != nil {
		return cfg, fmt.Errorf("--cutoff %w", err)
	}
	if cut <= 0 || cut >= 1 {
		return cfg, fmt.Errorf("--cutoff %q: want more than 0%% and less than 100%%", opts.Cutoff)
	}
	cfg.Cutoff = cut
	if len(opts.Headers) > 0 {
		cfg.Header = http.Header{}
		for _, h := range opts.Headers {
			name, value, err := parseHeader(h)
			if err != nil {
				return cfg, fmt.Errorf("--header %w", err)
			}
			cfg.Header.Add(name, value)
		}
	}
	// One of --cacert, --cert, --key and -d @- may read standard input.
	if err := oneStdin(stdinUse("--cacert", opts.CACert), stdinUse("--cert", opts.Cert), stdinUse("--key", opts.Key), dataStdin(opts.Data)); err != nil {
		return cfg, err
	}
	cfg.Stdin = opts.IO.In
	if opts.Data != "" {
		if path, ok := strings.CutPrefix(opts.Data, "@"); ok {
			// @- reads standard input; a body is held in memory and sent again and again,
			// so it is capped (input.MaxBody) and read so that memory stays near the cap:
			// /dev/zero ends here, not in an OOM.
			b, err := input.ReadFile(path, input.MaxBody, opts.IO.In)
			if err != nil {
				return cfg, fmt.Errorf("--data: %w", err)
			}
			cfg.Body = b
		} else {
			cfg.Body = []byte(opts.Data)
		}
	}
	return cfg, withSchemeHint(cfg.Validate(), cfg.URL)
}

// callerKindNames lists --caller's choices.
func callerKindNames() []string {
	var out []string
	for _, k := range profile.CallerKinds() {
		out = append(out, string(k))
	}
	return out
}

// parseErrorRate reads --max-error-rate: a percentage below 100%; 0% tolerates no failure.
func parseErrorRate(s string) (float64, error) {
	v, err := scenario.ParsePercent(s)
	if err != nil {
		return 0, fmt.Errorf("--max-error-rate %w", err)
	}
	if v < 0 || v >= 1 {
		return 0, fmt.Errorf("--max-error-rate %q: want at least 0%% and less than 100%%", s)
	}
	if v == 0 {
		return profile.NoFailuresAllowed, nil
	}
	return v, nil
}

// parseRate reads --rate with the scenario files' rate syntax ("20/s", "2400/m", "72000/h"),
// or a bare number per second, and keeps what a probe can send: more than zero, at most 10
// million per second.
func parseRate(s string) (float64, error) {
	v, err := scenario.ParseFlagRate(s)
	if err != nil {
		return 0, err
	}
	if !(v > 0) || v > 1e7 {
		return 0, fmt.Errorf("%q: want a positive rate of at most 10000000/s, e.g. 20/s", s)
	}
	return v, nil
}

// parseLoad reads --load, the caller's production rate, with --rate's syntax; "" is none.
func parseLoad(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := parseRate(s)
	if err != nil {
		return 0, fmt.Errorf("--load %w", err)
	}
	return v, nil
}

// parseHeader reads "Name: value".
func parseHeader(s string) (string, string, error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
		return "", "", fmt.Errorf("%q: want 'Name: value'", probeRedactHeaderArg(s))
	}
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\r\n") {
		return "", "", fmt.Errorf("%q: the value must not contain line breaks", name+": …")
	}
	return name, value, nil
}

// probeRedactHeaderArg keeps a malformed header argument's secret out of error messages.
func probeRedactHeaderArg(s string) string {
	name, _, ok := strings.Cut(s, ":")
	if !ok {
		if len(s) > 12 {
			return s[:4] + "…"
		}
		return s
	}
	return probe.RedactHeader(strings.TrimSpace(name), "…")
}

func probeRun(opts *ProbeOptions) error {
	render, err := report.ProbeFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	// A --save or --emit that cannot be written is found before anything is measured.
	if opts.Save != "" {
		if err := profile.CheckSavePath(opts.Save); err != nil {
			return UsageErrorf("--save: %v", err)
		}
	}
	if err := opts.Emit.parse(); err != nil {
		return err
	}
	var res *profile.Profile
	if opts.Merge {
		if res, err = probeMerge(opts); err != nil {
			return err
		}
	} else {
		cfg, err := probeConfig(opts)
		if err != nil {
			return UsageError(err)
		}
		announceProbe(opts.IO, cfg)
		if res, err = probeMeasure(ctx, opts, cfg); err != nil {
			return probe.RedactError(err, cfg.URL)
		}
	}
	opts.Emit.attach(opts.IO, res, "")
	return finishProfile(opts.IO, render, res,
		func() error { return errors.Join(probeSave(opts, res), writeEmitted(opts.IO, res.Emit)) },
		func() error { return probeExit(opts, res) })
}

// probeSave writes --save atomically; it keeps an existing profile when the run got no
// good response (exit 3), unless --force.
func probeSave(opts *ProbeOptions, res *profile.Profile) error {
	return saveProfile(opts.IO, opts.Save, opts.Force, res)
}

// saveProfile is --save of probe and advise: written atomically (profile.Save), except over an
// existing file when res got no good response (probe.NoGoodResponse: it exits 3) and force is
// not set — a good profile is not replaced by a run with nothing to base a timeout on.
func saveProfile(streams *report.IOStreams, path string, force bool, res *profile.Profile) error {
	if path == "" {
		return nil
	}
	if res.NoGoodResponse() && !force {
		if _, err := os.Lstat(path); err == nil {
			why := "got no good response"
			if res.Answered() == 0 {
				why = "measured nothing"
			}
			notef(streams, "warning: --save: %s kept: this run %s (--force replaces it)", report.Sanitize(path), why)
			return nil
		}
	}
	if err := profile.Save(path, res); err != nil {
		return UsageErrorf("--save: %v", err)
	}
	if !streams.Quiet {
		// On stderr, so a report piped on stdout stays the report; -q leaves it out.
		notef(streams, "saved profile to %s", report.Sanitize(path))
	}
	return nil
}

// probeExit chooses the exit code from the result's verdict, after it was rendered and
// saved: what could not be measured exits 3, a failing dependency 1.
func probeExit(opts *ProbeOptions, res *profile.Profile) error {
	v := res.Recommendation.Verdict
	s := res.Schedule
	switch {
	case res.Interrupted && !opts.Merge:
		// A merge of profiles saved by interrupted runs was not itself interrupted: the
		// report and probeMerge's note say what the figures cover.
		return ErrInterrupted
	case res.Unreachable && largestErrorClass(res.Errors) == "tls":
		// The server answered; its certificate (or protocol) was refused: not "unreachable".
		return CannotMeasureError(fmt.Errorf("TLS failure: %s (%s)", res.ErrorSamples["tls"].Message, errorCounts(res.Errors)))
	case res.Unreachable:
		return CannotMeasureError(fmt.Errorf("target unreachable: %s", errorCounts(res.Errors)))
	case res.Requests > 0 && res.Answered() == 0:
		return CannotMeasureError(fmt.Errorf("every request failed: %s", errorCounts(res.Errors)))
	case v.Has(profile.CodeNoGoodResponse):
		return CannotMeasureError(errors.New(v.Reason(profile.CodeNoGoodResponse).Text))
	case s.RequestedPerS != nil && !s.RateHeld:
		return CannotMeasureError(fmt.Errorf("the generator could not keep the rate: %.4g/s achieved of %.4g/s requested, it ended %s", s.AchievedPerS, *s.RequestedPerS, profile.RateRule))
	}
	if err := verdictExit(v, profile.CodeNoAnswer, profile.CodeTailBeyond, profile.CodeErrorRate); err != nil {
		return err
	}
	if opts.Strict && !res.Recommendation.FitsBudget {
		return GateFailed(fmt.Errorf("--strict: %s", v.Text()))
	}
	return nil
}

// largestErrorClass is the class with the most errors (the first in report order on a tie).
func largestErrorClass(errs map[string]int64) string {
	best, most := "", int64(0)
	for _, c := range profile.ErrorClasses {
		if errs[c] > most {
			best, most = c, errs[c]
		}
	}
	return best
}

// cannotMeasureCodes are the verdict codes that say nothing could be measured (exit 3).
var cannotMeasureCodes = []string{profile.CodeUnreachable, profile.CodeAllFailed, profile.CodeNoGoodResponse, profile.CodeRateNotHeld}

// verdictExit is the exit of a probe's or advise's verdict once the cases with their own
// message are handled: every ✗ clause exits non-zero (issue 26: "the budget cannot hold one
// normal call" was a ✗ that exited 0) — a measurement code 3, any other 1, the codes in first
// leading in that order; nil when no clause is ✗.
func verdictExit(v profile.Verdict, first ...string) error {
	for _, code := range cannotMeasureCodes {
		if r := v.Reason(code); r.Code != "" && r.Level == verdict.Bad {
			return CannotMeasureError(errors.New(r.Text))
		}
	}
	for _, code := range first {
		if r := v.Reason(code); r.Code != "" && r.Level == verdict.Bad {
			return GateFailed(errors.New(r.Text))
		}
	}
	for _, r := range v.Reasons {
		if r.Level == verdict.Bad {
			return GateFailed(errors.New(r.Text))
		}
	}
	return nil
}

func errorCounts(errs map[string]int64) string {
	var parts []string
	for _, c := range profile.ErrorClasses {
		if errs[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, errs[c]))
		}
	}
	return strings.Join(parts, ", ")
}

// mergeAdded, when set (tests), is called after each profile probeMerge adds, with the count.
var mergeAdded func(n int)

// loadMergeProfile reads one saved profile for --merge ("-" is standard input) through
// internal/input: capped at input.MaxProfile, stopped by Ctrl-C while it waits.
func loadMergeProfile(opts *ProbeOptions, p string) (*profile.Profile, error) {
	if p == input.Stdin {
		return profile.Read("standard input", opts.IO.In)
	}
	return profile.Load(p)
}

// probeMerge loads and merges saved profiles, one at a time.
func probeMerge(opts *ProbeOptions) (*profile.Profile, error) {
	cut, err := scenario.ParsePercent(opts.Cutoff)
	if err != nil || cut <= 0 || cut >= 1 {
		return nil, UsageErrorf("--cutoff %q: want a percentage such as 0.1%%", opts.Cutoff)
	}
	maxErr, err := parseErrorRate(opts.MaxErrorRate)
	if err != nil {
		return nil, UsageError(err)
	}
	budget := opts.Budget
	if profile.CallerKind(opts.Caller) == profile.CallerJob && !opts.budgetSet {
		budget = 0
	}
	// One profile at a time (issue 24 item 4): the merger keeps merged histograms and
	// counters, never a profile, so 40 files of 15 MB no longer take 804 MB.
	load, err := parseLoad(opts.Load)
	if err != nil {
		return nil, UsageError(err)
	}
	g := profile.NewMerger(profile.RecommendParams{
		Caller:     profile.Caller{Kind: profile.CallerKind(opts.Caller), Budget: budget},
		Options:    profile.RecommendOptions{Cutoff: cut, ConnectFloor: opts.ConnectFloor, MaxErrorRate: maxErr, LoadPerS: load},
		MaxTimeout: opts.MaxTimeout,
	})
	interrupted, err := mergeFiles(opts, g)
	if err != nil {
		return nil, UsageError(err)
	}
	if interrupted > 0 {
		notef(opts.IO, "note: %d of the %d profiles were saved by interrupted runs: their figures cover what was measured before the stop", interrupted, g.Len())
	}
	res, err := g.Result()
	if err != nil {
		return nil, UsageError(err)
	}
	return res, nil
}

// mergeFiles adds every --merge profile to g, one at a time, with a bar over the files on a
// terminal (erased before anything else is written), and counts those saved by interrupted
// runs.
func mergeFiles(opts *ProbeOptions, g *profile.Merger) (interrupted int, err error) {
	progress, done := progressBar(opts.IO, opts.Output, "merge", decor.CountersNoUnit("%d/%d profiles"))
	defer func() { done(err != nil) }()
	n := len(opts.MergeFiles)
	progress(0, n)
	for i, p := range opts.MergeFiles {
		r, err := loadMergeProfile(opts, p)
		if err != nil {
			return 0, err
		}
		if r.Interrupted {
			interrupted++
		}
		if err := g.Add(r); err != nil {
			return 0, err
		}
		if mergeAdded != nil {
			mergeAdded(g.Len())
		}
		progress(i+1, n)
	}
	return interrupted, nil
}

// errorCount is the progress bar's error figure: "0 errors", "1 error", "1,204 errors".
func errorCount(n int64) string {
	if n == 1 {
		return "1 error"
	}
	return units.Count(int(n)) + " errors"
}

// probeMeasure runs the probe with a progress bar on stderr when it is a terminal.
func probeMeasure(ctx context.Context, opts *ProbeOptions, cfg probe.Config) (*profile.Profile, error) {
	show := opts.IO.ShowProgress(opts.Output)
	// Not ctx: mpb shuts a container down when its context ends, and a bar added after that
	// panics ("can't be reused after Wait()": a Ctrl-C landing between here and AddBar exited
	// 70 once in TestInterruptBlockedOnInput). The bar is always aborted or completed below,
	// so Wait returns without the context's help.
	p := newProgress(context.Background(), opts.IO, show, 32)
	var last atomic.Pointer[probe.Progress]
	last.Store(&probe.Progress{})
	bar := p.AddBar(0, mpb.BarRemoveOnComplete(),
		mpb.PrependDecorators(decor.Name("probe ")),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			s := last.Load()
			rate := 0.0
			if s.Elapsed > 0 {
				rate = float64(s.Sent) / s.Elapsed.Seconds()
			}
			return " " + units.Count(int(s.Done)) + " done · " + units.Rate(rate) + " · " + errorCount(s.Errors)
		})),
	)
	cfg.Progress = func(s probe.Progress) {
		last.Store(&s)
		if s.Expected > 0 {
			bar.SetTotal(s.Expected, false)
			bar.SetCurrent(min(s.Done, s.Expected))
		} else if cfg.Duration > 0 {
			bar.SetTotal(int64(cfg.Duration/time.Millisecond), false)
			bar.SetCurrent(min(int64(s.Elapsed/time.Millisecond), int64(cfg.Duration/time.Millisecond)))
		}
	}
	res, err := probe.Run(ctx, cfg)
	if err != nil || res.Interrupted || res.Unreachable || res.Answered() == 0 {
		bar.Abort(true)
	} else {
		bar.SetTotal(-1, true)
	}
	p.Wait()
	if err != nil {
		return nil, UsageError(err)
	}
	return res, nil
}

// assumedBackoff is the backoff the recommendation assumes between attempts, in words, from
// the policy value itself (profile.AssumedRetry).
func assumedBackoff() string {
	r := profile.AssumedRetry()
	return r.DescribeBackoff()
}
