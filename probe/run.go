// Package probe measures a live HTTP target: an open-model (or closed-model) scheduler and
// per-phase latency from net/http/httptrace, recorded into HDR histograms and fed to a
// profile.Builder, which grades them (the timeout recommendation of docs/design.md §7 is
// profile.Recommend). It never imports cobra, lipgloss or mpb; cmd wires it and report
// renders its profile.Profile.
package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/internal/atomicfile"
	"github.com/patience-dev/patience/profile"
)

// Config is one probe run. Exactly one of Rate (open model) and Concurrency (closed model)
// is positive; at least one of Requests and Duration bounds the run.
type Config struct {
	URL    string
	Method string
	Header http.Header
	Body   []byte

	// Rate is the open-model send rate per second: request i is due at start + i/Rate.
	Rate float64
	// Concurrency is the closed-model worker count: each sends, waits, sends again.
	Concurrency int
	// Requests bounds the number of sends (0: only Duration bounds the run).
	Requests int64
	// Duration bounds the sending window (0: only Requests bounds the run).
	Duration time.Duration

	// Conn is "fresh" (a new connection per request), "reuse" (keep-alive) or "both":
	// requests alternate between the two (even-numbered sends fresh), so both are measured
	// in the same time window and reported apart.
	Conn string
	// MaxInFlight bounds outstanding requests in the open model (default 1000).
	MaxInFlight int
	// MaxTimeout is the probe's own per-request bound (default 30 s): a target that hangs
	// never holds the probe longer than this. A stream still open at MaxTimeout is cut by
	// the probe and counts as a timeout; its first event and gaps seen so far are kept.
	MaxTimeout time.Duration
	// Stream times every response as a stream, whatever its Content-Type: each network
	// read of its body that brings data is an event (--stream). Without it only
	// text/event-stream and application/x-ndjson responses are (probe/stream.go).
	Stream bool
	// Insecure skips TLS certificate verification.
	Insecure bool

	// HTTP is the protocol: "auto" (default: HTTP/2 when the server chooses h2 by ALPN over
	// TLS, HTTP/1.1 in clear), "1.1", or "2" (HTTP/2; over http:// h2c with prior knowledge).
	HTTP string
	// CACert is a PEM file of the roots to verify the server with, instead of the system's.
	CACert string
	// Cert and Key are PEM files of a client certificate and its key (mutual TLS).
	Cert, Key string
	// Stdin is read for the one of CACert, Cert and Key that is "-" (the caller lets one
	// be); nil: "-" is a file name like any other.
	Stdin io.Reader
	// ServerName is the name sent in SNI and verified (default: the URL's host).
	ServerName string
	// Resolve lists HOST:PORT:ADDR[,ADDR…] entries, as curl's --resolve: connections to
	// HOST:PORT go to ADDR, while the Host header and the TLS name stay HOST.
	Resolve []string

	// Advice parameters (docs/design.md §7; profile.Recommend).
	CallerKind   profile.CallerKind // interactive (default) or job
	Budget       time.Duration      // interactive: the caller's whole budget (default 10 s); job: the retry window (0 = none)
	Cutoff       float64            // accepted share of requests cut off (default 0.001)
	Headroom     float64            // multiplier on the quantile (default 1.2)
	ConnectFloor time.Duration      // lower bound of the connect timeout (default 1.1 s)
	MaxErrorRate float64            // share of failed requests tolerated (0: 5%; NoFailuresAllowed: none)
	Load         float64            // the caller's production rate, stated (--load): sizes the retry budget (0: none)

	// Progress, when set, is called about every 200 ms from a separate goroutine.
	Progress func(Progress)
}

// Progress is a live snapshot for progress bars.
type Progress struct {
	Sent, Done, Errors int64
	Elapsed            time.Duration
	// Expected is the planned number of sends when known (0 otherwise).
	Expected int64
}

// Defaults for Config fields left zero.
const (
	DefaultMaxInFlight = 1000
	DefaultRequests    = 200
	// LateAfter is how late a send may be before it counts as late.
	LateAfter = time.Millisecond
)

