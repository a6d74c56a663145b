package sim

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// The expected cost of a run, before it runs (EstimateRun): how many events the engine will
// handle. A run's time is its events times what one costs on this machine now (Calibrate,
// Speed.Time); the events are what the engine does (one per arrival, per answer of the
// target, per timer that fires — stale ones included — and per backoff sleep), so the work
// follows the attempts the policy makes, and those follow what the target does.
//
// The estimate is a mean-field run of the scenario: the arrivals are sampled (estSamples
// logical requests spread over the run, each standing for its share of the arrivals), and
// each sample is walked through the policy's layers and attempts with the policy's own
// decisions (policy.Call: its retry list, backoff and jitter, Retry-After, deadline), the
// phases in force when each attempt reaches the target (faults with their percentages,
// hangs, latencies against the timeout, stalls) and idempotency keys. What depends on the
// other requests is carried by per-time fields taken from the previous pass, until a pass
// changes nothing: the target's queue and capacity (a fluid FIFO: the waiting time an attempt
// meets and the share a full queue turns away), the clients' workers and bulkheads (the share
// of calls turned away once the concurrency wanted is above the limit), breakers (open while
// the failure share of the last window is above the threshold) and retry budgets (one bucket
// or ratio for all clients). Starting from an idle target, the passes climb to the first
// fixed point: a retry storm that collapses is found collapsed, one that drains, drained —
// the fluid derivation of package storm, applied to the policy's actual attempts.
//
// Against the engine (sim.Events) on the bundled scenarios, copies of them at 20 times their
// rate and storm's quick models with every probe of their searches, the events come within a
// factor of 1.5 in nearly every case (TestEstimateRunFollowsTheEngine holds the bundled ones
// to 1.6). The bound --max-cost keeps (storm.EstimateCost) is another thing: every attempt
// failing.

// Work is what one simulated run of a policy is expected to take: EstimateRun's answer.
type Work struct {
	// Requests are the logical requests that arrive; Attempts those that reach the target.
	Requests float64
	Attempts float64
	// Events are the engine's events: its work. Low and High bound them when the run sits
	// near a tipping point (a capacity whose backlog may or may not drain: the estimate at a
	// quarter less and a quarter more load), else they equal Events.
	Events, Low, High float64
	// Clients are the scenario's clients, Stateful says some layer keeps per-client state
	// (a budget, breaker or bulkhead): with many clients every event touches memory a cache
	// does not hold.
	Clients  int
	Stateful bool
	// InFlight is how many logical requests are in flight on average over the run: the
	// engine's agenda holds a few events for each, and a long agenda costs more per event.
	InFlight float64
	// Recovered says the mean-field run comes back after its last fault (replay's recovery
	// rule, read from the fields: recovered): what storm's stable-rate search asks of each
	// probe.
	Recovered bool
}

// Estimate is how long something is expected to take on this machine: Time, or between Low
// and High where the runs may tip either way.
type Estimate struct {
	Time, Low, High time.Duration
}

// Scaled is e with every time multiplied by f.
func (e Estimate) Scaled(f float64) Estimate {
	scale := func(d time.Duration) time.Duration { return time.Duration(float64(d) * f) }
	return Estimate{Time: scale(e.Time), Low: scale(e.Low), High: scale(e.High)}
}

// Add sums two estimates: runs one after the other.
func (e Estimate) Add(f Estimate) Estimate {
	return Estimate{Time: e.Time + f.Time, Low: e.Low + f.Low, High: e.High + f.High}
}

// EstimateReplay is what sim.Run of sc (replay, check's PT100) is expected to take at speed:
// every policy's run (EstimateSpread), one after the other.
func EstimateReplay(sc *scenario.Scenario, speed Speed) Estimate {
	var e Estimate
	for _, p := range sc.Policies {
		w := EstimateSpread(sc, p)
		lo, hi := speed.Range(w)
		e = e.Add(Estimate{Time: speed.Time(w), Low: lo, High: hi})
	}
	return e
}

// Estimate tuning. estSamples logical requests stand for the arrivals (a few thousand
// attempts per pass); estPasses bounds the passes to the fixed point; estBins cuts the run
// into time bins for the per-time fields (never shorter than estMinBin).
const (
	estSamples   = 256
	estBurst     = 128
	estPasses    = 24
	estUndamped  = 3
	estBins      = 2048
	estMinBin    = 10 * time.Millisecond
	estMaxPerReq = 4096 // attempts one sample may make (an unlimited policy stops there)
)

// EstimateRun estimates what simulating p on sc takes (see Work; Low and High are Events).
// It takes a few milliseconds, and allocates per time bin, not per request.
func EstimateRun(sc *scenario.Scenario, p *policy.Policy) Work {
	m := newMeanField(sc, p)
	prev := -1.0
	for pass := 0; ; pass++ {
		m.pass()
		if prev >= 0 && math.Abs(m.events-prev) <= 0.01*prev {
			break
		}
		if pass == estPasses-1 {
			// Still moving: between the last two passes.
			m.events = (m.events + prev) / 2
			break
		}
		prev = m.events
		m.damp = pass >= estUndamped
		m.update()
	}
	return m.work()
}

// EstimateSpread is EstimateRun with its Low and High: where a capacity can tip the run (a
// backlog that drains at one load may collapse at a little more), the events of a quarter
// less and a quarter more load, per request, when they differ from the estimate's by more
// than half.
func EstimateSpread(sc *scenario.Scenario, p *policy.Policy) Work {
	w := EstimateRun(sc, p)
	if sc.Target.Capacity == nil {
		return w
	}
	perReq := w.Events / math.Max(w.Requests, 1)
	for _, load := range []float64{0.8, 1.25} {
		v := EstimateRun(scaledLoad(sc, load), p)
		per := v.Events / math.Max(v.Requests, 1)
		switch {
		case load > 1 && per > 1.5*perReq:
			w.High = w.Requests * per
		case load < 1 && per < perReq/1.5:
			w.Low = w.Requests * per
		}
	}
	return w
}

