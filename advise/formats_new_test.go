package advise

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Regression tests of the new formats on the repository's own minimal files (testdata/*-formats.*),
// each reproducing one trait of the format.

func TestTraefikJSON(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/traefik-json-formats.log"}, By: ByStatus})
	if r.Source.Format != string(FormatTraefik) {
		t.Fatalf("format %q", r.Source.Format)
	}
	// logdata.go: Duration is a time.Duration, so ns in JSON; DownstreamStatus is the client's
	// status; RetryAttempts counts the retry middleware's retries (attempts = retries + 1).
	if r.Requests != 3 || r.Status["200"] != 1 || r.Status["503"] != 1 || r.Status["301"] != 1 {
		t.Fatalf("requests %d status %v", r.Requests, r.Status)
	}
	if !within(r.Phases.Total.MaxMs, 250) || !within(r.Phases.Total.MinMs, 1) {
		t.Errorf("total min %v max %v, want 1 ms and 250 ms", *r.Phases.Total.MinMs, *r.Phases.Total.MaxMs)
	}
	if r.Attempts == nil || r.Attempts.ByCount["3"] != 1 || r.Attempts.ByCount["1"] != 2 {
		t.Errorf("attempts %+v, want one request with 3 attempts and two with 1", r.Attempts)
	}
}

func TestTraefikCLFInCRIPartialLines(t *testing.T) {
	// kubelet parseCRILog: tag P is a partial line, F its last part; the parts are joined on
	// their stream, the stderr line between them notwithstanding.
	r := run(t, Options{Files: []string{"testdata/cri-partial-formats.log"}})
	if r.Source.Format != string(FormatTraefik) {
		t.Fatalf("format %q, want traefik inside CRI", r.Source.Format)
	}
	if r.Requests != 2 || r.Status["200"] != 1 || r.Status["502"] != 1 {
		t.Fatalf("requests %d status %v, want the joined 200 and the 502", r.Requests, r.Status)
	}
	if !within(r.Phases.Total.MaxMs, 40) {
		t.Errorf("max %v, want 40 ms (the joined line's)", *r.Phases.Total.MaxMs)
	}
	// The stderr line is not Traefik's: malformed at its own line number (2).
	if r.Source.Malformed != 1 || len(r.Source.MalformedSample) != 1 || !strings.Contains(r.Source.MalformedSample[0], ":2: ") {
		t.Errorf("malformed %d %q, want line 2", r.Source.Malformed, r.Source.MalformedSample)
	}
	if r.Source.Lines != 4 {
		t.Errorf("lines %d, want the file's 4", r.Source.Lines)
	}
}

func TestTraefikCLFInDockerPartialLines(t *testing.T) {
	// moby jsonfilelog marshalMessage: only the last part of a split message ends in "\n".
	r := run(t, Options{Files: []string{"testdata/docker-partial-formats.log"}})
	if r.Source.Format != string(FormatTraefik) || r.Requests != 2 || r.Source.Malformed != 0 {
		t.Fatalf("format %q requests %d malformed %d %q", r.Source.Format, r.Requests, r.Source.Malformed, r.Source.MalformedSample)
	}
	if !within(r.Phases.Total.MaxMs, 40) || !within(r.Phases.Total.MinMs, 9) {
		t.Errorf("total min %v max %v, want 9 and 40 ms", *r.Phases.Total.MinMs, *r.Phases.Total.MaxMs)
	}
}

func TestUnwrapKeepsLineNumbers(t *testing.T) {
	in := "2024-05-01T10:00:00Z stdout P ab\n2024-05-01T10:00:00Z stdout P cd\n2024-05-01T10:00:00Z stdout F ef\nnot wrapped\n2024-05-01T10:00:00Z stderr F\n2024-05-01T10:00:00Z stdout P tail"
	u := newUnwrapReader(bufioReader(in), containerCRI)
	var out bytes.Buffer
	if _, err := out.ReadFrom(u); err != nil {
		t.Fatal(err)
	}
	// A line whose last part never came is given at the end, after the blank of its part.
	want := "\n\nabcdef\nnot wrapped\n\n\ntail\n"
	if out.String() != want {
		t.Errorf("unwrapped %q, want %q", out.String(), want)
	}
}

