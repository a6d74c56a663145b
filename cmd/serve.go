package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/live"
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

The first line on stdout is the base URL (port 0 picks a free port). The server listens on
loopback only unless --allow-non-loopback is given. It stops on Ctrl-C or after --for.`,
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
	fl.Float64Var(&opts.Speed, "speed", 1, "divide every duration of the scenario by this factor in real time")
	fl.BoolVar(&opts.AllowNonLoopback, "allow-non-loopback", false, "allow listening on an address other than loopback (prints a warning)")
	fl.Int64Var(&opts.Seed, "seed", 0, "seed of the target's draws (default: the scenario's seed)")
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
	if !(opts.Speed > 0) || opts.Speed > 1000 {
		return UsageErrorf("--speed %g: want a factor in (0, 1000]", opts.Speed)
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
	sc, err := scenario.Open(name)
	if err != nil {
		return UsageError(err)
	}
	if opts.SeedSet {
		sc.Seed = opts.Seed
	}
	// The server logs phase changes from its own goroutines: serialise every stderr line.
	errOut := &lockedWriter{w: opts.IO.ErrOut}
	srv := live.NewServer(sc, live.ServerOptions{Speed: opts.Speed, Log: errOut})
	if err := srv.Start(opts.Listen); err != nil {
		return UsageError(fmt.Errorf("cannot listen on %s: %w", opts.Listen, err))
	}
	// The URL is the first line on stdout: scripts and tests read it to find the port.
	fmt.Fprintln(opts.IO.Out, srv.URL())
	fmt.Fprintf(errOut, "serve: %s at %s (speed %g); stats at %s%s\n", sc.Name, srv.URL(), opts.Speed, srv.URL(), live.StatsPath)
	if err := srv.Wait(ctx, opts.For); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(errOut, "serve: stop: %v\n", err)
	}
	if err := render(opts.IO.Out, srv.Stats(), opts.IO.Options()); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	return nil
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
