package profile

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
)

// withOutlived adds k streams that sent their first event (firstMs) and were still streaming
// at --max-timeout, as a probe counts them: timeouts (errors.timeout, NoAnswer before
// crediting), timed_out and streaming_at_max_timeout; and u more requests with no answer at
// all (no event within --max-timeout).
func withOutlived(ev Evidence, k, u int64, firstMs float64) Evidence {
	s := *ev.Stream
	first := slices.Clone(s.FirstEvent.(Sample))
	for range k {
		first = append(first, firstMs)
	}
	slices.Sort(first)
	s.FirstEvent = first
	s.Counts.Count += k
	s.Counts.TimedOut += k
	s.Counts.Streaming += k
	ev.Stream = &s
	ev.NoAnswer += k + u
	ev.Errors = map[string]int64{"timeout": ev.NoAnswer}
	ev.creditStreams()
	return ev
}

// TestBudgetReadsFirstEvent is issue 29's rule in Recommend: a stream's caller waits for its
// first event, so the budget holds first-event timeouts, not the stream's total — long
// streams (totals 10–30 s) behind a 10 s budget get attempts, not "move the call to a
// queue", unless the first event itself does not fit; a job consumes the whole stream and
// reads the total.
func TestBudgetReadsFirstEvent(t *testing.T) {
	long := simStreams(7, 1500, 500, 1000, 0, 0).evidence() // totals ≈ 10–30 s, first event ≤ 2 s
	slow := simStreams(8, 1500, 500, 1000, 0, 0)
	for i := range slow.first {
		slow.first[i] *= 6 // first event up to 12 s: more than the budget
	}
	cases := []struct {
		name     string
		ev       Evidence
		caller   Caller
		reads    BudgetPhase
		attempts int
		queue    bool
		wait     string // in the verdict
	}{
		{name: "interactive GET: the first event fits", ev: long, caller: Caller{Budget: 10 * time.Second},
			reads: BudgetReadsFirstEvent, attempts: 2, wait: "first event 2.5 s per attempt (the caller's wait; total "},
		{name: "interactive POST: one attempt, no queue", ev: long, caller: Caller{Budget: 10 * time.Second, Method: "POST"},
			reads: BudgetReadsFirstEvent, attempts: 1, wait: "first event 2.5 s per attempt"},
		{name: "the first event does not fit", ev: slow.evidence(), caller: Caller{Budget: 10 * time.Second},
			reads: BudgetReadsFirstEvent, queue: true},
		{name: "a job reads the total", ev: long, caller: Caller{Kind: CallerJob},
			reads: BudgetReadsTotal, attempts: 1, wait: "timeout "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := Recommend(c.ev, c.caller, RecommendOptions{})
			why := rec.Verdict.Text() + "\n" + strings.Join(rec.Derivation, "\n")
			if rec.BudgetReads != c.reads {
				t.Fatalf("budget_reads %q, want %q\n%s", rec.BudgetReads, c.reads, why)
			}
			if rec.TimeoutMs <= 10_000 {
				t.Fatalf("total %g ms: the case needs streams longer than the budget", rec.TimeoutMs)
			}
			queued := strings.Contains(rec.Verdict.Text(), QueueVerdict)
			if queued != c.queue {
				t.Errorf("queue verdict %v, want %v\n%s", queued, c.queue, why)
			}
			if c.queue {
				if rec.FitsBudget || rec.MaxAttempts != 0 || !strings.Contains(why, "first-event timeout, more than the 10 s budget → 0") {
					t.Errorf("fits %v, attempts %d: want 0, said of the first event\n%s", rec.FitsBudget, rec.MaxAttempts, why)
				}
				return
			}
			if !rec.FitsBudget || rec.MaxAttempts != c.attempts {
				t.Errorf("fits %v, attempts %d, want %d\n%s", rec.FitsBudget, rec.MaxAttempts, c.attempts, why)
			}
			want := AttemptsCost(rec.AttemptsFit, msDuration(rec.CallerWaitMs()))
			if want > 10*time.Second && c.caller.Kind != CallerJob {
				t.Errorf("%d attempts of %g ms cost %v, more than the budget", rec.AttemptsFit, rec.CallerWaitMs(), want)
			}
			if !strings.Contains(rec.Verdict.Text(), c.wait) {
				t.Errorf("verdict %q lacks %q", rec.Verdict.Text(), c.wait)
			}
		})
	}
}