func TestCaddy(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/caddy-formats.json"}, By: ByHost})
	if r.Source.Format != string(FormatCaddy) {
		t.Fatalf("format %q", r.Source.Format)
	}
	// logRequest: status 0 is "no response written by us (Go will write 200 to client)"; the
	// tls logger's entry is not a request.
	if r.Requests != 3 || r.Status["200"] != 2 || r.Status["502"] != 1 || r.Source.Malformed != 0 {
		t.Fatalf("requests %d status %v malformed %d", r.Requests, r.Status, r.Source.Malformed)
	}
	if !within(r.Phases.Total.MaxMs, 2500) || !within(r.Phases.Total.MinMs, 0.5) {
		t.Errorf("total min %v max %v, want 0.5 ms and 2.5 s", *r.Phases.Total.MinMs, *r.Phases.Total.MaxMs)
	}
	if len(r.Groups) != 1 || r.Groups[0].Key != "shop.example.test" {
		t.Errorf("groups %+v, want the one host without its port", r.Groups)
	}
}

func TestCaddyDurationFormats(t *testing.T) {
	for _, c := range []struct {
		raw  string
		unit time.Duration
		want time.Duration
	}{
		{"0.017557019", time.Second, 17557019 * time.Nanosecond}, // default: seconds
		{"17557019", time.Nanosecond, 17557019 * time.Nanosecond},
		{"17.557019", time.Millisecond, 17557019 * time.Nanosecond},
		{`"17.557019ms"`, time.Second, 17557019 * time.Nanosecond}, // duration_format string
	} {
		got, err := caddyDuration([]byte(c.raw), c.unit)
		if err != nil || got != c.want {
			t.Errorf("%s in %v: %v, %v; want %v", c.raw, c.unit, got, err, c.want)
		}
	}
	if _, err := caddyDuration([]byte(`-1`), time.Second); err == nil {
		t.Error("a negative duration was read")
	}
}

func TestZipkinTraces(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/zipkin-traces-formats.json"}, By: ByHost})
	if r.Source.Format != string(FormatZipkin) {
		t.Fatalf("format %q", r.Source.Format)
	}
	// A list of traces (GET /api/v2/traces). CLIENT spans only: 120 ms 200, and 2 s with the
	// error tag "Read timed out" (a timeout); the span without a duration is incomplete.
	if r.Requests != 2 || r.Status["200"] != 1 || r.Errors["timeout"] != 1 {
		t.Fatalf("requests %d status %v errors %v", r.Requests, r.Status, r.Errors)
	}
	if r.Source.Malformed != 1 || !strings.Contains(r.Source.MalformedSample[0], "no duration") {
		t.Errorf("malformed %d %q, want the incomplete span", r.Source.Malformed, r.Source.MalformedSample)
	}
	if len(r.Groups) != 1 || r.Groups[0].Key != "payments" {
		t.Errorf("groups %+v, want the service called (remoteEndpoint)", r.Groups)
	}
}

func TestJaegerAPI(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/jaeger-api-formats.json"}, By: ByHost})
	if r.Source.Format != string(FormatJaeger) {
		t.Fatalf("format %q", r.Source.Format)
	}
	// jaeger model/json: duration µs; span.kind client; error tag bool true; http.status_code
	// int64. The client spans: 45 ms 200 to peer.service inventory, 5 s failed.
	if r.Requests != 2 || r.Status["200"] != 1 || r.Errors["other"] != 1 {
		t.Fatalf("requests %d status %v errors %v", r.Requests, r.Status, r.Errors)
	}
	if !within(r.Phases.Total.MaxMs, 45) {
		t.Errorf("max %v, want 45 ms (the failed span has no response)", *r.Phases.Total.MaxMs)
	}
}

func TestJaegerUIFixtureShape(t *testing.T) {
	// The shape of jaegertracing/jaeger model/converter/json/fixtures/ui_01.json: one trace,
	// no span.kind, durations 5 and 4 µs, one span with error=true.
	doc := `{"traceID":"1","spans":[{"traceID":"1","spanID":"2","operationName":"a","references":[],"startTime":1485467191639875,"duration":5,"tags":[],"logs":[],"processID":"p1","warnings":null},` +
		`{"traceID":"1","spanID":"3","operationName":"b","references":[],"startTime":1485467191639875,"duration":4,"tags":[{"key":"error","type":"bool","value":true}],"logs":[],"processID":"p1","warnings":null}],` +
		`"processes":{"p1":{"serviceName":"service-x","tags":[]}},"warnings":["w"]}`
	r := run(t, Options{Files: []string{write(t, "ui.json", doc)}})
	if r.Source.Format != string(FormatJaeger) || r.Requests != 2 || r.Errors["other"] != 1 {
		t.Fatalf("format %q requests %d errors %v", r.Source.Format, r.Requests, r.Errors)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "no span says its kind") {
		t.Errorf("notes %q", r.Notes)
	}
}

