package advise

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/verdict"
)

// lognormal draws latencies with p50 80 ms and p99 400 ms (the generator), rounded
// to res.
func lognormal(rng *rand.Rand, n int, res time.Duration) []time.Duration {
	mu, sigma := math.Log(0.080), math.Log(5)/2.3263
	out := make([]time.Duration, n)
	for i := range out {
		s := math.Exp(mu + sigma*rng.NormFloat64())
		d := time.Duration(s * float64(time.Second))
		out[i] = max(d.Round(res), res)
	}
	return out
}

// probeAdvice is what profile.Recommend says for the same samples, recorded the way probe records
// them (an HDR histogram of µs).
func probeAdvice(samples []time.Duration) profile.Recommendation {
	h := hdrhistogram.New(1, 3_600_000_000, 3)
	for _, d := range samples {
		_ = h.RecordValue(d.Microseconds())
	}
	ev := profile.Evidence{Good: profile.HistogramLatencies(h), MaxTimeout: profile.DefaultMaxTimeout,
		Connect: profile.HistogramLatencies(nil), Status: map[string]int64{"200": int64(len(samples))}, Errors: map[string]int64{}}
	return profile.Recommend(ev, profile.Caller{}, profile.RecommendOptions{})
}

func run(t *testing.T, o Options) *Result {
	t.Helper()
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// nginxTimed writes samples as the B1 "timed" log_format (seconds, ms resolution).
func nginxTimed(samples []time.Duration) string {
	var b strings.Builder
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for i, d := range samples {
		ts := t0.Add(time.Duration(i) * time.Second).Format("02/Jan/2006:15:04:05 -0700")
		s := fmt.Sprintf("%.3f", d.Seconds())
		fmt.Fprintf(&b, `10.0.0.%d - - [%s] "GET /users/%d HTTP/1.1" 200 512 "-" "curl/8.5" rt=%s uct="0.001" uht="%s" urt="%s"`+"\n", i%250, ts, i, s, s, s)
	}
	return b.String()
}

func sameAdvice(t *testing.T, got, want profile.Recommendation) {
	t.Helper()
	if got.TimeoutMs != want.TimeoutMs || got.MaxAttempts != want.MaxAttempts || got.BasisMs != want.BasisMs ||
		got.Samples != want.Samples || fmt.Sprint(got.BasisCILowMs, got.BasisCIHighMs) != fmt.Sprint(want.BasisCILowMs, want.BasisCIHighMs) && !ciEqual(got, want) {
		t.Errorf("advice from the log: timeout %v attempts %d basis %v n %d; profile.Recommend on the same samples: timeout %v attempts %d basis %v n %d",
			got.TimeoutMs, got.MaxAttempts, got.BasisMs, got.Samples, want.TimeoutMs, want.MaxAttempts, want.BasisMs, want.Samples)
	}
	if got.Verdict.Level != want.Verdict.Level {
		t.Errorf("verdict %s, probe's %s", got.Verdict.Level, want.Verdict.Level)
	}
}

func ciEqual(a, b profile.Recommendation) bool {
	eq := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return eq(a.BasisCILowMs, b.BasisCILowMs) && eq(a.BasisCIHighMs, b.BasisCIHighMs)
}

// TestNginxEqualsProbe is the "done when": advice from a generated log equals the
// advice probe gives for the same samples, up to the source's resolution (ms).
func TestNginxEqualsProbe(t *testing.T) {
	samples := lognormal(rand.New(rand.NewPCG(1, 2)), 5000, time.Millisecond)
	p := write(t, "access.log", nginxTimed(samples))
	r := run(t, Options{Files: []string{p}})
	sameAdvice(t, r.Recommendation, probeAdvice(samples))
	if r.Source.Format != "nginx" || r.Source.Lines != 5000 || r.Source.Malformed != 0 {
		t.Errorf("source %+v", r.Source)
	}
	if r.Recommendation.Verdict.Level != verdict.Good {
		t.Errorf("verdict %v", r.Recommendation.Verdict)
	}
	if r.Phases.Connect.Count != 5000 || r.Phases.TTFB.Count != 5000 {
		t.Errorf("phases: connect %d ttfb %d", r.Phases.Connect.Count, r.Phases.TTFB.Count)
	}
}

// TestGzipStdinAndParallel: the same log gzipped, on stdin, and on one or four workers gives
// the same result.
func TestGzipStdinAndParallel(t *testing.T) {
	samples := lognormal(rand.New(rand.NewPCG(3, 4)), 30000, time.Millisecond)
	log := nginxTimed(samples)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(log))
	zw.Close()
	plain := run(t, Options{Files: []string{write(t, "a.log", log)}, Workers: 1})
	par := run(t, Options{Files: []string{write(t, "a.log", log)}, Workers: 4})
	gzr := run(t, Options{Files: []string{write(t, "a.log.gz", gz.String())}, Workers: 3})
	stdin := run(t, Options{Files: []string{"-"}, Stdin: bytes.NewReader(gz.Bytes())})
	for name, r := range map[string]*Result{"parallel": par, "gzip": gzr, "stdin": stdin} {
		if r.Histogram != plain.Histogram || r.Recommendation.TimeoutMs != plain.Recommendation.TimeoutMs || r.Source.Lines != plain.Source.Lines {
			t.Errorf("%s differs from one worker on the plain file", name)
		}
	}
	sameAdvice(t, plain.Recommendation, probeAdvice(samples))
}

