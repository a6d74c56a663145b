package report

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/live"
)

func serveFixture(dupes int64) live.Stats {
	return live.Stats{
		Schema: live.StatsSchema, Scenario: "payment-double-charge", URL: "http://127.0.0.1:8080", Phase: live.Baseline, UptimeMs: 18234.5, ScenarioTimeMs: 182345, Speed: 10,
		Requests: 5873, ByStatus: map[string]int64{"200": 5790, "409": 61, "503": 22}, ByFault: map[string]int64{"reset": 12},
		SideEffects: 5802, DuplicateSideEffects: dupes, DuplicatesByTag: map[string]int64{}, Keys: 3548, Replayed: 203,
		Overflow: 22, Wasted: 1990, Listening: true,
	}
}

// serveStreamsFixture is a stream target's counters: 300 streams, their first events
// (p99.9 n/a: 300 samples) and gaps.
func serveStreamsFixture() live.Stats {
	s := serveFixture(0)
	s.Scenario, s.ByFault, s.Keys, s.Replayed, s.SideEffects = "llm-stream", map[string]int64{}, 0, 0, 0
	ms := func(v float64) *float64 { return &v }
	s.Streams = &live.StreamStats{Started: 300, Completed: 291, Dropped: 2, Stalled: 6, Abandoned: 7, Events: 104_321,
		FirstEventMs: live.StreamSummary{P50: ms(812.4), P90: ms(2890), P99: ms(91_230), Max: ms(148_000), Count: 300},
		GapMs:        live.StreamSummary{P50: ms(30.1), P90: ms(98.2), P99: ms(251), P999: ms(20_040), Max: ms(20_112), Count: 104_030}}
	return s
}

func TestServeGoldens(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stats  live.Stats
		format string
		color  bool
	}{
		{"serve_text_80", serveFixture(0), "text", false},
		{"serve_text_dupes", serveFixture(2349), "text", false},
		{"serve_text_color", serveFixture(2349), "text", true},
		{"serve_json", serveFixture(2349), "json", false},
		{"serve_text_streams", serveStreamsFixture(), "text", false},
		{"serve_json_streams", serveStreamsFixture(), "json", false},
	} {
		render, err := ServeFormats.Get(tc.format)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := render(&b, tc.stats, replayOptions(tc.color, 80)); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, tc.name, b.Bytes())
	}
	// A long scenario name and many statuses wrap at every width.
	wide := serveFixture(12)
	wide.Scenario = "retry-storm-10-servers-with-a-long-name"
	for _, c := range []string{"201", "204", "400", "404", "408", "429", "500", "502", "504"} {
		wide.ByStatus[c] = 1234
	}
	for _, w := range goldenWidths {
		var b bytes.Buffer
		if err := ServeText(&b, wide, replayOptions(false, w)); err != nil {
			t.Fatal(err)
		}
		golden.Assert(t, fmt.Sprintf("serve_text_wide_%d", w), b.Bytes())
	}
}
