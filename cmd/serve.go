package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/patience-dev/patience/internal/atomicfile"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/spf13/cobra"
)

// ServeOptions are the flags of `patience serve`.
type ServeOptions struct {
	IO *report.IOStreams
	// Scenario is a file path or a bundled name; "" = scenario.DefaultName.
	Scenario string
	// Listen is host:port; port 0 picks a free one.
	Listen string
	// For stops the server after this long (0 = until interrupted).
	For time.Duration
	// Speed divides every duration of the scenario in real time.
	Speed float64
	// AllowNonLoopback permits a Listen address other than loopback.
	AllowNonLoopback bool
	// URLFile, when set, receives the base URL once the server listens (written whole, then
	// renamed, so a script waiting for it never reads half a URL); it is removed at stop.
	URLFile string
	// IdempotencyTTL, MaxKeys and MaxConns are the server's limits (live.ServerOptions).
	IdempotencyTTL time.Duration
	MaxKeys        int
	MaxConns       int
	// Seed overrides the scenario's seed when SeedSet.
	Seed    int64
	SeedSet bool
	Output  string
}

// NewCmdServe builds `patience serve`.
func NewCmdServe(f *Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IO}
	c := &cobra.Command{
		Use:   "serve [SCENARIO|NAME]",
		Short: "Serve a scenario's target on loopback: a real HTTP dependency that misbehaves on a script",
		Long: `Serve the scenario's target on a real socket: latency from its distributions, its phases
timed from start (divided by --speed), and its faults — status codes with Retry-After in
delay-seconds or HTTP-date form, hangs, connection resets (RST after the request was
processed), refused connections (the listening socket is closed during a 100% refuse phase;
partial refusal is approximated by an RST before the request is processed) and a capacity of
workers and queue (overflow answers 503 at once; queued work is done even after the client
left). Retry-After values are in scenario time (the header counts whole seconds).

Idempotency-Key (draft-ietf-httpapi-idempotency-key-header) is honoured: the same key while
the first request is in flight answers 409, with a different body 422, after completion the
stored response is replayed without a second side effect. Counters, side effects and
duplicates included, are served as JSON at /.well-known/patience/stats and printed when the
server stops.

The scenario needs only a target: load, duration and policy are replay's, and are checked
when present but not used (patience scenarios validate --for serve FILE checks a file).
Phases are timed from start; outside them, and after the last one, the target behaves as
its baseline until the server stops. It stops on Ctrl-C (exit 0) or after --for, and then
prints its counters.

With text output the first line on stdout is the base URL (port 0 picks a free port); with
-o json stdout is one JSON document, the counters, with the URL in its url field, and the
URL is on stderr. The server listens on loopback only unless --allow-non-loopback is given.`,
		Example: `  patience serve payment-double-charge --listen 127.0.0.1:8080
  patience serve rate-limited --listen 127.0.0.1:0 --speed 10 --for 30s
  curl -s http://127.0.0.1:8080/.well-known/patience/stats`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Scenario = args[0]
			}
			opts.SeedSet = c.Flags().Changed("seed")
			if runF != nil {
				return runF(opts)
			}
			return serveRun(c.Context(), opts)
		},
	}
	fl := c.Flags()
	fl.StringVar(&opts.Listen, "listen", "127.0.0.1:8080", "address to listen on, host:port (port 0 picks a free one)")
	fl.DurationVar(&opts.For, "for", 0, "stop after this long, e.g. 2m (default: until interrupted)")
	fl.Float64Var(&opts.Speed, "speed", 1, "divide every duration of the scenario by this factor in real time ("+speedRange+")")
	fl.BoolVar(&opts.AllowNonLoopback, "allow-non-loopback", false, "allow listening on an address other than loopback (prints a warning)")
	fl.StringVar(&opts.URLFile, "url-file", "", "write the base URL to this file once listening (a script waits for it); removed at stop")
	fl.Int64Var(&opts.Seed, "seed", 0, "seed of the target's draws (default: the scenario's seed)")
	fl.DurationVar(&opts.IdempotencyTTL, "idempotency-ttl", live.DefaultIdempotencyTTL, "how long an Idempotency-Key and its stored response are kept")
	fl.IntVar(&opts.MaxKeys, "max-keys", live.DefaultMaxKeys, "Idempotency-Keys kept at once; beyond it the least recently used is forgotten")
	fl.IntVar(&opts.MaxConns, "max-conns", live.DefaultMaxConns, "open connections at once; one past it is answered 503 and closed (logged)")
	addOutputFlag(c, &opts.Output, report.ServeFormats.Names())
	return c
}

