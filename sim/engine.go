package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
	"unsafe"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// epoch is the wall-clock time of virtual t=0: HTTP-date Retry-After values are written
// and parsed relative to it, so runs do not depend on the machine's clock.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// requestState says where a logical request stands with the target's idempotency store.
const (
	keyNone uint8 = iota
	keyInFlight
	keyDone
)

// request is one logical request of the caller (the top layer), alive until its own call
// and every call and attempt it spawned are finished.
type request struct {
	gen        uint32
	id         uint64 // arrival index: the same across policies (common random numbers)
	client     int32
	loop       int32 // closed-model loop index, -1 for open arrivals
	start      time.Duration
	refs       int32 // live calls and attempts
	attemptSeq uint32
	executions int32
	keyState   uint8
	degraded   bool
	finished   bool
	// turnedAway: some bottom call of this request found no free worker (layered policies):
	// its failure is the caller's service giving out, not the dependency's.
	turnedAway bool
	// holdsWorker: the request itself holds a client worker (single-layer policies)
	holdsWorker bool
	activeIdx   int32
	// firstAt is when the stream that answered the request sent its first event (0: none).
	firstAt time.Duration
}

// call is one logical request at one layer: the top call belongs to the caller, a lower
// call is issued by an attempt of the layer above.
type call struct {
	gen       uint32
	level     int32
	req       *request
	parent    *attempt // the upper layer's attempt waiting for this call; nil at the top
	parentGen uint32
	pc        policy.Call
	last      policy.Outcome
	hasLast   bool
	// lastRead: the last outcome, a timeout, was the read timeout's (reason read_timeout).
	lastRead bool
	attempts int32
	// holdsWorker: a bottom call below other layers holds a client worker
	holdsWorker bool
}

// attempt is one try of a call. At the bottom layer it goes to the target; above it issues
// a whole call at the next layer.
type attempt struct {
	gen  uint32
	c    *call
	cgen uint32
	req  *request
	// caller side
	start     time.Duration
	callerOff bool // resolved for the caller (answered, timed out) — later news is ignored
	targetOff bool // the target holds no reference (answered, hung, refused, never sent)
	// target side, drawn at start
	fault    int8 // index into the phase's faults, -1 none
	phase    int8 // phase index at arrival, -1 base
	service  time.Duration
	write    time.Duration
	readVer  uint64
	deadline time.Duration // the caller's attempt timeout fires then (0 = none)
	// readAt is when the caller's read timeout fires unless the response moves first (0 =
	// never); an evReadTimeout for any other time is stale.
	readAt time.Duration
	// headAt is when the response head comes, if already scheduled (0 = unknown): the read
	// timer of a head due before it is never armed.
	headAt   time.Duration
	doneAt   time.Duration // when the target will answer, if already scheduled (0 = unknown)
	holdsKey bool
	acquired bool   // holds a bulkhead slot
	qpos     uint64 // position in the target's queue while it waits there (0: not queued)
	// seq is the attempt's index among its request's bottom attempts (its draws' stream).
	seq uint32
	// A stream attempt (docs/design.md §6, streams): streaming once its head went, cut when
	// the target drops it, events the events it sent before its end, firstAt when the first
	// came (0: none).
	streaming bool
	cut       bool
	events    int32
	firstAt   time.Duration
	// holdsServer: a stream attempt holds its target worker from its head to the stream's
	// end, as serve holds it (live/stream.go serveStream); resolve frees it.
	holdsServer bool
}

// levelState is one client's policy state at one layer. The objects it points at live in
// per-engine slabs (see initLevelState), not one heap object each.
type levelState struct {
	budget   policy.RetryBudget
	breaker  *policy.BreakerState
	bulkhead *policy.BulkheadState
}

// noLevelState stands for a layer without budget, breaker or bulkhead (read only).
var noLevelState levelState

// clientState is one client's own state, small and by value: with 100,000 clients picked at
// random per arrival, every pointer followed from here is a cache miss on the hot path.
type clientState struct {
	busy   int      // workers in use (kept only when Load.Workers limits them)
	jitter rand.PCG // the client's JitterRand source
}

// clientSource is the source of the engine's one jitter Rand: it draws from the PCG of the
// client whose call is deciding. A math/rand/v2 Rand holds nothing but its source, so this
// gives the draws of that client's own JitterRand without a Rand and a PCG per client.
type clientSource struct{ p *rand.PCG }

func (s *clientSource) Uint64() uint64 { return s.p.Uint64() }

