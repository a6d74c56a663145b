package advise

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fuzz targets of the readers added for issue 23's formats: each may reject its input with an
// error, never panic, and never count more malformed lines than it read (fuzzParse).

func FuzzTraefik(f *testing.F) {
	fuzzParse(f, FormatTraefik,
		`10.0.0.1 - - [02/Oct/2017:20:22:07 +0000] "GET /a HTTP/1.1" 304 0 "-" "curl/8" 262 "r" "http://10.0.0.2:80" 2ms`+"\n",
		`{"Duration":12500000,"OriginStatus":200,"DownstreamStatus":200,"RequestMethod":"GET","RequestPath":"/a","RetryAttempts":1,"StartUTC":"2024-05-01T10:00:00Z"}`+"\n")
}

func FuzzCaddy(f *testing.F) {
	fuzzParse(f, FormatCaddy, `{"ts":1714557600.5,"logger":"http.log.access","msg":"handled request","request":{"method":"GET","host":"a:1","uri":"/x"},"duration":0.125,"status":0}`+"\n",
		`{"request":{"uri":"/"},"duration":"1.5ms","status":200,"ts":"2024-05-01T10:00:00Z"}`+"\n")
}

func FuzzApache(f *testing.F) {
	fuzzParse(f, FormatApache, `192.0.2.1 - - [01/May/2024:10:00:00 +0000] "GET / HTTP/1.1" 200 512 "-" "curl/8.5" 1500`+"\n")
}

func FuzzW3C(f *testing.F) {
	fuzzParse(f, FormatW3C, "#Software: Microsoft Internet Information Services 10.0\n#Fields: date time cs-method cs-uri-stem sc-status time-taken\n2024-05-01 10:00:00 GET /a 200 250\n",
		"#Fields: x TimeTakenMS sc-status\n\"a \"\"b\"\"\" 5 200\n")
}

func FuzzCloudflare(f *testing.F) {
	fuzzParse(f, FormatCloudflare, `{"EdgeStartTimestamp":1712790000100000000,"EdgeEndTimestamp":1712790000123000000,"EdgeResponseStatus":200,"ClientRequestURI":"/x","EdgeTimeToFirstByteMs":3}`+"\n")
}

func FuzzZipkin(f *testing.F) {
	fuzzParse(f, FormatZipkin, `[[{"traceId":"a","id":"b","kind":"CLIENT","timestamp":1714557600000000,"duration":2000,"tags":{"http.status_code":"200","error":"x"},"remoteEndpoint":{"serviceName":"s"}}]]`)
}

func FuzzJaeger(f *testing.F) {
	fuzzParse(f, FormatJaeger, `{"data":[{"traceID":"a","spans":[{"spanID":"b","operationName":"x","startTime":1,"duration":2,"tags":[{"key":"span.kind","type":"string","value":"client"},{"key":"http.status_code","type":"int64","value":200}],"processID":"p"}],"processes":{"p":{"serviceName":"s"}}}]}`)
}

func FuzzHlog(f *testing.F) {
	f.Add([]byte(hlogText(f, 2_000_000, 3_000_000)))
	f.Add([]byte("Tag=A," + strings.SplitN(hlogText(f, 5_000), "\n", 4)[3]))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "in.hlog")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), Options{Files: []string{p}, Format: FormatHlog})
		if err == nil && r.Source.Malformed > r.Source.Lines {
			t.Fatalf("%d malformed of %d lines", r.Source.Malformed, r.Source.Lines)
		}
	})
}

// FuzzUnwrap: the container unwrapping gives one inner line per outer line (one more at most,
// for a line whose last part never came per stream), and never panics.
func FuzzUnwrap(f *testing.F) {
	f.Add([]byte("2016-10-06T00:17:09.669794202Z stdout P a\n2016-10-06T00:17:09.669794202Z stdout F b\n"), true)
	f.Add([]byte(`{"log":"a","stream":"stdout","time":"2024-05-01T10:00:00Z"}`+"\n"+`{"log":"b\n","stream":"stderr","time":"2024-05-01T10:00:00Z"}`+"\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, cri bool) {
		kind := containerDocker
		if cri {
			kind = containerCRI
		}
		u := newUnwrapReader(bufioReader(string(data)), kind)
		var out bytes.Buffer
		if _, err := out.ReadFrom(u); err != nil {
			return
		}
		in := bytes.Count(data, []byte{'\n'})
		if len(data) > 0 && data[len(data)-1] != '\n' {
			in++
		}
		if n := bytes.Count(out.Bytes(), []byte{'\n'}); n < in || n > in+2 {
			t.Fatalf("%d outer lines gave %d inner lines", in, n)
		}
	})
}

// FuzzDetect: Detect never panics, and names a format it registered.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{"Feb 25 16:19:38 lb haproxy[1]: Proxy fe started.\n", "#Fields: a b\n", "[{\"traceId\":\"a\"}]", "{\"x\":1}\n{\"y\":2}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Detect(data)
		if err == nil {
			if _, ok := formats[got]; !ok {
				t.Fatalf("Detect named %q, which is not registered", got)
			}
		}
	})
}