func (c *Config) advice() profile.RecommendParams {
	return profile.RecommendParams{
		Caller:     profile.Caller{Kind: c.CallerKind, Budget: c.Budget, Method: c.Method, IdempotencyKey: c.Header.Get("Idempotency-Key") != ""},
		Options:    profile.RecommendOptions{Cutoff: c.Cutoff, Headroom: c.Headroom, ConnectFloor: c.ConnectFloor, MaxErrorRate: c.MaxErrorRate, LoadPerS: c.Load},
		MaxTimeout: c.MaxTimeout,
	}
}

// Validate fills defaults and reports the first invalid field. The fields are checked in
// groups, in the order their errors are reported: the target, the load, the advice, the
// transport.
func (c *Config) Validate() error {
	for _, validate := range []func(*Config) error{
		(*Config).validateTarget, (*Config).validateLoad, (*Config).validateAdvice, (*Config).validateTransport,
	} {
		if err := validate(c); err != nil {
			return err
		}
	}
	return nil
}

// validateTarget checks the URL and the method (default GET).
func (c *Config) validateTarget() error {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("target %q is not an http:// or https:// URL", RedactURL(c.URL))
	}
	if err := validPort(u.Port()); err != nil {
		return fmt.Errorf("target %q: %w", RedactURL(c.URL), err)
	}
	if c.Method == "" {
		c.Method = http.MethodGet
	}
	if !isToken(c.Method) {
		return fmt.Errorf("--method %q: an HTTP method is a token (letters, digits and !#$%%&'*+-.^_`|~), e.g. GET or POST", c.Method)
	}
	return nil
}

// validateLoad checks the model (open by default, at 10/s), the bounds of the run
// (DefaultRequests when none), the connection mode and the in-flight and worker bounds.
func (c *Config) validateLoad() error {
	if c.Rate > 0 && c.Concurrency > 0 {
		return errors.New("--rate and --concurrency exclude each other: pick the open or the closed model")
	}
	if c.Rate < 0 || c.Concurrency < 0 || c.Requests < 0 || c.Duration < 0 {
		return errors.New("rate, concurrency, requests and duration must not be negative")
	}
	if c.Rate == 0 && c.Concurrency == 0 {
		c.Rate = 10
	}
	if c.Requests == 0 && c.Duration == 0 {
		c.Requests = DefaultRequests
	}
	if err := oneOf(&c.Conn, "--conn", "want fresh, reuse or both", "both", "fresh", "reuse"); err != nil {
		return err
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	return checkWorkerBounds(c)
}

// validateAdvice checks the recommendation's parameters and fills their defaults.
func (c *Config) validateAdvice() error {
	if c.Cutoff < 0 || c.Cutoff >= 1 {
		return fmt.Errorf("--cutoff %g: want a share in (0, 1), e.g. 0.1%%", c.Cutoff)
	}
	if err := oneOf(&c.CallerKind, "--caller", "want interactive or job", profile.CallerInteractive, profile.CallerJob); err != nil {
		return err
	}
	if c.CallerKind == profile.CallerInteractive && c.Budget <= 0 {
		c.Budget = profile.DefaultBudget
	}
	if c.MaxErrorRate >= 1 {
		return fmt.Errorf("--max-error-rate %g: want a share below 100%%", c.MaxErrorRate)
	}
	o := profile.RecommendOptions{Cutoff: c.Cutoff, Headroom: c.Headroom, ConnectFloor: c.ConnectFloor}.WithDefaults()
	c.Cutoff, c.Headroom, c.ConnectFloor = o.Cutoff, o.Headroom, o.ConnectFloor
	return nil
}

// validateTransport checks the per-request bound, the protocol and the TLS and address
// options.
func (c *Config) validateTransport() error {
	if c.MaxTimeout <= 0 {
		c.MaxTimeout = profile.DefaultMaxTimeout
	}
	if err := oneOf(&c.HTTP, "--http", "want auto, 1.1 or 2", "auto", "1.1", "2"); err != nil {
		return err
	}
	if (c.Cert == "") != (c.Key == "") {
		return errors.New("--cert and --key go together: a client certificate needs its key")
	}
	_, err := resolveMap(c.Resolve)
	return err
}

// oneOf sets an empty *v to def and refuses a value that is neither def nor one of others:
// "<flag> "<value>": <want>".
func oneOf[T ~string](v *T, flag, want string, def T, others ...T) error {
	if *v == "" {
		*v = def
	}
	if *v == def || slices.Contains(others, *v) {
		return nil
	}
	return fmt.Errorf("%s %q: %s", flag, string(*v), want)
}

// Run probes cfg.URL and returns what it measured. When ctx is cancelled it stops sending,
// abandons what is in flight (those requests are not counted) and returns what was measured
// so far with Interrupted set. Errors are only returned for an invalid Config.
func Run(ctx context.Context, cfg Config) (*profile.Profile, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	proxied := viaProxy(cfg.URL)
	if proxied && cfg.HTTP == "2" {
		return nil, errors.New("--http 2: the target is reached through a proxy (HTTP_PROXY/HTTPS_PROXY), which the probe speaks HTTP/1.1 to; unset it or use --http 1.1")
	}
	if path := os.Getenv(cpuProfileEnv); path != "" {
		if stop := startCPUProfile(path); stop != nil {
			defer stop()
		}
	}
	return run(ctx, cfg, proxied)
}

// cpuProfileEnv names a file for a CPU profile of the run (a developer's tool for
// bench/probe.sh and bench/probe-h2.sh; not a documented interface).
const cpuProfileEnv = "PATIENCE_PROBE_CPUPROFILE"

// startCPUProfile writes a CPU profile to path until the returned stop is called; nil when
// the file cannot be created or a profile is already running. Like every file patience
// writes, it goes through internal/atomicfile: put in place whole at stop, never through a
// symbolic link.
func startCPUProfile(path string) func() {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Commit()
	}
}

