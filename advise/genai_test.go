package advise

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/profile"
)

// The GenAI testdata (testdata/genai-formats.prom and its OTLP twin genai-otlp-formats.json)
// are written by hand in the shapes of the semantic conventions (open-telemetry/
// semantic-conventions-genai docs/gen-ai/gen-ai-metrics.md: names, unit s, attributes and
// the explicit bucket boundaries each metric SHOULD use), not captured from an
// instrumented service: they prove the reader agrees with our reading of the spec, not
// with a real exporter.
const (
	genaiProm = "testdata/genai-formats.prom"
	genaiOTLP = "testdata/genai-otlp-formats.json"
)

func TestGenAILookup(t *testing.T) {
	for _, c := range []struct {
		family string
		want   string // the convention's name, "" for none
		role   genaiRole
	}{
		{"gen_ai_client_operation_duration_seconds", "gen_ai.client.operation.duration", genaiTotal},
		{"gen_ai.client.operation.duration", "gen_ai.client.operation.duration", genaiTotal},
		{"gen_ai_server_request_duration_seconds", "gen_ai.server.request.duration", genaiTotal},
		{"gen_ai_server_time_to_first_token_seconds", "gen_ai.server.time_to_first_token", genaiFirstEvent},
		{"gen_ai.server.time_to_first_token", "gen_ai.server.time_to_first_token", genaiFirstEvent},
		{"gen_ai_client_operation_time_to_first_chunk_seconds", "gen_ai.client.operation.time_to_first_chunk", genaiFirstEvent},
		{"gen_ai_server_time_per_output_token_seconds", "gen_ai.server.time_per_output_token", genaiGap},
		{"gen_ai_client_operation_time_per_output_chunk_seconds", "gen_ai.client.operation.time_per_output_chunk", genaiGap},
		{"gen_ai_client_token_usage", "", 0},
		{"http_server_request_duration_seconds", "", 0},
		{"gen_ai_server_time_to_first_token_milliseconds", "", 0}, // not the convention's unit
	} {
		m, ok := genaiLookup(c.family)
		if ok != (c.want != "") || m.Name != c.want || (ok && m.Role != c.role) {
			t.Errorf("%s: %+v %v, want %q role %d", c.family, m, ok, c.want, c.role)
		}
	}
}

// genaiBracket is one expected bracket (ms) of a phase.
type genaiBracket struct {
	label             string
	lower, upper, est float64
}

