package live

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/scenario"
)

// FuzzServeHTTP: whatever the method, path, headers and body, the handler answers without
// panicking, and answers 4xx to what it cannot use.
func FuzzServeHTTP(f *testing.F) {
	f.Add("POST", "/v1/charges", `"k1"`, "7", "0", "{}")
	f.Add("GET", "/.well-known/patience/stats", "", "", "", "")
	f.Add("PUT", "/x", `"a\"b"`, "p:1", "x", "body")
	f.Add("POST", "/", `"unterminated`, "p:18446744073709551615", "4294967296", "")
	sc := &scenario.Scenario{Name: "fuzz", Seed: 1, Target: scenario.Target{
		Latency: fixed(0),
		Phases: []scenario.Phase{{Name: "p", At: 0, For: time.Hour, Faults: []scenario.Fault{
			{Kind: scenario.FaultStatus, Status: 429, Percent: 0.3, RetryAfter: &scenario.RetryAfter{Delay: time.Second, Date: true}},
		}}},
	}}
	s := NewServer(sc, ServerOptions{})
	s.start = time.Now()
	f.Fuzz(func(t *testing.T, method, path, key, logical, attempt, body string) {
		req, err := http.NewRequest(method, "http://127.0.0.1/", strings.NewReader(body))
		if err != nil {
			return
		}
		req.URL.Path = path
		if key != "" {
			req.Header.Set(IdempotencyKeyHeader, key)
		}
		req.Header.Set(LogicalIDHeader, logical)
		req.Header.Set(AttemptHeader, attempt)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code < 200 || w.Code > 599 {
			t.Fatalf("status %d", w.Code)
		}
	})
}

// FuzzCheckTarget: never panics; whatever it accepts is an http URL on a loopback host.
func FuzzCheckTarget(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080", "http://[::1]:1", "http://localhost", "http://10.0.0.1", "https://127.0.0.1", ":", "http://127.0.0.1@evil.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := CheckTarget(raw)
		if err != nil {
			return
		}
		if u.Scheme != "http" || (u.Hostname() != "localhost" && !strings.HasPrefix(u.Hostname(), "127.") && u.Hostname() != "::1" && !strings.Contains(u.Hostname(), ":")) {
			t.Fatalf("accepted %q (host %q)", raw, u.Hostname())
		}
	})
}
