package emit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/patience-dev/patience/emit"
	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/profile"
)

// streamFixtures are streaming recommendations (docs/design.md §7 "Streams"): an LLM-like
// stream whose length follows the content (stream total unbounded, the first event slower
// than the idle timeout), and a feed of fixed length (stream total derived).
func streamFixtures() []configFixture {
	f := func(v float64) *float64 { return &v }
	llm := profile.Recommendation{
		ConnectTimeoutMs: 1100, ReadTimeoutMs: f(25_000), TimeoutMs: 60_000, MaxAttempts: 2, AttemptsFit: 2, BudgetMs: 150_000, FitsBudget: true,
		Caller: profile.CallerInfo{Kind: profile.CallerInteractive, Method: "POST", IdempotencyKey: true, BudgetMs: 150_000},
		StreamAdvice: &profile.StreamAdvice{
			FirstEventTimeoutMs: f(20_000), IdleTimeoutMs: f(1_500), IdleGapQuantile: 0.999997,
			StreamUnbounded: "events per stream range from 107 (the shortest complete streams, 1st percentile) to 600 (more than 2×), so the length follows the content: " + profile.StreamUnboundedAdvice,
		},
	}
	feed := profile.Recommendation{
		ConnectTimeoutMs: 300, ReadTimeoutMs: f(2_500), TimeoutMs: 8_000, MaxAttempts: 2, AttemptsFit: 2, BudgetMs: 20_000, FitsBudget: true,
		Caller: profile.CallerInfo{Kind: profile.CallerInteractive, Method: "GET", BudgetMs: 20_000},
		StreamAdvice: &profile.StreamAdvice{
			FirstEventTimeoutMs: f(2_500), IdleTimeoutMs: f(800), IdleGapQuantile: 0.99995, StreamTimeoutMs: f(8_000),
		},
	}
	// outlived: the streams outlived the probe's --max-timeout, so no total was derived; the
	// budget reads the first event (issue 29: streams longer than the probe's bound are
	// answered calls).
	outlived := profile.Recommendation{
		ConnectTimeoutMs: 1100, MaxAttempts: 2, AttemptsFit: 3, BudgetMs: 10_000, FitsBudget: true, BudgetReads: profile.BudgetReadsFirstEvent,
		Caller: profile.CallerInfo{Kind: profile.CallerInteractive, Method: "GET", BudgetMs: 10_000},
		StreamAdvice: &profile.StreamAdvice{
			FirstEventTimeoutMs: f(2_500), IdleTimeoutMs: f(400), IdleGapQuantile: 0.99999,
			StreamUnbounded: "215 streams were still open at --max-timeout, so the longest legitimate stream is longer than any seen: " + profile.StreamUnboundedAdvice,
		},
	}
	return []configFixture{
		{"llm-outlived", emit.Input{URL: "https://llm.example.com/v1/chat/completions", Method: "GET", Name: "llm", Rec: outlived}},
		{"llm-unbounded", emit.Input{URL: "https://llm.example.com/v1/chat/completions", Method: "POST", Name: "llm", Rec: llm}},
		{"feed-bounded", emit.Input{URL: "https://feed.example.com/v1/events", Method: "GET", Name: "feed", Rec: feed}},
	}
}

// TestStreamGoldens emits each streaming fixture for the targets with a per-read knob and
// two without (testdata/stream_TARGET.golden): the text, the settings and the missing bounds.
func TestStreamGoldens(t *testing.T) {
	for _, tg := range []emit.Target{emit.HTTPX, emit.Requests, emit.AIOHTTP, emit.Nginx, emit.Envoy, emit.ALB, emit.OkHttp, emit.Go, emit.Guzzle} {
		t.Run(string(tg), func(t *testing.T) {
			var b strings.Builder
			for _, fx := range streamFixtures() {
				if fx.in.Rec.TimeoutMs == 0 && (tg == emit.Go || tg == emit.Guzzle || tg == emit.OkHttp) {
					continue // no per-read knob: refused (TestStreamUnboundedRefused)
				}
				e, err := emit.Emit(tg, fx.in)
				if err != nil {
					t.Fatalf("%s: %v", fx.name, err)
				}
				fmt.Fprintf(&b, "===== %s (%s) =====\n%s", fx.name, e.Language, e.Text)
				b.WriteString("----- settings\n")
				for _, s := range e.Settings {
					fmt.Fprintf(&b, "%s = %s: %s\n", s.Knob, s.Value, s.Bounds)
				}
				b.WriteString("----- missing\n")
				for _, m := range e.Missing {
					fmt.Fprintf(&b, "- %s\n", m)
				}
			}
			golden.Assert(t, "stream_"+string(tg), []byte(b.String()))
		})
	}
}

// TestStreamRead: a per-read knob gets the larger of the first-event and idle timeouts (it
// bounds both), the unbounded stream total is said in missing[], and a recommendation without
// stream advice keeps its read timeout and says nothing of streams.
func TestStreamRead(t *testing.T) {
	fx := streamFixtures()
	cases := []struct {
		in        emit.Input
		wantMs    int64
		unbounded bool
	}{
		{fx[1].in, 20_000, true},
		{fx[2].in, 2_500, false},
	}
	for _, c := range cases {
		if got := c.in.Read().Milliseconds(); got != c.wantMs {
			t.Errorf("%s: Read() = %d ms, want %d", c.in.Name, got, c.wantMs)
		}
		e, err := emit.Emit(emit.HTTPX, c.in)
		if err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(e.Missing, "\n")
		if got := strings.Contains(joined, "it is unbounded"); got != c.unbounded {
			t.Errorf("%s: missing says unbounded = %v, want %v:\n%s", c.in.Name, got, c.unbounded, joined)
		}
		if !strings.Contains(joined, "first-event") {
			t.Errorf("%s: missing does not say the first-event timeout shares the read knob:\n%s", c.in.Name, joined)
		}
	}
	plain := fx[2].in
	plain.Rec.StreamAdvice = nil
	if got := plain.Read().Milliseconds(); got != 2_500 {
		t.Errorf("no stream: Read() = %d ms, want the read timeout 2500", got)
	}
	e, err := emit.Emit(emit.Nginx, plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range e.Missing {
		if strings.Contains(m, "first-event") || strings.Contains(m, "stream") {
			t.Errorf("no stream: missing mentions streams: %s", m)
		}
	}
}

// TestStreamUnboundedRefused: a stream whose total is unbounded (no timeout_ms) is emitted only
// for a target with a per-read knob, which bounds it by its silences; a target that can bound
// it only by a total refuses, saying why and which targets can.
func TestStreamUnboundedRefused(t *testing.T) {
	in := streamFixtures()[0].in
	for _, tg := range emit.Targets() {
		_, err := emit.Emit(tg, in)
		switch tg {
		case emit.Requests, emit.HTTPX, emit.AIOHTTP, emit.Nginx, emit.ALB, emit.Envoy:
			if err != nil {
				t.Errorf("%s: %v", tg, err)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), "the stream's total is unbounded") || !strings.Contains(err.Error(), "httpx") {
				t.Errorf("%s: error %v, want a refusal naming the targets that can", tg, err)
			}
		}
	}
	none := in
	none.Rec.StreamAdvice = nil
	if _, err := emit.Emit(emit.HTTPX, none); err == nil || !strings.Contains(err.Error(), "no timeout to write") {
		t.Errorf("no total and no stream: error %v, want no timeout to write", err)
	}
}
