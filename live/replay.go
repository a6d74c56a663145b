package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/internal/eventscan"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// DefaultMaxConcurrency bounds the attempts in flight across all policies of a live replay
// (file descriptors and goroutines), lowered to what the descriptor limit allows; attempts
// over it wait, and Replay says so on its log. A thundering herd (load.burst) larger than
// this is spread out by it: real sockets cannot open thousands of connections in the same
// instant the way the simulator's clock can.
const DefaultMaxConcurrency = 1024

// ErrNotLoopback is returned when --target is not a loopback URL: live replay sends traffic
// only to this machine.
var ErrNotLoopback = errors.New("live replay: --target must be a loopback http URL (127.0.0.1, ::1 or localhost)")

// Options configure Replay.
type Options struct {
	// Speed divides every duration of the scenario and of the policies in real time
	// (default 1).
	Speed float64
	// Target is the base URL of a running `patience serve`; "" starts one server per policy
	// in-process on 127.0.0.1.
	Target string
	// MaxConcurrency caps attempts in flight across all policies (default 1024, or less
	// when the file descriptor limit is lower).
	MaxConcurrency int
	// Log receives the up-front run-time estimate and warnings (nil = discard).
	Log io.Writer
	// Fidelity, when set, receives how late the process's timers ran during the replay.
	Fidelity *Fidelity
	// Progress, when set, is called about every ProgressEvery while the replay runs, and once
	// at its end, with the scenario time its arrivals have covered and the whole of it, in
	// milliseconds, summed over the policies: done reaches total only when every policy's
	// replay (its drain included) is over. It is what a progress bar follows: a live replay
	// takes real time, a minute or more.
	Progress func(done, total int)
	// Sequential replays the policies one after another, each against a fresh in-process
	// server, instead of all at once: a fraction of the CPU at any moment, for a busy
	// machine, at the cost of real time. Ignored with Target (its phases run on its own
	// clock).
	Sequential bool
}

// Fidelity measures how well the machine kept time during a live replay: a 5 ms ticker's
// lateness. Every real delay is a scenario delay × Speed, so a 20 ms stall at speed 10 is
// 200 ms of scenario time in which timeouts fire late and responses queue up; agreement
// with the simulator is only meaningful when these are small beside the policy's timeouts.
type Fidelity struct {
	// LatenessP50, LatenessP99 and LatenessMax are real time.
	LatenessP50 time.Duration
	LatenessP99 time.Duration
	LatenessMax time.Duration
	// Scale is the speed: multiply a lateness by it for scenario time.
	Scale float64
}

// ProgressEvery is how often Replay calls Options.Progress.
const ProgressEvery = 200 * time.Millisecond

// watchClock samples timer lateness until stop is closed.
func watchClock(stop <-chan struct{}, out *Fidelity, speed float64) {
	h := hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3)
	const tick = 5 * time.Millisecond
	t := time.NewTimer(tick)
	defer t.Stop()
	want := time.Now().Add(tick)
	for {
		select {
		case <-stop:
			out.LatenessP50 = time.Duration(h.ValueAtQuantile(50)) * time.Microsecond
			out.LatenessP99 = time.Duration(h.ValueAtQuantile(99)) * time.Microsecond
			out.LatenessMax = time.Duration(h.Max()) * time.Microsecond
			out.Scale = speed
			return
		case now := <-t.C:
			_ = h.RecordValue(max(int64(now.Sub(want)/time.Microsecond), 0))
			want = now.Add(tick)
			t.Reset(tick)
		}
	}
}

// CheckTarget validates a --target URL: http, loopback host, a port.
func CheckTarget(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("%w: %q", ErrNotLoopback, probe.RedactURL(raw))
	}
	host := u.Hostname()
	if host == "localhost" {
		return u, nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%w: %q", ErrNotLoopback, probe.RedactURL(raw))
	}
	return u, nil
}

// Estimate is the real run time of a live replay: arrivals last Duration/Speed; the run
// may go on up to (Duration+Drain)/Speed while requests finish.
func Estimate(sc *scenario.Scenario, speed float64) (typical, most time.Duration) {
	speed = speedOrDefault(speed)
	return time.Duration(float64(sc.Duration) / speed), time.Duration(float64(sc.Duration+sc.DrainOrDefault()) / speed)
}

// MinSpeed and MaxSpeed bound Options.Speed and ServerOptions.Speed, the time compression of
// a live replay and of serve; cmd's --speed checks against them (the one definition). Above
// 1000 a scenario's millisecond is a microsecond of real time, below what timers on a busy
// machine keep; below 0.01 the bundled 4-minute scenario takes 6 h 40 min and a 24 h one 100
// days, and past that a scenario's durations divided by the factor leave time.Duration's
// range (1e-308 made a 4-minute replay "0 ms" and serve's clock NaN).
const (
	MinSpeed float64 = 0.01
	MaxSpeed float64 = 1000
)

// SpeedInRange says whether speed is a time compression live replay and serve accept:
// within [MinSpeed, MaxSpeed], NaN not. Replay and cmd's --speed bound both ask it.
func SpeedInRange(speed float64) bool { return speed >= MinSpeed && speed <= MaxSpeed }

// speedOrDefault is speed, or 1 (real time) when it is not set (0 or below).
func speedOrDefault(speed float64) float64 {
	if speed <= 0 {
		return 1
	}
	return speed
}