// TestGenAIPhasesFromBuckets: time to first token feeds first_event, time per output token
// gap, the operation duration the total. Each phase's quantiles are brackets computed as
// histogram_quantile does, and the point figures the profile shows sit inside their bracket
// (at its top): never a point finer than the buckets allow.
func TestGenAIPhasesFromBuckets(t *testing.T) {
	r := run(t, Options{Files: []string{genaiProm}})
	b := r.Buckets
	if b.Metric != "gen_ai_client_operation_duration_seconds" {
		t.Fatalf("total from %s", b.Metric)
	}
	// first_event, summed over both models by le: 0.06 → 50, 0.08 → 300, 0.1 → 1010,
	// 0.25 → 6200, 0.5 → 8500, 0.75 → 9400, 1 → 9760, 2.5 → 9975, 5 → 9996, of 10000.
	// p50 rank 5000: 0.1+0.15×3990/5190; p90 rank 9000: 0.5+0.25×500/900; p99 rank 9900:
	// 1+1.5×140/215; p99.9 rank 9990: 2.5+2.5×15/21.
	// gap: 0.01 → 2000, 0.025 → 7300, 0.05 → 9400, 0.075 → 9890, 0.1 → 9980, 0.15 → 9995,
	// 0.2 → 10000. p50: 0.01+0.015×3000/5300; p90: 0.025+0.025×1700/2100; p99:
	// 0.075+0.025×10/90; p99.9 rank 9990: 0.1+0.05×10/15.
	want := map[string][]genaiBracket{
		"first_event": {{"p50", 100, 250, 215.3179}, {"p90", 500, 750, 638.8889}, {"p99", 1000, 2500, 1976.7442}, {"p99.9", 2500, 5000, 4285.7143}},
		"gap":         {{"p50", 10, 25, 18.4906}, {"p90", 25, 50, 45.2381}, {"p99", 75, 100, 77.7778}, {"p99.9", 100, 150, 133.3333}},
	}
	if !strings.HasPrefix(b.Choice, "as the GenAI operation duration (gen_ai.client.operation.duration)") || !promHasNote(r.Notes, "4 histograms in the input: advising from gen_ai_client_operation_duration_seconds") {
		t.Errorf("choice %q, notes %q", b.Choice, r.Notes)
	}
	if len(b.Phases) != 2 {
		t.Fatalf("phases %+v", b.Phases)
	}
	summaries := map[string]*profile.Summary{"first_event": r.Phases.FirstEvent, "gap": r.Phases.Gap}
	for _, ph := range b.Phases {
		s := summaries[ph.Phase]
		if s == nil || s.Count != 10000 || ph.Observations != 10000 {
			t.Fatalf("%s: summary %+v, %v observations", ph.Phase, s, ph.Observations)
		}
		points := map[string]*float64{"p50": s.P50Ms, "p90": s.P90Ms, "p99": s.P99Ms, "p99.9": s.P999Ms}
		for i, w := range want[ph.Phase] {
			q := ph.Quantiles[i]
			if q.Label != w.label || q.LowerMs != w.lower || q.UpperMs == nil || *q.UpperMs != w.upper || math.Abs(q.EstimateMs-w.est) > 1e-3 {
				t.Errorf("%s %s: %+v (upper %v), want %+v", ph.Phase, w.label, q, promDeref(q.UpperMs), w)
				continue
			}
			if v := points[w.label]; v == nil || *v <= w.lower || *v > w.upper || *v < q.EstimateMs {
				t.Errorf("%s %s: the profile's figure %v is not at the top of its bracket (%v, %v]", ph.Phase, w.label, promDeref(v), w.lower, w.upper)
			}
		}
	}
	if !promHasNote(r.Notes, "first_event from gen_ai_server_time_to_first_token_seconds (bucketed: each quantile is a bracket") {
		t.Errorf("no bracket note for first_event: %q", r.Notes)
	}
	// time_per_output_token is a mean per token: the note says it bounds an idle timeout
	// only loosely.
	if !promHasNote(r.Notes, "gen_ai_server_time_per_output_token_seconds: a mean per output token") || !strings.Contains(b.Phases[1].Caveat, "only loosely") {
		t.Errorf("no mean-per-token caveat: %q / %q", r.Notes, b.Phases[1].Caveat)
	}
	// error.type: "500" is a status, "timeout" a timeout; the rest answered 200.
	if r.Requests != 10000 || r.Status["200"] != 9980 || r.Status["500"] != 10 || r.Errors["timeout"] != 10 {
		t.Errorf("requests %d, status %v, timeouts %d", r.Requests, r.Status, r.Errors["timeout"])
	}
	if r.Streams != nil {
		t.Errorf("streams summary %+v from metrics that do not say how streams ended", r.Streams)
	}
}

// TestGenAIOTLPMatchesProm: the same counts exported over OTLP give the same profile.
func TestGenAIOTLPMatchesProm(t *testing.T) {
	p := run(t, Options{Files: []string{genaiProm}})
	o := run(t, Options{Files: []string{genaiOTLP}})
	if o.Source.Format != string(FormatPrometheus) {
		t.Errorf("format %q", o.Source.Format)
	}
	for _, c := range []struct {
		name string
		a, b *profile.Summary
	}{{"first_event", p.Phases.FirstEvent, o.Phases.FirstEvent}, {"gap", p.Phases.Gap, o.Phases.Gap}, {"total", p.Phases.Total, o.Phases.Total}} {
		if c.a == nil || c.b == nil || c.a.Count != c.b.Count || *c.a.P99Ms != *c.b.P99Ms || *c.a.P50Ms != *c.b.P50Ms {
			t.Errorf("%s: prom %+v, otlp %+v", c.name, c.a, c.b)
		}
	}
	if o.Recommendation.TimeoutMs != p.Recommendation.TimeoutMs || o.Status["500"] != 10 || o.Errors["timeout"] != 10 {
		t.Errorf("otlp: timeout %v vs %v, status %v", o.Recommendation.TimeoutMs, p.Recommendation.TimeoutMs, o.Status)
	}
	if o.Buckets.Families[0].UnitFrom != "OTLP unit" {
		t.Errorf("unit from %q", o.Buckets.Families[0].UnitFrom)
	}
}

