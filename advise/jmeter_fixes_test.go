package advise

import (
	"math"
	"testing"

	"github.com/patience-dev/patience/internal/corpus"
)

// TestJMeterLatencyZeroNotMeasured reads advise/testdata/jmeter-latency-zero-fixes.csv
// (written for this test) in JMeter's CSV columns (apache/jmeter CSVSaveService.java:
// CSV_LATENCY "Latency", CSV_CONNECT_TIME "Connect", CSV_URL "URL"). SampleResult.java starts
// latency and connectTime at 0 and sets them only in latencyEnd()/connectEnd(), so the
// refused connect and the Java Request sample (Latency 0) have no time to first byte: only
// the 95 and 110 ms rows are TTFBs. The Java Request's URL is "null" (CSVSaveService appends
// sample.getURL(), null): its label names it.
func TestJMeterLatencyZeroNotMeasured(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/jmeter-latency-zero-fixes.csv"}, By: ByRoute})
	if r.Requests != 4 || r.Errors["refused"] != 1 {
		t.Fatalf("requests %d errors %v: want 4, the ConnectException refused", r.Requests, r.Errors)
	}
	if ttfb := r.Phases.TTFB; ttfb == nil || ttfb.Count != 2 || math.Abs(*ttfb.MinMs-95) > 0.1 {
		t.Fatalf("ttfb %+v: want the two measured latencies, 95 and 110 ms", ttfb)
	}
	keys := map[string]bool{}
	for _, g := range r.Groups {
		keys[g.Key] = true
	}
	if !keys["? JR-OK"] || keys["? null"] {
		t.Errorf("groups %v: want the Java Request grouped by its label, not by \"null\"", keys)
	}
}

// TestCorpusJMeterLatencyZero: apache/jmeter bin/testfiles/HTMLReportTestFile.csv has
// Latency 0 and Connect 0 on all 255 rows (Java Request samples, URL null): no TTFB was
// measured. It reported 255 TTFBs of 0 ms.
func TestCorpusJMeterLatencyZero(t *testing.T) {
	r := run(t, Options{Files: []string{corpus.Path(t, "jmeter-HTMLReportTestFile.csv")}})
	if r.Requests != 255 || r.Status["200"] != 252 || r.Status["400"] != 3 {
		t.Fatalf("requests %d status %v: want 255 (252 × 200, 3 × 400)", r.Requests, r.Status)
	}
	if ttfb := r.Phases.TTFB; ttfb != nil && ttfb.Count != 0 {
		t.Errorf("ttfb count %d, want 0: Latency 0 is not measured", ttfb.Count)
	}
	if r.Phases.Total.Count != 255 {
		t.Errorf("total count %d, want 255 (elapsed)", r.Phases.Total.Count)
	}
}