// engine simulates one policy. It is built per RunPolicy and keeps free lists so a run
// allocates per concurrent request, not per request.
type engine struct {
	sc      *scenario.Scenario
	levels  []*policy.Policy // caller first; the last is the bottom layer
	req     policy.Request
	idem    bool
	hasKey  bool
	clients []clientState
	// ls is the policy state of client c at layer l at ls[c*len(levels)+l], allocated only
	// when some layer has a budget, breaker or bulkhead; stateful[l] says whether layer l has
	// any, so a layer without them never touches per-client memory.
	ls       []levelState
	stateful []bool
	jsrc     clientSource
	jrng     *rand.Rand
	// serviceLane is laneService when every service time is fixed (service ends then come
	// in the order they start), else -1: the heap. fixedWaits[l] says layer l sleeps one of
	// a few fixed backoff delays (no jitter), whose retries can share a lane per delay.
	serviceLane int
	fixedWaits  []bool
	workers     int
	horizon     time.Duration
	duration    time.Duration

	h   queue
	now time.Duration

	// burstWindow/burstCount count retries in the current burstWindowLen window, for the
	// sub-second peak (PeakRetryBurstPerS).
	burstWindow int64
	burstCount  int

	arr *rand.Rand
	// arrivals is the arrival index of the next logical request.
	arrivals uint64
	tpcg     *rand.PCG
	trng     *rand.Rand

	stalls scenario.Stalls

	// baseLat, connect and phaseLat (per phase, of PhaseLatency) are the target's
	// distributions, Prepared once per engine so lognormal draws skip two logarithms.
	baseLat, connect scenario.Distribution
	phaseLat         []scenario.Distribution

	// target
	busy     int
	queue    fifo
	rowVer   uint64
	faultRA  [][]string // per phase, per fault: Retry-After header in delay-seconds form
	capacity *scenario.Capacity

	// free lists
	freeReq  []*request
	freeCall []*call
	freeAtt  []*attempt

	active []*request

	// results
	res       replay.PolicyResult
	hist      *hdrhistogram.Histogram
	tl        []replay.Second
	lastSec   int
	inFlight  int
	totalBusy int
	lastEvent time.Duration
	malformed int
	tick      func(now, horizon time.Duration)
	// events counts the events taken from the agenda: the run's work (EstimateRun).
	events int64
	// saturation: how many clients have every worker busy, since when, and the total so far
	satClients int
	satSince   time.Duration
	saturated  time.Duration
}

func newEngine(sc *scenario.Scenario, p *policy.Policy, s *scratch) *engine {
	e := &engine{sc: sc, duration: sc.Duration, capacity: sc.Target.Capacity}
	e.take(s)
	for i := range p.Layers {
		e.levels = append(e.levels, p.Layers[i].Policy)
	}
	e.levels = append(e.levels, p)
	method := sc.Load.Request.Method
	if method == "" {
		method = "GET"
	}
	// The bottom policy decides whether requests carry a key (payment-double-charge compares
	// with-key and without-key on the same scenario).
	e.hasKey = p.SendsKey(sc.Load.Request.IdempotencyKey)
	e.req = policy.Request{Method: method, HasKey: e.hasKey}
	e.idem = e.req.Idempotent()
	e.horizon = sc.Duration + sc.DrainOrDefault()
	n := sc.Load.Clients
	if n <= 0 {
		n = 1
	}
	e.workers = sc.Load.Workers
	e.clients = make([]clientState, n)
	for i := range e.clients {
		scenario.SeedJitter(&e.clients[i].jitter, sc.Seed, i)
	}
	e.jrng = rand.New(&e.jsrc)
	e.initLevelState(n)
	e.arr = scenario.ArrivalRand(sc.Seed)
	e.tpcg = rand.NewPCG(0, 0)
	e.trng = rand.New(e.tpcg)
	e.baseLat, e.connect = sc.Target.Latency.Prepared(), sc.Target.Connect.Prepared()
	for i, ph := range sc.Target.Phases {
		e.phaseLat = append(e.phaseLat, sc.PhaseLatency(i).Prepared())
		ras := make([]string, len(ph.Faults))
		for j, f := range ph.Faults {
			if f.RetryAfter != nil && !f.RetryAfter.Date {
				ras[j] = strconv.FormatInt(int64(math.Ceil(f.RetryAfter.Delay.Seconds())), 10)
			}
		}
		e.faultRA = append(e.faultRA, ras)
	}
	e.stalls = sc.Stalls()
	e.serviceLane = laneService
	for _, d := range append([]scenario.Distribution{e.baseLat}, e.phaseLat...) {
		if d.Kind != scenario.DistFixed {
			e.serviceLane = -1
		}
	}
	for _, lp := range e.levels {
		r := &lp.Retry
		e.fixedWaits = append(e.fixedWaits, (r.Jitter == "" || r.Jitter == policy.JitterNone) && r.Backoff != policy.BackoffDecorrelated)
	}
	if e.capacity != nil {
		// Grows on demand: most of a long queue is runs of orphans, a few entries.
		spare := e.queue.spare
		e.queue = fifo{ring: s.fifoRing(max(min(e.capacity.Queue, 1024), 16)), base: 1, spare: spare}
	}
	highest := int64(e.horizon/time.Microsecond) * 2
	if highest < 1_000_000 {
		highest = 1_000_000
	}
	e.hist = s.histogram(1, highest, 3)
	e.res = replay.PolicyResult{Name: p.Name, FailureReasons: map[string]int{}}
	if sc.Target.Stream != nil {
		e.res.Streams, e.res.LatencyFrom = &replay.StreamTally{}, replay.LatencyFirstEvent
	}
	if t := p.TheoreticalAmplification(); !math.IsInf(t, 0) {
		e.res.TheoreticalAmplification = &t
	}
	if n := int(e.horizon/time.Second) + 1; cap(s.timeline) >= n {
		e.tl, s.timeline = s.timeline[:0], nil
	} else {
		e.tl = make([]replay.Second, 0, n)
	}
	e.lastSec = -1
	return e
}

