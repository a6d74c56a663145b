package advise

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/corpus"
)

// TestPromCorpusAlltypes holds Prometheus's own text-format test scrape
// (prometheus/prometheus model/textparse/testdata/alltypes.237mfs.prom.txt at 8cd9069, the
// server's own /metrics: 237 families, 15 of them histograms) to what the file says.
//
// Before: advise took the alphabetically first histogram (go_gc_heap_allocs_by_size_bytes),
// said it lacked a unit suffix, with --unit s read bytes as seconds, and recorded its
// 44,046,288,803 observations one by one — it never finished and ignored SIGTERM.
func TestPromCorpusAlltypes(t *testing.T) {
	path := corpus.Path(t, "prometheus-alltypes.237mfs.prom.txt")
	r := run(t, Options{Files: []string{path}})
	b := r.Buckets
	if b == nil {
		t.Fatal("no buckets")
	}
	// The file's `# TYPE … histogram` lines name 15 families. Their units are their names'
	// last words (prometheus/docs docs/practices/naming.md: "…SHOULD have a suffix
	// describing the unit, in plural form"; base unit of time: seconds).
	var durations, withObs, notTime, noUnit []string
	for _, f := range b.Families {
		switch {
		case f.Duration:
			durations = append(durations, f.Name)
			if f.Skipped == "" {
				withObs = append(withObs, f.Name)
			}
		case f.Unit != "":
			notTime = append(notTime, f.Name)
		default:
			noUnit = append(noUnit, f.Name)
		}
	}
	if len(b.Families) != 15 {
		t.Errorf("%d families, want the file's 15 histograms", len(b.Families))
	}
	wantDur := []string{"go_gc_pauses_seconds", "go_sched_latencies_seconds", "go_sched_pauses_stopping_gc_seconds",
		"go_sched_pauses_stopping_other_seconds", "go_sched_pauses_total_gc_seconds", "go_sched_pauses_total_other_seconds",
		"prometheus_http_request_duration_seconds", "prometheus_tsdb_compaction_chunk_range_seconds",
		"prometheus_tsdb_compaction_duration_seconds", "prometheus_tsdb_tombstone_cleanup_seconds"}
	if !slices.Equal(durations, wantDur) {
		t.Errorf("durations %v, want %v", durations, wantDur)
	}
	// go_sched_pauses_stopping_other_seconds and go_sched_pauses_total_other_seconds have
	// +Inf 0, prometheus_tsdb_tombstone_cleanup_seconds_bucket{le="+Inf"} 0: no observations.
	if len(withObs) != 7 {
		t.Errorf("durations with observations %v, want 7", withObs)
	}
	// Four _bytes histograms are never latencies; _samples is a countable thing, not a unit.
	if want := []string{"go_gc_heap_allocs_by_size_bytes", "go_gc_heap_frees_by_size_bytes", "prometheus_http_response_size_bytes", "prometheus_tsdb_compaction_chunk_size_bytes"}; !slices.Equal(notTime, want) {
		t.Errorf("not a time %v, want %v", notTime, want)
	}
	if !slices.Equal(noUnit, []string{"prometheus_tsdb_compaction_chunk_samples"}) {
		t.Errorf("no unit %v", noUnit)
	}
	// The rule: the most observations among request-like names. Only
	// prometheus_http_request_duration_seconds speaks of requests; by observations alone
	// go_sched_latencies_seconds (86,726,596) would win.
	if b.Metric != "prometheus_http_request_duration_seconds" || !strings.Contains(b.Choice, "requests") {
		t.Errorf("chose %s (%s)", b.Metric, b.Choice)
	}
	// The sum over its 46 handler series of _bucket{le=…} (awk over the file):
	//   le   0.1       0.2       0.4       1         3         8         20        60        120       +Inf
	//   cum  4371849   4436636   4443364   4444808   4445154   4445222   4445295   4445333   4445344   4445373
	// 4,445,373 observations, 29 of them above le=120 (counted as unanswered within 120 s).
	if b.Observations != 4445373 || r.Requests != 4445373 || r.Errors["timeout"] != 29 || r.Status["200"] != 4445344 {
		t.Errorf("observations %v, requests %d, timeouts %d, 200s %d", b.Observations, r.Requests, r.Errors["timeout"], r.Status["200"])
	}
	// histogram_quantile (prometheus/prometheus promql/quantile.go BucketQuantile: rank =
	// q × 4445373, the first bucket whose count reaches it, linear within it):
	//   p50   rank 2222686.5   in (0, 0.1]:   0.1 × 2222686.5/4371849                   = 50.8409 ms
	//   p90   rank 4000835.7   in (0, 0.1]:   0.1 × 4000835.7/4371849                   = 91.5136 ms
	//   p99   rank 4400919.27  in (0.1, 0.2]: 0.1 + 0.1 × (4400919.27−4371849)/64787    = 144.8705 ms
	//   p99.9 rank 4440927.627 in (0.2, 0.4]: 0.2 + 0.2 × (4440927.627−4436636)/6728    = 327.5753 ms
	want := []struct {
		label        string
		lower, upper float64
		est          float64
	}{{"p50", 0, 100, 50.8409}, {"p90", 0, 100, 91.5136}, {"p99", 100, 200, 144.8705}, {"p99.9", 200, 400, 327.5753}}
	if len(b.Quantiles) != len(want) {
		t.Fatalf("quantiles %+v", b.Quantiles)
	}
	for i, w := range want {
		q := b.Quantiles[i]
		if q.Label != w.label || q.LowerMs != w.lower || q.UpperMs == nil || *q.UpperMs != w.upper || math.Abs(q.EstimateMs-w.est) > 1e-3 {
			t.Errorf("%s: got %+v (upper %v), want (%v, %v] ≈ %v", w.label, q, promDeref(q.UpperMs), w.lower, w.upper, w.est)
		}
	}
	// The timeout rests on the bucket bound: p99.9 in (200, 400] ms → 400 × 1.2 → 500 ms.
	if r.Recommendation.TimeoutMs != 500 {
		t.Errorf("timeout %v, want 500 ms", r.Recommendation.TimeoutMs)
	}
	if r.Source.Lines != 2332 || r.Source.Malformed != 0 || r.Source.Unit != "s" {
		t.Errorf("source %+v", r.Source)
	}
	// Every family is named in the notes, the rule with them.
	if !promHasNote(r.Notes, "15 histograms in the input: advising from prometheus_http_request_duration_seconds (4,445,373 observations)") {
		t.Errorf("notes %q", r.Notes)
	}

	// --unit s cannot make bytes a time, nor change the choice: it is said to be ignored.
	ru := run(t, Options{Files: []string{path}, Unit: "s"})
	if ru.Buckets.Metric != "prometheus_http_request_duration_seconds" || !promHasNote(ru.Notes, "--unit s ignored") {
		t.Errorf("--unit s: %s, notes %q", ru.Buckets.Metric, ru.Notes)
	}
	_, err := Run(context.Background(), Options{Files: []string{path}, Unit: "s", Filter: "metric=go_gc_heap_allocs_by_size_bytes"})
	if err == nil || !strings.Contains(err.Error(), "bytes, not a time") {
		t.Errorf("a _bytes family named: %v", err)
	}
	// --filter names another duration family (PromQL's __name__ spelling).
	rs := run(t, Options{Files: []string{path}, Filter: "__name__=prometheus_tsdb_compaction_duration_seconds"})
	if rs.Buckets.Metric != "prometheus_tsdb_compaction_duration_seconds" || rs.Requests != 183 || rs.Buckets.Choice != "named by --filter" {
		t.Errorf("named: %s, %d requests, %q", rs.Buckets.Metric, rs.Requests, rs.Buckets.Choice)
	}
	// The handler label is the path: without the scrape endpoint /metrics (4,059,092 of
	// the 4,445,373) 386,281 requests are left.
	rp := run(t, Options{Files: []string{path}, Filter: "path!=/metrics"})
	if rp.Requests != 4445373-4059092 {
		t.Errorf("path!=/metrics: %d requests", rp.Requests)
	}
}

func promDeref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func promHasNote(notes []string, s string) bool {
	for _, n := range notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}
