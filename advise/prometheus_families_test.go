package advise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// promBracket checks one quantile's bracket and estimate (ms).
func promBracket(t *testing.T, b *Buckets, label string, lower, upper, est float64) {
	t.Helper()
	for _, q := range b.Quantiles {
		if q.Label != label {
			continue
		}
		if q.LowerMs != lower || q.UpperMs == nil || *q.UpperMs != upper || math.Abs(q.EstimateMs-est) > 1e-3 {
			t.Errorf("%s: %+v (upper %v), want (%v, %v] ≈ %v", label, q, promDeref(q.UpperMs), lower, upper, est)
		}
		return
	}
	t.Errorf("no %s in %+v", label, b.Quantiles)
}

// TestPromBytesAndSeconds: testdata/prom-bytes-seconds.prom has a _bytes histogram that
// sorts first and holds 4e10 observations, and the latency histogram in two series (/a
// answered 200, /b 503). The _bytes family is never a latency, --unit or not.
func TestPromBytesAndSeconds(t *testing.T) {
	file := "testdata/prom-bytes-seconds.prom"
	r := run(t, Options{Files: []string{file}})
	b := r.Buckets
	if b.Metric != "api_request_duration_seconds" || b.Choice != "the only duration histogram" {
		t.Fatalf("chose %s (%s)", b.Metric, b.Choice)
	}
	if len(b.Families) != 2 || b.Families[0].Name != "api_payload_bytes" || b.Families[0].Duration || !strings.Contains(b.Families[0].Skipped, "not a time") {
		t.Errorf("families %+v", b.Families)
	}
	// Summed by le: 0.1 → 900+0, 0.5 → 990+5, 1 → 999+10, +Inf → 1000+10.
	if r.Requests != 1010 || r.Status["200"] != 999 || r.Status["503"] != 10 || r.Errors["timeout"] != 1 || b.Observations != 1010 {
		t.Errorf("requests %d, status %v, timeouts %d", r.Requests, r.Status, r.Errors["timeout"])
	}
	// p50 rank 505 in (0, 0.1]: 0.1×505/900; p90 rank 909 in (0.1, 0.5]: 0.1+0.4×9/95;
	// p99 rank 999.9 in (0.5, 1]: 0.5+0.5×4.9/14; p99.9 rank 1008.99: 0.5+0.5×13.99/14.
	promBracket(t, b, "p50", 0, 100, 56.1111)
	promBracket(t, b, "p90", 100, 500, 137.8947)
	promBracket(t, b, "p99", 500, 1000, 675)
	promBracket(t, b, "p99.9", 500, 1000, 999.6429)

	// --unit s changes nothing: the family's name says seconds, and bytes stay bytes.
	ru := run(t, Options{Files: []string{file}, Unit: "ms"})
	if ru.Buckets.Metric != "api_request_duration_seconds" || ru.Source.Unit != "s" || !promHasNote(ru.Notes, "--unit ms ignored") {
		t.Errorf("--unit ms: %s in %s, notes %q", ru.Buckets.Metric, ru.Source.Unit, ru.Notes)
	}
	for _, f := range []string{"metric=api_payload_bytes", "metric~'bytes$'"} {
		_, err := Run(context.Background(), Options{Files: []string{file}, Unit: "s", Filter: f})
		if err == nil || !strings.Contains(err.Error(), "api_payload_bytes: bytes, not a time") {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := Run(context.Background(), Options{Files: []string{file}, Filter: "metric=nope"}); err == nil || !strings.Contains(err.Error(), "names no histogram") {
		t.Errorf("metric=nope: %v", err)
	}
	// The series' labels filter: handler is the path, code the status.
	rb := run(t, Options{Files: []string{file}, Filter: "path=/b"})
	if rb.Requests != 10 || rb.Status["503"] != 10 {
		t.Errorf("path=/b: %d requests %v", rb.Requests, rb.Status)
	}
	rg := run(t, Options{Files: []string{file}, By: ByRoute})
	if len(rg.Groups) != 2 || rg.Groups[0].Key != "? /a" || rg.Groups[0].Samples != 1000 {
		t.Errorf("--by route: %+v", rg.Groups)
	}
}

// TestPromOpenMetrics1: testdata/prom-om1.om.txt is OpenMetrics 1.0 (prometheus/prometheus
// model/textparse/openmetricslex.l): # UNIT lines, exemplars after bucket values, a
// timestamp, _created samples, a gauge histogram with _gcount/_gsum, a label value with \"
// , { and }, and # EOF.
func TestPromOpenMetrics1(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/prom-om1.om.txt"}})
	b := r.Buckets
	if r.Source.Malformed != 0 || b.Metric != "rpc_handling_milliseconds" || r.Source.Unit != "ms" || r.Target.Method != "GET" {
		t.Fatalf("%d malformed %v; chose %s in %s", r.Source.Malformed, r.Source.MalformedSample, b.Metric, r.Source.Unit)
	}
	kinds := map[string]string{}
	for _, f := range b.Families {
		kinds[f.Name] = f.Type + "/" + f.Unit + "/" + f.UnitFrom + "/" + f.Skipped
	}
	if kinds["queue_wait_seconds"] != "gaugehistogram/seconds/# UNIT/a gauge histogram (a current state, not observations)" ||
		!strings.HasPrefix(kinds["rpc_payload_bytes"], "histogram/bytes/# UNIT/bytes, not a time") {
		t.Errorf("families %v", kinds)
	}
	// 60 ≤ 10 ms, 90 ≤ 50 ms, 100 in all: p50 rank 50 in (0, 10]: 10×50/60; p90 rank 90
	// reaches 90 at le=50: 10+40×30/30; p99 rank 99 lies in +Inf: ≥ 50 ms only.
	promBracket(t, b, "p50", 0, 10, 8.3333)
	promBracket(t, b, "p90", 10, 50, 50)
	if q := b.Quantiles[2]; q.Label != "p99" || !q.LowerOnly || q.LowerMs != 50 {
		t.Errorf("p99 %+v", q)
	}
	if r.Requests != 100 || r.Errors["timeout"] != 10 {
		t.Errorf("%d requests, %d timeouts", r.Requests, r.Errors["timeout"])
	}
	// Data after # EOF is malformed (OpenMetrics: the exposition ends there).
	data := "# TYPE x_seconds histogram\nx_seconds_bucket{le=\"1\"} 1\nx_seconds_bucket{le=\"+Inf\"} 1\n# EOF\nx_seconds_bucket{le=\"2\"} 1\n"
	re := run(t, Options{Files: []string{write(t, "e.om", data)}})
	if re.Source.Malformed != 1 || !strings.Contains(re.Source.MalformedSample[0], ":5: data after # EOF") {
		t.Errorf("after EOF: %d %v", re.Source.Malformed, re.Source.MalformedSample)
	}
}

// TestPromOpenMetrics2: testdata/prom-om2.om.txt has OpenMetrics 2.0 composite values
// (prometheus/prometheus model/textparse/testdata/alltypes.om2.txt shows them): a classic
// histogram {count,sum,bucket:[le:count…]} with st@ and an exemplar, a native histogram
// (schema:…, listed, not read), and a UTF-8 name quoted inside the braces with its unit from
// # UNIT (no suffix in the name: request_duration).
func TestPromOpenMetrics2(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/prom-om2.om.txt"}})
	b := r.Buckets
	if r.Source.Malformed != 0 || b.Metric != "request_duration" || r.Requests != 144 {
		t.Fatalf("%d malformed %v; chose %s, %d requests", r.Source.Malformed, r.Source.MalformedSample, b.Metric, r.Requests)
	}
	names := map[string]PromFamily{}
	for _, f := range b.Families {
		names[f.Name] = f
	}
	if f := names["latency_seconds"]; f.Skipped != "a native histogram (not read)" {
		t.Errorf("native %+v", f)
	}
	if f := names["http.server.request.duration"]; !f.Duration || f.UnitFrom != "# UNIT" || f.Observations != 3 || f.Skipped != "" {
		t.Errorf("UTF-8 name %+v", f)
	}
	// Both request-like; request_duration has the most observations (144 > 3). p50 rank 72
	// in (0.2, 0.4]: 0.2+0.2×39/67; p99 rank 142.56 in (0.4, 1]: 0.4+0.6×42.56/44.
	promBracket(t, b, "p50", 200, 400, 316.4179)
	promBracket(t, b, "p99", 400, 1000, 980.3636)
	ru := run(t, Options{Files: []string{"testdata/prom-om2.om.txt"}, Filter: `metric="http.server.request.duration"`})
	if ru.Buckets.Metric != "http.server.request.duration" || ru.Requests != 3 {
		t.Errorf("named UTF-8: %s %d", ru.Buckets.Metric, ru.Requests)
	}
}

// TestPromUnit: the unit of a family from its # UNIT or its name's last word.
func TestPromUnit(t *testing.T) {
	for _, c := range []struct {
		name, om string
		kind     promUnitKind
		d        time.Duration
	}{
		{"http_request_duration_seconds", "", promTimeUnit, time.Second},
		{"http_server_duration_milliseconds", "", promTimeUnit, time.Millisecond},
		{"rpc_latency_ms", "", promTimeUnit, time.Millisecond},
		{"db_query_microseconds", "", promTimeUnit, time.Microsecond},
		{"job_runtime_minutes", "", promTimeUnit, time.Minute},
		{"http_response_size_bytes", "", promOtherUnit, 0},
		{"disk_usage_ratio", "", promOtherUnit, 0},
		{"network_bytes_per_second", "", promOtherUnit, 0}, // a rate, not a time
		{"tsdb_compaction_chunk_samples", "", promNoUnit, 0},
		{"request_duration", "seconds", promTimeUnit, time.Second},
		{"request_duration_seconds", "bytes", promOtherUnit, 0}, // # UNIT decides
	} {
		_, _, d, kind := promUnit(c.name, c.om)
		if kind != c.kind || d != c.d {
			t.Errorf("%s (# UNIT %q): kind %d %v, want %d %v", c.name, c.om, kind, d, c.kind, c.d)
		}
	}
}

// TestPromLine: sample lines as promlex.l / openmetricslex.l read them.
func TestPromLine(t *testing.T) {
	for _, c := range []struct {
		line, name, labels, value, err string
	}{
		{`a_bucket{le="0.1"} 5`, "a_bucket", `le=0.1`, "5", ""},
		{`a_bucket { x = "1" , le="+Inf" , } 5 1700000000`, "a_bucket", `x=1 le=+Inf`, "5", ""},
		{`a_bucket{v="q\"}{,\\",le="1"} 2 # {trace_id="x"} 1.5 17e8`, "a_bucket", `v=q"}{,\ le=1`, "2", ""},
		{`{"my.metric_bucket",le="1"} 3`, "my.metric_bucket", `le=1`, "3", ""},
		{`{"my.metric_bucket","my.label"="v",le="1"} 3`, "my.metric_bucket", `my.label=v le=1`, "3", ""},
		{`x {count:1,sum:2,bucket:[+Inf:1]} st@1.0`, "x", ``, "{count:1,sum:2,bucket:[+Inf:1]}", ""},
		{`x 1`, "x", ``, "1", ""},
		{`a_bucket{le="1" 5`, "", "", "", "col 17"},
		{`a_bucket{le=1} 5`, "", "", "", "value not quoted"},
		{`a_bucket{le="1} 5`, "", "", "", "value not closed"},
		{`a_bucket{le="1"}`, "", "", "", "no value"},
		{`{le="1"} 3`, "", "", "", "no metric name"},
		{`{"a","b"} 3`, "", "", "", "a second metric name"},
	} {
		p, col, err := parsePromLine(c.line)
		if c.err != "" {
			if err == nil || !strings.Contains(fmt.Sprintf("col %d: %v", col, err), c.err) {
				t.Errorf("%s: err col %d %v, want %q", c.line, col, err, c.err)
			}
			continue
		}
		var ls []string
		for _, kv := range p.labels {
			ls = append(ls, kv[0]+"="+kv[1])
		}
		if err != nil || p.name != c.name || strings.Join(ls, " ") != c.labels || p.value != c.value {
			t.Errorf("%s: %q %q %q %v", c.line, p.name, ls, p.value, err)
		}
	}
}

// TestPromCancel: the read honours ctx (Ctrl-C, SIGTERM): an exposition of 20,000 lines
// read under a cancelled context stops with context.Canceled.
func TestPromCancel(t *testing.T) {
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "x_seconds_bucket{i=\"%d\",le=\"1\"} 1\nx_seconds_bucket{i=\"%d\",le=\"+Inf\"} 1\n", i, i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, Options{Files: []string{write(t, "big.prom", b.String())}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestPromDetect: an exposition without # HELP / # TYPE (Prometheus's own
// alltypes.237mfs.nometa.prom.txt starts with a counter) or opening with a quoted UTF-8 name
// or a # UNIT line is still Prometheus; a JSON line is not.
func TestPromDetect(t *testing.T) {
	for in, want := range map[string]Format{
		"go_gc_cycles_total 190932\ngo_goroutines 151\nx_seconds_bucket{le=\"0.1\"} 3\nx_seconds_bucket{le=\"+Inf\"} 4\n": FormatPrometheus,
		"{\"a.b_bucket\",le=\"0.5\"} 2\n{\"a.b_bucket\",le=\"+Inf\"} 3\n":                                                 FormatPrometheus,
		"# UNIT a_seconds seconds\n# TYPE a_seconds histogram\n":                                                          FormatPrometheus,
	} {
		if got, err := Detect([]byte(in)); got != want {
			t.Errorf("%q: %s %v, want %s", in, got, err, want)
		}
	}
	if got, _ := Detect([]byte(`{"msg":"x_bucket{le=\"1\"} 2"}` + "\n")); got == FormatPrometheus {
		t.Errorf("a JSON line read as Prometheus")
	}
}
