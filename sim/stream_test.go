package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

const msec = time.Millisecond

// gaps is a plan's gap function from fixed silences: gaps[i-1] before event i.
func gaps(g ...time.Duration) func(int, time.Duration) time.Duration {
	return func(i int, _ time.Duration) time.Duration { return g[i-1] }
}

// TestStreamEnd: docs/design.md §6's stream model — the first event and each gap against the
// read timeout (the idle timeout), the stream against the total, a drop, and the ties (to the
// timer; between the two timers, to the total) — with the events sent before the end.
func TestStreamEnd(t *testing.T) {
	plan := func(first time.Duration, cut int, g ...time.Duration) streamPlan {
		return streamPlan{first: first, events: len(g) + 1, gap: gaps(g...), cut: cut}
	}
	for _, tc := range []struct {
		name        string
		p           streamPlan
		read, total time.Duration
		at          time.Duration
		how         ending
		sent        int
		firstAt     time.Duration
	}{
		{"no timers: the last event ends it", plan(2*sec, -1, sec, sec), 0, 0, 4 * sec, endAnswered, 3, 2 * sec},
		{"one event", plan(2*sec, -1), 0, 0, 2 * sec, endAnswered, 1, 2 * sec},
		{"gaps under R", plan(2*sec, -1, sec, sec), 3 * sec, 0, 4 * sec, endAnswered, 3, 2 * sec},
		{"first event after R: ended at R, nothing sent", plan(5*sec, -1, sec), 3 * sec, 0, 3 * sec, endReadTimeout, 0, 0},
		{"first event at R: the timer wins the tie", plan(3*sec, -1, sec), 3 * sec, 0, 3 * sec, endReadTimeout, 0, 0},
		{"a stall past R: idle timeout after the event before it", plan(sec, -1, 100*msec, 20*sec, 100*msec), 2 * sec, 0, 3100 * msec, endReadTimeout, 2, sec},
		{"a long stream under R but past T", plan(sec, -1, sec, sec, sec), 2 * sec, 2500 * msec, 2500 * msec, endTimeout, 2, sec},
		{"T before the first event", plan(5*sec, -1), 0, 2 * sec, 2 * sec, endTimeout, 0, 0},
		{"T at the last event: the timer wins", plan(sec, -1, sec), 0, 2 * sec, 2 * sec, endTimeout, 1, sec},
		{"R and T at once: the total", plan(sec, -1, 5*sec), 2 * sec, 3 * sec, 3 * sec, endTimeout, 1, sec},
		{"R before T", plan(sec, -1, 5*sec), 2 * sec, 4 * sec, 3 * sec, endReadTimeout, 1, sec},
		{"dropped where event 2 would go", plan(sec, 2, sec, sec, sec), 0, 0, 3 * sec, endDropped, 2, sec},
		{"drop after R would fire: the idle timeout", plan(sec, 1, 5*sec), 2 * sec, 0, 3 * sec, endReadTimeout, 1, sec},
		{"drop at T: the total", plan(sec, 1, sec), 0, 2 * sec, 2 * sec, endTimeout, 1, sec},
	} {
		at, how, sent, firstAt := streamEnd(tc.p, 0, tc.read, tc.total)
		if at != tc.at || how != tc.how || sent != tc.sent || firstAt != tc.firstAt {
			t.Errorf("%s: streamEnd(R %v, T %v) = %v, %d, %d sent, first %v; want %v, %d, %d, %v",
				tc.name, tc.read, tc.total, at, how, sent, firstAt, tc.at, tc.how, tc.sent, tc.firstAt)
		}
	}
}

