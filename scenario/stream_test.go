package scenario

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// streamTarget is a serve-only scenario whose stream mapping is on line 2 (its { at column
// 11) and whose phases follow.
func streamTarget(stream, phases string) string {
	s := "target:\n  stream: " + stream + "\n"
	if phases != "" {
		s += "  phases:\n    - " + phases + "\n"
	}
	return s
}

// TestStreamLoadsForServe: a stream's fields, its defaults and a phase that slows its first
// event.
func TestStreamLoadsForServe(t *testing.T) {
	for _, tc := range []struct {
		name, stream string
		want         Stream
	}{
		{"defaults", "{first_event: {fixed: 2s}, gap: {fixed: 20ms}}",
			Stream{Format: StreamSSE, Events: EventCount{100, 100}}},
		{"every field", "{format: ndjson, first_event: {fixed: 2s}, gap: {fixed: 20ms}, events: {uniform: [5, 9]}, drop: 2%, stall: {percent: 3%, for: 10s}}",
			Stream{Format: StreamNDJSON, Events: EventCount{5, 9}, Drop: 0.02, Stall: &StreamStall{Percent: 0.03, For: 10 * time.Second}}},
		{"fixed count", "{first_event: {fixed: 2s}, gap: {fixed: 20ms}, events: 7}",
			Stream{Format: StreamSSE, Events: EventCount{7, 7}}},
	} {
		sc, err := ParseFor([]byte(streamTarget(tc.stream, "")), "s.yaml", ForServe)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		st := sc.Target.Stream
		if st == nil {
			t.Fatalf("%s: no stream", tc.name)
		}
		if st.Format != tc.want.Format || st.Events != tc.want.Events || st.Drop != tc.want.Drop ||
			(st.Stall == nil) != (tc.want.Stall == nil) || (st.Stall != nil && *st.Stall != *tc.want.Stall) {
			t.Errorf("%s: got %+v, want %+v", tc.name, st, tc.want)
		}
		if st.FirstEvent.Fixed != 2*time.Second || st.Gap.Fixed != 20*time.Millisecond {
			t.Errorf("%s: first_event %v, gap %v", tc.name, &st.FirstEvent, &st.Gap)
		}
	}
	sc, err := ParseFor([]byte(streamTarget("{first_event: {fixed: 2s}, gap: {fixed: 20ms}}",
		"{name: slow-first-token, at: 1m, for: 2m, first_event: {fixed: 90s}}")), "s.yaml", ForServe)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.StreamFirstEvent(0).Fixed; got != 90*time.Second {
		t.Errorf("first_event in the phase = %s, want 90s", got)
	}
	if got := sc.StreamFirstEvent(-1).Fixed; got != 2*time.Second {
		t.Errorf("first_event outside = %s, want 2s", got)
	}
	if got := sc.StreamGap(0).Fixed; got != 20*time.Millisecond {
		t.Errorf("gap in a phase that keeps it = %s, want 20ms", got)
	}
	plain, _ := ParseFor([]byte("target: {latency: {fixed: 1ms}}\n"), "p.yaml", ForServe)
	if plain.StreamFirstEvent(-1) != nil || plain.StreamGap(-1) != nil {
		t.Error("a target without a stream has a first_event or gap distribution")
	}
}

// TestStreamErrors: each problem at its file:line:col and path.
func TestStreamErrors(t *testing.T) {
	const fe = "first_event: {fixed: 1s}, gap: {fixed: 10ms}"
	for _, tc := range []struct {
		name, stream, phase, want string
	}{
		{"no first_event", "{gap: {fixed: 10ms}}", "", "s.yaml:2:11: target.stream.first_event: required"},
		{"no gap", "{first_event: {fixed: 1s}}", "", "s.yaml:2:11: target.stream.gap: required"},
		{"format", "{format: json, " + fe + "}", "", "s.yaml:2:20: target.stream.format: \"json\" is not one of sse, ndjson"},
		{"zero events", "{" + fe + ", events: 0}", "", "s.yaml:2:66: target.stream.events: must be at least 1"},
		{"too many events", "{" + fe + ", events: 100001}", "", "target.stream.events: 100001 is above the 100000 events a stream allows"},
		{"fractional events", "{" + fe + ", events: 2.5}", "", "target.stream.events: want a whole number"},
		{"uniform backwards", "{" + fe + ", events: {uniform: [9, 5]}}", "", "s.yaml:2:80: target.stream.events.uniform[1]: 5 is below the low end, 9"},
		{"uniform short", "{" + fe + ", events: {uniform: [9]}}", "", "target.stream.events.uniform: want [low, high], got 1 values"},
		{"events mapping without uniform", "{" + fe + ", events: {}}", "", "target.stream.events.uniform: required"},
		{"bare drop", "{" + fe + ", drop: 0.5}", "", "target.stream.drop"},
		{"stall without for", "{" + fe + ", stall: {percent: 5%}}", "", "target.stream.stall.for: required"},
		{"stall without percent", "{" + fe + ", stall: {for: 1s}}", "", "target.stream.stall.percent: required"},
		{"stall of 0", "{" + fe + ", stall: {percent: 5%, for: 0s}}", "", "target.stream.stall.for: must be above 0"},
		{"drop and stall over 100%", "{" + fe + ", drop: 60%, stall: {percent: 50%, for: 1s}}", "", "drop and stall add up to 110%, over 100%"},
		{"over an hour", "{first_event: {fixed: 1s}, gap: {fixed: 1s}, events: 4000}", "", "s.yaml:2:11: target.stream: 4000 events with a mean gap of 1s take about 1h6m40s, over 1h"},
		{"latency beside", "{" + fe + "}\n  latency: {fixed: 1ms}", "", "s.yaml:3:3: target.latency: a stream target has no latency"},
		{"unknown key", "{" + fe + ", events_count: 5}", "", "s.yaml:2:58: target.stream.events_count: unknown field"},
		{"phase latency", "{" + fe + "}", "{at: 0s, for: 1m, latency: {fixed: 1s}}", "s.yaml:4:25: target.phases[0].latency: a stream target has no latency: change its first_event or gap"},
		{"phase over an hour", "{first_event: {fixed: 1s}, gap: {fixed: 1s}, events: 100}", "{at: 0s, for: 1m, gap: {fixed: 1m}}", "s.yaml:4:7: target.phases[0]: 100 events with a mean gap of 1m take about"},
		{"phase bad distribution", "{" + fe + "}", "{at: 0s, for: 1m, first_event: {fixed: fast}}", "target.phases[0].first_event.fixed"},
	} {
		_, err := ParseFor([]byte(streamTarget(tc.stream, tc.phase)), "s.yaml", ForServe)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Errorf("%s: %T is not an *Error", tc.name, err)
		}
	}
}

