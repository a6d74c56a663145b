package advise

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPromText runs the Prometheus / OpenMetrics text reader on arbitrary input: a line is
// parsed or refused with a column inside it (never a panic), and the whole exposition
// through Run counts every malformed line among the lines read (fuzzParse).
func FuzzPromText(f *testing.F) {
	seeds := []string{
		"# TYPE a_seconds histogram\na_seconds_bucket{le=\"0.1\"} 1\na_seconds_bucket{le=\"+Inf\"} 2\n",
		"# TYPE r_ms histogram\n# UNIT r_ms milliseconds\nr_ms_bucket{m=\"get\",le=\"10.0\"} 6 # {trace_id=\"a\"} 7.5 1.7e9\nr_ms_bucket{m=\"get\",le=\"+Inf\"} 9 17\nr_ms_created{m=\"get\"} 1.7e9\n# EOF\n",
		"# TYPE q gaugehistogram\nq_bucket{le=\"1\"} 5\nq_bucket{le=\"+Inf\"} 7\nq_gcount 7\nq_gsum 9.5\n",
		"# TYPE d histogram\n# UNIT d seconds\nd {count:3,sum:1,bucket:[0.5:2,+Inf:3]} st@1.0 # {t=\"x\"} 0.9 1.0\nn {count:5,sum:1,schema:0,zero_threshold:0.001,zero_count:2,positive_spans:[0:3],positive_buckets:[1,1,-1]}\n",
		"{\"a.b_bucket\",\"x.y\"=\"v\\\"}\",le=\"1\"} 1\n{\"a.b_bucket\",le=\"+Inf\"} 1\n",
		"a_seconds_bucket{le=\"1\" 5\na_seconds_bucket{le=1} 5\n",
		"a_bytes_bucket{le=\"1\"} 4e10\na_bytes_bucket{le=\"+Inf\"} 4e10\nb_seconds_bucket{le=\"-1\"} 1\nb_seconds_bucket{le=\"+Inf\"} 2\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, l := range strings.Split(string(data), "\n") {
			l = strings.TrimSpace(l)
			if l == "" || l[0] == '#' {
				continue
			}
			p, col, err := parsePromLine(l)
			if err != nil {
				if col < 1 || col > len(l)+1 {
					t.Fatalf("%q: error %v at col %d outside the line", l, err, col)
				}
				continue
			}
			if p.name == "" || p.value == "" {
				t.Fatalf("%q: parsed without a name or a value: %+v", l, p)
			}
		}
		file := filepath.Join(t.TempDir(), "m.prom")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), Options{Files: []string{file}, Format: FormatPrometheus, Unit: "ms", By: ByRoute})
		if err == nil && r.Source.Malformed > r.Source.Lines {
			t.Fatalf("%d malformed of %d lines", r.Source.Malformed, r.Source.Lines)
		}
	})
}

// FuzzOTLPMetrics runs the OTLP metrics JSON reader on arbitrary input: an error names the
// file (never a panic), and a result has every GenAI phase bracketed and no more malformed
// points than lines.
func FuzzOTLPMetrics(f *testing.F) {
	gen, err := os.ReadFile("testdata/genai-otlp-formats.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(gen)
	f.Add([]byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"gen_ai.server.time_to_first_token","unit":"s","histogram":{"aggregationTemporality":1,"dataPoints":[{"attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"m"}}],"bucketCounts":["1","2"],"explicitBounds":[0.5]}]}},{"name":"gen_ai.client.operation.duration","unit":"s","histogram":{"dataPoints":[{"bucketCounts":[3,0],"explicitBounds":[1]}]}}]}]}]}`))
	f.Add([]byte(`{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"a","unit":"ms","histogram":{"dataPoints":[{"bucketCounts":["1"],"explicitBounds":[2,1]}]}}]}]}]}` + "\n" + `{"resourceMetrics":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "m.json")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), Options{Files: []string{file}, Format: FormatPrometheus, By: ByModel})
		if err != nil {
			if !strings.Contains(err.Error(), "m.json") && !strings.Contains(err.Error(), "histogram") && !strings.Contains(err.Error(), "GenAI") {
				t.Fatalf("an error that names neither the file nor what is missing: %v", err)
			}
			return
		}
		if r.Source.Malformed > r.Source.Lines {
			t.Fatalf("%d malformed of %d lines", r.Source.Malformed, r.Source.Lines)
		}
		for _, ph := range r.Buckets.Phases {
			if len(ph.Quantiles) == 0 {
				t.Fatalf("phase %s without brackets", ph.Phase)
			}
		}
	})
}
