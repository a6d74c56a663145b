// Package live is the real-socket side of patience: Server, the loopback HTTP target that
// behaves like a scenario's target (`patience serve`), and Replay, the driver that plays a
// scenario's load through real net/http clients governed by the same policy code
// as the simulator (`patience replay --live`).
//
// The server follows the simulator's target model (sim doc) on real sockets:
//
//   - Time. Scenario time is wall time since Start multiplied by Speed; phases and latencies
//     are divided by Speed in real time. Retry-After values are written in scenario time
//     (the header has one-second resolution, so 0.2 s cannot be written); `replay --live`
//     divides them by the speed it runs at.
//   - Faults are drawn per request at arrival, tried in order against one uniform draw.
//     status answers at once (Retry-After as delay-seconds, or as an HTTP-date beside a Date
//     header computed from the same instant); hang holds the request until the client gives
//     up or the server stops; reset serves the request (the side effect happens) and then
//     closes the connection with SO_LINGER 0, so the client reads an RST — the "outcome
//     unknown" case; refuse at 100% closes the listening socket for the phase (connect(2)
//     gets ECONNREFUSED) and reopens it after. Partial refusal cannot refuse one SYN from
//     user space: it is approximated by an RST before the request is processed (no side
//     effect); the in-process live driver reclassifies those as refused connects.
//   - Connect latency is not injected here (the kernel completes handshakes before Accept);
//     the live driver applies target.connect in its dialer.
//   - Capacity: N workers and a FIFO queue; overflow answers 503 at once; queued and running
//     work continues after the client left (wasted work). Stall phases pause service.
//   - Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): checked when a request
//     reaches the application (after faults): in flight → 409, different payload (SHA-256
//     fingerprint of the body) → 422, completed → the stored response replayed with no
//     second side effect.
//   - Streams: a stream target answers with SSE or NDJSON events paced by first_event and
//     gap, drops and stalls some, and records what it sent (stream.go); it does not store
//     responses under an Idempotency-Key.
package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/scenario"
)

// StatsPath serves the server's counters as JSON.
const StatsPath = "/.well-known/patience/stats"

// StatsSchema is the schema of the stats document.
const StatsSchema = "patience/serve-stats/v1"

// MaxBody bounds request bodies; larger ones answer 413 (go-httpbin's default too).
const MaxBody = 1 << 20

// drainMax is how much of an oversized body is read and discarded before the 413.
const drainMax = 4 << 20