// TestNginxUpstreamAttempts: comma-separated upstream times are attempts of one request
// (B1); " : " separates internal redirects; "-" upstreams are failures with their status.
func TestNginxUpstreamAttempts(t *testing.T) {
	f := `$remote_addr - [$time_local] "$request" $status $request_time $upstream_addr "$upstream_status" "$upstream_connect_time" "$upstream_response_time"`
	lines := []string{
		`1.1.1.1 - [01/May/2024:00:00:00 +0000] "GET /a HTTP/1.1" 200 0.120 10.0.0.1:80 "200" "0.001" "0.100"`,
		`1.1.1.1 - [01/May/2024:00:00:01 +0000] "GET /a HTTP/1.1" 200 0.320 10.0.0.1:80, 10.0.0.2:80 "502, 200" "0.001, 0.002" "0.200, 0.100"`,
		`1.1.1.1 - [01/May/2024:00:00:02 +0000] "GET /a HTTP/1.1" 200 3.320 10.0.0.1:80, 10.0.0.2:80, 10.0.0.3:80 : 10.0.1.1:80 "504, 504, 200 : 200" "0.001, 0.001, 0.001 : 0.001" "1.000, 1.000, 0.100 : 0.050"`,
		`1.1.1.1 - [01/May/2024:00:00:03 +0000] "GET /a HTTP/1.1" 502 0.000 - "-" "-" "-"`,
		`1.1.1.1 - [01/May/2024:00:00:04 +0000] "GET /static.css HTTP/1.1" 200 0.000 - "-" "-" "-"`,
		`this is not a log line`,
	}
	p := write(t, "up.log", strings.Join(lines, "\n")+"\n")
	r := run(t, Options{Files: []string{p}, LogFormat: f})
	if r.Attempts == nil {
		t.Fatal("no attempts")
	}
	// The 502 with no upstream contacted made no attempt (by count "0"); the self-served
	// 200 is left out. Requests and attempts are counted apart: 4 requests, 7 attempts.
	want := map[string]int64{"0": 1, "1": 1, "2": 1, "4": 1}
	if fmt.Sprint(r.Attempts.ByCount) != fmt.Sprint(want) || r.Attempts.Attempts != 7 || r.Attempts.Requests != 4 {
		t.Errorf("attempts %+v, want by count %v, 7 attempts for 4 requests", r.Attempts, want)
	}
	// Statuses are per request ($status); the two 504 attempts (no $upstream_header_time
	// logged) were nginx's timeouts, passed to the next upstream.
	wantStatus := map[string]int64{"200": 3, "502": 1}
	if fmt.Sprint(r.Status) != fmt.Sprint(wantStatus) || r.Requests != 4 || r.Attempts.Unanswered != 2 {
		t.Errorf("requests %d status %v unanswered attempts %d, want 4, %v, 2", r.Requests, r.Status, r.Attempts.Unanswered, wantStatus)
	}
	if r.Source.Malformed != 1 || !strings.Contains(r.Source.MalformedSample[0], "up.log:6:") {
		t.Errorf("malformed %d %v", r.Source.Malformed, r.Source.MalformedSample)
	}
	// The attempt that answered each request: 100; 100; 50 ms.
	if r.Phases.Total.Count != 3 || math.Abs(*r.Phases.Total.MinMs-50) > 0.05 {
		t.Errorf("total %+v", r.Phases.Total)
	}
}

