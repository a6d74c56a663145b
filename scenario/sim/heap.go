package sim

import "time"

// eventKind says what an event does when it fires.
type eventKind uint8

const (
	evArrival        eventKind = iota // next open-model arrival
	evLoop                            // a closed-model loop issues its next request
	evBurst                           // the t=0 burst
	evTargetArrive                    // a bottom attempt reaches the target (after connect)
	evServiceDone                     // the target finished serving (read, or the whole attempt)
	evWriteDone                       // single-row conflicts: the conditional write finished
	evAttemptTimeout                  // the caller's attempt timeout fired
	evConnectTimeout                  // the caller's connect timeout fired
	evRetry                           // a backoff sleep ended: start the next attempt
)

// event is one entry of the heap. Events that point at pooled objects carry the object's
// generation: a stale event (its object was finished and reused) is dropped when it fires,
// which is cheaper than removing it from the heap.
type event struct {
	at   time.Duration
	seq  uint64 // insertion order breaks ties, so equal times fire deterministically
	kind eventKind
	gen  uint32
	n    int // loop index (evLoop)
	a    *attempt
	c    *call
}

// eventHeap is a 4-ary min-heap ordered by (at, seq): shallower than a binary heap, and its
// four children share a cache line or two, which is what a simulator's hot loop wants.
type eventHeap struct {
	ev  []event
	seq uint64
}

func (h *eventHeap) less(i, j int) bool {
	a, b := &h.ev[i], &h.ev[j]
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (h *eventHeap) push(e event) {
	h.seq++
	e.seq = h.seq
	h.ev = append(h.ev, e)
	i := len(h.ev) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !h.less(i, p) {
			break
		}
		h.ev[i], h.ev[p] = h.ev[p], h.ev[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	top := h.ev[0]
	n := len(h.ev) - 1
	h.ev[0] = h.ev[n]
	h.ev[n] = event{}
	h.ev = h.ev[:n]
	i := 0
	for {
		first := 4*i + 1
		if first >= n {
			break
		}
		m := first
		last := first + 4
		if last > n {
			last = n
		}
		for c := first + 1; c < last; c++ {
			if h.less(c, m) {
				m = c
			}
		}
		if !h.less(m, i) {
			break
		}
		h.ev[i], h.ev[m] = h.ev[m], h.ev[i]
		i = m
	}
	return top
}

func (h *eventHeap) len() int { return len(h.ev) }