// checkListen says whether addr is a loopback host:port.
func checkListen(addr string) (loopback bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("--listen %q: %v (want host:port, e.g. 127.0.0.1:8080)", addr, err)
	}
	if port == "" {
		return false, fmt.Errorf("--listen %q: missing port", addr)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

func serveRun(ctx context.Context, opts *ServeOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	render, err := report.ServeFormats.Get(opts.Output)
	if err != nil {
		return UsageError(err)
	}
	if err := firstBadFlag(speedFactor(opts.Speed)); err != nil {
		return UsageError(err)
	}
	if opts.For < 0 {
		return UsageErrorf("--for %s: want a positive duration", opts.For)
	}
	loopback, err := checkListen(opts.Listen)
	if err != nil {
		return UsageError(err)
	}
	if !loopback {
		if !opts.AllowNonLoopback {
			return UsageErrorf("--listen %s is not a loopback address; patience serve injects faults and is meant for this machine (pass --allow-non-loopback to override)", opts.Listen)
		}
		fmt.Fprintf(opts.IO.ErrOut, "warning: serving on %s, reachable from other machines: anyone who can connect gets the scenario's faults\n", opts.Listen)
	}
	name := opts.Scenario
	if name == "" {
		name = scenario.DefaultName
	}
	sc, err := scenario.OpenStdin(name, scenario.ForServe, opts.IO.In)
	if err != nil {
		return UsageError(err)
	}
	if opts.SeedSet {
		sc.Seed = opts.Seed
	}
	// The server logs phase changes from its own goroutines: serialise every stderr line.
	// The log names scenario phases and quotes clients (net/http's error log): user strings,
	// escaped before they reach a terminal.
	// Escaped first, then wrapped to stderr's width (noteWriter), so the wrapping measures
	// what the terminal shows.
	errOut := &lockedWriter{w: report.SafeWriter(noteWriter(opts.IO))}
	// Zero is the server's default (tests that build ServeOptions leave them unset).
	if err := firstBadFlag(
		notNegativeDuration("--idempotency-ttl", opts.IdempotencyTTL),
		notNegativeInt("--max-keys", opts.MaxKeys),
		notNegativeInt("--max-conns", opts.MaxConns),
	); err != nil {
		return UsageError(err)
	}
	// --url-file is written once the server listens, through a temporary file created
	// exclusively beside it (internal/atomicfile: a reader sees no file or all of it, and no
	// link planted at it or at a fixed temporary name redirects the write); a path that cannot
	// take it fails before the server starts.
	if opts.URLFile != "" {
		if err := atomicfile.Check(opts.URLFile); err != nil {
			return UsageError(fmt.Errorf("--url-file: %w", err))
		}
	}
	srv := live.NewServer(sc, live.ServerOptions{Speed: opts.Speed, Log: errOut,
		IdempotencyTTL: opts.IdempotencyTTL, MaxKeys: opts.MaxKeys, MaxConns: opts.MaxConns})
	if err := srv.Start(opts.Listen); err != nil {
		return UsageError(fmt.Errorf("cannot listen on %s: %w", opts.Listen, err))
	}
	// With text output the URL is the first line on stdout: scripts and tests read it to find
	// the port. A machine-readable stdout is one document (the URL is in it, and on stderr).
	if !report.IsMachineFormat(opts.Output) {
		fmt.Fprintln(opts.IO.Out, srv.URL())
	}
	if opts.URLFile != "" {
		if err := atomicfile.WriteFile(opts.URLFile, []byte(srv.URL()+"\n")); err != nil {
			_ = srv.Stop(time.Second)
			return UsageError(fmt.Errorf("--url-file: %w", err))
		}
		defer os.Remove(opts.URLFile)
	}
	fmt.Fprintf(errOut, "serve: %s at %s (speed %g); stats at %s%s\n", sc.Name, srv.URL(), opts.Speed, srv.URL(), live.StatsPath)
	fmt.Fprintf(errOut, "serve: %s; %s\n", schedule(sc), until(opts.For))
	if err := srv.Wait(ctx, opts.For); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(errOut, "serve: stop: %v\n", err)
	}
	// Ctrl-C is how a server is meant to stop, not an interruption of a measurement: exit 0.
	if ctx.Err() != nil {
		fmt.Fprintln(errOut, "serve: stopped (interrupted)")
	} else {
		fmt.Fprintf(errOut, "serve: stopped after --for %s\n", opts.For)
	}
	return render(opts.IO.Out, srv.Stats(), opts.IO.Options())
}

// schedule says, in scenario time, when the target's phases happen and what follows them.
func schedule(sc *scenario.Scenario) string {
	n := len(sc.Target.Phases)
	if n == 0 {
		return "no phases: the target is at its " + live.Baseline + " throughout"
	}
	noun := "phases"
	if n == 1 {
		noun = "phase"
	}
	return fmt.Sprintf("%d %s timed from now, the last ending %s in (scenario time); then %s",
		n, noun, units.Duration(sc.Target.LastPhaseEnd()), live.Baseline)
}

// until says what stops the server.
func until(forDur time.Duration) string {
	if forDur > 0 {
		return fmt.Sprintf("stops after --for %s or on Ctrl-C", forDur)
	}
	return "runs until Ctrl-C (or --for)"
}

// lockedWriter serialises writes from several goroutines to one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
