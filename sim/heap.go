package sim

import (
	"math/bits"
	"time"
	"unsafe"
)

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evArrival        eventKind = iota // next open-model arrival
	evLoop                            // a closed-model loop issues its next request
	evBurst                           // the t=0 burst
	evTargetArrive                    // a bottom attempt reaches the target (after connect)
	evServiceDone                     // the target finished serving (read, or the whole attempt)
	evOrphanDone                      // the target finished serving an attempt whose caller had gone
	evWriteDone                       // single-row conflicts: the conditional write finished
	evAttemptTimeout                  // the caller's attempt timeout fired
	evConnectTimeout                  // the caller's connect timeout fired
	evRetry                           // a backoff sleep ended: start the next attempt
	evReadTimeout                     // the caller's read timeout fired (if still armed for then)
	evBodyDone                        // a drip fault's body arrived whole
)

// event is one entry of the heap. Events that point at pooled objects carry the object's
// generation: a stale event (its object was finished and reused) is dropped when it fires,
// which is cheaper than removing it from the heap.
type event struct {
	at  time.Duration
	seq uint64 // insertion order breaks ties, so equal times fire deterministically
	// obj is the *attempt (target and timeout events), the *call (evRetry) or the *request
	// (evOrphanDone, may be nil) the event is about. One untyped pointer instead of two typed ones keeps the event at 32 bytes, and
	// the heap moves events around a lot; kind says which type it is.
	obj  unsafe.Pointer
	gen  uint32 // the object's generation; for evLoop and evBurst, the loop index or burst size
	kind eventKind
}

func (e *event) attempt() *attempt { return (*attempt)(e.obj) }
func (e *event) call() *call       { return (*call)(e.obj) }

// eventHeap is a 4-ary min-heap ordered by (at, seq): shallower than a binary heap, and its
// four children share a cache line or two, which is what a simulator's hot loop wants.
type eventHeap struct {
	ev  []event
	seq uint64
}

func (h *eventHeap) push(e event) {
	h.seq++
	e.seq = h.seq
	h.ev = append(h.ev, e)
	// Sift up with a hole: move parents down and write e once.
	i := len(h.ev) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !before(&e, &h.ev[p]) {
			break
		}
		h.ev[i] = h.ev[p]
		i = p
	}
	h.ev[i] = e
}

func (h *eventHeap) pop() event {
	top := h.ev[0]
	n := len(h.ev) - 1
	last := h.ev[n]
	h.ev[n] = event{}
	h.ev = h.ev[:n]
	if n == 0 {
		return top
	}
	// Sift down with a hole: move the smallest child up and write last once.
	i := 0
	for {
		first := 4*i + 1
		if first >= n {
			break
		}
		m := first
		end := min(first+4, n)
		for c := first + 1; c < end; c++ {
			if before(&h.ev[c], &h.ev[m]) {
				m = c
			}
		}
		if !before(&h.ev[m], &last) {
			break
		}
		h.ev[i] = h.ev[m]
		i = m
	}
	h.ev[i] = last
	return top
}

func (h *eventHeap) len() int { return len(h.ev) }

// lane is a FIFO of events pushed in time order. Attempt timeouts (now + a fixed timeout),
// target arrivals (now + a fixed connect time) and open-model arrivals (now + a gap) are
// almost always pushed in time order, and
// most timeouts are stale by the time they fire: a lane takes and drops them in O(1) where
// the heap would pay O(log n) twice.
type lane struct {
	ev   []event
	head int
}

func (l *lane) len() int { return len(l.ev) - l.head }

func (l *lane) tail() *event { return &l.ev[len(l.ev)-1] }

func (l *lane) push(e event) {
	if l.head > 0 && l.head == len(l.ev) {
		l.ev, l.head = l.ev[:0], 0
	} else if l.head > 1024 && l.head*2 > len(l.ev) {
		n := copy(l.ev, l.ev[l.head:])
		clear(l.ev[n:])
		l.ev, l.head = l.ev[:n], 0
	}
	l.ev = append(l.ev, e)
}

func (l *lane) pop() event {
	e := l.ev[l.head]
	l.ev[l.head] = event{}
	l.head++
	return e
}

// Lanes of the agenda, by the kind of event offered to them.
const (
	laneTimeout = iota // attempt timeouts: now + the policy's timeout
	laneArrive         // target arrivals: now + connect time
	laneArrival        // open-model arrivals: now + a gap
	laneService        // service ends: in order whenever the service time is fixed
	laneRetry0         // first of retryLanes lanes of backoff ends, one per backoff delay
	retryLanes  = 4
	numLanes    = laneRetry0 + retryLanes // at most 16: queue.full is a uint16
)

// queue is the simulator's agenda: a heap plus FIFO lanes, ordered together by (at, seq).
// Any lane may be offered any event (push keeps a lane in time order and sends the rest to
// the heap), so lanes change only the cost, never the order.
type queue struct {
	h     eventHeap
	lanes [numLanes]lane
	// full has bit i set while lane i holds events, so pop looks at those lanes only.
	full uint16
	// retryDelay[i] is the backoff delay whose retries lane laneRetry0+i takes, once
	// retryUsed[i]: without jitter a policy sleeps one of a few delays (base·2^k, the cap),
	// and the retries of one delay end in the order they were pushed.
	retryDelay [retryLanes]time.Duration
	retryUsed  [retryLanes]bool
}

// retryLane is the lane for a retry that sleeps d, or -1 (the heap) when every retry lane
// belongs to another delay.
func (q *queue) retryLane(d time.Duration) int {
	for i := range q.retryDelay {
		if !q.retryUsed[i] {
			q.retryUsed[i], q.retryDelay[i] = true, d
			return laneRetry0 + i
		}
		if q.retryDelay[i] == d {
			return laneRetry0 + i
		}
	}
	return -1
}

func before(a, b *event) bool { return a.at < b.at || (a.at == b.at && a.seq < b.seq) }

// push adds e, to lane i when it keeps that lane in time order (i < 0: the heap).
func (q *queue) push(e event, i int) {
	q.h.seq++
	e.seq = q.h.seq
	if i >= 0 {
		l := &q.lanes[i]
		if l.len() == 0 || l.tail().at <= e.at {
			l.push(e)
			q.full |= 1 << i
			return
		}
	}
	q.h.seq-- // heap.push numbers it again
	q.h.push(e)
}

func (q *queue) len() int {
	n := q.h.len()
	for i := range q.lanes {
		n += q.lanes[i].len()
	}
	return n
}

// pop removes the earliest event.
func (q *queue) pop() event {
	var best *event
	src := -1
	if q.h.len() > 0 {
		best = &q.h.ev[0]
	}
	for m := q.full; m != 0; m &= m - 1 {
		i := bits.TrailingZeros16(m)
		l := &q.lanes[i]
		if best == nil || before(&l.ev[l.head], best) {
			best, src = &l.ev[l.head], i
		}
	}
	if src < 0 {
		return q.h.pop()
	}
	l := &q.lanes[src]
	e := l.pop()
	if l.len() == 0 {
		q.full &^= 1 << src
	}
	return e
}