// scaledLoad is sc with its arrivals scaled by f.
func scaledLoad(sc *scenario.Scenario, f float64) *scenario.Scenario {
	at := *sc
	at.Load.Rate *= f
	at.Load.Burst = int(math.Round(float64(at.Load.Burst) * f))
	at.Load.Concurrency = int(math.Round(float64(at.Load.Concurrency) * f))
	return &at
}

// meanField is one estimate in progress.
type meanField struct {
	sc      *scenario.Scenario
	levels  []*policy.Policy
	req     policy.Request
	hasKey  bool
	clients float64
	horizon time.Duration
	dt      time.Duration
	nb      int
	stalls  scenario.Stalls
	connect scenario.Distribution
	lat     []scenario.Distribution // base latency, then each phase's
	// cap: the target's capacity (nil = unbounded service).
	cap     *scenario.Capacity
	samples []estSample
	// closed-model loops: the requests they issue follow the request's length.
	closed   bool
	meanLife float64 // mean seconds a request lives (closed model)

	pcg *rand.PCG
	rng *rand.Rand

	// Fields from the previous pass (index: bin).
	spares  [][]float64
	rate    []float64 // the target's service rate per bin (fluid)
	svcCV2  float64   // the squared coefficient of variation of the base service time
	stalled []bool
	qWait   []float64 // seconds an attempt reaching the target waits in its queue
	queued  []float64 // share of attempts that wait there at all
	refuse  []float64 // share of attempts a full queue answers 503
	noWork  []float64 // share of worker-holding calls turned away (no_worker)
	open    [][]float64
	bulk    [][]float64
	breaker []bool // level has a breaker
	bulkOn  []bool

	// Accumulators of the current pass (difference arrays over bins unless said).
	offered  []float64   // attempts that reach the target and want service
	occAsked []float64   // worker-holding calls in progress, counting those turned away for the time they would hold
	attempts [][]float64 // per level: attempts recorded by the breaker (at their end)
	failures [][]float64
	asked    [][]float64 // per level: calls the breaker was asked to admit
	concAsk  [][]float64 // per level: attempts in progress, counting those the bulkhead turned away

	// Budgets, one for all clients: tokens of a token bucket, and a ratio budget's retries
	// and requests per bin.
	tokens     []float64
	ratioRetry [][]float64
	ratioReq   [][]float64

	// Totals of the current pass.
	requests, bottom, events float64
	lifeSum, lifeW           float64
	lastEnd                  time.Duration
	// damp blends the turned-away fields of a pass with the previous pass's (set after
	// estUndamped passes): a breaker that opens in one pass and closes in the next.
	damp bool
}

// estSample is one sampled logical request: its arrival, how many requests it stands for
// and over how long a stretch they arrive (0: at once, the burst).
type estSample struct {
	at     time.Duration
	weight float64
	spread time.Duration
}

func newMeanField(sc *scenario.Scenario, p *policy.Policy) *meanField {
	m := &meanField{sc: sc, cap: sc.Target.Capacity}
	for i := range p.Layers {
		if p.Layers[i].Policy != nil {
			m.levels = append(m.levels, p.Layers[i].Policy)
		}
	}
	m.levels = append(m.levels, p)
	method := sc.Load.Request.Method
	if method == "" {
		method = "GET"
	}
	m.hasKey = p.SendsKey(sc.Load.Request.IdempotencyKey)
	m.req = policy.Request{Method: method, HasKey: m.hasKey}
	m.clients = float64(max(sc.Load.Clients, 1))
	m.horizon = sc.Duration + sc.DrainOrDefault()
	m.dt = max(estMinBin, m.horizon/estBins)
	m.nb = int(m.horizon/m.dt) + 2
	m.stalls = sc.Stalls()
	m.connect = sc.Target.Connect.Prepared()
	m.lat = append(m.lat, sc.Target.Latency.Prepared())
	for i := range sc.Target.Phases {
		m.lat = append(m.lat, sc.PhaseLatency(i).Prepared())
	}
	m.pcg = rand.NewPCG(0, 0)
	m.rng = rand.New(m.pcg)
	if m.cap != nil {
		m.svcCV2 = variation(&m.lat[0], m.rng)
	}
	nl := len(m.levels)
	m.open, m.bulk = make([][]float64, nl), make([][]float64, nl)
	m.breaker, m.bulkOn = make([]bool, nl), make([]bool, nl)
	m.attempts, m.failures, m.asked = make([][]float64, nl), make([][]float64, nl), make([][]float64, nl)
	m.concAsk = make([][]float64, nl)
	m.tokens = make([]float64, nl)
	m.ratioRetry, m.ratioReq = make([][]float64, nl), make([][]float64, nl)
	for l, lp := range m.levels {
		if lp.Breaker != nil {
			m.breaker[l] = true
			m.open[l] = make([]float64, m.nb)
		}
		if lp.Bulkhead != nil {
			m.bulkOn[l] = true
			m.bulk[l] = make([]float64, m.nb)
		}
	}
	m.qWait, m.queued, m.refuse, m.noWork = make([]float64, m.nb), make([]float64, m.nb), make([]float64, m.nb), make([]float64, m.nb)
	m.sampleArrivals()
	return m
}