// TestStreamDrawsPhase: a phase's first_event and gap replace the stream's for the waits
// that start in it; the plan draws its count within events, its drop (anywhere, before the
// first event included) and its stall (after the first) only when asked.
func TestStreamDrawsPhase(t *testing.T) {
	sc := oneStream(sec, 100*msec, 10)
	sc.Target.Phases = []scenario.Phase{{Name: "slow", At: time.Hour, For: time.Hour,
		FirstEvent: &scenario.Distribution{Kind: scenario.DistFixed, Fixed: 90 * sec},
		Gap:        &scenario.Distribution{Kind: scenario.DistFixed, Fixed: sec}}}
	r := rand.New(rand.NewPCG(1, 2))
	if p := streamDraws(sc, 0, r); p.first != sec || p.events != 10 || p.cut != -1 || p.gap(3, 2*sec) != 100*msec || p.gap(4, time.Hour) != sec {
		t.Errorf("base: %+v, want first 1s; a gap before the phase 100ms, one starting in it 1s", p)
	}
	if p := streamDraws(sc, time.Hour+sec, r); p.first != 90*sec || p.gap(1, 90*sec) != sec {
		t.Errorf("phase: first %v, want 90s", p.first)
	}
	sc.Target.Stream.Drop = 1
	cuts := map[int]bool{}
	for range 200 {
		p := streamDraws(sc, 0, r)
		if p.cut < 0 || p.cut >= 10 {
			t.Fatalf("drop 100%%: cut %d, want one of events 0..9", p.cut)
		}
		cuts[p.cut] = true
	}
	if len(cuts) != 10 {
		t.Errorf("drop 100%%: cuts at %v, want every event among 200 streams", cuts)
	}
	sc.Target.Stream.Drop = 0
	sc.Target.Stream.Stall = &scenario.StreamStall{Percent: 1, For: 20 * sec}
	p := streamDraws(sc, 0, r)
	var stalled time.Duration
	for i := 1; i < p.events; i++ {
		stalled += p.gap(i, 0)
	}
	if p.cut != -1 || stalled != 9*100*msec+20*sec {
		t.Errorf("stall 100%%: cut %d, gaps sum to %v; want no cut, 9 gaps and one 20s stall", p.cut, stalled)
	}
}

// oneStream is oneRequest against a stream target: first event first, gap between events,
// events events.
func oneStream(first, gap time.Duration, events int) *scenario.Scenario {
	sc := oneRequest(0, 0, nil)
	sc.Target.Latency = scenario.Distribution{}
	sc.Target.Stream = &scenario.Stream{Format: scenario.StreamSSE,
		FirstEvent: scenario.Distribution{Kind: scenario.DistFixed, Fixed: first},
		Gap:        scenario.Distribution{Kind: scenario.DistFixed, Fixed: gap},
		Events:     scenario.EventCount{Min: events, Max: events}}
	return sc
}

// TestEngineStreams: the engine ends a stream attempt where streamEnd says, with its reason;
// a success is timed to its first event (the caller's wait); a retry after the first event
// restarts the stream and counts its events as wasted, one before it does not.
func TestEngineStreams(t *testing.T) {
	retry := func(n int, on ...string) policy.Retry {
		return policy.Retry{MaxAttempts: n, On: on, Backoff: policy.BackoffConstant, Base: sec, Jitter: policy.JitterNone}
	}
	for _, tc := range []struct {
		name     string
		sc       *scenario.Scenario
		p        policy.Policy
		finished time.Duration
		latency  float64 // ms
		reason   string  // "" = succeeded
		streams  replay.StreamTally
		attempts int
	}{
		{"completed: latency is the first event", oneStream(2*sec, 100*msec, 11), policy.Policy{ReadTimeout: sec * 3, Retry: retry(1)},
			3 * sec, 2000, "", replay.StreamTally{Completed: 1}, 1},
		{"first event past R", oneStream(5*sec, 100*msec, 11), policy.Policy{ReadTimeout: 3 * sec, Retry: retry(1)},
			3 * sec, 3000, replay.ReasonReadTimeout, replay.StreamTally{Cut: 1}, 1},
		{"gap past R: the idle timeout", oneStream(sec, 2*sec, 3), policy.Policy{ReadTimeout: 1500 * msec, Retry: retry(1)},
			2500 * msec, 2500, replay.ReasonReadTimeout, replay.StreamTally{Cut: 1}, 1},
		{"total under the stream", oneStream(sec, sec, 5), policy.Policy{Timeout: 3 * sec, Retry: retry(1)},
			3 * sec, 3000, replay.ReasonTimeout, replay.StreamTally{Cut: 1}, 1},
		{"retried before the first event: no restart", oneStream(5*sec, 100*msec, 3), policy.Policy{ReadTimeout: 3 * sec, Retry: retry(2, "timeout")},
			7 * sec, 7000, replay.ReasonReadTimeout, replay.StreamTally{Cut: 2}, 2},
		{"retried after its first event: a restart, 1 event wasted", oneStream(sec, 2*sec, 3), policy.Policy{ReadTimeout: 1500 * msec, Retry: retry(2, "timeout")},
			6 * sec, 6000, replay.ReasonReadTimeout, replay.StreamTally{Cut: 2, Restarted: 1, EventsWasted: 1}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			p.Name = "p"
			res, err := RunPolicy(context.Background(), tc.sc, &p)
			if err != nil {
				t.Fatal(err)
			}
			if got := time.Duration(res.FinishedMs * float64(time.Millisecond)); got != tc.finished {
				t.Errorf("finished at %v, want %v", got, tc.finished)
			}
			// The histogram keeps 3 significant digits: its max is within 0.1% of the value.
			if math.Abs(res.Latency.MaxMs-tc.latency) > tc.latency/1000 || res.LatencyFrom != replay.LatencyFirstEvent {
				t.Errorf("latency %vms (%s), want %vms from the first event", res.Latency.MaxMs, res.LatencyFrom, tc.latency)
			}
			if tc.reason == "" && res.Succeeded != 1 {
				t.Errorf("want a success, got %+v", res.FailureReasons)
			}
			if tc.reason != "" && res.FailureReasons[tc.reason] != 1 {
				t.Errorf("want one failure %s, got %+v", tc.reason, res.FailureReasons)
			}
			if res.Streams == nil || *res.Streams != tc.streams || res.Attempts != tc.attempts {
				t.Errorf("streams %+v, attempts %d; want %+v, %d", res.Streams, res.Attempts, tc.streams, tc.attempts)
			}
		})
	}
}

