package advise

import (
	"strings"
	"testing"
)

func TestDetectFromASample(t *testing.T) {
	haproxy := `Feb 25 16:19:49 lb haproxy[7]: 10.0.0.1:53332 [25/Feb/2019:16:19:48.143] fe~ be/srv 0/0/7/1457/1487 200 11394 - - ---- 2/1/0/0/0 0/0 "GET /a HTTP/1.1"` + "\n"
	traefik := `10.0.0.1 - - [02/Oct/2017:20:22:07 +0000] "GET /a HTTP/1.1" 304 0 "-" "curl/8" 262 "r" "http://10.0.0.2:80" 2ms` + "\n"
	hlogBody := strings.SplitN(hlogText(t, 2_000_000), "\n", 4)[3]
	combined := `192.0.2.1 - - [20/Jul/2009:22:59:26 +0000] "GET /x HTTP/1.0" 200 134 "-" "gPXE/0.9.7"` + "\n"
	for _, c := range []struct {
		name, in string
		want     Format
		err      string // a part of the error; "" for none
		noFormat bool   // the error must not offer --format
	}{
		{"haproxy after Proxy started lines", "Feb 25 16:19:38 lb haproxy[1]: Proxy fe started.\nFeb 25 16:19:38 lb haproxy[1]: Proxy be started.\n" + strings.Repeat(haproxy, 3), FormatHAProxy, "", false},
		{"the format most lines match", traefik + strings.Repeat(haproxy, 2), FormatHAProxy, "", false},
		{"traefik CLF", traefik + traefik, FormatTraefik, "", false},
		{"combined without timing", combined + combined, "", "no timing field", true},
		{"combined + an integer", strings.Repeat(strings.TrimSuffix(combined, "\n")+" 1234\n", 2), "", "--format apache", false},
		{"a README", "# patience\n\nMeasured, not folklore.\nRun it.\n", "", "cannot tell the format", true},
		{"unknown JSON", `{"hello":"world"}` + "\n", "", "JSON, but not a format advise knows", true},
		{"W3C", "#Software: Microsoft Internet Information Services 10.0\n#Version: 1.0\n#Fields: date time sc-status time-taken\n2024-05-01 10:00:00 200 5\n", FormatW3C, "", false},
		{"hlog without header", hlogBody, FormatHlog, "", false},
		{"zipkin", `[{"traceId":"a","id":"b","kind":"CLIENT","timestamp":1,"duration":2}]`, FormatZipkin, "", false},
		{"jaeger", `{"data":[{"traceID":"a","spans":[{"spanID":"b","operationName":"x","startTime":1,"duration":2}]}]}`, FormatJaeger, "", false},
		{"caddy", `{"level":"info","logger":"http.log.access","msg":"handled request","request":{"method":"GET"},"duration":0.1,"status":200}` + "\n", FormatCaddy, "", false},
		{"cloudflare", `{"EdgeStartTimestamp":1,"EdgeEndTimestamp":2,"EdgeResponseStatus":200}` + "\n", FormatCloudflare, "", false},
		{"traefik JSON", `{"Duration":1,"DownstreamStatus":200,"RequestMethod":"GET"}` + "\n", FormatTraefik, "", false},
		{"k6 JSON lines still", `{"metric":"http_req_duration","type":"Point","data":{"value":1}}` + "\n" + `{"metric":"http_req_duration","type":"Point","data":{"value":1}}` + "\n", FormatK6, "", false},
		{"CSV header", "timestamp,latency_ms,status\n1,2,200\n", FormatCSV, "", false},
		{"OTLP metrics JSON: bucketed, read by the Prometheus finisher", `{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"gen_ai.client.operation.duration","unit":"s","histogram":{"dataPoints":[]}}]}]}]}`, FormatPrometheus, "", false},
		{"GenAI scrape", "# TYPE gen_ai_server_time_to_first_token_seconds histogram\ngen_ai_server_time_to_first_token_seconds_bucket{le=\"+Inf\"} 1\n", FormatPrometheus, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Detect([]byte(c.in))
			if c.err == "" {
				if err != nil || got != c.want {
					t.Fatalf("Detect: %q, %v; want %q", got, err, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("Detect: %q, %v; want an error with %q", got, err, c.err)
			}
			if c.noFormat && strings.Contains(err.Error(), "give --format") {
				t.Errorf("%v: offers --format where no value would help", err)
			}
		})
	}
}

func TestDetectContainer(t *testing.T) {
	for _, c := range []struct {
		in   string
		want containerKind
	}{
		{`{"log":"x\n","stream":"stdout","time":"2024-05-01T10:00:00.1Z"}` + "\n", containerDocker},
		{"2016-10-06T00:17:09.669794202Z stdout F x\n2016-10-06T00:17:09.669794203Z stderr P y\n", containerCRI},
		{`{"log":{"entries":[]}}`, containerNone},
		{"2016-10-06 stdout F x\n", containerNone},
		{"plain line\n", containerNone},
	} {
		if got := detectContainer([]byte(c.in)); got != c.want {
			t.Errorf("%q: %v, want %v", c.in, got, c.want)
		}
	}
}