// isToken reports whether s is an RFC 9110 §5.6.2 token, the syntax of a method.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		ok := r < 0x7f && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
		if !ok {
			return false
		}
	}
	return true
}

// viaProxy reports whether the environment sends requests for target through a proxy.
func viaProxy(target string) bool {
	req, err := http.NewRequest(http.MethodGet, target, nil)
	if err != nil {
		return false
	}
	proxy, err := http.ProxyFromEnvironment(req)
	return err != nil || proxy != nil
}

// run is Run for a validated cfg; proxied selects net/http's Transport (see proxy.go).
func run(ctx context.Context, cfg Config, proxied bool) (*profile.Profile, error) {
	r, err := newRunner(cfg, proxied)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if err := r.chooseProtocol(ctx); err != nil {
		return nil, err
	}
	start := time.Now()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.cancel = cancel
	// A request blocked reading a connection does not watch a context: when the run ends
	// early (Ctrl-C, an unreachable target) every caller's request is aborted.
	stopAborting := context.AfterFunc(runCtx, r.abortAll)
	defer stopAborting()

	stopProgress := r.startProgress(start)
	stopWatchdog := make(chan struct{})
	var watchdog sync.WaitGroup
	watchdog.Go(func() { r.watchdog(stopWatchdog) })
	if cfg.Concurrency > 0 {
		r.closed(runCtx, start)
	} else {
		r.open(runCtx, start)
	}
	r.inflight.Wait()
	end := time.Now()
	close(stopWatchdog)
	watchdog.Wait()
	stopProgress()

	b := profile.NewBuilder(r.head(ctx.Err() != nil, start, end), cfg.advice())
	r.feed(b)
	return b.Close()
}

// head describes the run for its profile: target, connections, model and schedule.
func (r *runner) head(interrupted bool, start, end time.Time) profile.Profile {
	cfg := &r.cfg
	target := describeTarget(*cfg)
	target.Protocol = r.protocol
	if st := r.dialer.handshakes.Load(); st != nil {
		target.TLS = tlsInfo(*st)
	}
	conns := &profile.Connections{Opened: r.opened.Load()}
	if r.h2 != nil {
		conns.PeakStreams, conns.MaxConcurrentStreams = r.h2.peakStreams.Load(), r.h2.maxStreams.Load()
	}
	head := profile.Profile{
		Target:      target,
		Connections: conns,
		Model:       "open",
		Conn:        cfg.Conn,
		DurationMs:  ms(end.Sub(start)),
		Schedule:    r.schedule(start, end),
		Interrupted: interrupted,
		Unreachable: r.unreachable.Load(),
	}
	if cfg.Concurrency > 0 {
		head.Model = "closed"
		head.Concurrency = closedWorkers(cfg) // the workers that ran: no more than the requests
	}
	return head
}