// sampleArrivals spreads estSamples samples over the open-model arrivals (each standing for
// the requests of its stretch of the run), estBurst over the burst, and for the closed model
// over the run at the rate its loops will issue requests (set each pass).
func (m *meanField) sampleArrivals() {
	ld := m.sc.Load
	d := m.sc.Duration
	m.samples = m.samples[:0]
	if ld.Burst > 0 {
		n := min(ld.Burst, estBurst)
		for range n {
			m.samples = append(m.samples, estSample{weight: float64(ld.Burst) / float64(n)})
		}
	}
	total := 0.0
	switch {
	case ld.Concurrency > 0:
		m.closed = true
		m.meanLife = m.sc.Target.Latency.Mean().Seconds()
		total = 1 // weights set each pass (closedWeights)
	case ld.Rate > 0:
		total = ld.Rate * d.Seconds()
	}
	if total <= 0 || d <= 0 {
		return
	}
	n := estSamples
	if !m.closed {
		n = int(math.Min(estSamples, math.Max(1, math.Ceil(total))))
	}
	width := d / time.Duration(n)
	for i := range n {
		at := time.Duration((float64(i) + 0.5) / float64(n) * float64(d))
		m.samples = append(m.samples, estSample{at: at, weight: total / float64(n), spread: width})
	}
}

// closedWeights sets the weight of the closed model's samples: its loops issue a request,
// wait for it, think, and issue the next.
func (m *meanField) closedWeights() {
	ld := m.sc.Load
	cycle := math.Max(m.meanLife, 0) + math.Max(ld.Think.Seconds(), 1e-6)
	if ld.Think <= 0 {
		cycle = math.Max(m.meanLife, 1e-6)
	}
	total := float64(ld.Concurrency) * m.sc.Duration.Seconds() / cycle
	n := 0
	for _, s := range m.samples {
		if s.spread > 0 {
			n++
		}
	}
	for i := range m.samples {
		if m.samples[i].spread > 0 {
			m.samples[i].weight = total / float64(n)
		}
	}
}

// pass walks every sample through the policy with the fields of the previous pass.
func (m *meanField) pass() {
	zero := func(a []float64, n int) []float64 {
		if cap(a) < n {
			return make([]float64, n)
		}
		a = a[:n]
		clear(a)
		return a
	}
	m.offered = zero(m.offered, m.nb)
	m.occAsked = zero(m.occAsked, m.nb)
	for l, lp := range m.levels {
		if m.breaker[l] {
			m.attempts[l] = zero(m.attempts[l], m.nb)
			m.failures[l] = zero(m.failures[l], m.nb)
			m.asked[l] = zero(m.asked[l], m.nb)
		}
		if m.bulkOn[l] {
			m.concAsk[l] = zero(m.concAsk[l], m.nb)
		}
		if b := lp.Budget; b != nil {
			switch b.Kind {
			case policy.BudgetTokenBucket:
				m.tokens[l] = b.Capacity * m.clients
			case policy.BudgetRatio:
				m.ratioRetry[l] = zero(m.ratioRetry[l], m.nb)
				m.ratioReq[l] = zero(m.ratioReq[l], m.nb)
			}
		}
	}
	if m.closed {
		m.closedWeights()
	}
	m.requests, m.bottom, m.events = 0, 0, 0
	m.lifeSum, m.lifeW = 0, 0
	m.lastEnd = m.sc.Duration
	for i, s := range m.samples {
		m.pcg.Seed(uint64(m.sc.Seed), uint64(i))
		m.walkRequest(s)
	}
	if m.closed && m.lifeW > 0 {
		m.meanLife = m.lifeSum / m.lifeW
	}
	if m.cap != nil {
		m.fluid()
	}
}

// estReq is one sample's walk: the sample, and its idempotency key's state at the target.
type estReq struct {
	s        estSample
	keyTaken bool
	keyDone  time.Duration
}

// walkRequest walks sample s: its arrival (turned away when the client has no worker), its
// call, and the time it holds a worker.
func (m *meanField) walkRequest(s estSample) {
	w := s.weight
	m.requests += w
	if s.spread > 0 {
		m.events += w // the arrival (the burst is one event for all its requests)
	}
	single := len(m.levels) == 1
	if single {
		if f := m.at(m.noWork, s.at); f > 0 {
			w *= 1 - f
			s.weight = w
			if w <= 0 {
				return
			}
		}
	}
	r := &estReq{s: s}
	res := m.walkCall(r, 0, s.at)
	end := res.end
	if res.stuck || end > m.horizon {
		end = m.horizon
	}
	if single {
		m.addInterval(m.occAsked, s.at, end, s.spread, s.weight/math.Max(1-m.at(m.noWork, s.at), 1e-3))
	}
	m.lifeSum += w * (end - s.at).Seconds()
	m.lifeW += w
	m.lastEnd = max(m.lastEnd, end)
}

// callResult is how a call ended.
type callResult struct {
	end     time.Duration
	ok      bool // succeeded (or degraded)
	stuck   bool // never ends: a hang nothing times out
	last    policy.Outcome
	hasLast bool
}

// walkCall walks one call at level from now: its attempts, their outcomes and the policy's
// decisions, accumulating the sample's weight into the pass.
func (m *meanField) walkCall(r *estReq, level int, now time.Duration) callResult {
	w := r.s.weight
	lp := m.levels[level]
	holdsWorker := level > 0 && level == len(m.levels)-1
	if holdsWorker && m.noWorker(now) {
		// The bottom call below upper layers holds a client worker, or finds none: the
		// server answers 503 at once and the layer above decides.
		return callResult{end: now, last: policy.Outcome{Kind: policy.Status, Status: 503}, hasLast: true}
	}
	var pc policy.Call
	pc.Init(lp, m.req, now)
	m.ratioRequest(level, now, w)
	start := now
	res := callResult{}
	for n := 0; ; n++ {
		timeout, ok := pc.AttemptTimeout(now)
		if !ok || n >= estMaxPerReq {
			res.end = now
			break
		}
		if m.turnedAway(r, level, now) {
			res = m.rejected(lp, now, res)
			break
		}
		o, end, stuck := m.send(r, level, now, timeout)
		if stuck {
			res = callResult{end: m.horizon, stuck: true}
			break
		}
		m.recordBreaker(r, level, o, end)
		d := pc.Next(end, o, nil, epoch.Add(end), m.rng)
		res.last, res.hasLast, res.end = o, true, end
		if o.Kind == policy.Success {
			res.ok = true
			if n == 0 {
				m.refill(level, w)
			}
			break
		}
		if !d.Retry || !m.budgetAllows(level, lp, o, end, w) {
			break
		}
		m.events += w // the backoff sleep's wake-up
		now = end + d.Wait
		if now > m.horizon {
			res.end = m.horizon
			break
		}
	}
	if holdsWorker {
		m.holdWorker(r, start, res)
	}
	return res
}

