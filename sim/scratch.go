package sim

import (
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/replay"
)

// scratch is what a run grows and a later run can use again: the agenda's buffers, the
// target queue's rings, the latency histogram and the free lists of requests, calls and
// attempts. Storm runs a policy's search as 8–13 runs of the same scenario, about 60 for the
// default storm; without reuse each of them allocated these afresh, ≈ 0.8 MB a run, and the
// garbage collector ran every few runs — on two cores its dedicated mark worker took a whole
// core each time (the Go runtime gives 25% of GOMAXPROCS to marking, rounded: one of two).
// Reuse changes no result: every buffer is emptied (and a ring cleared) before use, a pooled
// object is reset when it is taken from a free list as it was within a run, and the
// histogram is Reset, which restores New's state.
type scratch struct {
	heap  []event
	lanes [numLanes][]event
	// ring and spare are the fifo's two rings (compact copies from one into the other).
	ring, spare []fifoEntry
	hist        *hdrhistogram.Histogram
	freeReq     []*request
	freeCall    []*call
	freeAtt     []*attempt
	active      []*request
	// timeline is the per-second timeline of a run whose result nobody kept (Recovers).
	timeline []replay.Second
}

// scratches holds the scratch of finished runs, one per run in flight at most: runs on
// different cores each take their own.
var scratches sync.Pool

func getScratch() *scratch {
	if s, ok := scratches.Get().(*scratch); ok {
		return s
	}
	return &scratch{}
}

// histogram returns the scratch's histogram if it has these bounds, Reset; else a new one.
func (s *scratch) histogram(lowest, highest int64, digits int) *hdrhistogram.Histogram {
	if h := s.hist; h != nil && h.LowestTrackableValue() == lowest && h.HighestTrackableValue() == highest && h.SignificantFigures() == int64(digits) {
		s.hist = nil
		h.Reset()
		return h
	}
	return hdrhistogram.New(lowest, highest, digits)
}

// fifoRing returns a cleared ring of size entries, from the scratch when it has room.
func (s *scratch) fifoRing(size int) []fifoEntry {
	if cap(s.ring) >= size {
		r := s.ring[:size]
		s.ring = nil
		clear(r)
		return r
	}
	return make([]fifoEntry, size)
}

// take gives engine e the scratch's buffers.
func (e *engine) take(s *scratch) {
	e.h.h.ev = s.heap[:0]
	for i := range e.h.lanes {
		e.h.lanes[i].ev = s.lanes[i][:0]
	}
	e.freeReq, e.freeCall, e.freeAtt = s.freeReq, s.freeCall, s.freeAtt
	e.active = s.active[:0]
	e.queue.spare = s.spare[:0]
	s.spare = nil
}

// release returns e's buffers to a scratch for the next run — its timeline too when keep is
// false (the caller has read what it wanted of the result). Event and queue buffers are
// cleared, so they keep nothing of this run reachable; requests still active at the end are
// not reused (only the free lists are).
func (e *engine) release(s *scratch, keep bool) {
	if !keep {
		s.timeline = e.tl[:0]
	}
	s.heap = e.h.h.ev[:0]
	clear(s.heap[:cap(s.heap)])
	for i := range e.h.lanes {
		l := e.h.lanes[i].ev[:0]
		clear(l[:cap(l)])
		s.lanes[i] = l
	}
	s.freeReq, s.freeCall, s.freeAtt = e.freeReq, e.freeCall, e.freeAtt
	clear(e.active[:cap(e.active)])
	s.active = e.active[:0]
	s.ring, s.spare = e.queue.ring, e.queue.spare
	s.hist = e.hist
	*e = engine{}
	scratches.Put(s)
}