// TestBudgetReadsAbsentWithoutStreams: a response that does not stream keeps its document:
// no budget_reads, the budget reads the total.
func TestBudgetReadsAbsentWithoutStreams(t *testing.T) {
	rec := Recommend(Evidence{Good: Sample{100, 200, 300}, Status: map[string]int64{"200": 3}}, Caller{}, RecommendOptions{})
	if rec.BudgetReads != "" || rec.CallerWaitMs() != rec.TimeoutMs || rec.TimeoutMs == 0 {
		t.Fatalf("budget_reads %q, wait %g, total %g", rec.BudgetReads, rec.CallerWaitMs(), rec.TimeoutMs)
	}
	b, err := rec.MarshalJSON()
	if err != nil || strings.Contains(string(b), "budget_reads") {
		t.Fatalf("JSON carries budget_reads without a stream (%v): %s", err, b)
	}
}

// TestStreamsOutlivingMaxTimeout: streams still streaming when the probe stopped waiting are
// answered calls, not unanswered ones — no tail_beyond, no failure, the total unbounded
// (stream_unbounded) and the first-event and idle timeouts given; the budget reads the first
// event. Requests that sent no event within --max-timeout stay unanswered.
func TestStreamsOutlivingMaxTimeout(t *testing.T) {
	base := simStreams(9, 1200, 40, 40, 0, 0).evidence()
	cases := []struct {
		name                string
		outlived, noAnswer  int64
		total, beyond, fits bool
		noAnswerLeft        int64
	}{
		{name: "2% still streaming: the total is unbounded", outlived: 25, fits: true},
		{name: "0.05% still streaming: within the cut-off, a total is derived", outlived: 0, total: true, fits: true},
		{name: "still streaming and a few unanswered within the cut-off", outlived: 25, noAnswer: 1, fits: true, noAnswerLeft: 1},
		{name: "unanswered above the cut-off: beyond --max-timeout", outlived: 25, noAnswer: 5, beyond: true, noAnswerLeft: 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := withOutlived(base, c.outlived, c.noAnswer, 1500)
			if ev.NoAnswer != c.noAnswerLeft || ev.Outlived != c.outlived || ev.Errors["timeout"] != c.noAnswer {
				t.Fatalf("credited: no answer %d, outlived %d, errors.timeout %d; want %d, %d, %d", ev.NoAnswer, ev.Outlived, ev.Errors["timeout"], c.noAnswerLeft, c.outlived, c.noAnswer)
			}
			rec := Recommend(ev, Caller{Budget: 10 * time.Second}, RecommendOptions{})
			why := rec.Verdict.Text() + "\n" + strings.Join(rec.Derivation, "\n")
			beyond := rec.Verdict.Has(CodeTailBeyond)
			if beyond != c.beyond || rec.BasisBeyond != c.beyond {
				t.Fatalf("tail_beyond %v (basis beyond %v), want %v\n%s", beyond, rec.BasisBeyond, c.beyond, why)
			}
			if (rec.TimeoutMs > 0) != c.total {
				t.Errorf("total %g, want derived %v\n%s", rec.TimeoutMs, c.total, why)
			}
			if rec.StreamAdvice == nil || rec.IdleTimeoutMs == nil || (rec.FirstEventTimeoutMs == nil) != c.beyond {
				t.Fatalf("stream advice %+v: want idle, and first event unless the unanswered put it beyond\n%s", rec.StreamAdvice, why)
			}
			if c.outlived > 0 && (rec.StreamTimeoutMs != nil || !strings.Contains(rec.StreamUnbounded, "still open at --max-timeout")) {
				t.Errorf("stream total %v (%q), want unbounded", rec.StreamTimeoutMs, rec.StreamUnbounded)
			}
			if rec.FitsBudget != c.fits {
				t.Errorf("fits %v, want %v\n%s", rec.FitsBudget, c.fits, why)
			}
			if c.beyond {
				return
			}
			if want := float64(c.noAnswerLeft) / float64(ev.Finished()); rec.Verdict.Level == "bad" || rec.ErrorRate != want || rec.NoAnswerRate != want {
				t.Errorf("verdict %s, error rate %g, no-answer rate %g: streams longer than the probe waited are no failure\n%s", rec.Verdict.Level, rec.ErrorRate, rec.NoAnswerRate, why)
			}
			if c.outlived > 0 && !c.total && !strings.Contains(why, "still streaming at the 2 min --max-timeout") {
				t.Errorf("derivation does not say why there is no total:\n%s", why)
			}
		})
	}
}