// Replay plays sc's load against a real loopback server with real net/http clients, every
// policy at once on the same arrivals (each against its own in-process server, or all
// against Target with per-policy tags), the policies' decisions taken by the same
// policy code as the simulator. Scenario time is wall time since start × Speed.
// The result has the simulator's schema with Mode "live". On cancellation Replay returns
// what it has with Interrupted set, together with ctx's error.
func Replay(ctx context.Context, sc *scenario.Scenario, opts Options) (*replay.Result, error) {
	if sc == nil {
		return nil, errors.New("live replay: nil scenario")
	}
	speed := speedOrDefault(opts.Speed)
	if !SpeedInRange(speed) {
		return nil, fmt.Errorf("live replay: --speed %g out of range [%g, %g]", speed, MinSpeed, MaxSpeed)
	}
	if err := checkReplayable(sc); err != nil {
		return nil, err
	}
	target, err := targetOf(opts.Target)
	if err != nil {
		return nil, err
	}
	rp := newReplayer(sc, opts, speed, target)
	rp.announce()
	res := &replay.Result{
		Schema: replay.Schema, Mode: replay.ModeLive, Scenario: sc.Name, Description: sc.Description,
		Seed: sc.Seed, DurationMs: msOf(sc.Duration), IncidentEndMs: replay.IncidentEndMs(sc),
		Incidents: replay.IncidentsOf(sc),
	}
	if err := rp.play(ctx); err != nil {
		return nil, err
	}
	rp.gather(ctx, res)
	if err := ctx.Err(); err != nil {
		res.Interrupted = true
		return res, err
	}
	return res, nil
}

// checkReplayable refuses a scenario that has nothing to replay: no load, no policy, or a
// layer without its policy.
func checkReplayable(sc *scenario.Scenario) error {
	ld := sc.Load
	if ld.Rate <= 0 && ld.Concurrency <= 0 && ld.Burst <= 0 {
		return fmt.Errorf("live replay: scenario %s has no load (rate, concurrency or burst)", sc.Name)
	}
	if len(sc.Policies) == 0 {
		return fmt.Errorf("live replay: scenario %s has no policy", sc.Name)
	}
	for _, p := range sc.Policies {
		for _, l := range p.Layers {
			if l.Policy == nil {
				return fmt.Errorf("live replay: layer %s of policy %s has no policy", l.Name, p.Name)
			}
		}
	}
	return nil
}

// targetOf is the checked --target URL, or nil when there is none (in-process servers).
func targetOf(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	return CheckTarget(raw)
}

// replayer is one live replay of every policy of a scenario: its runs, one per policy, and
// what they share.
type replayer struct {
	sc         *scenario.Scenario
	speed      float64
	log        io.Writer
	fidelity   *Fidelity
	sequential bool // one policy after another, each against a fresh in-process server
	runs       []*run
	progress   func(done, total int)
}

// covered is the scenario time, in ms, the arrivals of every run have covered so far, and
// the whole: a run that is over counts its whole duration, one under way at most all of it
// less a millisecond (its drain is still to come).
func (rp *replayer) covered() (done, total int) {
	whole := int(rp.sc.Duration / time.Millisecond)
	for _, r := range rp.runs {
		total += whole
		switch begun := r.begun.Load(); {
		case r.ended.Load() && !r.cut:
			done += whole
		case begun != 0:
			at := time.Duration(float64(time.Since(time.Unix(0, begun))) * r.speed)
			done += max(min(int(at/time.Millisecond), whole-1), 0)
		}
	}
	return done, total
}

// report calls the Progress callback every ProgressEvery until the function it returns is
// called, which reports once more and waits for it to stop.
func (rp *replayer) report() (stop func()) {
	if rp.progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(ProgressEvery)
		defer t.Stop()
		for {
			rp.progress(rp.covered())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		rp.progress(rp.covered())
	}
}

// newReplayer builds a run per policy, each with its in-process server (not started yet)
// or aimed at target, all sharing one cap on attempts in flight.
func newReplayer(sc *scenario.Scenario, opts Options, speed float64, target *url.URL) *replayer {
	rp := &replayer{sc: sc, speed: speed, log: opts.Log, fidelity: opts.Fidelity,
		sequential: opts.Sequential && target == nil, progress: opts.Progress}
	if rp.log == nil {
		rp.log = io.Discard
	}
	maxConc := opts.MaxConcurrency
	if maxConc <= 0 {
		maxConc = min(DefaultMaxConcurrency, fdBudget())
	}
	sem := make(chan struct{}, maxConc)
	var warnOnce sync.Once
	rp.runs = make([]*run, len(sc.Policies))
	for i, p := range sc.Policies {
		r := &run{sc: sc, p: p, speed: speed, sem: sem, log: rp.log, warnOnce: &warnOnce, tag: "p" + strconv.Itoa(i)}
		if target != nil {
			r.base = strings.TrimSuffix(target.String(), "/")
		} else {
			r.srv = NewServer(sc, ServerOptions{Speed: speed})
		}
		rp.runs[i] = r
	}
	return rp
}

