package sim

import (
	"time"
	"unsafe"
)

// fifoEntry is one entry of the target's FIFO queue. A real server's queue holds a socket and
// a parsed request per waiting attempt, whether or not anyone still waits for the answer; the
// simulator's holds what the model needs to serve it, which for an attempt whose caller has
// gone (an orphan) is its service time and nothing else:
//
//   - live: obj is the *attempt, its caller still waits (n is 1);
//   - orphans: n attempts whose callers have gone, each served for svc. obj is nil when
//     serving them touches no request (an idempotent request without a key: the run merges
//     with its neighbours), else the one *request whose books serving it keeps (its
//     idempotency key, or its executions when duplicate side effects are counted; n is 1);
//   - a tombstone (n is 0): left behind when an orphan joined the run before it.
//
// So the memory of the queue is bounded by the attempts whose callers still wait (at most
// the clients' workers, or the arrival rate × timeout), not by how long the queue is: a
// collapsed run with a fixed service time holds its whole backlog of orphans in one entry.
type fifoEntry struct {
	obj  unsafe.Pointer
	svc  time.Duration
	n    int32
	live bool
}

// fifo is the target's FIFO queue: a ring of entries with absolute positions (an attempt
// keeps its own in attempt.qpos, so its entry can become an orphan in place when its caller
// gives up).
type fifo struct {
	ring []fifoEntry
	head int    // ring index of the first entry
	n    int    // entries in the ring, tombstones included
	base uint64 // absolute position of the first entry
	dead int    // tombstones in the ring
	// attempts is the number of attempts waiting (orphans included): the queue length the
	// scenario bounds and the timeline reports.
	attempts int
	// spare is the ring compact copies into next (the one before the last compaction), so a
	// queue that grows and shrinks does not allocate a ring each time.
	spare []fifoEntry
}

func newFifo(size int) fifo { return fifo{ring: make([]fifoEntry, max(size, 16)), base: 1} }

func (q *fifo) at(pos uint64) *fifoEntry {
	return &q.ring[(q.head+int(pos-q.base))%len(q.ring)]
}

// push appends live attempt a.
func (q *fifo) push(a *attempt) {
	if q.n == len(q.ring) {
		q.makeRoom()
	}
	a.qpos = q.base + uint64(q.n)
	*q.at(a.qpos) = fifoEntry{obj: unsafe.Pointer(a), n: 1, live: true}
	q.n++
	q.attempts++
}

// makeRoom compacts a full ring in place when at least a quarter of it is tombstones or runs
// that can merge, else doubles it.
func (q *fifo) makeRoom() {
	if q.dead*4 >= len(q.ring) {
		q.compact(len(q.ring))
		if q.n < len(q.ring) {
			return
		}
	}
	q.compact(2 * len(q.ring))
}

// compact copies the entries into a ring of size entries, dropping tombstones and merging
// neighbouring runs of orphans with the same service time, and renumbers the live attempts.
func (q *fifo) compact(size int) {
	var out []fifoEntry
	if cap(q.spare) >= size {
		out = q.spare[:size]
		clear(out)
	} else {
		out = make([]fifoEntry, size)
	}
	q.spare = q.ring
	k := 0
	for i := 0; i < q.n; i++ {
		e := q.ring[(q.head+i)%len(q.ring)]
		switch {
		case e.n == 0:
			continue
		case e.live:
			(*attempt)(e.obj).qpos = q.base + uint64(k)
		case e.obj == nil && k > 0 && mergeable(&out[k-1], e.svc):
			out[k-1].n += e.n
			continue
		}
		out[k] = e
		k++
	}
	q.ring, q.head, q.n, q.dead = out, 0, k, 0
}

func mergeable(e *fifoEntry, svc time.Duration) bool {
	return !e.live && e.obj == nil && e.n > 0 && e.svc == svc
}

// orphan turns queued attempt a, whose caller has gone, into an orphan entry: r is the
// request its service still keeps books for, nil for none. An orphan without a request joins
// the run of the entry just before it when that run has the same service time: with a fixed
// timeout, callers give up in queue order, so the whole backlog behind the live attempts
// becomes one run.
func (q *fifo) orphan(a *attempt, r *request) {
	pos := a.qpos
	a.qpos = 0
	e := q.at(pos)
	*e = fifoEntry{obj: unsafe.Pointer(r), svc: a.service, n: 1}
	if r != nil || pos == q.base {
		return
	}
	if prev := q.at(pos - 1); mergeable(prev, a.service) {
		// The run moves forward into this entry (nothing but tombstones can lie between
		// orphans that are all alike), so the next orphan finds it just before itself again.
		e.n += prev.n
		*prev = fifoEntry{}
		q.dead++
	}
}

// pop takes the first waiting attempt: a live one (a != nil), or an orphan served for svc
// keeping the books of r (nil for none). False when the queue is empty.
func (q *fifo) pop() (a *attempt, svc time.Duration, r *request, ok bool) {
	for q.n > 0 {
		e := &q.ring[q.head]
		if e.n == 0 {
			q.drop()
			q.dead--
			continue
		}
		q.attempts--
		if e.live {
			a = (*attempt)(e.obj)
			a.qpos = 0
			q.drop()
			return a, 0, nil, true
		}
		svc, r = e.svc, (*request)(e.obj)
		if e.n--; e.n == 0 {
			q.drop()
		}
		return nil, svc, r, true
	}
	return nil, 0, nil, false
}

// drop removes the first entry.
func (q *fifo) drop() {
	q.ring[q.head] = fifoEntry{}
	q.head = (q.head + 1) % len(q.ring)
	q.base++
	q.n--
}