// ServerOptions configure a Server.
type ServerOptions struct {
	// Speed divides every duration of the scenario in real time (default 1).
	Speed float64
	// Seed seeds the server's fault and latency draws (default: the scenario's seed).
	Seed int64
	// Log receives one line per phase change and per listener pause (nil = discard).
	Log io.Writer

	// Limits that keep the server up whatever its clients do (0: the defaults below).
	// IdempotencyTTL is how long a key is kept (DefaultIdempotencyTTL); MaxKeys and
	// MaxLogicalIDs cap the keys and logical ids kept at once, least recently used first out.
	IdempotencyTTL time.Duration
	MaxKeys        int
	MaxLogicalIDs  int
	// MaxConns caps open connections (DefaultMaxConns): one past it is answered 503 and
	// closed, with a line in Log.
	MaxConns int
	// ReadTimeout bounds reading a request's headers and body, WriteTimeout writing its
	// response, IdleTimeout a keep-alive connection between requests (DefaultReadTimeout,
	// DefaultWriteTimeout, DefaultIdleTimeout). Service time is not bounded: a hang or a
	// stall holds a request as long as the scenario says.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// Defaults of ServerOptions' limits: a slow body gets 30 s, an idle keep-alive connection a
// minute (nginx's keepalive_timeout is 75 s), and 4,096 connections fit the smallest common
// descriptor limit twice over.
const (
	DefaultReadTimeout  = 30 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	DefaultIdleTimeout  = time.Minute
	DefaultMaxConns     = 4096
)

// Server is a fault-injecting HTTP target driven by a scenario's target model.
type Server struct {
	sc    *scenario.Scenario
	speed float64
	seed  int64
	log   io.Writer

	mu  sync.Mutex // guards rng and the maps in stats
	rng *rand.Rand

	keys *keyStore
	opts ServerOptions

	start    time.Time
	ln       *gateListener
	srv      *http.Server
	stopping chan struct{}
	stopOnce sync.Once
	done     chan struct{}

	// stalls are the stall phases' windows, sorted by start.
	stalls scenario.Stalls

	// capacity
	slots chan struct{} // nil = unbounded
	queue int           // max queued

	// counters (atomic where hot; maps under mu)
	requests    atomic.Int64
	inFlight    atomic.Int64
	queued      atomic.Int64
	busy        atomic.Int64
	overflow    atomic.Int64
	connRefused atomic.Int64
	panics      atomic.Int64
	sideEff     atomic.Int64
	replayed    atomic.Int64
	wasted      atomic.Int64
	byStatus    map[int]int64
	byFault     map[string]int64
	executions  *idCounts // logical id → executions of a non-idempotent request (LRU)
	dupes       int64
	dupesByTag  map[string]int64
	refusedBy   map[string]bool // remote addresses answered with a refusal RST
	// streamRec is the record of a stream target's streams (nil when the target does not
	// stream; stream.go).
	streamRec *streamRecord
}

// NewServer prepares a server for sc; Start opens the socket.
func NewServer(sc *scenario.Scenario, opts ServerOptions) *Server {
	speed := speedOrDefault(opts.Speed)
	seed := opts.Seed
	if seed == 0 {
		seed = sc.Seed
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	s := &Server{
		sc:         sc,
		speed:      speed,
		seed:       seed,
		log:        log,
		rng:        rand.New(rand.NewPCG(uint64(seed), 0x7365727665)), // "serve": its own stream
		keys:       newKeyStoreWith(opts.IdempotencyTTL, opts.MaxKeys),
		opts:       opts,
		stopping:   make(chan struct{}),
		done:       make(chan struct{}),
		byStatus:   map[int]int64{},
		byFault:    map[string]int64{},
		executions: newIDCounts(opts.MaxLogicalIDs),
		dupesByTag: map[string]int64{},
		refusedBy:  map[string]bool{},
		stalls:     sc.Stalls(),
	}
	if sc.Target.Stream != nil {
		s.streamRec = newStreamRecord()
	}
	if c := sc.Target.Capacity; c != nil && c.Workers > 0 {
		s.slots = make(chan struct{}, c.Workers)
		s.queue = c.Queue
	}
	return s
}

// Start listens on addr ("127.0.0.1:0" picks a port) and serves in the background until
// Stop. Phases are timed from the moment Start returns.
func (s *Server) Start(addr string) error {
	ln, err := newGateListener("tcp", addr)
	if err != nil {
		return err
	}
	s.ln = ln
	o := &s.opts
	o.ReadTimeout = orDefault(o.ReadTimeout, DefaultReadTimeout)
	o.WriteTimeout = orDefault(o.WriteTimeout, DefaultWriteTimeout)
	o.IdleTimeout = orDefault(o.IdleTimeout, DefaultIdleTimeout)
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	s.srv = &http.Server{
		Handler:           s.recoverMiddleware(s),
		ReadHeaderTimeout: min(10*time.Second, o.ReadTimeout),
		// ReadTimeout covers the headers and the body (slow bodies); ServeHTTP lifts it
		// once the body is read, so a long service is not cut short.
		ReadTimeout:    o.ReadTimeout,
		IdleTimeout:    o.IdleTimeout,
		MaxHeaderBytes: 64 << 10,
		// net/http's own complaints (accept errors, TLS probes) go to our log, not to the
		// process-wide logger on stderr.
		ErrorLog: log.New(s.log, "serve: ", 0),
	}
	if s.sc.Target.Conflicts == "single-row" {
		fmt.Fprintln(s.log, "serve: warning: conflicts: single-row is not modelled on real sockets yet; writes never conflict")
	}
	s.start = time.Now()
	go func() {
		_ = s.srv.Serve(&capListener{Listener: ln, max: int64(o.MaxConns), log: s.log, refused: &s.connRefused})
	}()
	go s.phaseLoop()
	return nil
}

// URL is the base URL clients use.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Stop ends the server: hanging and queued requests are released, open connections are
// closed after at most grace.
func (s *Server) Stop(grace time.Duration) error {
	var err error
	s.stopOnce.Do(func() {
		close(s.stopping)
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		err = s.srv.Shutdown(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = s.srv.Close()
		}
		_ = s.ln.Close()
		<-s.done
	})
	return err
}

// Run starts the server and serves until ctx ends or, when forDur > 0, for forDur.
func (s *Server) Run(ctx context.Context, addr string, forDur time.Duration) error {
	if err := s.Start(addr); err != nil {
		return err
	}
	return s.Wait(ctx, forDur)
}

// Wait serves until ctx ends or forDur elapses (0 = until ctx ends), then stops.
func (s *Server) Wait(ctx context.Context, forDur time.Duration) error {
	var timeout <-chan time.Time
	if forDur > 0 {
		t := time.NewTimer(forDur)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
	case <-timeout:
	}
	return s.Stop(5 * time.Second)
}

// ScenarioTime is the scenario time now: wall time since Start × Speed.
func (s *Server) ScenarioTime() time.Duration { return s.scenarioTime(time.Now()) }

func (s *Server) scenarioTime(t time.Time) time.Duration {
	return time.Duration(float64(t.Sub(s.start)) * s.speed)
}

// real converts a scenario duration to wall time.
func (s *Server) real(d time.Duration) time.Duration { return time.Duration(float64(d) / s.speed) }

// phaseAt returns the index of the phase in force at scenario time t (-1 = none) and the
// phase (nil = none), by the simulator's rule.
func (s *Server) phaseAt(t time.Duration) (int, *scenario.Phase) {
	i := s.sc.PhaseAt(t)
	if i < 0 {
		return -1, nil
	}
	return i, &s.sc.Target.Phases[i]
}

// fullRefusal says whether a phase refuses every connection.
func fullRefusal(p *scenario.Phase) bool {
	if p == nil {
		return false
	}
	for _, f := range p.Faults {
		if f.Kind == scenario.FaultRefuse && f.Percent >= 1 {
			return true
		}
	}
	return false
}

// phaseLoop logs phase changes and closes the listening socket during 100% refuse phases.
func (s *Server) phaseLoop() {
	defer close(s.done)
	var cur *scenario.Phase
	first := true
	for {
		now := s.ScenarioTime()
		_, p := s.phaseAt(now)
		if first || p != cur {
			fmt.Fprintf(s.log, "serve: at %s phase %s\n", units.Duration(now.Round(time.Millisecond)), phaseName(p))
			if fullRefusal(p) {
				if err := s.ln.pause(); err == nil {
					fmt.Fprintf(s.log, "serve: listener closed (refuse 100%%) until %s\n", units.Duration(p.End()))
				}
			} else if s.ln.paused() {
				if err := s.ln.resume(); err != nil {
					fmt.Fprintf(s.log, "serve: cannot reopen the listener: %v\n", err)
				} else {
					fmt.Fprintln(s.log, "serve: listener reopened")
				}
			}
			cur, first = p, false
		}
		next := s.nextBoundary(now)
		var wait <-chan time.Time
		var t *time.Timer
		if next >= 0 {
			t = time.NewTimer(s.real(next-now) + time.Millisecond)
			wait = t.C
		}
		select {
		case <-s.stopping:
			if t != nil {
				t.Stop()
			}
			return
		case <-wait:
		}
	}
}

// nextBoundary is the next phase start or end after t (-1 = none).
func (s *Server) nextBoundary(t time.Duration) time.Duration {
	next := time.Duration(-1)
	for _, p := range s.sc.Target.Phases {
		for _, b := range []time.Duration{p.At, p.End()} {
			if b > t && (next < 0 || b < next) {
				next = b
			}
		}
	}
	return next
}

// drawFault picks the fault for one request (nil = none) from the server's own stream.
func (s *Server) drawFault(p *scenario.Phase) *scenario.Fault {
	if p == nil || len(p.Faults) == 0 {
		return nil
	}
	s.mu.Lock()
	u := s.rng.Float64()
	s.mu.Unlock()
	return pickFault(p, u)
}

// pickFault maps a uniform draw u to a fault of phase p (nil = none) by the simulator's
// rule (sim.PickFault).
func pickFault(p *scenario.Phase, u float64) *scenario.Fault {
	if i := p.PickFault(u); i >= 0 {
		return &p.Faults[i]
	}
	return nil
}

// sampleLatency draws a service time (scenario time) from the server's own stream, from the
// distribution in force in phase (an index, -1 = none; sim.PhaseLatency).
func (s *Server) sampleLatency(phase int) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sc.PhaseLatency(phase).Sample(s.rng)
}

// sleep waits a real duration, or less if the server stops; it says whether it slept fully.
func (s *Server) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.stopping:
		return false
	}
}

