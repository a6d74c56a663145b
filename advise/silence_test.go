package advise

import (
	"math"
	"strings"
	"testing"

	"github.com/patience-dev/patience/profile"
)

// TestSilenceFromLogs: a log gives the silence phase only where its fields bound a
// response's longest silence (docs/formats.md, "The read timeout from a log"), and elsewhere
// says the read timeout cannot be derived from it — never a guess.
func TestSilenceFromLogs(t *testing.T) {
	const timed = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`
	for _, tc := range []struct {
		name, file, content, logFormat string
		// silence is the longest silence of each response, in ms, in log order (nil: none).
		silence []float64
		note    string
	}{
		{
			name: "nginx timed: max(header − connect, response − header)",
			file: "timed.log", logFormat: timed,
			// 1: header 0.090 after a 0.010 connect: waited 80 ms, then the body 0.020 → 80.
			// 2: no connect logged: the header time (90 ms) bounds the wait, body 0.200 → 200.
			// 3: a 504 nginx timed out (no header): unanswered, no silence.
			content: `10.0.0.1 - - [01/May/2024:00:00:00 +0000] "GET /a HTTP/1.1" 200 10 "-" "ua" rt=0.111 uct="0.010" uht="0.090" urt="0.110"
10.0.0.1 - - [01/May/2024:00:00:01 +0000] "GET /a HTTP/1.1" 200 10 "-" "ua" rt=0.291 uct="-" uht="0.090" urt="0.290"
10.0.0.1 - - [01/May/2024:00:00:02 +0000] "GET /a HTTP/1.1" 504 10 "-" "ua" rt=60.001 uct="0.010" uht="-" urt="60.000"
`,
			silence: []float64{80, 200}, note: "silence is at most max($upstream_header_time − $upstream_connect_time",
		},
		{
			name: "ALB: target_processing_time is the wait for the first byte",
			file: "alb.log",
			content: `https 2024-05-01T00:00:00.123456Z app/lb/abc 1.2.3.4:5 10.0.0.1:80 0.001 0.250 0.000 200 200 100 200 "GET https://api.example.com:443/v1/x HTTP/1.1" "ua" ECDHE TLSv1.2 arn "Root=1" "api.example.com" "arn" 0 2024-05-01T00:00:00.000000Z "forward" "-" "-"
`,
			silence: []float64{250}, note: "ALB: silence is target_processing_time",
		},
		{
			name: "HAR: max(wait, receive)",
			file: "s.har",
			content: `{"log": {"version": "1.2", "creator": {"name": "x"}, "entries": [
 {"startedDateTime": "2024-05-01T00:00:00.000Z", "time": 150, "request": {"method": "GET", "url": "https://api.example.com/v1/q"},
  "response": {"status": 200}, "timings": {"blocked": 1, "dns": 5, "connect": 40, "ssl": 25, "send": 1, "wait": 90, "receive": 13}},
 {"startedDateTime": "2024-05-01T00:00:01.000Z", "time": 400, "request": {"method": "GET", "url": "https://api.example.com/v1/q"},
  "response": {"status": 200}, "timings": {"blocked": 0, "dns": -1, "connect": -1, "ssl": -1, "send": 1, "wait": 70, "receive": 329}}
]}}`,
			silence: []float64{90, 329}, note: "HAR: silence is at most max(wait, receive)",
		},
		{
			name: "HAProxy httplog: max(Tr, Td)",
			file: "haproxy.log",
			// 10/0/30/69/209: Tr 69 ms; Td = 209 − (10 + 0 + 30 + 69) = 100 ms.
			content: `Feb  6 12:14:14 localhost haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/209 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "GET /index.html HTTP/1.1"
`,
			silence: []float64{100}, note: "HAProxy: silence is at most max(Tr, Td)",
		},
		{
			name: "curl -w: max(starttransfer − pretransfer, total − starttransfer)",
			file: "curl.json",
			content: `{"time_namelookup":0.004,"time_connect":0.014,"time_appconnect":0.040,"time_pretransfer":0.041,"time_starttransfer":0.141,"time_total":0.150,"response_code":200,"num_connects":1,"num_retries":0,"url_effective":"https://a/x","method":"GET"}
`,
			silence: []float64{100}, note: "curl: silence is at most max(time_starttransfer − time_pretransfer",
		},
		{
			name: "k6: max(http_req_waiting, http_req_receiving)",
			file: "k6.json",
			content: `{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time"},"metric":"http_req_duration"}
{"metric":"http_req_duration","type":"Point","data":{"time":"2024-05-01T00:00:00.000Z","value":300,"tags":{"method":"GET","url":"https://a/q","status":"200"}}}
{"metric":"http_req_waiting","type":"Point","data":{"time":"2024-05-01T00:00:00.000Z","value":80,"tags":{"method":"GET","url":"https://a/q","status":"200"}}}
{"metric":"http_req_receiving","type":"Point","data":{"time":"2024-05-01T00:00:00.000Z","value":219,"tags":{"method":"GET","url":"https://a/q","status":"200"}}}
`,
			silence: []float64{219}, note: "k6: silence is at most max(http_req_waiting, http_req_receiving)",
		},
		{
			name: "ingress-nginx upstreaminfo: no header time, not derivable",
			file: "up.log",
			content: `10.0.0.1 - - [01/May/2024:00:00:00 +0000] "GET /a HTTP/1.1" 200 10 "-" "ua" 100 0.111 [default-web-80] [] 10.1.0.1:80 10 0.110 200 abc
`,
		},
		{
			name: "Envoy: the upstream time is no wait after the request went out",
			file: "envoy.log",
			content: `[2024-05-01T00:00:00.000Z] "GET /v1/x HTTP/1.1" 200 - 0 100 42 40 "-" "curl/8" "id" "api.example.com" "10.0.0.1:80"
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, Options{Files: []string{write(t, tc.file, tc.content)}, LogFormat: tc.logFormat})
			s, rec := r.Phases.Silence, r.Recommendation
			all := strings.Join(rec.Derivation, "\n")
			if r.Source.Malformed != 0 || r.Requests == 0 {
				t.Fatalf("%d requests, %d malformed %v", r.Requests, r.Source.Malformed, r.Source.MalformedSample)
			}
			if len(tc.silence) == 0 {
				if s.Count != 0 || rec.ReadTimeoutMs != nil || !strings.Contains(all, profile.NoSilenceMeasured) {
					t.Errorf("silence %+v, read %v: want none, and the derivation saying so\n%s", s, rec.ReadTimeoutMs, all)
				}
				return
			}
			lo, hi := bounds(tc.silence)
			// HDR keeps 3 significant digits: a value reads back within 0.1%.
			if s.Count != int64(len(tc.silence)) || math.Abs(*s.MinMs-lo) > lo/500 || math.Abs(*s.MaxMs-hi) > hi/500 {
				t.Errorf("silence %+v (min %v max %v): want %v", s, *s.MinMs, *s.MaxMs, tc.silence)
			}
			if rec.ReadTimeoutMs == nil || *rec.ReadTimeoutMs > rec.TimeoutMs {
				t.Errorf("read %v, total %g: want a read timeout, at most the total\n%s", rec.ReadTimeoutMs, rec.TimeoutMs, all)
			}
			if !strings.Contains(strings.Join(r.Notes, "\n"), tc.note) {
				t.Errorf("notes %q lack %q", r.Notes, tc.note)
			}
		})
	}
}

func bounds(v []float64) (lo, hi float64) {
	lo, hi = v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}
