package advise

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/internal/corpus"
)

// The new formats against the real files of the shared corpus (PROVENANCE.md names the
// repository, path and commit of each). Every figure asserted here is read off the file
// itself; the comment beside it cites the upstream source that gives it its meaning.

// within says whether got is want to 1% (HDR histograms keep three significant digits).
func within(got *float64, want float64) bool {
	return got != nil && math.Abs(*got-want) <= 0.01*want+0.001
}

func corpusRun(t *testing.T, name string, o Options) *Result {
	t.Helper()
	o.Files = []string{corpus.Path(t, name)}
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func TestCorpusTraefikCLF(t *testing.T) {
	r := corpusRun(t, "beats-traefik-clf.log", Options{})
	if r.Source.Format != string(FormatTraefik) {
		t.Fatalf("format %q, want traefik (it was misread as nginx combined without timing)", r.Source.Format)
	}
	// traefik pkg/middlewares/accesslog/logger_formatters.go CommonLogFormatter.Format: the
	// status field is OriginStatus and the last field "%dms" is Duration in whole ms. The file's
	// two lines: 304 … 2ms and 304 … 3ms (the second with a broken quote in the router name,
	// which the reader does not need).
	if r.Requests != 2 || r.Status["304"] != 2 || r.Source.Malformed != 0 {
		t.Fatalf("requests %d status %v malformed %d, want 2 × 304, none malformed", r.Requests, r.Status, r.Source.Malformed)
	}
	if tot := r.Phases.Total; !within(tot.MinMs, 2) || !within(tot.MaxMs, 3) {
		t.Errorf("total min %v max %v, want 2 ms and 3 ms", *tot.MinMs, *tot.MaxMs)
	}
}

func TestCorpusCaddy(t *testing.T) {
	r := corpusRun(t, "lnav-caddy.json", Options{})
	if r.Source.Format != string(FormatCaddy) {
		t.Fatalf("format %q, want caddy", r.Source.Format)
	}
	// caddyserver/caddy modules/caddyhttp/server.go logRequest: zap.Duration("duration") in
	// the encoder's default duration_format, seconds (modules/logging/encoders.go:
	// SecondsDurationEncoder). The file's durations: 0.017557019, 0.000724332, 0.024626918,
	// 0.000275783 s, every status 200.
	if r.Requests != 4 || r.Status["200"] != 4 {
		t.Fatalf("requests %d status %v, want 4 × 200", r.Requests, r.Status)
	}
	if tot := r.Phases.Total; !within(tot.MinMs, 0.275783) || !within(tot.MaxMs, 24.626918) {
		t.Errorf("total min %v max %v, want 0.276 ms and 24.6 ms", *tot.MinMs, *tot.MaxMs)
	}
	// The same file with --unit ms would read 17.6 ms as 17.6 µs: the unit is the reader's
	// choice, never guessed from the values.
	r = corpusRun(t, "lnav-caddy.json", Options{Unit: "ms"})
	if tot := r.Phases.Total; !within(tot.MaxMs, 0.024626918) && *tot.MaxMs > 0.1 {
		t.Errorf("--unit ms: max %v ms, want the value read as ms", *tot.MaxMs)
	}
}

func TestCorpusEnvoyInDockerJSON(t *testing.T) {
	r := corpusRun(t, "beats-envoy-docker-json.log", Options{})
	// The line is Emissary's default Envoy format ('ACCESS [%START_TIME%] … %DURATION%
	// %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% …') inside a json-file entry (moby
	// daemon/logger/jsonfilelog marshalMessage; here re-shipped by Filebeat under "message"):
	// 200, %DURATION% 217 ms, upstream service time 216 ms.
	if r.Source.Format != string(FormatEnvoy) || r.Requests != 1 || r.Status["200"] != 1 {
		t.Fatalf("format %q requests %d status %v, want envoy, 1 × 200", r.Source.Format, r.Requests, r.Status)
	}
	if !within(r.Phases.Total.MaxMs, 217) || !within(r.Phases.TTFB.MaxMs, 216) {
		t.Errorf("total %v ttfb %v, want 217 and 216 ms", *r.Phases.Total.MaxMs, *r.Phases.TTFB.MaxMs)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "Docker json-file") {
		t.Errorf("notes %q do not say the lines were unwrapped", r.Notes)
	}
}

func TestCorpusZipkinSkew(t *testing.T) {
	r := corpusRun(t, "zipkin-lens-skew.json", Options{})
	// zipkin2 Span: duration in µs, kind CLIENT|SERVER|… The file holds one CLIENT span
	// (servicea "post", duration 94539), two SERVER spans and one local span: the CLIENT span
	// is the caller's view, and it carries no http.status_code or error tag.
	if r.Source.Format != string(FormatZipkin) || r.Requests != 1 {
		t.Fatalf("format %q requests %d, want zipkin, the 1 CLIENT span", r.Source.Format, r.Requests)
	}
	if !within(r.Phases.Total.MaxMs, 94.539) {
		t.Errorf("total %v ms, want 94.539", *r.Phases.Total.MaxMs)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "no http.status_code and no error tag") {
		t.Errorf("notes %q do not say the status is unknown", r.Notes)
	}
}

func TestCorpusHlogJHiccup(t *testing.T) {
	p := corpus.Path(t, "hdrhistogram-jHiccup-2.0.7S.logV2.hlog")
	r := corpusRun(t, "hdrhistogram-jHiccup-2.0.7S.logV2.hlog", Options{})
	if r.Source.Format != string(FormatHlog) {
		t.Fatalf("format %q, want hlog", r.Source.Format)
	}
	// The oracle is hdrhistogram-go's own HistogramLogReader over the same file: the count of
	// every interval histogram, and the largest max, in ns (jHiccup records ns and writes the
	// max column in ms: maxValueUnitRatio 10⁶, HdrHistogram's HistogramLogWriter default).
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lr := hdrhistogram.NewHistogramLogReader(f)
	var count, maxNs int64
	intervals := 0
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		intervals++
		count += h.TotalCount()
		maxNs = max(maxNs, h.Max())
	}
	if intervals != 62 || r.Requests != count {
		t.Fatalf("requests %d from %d intervals; the library reads %d values in %d intervals", r.Requests, intervals, count, intervals)
	}
	if !within(r.Phases.Total.MaxMs, float64(maxNs)/1e6) {
		t.Errorf("max %v ms, the library's max is %d ns", *r.Phases.Total.MaxMs, maxNs)
	}
	// HiccupMeter (giltene/jHiccup) records the platform's hiccups, not request latencies:
	// the note says so.
	if !strings.Contains(strings.Join(r.Notes, "\n"), "platform hiccups") {
		t.Errorf("notes %q do not say jHiccup's values are hiccups", r.Notes)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "no status, no errors") {
		t.Errorf("notes %q do not say the log has no status", r.Notes)
	}
}