func (s *Server) countStatus(code int) {
	s.mu.Lock()
	s.byStatus[code]++
	s.mu.Unlock()
}

func (s *Server) countFault(kind string) {
	s.mu.Lock()
	s.byFault[kind]++
	s.mu.Unlock()
}

// execute performs the request's side effect: one execution of a non-idempotent request,
// counted per logical request so duplicates show.
func (s *Server) execute(r *http.Request, logical string) {
	if (scenario.Request{Method: r.Method}).Idempotent() {
		return
	}
	s.sideEff.Add(1)
	if logical == "" {
		return // no logical id: it cannot be told apart from a retry, so it is not kept
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.executions.add(logical) > 1 {
		s.dupes++
		if tag, _, ok := parseLogicalID(logical); ok && tag != "" {
			s.dupesByTag[tag]++
		}
	}
}

// ServeHTTP handles one request through the target model, in stages: read the request,
// draw the phase's fault, answer the faults that end it, then the application (idempotency
// key, a worker, the service time, the side effect).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == StatsPath {
		s.writeStats(w)
		return
	}
	arrival := time.Now()
	s.requests.Add(1)
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)

	in, ok := s.readIncoming(w, r)
	if !ok {
		return
	}
	readAt := time.Now()
	pi, phase := s.phaseAt(s.scenarioTime(arrival))
	draws := s.drawsOf(r, in.logical)
	var fault *scenario.Fault
	if draws != nil {
		fault = pickFault(phase, draws.u)
	} else {
		fault = s.drawFault(phase)
	}
	if s.answerFault(w, r, fault) {
		return
	}
	reset := fault != nil && fault.Kind == scenario.FaultReset
	if reset {
		s.countFault(string(fault.Kind))
	}
	if s.streamRec != nil {
		// A stream is not stored under an Idempotency-Key: the simulator has no streams to
		// agree with, and a replayed stream would not be the one the key first got.
		s.serveStream(w, r, in.logical, draws, readAt, pi, reset)
		return
	}
	if !s.beginKey(w, in, reset) {
		return
	}
	s.serve(w, r, in, pi, draws, reset)
}