// schedule says whether the generator kept its schedule: the rate rule in the open model.
func (r *runner) schedule(start, end time.Time) profile.Schedule {
	cfg := &r.cfg
	sched := profile.Schedule{
		Late:          r.late.Load(),
		LateAfterMs:   ms(LateAfter),
		WaitedForSlot: r.waitedForSlot.Load(),
		Dropped:       r.dropped.Load(),
		Resent:        r.resent.Load(),
		MaxInFlight:   cfg.MaxInFlight,
		PeakInFlight:  r.peakInFlight.Load(),
	}
	if cfg.Concurrency > 0 {
		sched.MaxInFlight = closedWorkers(cfg)
		if end.After(start) {
			sched.AchievedPerS = float64(r.dispatched.Load()) / end.Sub(start).Seconds()
		}
		sched.RateHeld = true
		return sched
	}
	sched.RequestedPerS = ptr(cfg.Rate)
	interval := time.Duration(float64(time.Second) / cfg.Rate)
	var window time.Duration
	if last := r.lastDispatch.Load(); last > 0 {
		window = time.Duration(last) + interval
		sched.AchievedPerS = float64(r.dispatched.Load()) / window.Seconds()
	}
	sched.RateHeld = profile.RateKept(cfg.Rate, r.dispatched.Load(), window)
	return sched
}

// describeTarget is the redacted target of a run.
func describeTarget(cfg Config) profile.Target {
	t := profile.Target{URL: RedactURL(cfg.URL), Method: cfg.Method}
	names := make([]string, 0, len(cfg.Header))
	for n := range cfg.Header {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, v := range cfg.Header[n] {
			t.Headers = append(t.Headers, RedactHeader(n, v))
		}
	}
	return t
}

// runner holds the state of one run. The hot path touches only atomics and one shard lock.
type runner struct {
	cfg    Config
	shards []*shard
	cancel context.CancelFunc
	dialer *dialer
	// wire is the request as bytes, for the probe's own connections (direct.go).
	wire *wire
	// protocol is "http/1.1", "h2" or "h2c" (chooseProtocol); h2 is the HTTP/2 path when
	// the run speaks it (h2.go).
	protocol string
	h2       *h2path
	opened   atomic.Int64 // connections dialled
	// proxied: the target is reached through a proxy, so requests go through net/http's
	// Transports and timings come from a per-request trace with every hook (proxy.go).
	proxied      bool
	reuse, fresh *http.Transport
	// base is the proxy path's request without a body, parsed once; nil when each send needs a body.
	base *http.Request
	// idle holds the open model's callers between requests (at most MaxInFlight exist).
	idle callerStack
	// callers lists every caller, for the watchdog.
	callersMu sync.Mutex
	callers   []*caller

	inflight     sync.WaitGroup
	inFlightNow  atomic.Int64
	peakInFlight atomic.Int64

	dispatched   atomic.Int64 // sends started
	lastDispatch atomic.Int64 // ns since start of the latest dispatch (open model)
	done         atomic.Int64 // requests finished and recorded
	failed       atomic.Int64 // of which errors
	responses    atomic.Int64
	connectFails atomic.Int64
	unreachable  atomic.Bool

	late          atomic.Int64
	waitedForSlot atomic.Int64
	dropped       atomic.Int64
	resent        atomic.Int64 // idempotent requests sent again on a new connection
	cut           atomic.Int64 // requests in flight that the run's end (Ctrl-C, unreachable) cut
}

func newRunner(cfg Config, proxied bool) (*runner, error) {
	idle := cfg.MaxInFlight
	if cfg.Concurrency > 0 {
		idle = closedWorkers(&cfg)
	}
	tlsConf, err := tlsConfig(&cfg)
	if err != nil {
		return nil, err
	}
	resolve, err := resolveMap(cfg.Resolve)
	if err != nil {
		return nil, err
	}
	d := &dialer{net: net.Dialer{Timeout: cfg.MaxTimeout, KeepAlive: 30 * time.Second}, tls: tlsConf, tlsTimeout: cfg.MaxTimeout, resolve: resolve}
	// One shard per worker up to the number of CPUs: each holds its lock for a few
	// histogram increments, so contention stays negligible, and memory stays bounded
	// (about 190 KB per series in use) even with 1000 requests in flight.
	n := runtime.GOMAXPROCS(0)
	if w := closedWorkers(&cfg); cfg.Concurrency > 0 && w < n {
		n = w
	}
	r := &runner{cfg: cfg, dialer: d, proxied: proxied}
	if proxied {
		r.reuse, r.fresh = proxyTransports(&cfg, d, idle)
		if cfg.Body == nil {
			base, err := http.NewRequest(cfg.Method, cfg.URL, nil)
			if err != nil {
				return nil, err
			}
			if cfg.Header != nil {
				base.Header = cfg.Header
			}
			base.Host = requestHost(&cfg)
			r.base = base
		}
	} else {
		w, err := newWire(&cfg)
		if err != nil {
			return nil, err
		}
		r.wire = w
	}
	for range n {
		r.shards = append(r.shards, newShard())
	}
	return r, nil
}

