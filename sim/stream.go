package sim

import (
	"github.com/patience-dev/patience/policy"
	"math/rand/v2"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// endDropped: the target closed a stream mid-way (target.stream.drop), where its next event
// would have gone — the target's fault, answered to the policy as a reset (docs/design.md §6).
const endDropped ending = endNever + 1

// streamPlan is one stream as the target sends it (docs/design.md §6, streams): its head at
// once, its first event first after it, then events-1 more, each a gap after the one before
// (gap(i, prev) is the silence before event i, i ≥ 1, the event before it prev after the
// head; a stall is already in it). cut is the index of the event where a drop closes the
// connection instead (-1: the stream is not dropped; 0: before its first event).
type streamPlan struct {
	first  time.Duration
	events int
	gap    func(i int, prev time.Duration) time.Duration
	cut    int
}

// streamEnd is an attempt's end at a stream target, in time since its head, with read the
// read timeout, first the first-event timeout and total what is left of the per-attempt
// timeout (0: none of each). The read timeout is the idle timeout: it bounds every gap, and
// the wait for the first event too unless first is set (policy.FirstEventTimeout); each
// fires at the first silence of at least its bound, after the last event (or the head). The
// total fires at total when the stream is not over before it. A drop ends it where event
// cut would have gone. Ties go to the timers, and between the two to the total, as in
// attemptEnd. sent is how many events came before the end, firstAt when the first came
// (0 with none).
func streamEnd(p streamPlan, first, read, total time.Duration) (at time.Duration, how ending, sent int, firstAt time.Duration) {
	prev, t := time.Duration(0), p.first
	for i := 0; i < p.events; i++ {
		silence := read
		if i > 0 {
			t += p.gap(i, prev)
		} else if first > 0 {
			silence = first // policy.FirstEventTimeout bounds the wait for the first event
		}
		if at, how, ok := streamTimer(prev, t, silence, total); ok {
			return at, how, i, firstAt
		}
		if i == p.cut {
			return t, endDropped, i, firstAt
		}
		if i == 0 {
			firstAt = t
		}
		prev = t
	}
	return prev, endAnswered, p.events, firstAt
}

// streamTimer says whether a timer fires before the event due at t, the one before it at
// prev: the read timeout at prev+read when the silence is at least read, the total at total
// when t is no earlier; both, the earlier, a tie to the total.
func streamTimer(prev, t, read, total time.Duration) (time.Duration, ending, bool) {
	at, how, ok := time.Duration(0), endNever, false
	if read > 0 && t-prev >= read {
		at, how, ok = prev+read, endReadTimeout, true
	}
	if total > 0 && t >= total && (!ok || total <= at) {
		at, how, ok = total, endTimeout, true
	}
	return at, how, ok
}

// streamDraws draws one stream of sc's target whose head goes at head (scenario time) from
// r, as serve plans one (live/stream.go): its event count, then one uniform that drop and
// stall share — a cut at an event drawn among them all, or one stall before an event after
// the first — then its first event; the gaps are drawn as the walk needs them, from the same
// r, so a plan is walked once. Each wait draws from the distribution of the phase in force
// when it starts (docs/design.md §6).
func streamDraws(sc *scenario.Scenario, head time.Duration, r *rand.Rand) streamPlan {
	st := sc.Target.Stream
	p := streamPlan{events: st.Events.Sample(r), cut: -1}
	stallAt := -1
	u := r.Float64()
	switch {
	case u < st.Drop:
		p.cut = r.IntN(p.events)
	case st.Stall != nil && u < st.Drop+st.Stall.Percent && p.events > 1:
		stallAt = 1 + r.IntN(p.events-1)
	}
	p.first = sc.StreamFirstEvent(sc.PhaseAt(head)).Sample(r)
	p.gap = func(i int, prev time.Duration) time.Duration {
		g := sc.StreamGap(sc.PhaseAt(head + prev)).Sample(r)
		if i == stallAt {
			g += st.Stall.For
		}
		return g
	}
	return p
}

// StreamSalt sets a stream's draws apart from its attempt's: attempt j's stream draws from
// the target generator of (seed, request, j | StreamSalt), which no attempt index reaches.
// serve draws a live replay's streams from the same generator (live/streams.go).
const StreamSalt = 1 << 32

// stream plays a stream target's answer to attempt a, served now (docs/design.md §6,
// streams): its head at once, then the drawn stream, walked by streamEnd against the
// caller's read timeout and what is left of its total. The draws come from their own
// generator of (seed, request, attempt), so policies share them. A total that fires first
// needs no event: the attempt's deadline, armed at its start, ends it.
func (e *engine) stream(a *attempt) {
	if a.callerOff {
		e.endStream(a)
		e.releaseAttempt(a)
		return
	}
	var total time.Duration
	if a.deadline > 0 {
		total = a.deadline - e.now
	}
	scenario.SeedTarget(e.tpcg, e.sc.Seed, a.req.id, uint64(a.seq)|StreamSalt)
	p := streamDraws(e.sc, e.now, e.trng)
	lp := e.levels[a.c.level]
	at, how, sent, first := streamEnd(p, lp.FirstEventTimeout, lp.ReadTimeout, total)
	a.streaming, a.events, a.headAt, a.readAt = true, int32(sent), e.now, 0
	if sent > 0 {
		a.firstAt = e.now + first
	}
	switch how {
	case endAnswered, endDropped:
		a.cut = how == endDropped
		a.doneAt = e.now + at
		e.push(a.doneAt, evBodyDone, a, nil, 0)
	case endReadTimeout:
		a.readAt, a.doneAt = e.now+at, e.now+at
		e.push(a.readAt, evReadTimeout, a, nil, 0)
	}
}

// endStream frees the worker stream attempt a held, if it holds one: its stream ended, by
// its last event, a drop or the caller's leaving (serve's handler returns when the client
// goes away; live/stream.go). A stream whose caller gave up before its head ends at once.
func (e *engine) endStream(a *attempt) {
	if a.holdsServer {
		a.holdsServer = false
		e.freeServer()
	}
}

// bodyOutcome is what the end of a's body tells its caller: a reset for a stream the target
// dropped (the server acted; reason stream_cut), else the success.
func bodyOutcome(a *attempt) policy.Outcome {
	if a.cut {
		return policy.Outcome{Kind: policy.Reset}
	}
	return policy.Outcome{Kind: policy.Success, Status: 200}
}

// tallyStream counts how a stream attempt ended for its caller: completed, dropped by the
// target (cut), or cut by one of the caller's timers.
func (e *engine) tallyStream(o policy.Outcome, cut bool) {
	switch {
	case o.Kind == policy.Success:
		e.res.Streams.Completed++
	case cut:
		e.res.Streams.Dropped++
	case o.Kind == policy.Timeout:
		e.res.Streams.Cut++
	}
}