// noWorker draws whether a bottom call below upper layers at now finds no client worker.
func (m *meanField) noWorker(now time.Duration) bool {
	f := m.at(m.noWork, now)
	return f > 0 && m.draw() < f
}

// holdWorker counts the client worker a bottom call below upper layers holds from start to
// its end (res), counting the calls turned away for the time they would hold one.
func (m *meanField) holdWorker(r *estReq, start time.Duration, res callResult) {
	e := min(res.end, m.horizon)
	if res.stuck {
		e = m.horizon
	}
	m.addInterval(m.occAsked, start, e, r.s.spread, r.s.weight/math.Max(1-m.at(m.noWork, start), 1e-3))
}

// turnedAway asks level's breaker (counting the call it is asked to admit) and bulkhead
// to admit an attempt at now, and draws whether one of them turns it away.
func (m *meanField) turnedAway(r *estReq, level int, now time.Duration) bool {
	if m.breaker[level] {
		m.addPoint(m.asked[level], now, r.s.spread, r.s.weight)
		if f := m.at(m.open[level], now); f > 0 && m.draw() < f {
			return true
		}
	}
	if m.bulkOn[level] {
		if f := m.at(m.bulk[level], now); f > 0 && m.draw() < f {
			return true
		}
	}
	return false
}

// send is one attempt at level sent at now: the call of the level below, or at the bottom
// one attempt at the target (attempt); its outcome, when it ends, and whether it never
// ends. The bulkhead counts it in progress until then.
func (m *meanField) send(r *estReq, level int, now, timeout time.Duration) (o policy.Outcome, end time.Duration, stuck bool) {
	if level < len(m.levels)-1 {
		o, end, stuck = m.sendBelow(r, level, now, timeout)
	} else {
		o, end, stuck = m.attempt(r, m.levels[level], now, timeout)
	}
	if m.bulkOn[level] {
		m.addInterval(m.concAsk[level], now, min(end, m.horizon), r.s.spread, r.s.weight/math.Max(1-m.at(m.bulk[level], now), 1e-3))
	}
	return o, end, stuck
}

// sendBelow is an upper attempt at level: the call of the level below from now, cut at the
// attempt's timeout, and its outcome as this level sees it.
func (m *meanField) sendBelow(r *estReq, level int, now, timeout time.Duration) (o policy.Outcome, end time.Duration, stuck bool) {
	if rt := m.levels[level].ReadTimeout; rt > 0 && (timeout == 0 || rt < timeout) {
		// Above the bottom the read timeout bounds the wait for the call below, as the
		// engine's upper attempts have it: its timer stands for the total's.
		timeout = rt
	}
	if timeout > 0 {
		m.events += r.s.weight // the upper attempt's timer
	}
	sub := m.walkCall(r, level+1, now)
	switch {
	case timeout > 0 && (sub.stuck || sub.end-now >= timeout):
		o, end = policy.Outcome{Kind: policy.Timeout}, now+timeout
	case sub.stuck:
		stuck, end = true, m.horizon
	default:
		end = sub.end
		if sub.ok {
			o = policy.Outcome{Kind: policy.Success, Status: 200}
		} else if sub.hasLast {
			o = sub.last
		} else {
			o = policy.Outcome{Kind: policy.Timeout}
		}
	}
	return o, end, stuck
}

// recordBreaker records an attempt at level that ended at end with o for its breaker.
func (m *meanField) recordBreaker(r *estReq, level int, o policy.Outcome, end time.Duration) {
	if !m.breaker[level] {
		return
	}
	m.addPoint(m.attempts[level], end, r.s.spread, r.s.weight)
	if policy.BreakerFailure(o) {
		m.addPoint(m.failures[level], end, r.s.spread, r.s.weight)
	}
}

// refill returns to level's token bucket, if it has one, what a call that succeeded at its
// first attempt earns.
func (m *meanField) refill(level int, w float64) {
	b := m.levels[level].Budget
	if b != nil && b.Kind == policy.BudgetTokenBucket {
		m.tokens[level] = math.Min(m.tokens[level]+b.Refill*w, b.Capacity*m.clients)
	}
}

// rejected is a call a breaker or bulkhead turned away after res: degraded with a fallback,
// else failed, with its last attempt's outcome for the layer above, or a 503 before any.
func (m *meanField) rejected(lp *policy.Policy, now time.Duration, res callResult) callResult {
	if lp.Fallback {
		return callResult{end: now, ok: true}
	}
	if !res.hasLast {
		res.last, res.hasLast = policy.Outcome{Kind: policy.Status, Status: 503}, true
	}
	res.end = now
	return res
}

// attempt is one bottom attempt sent at now: its outcome, when the caller learns it, and
// whether it never ends (a hang without a timeout). Its events are the engine's: the
// connection's arrival at the target (when connecting takes time), the end of its service
// (without a capacity: with one, fluid counts what the queue serves, orphans included), a
// conditional write, and its timer — armed unless the answer was known, before the deadline,
// when the attempt was sent.
func (m *meanField) attempt(r *estReq, lp *policy.Policy, now, timeout time.Duration) (policy.Outcome, time.Duration, bool) {
	w := r.s.weight
	m.bottom += w
	a := estAttempt{r: r, now: now, timeout: timeout, read: lp.ReadTimeout, first: lp.FirstEventTimeout}
	a.connect = m.connect.Sample(m.rng)
	a.arrive = now + a.connect
	a.timer = a.connect > 0 // answered later than sent: the timer is armed
	if a.connect > 0 {
		m.events += w
	}
	o, end, stuck := m.answer(&a, lp)
	if a.timer && timeout > 0 {
		m.events += w
	}
	if a.timer && a.read > 0 {
		m.events += w // the read timer, armed beside the total
	}
	return o, end, stuck
}

