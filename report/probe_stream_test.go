package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/profile"
)

// probeStreaming is a streaming run graded by the library's own Builder (no live run, so
// the goldens are byte-stable): 400 SSE streams at 20/s on kept-alive connections, first
// events from 800 ms to 2 s, 19 gaps of 20–60 ms per stream, 392 completed, 6 cut after
// their 5th event, 2 still streaming at the 30 s --max-timeout (answered: longer than it).
func probeStreaming(t testing.TB) *profile.Profile {
	hist := func(n int, at func(i int) int64) *hdrhistogram.Histogram {
		h := profile.NewHistogram()
		for i := range n {
			profile.RecordClamped(h, at(i))
		}
		return h
	}
	const completed, cut, timedOut = 392, 6, 2
	first := hist(400, func(i int) int64 { return 800_000 + int64(i)*3_000 })
	gaps := hist(completed*19+cut*4+timedOut*19, func(i int) int64 { return 20_000 + int64(i%41)*1_000 })
	total := hist(completed, func(i int) int64 { return 1_400_000 + int64(i)*3_000 })
	events := profile.NewHistogram()
	for i := range 400 {
		switch {
		case i < completed:
			profile.RecordCount(events, 20)
		case i < completed+cut:
			profile.RecordCount(events, 5)
		default:
			profile.RecordCount(events, 20)
		}
	}
	head := profile.Profile{
		Target: profile.Target{URL: "https://llm.example.com/v1/chat/completions", Method: "POST", Headers: []string{"Authorization: REDACTED"}, Protocol: "http/1.1"},
		Model:  "open", Conn: "reuse", DurationMs: 20_000,
		Schedule: profile.Schedule{RequestedPerS: f(20), AchievedPerS: 20, LateAfterMs: 1, MaxInFlight: 1000, PeakInFlight: 44, RateHeld: true},
	}
	b := profile.NewBuilder(head, profile.RecommendParams{MaxTimeout: profile.DefaultMaxTimeout})
	b.Add(profile.Part{
		Series: map[string]*hdrhistogram.Histogram{
			profile.SeriesTTFBReused:  hist(completed, func(int) int64 { return 120_000 }),
			profile.SeriesTotalReused: total, profile.SeriesSentReused: total, profile.SeriesGood: total,
			profile.SeriesSilenceReused: first, profile.SeriesSilenceGood: first,
			profile.SeriesFirstEventReused: first, profile.SeriesGapReused: gaps,
			profile.SeriesStreamTotal: total, profile.SeriesStreamEvents: events,
		},
		Status:       map[string]int64{"200": completed},
		Errors:       map[string]int64{"timeout": timedOut, profile.ErrorStreamCut: cut},
		ErrorSamples: map[string]profile.ErrorSample{profile.ErrorStreamCut: {Message: "unexpected EOF", Hint: profile.ErrorHint(profile.ErrorStreamCut, "")}},
		Requests:     400, Responses: completed,
		Streams: profile.StreamCounts{Count: 400, Completed: completed, Cut: cut, TimedOut: timedOut, Streaming: timedOut, MaxEvents: 20},
	})
	r, err := b.Close()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestProbeStreamingGoldens(t *testing.T) {
	r := probeStreaming(t)
	for _, w := range goldenWidths {
		name := fmt.Sprintf("probe_text_streams_%d", w)
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := ProbeText(&b, r, replayOptions(false, w)); err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, name, b.Bytes())
		})
	}
	var md bytes.Buffer
	if err := ProbeMarkdown(&md, r, probeOptions(false)); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "probe_markdown_streams", md.Bytes())
}

// TestProbeStreamRows: the stream phases and the streams line appear exactly when the
// profile has streams, in every format.
func TestProbeStreamRows(t *testing.T) {
	for _, tc := range []struct {
		res  *profile.Profile
		want bool
	}{{probeStreaming(t), true}, {probeFixture(), false}} {
		for _, format := range []string{"text", "markdown", "html"} {
			render, err := ProbeFormats.Get(format)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := render(&b, tc.res, probeOptions(false)); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, s := range []string{"first_event", "400 streams", "cut 6", "timed out 2", "events/stream p50 20"} {
				if strings.Contains(out, s) != tc.want {
					t.Errorf("%s report, streams %v: contains %q is %v", format, tc.want, s, !tc.want)
				}
			}
		}
	}
}