// initLevelState builds the per-client policy state of every layer that has any, each kind
// in one contiguous slab per layer (policy.NewRetryBudget and friends would allocate one
// object per client, scattered over the heap).
func (e *engine) initLevelState(n int) {
	nl := len(e.levels)
	e.stateful = make([]bool, nl)
	any := false
	for l, lp := range e.levels {
		e.stateful[l] = lp.Budget != nil || lp.Breaker != nil || lp.Bulkhead != nil
		any = any || e.stateful[l]
	}
	if !any {
		return
	}
	e.ls = make([]levelState, n*nl)
	for l, lp := range e.levels {
		if b := lp.Budget; b != nil {
			// The same kinds as policy.NewRetryBudget; an unknown kind is no budget.
			switch b.Kind {
			case policy.BudgetTokenBucket:
				slab := make([]policy.TokenBucket, n)
				for c := range slab {
					slab[c].Init(b)
					e.ls[c*nl+l].budget = &slab[c]
				}
			case policy.BudgetRatio:
				slab := make([]policy.RatioBudget, n)
				for c := range slab {
					slab[c].Init(b)
					e.ls[c*nl+l].budget = &slab[c]
				}
			}
		}
		if lp.Breaker != nil {
			slab := make([]policy.BreakerState, n)
			for c := range slab {
				slab[c].Init(lp.Breaker)
				e.ls[c*nl+l].breaker = &slab[c]
			}
		}
		if lp.Bulkhead != nil {
			slab := make([]policy.BulkheadState, n)
			for c := range slab {
				slab[c].Init(lp.Bulkhead)
				e.ls[c*nl+l].bulkhead = &slab[c]
			}
		}
	}
}

// levelState is client's policy state at level, nil when that layer has none.
func (e *engine) levelState(client int32, level int32) *levelState {
	if !e.stateful[level] {
		return nil
	}
	return &e.ls[int(client)*len(e.levels)+int(level)]
}

// levelStateOf is levelState for request r's client, reading r only when the layer has
// state: a request is one more cache miss on the hot path of a run with 100,000 clients.
func (e *engine) levelStateOf(r *request, level int32) *levelState {
	if !e.stateful[level] {
		return nil
	}
	return &e.ls[int(r.client)*len(e.levels)+int(level)]
}

// latencyAt is the prepared PhaseLatency(phase).
func (e *engine) latencyAt(phase int) *scenario.Distribution {
	if phase >= 0 {
		return &e.phaseLat[phase]
	}
	return &e.baseLat
}

// second returns the timeline bucket of t, carrying the levels (in flight, queue, busy)
// into every second that had no event of its own.
func (e *engine) second(t time.Duration) *replay.Second {
	s := int(t / time.Second)
	for e.lastSec < s {
		e.lastSec++
		e.tl = append(e.tl, replay.Second{T: e.lastSec, InFlight: e.inFlight, QueueLength: e.queue.attempts, TargetBusy: e.busy, BusyWorkers: e.totalBusy})
	}
	return &e.tl[s]
}

func (e *engine) levelsChanged() {
	s := e.second(e.now)
	s.InFlight = max(s.InFlight, e.inFlight)
	s.QueueLength = max(s.QueueLength, e.queue.attempts)
	s.TargetBusy = max(s.TargetBusy, e.busy)
	s.BusyWorkers = max(s.BusyWorkers, e.totalBusy)
}

func (e *engine) push(at time.Duration, kind eventKind, a *attempt, c *call, n int) {
	ev := event{at: at, kind: kind, gen: uint32(n)}
	if a != nil {
		ev.obj, ev.gen = unsafe.Pointer(a), a.gen
	} else if c != nil {
		ev.obj, ev.gen = unsafe.Pointer(c), c.gen
	}
	lane := -1
	switch kind {
	case evAttemptTimeout:
		lane = laneTimeout
	case evTargetArrive:
		lane = laneArrive
	case evArrival:
		lane = laneArrival
	case evServiceDone:
		lane = e.serviceLane
	case evRetry:
		if e.fixedWaits[c.level] {
			lane = e.h.retryLane(at - e.now)
		}
	}
	e.h.push(ev, lane)
}

// run executes the simulation until nothing is left or the drain ends.
func (e *engine) run(ctx context.Context) error {
	e.scheduleArrivals()
	steps := int64(0)
	for e.h.len() > 0 {
		if steps++; steps&4095 == 0 {
			if err := e.checkIn(ctx); err != nil {
				e.events = steps
				return err
			}
		}
		ev := e.h.pop()
		if ev.at > e.horizon {
			break // later events never happen: the run ends at the horizon
		}
		e.now = ev.at
		e.lastEvent = ev.at
		e.fire(ev)
	}
	e.events = steps
	e.finish(e.failStuck())
	return nil
}

// scheduleArrivals puts the load's first events on the heap: one per closed loop, or the
// t=0 burst and the first open-model arrival.
func (e *engine) scheduleArrivals() {
	ld := e.sc.Load
	if ld.Concurrency > 0 {
		for i := 0; i < ld.Concurrency; i++ {
			e.push(0, evLoop, nil, nil, i)
		}
		return
	}
	if ld.Burst > 0 {
		e.push(0, evBurst, nil, nil, ld.Burst)
	}
	if ld.Rate > 0 {
		e.push(e.nextGap(), evArrival, nil, nil, 0)
	}
}

// checkIn runs every few thousand events: it stops the run when ctx ended and reports
// progress.
func (e *engine) checkIn(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if e.tick != nil {
		e.tick(e.now, e.horizon)
	}
	return nil
}