// estAttempt is one bottom attempt in progress: sent at now with its timeout, it reaches the
// target at arrive, after connect; timer says its timer is armed.
type estAttempt struct {
	r               *estReq
	now, timeout    time.Duration
	read            time.Duration // the policy's read timeout (0: none)
	first           time.Duration // the policy's first-event timeout (0: read bounds it)
	connect, arrive time.Duration
	timer           bool
}

// ends is how the attempt ends when, after it reached the target, the head comes at head
// (noHead: never) and the body at pace b (attemptEnd): a timeout, stuck (nothing ends it), or
// answered at end — the outcome then is the caller's to say.
func (a *estAttempt) ends(head time.Duration, b pace) (o policy.Outcome, end time.Duration, stuck, answered bool) {
	if a.timeout > 0 && a.connect >= a.timeout {
		a.timer = true
		return policy.Outcome{Kind: policy.Timeout}, a.now + a.timeout, false, false
	}
	var total time.Duration
	if a.timeout > 0 {
		total = a.timeout - a.connect
	}
	at, how := attemptEnd(head, b, a.read, total)
	switch how {
	case endTimeout, endReadTimeout:
		a.timer = true
		return policy.Outcome{Kind: policy.Timeout}, a.arrive + at, false, false
	case endNever:
		a.timer = true
		return policy.Outcome{}, 0, true, false
	}
	return policy.Outcome{}, a.arrive + at, false, true
}

// inline is an answer the target gives on arrival: o, unless the attempt timed out connecting.
func (a *estAttempt) inline(o policy.Outcome) (policy.Outcome, time.Duration, bool) {
	if a.timeout > 0 && a.connect >= a.timeout {
		return policy.Outcome{Kind: policy.Timeout}, a.now + a.timeout, false
	}
	return o, a.arrive, false
}

// answer is attempt's outcome once connecting took a.connect: a connect timeout, the fault
// the target's phase draws, the idempotency key's answer, a full queue's 503, or its service.
func (m *meanField) answer(a *estAttempt, lp *policy.Policy) (policy.Outcome, time.Duration, bool) {
	if lp.ConnectTimeout > 0 && a.connect >= lp.ConnectTimeout && (a.timeout == 0 || lp.ConnectTimeout < a.timeout) {
		m.events += a.r.s.weight
		a.timer = true
		return policy.Outcome{Kind: policy.ConnectTimeout}, a.now + lp.ConnectTimeout, false
	}
	phase := m.sc.PhaseAt(a.arrive)
	fault := -1
	u := m.rng.Float64()
	if phase >= 0 {
		fault = m.sc.Target.Phases[phase].PickFault(u)
	}
	reset := false
	if fault >= 0 {
		o, end, stuck, answered := m.fault(a, &m.sc.Target.Phases[phase].Faults[fault])
		if answered {
			return o, end, stuck
		}
		reset = true
	}
	if m.hasKey && a.r.keyTaken {
		if a.arrive >= a.r.keyDone {
			return a.inline(policy.Outcome{Kind: policy.Success, Status: 200})
		}
		return a.inline(policy.Outcome{Kind: policy.Status, Status: 409})
	}
	wait, refused := m.queue(a)
	if refused {
		return a.inline(policy.Outcome{Kind: policy.Status, Status: 503})
	}
	return m.serve(a, phase, reset, wait)
}

// fault is the answer of fault f to attempt a, answered false for a reset (the request is
// served, and its connection reset after).
func (m *meanField) fault(a *estAttempt, f *scenario.Fault) (o policy.Outcome, end time.Duration, stuck, answered bool) {
	switch f.Kind {
	case scenario.FaultStatus:
		o := policy.Outcome{Kind: policy.Status, Status: f.Status}
		if ra := f.RetryAfter; ra != nil {
			if ra.Date {
				o.RetryAfter = epoch.Add(a.arrive + ra.Delay).Format(httpTimeFormat)
			} else {
				o.RetryAfter = strconv.FormatInt(int64(math.Ceil(ra.Delay.Seconds())), 10)
			}
		}
		o, end, stuck = a.inline(o)
		return o, end, stuck, true
	case scenario.FaultHang:
		o, end, stuck, _ = a.ends(noHead, pace{})
		if stuck {
			end = m.horizon
		}
		return o, end, stuck, true
	case scenario.FaultDrip:
		// The head at once, the body at its pace, no service (the engine's drip): one event
		// for the body's end or a timer.
		m.events += a.r.s.weight
		o, end, stuck, answered := a.ends(0, paceOf(f.Drip))
		if answered {
			o = policy.Outcome{Kind: policy.Success, Status: 200}
		}
		return o, end, stuck, true
	case scenario.FaultRefuse:
		o, end, stuck = a.inline(policy.Outcome{Kind: policy.Refused})
		return o, end, stuck, true
	}
	return policy.Outcome{}, 0, false, false
}

// queue is what the target's queue does to attempt a (with a capacity): the share a full
// queue turns away (refused), else the wait it meets there, counting it as offered; a queued
// attempt arms its timer (no answer is scheduled yet).
func (m *meanField) queue(a *estAttempt) (wait time.Duration, refused bool) {
	if m.cap == nil {
		return 0, false
	}
	if f := m.at(m.refuse, a.arrive); f > 0 && m.draw() < f {
		return 0, true
	}
	wait = time.Duration(m.at(m.qWait, a.arrive) * float64(time.Second))
	m.addPoint(m.offered, a.arrive, a.r.s.spread, a.r.s.weight)
	if q := m.at(m.queued, a.arrive); q > 0 && m.draw() < q {
		a.timer = true // queued: no answer is scheduled yet
	}
	return wait, false
}

