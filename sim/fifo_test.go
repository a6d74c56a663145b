package sim

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// The compact queue serves what a plain FIFO of attempts would, in the same order, whatever
// becomes an orphan when: live attempts as themselves, orphans with their service time and
// request.
func TestFifoServesInFIFOOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	q := newFifo(4)
	type item struct {
		a   *attempt
		svc time.Duration
		r   *request
	}
	var want []*item // the plain FIFO
	byAttempt := map[*attempt]*item{}
	reqs := []*request{{id: 1}, {id: 2}}
	maxRing := 0
	for i := 0; i < 20000; i++ {
		switch k := rng.IntN(10); {
		case k < 4:
			a := &attempt{service: time.Duration(1 + rng.IntN(2))}
			q.push(a)
			it := &item{a: a}
			want = append(want, it)
			byAttempt[a] = it
		case k < 7:
			// A caller gives up, mostly the oldest still waiting (a fixed timeout).
			var live []*item
			for _, it := range want {
				if it.a != nil {
					live = append(live, it)
				}
			}
			if len(live) == 0 {
				continue
			}
			it := live[0]
			if rng.IntN(4) == 0 {
				it = live[rng.IntN(len(live))]
			}
			var r *request
			if rng.IntN(8) == 0 {
				r = reqs[rng.IntN(2)]
			}
			q.orphan(it.a, r)
			it.svc, it.r = it.a.service, r
			delete(byAttempt, it.a)
			it.a = nil
		default:
			a, svc, r, ok := q.pop()
			if ok != (len(want) > 0) {
				t.Fatalf("step %d: pop ok=%v with %d waiting", i, ok, len(want))
			}
			if !ok {
				continue
			}
			w := want[0]
			want = want[1:]
			delete(byAttempt, a)
			if a != w.a || (a == nil && (svc != w.svc || r != w.r)) {
				t.Fatalf("step %d: popped (%p, %v, %p), want (%p, %v, %p)", i, a, svc, r, w.a, w.svc, w.r)
			}
		}
		if q.attempts != len(want) {
			t.Fatalf("step %d: %d attempts counted, %d waiting", i, q.attempts, len(want))
		}
		for a := range byAttempt {
			if e := q.at(a.qpos); !e.live || (*attempt)(e.obj) != a {
				t.Fatalf("step %d: attempt's qpos points at %+v", i, *e)
			}
		}
		maxRing = max(maxRing, len(q.ring))
	}
	t.Logf("ring grew to %d entries", maxRing)
}

// collapsed is a stall that leaves a fixed-service target with an unbounded queue collapsed
// for the rest of the run: every caller times out, the queue grows by hundreds of thousands
// of attempts whose callers have gone.
func collapsed(d time.Duration) *scenario.Scenario {
	p := &policy.Policy{Name: "retries", Timeout: time.Second,
		Retry: policy.Retry{MaxAttempts: 3, On: []string{"timeout", "5xx"}, Backoff: policy.BackoffExponential,
			Base: 100 * time.Millisecond, Multiplier: 2, Cap: time.Second, Jitter: policy.JitterNone}}
	return &scenario.Scenario{
		Name: "collapsed", Seed: 1, Duration: d, Drain: time.Second,
		Load: scenario.Load{Clients: 1000, Rate: 400, Request: scenario.Request{Method: "GET"}},
		Target: scenario.Target{
			Latency:  scenario.Distribution{Kind: scenario.DistFixed, Fixed: 100 * time.Millisecond},
			Capacity: &scenario.Capacity{Workers: 44, Queue: 1 << 30},
			Phases:   []scenario.Phase{{Name: "stall", At: 10 * time.Second, For: 5 * time.Second, Stall: true}},
		},
		Policies: []*policy.Policy{p},
	}
}

// Issue 17: the queue of a collapsed run holds millions of attempts whose callers have gone.
// They are still served (wasted work) but as one run of orphans, without an attempt or a
// request each: the queue's entries and the attempt objects stay bounded by the callers that
// still wait, not by the queue's length.
func TestCollapsedQueueHoldsNoObjectPerOrphan(t *testing.T) {
	sc := collapsed(5 * time.Minute)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e := newEngine(sc, sc.Policies[0], &scratch{})
	if err := e.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	// What the engine still holds at the end (its queue is at its longest then): a few
	// hundred kB of timeline, histogram and free lists, not ~170 B per queued attempt.
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 8<<20 {
		t.Errorf("the engine holds %d MB after the run", held>>20)
	}
	peak := 0
	for _, s := range e.tl {
		peak = max(peak, s.QueueLength)
	}
	if peak < 100_000 || !e.res.Metastable {
		t.Fatalf("peak queue %d, metastable %v: the scenario should collapse", peak, e.res.Metastable)
	}
	// At 400/s × 3 attempts, about 1,200 callers wait at any time.
	if n := len(e.queue.ring); n > 8192 {
		t.Errorf("queue ring of %d entries for a peak of %d queued attempts", n, peak)
	}
	if n := len(e.freeAtt); n > 8192 {
		t.Errorf("%d attempt objects for a peak of %d queued attempts", n, peak)
	}
	if n := len(e.freeReq); n > 8192 {
		t.Errorf("%d request objects for a peak of %d queued attempts", n, peak)
	}
	runtime.KeepAlive(e)
	if e.res.WastedWork == 0 {
		t.Error("no wasted work: orphans must still be served")
	}
}