// fire handles one event at e.now. An event about a pooled object whose generation moved on
// (the object was finished and reused) is stale and dropped, and so is a timeout of an
// attempt already resolved for its caller.
func (e *engine) fire(ev event) {
	switch ev.kind {
	case evArrival, evBurst, evLoop:
		e.arrivalEvent(ev)
	case evTargetArrive:
		if a := ev.attempt(); a.gen == ev.gen {
			e.targetArrive(a)
		}
	case evServiceDone:
		if a := ev.attempt(); a.gen == ev.gen {
			e.serviceDone(a)
		}
	case evOrphanDone:
		e.orphanDone((*request)(ev.obj))
	case evWriteDone:
		if a := ev.attempt(); a.gen == ev.gen {
			e.writeDone(a)
		}
	case evAttemptTimeout:
		if a := ev.attempt(); a.gen == ev.gen && !a.callerOff {
			e.resolve(a, policy.Outcome{Kind: policy.Timeout})
		}
	case evReadTimeout:
		if a := ev.attempt(); a.gen == ev.gen && !a.callerOff && a.readAt == ev.at {
			e.readTimeout(a)
		}
	case evBodyDone:
		if a := ev.attempt(); a.gen == ev.gen && !a.callerOff {
			e.resolve(a, bodyOutcome(a))
		}
	case evConnectTimeout:
		if a := ev.attempt(); a.gen == ev.gen && !a.callerOff {
			e.resolve(a, policy.Outcome{Kind: policy.ConnectTimeout})
		}
	case evRetry:
		if c := ev.call(); c.gen == ev.gen {
			e.startAttempt(c)
		}
	}
}

// arrivalEvent issues the logical requests of an arrival event, each with the next arrival
// index (the same across policies): an open-model arrival on a client drawn at random, then
// the next arrival's time; the burst spread over the clients in turn; a closed loop's next
// request, until arrivals stop.
func (e *engine) arrivalEvent(ev event) {
	switch ev.kind {
	case evArrival:
		e.arrive(e.arrivals, int(e.arr.IntN(len(e.clients))), -1)
		e.arrivals++
		if next := e.now + e.nextGap(); next < e.duration {
			e.push(next, evArrival, nil, nil, 0)
		}
	case evBurst:
		for i := 0; i < int(ev.gen); i++ {
			e.arrive(e.arrivals, i%len(e.clients), -1)
			e.arrivals++
		}
	case evLoop:
		if e.now < e.duration {
			e.arrive(e.arrivals, int(ev.gen)%len(e.clients), int32(ev.gen))
			e.arrivals++
		}
	}
}

// failStuck fails the logical requests still in flight when the events ran out or the
// horizon came, as stuck at the horizon, and returns when the run ended.
func (e *engine) failStuck() time.Duration {
	if len(e.active) == 0 {
		return e.lastEvent
	}
	e.now = e.horizon
	for len(e.active) > 0 {
		r := e.active[len(e.active)-1]
		e.finishRequest(r, replay.EndFailed, replay.ReasonStuck)
	}
	return e.horizon
}

func (e *engine) nextGap() time.Duration {
	return time.Duration(e.arr.ExpFloat64() / e.sc.Load.Rate * float64(time.Second))
}

// arrive admits logical request id on a client, or fails it for lack of a worker.
func (e *engine) arrive(id uint64, client int, loop int32) {
	e.res.Requests++
	s := e.second(e.now)
	s.Arrivals++
	single := len(e.levels) == 1
	if single && !e.acquireWorker(client) {
		e.res.NoWorker++
		e.res.Tally(e.sc, s, replay.Finished{End: replay.EndFailed, Reason: replay.ReasonNoWorker, Start: e.now})
		if loop >= 0 && e.now+e.sc.Load.Think < e.duration {
			e.push(e.now+max(e.sc.Load.Think, time.Millisecond), evLoop, nil, nil, int(loop))
		}
		return
	}
	r := e.newRequest()
	r.id, r.client, r.loop, r.start = id, int32(client), loop, e.now
	r.holdsWorker = single
	r.activeIdx = int32(len(e.active))
	e.active = append(e.active, r)
	e.inFlight++
	if e.inFlight > e.res.PeakInFlight {
		e.res.PeakInFlight = e.inFlight
	}
	e.levelsChanged()
	e.startCall(r, 0, nil)
}

// acquireWorker takes one of the client's workers, or says there is none free. Workers
// belong to the bottom layer, the caller of the dependency: with layers above it (a browser
// above the web server), the bottom call holds the worker, not the whole logical request.
func (e *engine) acquireWorker(client int) bool {
	e.totalBusy++
	if e.workers > 0 {
		// Per-client counts matter only when workers are limited: unlimited, the client's
		// memory is not touched at all.
		cs := &e.clients[client]
		if cs.busy >= e.workers {
			e.totalBusy--
			return false
		}
		cs.busy++
		if cs.busy == e.workers {
			if e.satClients == 0 {
				e.satSince = e.now
			}
			e.satClients++
		}
		if sat := float64(cs.busy) / float64(e.workers); sat > e.res.WorkerSaturation {
			e.res.WorkerSaturation = sat
		}
	}
	e.levelsChanged()
	return true
}

func (e *engine) releaseWorker(client int) {
	if e.workers > 0 {
		cs := &e.clients[client]
		if cs.busy == e.workers {
			e.satClients--
			if e.satClients == 0 {
				e.saturated += e.now - e.satSince
			}
		}
		cs.busy--
	}
	e.totalBusy--
	e.levelsChanged()
}

func (e *engine) newRequest() *request {
	var r *request
	if n := len(e.freeReq); n > 0 {
		r = e.freeReq[n-1]
		e.freeReq = e.freeReq[:n-1]
		gen := r.gen
		*r = request{gen: gen}
	} else {
		r = &request{}
	}
	return r
}