// incoming is a request as read: its body, its idempotency key and its logical id (the key
// when the request has no logical id).
type incoming struct {
	body    []byte
	key     string
	logical string
}

// readIncoming reads the body and the headers the target model reads, or answers the
// request itself when it is malformed (a body too large or unreadable, a bad key, a logical
// id too long).
func (s *Server) readIncoming(w http.ResponseWriter, r *http.Request) (incoming, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		w.Header().Set("Connection", "close")
		s.plain(w, http.StatusBadRequest, "cannot read the request body: "+err.Error())
		return incoming{}, false
	}
	// The request is read: from here the service time is the scenario's, however long,
	// and the client's leaving (not a read deadline) is what ends it early.
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	if len(body) > MaxBody {
		// Drain a few MiB more so the client, still writing, reads the 413 instead of an
		// RST; beyond that the connection is closed under it.
		_, _ = io.CopyN(io.Discard, r.Body, drainMax)
		w.Header().Set("Connection", "close")
		s.plain(w, http.StatusRequestEntityTooLarge, "request body over 1 MiB")
		return incoming{}, false
	}
	in := incoming{body: body}
	if vals := r.Header.Values(IdempotencyKeyHeader); len(vals) > 1 {
		s.plain(w, http.StatusBadRequest, "more than one Idempotency-Key")
		return incoming{}, false
	} else if len(vals) == 1 {
		if in.key, err = ParseIdempotencyKey(vals[0]); err != nil {
			s.plain(w, http.StatusBadRequest, err.Error())
			return incoming{}, false
		}
	}
	in.logical = r.Header.Get(LogicalIDHeader)
	if len(in.logical) > MaxLogicalIDLen {
		s.plain(w, http.StatusRequestHeaderFieldsTooLarge, fmt.Sprintf("%s longer than %d bytes", LogicalIDHeader, MaxLogicalIDLen))
		return incoming{}, false
	}
	if in.logical == "" {
		in.logical = in.key
	}
	return in, true
}