// TestByRoute groups a mixed log by path template, most-called first.
func TestByRoute(t *testing.T) {
	var b strings.Builder
	paths := []string{"/users/%d", "/users/%d/orders", "/orders/3f2504e0-4f89-11d3-9a0c-0305e82c3301", "/health"}
	counts := []int{50, 30, 20, 10}
	ts := "[01/May/2024:00:00:00 +0000]"
	for k, p := range paths {
		for i := range counts[k] {
			path := p
			if strings.Contains(p, "%d") {
				path = fmt.Sprintf(p, i+1)
			}
			fmt.Fprintf(&b, `1.1.1.1 - - %s "GET %s?x=%d HTTP/1.1" 200 1 "-" "ua" rt=0.010 uct="0.001" uht="0.009" urt="0.010"`+"\n", ts, path, i)
		}
	}
	fmt.Fprintf(&b, `1.1.1.1 - - %s "POST /users HTTP/1.1" 201 1 "-" "ua" rt=0.010 uct="0.001" uht="0.009" urt="0.010"`+"\n", ts)
	r := run(t, Options{Files: []string{write(t, "mixed.log", b.String())}, By: ByRoute})
	var got []string
	for _, g := range r.Groups {
		got = append(got, fmt.Sprintf("%s=%d", g.Key, g.Samples))
	}
	want := "GET /users/{id}=50 GET /users/{id}/orders=30 GET /orders/{id}=20 GET /health=10 POST /users=1"
	if strings.Join(got, " ") != want {
		t.Errorf("groups %s\nwant   %s", strings.Join(got, " "), want)
	}
	if post := r.Groups[4].Result.Recommendation; post.MaxAttempts > 1 && post.TimeoutMs > 0 {
		t.Errorf("POST without an Idempotency-Key got %d attempts", post.MaxAttempts)
	}
	f := run(t, Options{Files: []string{write(t, "mixed.log", b.String())}, Filter: "route='/users/{id}' or path~'^/health'"})
	if f.Requests != 60 {
		t.Errorf("filtered requests %d, want 60", f.Requests)
	}
}