// TestGenAIByModel: --by model groups on gen_ai.request.model, each group with its own
// first_event phase.
func TestGenAIByModel(t *testing.T) {
	for _, file := range []string{genaiProm, genaiOTLP} {
		r := run(t, Options{Files: []string{file}, By: ByModel})
		if len(r.Groups) != 2 {
			t.Fatalf("%s: %d groups", file, len(r.Groups))
		}
		for i, w := range []struct {
			key         string
			first, errs int64
		}{{"gpt-4o-mini", 8000, 0}, {"gpt-4o", 2000, 10}} {
			g := r.Groups[i]
			if g.Key != w.key || g.Result.Phases.FirstEvent == nil || g.Result.Phases.FirstEvent.Count != w.first || g.Result.Errors["timeout"] != w.errs {
				t.Errorf("%s group %d: %s first_event %+v timeouts %d, want %+v", file, i, g.Key, g.Result.Phases.FirstEvent, g.Result.Errors["timeout"], w)
			}
		}
		// Each group has its own brackets (note29 item 5): gpt-4o-mini's operation p50 lies in
		// (1.28 s, 2.56 s], gpt-4o's in (5.12 s, 10.24 s]; all together, in (1.28 s, 2.56 s].
		for i, want := range []struct{ lower, upper float64 }{{1280, 2560}, {5120, 10240}} {
			b := r.Groups[i].Buckets
			if len(b) != len(r.Buckets.Quantiles) || b[0].Label != "p50" || b[0].LowerMs != want.lower || b[0].UpperMs == nil || *b[0].UpperMs != want.upper {
				t.Errorf("%s: group %s brackets %+v, want p50 in (%g, %g]", file, r.Groups[i].Key, b, want.lower, want.upper)
			}
		}
		// gpt-4o's first tokens are slower: its p50 (rank 1000 of 2000) lies in (500 ms, 750 ms].
		if p50 := *r.Groups[1].Result.Phases.FirstEvent.P50Ms; p50 <= 500 || p50 > 750 {
			t.Errorf("%s: gpt-4o first_event p50 %v", file, p50)
		}
	}
	// --by status splits a series' buckets (its +Inf bucket is a timeout): no group brackets.
	for _, g := range run(t, Options{Files: []string{genaiProm}, By: ByStatus}).Groups {
		if g.Buckets != nil {
			t.Errorf("--by status: group %s has brackets %+v", g.Key, g.Buckets)
		}
	}
	// A scrape without the model label groups as "(no model)".
	r := run(t, Options{Files: []string{"testdata/prom-bytes-seconds.prom"}, By: ByModel})
	if len(r.Groups) != 1 || r.Groups[0].Key != "(no model)" {
		t.Errorf("groups %+v", r.Groups)
	}
}