// TestEngineStreamDropped: a stream the target drops is a reset to the policy with reason
// stream_cut; retried on reset, it restarts from its first event and its events are wasted.
func TestEngineStreamDropped(t *testing.T) {
	sc := oneStream(sec, sec, 4)
	sc.Target.Stream.Drop = 1
	once := &policy.Policy{Name: "once", Retry: policy.Retry{MaxAttempts: 1}}
	res, err := RunPolicy(context.Background(), sc, once)
	if err != nil {
		t.Fatal(err)
	}
	if res.FailureReasons[replay.ReasonStreamCut] != 1 || res.Streams.Dropped != 1 || res.Streams.Restarted != 0 {
		t.Errorf("reasons %+v, streams %+v; want one stream_cut, no restart", res.FailureReasons, res.Streams)
	}
	again := &policy.Policy{Name: "again", Retry: policy.Retry{MaxAttempts: 2, On: []string{"reset"}, Backoff: policy.BackoffConstant, Base: sec, Jitter: policy.JitterNone}}
	res, err = RunPolicy(context.Background(), sc, again)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || res.Streams.Dropped != 2 || res.Streams.Restarted != 1 || res.Streams.EventsWasted < 1 || res.Streams.EventsWasted > 3 {
		t.Errorf("attempts %d, streams %+v; want two drops, one restart wasting the 1..3 events before the cut", res.Attempts, res.Streams)
	}
}