// announce logs the run-time estimate, and the warning when the scenario has a trait real
// sockets do not model.
func (rp *replayer) announce() {
	sc := rp.sc
	typical, most := Estimate(sc, rp.speed)
	how := "at once"
	if rp.sequential {
		n := time.Duration(len(sc.Policies))
		typical, most, how = n*typical, n*most, "one after another"
	}
	fmt.Fprintf(rp.log, "live: %d %s %s, %s of arrivals at speed %g: about %s real time (at most %s with the %s drain)\n",
		len(sc.Policies), plural(len(sc.Policies), "policy", "policies"), how, units.Duration(sc.Duration), rp.speed,
		units.Duration(typical.Round(100*time.Millisecond)), units.Duration(most.Round(100*time.Millisecond)), units.Duration(sc.DrainOrDefault()))

	if sc.Target.Conflicts == "single-row" {
		fmt.Fprintln(rp.log, "live: warning: conflicts: single-row is not modelled on real sockets yet; writes never conflict, so results differ from the simulation")
	}
}

// play replays the policies, all at once or one after another, with the clock watched
// when Fidelity is asked for. An in-process server that cannot start stops the replay.
func (rp *replayer) play(ctx context.Context) error {
	if !rp.sequential {
		if err := rp.startAll(); err != nil {
			return err
		}
	}
	stopWatch := rp.watch()
	stopReport := rp.report()
	defer stopReport()
	var wg sync.WaitGroup
	for _, r := range rp.runs {
		if !rp.sequential {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.play(ctx)
			}()
			continue
		}
		if ctx.Err() != nil {
			break
		}
		if err := rp.start(r); err != nil {
			rp.stopAll()
			return err
		}
		r.play(ctx)
	}
	wg.Wait()
	stopWatch()
	return nil
}

// start starts a run's in-process server right before its replay: phases are timed from the
// server's start.
func (rp *replayer) start(r *run) error {
	if r.srv == nil {
		return nil
	}
	if err := r.srv.Start("127.0.0.1:0"); err != nil {
		r.srv = nil
		return fmt.Errorf("live replay: start the in-process server: %w", err)
	}
	r.base = r.srv.URL()
	return nil
}

// startAll starts every run's in-process server, or stops those started when one cannot.
func (rp *replayer) startAll() error {
	for _, r := range rp.runs {
		if err := rp.start(r); err != nil {
			rp.stopAll()
			return err
		}
	}
	return nil
}

// stopAll stops the in-process servers that were started.
func (rp *replayer) stopAll() {
	for _, r := range rp.runs {
		if r.srv != nil && r.base != "" {
			_ = r.srv.Stop(time.Second)
		}
	}
}

// watch starts measuring timer lateness into rp.fidelity, if asked; the function it returns
// stops the measure and logs it.
func (rp *replayer) watch() (stop func()) {
	if rp.fidelity == nil {
		return func() {}
	}
	done := make(chan struct{})
	var watched sync.WaitGroup
	watched.Add(1)
	go func() {
		defer watched.Done()
		watchClock(done, rp.fidelity, rp.speed)
	}()
	return func() {
		close(done)
		watched.Wait()
		f := rp.fidelity
		fmt.Fprintf(rp.log, "live: timer lateness p50 %s p99 %s max %s (×%g in scenario time)\n",
			units.Duration(f.LatenessP50), units.Duration(f.LatenessP99), units.Duration(f.LatenessMax), rp.speed)
	}
}

// gather finishes every run that started, stops its server and adds its result to res;
// the lesson weighs the policies that ran to the end: a cut one is not graded.
func (rp *replayer) gather(ctx context.Context, res *replay.Result) {
	var graded []replay.PolicyResult
	for _, r := range rp.runs {
		if r.hist == nil {
			continue // interrupted before its turn
		}
		r.collect(ctx)
		if r.srv != nil {
			_ = r.srv.Stop(time.Second)
		}
		if r.cut {
			markInterrupted(&r.res, r.cutAt, rp.sc.Duration)
		} else {
			graded = append(graded, r.res)
		}
		res.Policies = append(res.Policies, r.res)
	}
	res.Lesson = replay.LessonOf(rp.sc, graded)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// run is one policy's live replay.
type run struct {
	sc       *scenario.Scenario
	p        *policy.Policy
	levels   []*policy.Policy
	tag      string
	base     string
	srv      *Server
	speed    float64
	sem      chan struct{}
	log      io.Writer
	warnOnce *sync.Once

	req        policy.Request
	idempotent bool
	sendKey    bool
	method     string
	path       string
	workers    int
	clients    []*liveClient

	start  time.Time
	runCtx context.Context // cancelled at the end of the drain
	// begun is start in Unix nanoseconds once the replay started (0 before), ended set when
	// it is over: what the progress reporter reads while the run goes on.
	begun atomic.Int64
	ended atomic.Bool
	wg    sync.WaitGroup // logical requests and abandoned lower calls

	mu        sync.Mutex
	res       replay.PolicyResult
	hist      *hdrhistogram.Histogram
	tl        []replay.Second
	inFlight  int
	totalBusy int
	lastEnd   time.Duration
	// saturation: clients with every worker busy, since when, and the total so far
	satClients int
	satSince   time.Duration
	saturated  time.Duration
	// retry bursts at the bottom layer, per 100 ms window
	burstWindow int64
	burstCount  int
	// cut is set when the run was stopped (ctx ended) before this policy's replay finished;
	// cutAt is the scenario time it stopped at.
	cut   bool
	cutAt time.Duration
}

// liveClient is one simulated caller instance: its workers, its policy state per layer (the
// same types the simulator uses, behind a lock) and its own http.Client.
type liveClient struct {
	mu sync.Mutex
	// last is the latest time handed to the breaker and budget: their contract is that time
	// never goes backwards, and goroutines read the clock before they get the lock.
	last   time.Duration
	busy   int
	levels []levelState
	rng    *rand.Rand
	http   *http.Client
}

// monotonic returns now, or the latest time already handed out if that is later; cs.mu
// must be held.
func (cs *liveClient) monotonic(now time.Duration) time.Duration {
	if now < cs.last {
		return cs.last
	}
	cs.last = now
	return now
}

type levelState struct {
	budget   policy.RetryBudget
	breaker  *policy.BreakerState
	bulkhead *policy.BulkheadState
}

// logical is one logical request of the caller.
type logical struct {
	id       uint64
	client   int
	start    time.Duration
	mu       sync.Mutex
	seq      uint64
	degraded bool
	// turnedAway: some bottom call found no free worker (guarded by run.mu).
	turnedAway bool
	// firstAt is when the stream that answered the request sent its first event (scenario
	// ns; 0: none), guarded by mu.
	firstAt int64
}

func (l *logical) nextAttempt() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	j := l.seq
	l.seq++
	return j
}