func TestW3CUnit(t *testing.T) {
	// WD-logfile-960323 says time-taken is seconds, IIS writes ms: without #Software naming
	// IIS, the unit is asked for, at the #Fields: line.
	_, err := Run(context.Background(), Options{Files: []string{"testdata/w3c-noiis-formats.log"}})
	if err == nil || !strings.Contains(err.Error(), "--unit") || !strings.Contains(err.Error(), ":3:") {
		t.Fatalf("err %v, want the unit asked for at line 3", err)
	}
	r := run(t, Options{Files: []string{"testdata/w3c-noiis-formats.log"}, Unit: "s"})
	if r.Requests != 2 || !within(r.Phases.Total.MaxMs, 1500) || r.Status["500"] != 1 {
		t.Fatalf("requests %d max %v status %v", r.Requests, *r.Phases.Total.MaxMs, r.Status)
	}
	iis := "#Software: Microsoft Internet Information Services 10.0\n#Fields: date time cs-method cs-uri-stem sc-status time-taken\n2024-05-01 10:00:00 GET /a 200 250\n"
	r = run(t, Options{Files: []string{write(t, "u_ex.log", iis)}})
	if !within(r.Phases.Total.MaxMs, 250) {
		t.Errorf("IIS time-taken 250: %v ms, want 250", *r.Phases.Total.MaxMs)
	}
	noTaken := "#Software: Microsoft Internet Information Services 10.0\n#Fields: date time cs-method cs-uri-stem sc-status\n2024-05-01 10:00:00 GET /a 200\n"
	if _, err := Run(context.Background(), Options{Files: []string{write(t, "u_ex2.log", noTaken)}}); err == nil || !strings.Contains(err.Error(), "no time-taken") {
		t.Errorf("a W3C log without time-taken: %v", err)
	}
}

func TestW3CFields(t *testing.T) {
	got, err := w3cFields([]byte(`a "b c" - " ""x"" y " 9`), nil)
	want := []string{"a", "b c", "-", ` "x" y `, "9"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%q %v, want %q", got, err, want)
	}
	if _, err := w3cFields([]byte(`a "b`), nil); err == nil {
		t.Error("an open quote was accepted")
	}
}

func TestApacheD(t *testing.T) {
	// The combined format + %D: Detect cannot tell %D from %T and asks.
	_, err := Run(context.Background(), Options{Files: []string{"testdata/apache-d-formats.log"}})
	if err == nil || !strings.Contains(err.Error(), "--format apache") {
		t.Fatalf("err %v, want --format apache offered", err)
	}
	// mod_log_config: %D is microseconds.
	r := run(t, Options{Files: []string{"testdata/apache-d-formats.log"}, Format: FormatApache})
	if r.Requests != 2 || !within(r.Phases.Total.MinMs, 1.5) || !within(r.Phases.Total.MaxMs, 60000.123) || r.Status["504"] != 1 {
		t.Fatalf("requests %d min %v max %v status %v", r.Requests, *r.Phases.Total.MinMs, *r.Phases.Total.MaxMs, r.Status)
	}
}

func TestCloudflareTimestampFormats(t *testing.T) {
	ok := `{"EdgeStartTimestamp":1712790000100000000,"EdgeEndTimestamp":1712790000123000000,"EdgeResponseStatus":200,"ClientRequestMethod":"GET","ClientRequestHost":"a.test","ClientRequestURI":"/x?y=1","EdgeTimeToFirstByteMs":20}`
	secs := `{"EdgeStartTimestamp":1712790000,"EdgeEndTimestamp":1712790001,"EdgeResponseStatus":200}`
	rfc := `{"EdgeStartTimestamp":"2024-04-10T23:00:00Z","EdgeEndTimestamp":"2024-04-10T23:00:01Z","EdgeResponseStatus":200}`
	// "int or string": unixnano digits quoted (as Elastic's cloudflare_logpush fixtures have
	// them), and an RFC 3339 time with a fraction, are read.
	quoted := `{"EdgeStartTimestamp":"1712790000100000000","EdgeEndTimestamp":"1712790000110000000","EdgeResponseStatus":200}`
	frac := `{"EdgeStartTimestamp":"2024-04-10T23:00:00.100Z","EdgeEndTimestamp":"2024-04-10T23:00:00.105Z","EdgeResponseStatus":200}`
	r := run(t, Options{Files: []string{write(t, "cf.json", ok+"\n"+secs+"\n"+rfc+"\n"+quoted+"\n"+frac+"\n")}})
	if r.Requests != 3 || !within(r.Phases.Total.MinMs, 5) {
		t.Fatalf("requests %d min %v, want 3 records (23, 10 and 5 ms)", r.Requests, *r.Phases.Total.MinMs)
	}
	if r.Requests != 3 || !within(r.Phases.Total.MaxMs, 23) || !within(r.Phases.TTFB.MaxMs, 20) {
		t.Fatalf("requests %d total %v ttfb %v", r.Requests, *r.Phases.Total.MaxMs, *r.Phases.TTFB.MaxMs)
	}
	if r.Source.Malformed != 2 || !strings.Contains(strings.Join(r.Source.MalformedSample, "\n"), "timestamp_format unix)") || !strings.Contains(strings.Join(r.Source.MalformedSample, "\n"), "timestamp_format rfc3339") {
		t.Errorf("malformed %d %q, want the unix and rfc3339 records refused, saying why", r.Source.Malformed, r.Source.MalformedSample)
	}
}