func TestCorpusHAProxySyslogStartingWithProxyStarted(t *testing.T) {
	// The file opens with three "Proxy … started." lines; detection used to read the first
	// line only and refuse it. 13 of its 17 lines are httplog lines (haproxy
	// doc/configuration.txt §8.2.3); the other 4 (3 "started", one SSL handshake failure)
	// are malformed, counted.
	r := corpusRun(t, "lnav-haproxy.log", Options{})
	if r.Source.Format != string(FormatHAProxy) || r.Requests != 13 || r.Source.Malformed != 4 {
		t.Fatalf("format %q requests %d malformed %d, want haproxy, 13, 4", r.Source.Format, r.Requests, r.Source.Malformed)
	}
	b, err := os.ReadFile(corpus.Path(t, "beats-haproxy.log"))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := Detect(b); f != FormatHAProxy {
		t.Errorf("beats-haproxy.log: Detect %q, %v; want haproxy", f, err)
	}
}

func TestCorpusCloudflare(t *testing.T) {
	r := corpusRun(t, "lnav-cloudflare.json", Options{})
	if r.Source.Format != string(FormatCloudflare) {
		t.Fatalf("format %q, want cloudflare", r.Source.Format)
	}
	// cloudflare-docs logs/reference/log-fields/zone/http_requests.md: EdgeStartTimestamp and
	// EdgeEndTimestamp (unixnano here), EdgeResponseStatus. The file: 15 records, 9 × 200,
	// 2 × 403, one each of 204, 401, 404 and 502; the 502 took 300 ms, the fastest 5 ms.
	want := map[string]int64{"200": 9, "204": 1, "401": 1, "403": 2, "404": 1, "502": 1}
	if r.Requests != 15 {
		t.Fatalf("requests %d, want 15", r.Requests)
	}
	for k, v := range want {
		if r.Status[k] != v {
			t.Errorf("status %s: %d, want %d", k, r.Status[k], v)
		}
	}
	if tot := r.Phases.Total; !within(tot.MinMs, 5) || !within(tot.MaxMs, 300) {
		t.Errorf("total min %v max %v, want 5 and 300 ms", *tot.MinMs, *tot.MaxMs)
	}
}

func TestCorpusIISW3C(t *testing.T) {
	r := corpusRun(t, "lnav-iis-w3c.log", Options{})
	if r.Source.Format != string(FormatW3C) {
		t.Fatalf("format %q, want w3c", r.Source.Format)
	}
	// #Fields: … sc-status sc-substatus sc-win32-status TimeTakenMS (IIS Advanced Logging: a
	// column named in ms). The three entries: 200 in 109 ms, 301 in 0 ms, 404 in 359 ms —
	// the third with a quoted sc-substatus holding doubled quotes and spaces.
	if r.Requests != 3 || r.Status["200"] != 1 || r.Status["301"] != 1 || r.Status["404"] != 1 || r.Source.Malformed != 0 {
		t.Fatalf("requests %d status %v malformed %d, want 200, 301, 404", r.Requests, r.Status, r.Source.Malformed)
	}
	if !within(r.Phases.Total.MaxMs, 359) {
		t.Errorf("max %v ms, want 359", *r.Phases.Total.MaxMs)
	}
}

func TestCorpusApacheCombinedHasNoTiming(t *testing.T) {
	b, err := os.ReadFile(corpus.Path(t, "lnav-apache-combined.log"))
	if err != nil {
		t.Fatal(err)
	}
	// httpd mod_log_config: the predefined combined format has no %D or %T.
	_, err = Detect(b)
	if err == nil || !strings.Contains(err.Error(), "no timing field") || strings.Contains(err.Error(), "nginx combined format") {
		t.Fatalf("Detect: %v; want: common/combined has no timing field", err)
	}
}