func (e *engine) unref(r *request) {
	r.refs--
	if r.refs == 0 && r.finished {
		r.gen++
		e.freeReq = append(e.freeReq, r)
	}
}

// startCall begins a logical request at a layer.
func (e *engine) startCall(r *request, level int, parent *attempt) {
	var c *call
	if n := len(e.freeCall); n > 0 {
		c = e.freeCall[n-1]
		e.freeCall = e.freeCall[:n-1]
		gen := c.gen
		*c = call{gen: gen}
	} else {
		c = &call{}
	}
	c.level, c.req, c.parent = int32(level), r, parent
	if parent != nil {
		c.parentGen = parent.gen
	}
	r.refs++
	lp := e.levels[level]
	c.pc.Init(lp, e.req, e.now)
	if level > 0 && level == len(e.levels)-1 {
		if !e.acquireWorker(int(r.client)) {
			// The server below the upper layers has no free worker: it answers 503 at
			// once, and the layer above decides whether to try again.
			e.res.NoWorker++
			r.turnedAway = true
			c.last, c.hasLast = policy.Outcome{Kind: policy.Status, Status: 503}, true
			e.endCall(c, replay.EndFailed, replay.ReasonNoWorker)
			return
		}
		c.holdsWorker = true
	}
	if ls := e.levelState(r.client, int32(level)); ls != nil && ls.budget != nil {
		ls.budget.OnRequest(e.now)
	}
	e.startAttempt(c)
}

// startAttempt starts the next attempt of c, or ends c when its policy cannot.
func (e *engine) startAttempt(c *call) {
	r := c.req
	ls := e.levelStateOf(r, c.level)
	lp := e.levels[c.level]
	timeout, ok := c.pc.AttemptTimeout(e.now)
	if !ok {
		e.endCall(c, replay.EndFailed, replay.ReasonDeadline)
		return
	}
	if ls == nil {
		ls = &noLevelState
	}
	if ls.breaker != nil && !ls.breaker.Allow(e.now) {
		if lp.Fallback {
			e.endCall(c, replay.EndDegraded, "")
		} else {
			e.endCall(c, replay.EndFailed, replay.ReasonBreakerOpen)
		}
		return
	}
	if ls.bulkhead != nil && !ls.bulkhead.TryAcquire() {
		if lp.Fallback {
			e.endCall(c, replay.EndDegraded, "")
		} else {
			e.endCall(c, replay.EndFailed, replay.ReasonBulkhead)
		}
		return
	}
	a := e.newAttempt()
	a.c, a.cgen, a.req, a.start = c, c.gen, r, e.now
	r.refs++
	c.attempts++
	a.acquired = ls.bulkhead != nil
	if int(c.level) < len(e.levels)-1 {
		// Above the bottom, the read timeout bounds the wait for the call below, whose
		// answer comes whole (docs/design.md §6): it fires when the total would not first.
		if r := lp.ReadTimeout; r > 0 && (timeout == 0 || r < timeout) {
			a.readAt = e.now + r
			e.push(a.readAt, evReadTimeout, a, nil, 0)
		} else if timeout > 0 {
			e.push(e.now+timeout, evAttemptTimeout, a, nil, 0)
		}
		a.targetOff = true
		e.startCall(r, int(c.level)+1, a)
		return
	}
	if timeout > 0 {
		a.deadline = e.now + timeout
	}
	gen := a.gen
	e.send(a, lp, timeout)
	// Most attempts are answered before their timeout: when the answer is already scheduled
	// before the deadline, the timeout event would only be dropped as stale, so it is not
	// pushed at all. Ties go to the timeout (see expire).
	if a.gen != gen || a.callerOff {
		return
	}
	if a.readAt > 0 && !(a.headAt > 0 && a.headAt < a.readAt) {
		e.push(a.readAt, evReadTimeout, a, nil, 0)
	}
	if a.deadline > 0 && !(a.doneAt > 0 && a.doneAt < a.deadline) {
		e.push(a.deadline, evAttemptTimeout, a, nil, 0)
	}
}

// expire times out an attempt whose deadline has come when the target answers at that very
// instant: the caller's timer fires first, as it would have had its event been queued.
func (e *engine) expire(a *attempt) {
	switch {
	case a.callerOff:
	case a.deadline > 0 && e.now >= a.deadline:
		e.resolve(a, policy.Outcome{Kind: policy.Timeout})
	case a.readAt > 0 && e.now >= a.readAt:
		e.readTimeout(a)
	}
}

// readTimeout ends attempt a for its caller with its read timeout: a timeout (the server may
// have acted), told apart only in the failure reason.
func (e *engine) readTimeout(a *attempt) {
	if c := a.c; c.gen == a.cgen {
		c.lastRead = true
	}
	e.resolve(a, policy.Outcome{Kind: policy.Timeout})
}

func (e *engine) newAttempt() *attempt {
	var a *attempt
	if n := len(e.freeAtt); n > 0 {
		a = e.freeAtt[n-1]
		e.freeAtt = e.freeAtt[:n-1]
		gen := a.gen
		*a = attempt{gen: gen}
	} else {
		a = &attempt{}
	}
	return a
}

func (e *engine) releaseAttempt(a *attempt) {
	if a.callerOff && a.targetOff {
		r := a.req
		a.gen++
		a.c, a.req = nil, nil
		e.freeAtt = append(e.freeAtt, a)
		e.unref(r)
	}
}