// abortAll makes every request in flight fail at once.
func (r *runner) abortAll() {
	r.callersMu.Lock()
	callers := r.callers
	r.callersMu.Unlock()
	for _, c := range callers {
		c.abort()
	}
}

func (r *runner) close() {
	for c := r.idle.pop(); c != nil; c = r.idle.pop() {
		c.close()
	}
	if r.proxied {
		r.reuse.CloseIdleConnections()
		r.fresh.CloseIdleConnections()
	}
	if r.h2 != nil {
		r.h2.close()
	}
}

// chooseProtocol settles what the run speaks (--http): through a proxy HTTP/1.1 (proxy.go);
// in clear HTTP/1.1, or h2c with prior knowledge for --http 2; over TLS HTTP/1.1 for 1.1, h2
// for 2, and for auto what the server chooses by ALPN in one handshake before the run
// (offering h2 and http/1.1, as Go's and curl's clients do). That handshake is not a
// measurement; when it fails the run speaks HTTP/1.1 and reports the failures it meets.
func (r *runner) chooseProtocol(ctx context.Context) error {
	r.protocol = "http/1.1"
	if r.proxied {
		return nil
	}
	h2, h2c := false, false
	switch {
	case !r.wire.tls:
		h2, h2c = r.cfg.HTTP == "2", r.cfg.HTTP == "2"
	case r.cfg.HTTP == "2":
		h2 = true
	case r.cfg.HTTP == "auto":
		h2 = r.negotiatesH2(ctx)
	}
	if !h2 {
		return nil
	}
	p, err := newH2Path(r, h2c)
	if err != nil {
		return err
	}
	r.h2 = p
	r.protocol = "h2"
	if h2c {
		r.protocol = "h2c"
	}
	return nil
}

// negotiatesH2 reports whether the server chooses h2 by ALPN.
func (r *runner) negotiatesH2(ctx context.Context) bool {
	tc, err := r.dialer.dialTLS(ctx, r.wire.network, r.wire.addr, []string{"h2", "http/1.1"})
	if err != nil {
		return false
	}
	defer tc.Conn.Close()
	return tc.Conn.(*tls.Conn).ConnectionState().NegotiatedProtocol == "h2"
}

// startProgress calls cfg.Progress every 200 ms until the returned stop is called.
func (r *runner) startProgress(start time.Time) func() {
	if r.cfg.Progress == nil {
		return func() {}
	}
	expected := r.cfg.Requests
	if r.cfg.Rate > 0 && r.cfg.Duration > 0 {
		byTime := int64(r.cfg.Rate * r.cfg.Duration.Seconds())
		if expected == 0 || byTime < expected {
			expected = byTime
		}
	}
	snap := func() Progress {
		return Progress{Sent: r.dispatched.Load(), Done: r.done.Load(), Errors: r.failed.Load(), Elapsed: time.Since(start), Expected: expected}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				r.cfg.Progress(snap())
				return
			case <-t.C:
				r.cfg.Progress(snap())
			}
		}
	})
	return func() { close(stop); wg.Wait() }
}