// now is the scenario time: wall time since start × speed.
func (r *run) now() time.Duration { return time.Duration(float64(time.Since(r.start)) * r.speed) }

// real converts a scenario duration to wall time.
func (r *run) real(d time.Duration) time.Duration { return time.Duration(float64(d) / r.speed) }

// sleep waits a scenario duration; false when the run ended first.
func (r *run) sleep(d time.Duration) bool {
	if d <= 0 {
		return r.runCtx.Err() == nil
	}
	t := time.NewTimer(r.real(d))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.runCtx.Done():
		return false
	}
}

// sleepUntil waits until scenario time t.
func (r *run) sleepUntil(t time.Duration) bool { return r.sleep(t - r.now()) }

func (r *run) setup() {
	sc, p := r.sc, r.p
	for i := range p.Layers {
		r.levels = append(r.levels, p.Layers[i].Policy)
	}
	r.levels = append(r.levels, p)
	r.method = sc.Load.Request.Method
	if r.method == "" {
		r.method = http.MethodGet
	}
	r.path = sc.Load.Request.Path
	if r.path == "" {
		r.path = "/"
	}
	r.sendKey = p.SendsKey(sc.Load.Request.IdempotencyKey)
	r.req = policy.Request{Method: r.method, HasKey: r.sendKey}
	r.idempotent = r.req.Idempotent()
	r.workers = sc.Load.Workers
	n := max(sc.Load.Clients, 1)
	r.clients = make([]*liveClient, n)
	for i := range r.clients {
		cs := &liveClient{rng: scenario.JitterRand(sc.Seed, i)}
		cs.levels = make([]levelState, len(r.levels))
		for l, lp := range r.levels {
			cs.levels[l] = levelState{
				budget:   policy.NewRetryBudget(lp.Budget),
				breaker:  policy.NewBreakerState(lp.Breaker),
				bulkhead: policy.NewBulkheadState(lp.Bulkhead),
			}
		}
		// One client per simulated caller, with keep-alive connections (a fresh connection
		// per attempt costs the two shared cores more than the rest of the replay). Every
		// request is made non-replayable (see attempt) so net/http never re-sends one by
		// itself on a broken reused connection, which would hide resets from the policy.
		idle := max(r.workers, 16)
		cs.http = &http.Client{
			Transport: &http.Transport{
				DialContext:         (&net.Dialer{}).DialContext,
				MaxConnsPerHost:     cap(r.sem),
				MaxIdleConns:        idle,
				MaxIdleConnsPerHost: idle,
				IdleConnTimeout:     time.Minute,
				DisableCompression:  true,
				Proxy:               nil,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		r.clients[i] = cs
	}
	drain := sc.DrainOrDefault()
	highest := max(int64((sc.Duration+drain)/time.Microsecond)*2, 1_000_000)
	r.hist = hdrhistogram.New(1, highest, 3)
	r.res = replay.PolicyResult{Name: p.Name, FailureReasons: map[string]int{}}
	if sc.Target.Stream != nil {
		r.res.Streams, r.res.LatencyFrom = &replay.StreamTally{}, replay.LatencyFirstEvent
	}
	if t := p.TheoreticalAmplification(); !math.IsInf(t, 0) {
		r.res.TheoreticalAmplification = &t
	}
}

// play runs the arrivals and waits for every logical request, or for the drain to end.
func (r *run) play(ctx context.Context) {
	r.setup()
	if r.srv != nil {
		r.start = r.srv.start // scenario time is the server's: phases line up exactly
	} else {
		r.start = time.Now()
	}
	r.begun.Store(r.start.UnixNano())
	defer r.ended.Store(true)
	horizon := r.sc.Duration + r.sc.DrainOrDefault()
	runCtx, cancel := context.WithDeadline(ctx, r.start.Add(r.real(horizon)))
	defer cancel()
	r.runCtx = runCtx

	ld := r.sc.Load
	var arrivalsDone sync.WaitGroup
	var next uint64
	var idMu sync.Mutex
	newID := func() uint64 {
		idMu.Lock()
		defer idMu.Unlock()
		id := next
		next++
		return id
	}
	switch {
	case ld.Concurrency > 0:
		for i := 0; i < ld.Concurrency; i++ {
			arrivalsDone.Add(1)
			go func() {
				defer arrivalsDone.Done()
				for r.now() < r.sc.Duration && runCtx.Err() == nil {
					r.arrive(newID(), i%len(r.clients), true)
					if !r.sleep(max(ld.Think, time.Microsecond)) {
						return
					}
				}
			}()
		}
	default:
		// The simulator's arrival stream: first gap, then per arrival a client and the next gap.
		arr := scenario.ArrivalRand(r.sc.Seed)
		if ld.Burst > 0 {
			for i := 0; i < ld.Burst; i++ {
				r.arrive(newID(), i%len(r.clients), false)
			}
		}
		if ld.Rate > 0 {
			gap := func() time.Duration {
				return time.Duration(arr.ExpFloat64() / ld.Rate * float64(time.Second))
			}
			for t := gap(); t < r.sc.Duration; {
				client := arr.IntN(len(r.clients))
				if !r.sleepUntil(t) {
					break
				}
				r.arrive(newID(), client, false)
				t += gap()
			}
		}
	}
	arrivalsDone.Wait()
	r.wg.Wait()
	if ctx.Err() != nil {
		r.cut, r.cutAt = true, min(r.now(), horizon)
	}
}

// second returns the timeline bucket of scenario time t; r.mu must be held.
func (r *run) second(t time.Duration) *replay.Second {
	s := max(int(t/time.Second), 0)
	for len(r.tl) <= s {
		r.tl = append(r.tl, replay.Second{T: len(r.tl), InFlight: r.inFlight, BusyWorkers: r.totalBusy})
	}
	return &r.tl[s]
}

func (r *run) levelsChanged(now time.Duration) {
	s := r.second(now)
	s.InFlight = max(s.InFlight, r.inFlight)
	s.BusyWorkers = max(s.BusyWorkers, r.totalBusy)
}

// arrive admits a logical request on a client, or fails it for lack of a worker. Closed
// loops (wait = true) run it on the caller's goroutine.
func (r *run) arrive(id uint64, client int, wait bool) {
	now := r.now()
	single := len(r.levels) == 1
	r.mu.Lock()
	r.res.Requests++
	r.second(now).Arrivals++
	if single && !r.acquireWorker(client, now) {
		r.res.NoWorker++
		r.res.Tally(r.sc, r.second(now), replay.Finished{End: replay.EndFailed, Reason: replay.ReasonNoWorker, Start: now})
		r.mu.Unlock()
		return
	}
	r.inFlight++
	r.res.PeakInFlight = max(r.res.PeakInFlight, r.inFlight)
	r.levelsChanged(now)
	r.mu.Unlock()

	lr := &logical{id: id, client: client, start: now}
	r.wg.Add(1)
	body := func() {
		defer r.wg.Done()
		kind, reason, last, hasLast := r.call(0, lr)
		if kind == replay.EndFailed && hasLast && !r.idempotent && policy.Classify(last) == policy.ClassUnknown {
			r.mu.Lock()
			r.res.UnknownOutcomes++
			r.mu.Unlock()
		}
		r.finish(lr, kind, reason, single)
	}
	if wait {
		body()
	} else {
		go body()
	}
}

// acquireWorker takes one of the client's workers, or says there is none free; r.mu must be
// held. As in the simulator, workers belong to the bottom layer: a single-layer request holds
// one from arrival to end, below other layers each bottom call holds one.
func (r *run) acquireWorker(client int, now time.Duration) bool {
	cs := r.clients[client]
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if r.workers > 0 && cs.busy >= r.workers {
		return false
	}
	cs.busy++
	r.totalBusy++
	if r.workers > 0 {
		if cs.busy == r.workers {
			if r.satClients == 0 {
				r.satSince = now
			}
			r.satClients++
		}
		r.res.WorkerSaturation = max(r.res.WorkerSaturation, float64(cs.busy)/float64(r.workers))
	}
	r.levelsChanged(now)
	return true
}

// releaseWorker gives a worker back; r.mu must be held.
func (r *run) releaseWorker(client int, now time.Duration) {
	cs := r.clients[client]
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if r.workers > 0 && cs.busy == r.workers {
		r.satClients--
		if r.satClients == 0 {
			r.saturated += now - r.satSince
		}
	}
	cs.busy--
	r.totalBusy--
	r.levelsChanged(now)
}

func (r *run) finish(lr *logical, kind replay.End, reason string, holdsWorker bool) {
	now := r.now()
	if r.runCtx.Err() != nil && kind == replay.EndFailed {
		// Still in flight when the drain ended (or the run was interrupted): the simulator's
		// "stuck", at the horizon.
		reason = replay.ReasonStuck
		now = min(now, r.sc.Duration+r.sc.DrainOrDefault())
	}
	if kind == replay.EndSucceeded && lr.degraded {
		kind = replay.EndDegraded
	}
	lat := now - lr.start
	lr.mu.Lock()
	if lr.firstAt > 0 && kind != replay.EndFailed {
		// A stream's caller waits for its first event (docs/design.md §6), as in the simulator.
		lat = time.Duration(lr.firstAt) - lr.start
	}
	lr.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Tally(r.sc, r.second(now), replay.Finished{End: kind, Reason: reason, Start: lr.start, TurnedAway: lr.turnedAway})
	_ = r.hist.RecordValue(max(int64(lat/time.Microsecond), 1))
	r.lastEnd = max(r.lastEnd, now)
	r.inFlight--
	if holdsWorker {
		r.releaseWorker(lr.client, now)
	}
	r.levelsChanged(now)
}

// burstWindow is the window of PeakRetryBurstPerS, as in the simulator.
const burstWindow = 100 * time.Millisecond

// flushBurst folds the current retry-burst window into the peak; r.mu must be held.
func (r *run) flushBurst() {
	r.res.PeakRetryBurstPerS = max(r.res.PeakRetryBurstPerS, float64(r.burstCount)*float64(time.Second/burstWindow))
}

// result is an attempt's outcome with the wall-clock time its Retry-After is relative to.
type result struct {
	o       policy.Outcome
	wallNow time.Time
	aborted bool // the run ended during the attempt
	read    bool // o is a Timeout the read timeout gave (reason read_timeout)
	// stream: the attempt's head was a stream (replay_stream.go): it sent events before its
	// end, the first at firstAt (scenario ns; 0 with none); dropped, the target cut it.
	stream  bool
	dropped bool
	events  int
	firstAt int64
}

// call runs one logical request at a layer under its policy: the same protocol as the
// simulator (AttemptTimeout, breaker, bulkhead, attempt, Next, sleep Wait).
func (r *run) call(level int, lr *logical) (kind replay.End, reason string, last policy.Outcome, hasLast bool) {
	lp := r.levels[level]
	cs := r.clients[lr.client]
	ls := &cs.levels[level]
	c := policy.NewCall(lp, r.req, r.now())
	if level > 0 && level == len(r.levels)-1 {
		now := r.now()
		r.mu.Lock()
		ok := r.acquireWorker(lr.client, now)
		if !ok {
			r.res.NoWorker++
			lr.turnedAway = true
		}
		r.mu.Unlock()
		if !ok {
			// The server below the upper layers has no free worker: it answers 503 at once,
			// and the layer above decides whether to try again.
			return replay.EndFailed, replay.ReasonNoWorker, policy.Outcome{Kind: policy.Status, Status: 503}, true
		}
		defer func() {
			now := r.now()
			r.mu.Lock()
			r.releaseWorker(lr.client, now)
			r.mu.Unlock()
		}()
	}
	if ls.budget != nil {
		cs.mu.Lock()
		ls.budget.OnRequest(cs.monotonic(r.now()))
		cs.mu.Unlock()
	}
	for {
		if r.runCtx.Err() != nil {
			return replay.EndFailed, replay.ReasonStuck, last, hasLast
		}
		now := r.now()
		timeout, ok := c.AttemptTimeout(now)
		if !ok {
			return replay.EndFailed, replay.ReasonDeadline, last, hasLast
		}
		cs.mu.Lock()
		if ls.breaker != nil && !ls.breaker.Allow(cs.monotonic(now)) {
			cs.mu.Unlock()
			if lp.Fallback {
				return replay.EndDegraded, "", last, hasLast
			}
			return replay.EndFailed, replay.ReasonBreakerOpen, last, hasLast
		}
		if ls.bulkhead != nil && !ls.bulkhead.TryAcquire() {
			cs.mu.Unlock()
			if lp.Fallback {
				return replay.EndDegraded, "", last, hasLast
			}
			return replay.EndFailed, replay.ReasonBulkhead, last, hasLast
		}
		cs.mu.Unlock()

		var res result
		if level < len(r.levels)-1 {
			res = r.upperAttempt(level, lr, timeout)
		} else {
			res = r.attempt(lr, c, timeout)
		}
		cs.mu.Lock()
		now = cs.monotonic(r.now())
		if ls.bulkhead != nil {
			ls.bulkhead.Release()
		}
		if res.aborted {
			cs.mu.Unlock()
			return replay.EndFailed, replay.ReasonStuck, last, hasLast
		}
		if ls.breaker != nil {
			ls.breaker.Record(now, !policy.BreakerFailure(res.o))
		}
		d := c.Next(now, res.o, ls.budget, res.wallNow, cs.rng)
		cs.mu.Unlock()
		last, hasLast = res.o, true
		if res.stream {
			r.mu.Lock()
			r.tallyStream(res, d.Retry && res.o.Kind != policy.Success)
			r.mu.Unlock()
		}
		if res.o.Kind == policy.Success {
			if res.stream {
				lr.mu.Lock()
				lr.firstAt = res.firstAt
				lr.mu.Unlock()
			}
			r.addMalformed(c)
			return replay.EndSucceeded, "", last, hasLast
		}
		if d.Retry {
			if !r.sleep(d.Wait) {
				r.addMalformed(c)
				return replay.EndFailed, replay.ReasonStuck, last, hasLast
			}
			continue
		}
		r.addMalformed(c)
		reason := streamReason(res)
		switch d.Reason {
		case replay.ReasonBudget, replay.ReasonDeadline:
			reason = d.Reason
		}
		return replay.EndFailed, reason, last, hasLast
	}
}

func (r *run) addMalformed(c *policy.Call) {
	if n := c.MalformedRetryAfter(); n > 0 {
		r.mu.Lock()
		r.res.MalformedRetryAfter += n
		r.mu.Unlock()
	}
}

// upperAttempt is an attempt of a layer above the bottom: a whole call at the next layer.
// When it times out the lower call is abandoned but keeps going — it does not know — as in
// the simulator.
func (r *run) upperAttempt(level int, lr *logical, timeout time.Duration) result {
	ch := make(chan policy.Outcome, 1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		kind, reason, last, hasLast := r.call(level+1, lr)
		if kind == replay.EndDegraded {
			lr.mu.Lock()
			lr.degraded = true
			lr.mu.Unlock()
		}
		ch <- replay.AnswerAbove(kind, reason, last, hasLast)
	}()
	// Above the bottom, the read timeout bounds the wait for the call below, whose answer
	// comes whole (as the simulator has it, docs/design.md §6): it stands for the total
	// when it is the shorter.
	read := false
	if rt := r.levels[level].ReadTimeout; rt > 0 && (timeout == 0 || rt < timeout) {
		timeout, read = rt, true
	}
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(r.real(timeout))
		defer t.Stop()
		expire = t.C
	}
	select {
	case o := <-ch:
		return result{o: o, wallNow: time.Now()}
	case <-expire:
		return result{o: policy.Outcome{Kind: policy.Timeout}, wallNow: time.Now(), read: read}
	case <-r.runCtx.Done():
		return result{aborted: true}
	}
}

// dialInfo records the local address of the connection an attempt dialled, so a refusal
// RST from the in-process server can be told from a reset.
type dialInfo struct {
	mu    sync.Mutex
	local string
}

// connectWait applies the target's connect time and the policy's connect timeout before an
// attempt is sent, as the simulator does: a connect time at or over the connect timeout
// fails the attempt after the connect timeout. The kernel completes loopback handshakes at
// once and connections are reused, so the driver waits the connect time out here. It
// returns false when ctx ended first.
func connectWait(ctx context.Context, connect, connectTimeout time.Duration) (timedOut, ok bool) {
	wait := connect
	if connectTimeout > 0 && connect >= connectTimeout {
		wait, timedOut = connectTimeout, true
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return false, false
		}
	}
	return timedOut, true
}