// drawsOf is the simulator's draws for this attempt (common random numbers) when the request
// carries a numeric logical id and an attempt index; nil otherwise, and the draws come from
// the server's own stream.
func (s *Server) drawsOf(r *http.Request, logical string) *targetDraws {
	_, id, ok := parseLogicalID(logical)
	if !ok {
		return nil
	}
	j, err := strconv.ParseUint(r.Header.Get(AttemptHeader), 10, 32)
	if err != nil {
		return nil
	}
	d := attemptDraws(s.sc, s.seed, id, j)
	return &d
}

// answerFault answers the faults that end the request before the application sees it (a
// status, a hang until the client leaves, a drip, a refusal) and says whether it did.
func (s *Server) answerFault(w http.ResponseWriter, r *http.Request, fault *scenario.Fault) bool {
	if fault == nil {
		return false
	}
	switch fault.Kind {
	case scenario.FaultStatus:
		s.countFault(string(fault.Kind))
		s.writeStatusFault(w, fault)
		return true
	case scenario.FaultHang:
		s.countFault(string(fault.Kind))
		select {
		case <-r.Context().Done():
		case <-s.stopping:
		}
		return true
	case scenario.FaultDrip:
		s.countFault(string(fault.Kind))
		s.drip(w, r, fault.Drip)
		return true
	case scenario.FaultRefuse:
		s.countFault(string(fault.Kind))
		s.mu.Lock()
		s.refusedBy[r.RemoteAddr] = true
		s.mu.Unlock()
		s.resetConn(w)
		return true
	}
	return false
}

// beginKey is the idempotency step of the application, first (a queued request with a key
// is in flight): it answers a key still in flight, a key reused with another payload and a
// key already done (the stored response), and says whether the request goes on to a worker.
func (s *Server) beginKey(w http.ResponseWriter, in incoming, reset bool) bool {
	if in.key == "" {
		return true
	}
	verdict, stored := s.keys.begin(in.key, fingerprint(in.body))
	switch verdict {
	case keyInFlight:
		s.plain(w, http.StatusConflict, "a request with this Idempotency-Key is still in flight")
		return false
	case keyMismatch:
		s.plain(w, http.StatusUnprocessableEntity, "this Idempotency-Key was used with a different payload")
		return false
	case keyDone:
		s.replayed.Add(1)
		s.replay(w, stored, reset)
		return false
	}
	return true
}