// TestFirstEventCensoredByUnansweredStreams: a stream whose head came but no event within
// --max-timeout has no first event — it counts above every first event seen, so enough of
// them leave the first-event timeout underived.
func TestFirstEventCensoredByUnansweredStreams(t *testing.T) {
	ev := simStreams(10, 1000, 40, 40, 0, 0).evidence()
	ev.Stream.Counts.TimedOut, ev.Stream.Counts.Count = 5, ev.Stream.Counts.Count+5
	ev.NoAnswer = 5
	rec := Recommend(ev, Caller{}, RecommendOptions{})
	if rec.FirstEventTimeoutMs != nil || !rec.Verdict.Has(CodeTailBeyond) {
		t.Fatalf("first event %v, verdict %s: want none and tail_beyond\n%s", rec.FirstEventTimeoutMs, rec.Verdict.Text(), strings.Join(rec.Derivation, "\n"))
	}
}

// TestPolicyWait is the policy's per-attempt wait for each budget phase: what check's PT003
// and PT004 hold against the caller's budget.
func TestPolicyWait(t *testing.T) {
	s := time.Second
	cases := []struct {
		name  string
		phase BudgetPhase
		pol   policy.Policy
		want  time.Duration
		field string
	}{
		{"total", BudgetReadsTotal, policy.Policy{Timeout: 60 * s, ReadTimeout: 5 * s, FirstEventTimeout: 3 * s}, 60 * s, "timeout"},
		{"first event set", BudgetReadsFirstEvent, policy.Policy{Timeout: 60 * s, ReadTimeout: 5 * s, FirstEventTimeout: 3 * s}, 3 * s, "first_event_timeout"},
		{"read timeout bounds the first event", BudgetReadsFirstEvent, policy.Policy{Timeout: 60 * s, ReadTimeout: 5 * s}, 5 * s, "read_timeout"},
		{"only a total", BudgetReadsFirstEvent, policy.Policy{Timeout: 60 * s}, 60 * s, "timeout"},
		{"first event above the total", BudgetReadsFirstEvent, policy.Policy{Timeout: 60 * s, FirstEventTimeout: 90 * s}, 60 * s, "timeout"},
		{"first event, no total", BudgetReadsFirstEvent, policy.Policy{FirstEventTimeout: 90 * s}, 90 * s, "first_event_timeout"},
		{"nothing", BudgetReadsFirstEvent, policy.Policy{}, 0, ""},
	}
	for _, c := range cases {
		if d, f := PolicyWait(c.phase, &c.pol); d != c.want || f != c.field {
			t.Errorf("%s: %v %q, want %v %q", c.name, d, f, c.want, c.field)
		}
	}
	for _, c := range []struct {
		kind    CallerKind
		streams bool
		want    BudgetPhase
	}{{CallerInteractive, true, BudgetReadsFirstEvent}, {"", true, BudgetReadsFirstEvent}, {CallerJob, true, BudgetReadsTotal}, {CallerInteractive, false, BudgetReadsTotal}} {
		if got := BudgetReadsFor(c.kind, c.streams); got != c.want {
			t.Errorf("BudgetReadsFor(%q, %v) = %q, want %q", c.kind, c.streams, got, c.want)
		}
	}
}

// TestCallerWaitMs: the budget's per-attempt wait is the first-event timeout for a stream an
// interactive caller waits on, never above the total (which ends the attempt first), and the
// total otherwise.
func TestCallerWaitMs(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name string
		rec  Recommendation
		want float64
	}{
		{"no stream", Recommendation{TimeoutMs: 2000}, 2000},
		{"first event below the total", Recommendation{TimeoutMs: 40_000, BudgetReads: BudgetReadsFirstEvent, StreamAdvice: &StreamAdvice{FirstEventTimeoutMs: f(2500)}}, 2500},
		{"first event above the total", Recommendation{TimeoutMs: 2000, BudgetReads: BudgetReadsFirstEvent, StreamAdvice: &StreamAdvice{FirstEventTimeoutMs: f(2500)}}, 2000},
		{"no total", Recommendation{BudgetReads: BudgetReadsFirstEvent, StreamAdvice: &StreamAdvice{FirstEventTimeoutMs: f(2500)}}, 2500},
		{"a job reads the total", Recommendation{TimeoutMs: 40_000, BudgetReads: BudgetReadsTotal, StreamAdvice: &StreamAdvice{FirstEventTimeoutMs: f(2500)}}, 40_000},
		{"no first event derived", Recommendation{TimeoutMs: 40_000, BudgetReads: BudgetReadsFirstEvent, StreamAdvice: &StreamAdvice{}}, 40_000},
	}
	for _, c := range cases {
		if got := c.rec.CallerWaitMs(); got != c.want {
			t.Errorf("%s: %g, want %g", c.name, got, c.want)
		}
	}
}