func TestRouteTemplate(t *testing.T) {
	for in, want := range map[string]string{
		"/v1/users/42": "/v1/users/{id}",
		"/orders/3f2504e0-4f89-11d3-9a0c-0305e82c3301/items": "/orders/{id}/items",
		"/blobs/5d41402abc4b2a76b9719d911017c592":            "/blobs/{id}",
		"/charges/ch_3MqL0a2eZvKYlo2C1":                      "/charges/{id}",
		"/reports/2024-05-01?x=1":                            "/reports/{id}",
		"/api/v2/health":                                     "/api/v2/health",
		"/":                                                  "/",
	} {
		if got := RouteTemplate(in); got != want {
			t.Errorf("RouteTemplate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFilter(t *testing.T) {
	rec := newRecord()
	rec.Host, rec.Method, rec.Path, rec.Status, rec.Total = "api.example.com", "GET", "/v1/users/7", 503, 1500*time.Millisecond
	rec.Time = time.Date(2024, 5, 1, 13, 30, 0, 0, time.UTC)
	for expr, want := range map[string]bool{
		"host=api.example.com":                    true,
		"host=API.example.com and method!=POST":   true,
		"status=5xx":                              true,
		"status<500":                              false,
		"not status<500 and duration>1s":          true,
		"duration>=2000":                          false,
		"path~'^/v1/' and route='/v1/users/{id}'": true,
		"time>=2024-05-01T13:00:00Z and time<'2024-05-01 14:00'": true,
		"(status=200 or status=503) and host!=x":                 true,
	} {
		f, err := ParseFilter(expr)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if got := f.Match(&rec); got != want {
			t.Errorf("%s = %v, want %v", expr, got, want)
		}
	}
	for _, bad := range []string{"", "colour=red", "status<5xx", "host<a", "(status=200", "path~'['"} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestPrometheusBrackets: the quantile is reported with its bucket, at the bucket edges and
// in +Inf (B8).
func TestPrometheusBrackets(t *testing.T) {
	expo := func(counts []int) string {
		les := []string{"0.05", "0.1", "0.25", "0.5", "1", "+Inf"}
		var b strings.Builder
		b.WriteString("# HELP http_request_duration_seconds x\n# TYPE http_request_duration_seconds histogram\n")
		c := 0
		for i, le := range les {
			c += counts[i]
			fmt.Fprintf(&b, "http_request_duration_seconds_bucket{handler=\"/q\",le=\"%s\"} %d\n", le, c)
		}
		fmt.Fprintf(&b, "http_request_duration_seconds_sum 1\nhttp_request_duration_seconds_count %d\n", c)
		return b.String()
	}
	// 10,000 observations; exactly 99.9% at or below 0.25 s: p99.9 sits on the 0.25 edge.
	r := run(t, Options{Files: []string{write(t, "m.prom", expo([]int{5000, 3000, 1990, 10, 0, 0}))}})
	b := r.Buckets
	last := b.Quantiles[len(b.Quantiles)-1]
	if last.Label != "p99.9" || last.LowerMs != 100 || last.UpperMs == nil || *last.UpperMs != 250 || math.Abs(last.EstimateMs-250) > 1e-9 {
		t.Errorf("p99.9 at the edge: %+v", last)
	}
	if b := r.Recommendation.BasisMs; b > 250 || b < 249.5 || r.Recommendation.TimeoutMs != 300 {
		t.Errorf("basis %v timeout %v: want the bucket's upper bound 250 ms → 300 ms", r.Recommendation.BasisMs, r.Recommendation.TimeoutMs)
	}
	// One more in the next bucket moves p99.9 into (0.25, 0.5].
	r = run(t, Options{Files: []string{write(t, "m.prom", expo([]int{5000, 3000, 1989, 11, 0, 0}))}})
	if q := r.Buckets.Quantiles[len(r.Buckets.Quantiles)-1]; q.LowerMs != 250 || *q.UpperMs != 500 {
		t.Errorf("p99.9 past the edge: %+v", q)
	}
	// 0.5% above the top bucket: p99.9 lies in +Inf — a lower bound only, no timeout.
	r = run(t, Options{Files: []string{write(t, "m.prom", expo([]int{5000, 3000, 1900, 30, 20, 50}))}})
	q := r.Buckets.Quantiles[len(r.Buckets.Quantiles)-1]
	if !q.LowerOnly || q.LowerMs != 1000 || r.Recommendation.TimeoutMs != 0 || !r.Recommendation.BasisBeyond {
		t.Errorf("+Inf: %+v, timeout %v", q, r.Recommendation.TimeoutMs)
	}
	// Two expositions are a window: the difference.
	a := write(t, "a.prom", expo([]int{100, 0, 0, 0, 0, 0}))
	z := write(t, "b.prom", expo([]int{100, 900, 0, 0, 0, 0}))
	r = run(t, Options{Files: []string{a, z}})
	if r.Requests != 900 || !strings.HasPrefix(r.Buckets.Window, "window") || *r.Buckets.Quantiles[0].UpperMs != 100 {
		t.Errorf("window: %d requests, %s, %+v", r.Requests, r.Buckets.Window, r.Buckets.Quantiles[0])
	}
	// No unit suffix: --unit is needed.
	noUnit := strings.ReplaceAll(expo([]int{1, 1, 1, 1, 1, 1}), "_seconds", "")
	if _, err := Run(context.Background(), Options{Files: []string{write(t, "n.prom", noUnit)}}); err == nil || !strings.Contains(err.Error(), "--unit") {
		t.Errorf("no unit: %v", err)
	}
}

func TestHAR(t *testing.T) {
	har := `{"log": {"version": "1.2", "creator": {"name": "x"}, "entries": [
 {"startedDateTime": "2024-05-01T00:00:00.000Z", "time": 150, "request": {"method": "GET", "url": "https://api.example.com/v1/q"},
  "response": {"status": 200}, "timings": {"blocked": 1, "dns": 5, "connect": 40, "ssl": 25, "send": 1, "wait": 90, "receive": 13}},
 {"startedDateTime": "2024-05-01T00:00:01.000Z", "time": 80, "request": {"method": "GET", "url": "https://api.example.com/v1/q"},
  "response": {"status": 200}, "timings": {"blocked": 0, "dns": -1, "connect": -1, "ssl": -1, "send": 1, "wait": 70, "receive": 9}},
 {"startedDateTime": "2024-05-01T00:00:02.000Z", "time": 0, "request": {"method": "GET", "url": "https://api.example.com/v1/q"},
  "response": {"status": 0, "_error": "net::ERR_CONNECTION_REFUSED"}, "timings": {"send": 0, "wait": 0, "receive": 0}},
 {"startedDateTime": "2024-05-01T00:00:03.000Z", "time": "slow", "request": {}, "response": {}, "timings": {}}
]}}`
	r := run(t, Options{Files: []string{write(t, "s.har", har)}})
	if r.Source.Format != "har" || r.Source.Malformed != 1 || !strings.Contains(r.Source.MalformedSample[0], "s.har:8:") {
		t.Errorf("source %+v", r.Source)
	}
	if c := r.Phases.Connect; c.Count != 1 || math.Abs(*c.MinMs-15) > 0.05 {
		t.Errorf("connect (TCP only, ssl taken out): %+v", c)
	}
	if s := r.Phases.TLS; s.Count != 1 || math.Abs(*s.MinMs-25) > 0.05 {
		t.Errorf("tls %+v", s)
	}
	if r.Errors["refused"] != 1 || r.Phases.Total.Fresh.Count != 1 || r.Phases.Total.Reused.Count != 1 {
		t.Errorf("errors %v total %+v", r.Errors, r.Phases.Total)
	}
	if _, err := Run(context.Background(), Options{Files: []string{write(t, "bad.har", "{\"log\": {\"entries\": [\n{\"time\": 1},\n{\"time\" 2}]}}")}}); err == nil || !strings.Contains(err.Error(), "bad.har:3:") {
		t.Errorf("syntax error: %v", err)
	}
}

func TestK6(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time"},"metric":"http_req_duration"}` + "\n")
	for i, c := range []struct{ blocked, connecting, tls, waiting, duration float64 }{{30, 10, 15, 80, 100}, {0.01, 0, 0, 60, 70}} {
		tags := `{"method":"GET","url":"https://api.example.com/q","name":"https://api.example.com/q","status":"200","expected_response":"true"}`
		tm := fmt.Sprintf("2024-05-01T00:00:0%d.000Z", i)
		for _, m := range []struct {
			n string
			v float64
		}{{"http_reqs", 1}, {"http_req_duration", c.duration}, {"http_req_blocked", c.blocked}, {"http_req_connecting", c.connecting}, {"http_req_tls_handshaking", c.tls}, {"http_req_sending", 0.1}, {"http_req_waiting", c.waiting}, {"http_req_receiving", 1}, {"http_req_failed", 0}} {
			fmt.Fprintf(&b, `{"metric":"%s","type":"Point","data":{"time":"%s","value":%g,"tags":%s}}`+"\n", m.n, tm, m.v, tags)
		}
	}
	r := run(t, Options{Files: []string{write(t, "k6.json", b.String())}})
	if r.Source.Format != "k6" || r.Requests != 2 {
		t.Fatalf("format %s, %d requests", r.Source.Format, r.Requests)
	}
	// Total = blocked + duration (B9): 130 ms and 70.01 ms.
	if tot := r.Phases.Total; *tot.MaxMs < 129.9 || *tot.MaxMs > 130.1 || tot.Fresh.Count != 1 || tot.Reused.Count != 1 {
		t.Errorf("total %+v", tot)
	}
}

func TestVegetaCurlAndOthers(t *testing.T) {
	cases := []struct {
		name, content string
		format        Format
		requests      int64
		maxMs         float64
	}{
		{"vegeta.json", `{"attack":"","seq":0,"code":200,"timestamp":"2024-05-01T00:00:00Z","latency":120000000,"bytes_out":0,"bytes_in":10,"error":"","body":null,"method":"GET","url":"http://a/x"}
{"attack":"","seq":1,"code":0,"timestamp":"2024-05-01T00:00:01Z","latency":30000000000,"bytes_out":0,"bytes_in":0,"error":"Get \"http://a/x\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)","body":null,"method":"GET","url":"http://a/x"}
`, FormatVegeta, 2, 120},
		{"vegeta.csv", "1714521600000000000,200,45000000,0,10,\"\",,,0,GET,http://a/x,\n1714521601000000000,200,55000000,0,10,\"\",,,1,GET,http://a/x,\n", FormatVegeta, 2, 55},
		{"curl.json", `{"time_namelookup":0.004,"time_connect":0.014,"time_appconnect":0.040,"time_pretransfer":0.041,"time_starttransfer":0.141,"time_total":0.150,"response_code":200,"num_connects":1,"num_retries":0,"url_effective":"https://a/x","method":"GET"}
`, FormatCurl, 1, 150},
		{"curl.txt", "time_namelookup=0.004 time_connect=0.014 time_appconnect=0 time_pretransfer=0.015 time_starttransfer=0.100 time_total=0.110 http_code=200\n", FormatCurl, 1, 110},
		{"alb.log", `https 2024-05-01T00:00:00.123456Z app/lb/abc 1.2.3.4:5 10.0.0.1:80 0.001 0.250 0.000 200 200 100 200 "GET https://api.example.com:443/v1/x HTTP/1.1" "ua" ECDHE TLSv1.2 arn "Root=1" "api.example.com" "arn" 0 2024-05-01T00:00:00.000000Z "forward" "-" "-"
https 2024-05-01T00:00:01.123456Z app/lb/abc 1.2.3.4:5 - -1 -1 -1 504 - 100 200 "GET https://api.example.com:443/v1/x HTTP/1.1" "ua" ECDHE TLSv1.2 arn "Root=1" "api.example.com" "arn" 0 2024-05-01T00:00:00.000000Z "forward" "-" "-"
`, FormatALB, 2, 250},
		{"haproxy.log", `Feb  6 12:14:14 localhost haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "GET /index.html HTTP/1.1"
`, FormatHAProxy, 1, 99},
		{"envoy.log", `[2024-05-01T00:00:00.000Z] "GET /v1/x HTTP/1.1" 200 - 0 100 42 40 "-" "curl/8" "id" "api.example.com" "10.0.0.1:80"
`, FormatEnvoy, 1, 42},
		{"otlp.json", `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{},"spans":[{"traceId":"a","spanId":"b","name":"GET","kind":3,"startTimeUnixNano":"1714521600000000000","endTimeUnixNano":"1714521600087000000","attributes":[{"key":"http.request.method","value":{"stringValue":"GET"}},{"key":"http.response.status_code","value":{"intValue":"200"}},{"key":"server.address","value":{"stringValue":"api.example.com"}},{"key":"http.route","value":{"stringValue":"/v1/x"}}],"status":{}}]}]}]}
`, FormatOTLP, 1, 87},
		{"jmeter.csv", "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n1714521600000,210,quote,200,OK,t 1-1,text,true,,10,10,1,1,https://api.example.com/q,200,0,12\n", FormatCSV, 1, 210},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, Options{Files: []string{write(t, c.name, c.content)}})
			if Format(r.Source.Format) != c.format || r.Requests != c.requests || r.Source.Malformed != 0 {
				t.Fatalf("format %s (want %s), %d requests (want %d), %d malformed %v", r.Source.Format, c.format, r.Requests, c.requests, r.Source.Malformed, r.Source.MalformedSample)
			}
			if got := *r.Phases.Total.MaxMs; math.Abs(got-c.maxMs) > c.maxMs/500 {
				t.Errorf("max total %v ms, want %v", got, c.maxMs)
			}
		})
	}
}

// TestProfileRoundTrip: --save writes a probe profile that advise (and probe --merge) reads
// back with the same recommendation.
func TestProfileRoundTrip(t *testing.T) {
	samples := lognormal(rand.New(rand.NewPCG(5, 6)), 3000, time.Millisecond)
	r := run(t, Options{Files: []string{write(t, "a.log", nginxTimed(samples))}})
	p := filepath.Join(t.TempDir(), "profile.json")
	if err := profile.Save(p, r.Profile); err != nil {
		t.Fatal(err)
	}
	loaded, err := profile.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Source == nil || loaded.Source.Format != "nginx" {
		t.Errorf("saved source %+v", loaded.Source)
	}
	back := run(t, Options{Files: []string{p}})
	if back.Recommendation.TimeoutMs != r.Recommendation.TimeoutMs || back.Recommendation.BasisMs != r.Recommendation.BasisMs {
		t.Errorf("profile read back: %v/%v, want %v/%v", back.Recommendation.TimeoutMs, back.Recommendation.BasisMs, r.Recommendation.TimeoutMs, r.Recommendation.BasisMs)
	}
	b, _ := json.Marshal(r)
	if !bytes.Contains(b, []byte(`"schema":"patience/probe/v1"`)) || !bytes.Contains(b, []byte(`"source":{"format":"nginx"`)) {
		t.Errorf("JSON is not the probe schema with source: %.200s", b)
	}
}

func TestInputErrors(t *testing.T) {
	for name, c := range map[string]struct{ content, logFormat, want string }{
		"combined":  {`1.1.1.1 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "ua"` + "\n", "", "no timing field"},
		"unknown":   {"hello world\n", "", "cannot tell the format"},
		"no timing": {"x\n", `$remote_addr $status`, "no timing field"},
		"empty":     {"", "", "empty input"},
	} {
		_, err := Run(context.Background(), Options{Files: []string{write(t, "in.log", c.content)}, LogFormat: c.logFormat})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestNginxConf(t *testing.T) {
	conf := write(t, "nginx.conf", `http {
    log_format main '$remote_addr [$time_local] "$request" $status';
    log_format timed '$remote_addr [$time_local] "$request" $status '
                     'rt=$request_time urt=$upstream_response_time'; # the one in use
    access_log /var/log/nginx/access.log timed;
}`)
	log := write(t, "a.log", `1.1.1.1 [01/May/2024:00:00:00 +0000] "GET /x HTTP/1.1" 200 rt=0.051 urt=0.050`+"\n")
	r := run(t, Options{Files: []string{log}, Format: FormatNginx, LogFormat: conf})
	if r.Requests != 1 || math.Abs(*r.Phases.Total.MaxMs-50) > 0.05 {
		t.Errorf("%d requests, max %v", r.Requests, *r.Phases.Total.MaxMs)
	}
	if _, err := Run(context.Background(), Options{Files: []string{log}, Format: FormatNginx, LogFormat: conf + "#main"}); err == nil {
		t.Error("#main has no timing field but was accepted")
	}
}

// TestWindows: the per-hour p99 shows the bad hour.
func TestWindows(t *testing.T) {
	var b strings.Builder
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 8))
	for h := range 5 {
		scale := 1.0
		if h == 3 {
			scale = 10
		}
		for i, d := range lognormal(rng, 600, time.Millisecond) {
			ts := t0.Add(time.Duration(h)*time.Hour + time.Duration(i)*5*time.Second).Format("02/Jan/2006:15:04:05 -0700")
			s := fmt.Sprintf("%.3f", d.Seconds()*scale)
			fmt.Fprintf(&b, `1.1.1.1 - - [%s] "GET /x HTTP/1.1" 200 1 "-" "ua" rt=%s uct="0.001" uht="%s" urt="%s"`+"\n", ts, s, s, s)
		}
	}
	r := run(t, Options{Files: []string{write(t, "w.log", b.String())}})
	if len(r.Windows) != 5 || len(r.TailMoved) != 1 || !strings.HasPrefix(r.TailMoved[0], "2024-05-01 03:00") {
		t.Errorf("windows %d, tail moved %v", len(r.Windows), r.TailMoved)
	}
	since, _ := ParseTime("2024-05-01 03:00")
	until, _ := ParseTime("2024-05-01 04:00")
	w := run(t, Options{Files: []string{write(t, "w.log", b.String())}, Since: since, Until: until})
	if w.Requests != 600 {
		t.Errorf("--since/--until kept %d requests, want 600", w.Requests)
	}
}

// TestManyRoutesDeterministic: with more routes (2,000) than are tracked (maxGroups), which ones fold into
// "(other)" does not depend on how many workers read the file or which took which chunk.
//
// The groups are compared as the reader leaves them (key and samples of every group), not
// through Run with --top 600: building a result per group (500 of them, three times) cost
// 52 s of this test's 52 s without -race and 557 s under -race on a loaded machine, and
// rendering groups is not what this test is about. One Run at the end checks that the
// result folds what it does not show into "(other: N groups)" with every sample counted.
func TestManyRoutesDeterministic(t *testing.T) {
	word := func(n int) string {
		b := []byte{}
		for i := 0; i < 4; i++ {
			b = append(b, byte('a'+n%26))
			n /= 26
		}
		return string(b)
	}
	var b strings.Builder
	ts := "[01/May/2024:00:00:00 +0000]"
	for rep := 0; rep < 6; rep++ {
		for i := 0; i < 2000; i++ {
			fmt.Fprintf(&b, `1.1.1.1 - - %s "GET /r/%s HTTP/1.1" 200 1 "-" "ua" rt=0.0%02d uct="0.001" uht="0.009" urt="0.010"`+"\n", ts, word(i), (i+rep)%90+10)
		}
	}
	p := write(t, "routes.log", b.String())
	if b.Len() < 1<<20+1<<18 {
		t.Fatalf("log of %d bytes: want several 1 MiB chunks", b.Len())
	}
	key := func(workers int) string {
		t.Helper()
		r := &reader{opts: Options{Files: []string{p}, Format: FormatAuto, By: ByRoute, Window: time.Hour, Workers: workers}}
		a, err := r.readAll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]string, 0, len(a.groups))
		for k := range a.groups {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var s strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&s, "%s=%d ", k, a.groups[k].requests)
		}
		return s.String()
	}
	want := key(1)
	if n := strings.Count(want, "GET /r/"); n > maxGroups || strings.Count(want, "=6 ") != n || !strings.Contains(want, "(other)=") {
		t.Fatalf("2000 routes: want at most %d tracked, each with all 6 samples, the rest in (other); got %d groups: %.200s…", maxGroups, n, want)
	}
	for i := 0; i < 2; i++ {
		if got := key(4); got != want {
			t.Fatalf("run %d on 4 workers kept other groups than 1 worker", i)
		}
	}
	r := run(t, Options{Files: []string{p}, By: ByRoute, Top: 3, Workers: 4})
	var shown int64
	for _, g := range r.Groups[:len(r.Groups)-1] {
		shown += g.Samples
	}
	last := r.Groups[len(r.Groups)-1]
	// The reader's "(other)" (1,500 routes × 6) is the largest group and takes one of the
	// three places: it is folded with the rest, and the result shows two routes and "(other)".
	folded := strings.Count(want, "=") - (len(r.Groups) - 1)
	if len(r.Groups) != 3 || last.Key != fmt.Sprintf("(other: %d groups)", folded) || shown != 12 || last.Samples != 12000-12 {
		t.Errorf("--top 3: %d groups, the last %q with %d samples (shown %d), want 2 routes of 6 and (other: %d groups) holding the rest of 12000", len(r.Groups), last.Key, last.Samples, shown, folded)
	}
}