// trace remembers the local address of the connection an attempt got, new or reused.
func (info *dialInfo) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{GotConn: func(g httptrace.GotConnInfo) {
		info.mu.Lock()
		info.local = g.Conn.LocalAddr().String()
		info.mu.Unlock()
	}}
}

// attempt sends one attempt to the target with a real http.Client.
func (r *run) attempt(lr *logical, c *policy.Call, timeout time.Duration) result {
	j := lr.nextAttempt()
	now := r.now()
	r.mu.Lock()
	r.res.Attempts++
	r.second(now).Attempts++
	if j > 0 {
		if w := int64(now / burstWindow); w != r.burstWindow {
			r.flushBurst()
			r.burstWindow, r.burstCount = w, 0
		}
		r.burstCount++
	}
	r.mu.Unlock()

	select {
	case r.sem <- struct{}{}:
	default:
		r.warnOnce.Do(func() {
			fmt.Fprintf(r.log, "live: warning: %d attempts in flight, the concurrency cap; further attempts wait (timings stretch)\n", cap(r.sem))
		})
		select {
		case r.sem <- struct{}{}:
		case <-r.runCtx.Done():
			return result{aborted: true}
		}
	}
	defer func() { <-r.sem }()

	draws := attemptDraws(r.sc, r.sc.Seed, lr.id, j)
	info := &dialInfo{}
	ctx := httptrace.WithClientTrace(r.runCtx, info.trace())
	cancel := func() {}
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, r.real(timeout))
	}
	defer cancel()
	timedOut, ok := connectWait(ctx, r.real(draws.connect), r.real(c.ConnectTimeout(timeout)))
	switch {
	case !ok && r.runCtx.Err() != nil:
		return result{aborted: true}
	case !ok:
		return result{o: policy.Outcome{Kind: policy.Timeout}, wallNow: time.Now()}
	case timedOut:
		return result{o: policy.Outcome{Kind: policy.ConnectTimeout}, wallNow: time.Now()}
	}

	// The body is never nil and hides its type (io.NopCloser), so the request has no GetBody
	// and net/http cannot replay it on its own (Transport.shouldRetryRequest). A GET's empty
	// body is probed and dropped by the transport: nothing extra goes on the wire.
	payload := ""
	if !(scenario.Request{Method: r.method}).Idempotent() {
		// The same payload on every attempt: an Idempotency-Key retry must match its fingerprint.
		payload = `{"request":` + strconv.FormatUint(lr.id, 10) + "}\n"
	}
	// The read timeout runs from the write (not during the connect wait above).
	bottom := r.levels[len(r.levels)-1]
	first := time.Duration(0)
	if r.sc.Target.Stream != nil {
		first = bottom.FirstEventTimeout // only a stream has a first event (policy.FirstEventTimeout)
	}
	ctx, quiet := watchSilence(ctx, r.real(bottom.ReadTimeout), r.real(first))
	defer quiet.stop()
	req, err := http.NewRequestWithContext(ctx, r.method, r.base+r.path, io.NopCloser(strings.NewReader(payload)))
	if err != nil {
		return result{o: policy.Outcome{Kind: policy.Reset}, wallNow: time.Now()}
	}
	req.ContentLength = int64(len(payload))
	if payload != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	idv := r.tag + ":" + strconv.FormatUint(lr.id, 10)
	req.Header.Set(LogicalIDHeader, idv)
	req.Header.Set(AttemptHeader, strconv.FormatUint(j, 10))
	if r.sendKey {
		req.Header.Set(IdempotencyKeyHeader, `"`+r.tag+"-"+strconv.FormatUint(lr.id, 10)+`"`)
	}
	cs := r.clients[lr.client]
	resp, err := cs.http.Do(req)
	if err != nil {
		return r.classify(ctx, err, info)
	}
	if kind := r.streamKind(resp); kind != eventscan.None {
		return r.streamResult(ctx, resp, kind, quiet, info)
	}
	// The body is read as a client reads it: each read re-arms the read timeout, and a body
	// cut by a timer (a drip past the total or the read timeout) is that timeout, not an answer.
	_, err = io.Copy(io.Discard, io.LimitReader(quiet.body(resp.Body), MaxBody))
	_ = resp.Body.Close()
	if err != nil {
		return r.classify(ctx, err, info)
	}
	wall := wallOf(resp) // Retry-After dates are relative to the response's own Date
	if resp.StatusCode >= 200 && resp.StatusCode < 400 {
		return result{o: policy.Outcome{Kind: policy.Success, Status: resp.StatusCode}, wallNow: wall}
	}
	return result{o: policy.Outcome{Kind: policy.Status, Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After")}, wallNow: wall}
}

// classify maps a transport error to the outcome the policy sees.
func (r *run) classify(ctx context.Context, err error, info *dialInfo) result {
	wall := time.Now()
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return result{o: policy.Outcome{Kind: policy.Refused}, wallNow: wall}
	case r.runCtx.Err() != nil:
		return result{aborted: true}
	case readTimedOut(ctx):
		return result{o: policy.Outcome{Kind: policy.Timeout}, wallNow: wall, read: true}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return result{o: policy.Outcome{Kind: policy.Timeout}, wallNow: wall}
	}
	info.mu.Lock()
	local := info.local
	info.mu.Unlock()
	if r.srv != nil && local != "" && r.srv.WasRefused(local) {
		return result{o: policy.Outcome{Kind: policy.Refused}, wallNow: wall}
	}
	return result{o: policy.Outcome{Kind: policy.Reset}, wallNow: wall}
}

