package advise

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// fuzzParse runs one format's parser on arbitrary input: it may reject the input with an
// error, never panic, and every line is counted.
func fuzzParse(f *testing.F, format Format, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), Options{Files: []string{p}, Format: format, Unit: "ms", Workers: 2, By: ByRoute})
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) || errors.Is(err, ErrNoSamples) || err.Error() != "" {
				return
			}
		}
		if r != nil && r.Source.Malformed > r.Source.Lines {
			t.Fatalf("%d malformed of %d lines", r.Source.Malformed, r.Source.Lines)
		}
	})
}

func FuzzNginx(f *testing.F) {
	fuzzParse(f, FormatNginx,
		`1.1.1.1 - - [01/May/2024:00:00:00 +0000] "GET /a HTTP/1.1" 200 1 "-" "ua" rt=0.120 uct="0.001, 0.002" uht="0.1" urt="0.100, 0.2 : 0.3"`+"\n",
		`1.1.1.1 - - [01/May/2024:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "ua" 10 0.004 [default] [] 10.0.0.1:80, 10.0.0.2:80 0, 10 0.000, 0.004 502, 200 abc`+"\n")
}

// FuzzNginxConf: ParseNginxConf (--log-format -[#NAME], an nginx.conf on standard input)
// on arbitrary text and names: it compiles a log_format or says why, never panics; an error
// about a directive names a line of the text; a template compiled reads a line.
func FuzzNginxConf(f *testing.F) {
	f.Add([]byte("http {\n  log_format main '$remote_addr [$time_local] \"$request\" $status';\n  log_format timed '$remote_addr \"$request\" $status '\n                   'rt=$request_time';\n  access_log /x timed;\n}\n"), "")
	f.Add([]byte("log_format 'j' escape=json '{\"t\":\"$request_time\"}';"), "j")
	f.Add([]byte("log_format t '$request_time\nlog_format u;\nhttp { log_format v '$status' }"), "v")
	f.Fuzz(func(t *testing.T, conf []byte, want string) {
		c, err := ParseNginxConf("(stdin)", conf, want)
		if err != nil {
			lines := 1 + bytes.Count(conf, []byte("\n"))
			var line, col int
			if n, _ := fmt.Sscanf(err.Error(), "(stdin):%d:%d:", &line, &col); n == 2 && (line < 1 || line > lines || col < 1) {
				t.Fatalf("%v: line %d of %d", err, line, lines)
			}
			return
		}
		vals := make([][]byte, len(c.t.vars))
		_, _ = c.t.match([]byte(`1.1.1.1 [01/May/2024:00:00:00 +0000] "GET /x HTTP/1.1" 200 rt=0.05`), vals)
	})
}

func FuzzHAR(f *testing.F) {
	fuzzParse(f, FormatHAR, `{"log":{"entries":[{"time":1,"request":{"url":"http://a/b"},"response":{"status":200},"timings":{"connect":5,"ssl":2,"wait":1}}]}}`)
}

func FuzzK6(f *testing.F) {
	fuzzParse(f, FormatK6, `{"metric":"http_req_duration","type":"Point","data":{"time":"2024-05-01T00:00:00Z","value":10,"tags":{"status":"200"}}}`+"\n")
}

func FuzzVegeta(f *testing.F) {
	fuzzParse(f, FormatVegeta, `{"code":200,"timestamp":"2024-05-01T00:00:00Z","latency":1000}`+"\n", "1714521600000000000,200,45000000,0,10,\"\",,,0,GET,http://a/x,\n")
}

func FuzzCurl(f *testing.F) {
	fuzzParse(f, FormatCurl, `{"time_total":0.1,"time_connect":0.01,"response_code":200}`+"\n", "time_total=0.1 http_code=200\n")
}

func FuzzPrometheus(f *testing.F) {
	fuzzParse(f, FormatPrometheus, "x_seconds_bucket{le=\"0.1\"} 1\nx_seconds_bucket{le=\"+Inf\"} 2\n")
}

func FuzzALB(f *testing.F) {
	fuzzParse(f, FormatALB, `https 2024-05-01T00:00:00.123456Z app/lb/abc 1.2.3.4:5 10.0.0.1:80 0.001 0.250 0.000 200 200 100 200 "GET https://a:443/x HTTP/1.1" "ua"`+"\n")
}

func FuzzHAProxy(f *testing.F) {
	fuzzParse(f, FormatHAProxy, `10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 "GET /index.html HTTP/1.1"`+"\n")
}

func FuzzEnvoy(f *testing.F) {
	fuzzParse(f, FormatEnvoy, `[2024-05-01T00:00:00.000Z] "GET /v1/x HTTP/1.1" 200 - 0 100 42 40 "-" "curl/8" "id" "a" "10.0.0.1:80"`+"\n")
}

func FuzzOTLP(f *testing.F) {
	fuzzParse(f, FormatOTLP, `{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":3,"startTimeUnixNano":"1","endTimeUnixNano":"5000000","attributes":[{"key":"http.response.status_code","value":{"intValue":200}}]}]}]}]}`)
}

func FuzzCSV(f *testing.F) {
	fuzzParse(f, FormatCSV, "timestamp,latency_ms,status\n1714521600,12.5,200\n")
}

func FuzzFilter(f *testing.F) {
	for _, s := range []string{"host=a and status<500", "not (path~'^/x' or status=5xx)", "time>=2024-05-01T00:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := ParseFilter(s)
		if err != nil {
			return
		}
		rec := newRecord()
		flt.Match(&rec)
	})
}