// burstWindowLen is the window of the retry-burst peak. A per-second count hides what
// synchronised retries do: 3,000 retries landing in the same millisecond and 3,000 spread over
// a second count the same per second, but only the first overwhelms a dependency with a few
// dozen workers and no queue. 100 ms is short enough to see a wave and long enough that a
// few hundred retries per second do not read as bursts of one.
const burstWindowLen = 100 * time.Millisecond

// countAttempt records one attempt started at the target now: the total, the timeline second
// and, for a retry at this (the bottom) layer, the retry-burst window.
func (e *engine) countAttempt(retry bool) {
	e.res.Attempts++
	e.second(e.now).Attempts++
	if !retry {
		return
	}
	w := int64(e.now / burstWindowLen)
	if w != e.burstWindow {
		e.flushBurst()
		e.burstWindow, e.burstCount = w, 0
	}
	e.burstCount++
}

// flushBurst folds the current retry-burst window into the peak, scaled to per second.
func (e *engine) flushBurst() {
	if r := float64(e.burstCount) * float64(time.Second/burstWindowLen); r > e.res.PeakRetryBurstPerS {
		e.res.PeakRetryBurstPerS = r
	}
}

// send starts a bottom attempt at the target: every draw it needs is taken now from the
// generator of (seed, request, attempt index), so policies share them.
func (e *engine) send(a *attempt, lp *policy.Policy, timeout time.Duration) {
	r := a.req
	j := r.attemptSeq
	e.countAttempt(j > 0)
	r.attemptSeq++
	a.seq = j
	scenario.SeedTarget(e.tpcg, e.sc.Seed, r.id, uint64(j))
	connect := e.connect.Sample(e.trng)
	arrive := e.now + connect
	a.phase = int8(e.sc.PhaseAt(arrive))
	a.fault = -1
	u := e.trng.Float64()
	if a.phase >= 0 {
		a.fault = int8(e.sc.Target.Phases[a.phase].PickFault(u))
	}
	dist := e.latencyAt(int(a.phase))
	a.service = dist.Sample(e.trng)
	if e.sc.Target.Conflicts == "single-row" {
		a.write = dist.Sample(e.trng)
	}
	if lp.ConnectTimeout > 0 && connect >= lp.ConnectTimeout && (timeout == 0 || lp.ConnectTimeout < timeout) {
		// The connection is not up in time: the request never leaves.
		a.targetOff = true
		e.push(e.now+lp.ConnectTimeout, evConnectTimeout, a, nil, 0)
		return
	}
	// The read timeout waits for the head from when the request is written (docs/design.md
	// §6); a total due no later ends the attempt first.
	if r := lp.ReadTimeout; r > 0 && (a.deadline == 0 || arrive+r < a.deadline) {
		a.readAt = arrive + r
	}
	if connect == 0 {
		// No connection set-up to wait for (the common case: target.connect unset): the
		// attempt reaches the target now, without a round trip through the agenda.
		e.targetArrive(a)
		return
	}
	e.push(arrive, evTargetArrive, a, nil, 0)
}

func (e *engine) targetArrive(a *attempt) {
	e.expire(a)
	if a.fault >= 0 {
		ph := &e.sc.Target.Phases[a.phase]
		f := &ph.Faults[a.fault]
		switch f.Kind {
		case scenario.FaultStatus:
			a.targetOff = true
			o := policy.Outcome{Kind: policy.Status, Status: f.Status}
			if f.RetryAfter != nil {
				if f.RetryAfter.Date {
					o.RetryAfter = epoch.Add(e.now + f.RetryAfter.Delay).Format(httpTimeFormat)
				} else {
					o.RetryAfter = e.faultRA[a.phase][a.fault]
				}
			}
			e.answer(a, o)
			return
		case scenario.FaultHang:
			// The connection is dead: nothing ever comes back. The caller's timeout (if any)
			// is the only way out.
			a.targetOff = true
			e.releaseAttempt(a)
			return
		case scenario.FaultRefuse:
			a.targetOff = true
			e.answer(a, policy.Outcome{Kind: policy.Refused})
			return
		case scenario.FaultDrip:
			a.targetOff = true
			e.drip(a, f.Drip)
			return
		}
		// reset: served, then the connection drops (handled at serviceDone).
	}
	r := a.req
	if e.hasKey {
		switch r.keyState {
		case keyInFlight:
			a.targetOff = true
			e.answer(a, policy.Outcome{Kind: policy.Status, Status: 409})
			return
		case keyDone:
			a.targetOff = true
			e.answer(a, policy.Outcome{Kind: policy.Success, Status: 200})
			return
		}
	}
	if e.capacity != nil {
		switch {
		case e.busy < e.capacity.Workers:
		case e.queue.attempts < e.capacity.Queue:
			e.queue.push(a)
			e.claimKey(a)
			e.levelsChanged()
			return
		default:
			a.targetOff = true
			e.answer(a, policy.Outcome{Kind: policy.Status, Status: 503})
			return
		}
	}
	e.claimKey(a)
	e.startService(a)
}