// collect finishes the result: rates, latency percentiles, the timeline, and the duplicates
// and wasted work the server counted.
func (r *run) collect(ctx context.Context) {
	res := &r.res
	end := max(r.lastEnd, r.sc.Duration)
	if n := int((end + time.Second - 1) / time.Second); len(r.tl) > n {
		r.tl = r.tl[:n]
	}
	r.mu.Lock()
	r.second(max(end-1, 0))
	r.mu.Unlock()
	res.Timeline = r.tl
	res.FinishedMs = msOf(r.lastEnd)
	res.Derive(r.hist)
	r.mu.Lock()
	r.flushBurst()
	if r.satClients > 0 {
		r.saturated += end - r.satSince
	}
	r.mu.Unlock()
	res.SaturatedMs = msOf(r.saturated)
	// The verdict reads the duplicates and wasted work the server counted: judge last.
	defer res.Judge(r.sc)
	if r.srv != nil {
		st, _ := settledStats(func() (*Stats, error) { s := r.srv.Stats(); return &s, nil })
		res.Duplicates = int(st.DuplicateSideEffects)
		res.WastedWork = int(st.Wasted)
		return
	}
	if st, err := settledStats(func() (*Stats, error) { return fetchStats(ctx, r.base) }); err == nil {
		res.Duplicates = int(st.DuplicatesByTag[r.tag])
	} else {
		fmt.Fprintf(r.log, "live: warning: cannot read %s%s: %v (duplicates unknown, shown as 0)\n", r.base, StatsPath, err)
	}
}

// settleFor bounds how long settledStats waits for the server to handle what was sent.
const settleFor = 2 * time.Second

// settledStats reads the server's counters once it has handled every request the run sent:
// a request written just before the run cut it is still read and executed by the server (a
// charge the run caused), so counters read at once can miss it (a duplicate the server
// counted 194 times and the result 193, on a loaded machine). Settled is nothing in flight
// or queued and the request count unchanged over 50 ms; after settleFor the last read is
// returned as it is. An error on the first read is returned; on a later one, the read before.
func settledStats(read func() (*Stats, error)) (*Stats, error) {
	prev, err := read()
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(settleFor); time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		cur, err := read()
		if err != nil {
			return prev, nil
		}
		if cur.InFlight == 0 && cur.Queue == 0 && cur.Requests == prev.Requests {
			return cur, nil
		}
		prev = cur
	}
	return prev, nil
}

// fetchStats reads the stats of a running `patience serve`.
func fetchStats(ctx context.Context, base string) (*Stats, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+StatsPath, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var st Stats
	if err := json.NewDecoder(io.LimitReader(resp.Body, MaxBody)).Decode(&st); err != nil {
		return nil, err
	}
	return &st, nil
}