// serve is attempt a served in phase after waiting wait: the end of its service (and of a
// conditional write), its key taken, and its outcome — a timeout, a reset, or a success.
func (m *meanField) serve(a *estAttempt, phase int, reset bool, wait time.Duration) (policy.Outcome, time.Duration, bool) {
	w := a.r.s.weight
	dist := &m.lat[phase+1]
	done := m.stalls.Advance(a.arrive, wait+dist.Sample(m.rng))
	if m.cap == nil && done <= m.horizon {
		m.events += w
	}
	if m.sc.Target.Conflicts == "single-row" && !reset {
		m.events += w
		a.timer = true
		done = m.stalls.Advance(done, dist.Sample(m.rng))
	}
	if m.hasKey {
		a.r.keyTaken, a.r.keyDone = true, done
	}
	if m.sc.Target.Stream != nil && !reset {
		m.events += w // the stream's end: its last event, a drop or a timer
		return a.streamEnds(streamDraws(m.sc, done, m.rng), done)
	}
	if o, end, _, answered := a.ends(done-a.arrive, pace{}); !answered {
		return o, end, false
	}
	if reset {
		return policy.Outcome{Kind: policy.Reset}, done, false
	}
	return policy.Outcome{Kind: policy.Success, Status: 200}, done, false
}

// streamEnds is how the attempt ends when its stream p starts at head (the engine's stream):
// its timers are armed at its start, since no answer is known then; a total already spent
// ends it at the head, else streamEnd walks p against the read timeout and the rest of the
// total.
func (a *estAttempt) streamEnds(p streamPlan, head time.Duration) (policy.Outcome, time.Duration, bool) {
	a.timer = true
	var total time.Duration
	if a.timeout > 0 {
		if total = a.now + a.timeout - head; total <= 0 {
			return policy.Outcome{Kind: policy.Timeout}, a.now + a.timeout, false
		}
	}
	at, how, _, _ := streamEnd(p, a.first, a.read, total)
	switch how {
	case endTimeout, endReadTimeout:
		return policy.Outcome{Kind: policy.Timeout}, head + at, false
	case endDropped:
		return policy.Outcome{Kind: policy.Reset}, head + at, false
	}
	return policy.Outcome{Kind: policy.Success, Status: 200}, head + at, false
}

// budgetAllows applies level's retry budget, one for all clients, to a retry after o at now.
func (m *meanField) budgetAllows(level int, lp *policy.Policy, o policy.Outcome, now time.Duration, w float64) bool {
	b := lp.Budget
	if b == nil {
		return true
	}
	switch b.Kind {
	case policy.BudgetTokenBucket:
		cost := b.RetryCost
		switch {
		case b.ThrottleCost > 0 && policy.Throttled(o):
			cost = b.ThrottleCost
		case (o.Kind == policy.Timeout || o.Kind == policy.ConnectTimeout) && b.TimeoutCost > 0:
			cost = b.TimeoutCost
		}
		if m.tokens[level] < cost*w {
			return false
		}
		m.tokens[level] -= cost * w
		return true
	case policy.BudgetRatio:
		win := b.Window
		if win <= 0 {
			win = policy.DefaultRatioWindow
		}
		b0, b1 := m.bin(now-win), m.bin(now)
		retries, reqs := 0.0, 0.0
		for i := b0; i <= b1; i++ {
			retries += m.ratioRetry[level][i]
			reqs += m.ratioReq[level][i]
		}
		if retries+w > b.Percent*reqs+b.MinPerS*win.Seconds()*m.clients {
			return false
		}
		m.ratioRetry[level][b1] += w
		return true
	}
	return true
}

// ratioRequest counts a call at level for its ratio budget.
func (m *meanField) ratioRequest(level int, now time.Duration, w float64) {
	if b := m.levels[level].Budget; b != nil && b.Kind == policy.BudgetRatio {
		m.ratioReq[level][m.bin(now)] += w
	}
}

// fluid runs the target's FIFO queue over the pass's offered attempts: what it serves (one
// event each, orphans included), the wait an attempt meets and the share a full queue
// refuses, for the next pass.
func (m *meanField) fluid() {
	prefix(m.offered)
	workers := float64(max(m.cap.Workers, 1))
	buffer := math.Inf(1)
	if m.cap.Queue < math.MaxInt32 {
		buffer = workers + float64(max(m.cap.Queue, 0))
	}
	if m.rate == nil {
		// The service rate of each bin: the workers over the mean service time in force,
		// none in a stall.
		means := make([]float64, len(m.lat))
		for i := range m.lat {
			means[i] = math.Max(m.lat[i].Mean().Seconds(), 1e-9)
		}
		m.rate, m.stalled = make([]float64, m.nb), make([]bool, m.nb)
		for b := range m.rate {
			t := time.Duration(b) * m.dt
			m.rate[b] = workers / means[m.sc.PhaseAt(t)+1]
			m.stalled[b] = m.stalledAt(t)
		}
	}
	q := 0.0
	dt := m.dt.Seconds()
	served := 0.0
	wait, refuse, queued := m.spare(0), m.spare(1), m.spare(2)
	load := m.utilisation()
	high := 0.0 // how long the load has been high
	for b := 0; b < m.nb; b++ {
		if load[b] < 0.8 {
			high = 0
		} else {
			high += dt
		}
		rate := m.rate[b]
		in := m.offered[b]
		// The wait of an attempt arriving in this bin: the backlog ahead of it, and half of
		// what this bin brings beyond what it serves; at least the wait of random arrivals
		// at this load (queueWait).
		wait[b] = (math.Max(0, q-workers) + math.Max(0, in-rate*dt)/2) / rate
		if wait[b] > 0 {
			queued[b] = 1
		}
		q += in
		if !m.stalled[b] {
			s := math.Min(q, rate*dt)
			q -= s
			served += s
			w, p := m.queueWait(load[b], rate, buffer-workers, high)
			wait[b], queued[b] = math.Max(wait[b], w), math.Max(queued[b], p)
		}
		if q > buffer {
			if in > 0 {
				refuse[b] = math.Min(1, (q-buffer)/in)
			}
			q = buffer
		}
		if !m.stalled[b] {
			refuse[b] = math.Max(refuse[b], m.blocking(load[b]))
		}
	}
	m.events += served
	// The waits are not blended: they only climb from one pass to the next, to the first
	// fixed point (a collapse takes a few passes per doubling of the backlog). What a full
	// queue refuses moves the retries later, where the previous pass had no load: blended,
	// or the passes swing between two states.
	m.qWait, m.queued, m.spares[0], m.spares[2] = wait, queued, m.qWait, m.queued
	blend(m.refuse, refuse)
}