// drip answers attempt a with a drip fault (docs/design.md §6): the head now, then the body
// at the fault's pace. As serve does (live/server.go), it answers before the application
// sees the request: no capacity, no idempotency key, no side effect. attemptEnd says whether
// the body, the read timeout or the total ends it; the total's timer is the attempt's own.
func (e *engine) drip(a *attempt, d *scenario.Drip) {
	if a.callerOff {
		e.releaseAttempt(a)
		return
	}
	var total time.Duration
	if a.deadline > 0 {
		total = a.deadline - e.now
	}
	at, how := attemptEnd(0, paceOf(d), e.levels[a.c.level].ReadTimeout, total)
	a.headAt, a.readAt = e.now, 0
	switch how {
	case endAnswered:
		a.doneAt = e.now + at
		e.push(a.doneAt, evBodyDone, a, nil, 0)
	case endReadTimeout:
		a.readAt, a.doneAt = e.now+at, e.now+at
		e.push(a.readAt, evReadTimeout, a, nil, 0)
	}
}

func (e *engine) claimKey(a *attempt) {
	if e.hasKey {
		a.req.keyState = keyInFlight
		a.holdsKey = true
	}
}

func (e *engine) startService(a *attempt) {
	if e.capacity != nil {
		e.busy++
		e.levelsChanged()
	}
	done := e.stalls.Advance(e.now, a.service)
	if e.sc.Target.Conflicts != "single-row" && e.sc.Target.Stream == nil {
		a.doneAt, a.headAt = done, done
	}
	e.push(done, evServiceDone, a, nil, 0)
}

func (e *engine) freeServer() {
	if e.capacity == nil {
		return
	}
	e.busy--
	if a, svc, r, ok := e.queue.pop(); ok {
		if a != nil {
			e.startService(a)
		} else {
			e.startOrphan(svc, r)
		}
	}
	e.levelsChanged()
}

// orphan is called when the caller of queued attempt a gives up: the target will still serve
// it (wasted work), but as a queue entry of its service time, without the attempt. It keeps
// its request only when serving it writes to the request's books: the idempotency key it
// claimed, or its executions when duplicate side effects are counted. Single-row conflicts
// keep the attempt (its write reads and compares the row version).
func (e *engine) orphan(a *attempt) {
	if e.sc.Target.Conflicts == "single-row" {
		return
	}
	var r *request
	if a.holdsKey || (!e.idem && !e.hasKey) {
		r = a.req
		r.refs++
	}
	e.queue.orphan(a, r)
	a.targetOff = true
}

// startOrphan serves an orphan for svc: the same server slot and service end as startService
// gives the attempt it stands for, with the books of r (nil for none).
func (e *engine) startOrphan(svc time.Duration, r *request) {
	e.busy++
	e.levelsChanged()
	var gen uint32
	if r != nil {
		gen = r.gen
	}
	ev := event{at: e.stalls.Advance(e.now, svc), kind: evOrphanDone, obj: unsafe.Pointer(r), gen: gen}
	e.h.push(ev, e.serviceLane)
}

// orphanDone is serviceDone for an orphan: the server frees, the side effect happens (wasted
// work: nobody waits for it), nobody is answered.
func (e *engine) orphanDone(r *request) {
	e.freeServer()
	if r != nil {
		r.executions++
		if e.hasKey {
			r.keyState = keyDone
		}
		if !e.idem && !e.hasKey && r.executions > 1 {
			e.res.Duplicates++
		}
		e.unref(r)
	}
	e.res.WastedWork++
}

func (e *engine) serviceDone(a *attempt) {
	e.expire(a)
	if e.sc.Target.Conflicts == "single-row" && (a.fault < 0) {
		// The read is done; the conditional write follows on the same server slot and
		// counts as one more attempt at the target.
		a.readVer = e.rowVer
		e.countAttempt(false)
		e.push(e.stalls.Advance(e.now, a.write), evWriteDone, a, nil, 0)
		return
	}
	if a.fault < 0 && e.sc.Target.Stream != nil {
		// A stream holds its worker to its end (docs/design.md §6, streams): serve's handler
		// keeps the slot while it writes the events, so the simulator frees it when the
		// stream ends for the caller (resolve), not at the head.
		a.holdsServer = e.capacity != nil
		e.execute(a)
		a.targetOff = true
		e.stream(a)
		return
	}
	e.freeServer()
	e.execute(a)
	a.targetOff = true
	o := policy.Outcome{Kind: policy.Success, Status: 200}
	if a.fault >= 0 {
		o = policy.Outcome{Kind: policy.Reset}
	}
	e.answer(a, o)
}

func (e *engine) writeDone(a *attempt) {
	e.expire(a)
	e.freeServer()
	a.targetOff = true
	if e.rowVer != a.readVer {
		// Another write committed since this attempt read the row: optimistic concurrency
		// refuses this one, nothing was written.
		if a.holdsKey {
			a.req.keyState = keyNone
		}
		e.answer(a, policy.Outcome{Kind: policy.Status, Status: 409})
		return
	}
	e.rowVer++
	e.execute(a)
	e.answer(a, policy.Outcome{Kind: policy.Success, Status: 200})
}

// execute records a side effect of the request at the target.
func (e *engine) execute(a *attempt) {
	r := a.req
	r.executions++
	if a.holdsKey {
		r.keyState = keyDone
	}
	if !e.idem && !e.hasKey && r.executions > 1 {
		e.res.Duplicates++
	}
	if a.callerOff {
		e.res.WastedWork++
	}
}

// answer delivers a response from the target to the caller, if the caller still waits.
func (e *engine) answer(a *attempt, o policy.Outcome) {
	if a.callerOff {
		e.releaseAttempt(a)
		return
	}
	e.resolve(a, o)
}