// open runs the open model: send i is due at start + i/Rate whatever happened before, so a
// stalled target cannot slow the schedule down (no coordinated omission). At most
// MaxInFlight requests are outstanding; a send that finds them all taken waits (it is late,
// and its latency still counts from its intended time) and is dropped only when it is
// already more than MaxTimeout late.
func (r *runner) open(ctx context.Context, start time.Time) {
	cfg := r.cfg
	slots := make(chan struct{}, cfg.MaxInFlight)
	// Go's timers wake up to 1 ms late on Linux (the netpoller waits in whole milliseconds),
	// which would add up to 1 ms to intended-time latencies. Up to 500/s the sender wakes
	// 1 ms early and yields until the send (it stays runnable, so no wake-up delays the
	// send; it costs at most half a core). Above 500/s that would keep a core busy all the
	// time: the sender wakes 2 ms early, sleeps with nanosleep (sleepPrecisely) until
	// finalSpin before the send and yields the last stretch, which absorbs the thread's
	// wake-up — at 1000/s that cut sends more than 1 ms late from ~10% to 0.5% and the
	// lateness p99 from 1.1 to 0.3 ms (bench/accuracy.sh). Where there is no nanosleep, the
	// lateness above 500/s is accepted (and reported).
	var early time.Duration
	precise := false
	switch {
	case cfg.Rate <= 500:
		early = time.Millisecond
	case haveNanosleep:
		early, precise = 2*time.Millisecond, true
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i := int64(0); ; i++ {
		if cfg.Requests > 0 && i >= cfg.Requests {
			return
		}
		offset := time.Duration(float64(i) * float64(time.Second) / cfg.Rate)
		if cfg.Duration > 0 && offset >= cfg.Duration {
			return
		}
		intended := start.Add(offset)
		if d := time.Until(intended) - early; d > 0 {
			timer.Reset(d)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		} else if ctx.Err() != nil {
			return
		}
		if precise {
			sleepPrecisely(time.Until(intended) - finalSpin)
		}
		for early > 0 && time.Now().Before(intended) {
			runtime.Gosched()
		}
		select {
		case slots <- struct{}{}:
		default:
			r.waitedForSlot.Add(1)
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
		}
		now := time.Now()
		lateness := now.Sub(intended)
		if lateness > cfg.MaxTimeout {
			r.dropped.Add(1)
			<-slots
			continue
		}
		if lateness > LateAfter {
			r.late.Add(1)
		}
		sh := r.shards[i%int64(len(r.shards))]
		sh.mu.Lock()
		sh.record(iLate, lateness.Microseconds())
		sh.mu.Unlock()
		r.dispatched.Add(1)
		r.lastDispatch.Store(int64(now.Sub(start)))
		c := r.idle.pop()
		if c == nil {
			c = r.newCaller(ctx)
		}
		r.inflight.Add(1)
		go func(i int64) {
			r.do(ctx, c, i, intended, now)
			r.idle.push(c)
			<-slots
			r.inflight.Done()
		}(i)
	}
}

// finalSpin is how long before a send the open model stops sleeping and yields instead: a
// thread woken from nanosleep needs tens of microseconds to run Go code again.
const finalSpin = 100 * time.Microsecond

// callerStack is the open model's idle callers, the most recently used on top: as in
// net/http's idle connection pool, the next request takes the connection that was used
// last, so the connections opened for a burst age out at the bottom instead of every one of
// them being reused just as the server's idle timeout closes it.
type callerStack struct {
	mu sync.Mutex
	s  []*caller
}

func (st *callerStack) push(c *caller) {
	st.mu.Lock()
	st.s = append(st.s, c)
	st.mu.Unlock()
}

// pop returns the most recently pushed caller, or nil.
func (st *callerStack) pop() *caller {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := len(st.s)
	if n == 0 {
		return nil
	}
	c := st.s[n-1]
	st.s[n-1] = nil
	st.s = st.s[:n-1]
	return c
}

// closed runs the closed model: Concurrency workers, each sending as soon as its previous
// request finished. There is no schedule, so the intended time is the actual send.
func (r *runner) closed(ctx context.Context, start time.Time) {
	cfg := r.cfg
	var next atomic.Int64
	deadline := start.Add(cfg.Duration)
	// No more workers than requests, and none once the run is over: a Ctrl-C while they are
	// being started stops the starting (issue 24 item 1).
	for range closedWorkers(&cfg) {
		if ctx.Err() != nil {
			return
		}
		r.inflight.Go(func() {
			// A caller per worker: its context is a child of ctx registered once, not once per
			// request, so the workers do not serialise on ctx's lock.
			c := r.newCaller(ctx)
			defer c.close()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if cfg.Requests > 0 && i >= cfg.Requests {
					return
				}
				now := time.Now()
				if cfg.Duration > 0 && !now.Before(deadline) {
					return
				}
				r.dispatched.Add(1)
				r.do(ctx, c, i, now, now)
			}
		})
	}
}

