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
	return []configFixture{
		{"llm-unbounded", emit.Input{URL: "https://llm.example.com/v1/chat/completions", Method: "POST", Name: "llm", Rec: llm}},
		{"feed-bounded", emit.Input{URL: "https://feed.example.com/v1/events", Method: "GET", Name: "feed", Rec: feed}},
	}
}

// TestStreamGoldens emits each streaming fixture for the targets with a per-read knob and
// two without (testdata/stream_TARGET.golden): the text, the settings and the missing bounds.
func TestStreamGoldens(t *testing.T) {
	for _, tg := range []emit.Target{emit.HTTPX, emit.OkHttp, emit.Nginx, emit.Envoy, emit.ALB, emit.Go, emit.Guzzle} {
		t.Run(string(tg), func(t *testing.T) {
			var b strings.Builder
			for _, fx := range streamFixtures() {
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
		{fx[0].in, 20_000, true},
		{fx[1].in, 2_500, false},
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
	plain := fx[1].in
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