// hlogText is an interval log of 10 values each of values (in ns), one interval per value,
// written by hdrhistogram-go's writer (max column in ms): version, start time, legend,
// intervals.
func hlogText(t testing.TB, values ...int64) string {
	t.Helper()
	var b bytes.Buffer
	w := hdrhistogram.NewHistogramLogWriter(&b)
	if err := w.OutputLogFormatVersion(); err != nil {
		t.Fatal(err)
	}
	if err := w.OutputStartTime(1714557600000); err != nil {
		t.Fatal(err)
	}
	if err := w.OutputLegend(); err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		h := hdrhistogram.New(1, 3_600_000_000_000, 3)
		if err := h.RecordValues(v, 10); err != nil {
			t.Fatal(err)
		}
		h.SetStartTimeMs(int64(i) * 1000)
		h.SetEndTimeMs(int64(i+1) * 1000)
		if err := w.OutputIntervalHistogram(h); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func TestHlogTagsMerged(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(hlogText(t, 2_000_000, 8_000_000)), "\n")
	lines[3], lines[4] = "Tag=A,"+lines[3], "Tag=B,"+lines[4]
	r := run(t, Options{Files: []string{write(t, "tagged.hlog", strings.Join(lines, "\n")+"\n")}})
	if r.Requests != 20 || !within(r.Phases.Total.MaxMs, 8) || !strings.Contains(strings.Join(r.Notes, "\n"), "tagged A, B are merged") {
		t.Fatalf("requests %d max %v notes %q", r.Requests, *r.Phases.Total.MaxMs, r.Notes)
	}
}

// hlogFile writes an interval log with hdrhistogram-go's own writer: values in unit, the max
// column in ms (the writer's default maxValueUnitRatio, 10⁶: the ratio for ns).
func hlogFile(t *testing.T, ratio float64, values ...int64) string {
	t.Helper()
	var b bytes.Buffer
	w := hdrhistogram.NewHistogramLogWriter(&b)
	if err := w.OutputLogFormatVersion(); err != nil {
		t.Fatal(err)
	}
	if err := w.OutputStartTime(1714557600000); err != nil {
		t.Fatal(err)
	}
	if err := w.OutputLegend(); err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		h := hdrhistogram.New(1, 3_600_000_000_000, 3)
		if err := h.RecordValues(v, 10); err != nil {
			t.Fatal(err)
		}
		h.SetStartTimeMs(int64(i) * 1000)
		h.SetEndTimeMs(int64(i+1) * 1000)
		opts := hdrhistogram.DefaultHistogramLogOptions()
		if ratio != 1e6 {
			// The writer takes no other ratio through its options: write the line as it
			// would, with the max column divided by ratio.
			var line bytes.Buffer
			lw := hdrhistogram.NewHistogramLogWriter(&line)
			if err := lw.OutputIntervalHistogramWithLogOptions(h, opts); err != nil {
				t.Fatal(err)
			}
			f := strings.SplitN(line.String(), ",", 4)
			f[2] = strings.TrimRight(strings.TrimRight(strconvFloat(float64(h.Max())/ratio), "0"), ".")
			b.WriteString(strings.Join(f, ","))
			continue
		}
		if err := w.OutputIntervalHistogramWithLogOptions(h, opts); err != nil {
			t.Fatal(err)
		}
	}
	return write(t, "x.hlog", b.String())
}