func writeTemp(t *testing.T, name, s string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestGenAIWhatIsMissing: no per-token metric → the note says the gap is not in the
// metrics; no operation duration → refused with the way out; --filter naming a family
// advises from it as from any histogram; the conventions' dotted names (UTF-8) read as
// seconds.
func TestGenAIWhatIsMissing(t *testing.T) {
	dur := "gen_ai_client_operation_duration_seconds_bucket{le=\"1.28\"} 90\ngen_ai_client_operation_duration_seconds_bucket{le=\"2.56\"} 100\ngen_ai_client_operation_duration_seconds_bucket{le=\"+Inf\"} 100\n"
	ttft := "gen_ai_server_time_to_first_token_seconds_bucket{le=\"0.25\"} 80\ngen_ai_server_time_to_first_token_seconds_bucket{le=\"0.5\"} 100\ngen_ai_server_time_to_first_token_seconds_bucket{le=\"+Inf\"} 100\n"
	r := run(t, Options{Files: []string{writeTemp(t, "a.prom", dur+ttft)}})
	if r.Phases.FirstEvent == nil || (r.Phases.Gap != nil && r.Phases.Gap.Count != 0) || !promHasNote(r.Notes, "the gap between events is not in these metrics") {
		t.Errorf("first_event %+v gap %+v notes %q", r.Phases.FirstEvent, r.Phases.Gap, r.Notes)
	}
	_, err := Run(context.Background(), Options{Files: []string{writeTemp(t, "b.prom", ttft)}})
	if err == nil || !strings.Contains(err.Error(), "without an operation duration") || !strings.Contains(err.Error(), "--filter 'metric=NAME'") {
		t.Errorf("ttft alone: %v", err)
	}
	named := run(t, Options{Files: []string{writeTemp(t, "c.prom", dur+ttft)}, Filter: "metric=gen_ai_server_time_to_first_token_seconds"})
	if named.Buckets.Metric != "gen_ai_server_time_to_first_token_seconds" || len(named.Buckets.Phases) != 0 || named.Phases.FirstEvent != nil {
		t.Errorf("--filter: %s, phases %+v", named.Buckets.Metric, named.Buckets.Phases)
	}
	dotted := "# TYPE \"gen_ai.client.operation.duration\" histogram\n{\"gen_ai.client.operation.duration_bucket\",le=\"1.28\"} 5\n{\"gen_ai.client.operation.duration_bucket\",le=\"+Inf\"} 5\n{\"gen_ai.server.time_to_first_token_bucket\",le=\"0.25\"} 5\n{\"gen_ai.server.time_to_first_token_bucket\",le=\"+Inf\"} 5\n"
	d := run(t, Options{Files: []string{writeTemp(t, "d.prom", dotted)}})
	if d.Buckets.Metric != "gen_ai.client.operation.duration" || d.Buckets.Families[0].UnitFrom != "GenAI convention" || d.Phases.FirstEvent == nil || *d.Phases.FirstEvent.MaxMs > 250 {
		t.Errorf("dotted: %s %+v first_event %+v", d.Buckets.Metric, d.Buckets.Families, d.Phases.FirstEvent)
	}
}

// TestGenAIAboveTopBucket: first tokens above the top bucket are recorded at it and said
// to be lower bounds.
func TestGenAIAboveTopBucket(t *testing.T) {
	in := "gen_ai_client_operation_duration_seconds_bucket{le=\"81.92\"} 1000\ngen_ai_client_operation_duration_seconds_bucket{le=\"+Inf\"} 1000\n" +
		"gen_ai_server_time_to_first_token_seconds_bucket{le=\"10\"} 990\ngen_ai_server_time_to_first_token_seconds_bucket{le=\"+Inf\"} 1000\n"
	r := run(t, Options{Files: []string{writeTemp(t, "t.prom", in)}})
	ph := r.Buckets.Phases[0]
	last := ph.Quantiles[len(ph.Quantiles)-1]
	if ph.AboveTop != 10 || !last.LowerOnly || last.LowerMs != 10000 || !promHasNote(r.Notes, "10 observations above the top bucket are recorded at it (lower bounds)") {
		t.Errorf("%+v, last %+v, notes %q", ph, last, r.Notes)
	}
}

func TestGenAIFailure(t *testing.T) {
	for _, c := range []struct {
		errType string
		status  int
		err     string
	}{
		{"500", 500, ""},
		{"429", 429, ""},
		{"timeout", 0, "timeout"},
		{"openai.APITimeoutError", 0, "timeout"},
		{"_OTHER", 0, "other"},
		{"99", 0, "other"},
	} {
		rec := newRecord()
		rec.Status = 200
		genaiFailure(&rec, c.errType, time.Second)
		if rec.Status != c.status || rec.Err != c.err || rec.Total != time.Second {
			t.Errorf("%s: %+v", c.errType, rec)
		}
	}
}

// TestOTLPMetricsShapes: a malformed point is a malformed line (the others are read),
// DELTA points add up, CUMULATIVE points make a window, an exponential histogram is noted.
func TestOTLPMetricsShapes(t *testing.T) {
	pt := func(counts, bounds, time string) string {
		return `{"timeUnixNano":"` + time + `","bucketCounts":[` + counts + `],"explicitBounds":[` + bounds + `]}`
	}
	doc := func(temporality, pts string) string {
		return `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"gen_ai.client.operation.duration","unit":"s","histogram":{"aggregationTemporality":` + temporality + `,"dataPoints":[` + pts + `]}},{"name":"x","unit":"s","exponentialHistogram":{}}]}]}]}` + "\n"
	}
	bad := run(t, Options{Files: []string{writeTemp(t, "bad.json", doc("2", pt(`"1","2"`, "1,2", "1")+","+pt(`"5","5"`, "1", "2")))}})
	if bad.Source.Malformed != 1 || bad.Requests != 10 || !strings.Contains(bad.Source.MalformedSample[0], "dataPoints[0]: 2 bucketCounts for 2 explicitBounds") {
		t.Errorf("malformed %d %q, requests %d", bad.Source.Malformed, bad.Source.MalformedSample, bad.Requests)
	}
	if !promHasNote(bad.Notes, "x: an exponential histogram (not read)") {
		t.Errorf("notes %q", bad.Notes)
	}
	delta := run(t, Options{Files: []string{writeTemp(t, "delta.json", doc("1", pt(`"3","1"`, "1", "1"))+doc("1", pt(`"4","2"`, "1", "2")))}})
	if delta.Requests != 10 || delta.Status["200"] != 7 || !promHasNote(delta.Notes, "DELTA temporality") {
		t.Errorf("delta: %d requests, %v", delta.Requests, delta.Status)
	}
	cum := run(t, Options{Files: []string{writeTemp(t, "cum.json", doc("2", pt(`"3","1"`, "1", "1"))+doc("2", pt(`"10","2"`, "1", "2")))}})
	if cum.Requests != 8 || !strings.HasPrefix(cum.Buckets.Window, "window") {
		t.Errorf("cumulative: %d requests, %s", cum.Requests, cum.Buckets.Window)
	}
	if _, err := Run(context.Background(), Options{Files: []string{writeTemp(t, "n.json", `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"a","histogram":{"dataPoints":[{"bucketCounts":["-1"]}]}}]}]}]}`)}}); err == nil || !strings.Contains(err.Error(), "n.json:1") {
		t.Errorf("a negative count: %v", err)
	}
}