// TestStreamDeterministic: the bundled llm-stream replays to byte-identical JSON per seed,
// and another seed gives other numbers; a non-stream scenario carries no stream fields.
func TestStreamDeterministic(t *testing.T) {
	sc, err := scenario.Open("llm-stream")
	if err != nil {
		t.Fatal(err)
	}
	run := func(seed int64) []byte {
		c := *sc
		c.Seed = seed
		res, err := Run(context.Background(), &c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := run(7), run(7), run(8)
	if !bytes.Equal(a, b) {
		t.Error("two runs with the same seed differ")
	}
	if bytes.Equal(a, c) {
		t.Error("a different seed gave identical results")
	}
	res, err := Run(context.Background(), dripLoad(11), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := json.Marshal(res.Policies[0]); bytes.Contains(j, []byte(`"streams"`)) || bytes.Contains(j, []byte(`"latency_from"`)) {
		t.Error("a target that does not stream reports stream fields")
	}
}

// TestStreamBudgetReadsFirstEvent: the budget verdict reads the caller's wait for a stream,
// its first event — 11 s streams whose first event comes in 1 s are within a 5 s budget,
// and a first event of 6 s is not.
func TestStreamBudgetReadsFirstEvent(t *testing.T) {
	for _, tc := range []struct {
		first time.Duration
		over  bool
	}{{sec, false}, {6 * sec, true}} {
		sc := oneStream(tc.first, 100*msec, 101)
		sc.Load.Budget = 5 * sec
		res, err := RunPolicy(context.Background(), sc, &policy.Policy{Name: "p", Retry: policy.Retry{MaxAttempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		over := false
		for _, r := range res.Verdict.Reasons {
			over = over || r.Code == replay.CodeOverBudget
		}
		if over != tc.over || res.Succeeded != 1 || res.FinishedMs < 10000 {
			t.Errorf("first event %v: over budget %v, succeeded %d, finished %vms; want over %v, one success after the whole stream",
				tc.first, over, res.Succeeded, res.FinishedMs, tc.over)
		}
	}
}

// TestStreamEndFirstEventTimeout: policy.FirstEventTimeout bounds the wait for the first event
// in place of the read timeout, which then bounds only the gaps (the idle timeout).
func TestStreamEndFirstEventTimeout(t *testing.T) {
	plan := func(first time.Duration, g ...time.Duration) streamPlan {
		return streamPlan{first: first, events: len(g) + 1, gap: gaps(g...), cut: -1}
	}
	for _, tc := range []struct {
		name        string
		p           streamPlan
		first, read time.Duration
		at          time.Duration
		how         ending
		sent        int
	}{
		{"a slow first event under its own bound: R bounds only the gaps", plan(5*sec, sec), 10 * sec, 2 * sec, 6 * sec, endAnswered, 2},
		{"the first event past its bound: ended at it, nothing sent", plan(5*sec, sec), 4 * sec, 10 * sec, 4 * sec, endReadTimeout, 0},
		{"a stall past R after the first event: ended at R, whatever the first bound", plan(sec, 20*sec), time.Minute, 2 * sec, 3 * sec, endReadTimeout, 1},
		{"without a first bound R ends the slow first event", plan(5*sec, sec), 0, 2 * sec, 2 * sec, endReadTimeout, 0},
	} {
		at, how, sent, _ := streamEnd(tc.p, tc.first, tc.read, 0)
		if at != tc.at || how != tc.how || sent != tc.sent {
			t.Errorf("%s: got %v, %d, %d sent; want %v, %d, %d", tc.name, at, how, sent, tc.at, tc.how, tc.sent)
		}
	}
}

// TestStreamHoldsWorker (note29 item 5): a stream holds its target worker from its head to
// its end, as serve's handler does (live/stream.go serveStream), not only to its head. Two
// streams of 3 s (first event 1 s, two 1 s gaps) arrive at once at one worker: with no
// queue the second is refused with 503 while the first streams; with a queue of one it
// waits the first stream out and its first event comes at 4 s; a stream cut by the
// caller's first-event timeout (500 ms from its head) frees the worker at the cut, so the
// queued one starts then and is cut at 1 s.
func TestStreamHoldsWorker(t *testing.T) {
	for _, tc := range []struct {
		name       string
		queue      int
		first      time.Duration
		succeeded  int
		reasons    map[string]int
		latencyMax float64 // ms
		finished   time.Duration
	}{
		{"no queue: the second is refused while the first streams", 0, 0, 1, map[string]int{"http_503": 1}, 1000, 3 * sec},
		{"a queue of one: the second waits for the whole first stream", 1, 0, 2, map[string]int{}, 4000, 6 * sec},
		{"the caller's first-event timeout cuts the first stream: its worker frees at the cut", 1, 500 * msec, 0, map[string]int{replay.ReasonReadTimeout: 2}, 1000, sec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := oneStream(sec, sec, 3)
			sc.Load.Burst = 2
			sc.Target.Capacity = &scenario.Capacity{Workers: 1, Queue: tc.queue}
			p := &policy.Policy{Name: "p", FirstEventTimeout: tc.first, Retry: policy.Retry{MaxAttempts: 1}}
			res, err := RunPolicy(context.Background(), sc, p)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range res.FailureReasons {
				if tc.reasons[k] != v {
					t.Errorf("failure reasons %v, want %v", res.FailureReasons, tc.reasons)
					break
				}
			}
			if res.Succeeded != tc.succeeded || len(res.FailureReasons) != len(tc.reasons) {
				t.Errorf("succeeded %d, reasons %v; want %d, %v", res.Succeeded, res.FailureReasons, tc.succeeded, tc.reasons)
			}
			if math.Abs(res.Latency.MaxMs-tc.latencyMax) > tc.latencyMax/1000 {
				t.Errorf("latency max %v ms, want %v", res.Latency.MaxMs, tc.latencyMax)
			}
			if got := time.Duration(res.FinishedMs * float64(time.Millisecond)); got != tc.finished {
				t.Errorf("finished at %v, want %v", got, tc.finished)
			}
		})
	}
}