// do sends request i through caller c, intended at intended and actually sent at sent, and
// records it. ctx is the run's context: when it is done, a failure is the run ending, not a
// measurement of the target.
//
// The end of a request is the moment its last response byte was read from the connection
// (timedConn.lastRead), not when this goroutine got round to noticing: after a stall
// hundreds of responses complete at once, and the scheduling and bookkeeping of the others
// must not be added to each one's latency.
func (r *runner) do(ctx context.Context, c *caller, i int64, intended, sent time.Time) {
	n := r.inFlightNow.Add(1)
	for {
		p := r.peakInFlight.Load()
		if n <= p || r.peakInFlight.CompareAndSwap(p, n) {
			break
		}
	}
	defer r.inFlightNow.Add(-1)

	cfg := &r.cfg
	fresh := cfg.Conn == "fresh" || (cfg.Conn == "both" && i%2 == 0)
	c.stream.reset(r.shards[i%int64(len(r.shards))])
	c.arm()
	var status int
	var t timings
	var end time.Time
	var err error
	switch {
	case r.proxied:
		status, t, end, err = r.viaTransport(c, fresh)
	case r.h2 != nil:
		status, t, end, err = r.h2.exchange(c, fresh)
	default:
		status, t, end, err = c.exchange(fresh)
	}
	if c.disarm(ctx) && err != nil {
		err = context.DeadlineExceeded // the probe's own --max-timeout, whatever path noticed it
	}
	if err != nil && ctx.Err() != nil {
		r.cut.Add(1) // interrupted or ended early: not a measurement of the target
		return
	}
	if end.IsZero() {
		end = time.Now()
	}
	r.record(i, &t, &c.stream, request{intended, sent, end}, status, err)
}

// request is when one request was intended, actually sent, and ended.
type request struct{ intended, sent, end time.Time }

// record adds one finished request to its shard; st is its stream, if it streamed.
func (r *runner) record(i int64, t *timings, st *streamState, q request, status int, err error) {
	sh := r.shards[i%int64(len(r.shards))]
	fresh := !t.reused
	var class = -1
	if err != nil {
		class = classify(err)
		if st.cutMidway(err, class) {
			class = errStreamCut
		}
	}
	sh.mu.Lock()
	if !t.reused {
		recordDial(sh, t)
	}
	if err != nil {
		sh.errs[class]++
		if e := &sh.samples[class]; e.msg == "" || i < e.at {
			e.msg, e.at = errorMessage(err, class, r.cfg.MaxTimeout), i
		}
	} else {
		sh.status[status]++
		recordResponse(sh, t, q, profile.GoodStatus(status))
	}
	recordStream(sh, st, fresh, q, class)
	sh.mu.Unlock()

	r.done.Add(1)
	if err != nil {
		r.failed.Add(1)
		if class == errRefused || class == errDNS || class == errTLS {
			if r.connectFails.Add(1) >= profile.UnreachableAfter && r.responses.Load() == 0 {
				r.unreachable.Store(true)
				r.cancel()
			}
		}
		return
	}
	r.responses.Add(1)
}

// recordDial records a fresh connection's DNS, connect and TLS times (shard locked).
func recordDial(sh *shard, t *timings) {
	if !t.dnsStart.IsZero() && !t.dnsDone.IsZero() {
		sh.record(iDNS, t.dnsDone.Sub(t.dnsStart).Microseconds())
	}
	if !t.connStart.IsZero() && !t.connDone.IsZero() {
		sh.record(iConnect, t.connDone.Sub(t.connStart).Microseconds())
	}
	if !t.tlsStart.IsZero() && !t.tlsDone.IsZero() && !t.tlsErr {
		sh.record(iTLS, t.tlsDone.Sub(t.tlsStart).Microseconds())
	}
}