// serve is the rest of the application: a worker (or 503 over capacity), the service time
// of phase pi, the side effect, the response stored under the key, and the answer (or the
// reset fault's RST).
func (s *Server) serve(w http.ResponseWriter, r *http.Request, in incoming, pi int, draws *targetDraws, reset bool) {
	release, ok := s.admit()
	if !ok {
		if in.key != "" {
			s.keys.release(in.key)
		}
		s.overflow.Add(1)
		s.plain(w, http.StatusServiceUnavailable, "over capacity")
		return
	}
	var service time.Duration
	if draws != nil {
		service = s.sc.PhaseLatency(pi).Sample(draws.rng)
	} else {
		service = s.sampleLatency(pi)
	}
	// Service pauses through stall phases (the simulator's rule): work of length d started
	// at t ends at Advance(t, d).
	started := s.ScenarioTime()
	served := s.sleep(s.real(s.stalls.Advance(started, service) - started))
	release()
	if !served { // the server is stopping
		if in.key != "" {
			s.keys.release(in.key)
		}
		return
	}
	s.execute(r, in.logical)
	if r.Context().Err() != nil {
		s.wasted.Add(1)
	}
	resp := &storedResponse{status: http.StatusOK, header: http.Header{"Content-Type": {"application/json"}},
		body: []byte(`{"ok":true}` + "\n")}
	if in.key != "" {
		s.keys.finish(in.key, resp)
	}
	if reset {
		s.resetConn(w)
		return
	}
	s.write(w, resp)
}

// admit takes a worker, waiting in the FIFO queue when all are busy; it refuses at once
// when the queue is full. Waiting is not abandoned when the client leaves: queued work is
// still done (the simulator's wasted work).
func (s *Server) admit() (release func(), ok bool) {
	if s.slots == nil {
		s.busy.Add(1)
		return func() { s.busy.Add(-1) }, true
	}
	select {
	case s.slots <- struct{}{}:
	default:
		if s.queued.Add(1) > int64(s.queue) {
			s.queued.Add(-1)
			return nil, false
		}
		select {
		case s.slots <- struct{}{}:
			s.queued.Add(-1)
		case <-s.stopping:
			s.queued.Add(-1)
			return nil, false
		}
	}
	s.busy.Add(1)
	return func() { s.busy.Add(-1); <-s.slots }, true
}

// writeStatusFault answers a status fault, with Retry-After when the fault sets one. The
// HTTP-date form is written against a Date header from the same instant, truncated to the
// second, so `Retry-After − Date` is exactly the delay (RFC 9110 §10.2.3, §6.6.1).
func (s *Server) writeStatusFault(w http.ResponseWriter, f *scenario.Fault) {
	h := w.Header()
	if ra := f.RetryAfter; ra != nil {
		now := time.Now().UTC().Truncate(time.Second)
		h.Set("Date", now.Format(http.TimeFormat))
		if ra.Date {
			h.Set("Retry-After", now.Add(ra.Delay).Format(http.TimeFormat))
		} else {
			secs := int64((ra.Delay + time.Second - 1) / time.Second) // delay-seconds is an integer: round up
			h.Set("Retry-After", strconv.FormatInt(secs, 10))
		}
	}
	s.plain(w, f.Status, http.StatusText(f.Status))
}

// drip answers a drip fault: 200 with its head (Content-Length the body's size, so the
// client knows how much is coming) flushed at once, then the body d.Bytes at a time with
// d.Every (scaled by --speed) before each piece. A client that goes away or a server that
// stops ends it at once; each piece has WriteTimeout of its own, so the whole drip may
// outlast one while a client that stops reading still cannot hold the handler.
func (s *Server) drip(w http.ResponseWriter, r *http.Request, d *scenario.Drip) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(d.Size))
	s.countStatus(http.StatusOK)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return
	}
	body := dripBody(d.Size)
	every := s.real(d.Every)
	t := time.NewTimer(every)
	defer t.Stop()
	for sent := 0; sent < len(body); {
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.stopping:
			return
		}
		n := min(d.Bytes, len(body)-sent)
		if s.opts.WriteTimeout > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		}
		if _, err := w.Write(body[sent : sent+n]); err != nil || rc.Flush() != nil {
			return
		}
		sent += n
		t.Reset(every)
	}
}

// dripBody is a drip fault's body: size bytes of dots, the last a newline.
func dripBody(size int) []byte {
	b := bytes.Repeat([]byte{'.'}, size)
	b[size-1] = '\n'
	return b
}

// resetConn hijacks the connection and closes it with SO_LINGER 0, so the kernel sends RST
// instead of FIN (Toxiproxy's reset_peer does the same).
func (s *Server) resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // HTTP/2: abort the stream
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	raw := conn
	if cc, ok := conn.(*cappedConn); ok {
		raw = cc.Conn
	}
	if tc, ok := raw.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