// utilisation is the load the attempts put on the target in each bin, as a share of what it
// serves: offered attempts over the 5 s around the bin (the samples' attempts are lumps),
// over the service rate.
func (m *meanField) utilisation() []float64 {
	span := max(1, int(replay.MovingAverage/2/m.dt))
	out := m.spare(3)
	sum := 0.0
	for b := 0; b < m.nb+span; b++ {
		if b < m.nb {
			sum += m.offered[b]
		}
		if b >= 2*span+1 {
			sum -= m.offered[b-2*span-1]
		}
		if c := b - span; c >= 0 && c < m.nb {
			n := float64(min(c+span, m.nb-1) - max(c-span, 0) + 1)
			out[c] = sum / n / m.dt.Seconds() / m.rate[c]
		}
	}
	return out
}

// queueWait is the mean wait in the queue of random (Poisson) arrivals at utilisation rho
// of a target of the scenario's workers serving rate a second, and the share of them that
// wait at all: Sakasegawa's approximation of M/M/c, Lq = ρ^√(2(c+1)) / (1−ρ) of which a
// share ρ waits, scaled by (1 + cv²)/2 for the service times' variation — the queue the
// fluid misses below capacity. Close to capacity that queue takes long to build (a random
// walk): it is held to what one builds over the time the load has been high,
// √(λ·high·(1 + cv²)/2); above capacity the fluid's backlog grows on its own.
func (m *meanField) queueWait(rho, rate, queue, high float64) (wait, share float64) {
	if rho <= 0 || queue <= 0 {
		return 0, 0
	}
	limit := math.Min(queue, rate*m.horizon.Seconds()) / rate
	rho = math.Min(rho, 0.999)
	c := float64(max(m.cap.Workers, 1))
	share = math.Pow(rho, math.Sqrt(2*(c+1))-1)
	lq := share * rho / (1 - rho) * (1 + m.svcCV2) / 2
	lq = math.Min(lq, math.Sqrt(rho*rate*high*(1+m.svcCV2)/2))
	return math.Min(lq/(rho*rate), limit), share
}

// blocking is the share of attempts a target whose queue is bounded turns away at
// utilisation rho: Erlang's B formula for its workers and queue places (exact without a
// queue; with one it counts waiting places as workers, an underestimate). Larger targets
// lose nothing below capacity, where the fluid sees what they refuse.
func (m *meanField) blocking(rho float64) float64 {
	places := m.cap.Workers + m.cap.Queue
	if m.cap.Queue >= math.MaxInt32 || places > 1024 || rho <= 0.3 {
		return 0
	}
	a := rho * float64(max(m.cap.Workers, 1))
	b := 1.0
	for k := 1; k <= places; k++ {
		b = a * b / (float64(k) + a*b)
	}
	return b
}

func (m *meanField) stalledAt(t time.Duration) bool {
	for _, s := range m.stalls {
		if t >= s[0] && t < s[1] {
			return true
		}
	}
	return false
}

// update turns the pass's accumulators into the fields of the next: the share of calls the
// workers, bulkheads and breakers turn away.
func (m *meanField) update() {
	ld := m.sc.Load
	if ld.Workers > 0 {
		prefix(m.occAsked)
		limit := float64(ld.Workers) * m.clients
		f := m.spare(4)
		for b, asked := range m.occAsked {
			if asked > limit {
				f[b] = 1 - limit/asked
			}
		}
		m.set(m.noWork, f)
	}
	for l, lp := range m.levels {
		if m.bulkOn[l] {
			prefix(m.concAsk[l])
			limit := float64(max(lp.Bulkhead.MaxConcurrent, 1)) * m.clients
			f := m.spare(4)
			for b, asked := range m.concAsk[l] {
				if asked > limit {
					f[b] = 1 - limit/asked
				}
			}
			m.set(m.bulk[l], f)
		}
		if m.breaker[l] {
			m.set(m.open[l], m.breakerOpen(l, lp.Breaker))
		}
	}
}

// breakerOpen is the share of calls level's breakers reject in each bin: none while the last
// window holds fewer than MinRequests results per client or a failure share below the
// threshold; else all but the half-open probes, HalfOpen per OpenFor and client.
func (m *meanField) breakerOpen(level int, b *policy.Breaker) []float64 {
	prefix(m.attempts[level])
	prefix(m.failures[level])
	prefix(m.asked[level])
	win := b.Window
	if win <= 0 {
		win = 10 * time.Second
	}
	span := max(1, int(win/m.dt))
	open := m.spare(5)
	var res, fail, ask float64
	for i := 0; i < m.nb; i++ {
		res += m.attempts[level][i]
		fail += m.failures[level][i]
		ask += m.asked[level][i]
		if i >= span {
			res -= m.attempts[level][i-span]
			fail -= m.failures[level][i-span]
			ask -= m.asked[level][i-span]
		}
		perClient := ask / m.clients
		if perClient < float64(max(b.MinRequests, 1)) || res <= 0 || fail < b.FailureRate*res-1e-9 || fail <= 0 {
			continue
		}
		// Open: everything but the probes of each half-open, per client.
		openFor := math.Max(b.OpenFor.Seconds(), m.dt.Seconds())
		probes := float64(max(b.HalfOpen, 1)) * win.Seconds() / openFor
		open[i] = math.Max(0, 1-probes/perClient)
	}
	return open
}