// recordResponse records a response's TTFB, silence, total and sent (shard locked).
func recordResponse(sh *shard, t *timings, q request, good bool) {
	ttfb, tot, snt, sil := iTTFBReused, iTotalReused, iSentReused, iSilenceReused
	if !t.reused {
		ttfb, tot, snt, sil = iTTFBFresh, iTotalFresh, iSentFresh, iSilenceFresh
	}
	if !t.wrote.IsZero() && !t.firstByte.IsZero() {
		wait := t.firstByte.Sub(t.wrote)
		sh.record(ttfb, wait.Microseconds())
		silence := longestSilence(wait, q.sent.Sub(q.intended), t.maxGap).Microseconds()
		sh.record(sil, silence)
		if good {
			sh.record(iSilenceGood, silence)
		}
	}
	total := q.end.Sub(q.intended).Microseconds()
	sh.record(tot, total)
	sh.record(snt, q.end.Sub(q.sent).Microseconds())
	if good {
		sh.record(iGood, total)
	}
}

// recordStream records a streaming response (shard locked; nothing when it did not stream):
// its first event from the intended send, as the total (coordinated omission corrected), its
// events, its total when it completed, and its outcome — completed (class −1), cut, or timed
// out (and still streaming when it had sent an event). Its gaps were recorded as they were
// read (streamState.feed).
func recordStream(sh *shard, st *streamState, fresh bool, q request, class int) {
	if !st.streamed() {
		return
	}
	if st.events > 0 {
		first := iFirstEventReused
		if fresh {
			first = iFirstEventFresh
		}
		sh.record(first, (st.first-monoOf(q.intended))/1000)
	}
	if sh.hists[iStreamEvents] == nil {
		sh.hists[iStreamEvents] = profile.NewHistogram()
	}
	profile.RecordCount(sh.hists[iStreamEvents], st.events)
	sh.streams.Count++
	sh.streams.MaxEvents = max(sh.streams.MaxEvents, st.events)
	switch class {
	case -1:
		sh.streams.Completed++
		sh.record(iStreamTotal, q.end.Sub(q.intended).Microseconds())
	case errStreamCut:
		sh.streams.Cut++
	default: // errTimeout: cutMidway calls every other failure of a stream a cut
		sh.streams.TimedOut++
		if st.events > 0 {
			sh.streams.Streaming++ // answered, still streaming: longer than --max-timeout
		}
	}
}

// longestSilence is a response's longest silence (profile.Phases.Silence): the longer of its
// wait for the first byte and its longest pause between two reads. The wait counts from the
// write plus the send's lateness (actual − intended, 0 in the closed model): corrected for
// coordinated omission as the total is, since sent on time the request would have waited
// that much longer — but not the connect and TLS set-up before the write, which a read
// timeout's clock never sees (the connect timeout bounds them).
func longestSilence(wait, late, pause time.Duration) time.Duration {
	return max(wait+max(late, 0), pause)
}

// feed adds every shard to b, then what the run counted as a whole: the requests sent, those
// cut in flight, and the earliest error sample of each class.
func (r *runner) feed(b *profile.Builder) {
	first := [numErrorClasses]errorSample{}
	names := profile.SeriesNames()
	for _, sh := range r.shards {
		sh.mu.Lock()
		part := profile.Part{Series: map[string]*hdrhistogram.Histogram{}, Status: map[string]int64{}, Errors: map[string]int64{}}
		for i, name := range names {
			part.Series[name] = sh.hists[i]
		}
		for code, n := range sh.status {
			part.Status[statusKey(code)] += n
			part.Responses += n
		}
		for c, n := range sh.errs {
			part.Errors[profile.ErrorClasses[c]] += n
			if e := sh.samples[c]; e.msg != "" && (first[c].msg == "" || e.at < first[c].at) {
				first[c] = e
			}
		}
		part.Streams = sh.streams
		sh.mu.Unlock()
		b.Add(part)
	}
	whole := profile.Part{Requests: r.dispatched.Load(), InterruptedInFlight: r.cut.Load(), ErrorSamples: map[string]profile.ErrorSample{}}
	for c, e := range first {
		if e.msg != "" {
			class := profile.ErrorClasses[c]
			whole.ErrorSamples[class] = profile.ErrorSample{Message: e.msg, Hint: profile.ErrorHint(class, e.msg)}
		}
	}
	b.Add(whole)
}

// validPort checks a URL's port: none (the scheme's), or a number from 1 to 65535. Left to the
// dial, port 99999 would fail every request and read as a target that cannot be measured
// (exit 3) rather than the usage error it is.
func validPort(port string) error {
	if port == "" {
		return nil
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("port %s is not a port number (1 to 65535)", port)
	}
	return nil
}