func TestHlogUnitFromMaxColumn(t *testing.T) {
	// 2 ms recorded in ns, max column in ms (ratio 10⁶): read as 2 ms.
	r := run(t, Options{Files: []string{hlogFile(t, 1e6, 2_000_000, 4_000_000)}})
	if r.Source.Format != string(FormatHlog) || r.Requests != 20 || !within(r.Phases.Total.MaxMs, 4) || r.Source.Unit != "ns" {
		t.Fatalf("format %q requests %d max %v unit %q", r.Source.Format, r.Requests, *r.Phases.Total.MaxMs, r.Source.Unit)
	}
	// 2 ms recorded in µs, max column in ms (ratio 10³).
	r = run(t, Options{Files: []string{hlogFile(t, 1e3, 2_000, 4_000)}})
	if !within(r.Phases.Total.MaxMs, 4) || r.Source.Unit != "µs" {
		t.Fatalf("µs log: max %v unit %q", *r.Phases.Total.MaxMs, r.Source.Unit)
	}
	// A ratio that names no unit: asked for.
	if _, err := Run(context.Background(), Options{Files: []string{hlogFile(t, 37, 2_000, 4_000)}}); err == nil || !strings.Contains(err.Error(), "--unit") {
		t.Fatalf("ratio 37: %v", err)
	}
	r = run(t, Options{Files: []string{hlogFile(t, 37, 2_000, 4_000)}, Unit: "us"})
	if !within(r.Phases.Total.MaxMs, 4) {
		t.Fatalf("--unit us: max %v", *r.Phases.Total.MaxMs)
	}
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

func strconvFloat(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

func TestNginxAfterAStartupLine(t *testing.T) {
	// Detect picks nginx from the lines after a startup warning; the reader takes its
	// log_format from the first line that is one (fromFirstMatch), and the warning is one
	// malformed line.
	log := "nginx: [warn] could not build optimal variables_hash\n" +
		`10.0.0.1 - - [01/May/2024:10:00:00 +0000] "GET /a HTTP/1.1" 200 5 "-" "curl" rt=0.120 uct="0.001" uht="0.1" urt="0.1"` + "\n" +
		`10.0.0.1 - - [01/May/2024:10:00:01 +0000] "GET /a HTTP/1.1" 200 5 "-" "curl" rt=0.130 uct="0.001" uht="0.1" urt="0.1"` + "\n"
	r := run(t, Options{Files: []string{write(t, "access.log", log)}})
	if r.Source.Format != string(FormatNginx) || r.Requests != 2 || r.Source.Malformed != 1 {
		t.Fatalf("format %q requests %d malformed %d", r.Source.Format, r.Requests, r.Source.Malformed)
	}
}

func TestTraefikCLFShapes(t *testing.T) {
	// The shapes Traefik's CommonLogFormatter writes: an absent field is "-" unquoted
	// (toLog's defaultValue), "0ms" is under 1 ms, and a line whose OriginStatus is "-" is
	// Traefik answering itself — not a sample, not malformed. A plain CLF line is malformed.
	log := `10.0.0.1 - - [28/Feb/2018:17:30:33 +0000] "GET /en/ HTTP/2.0" 200 2814 - "Mobile" 13 "Host-a" "http://10.0.0.6:14008" 247ms` + "\n" +
		`::1 - - [29/Nov/2018:15:03:51 +0000] "GET / HTTP/1.1" 404 19 "-" "curl/7.62.0" 10 "backend not found" "/" 0ms` + "\n" +
		`::1 - - [15/Apr/2024:13:04:10 +0000] "GET / HTTP/1.1" - - "-" "-" 27 "-" "-" 0ms` + "\n" +
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /x.gif HTTP/1.0" 200 2326` + "\n"
	r := run(t, Options{Files: []string{write(t, "traefik.log", log)}})
	if r.Source.Format != string(FormatTraefik) || r.Requests != 2 || r.Status["200"] != 1 || r.Status["404"] != 1 || r.Source.Malformed != 1 {
		t.Fatalf("format %q requests %d status %v malformed %d", r.Source.Format, r.Requests, r.Status, r.Source.Malformed)
	}
	if !within(r.Phases.Total.MaxMs, 247) {
		t.Errorf("max %v, want 247 ms", *r.Phases.Total.MaxMs)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), `OriginStatus is "-"`) {
		t.Errorf("notes %q", r.Notes)
	}
}