// work is the pass's answer.
func (m *meanField) work() Work {
	w := Work{Requests: m.requests, Attempts: m.bottom, Events: m.events, Clients: int(m.clients),
		InFlight: m.lifeSum / math.Max(m.lastEnd.Seconds(), 1e-3)}
	w.Low, w.High = w.Events, w.Events
	for _, lp := range m.levels {
		if lp.Budget != nil || lp.Breaker != nil || lp.Bulkhead != nil {
			w.Stateful = true
		}
	}
	w.Recovered = m.recovered()
	return w
}

// recovered is replay's recovery rule read from the fields rather than from the samples'
// goodput (a few samples a second are too coarse for its 10%): after the last fault, the
// calls the target's queue times out or refuses, and those the workers, breakers and
// bulkheads turn away, must stay under 10% (over replay.MovingAverage) for
// replay.RecoveryWindow before arrivals end.
func (m *meanField) recovered() bool {
	faultEnd := m.sc.Target.LastPhaseEnd()
	if faultEnd == 0 {
		return true
	}
	timeout := m.levels[len(m.levels)-1].Timeout
	bad := make([]float64, m.nb)
	for b := range bad {
		x := m.noWork[b]
		if m.cap != nil {
			x = math.Max(x, m.refuse[b])
			if timeout > 0 && m.qWait[b] >= 0.8*timeout.Seconds() {
				x = 1
			}
		}
		for l := range m.levels {
			if m.breaker[l] {
				x = math.Max(x, m.open[l][b])
			}
			if m.bulkOn[l] {
				x = math.Max(x, m.bulk[l][b])
			}
		}
		bad[b] = x
	}
	span := max(1, int(replay.MovingAverage/m.dt))
	end := m.bin(m.sc.Duration)
	good := 0 // bins in a row, ending at b, whose moving average is under the tolerance
	sum := 0.0
	for b := 0; b < end; b++ {
		sum += bad[b]
		if b >= span {
			sum -= bad[b-span]
		}
		if time.Duration(b)*m.dt < faultEnd {
			continue
		}
		if sum/float64(span) <= replay.Tolerance {
			good++
		} else {
			good = 0
		}
		if time.Duration(good)*m.dt >= replay.RecoveryWindow {
			return true
		}
	}
	return false
}

// spare is the estimate's i-th scratch field, zeroed: a pass allocates nothing per bin.
func (m *meanField) spare(i int) []float64 {
	for len(m.spares) <= i {
		m.spares = append(m.spares, make([]float64, m.nb))
	}
	clear(m.spares[i])
	return m.spares[i]
}

// bin is the bin of time t, within the run.
func (m *meanField) bin(t time.Duration) int {
	if t <= 0 {
		return 0
	}
	return min(int(t/m.dt), m.nb-1)
}

// at is field f at time t.
func (m *meanField) at(f []float64, t time.Duration) float64 {
	if f == nil {
		return 0
	}
	return f[m.bin(t)]
}

func (m *meanField) draw() float64 { return m.rng.Float64() }

// addPoint adds w to the difference array d, spread evenly over [t, t+spread).
func (m *meanField) addPoint(d []float64, t, spread time.Duration, w float64) {
	a := m.bin(t - spread/2)
	b := m.bin(t+spread/2) + 1
	if b >= len(d) {
		b = len(d) - 1
	}
	if b <= a {
		d[a] += w
		if a+1 < len(d) {
			d[a+1] -= w
		}
		return
	}
	per := w / float64(b-a)
	d[a] += per
	d[b] -= per
}

// addInterval adds w calls in progress over [from, to) to d, for calls that start spread
// over [from, from+spread): their concurrency, w·(to−from) call-seconds, smeared evenly over
// [from−spread/2, to+spread/2) (a sample's requests do not all hold a worker at once).
func (m *meanField) addInterval(d []float64, from, to, spread time.Duration, w float64) {
	if to <= from {
		return
	}
	length := to - from
	a, b := m.bin(from-spread/2), m.bin(to+spread/2)+1
	if b >= len(d) {
		b = len(d) - 1
	}
	if b <= a {
		return
	}
	level := w * length.Seconds() / (length + spread).Seconds()
	d[a] += level
	d[b] -= level
}

// variation is the squared coefficient of variation of d, from 256 draws.
func variation(d *scenario.Distribution, rng *rand.Rand) float64 {
	const n = 256
	var sum, sq float64
	for range n {
		x := d.Sample(rng).Seconds()
		sum += x
		sq += x * x
	}
	mean := sum / n
	if mean <= 0 {
		return 0
	}
	return math.Max(0, sq/n-mean*mean) / (mean * mean)
}

// prefix turns a difference array into the values it describes.
func prefix(d []float64) {
	for i := 1; i < len(d); i++ {
		d[i] += d[i-1]
	}
}

// set moves field f to next, halfway once the passes are damped.
func (m *meanField) set(f, next []float64) {
	if m.damp {
		blend(f, next)
		return
	}
	copy(f, next)
}

// blend moves field f halfway to next: the passes approach the fixed point without
// overshooting it (a breaker that opens in one pass and closes in the next).
func blend(f, next []float64) {
	for i := range f {
		f[i] = (f[i] + next[i]) / 2
	}
}