// resolve ends attempt a for its caller with outcome o and lets the call's policy decide.
func (e *engine) resolve(a *attempt, o policy.Outcome) {
	a.callerOff = true
	e.endStream(a)
	if a.qpos != 0 {
		e.orphan(a)
	}
	c := a.c
	r := a.req
	ls := e.levelStateOf(r, c.level)
	if ls == nil {
		ls = &noLevelState
	}
	if a.acquired {
		ls.bulkhead.Release()
		a.acquired = false
	}
	success := o.Kind == policy.Success
	streamed, cut, events := a.streaming, a.cut, int(a.events)
	if streamed {
		e.tallyStream(o, cut)
		if success {
			r.firstAt = a.firstAt
		}
	}
	if ls.breaker != nil {
		ls.breaker.Record(e.now, !policy.BreakerFailure(o))
	}
	e.releaseAttempt(a)
	if c.gen != a.cgen {
		return
	}
	c.last, c.hasLast = o, true
	read := c.lastRead && o.Kind == policy.Timeout
	c.lastRead = false
	// Next also keeps the budget's books (refill on a first-try success, spend on a retry).
	// Point the jitter Rand at this client's stream; only a draw touches its memory.
	e.jsrc.p = &e.clients[r.client].jitter
	d := c.pc.Next(e.now, o, ls.budget, epoch.Add(e.now), e.jrng)
	if success {
		e.endCall(c, replay.EndSucceeded, "")
		return
	}
	if d.Retry {
		if streamed && events > 0 {
			e.res.Streams.Restarted++
			e.res.Streams.EventsWasted += events
		}
		e.push(e.now+d.Wait, evRetry, nil, c, 0)
		return
	}
	reason := replay.ReasonOf(o)
	switch {
	case read:
		reason = replay.ReasonReadTimeout
	case cut:
		reason = replay.ReasonStreamCut
	}
	switch d.Reason {
	case replay.ReasonBudget, replay.ReasonDeadline:
		reason = d.Reason
	}
	e.endCall(c, replay.EndFailed, reason)
}

// endCall finishes a call: the top call finishes its logical request; a lower call answers
// the upper layer's attempt, unless that attempt was already given up.
func (e *engine) endCall(c *call, kind replay.End, reason string) {
	r := c.req
	e.malformed += c.pc.MalformedRetryAfter()
	parent, parentGen, level := c.parent, c.parentGen, c.level
	last, hasLast := c.last, c.hasLast
	if c.holdsWorker {
		c.holdsWorker = false
		e.releaseWorker(int(r.client))
	}
	c.gen++
	c.parent, c.req = nil, nil
	e.freeCall = append(e.freeCall, c)
	if level == 0 {
		if kind == replay.EndFailed && hasLast && !e.idem && policy.Classify(last) == policy.ClassUnknown {
			e.res.UnknownOutcomes++
		}
		e.finishRequest(r, kind, reason)
		e.unref(r)
		return
	}
	if parent != nil && parent.gen == parentGen && !parent.callerOff {
		if kind == replay.EndDegraded {
			r.degraded = true
		}
		e.unref(r)
		e.resolve(parent, replay.AnswerAbove(kind, reason, last, hasLast))
		return
	}
	e.unref(r)
}

func (e *engine) finishRequest(r *request, kind replay.End, reason string) {
	if r.finished {
		return
	}
	r.finished = true
	if kind == replay.EndSucceeded && r.degraded {
		kind = replay.EndDegraded
	}
	e.res.Tally(e.sc, e.second(e.now), replay.Finished{End: kind, Reason: reason, Start: r.start, TurnedAway: r.turnedAway})
	lat := e.now - r.start
	if r.firstAt > 0 && kind != replay.EndFailed {
		// A stream's caller waits for its first event (docs/design.md §6).
		lat = r.firstAt - r.start
	}
	_ = e.hist.RecordValue(int64(lat / time.Microsecond))
	if e.now > time.Duration(e.res.FinishedMs*float64(time.Millisecond)) {
		e.res.FinishedMs = ms(e.now)
	}
	// leave the active set
	last := e.active[len(e.active)-1]
	e.active[r.activeIdx] = last
	last.activeIdx = r.activeIdx
	e.active = e.active[:len(e.active)-1]
	e.inFlight--
	if r.holdsWorker {
		r.holdsWorker = false
		e.releaseWorker(int(r.client))
	}
	e.levelsChanged()
	if r.loop >= 0 && e.now+e.sc.Load.Think < e.duration {
		// At least a microsecond, so a loop with no think time against an instant target
		// still moves the clock.
		e.push(e.now+max(e.sc.Load.Think, time.Microsecond), evLoop, nil, nil, int(r.loop))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// finish fills the result from the counters.
func (e *engine) finish(end time.Duration) {
	if end < e.duration {
		end = e.duration
	}
	// Carry levels to the last second; a bucket past it exists only when something happened
	// exactly at the end (requests failed as stuck at the drain end), and is kept.
	e.second(end - 1)
	res := &e.res
	res.Timeline = e.tl
	res.Derive(e.hist)
	e.flushBurst()
	res.MalformedRetryAfter = e.malformed
	if e.satClients > 0 {
		e.saturated += end - e.satSince
	}
	res.SaturatedMs = ms(e.saturated)
	// Judge last: the verdict reads every field above.
	res.Judge(e.sc)
}

// httpTimeFormat is the IMF-fixdate layout of RFC 9110 §5.6.7 (net/http.TimeFormat).
const httpTimeFormat = "Mon, 02 Jan 2006 15:04:05 GMT"