// TestStreamPhaseNeedsStream: first_event or gap in a phase of a target that does not stream
// is refused at its key.
func TestStreamPhaseNeedsStream(t *testing.T) {
	for key, want := range map[string]string{
		"first_event": "s.yaml:3:30: target.phases[0].first_event: first_event changes a stream target's: set target.stream",
		"gap":         "s.yaml:3:30: target.phases[0].gap: gap changes a stream target's: set target.stream",
	} {
		src := "target:\n  latency: {fixed: 1ms}\n  phases: [{at: 0s, for: 1m, " + key + ": {fixed: 1s}}]\n"
		_, err := ParseFor([]byte(src), "s.yaml", ForServe)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", key, err, want)
		}
	}
}

// TestStreamLoadsForReplay: the simulator models a stream (docs/design.md §6), so replay
// loads a stream target as serve does, with the same fields.
func TestStreamLoadsForReplay(t *testing.T) {
	src := "duration: 1m\nload: {rate: 1/s}\npolicy: {timeout: 1s}\n" + streamTarget("{first_event: {fixed: 1s}, gap: {fixed: 10ms}}", "")
	sc, err := Parse([]byte(src), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Target.Stream == nil || sc.Target.Stream.FirstEvent.Mean() != time.Second {
		t.Fatalf("stream %+v, want first_event fixed 1s", sc.Target.Stream)
	}
	if _, err := ParseFor([]byte(src), "s.yaml", ForServe); err != nil {
		t.Errorf("for serve: %v", err)
	}
}

// TestEventCountSample: a fixed count is itself; a uniform one covers [Min, Max] and no more.
func TestEventCountSample(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	if got := (EventCount{7, 7}).Sample(r); got != 7 {
		t.Errorf("fixed 7 drew %d", got)
	}
	seen := map[int]int{}
	for range 2000 {
		seen[(EventCount{3, 6}).Sample(r)]++
	}
	for v := 3; v <= 6; v++ {
		if seen[v] < 400 { // 500 expected each; 400 is over 4 standard deviations below
			t.Errorf("uniform [3, 6] drew %d %d times of 2000", v, seen[v])
		}
	}
	if len(seen) != 4 {
		t.Errorf("uniform [3, 6] drew %v", seen)
	}
}

// TestStreamContentType: each format's media type (the wire contract of issue 29).
func TestStreamContentType(t *testing.T) {
	for f, want := range map[StreamFormat]string{StreamSSE: "text/event-stream", StreamNDJSON: "application/x-ndjson"} {
		if got := f.ContentType(); got != want {
			t.Errorf("%s: %s, want %s", f, got, want)
		}
	}
}

// FuzzParseServe: no input loaded for serve panics, every failure is an *Error, and a
// stream that loads is within its bounds.
func FuzzParseServe(f *testing.F) {
	f.Add([]byte(streamTarget("{first_event: {fixed: 2s}, gap: {fixed: 20ms}}", "")))
	f.Add([]byte(streamTarget("{format: ndjson, first_event: {p50: 1s, p99: 9s}, gap: {uniform: [1ms, 9ms]}, events: {uniform: [1, 100000]}, drop: 50%, stall: {percent: 50%, for: 1s}}",
		"{at: 0s, for: 1m, first_event: {exponential: {min: 1s, mean: 1s}}}")))
	f.Add([]byte(streamTarget("{first_event: {fixed: 1s}, gap: {fixed: 1h}, events: 100000}", "")))
	f.Add([]byte("target: {latency: {fixed: 1ms}, phases: [{at: 0s, for: 1s, gap: {fixed: 1s}}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseFor(data, "f.yaml", ForServe)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T, not *Error", err, err)
			}
			return
		}
		st := sc.Target.Stream
		if st == nil {
			return
		}
		if st.Events.Min < 1 || st.Events.Max < st.Events.Min || st.Events.Max > maxStreamEvents {
			t.Fatalf("events %+v loaded", st.Events)
		}
		if l := streamLength(&st.FirstEvent, &st.Gap, st.Events.Max, st.Stall); l > maxStreamTime.Seconds() {
			t.Fatalf("a stream of %g s loaded", l)
		}
	})
}