func (s *Server) replay(w http.ResponseWriter, resp *storedResponse, reset bool) {
	if reset {
		s.resetConn(w)
		return
	}
	w.Header().Set(ReplayedHeader, "true")
	s.write(w, resp)
}

func (s *Server) write(w http.ResponseWriter, resp *storedResponse) {
	for k, v := range resp.header {
		w.Header()[k] = v
	}
	s.countStatus(resp.status)
	w.WriteHeader(resp.status)
	_, _ = w.Write(resp.body)
}

func (s *Server) plain(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.countStatus(code)
	w.WriteHeader(code)
	_, _ = io.WriteString(w, msg+"\n")
}

// recoverMiddleware is the last resort: a panic answers 500 and is counted, never crashing
// the server. http.ErrAbortHandler passes through (it is how a handler aborts on purpose).
func (s *Server) recoverMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = &deadlineWriter{ResponseWriter: w, d: s.opts.WriteTimeout}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.panics.Add(1)
				s.plain(w, http.StatusInternalServerError, "internal error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// Baseline is the name of the target's behaviour outside every phase: before the first, between
// phases and after the last, until the server stops.
const Baseline = "baseline"

// phaseName is the name of phase p, Baseline for none: the name the phase log and Stats share.
func phaseName(p *scenario.Phase) string {
	if p == nil {
		return Baseline
	}
	return p.Name
}

// Stats are the server's counters, served at StatsPath.
type Stats struct {
	Schema   string `json:"schema"`
	Scenario string `json:"scenario"`
	// URL is the base URL the server listens on ("" before Start).
	URL string `json:"url"`
	// UptimeMs is wall time since start; ScenarioTimeMs the scenario time (× speed).
	UptimeMs       float64 `json:"uptime_ms"`
	ScenarioTimeMs float64 `json:"scenario_time_ms"`
	Speed          float64 `json:"speed"`
	// Phase is the phase in force, Baseline outside every phase: the name the phase log on
	// stderr gives.
	Phase string `json:"phase"`
	// Requests counts requests handled (the stats endpoint excluded).
	Requests int64            `json:"requests"`
	ByStatus map[string]int64 `json:"by_status"`
	ByFault  map[string]int64 `json:"by_fault"`
	// SideEffects counts executions of non-idempotent requests.
	SideEffects int64 `json:"side_effects"`
	// DuplicateSideEffects counts executions beyond the first per logical request (by
	// Patience-Logical-Id, else Idempotency-Key).
	DuplicateSideEffects int64 `json:"duplicate_side_effects"`
	// DuplicatesByTag splits DuplicateSideEffects by the TAG of logical ids "TAG:N" (the
	// live driver tags each policy, so several policies can share one --target).
	DuplicatesByTag map[string]int64 `json:"duplicates_by_tag"`
	// Keys counts Idempotency-Keys stored; Replayed the responses replayed from them.
	Keys     int   `json:"keys"`
	Replayed int64 `json:"replayed"`
	InFlight int64 `json:"in_flight"`
	// Queue is the number of requests waiting for a worker; Busy the workers serving.
	Queue    int64 `json:"queue"`
	Busy     int64 `json:"busy"`
	Overflow int64 `json:"overflow"`
	// Wasted counts requests served after their client had gone.
	Wasted int64 `json:"wasted"`
	Panics int64 `json:"panics"`
	// Listening is false while a 100% refuse phase keeps the socket closed.
	Listening bool `json:"listening"`
	// ConnsRefused counts connections past MaxConns (answered 503 and closed); KeysEvicted
	// the Idempotency-Keys forgotten because MaxKeys were kept.
	ConnsRefused int64 `json:"conns_refused,omitempty"`
	KeysEvicted  int64 `json:"keys_evicted,omitempty"`
	// Streams is the record of what a stream target sent (absent when the target does not
	// stream).
	Streams *StreamStats `json:"streams,omitempty"`
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	now := time.Now()
	st := Stats{
		Schema: StatsSchema, Scenario: s.sc.Name, Speed: s.speed,
		UptimeMs:       float64(now.Sub(s.start)) / 1e6,
		ScenarioTimeMs: float64(s.scenarioTime(now)) / 1e6,
		Requests:       s.requests.Load(),
		ByStatus:       map[string]int64{},
		ByFault:        map[string]int64{},
		SideEffects:    s.sideEff.Load(),
		Keys:           s.keys.len(),
		ConnsRefused:   s.connRefused.Load(),
		KeysEvicted:    s.keys.evictedCount(),
		Replayed:       s.replayed.Load(),
		InFlight:       s.inFlight.Load(),
		Queue:          s.queued.Load(),
		Busy:           s.busy.Load(),
		Overflow:       s.overflow.Load(),
		Wasted:         s.wasted.Load(),
		Panics:         s.panics.Load(),
		Listening:      s.ln != nil && !s.ln.paused(),
	}
	if s.ln != nil {
		st.URL = s.URL()
	}
	if s.streamRec != nil {
		st.Streams = s.streamRec.stats()
	}
	_, p := s.phaseAt(s.scenarioTime(now))
	st.Phase = phaseName(p)
	s.mu.Lock()
	for k, v := range s.byStatus {
		st.ByStatus[strconv.Itoa(k)] = v
	}
	for k, v := range s.byFault {
		st.ByFault[k] = v
	}
	st.DuplicateSideEffects = s.dupes
	st.DuplicatesByTag = map[string]int64{}
	for k, v := range s.dupesByTag {
		st.DuplicatesByTag[k] = v
	}
	s.mu.Unlock()
	return st
}

// WasRefused says whether the server answered a connection from remoteAddr with a refusal
// RST (partial refuse). The in-process driver uses it to classify that reset as a refused
// connect, which is what the scenario meant.
func (s *Server) WasRefused(remoteAddr string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusedBy[remoteAddr]
}

func (s *Server) writeStats(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(s.Stats())
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// deadlineWriter gives a response WriteTimeout from its first byte: a client that stops
// reading cannot hold the handler, while the service before it (a stall, a long queue) is
// the scenario's and unbounded — which http.Server.WriteTimeout, counted from the request,
// could not tell apart.
type deadlineWriter struct {
	http.ResponseWriter
	d     time.Duration
	armed bool
}

func (w *deadlineWriter) arm() {
	if !w.armed && w.d > 0 {
		w.armed = true
		_ = http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now().Add(w.d))
	}
}

func (w *deadlineWriter) WriteHeader(code int) { w.arm(); w.ResponseWriter.WriteHeader(code) }

func (w *deadlineWriter) Write(b []byte) (int, error) { w.arm(); return w.ResponseWriter.Write(b) }

// Unwrap lets http.ResponseController reach the connection (deadlines, Hijack, Flush).
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack is the connection's, for the reset and refuse faults.
func (w *deadlineWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// capListener caps open connections at max: one more is answered 503 at once and closed,
// so a flood of idle or slow connections cannot exhaust the process's descriptors while the
// clients already connected are still served. It logs the first refusal and then one line
// per second with the count.
type capListener struct {
	net.Listener
	max     int64
	open    atomic.Int64
	log     io.Writer
	refused *atomic.Int64
	mu      sync.Mutex
	logged  time.Time
}

// overCapacityResponse is the whole answer to a connection past the cap.
const overCapacityResponse = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 25\r\nRetry-After: 1\r\n\r\ntoo many open connections"

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &cappedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		n := l.refused.Add(1)
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = io.WriteString(c, overCapacityResponse)
		_ = c.Close()
		l.mu.Lock()
		if now := time.Now(); now.Sub(l.logged) >= time.Second {
			l.logged = now
			fmt.Fprintf(l.log, "serve: %d open connections, the cap (--max-conns): answered 503 and closed (%d so far)\n", l.max, n)
		}
		l.mu.Unlock()
	}
}

type cappedConn struct {
	net.Conn
	l    *capListener
	once sync.Once
}

func (c *cappedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}
