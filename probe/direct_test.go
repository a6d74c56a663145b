package probe_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/timing"
	"github.com/patience-dev/patience/probe"
)

// rawServer serves each loopback connection with serve (which reads requests from br) and
// closes it when serve returns. It counts the requests serve reports.
type rawServer struct {
	url      string
	requests atomic.Int64
}

func startRaw(t *testing.T, serve func(s *rawServer, c net.Conn, br *bufio.Reader)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &rawServer{url: "http://" + ln.Addr().String() + "/"}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(s, c, bufio.NewReader(c))
			}()
		}
	}()
	return s
}

// readRequest reads one request with its body and counts it.
func (s *rawServer) readRequest(br *bufio.Reader) bool {
	req, err := http.ReadRequest(br)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, req.Body)
	s.requests.Add(1)
	return true
}

// oneShot answers one request per connection as if it were kept alive, then closes the
// connection: a server whose idle timeout races the client's next request.
func oneShot(s *rawServer, c net.Conn, br *bufio.Reader) {
	if s.readRequest(br) {
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
	}
}

// closesOnNext answers the first request of each connection as if it were kept alive, and
// closes the connection when the next one arrives, without processing it: a server whose
// idle timeout fires just as the client reuses the connection. Unlike oneShot, the
// connection is open while idle, so only the request finds out.
func closesOnNext(s *rawServer, c net.Conn, br *bufio.Reader) {
	oneShot(s, c, br)
	_, _ = br.Peek(1)
}

// TestClosedKeepAliveIsResent: a GET on a kept-alive connection the server closes on it is
// sent again on a new connection, as net/http's Transport does; nothing fails and the
// server processes each request once.
func TestClosedKeepAliveIsResent(t *testing.T) {
	s := startRaw(t, closesOnNext)
	r := run(t, probe.Config{URL: s.url, Concurrency: 1, Requests: 4, Conn: "reuse"})
	if r.Status["200"] != 4 || r.Errors["reset"] != 0 || s.requests.Load() != 4 {
		t.Errorf("status %v errors %v, server saw %d requests; want 4 × 200, no errors, 4 requests", r.Status, r.Errors, s.requests.Load())
	}
	// The first request opened the connection; each of the three after it found it closed.
	if r.Schedule.Resent != 3 || !strings.Contains(strings.Join(r.Notes, " "), "3 idempotent requests were sent a second time") {
		t.Errorf("resent %d, notes %q; want 3, said in a note", r.Schedule.Resent, r.Notes)
	}
}

// TestPostIsNeverSentTwice: the same server with a POST. The request that finds the
// kept-alive connection closed fails (it may have been processed: a retry could charge a
// customer twice), the next one opens a new connection.
func TestPostIsNeverSentTwice(t *testing.T) {
	s := startRaw(t, closesOnNext)
	r := run(t, probe.Config{URL: s.url, Method: http.MethodPost, Body: []byte(`{"amount":1}`), Concurrency: 1, Requests: 4, Conn: "reuse"})
	if r.Status["200"] != 2 || r.Errors["reset"] != 2 || s.requests.Load() != 2 || r.Schedule.Resent != 0 {
		t.Errorf("status %v errors %v resent %d, server saw %d requests; want 2 × 200, 2 resets, none resent, 2 requests",
			r.Status, r.Errors, r.Schedule.Resent, s.requests.Load())
	}
}

// TestClosedIdleConnectionIsNotReused: a kept-alive connection that sat idle is checked
// before reuse; one the server closed is replaced, so even a POST succeeds every time.
// (200 ms between sends: the server has closed long before, even on a loaded machine.)
func TestClosedIdleConnectionIsNotReused(t *testing.T) {
	s := startRaw(t, oneShot)
	r := run(t, probe.Config{URL: s.url, Method: http.MethodPost, Body: []byte(`{"amount":1}`), Rate: 5, Requests: 4, Conn: "reuse"})
	if r.Status["200"] != 4 || s.requests.Load() != 4 || r.Phases.Connect.Count != 4 {
		t.Errorf("status %v errors %v connects %d, server saw %d requests; want 4 × 200 on 4 connections",
			r.Status, r.Errors, r.Phases.Connect.Count, s.requests.Load())
	}
}

// TestInterimResponsesAreSkipped: a 103 Early Hints before the final response is read past,
// and the connection is kept alive.
func TestInterimResponsesAreSkipped(t *testing.T) {
	s := startRaw(t, func(s *rawServer, c net.Conn, br *bufio.Reader) {
		for s.readRequest(br) {
			_, _ = io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"+
				"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
		}
	})
	r := run(t, probe.Config{URL: s.url, Concurrency: 1, Requests: 3, Conn: "reuse"})
	if r.Status["200"] != 3 || r.Phases.Total.Reused.Count != 2 {
		t.Errorf("status %v reused %d, want 3 × 200 on one connection", r.Status, r.Phases.Total.Reused.Count)
	}
}

// TestBodyFraming: chunked bodies are read to their end and the connection reused; a
// response to HEAD has no body whatever its Content-Length says.
func TestBodyFraming(t *testing.T) {
	url := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Content-Length", "1000")
			return
		}
		for range 3 {
			_, _ = io.WriteString(w, strings.Repeat("x", 5000))
			w.(http.Flusher).Flush() // no Content-Length: chunked
		}
	}))
	r := run(t, probe.Config{URL: url, Concurrency: 1, Requests: 3, Conn: "reuse"})
	if r.Status["200"] != 3 || r.Phases.Connect.Count != 1 {
		t.Errorf("chunked: status %v errors %v connects %d, want 3 × 200 on one connection", r.Status, r.Errors, r.Phases.Connect.Count)
	}
	head := run(t, probe.Config{URL: url, Method: http.MethodHead, Concurrency: 1, Requests: 3, Conn: "reuse", MaxTimeout: 5 * time.Second})
	if head.Status["200"] != 3 || head.Phases.Connect.Count != 1 {
		t.Errorf("HEAD: status %v errors %v connects %d, want 3 × 200 on one connection", head.Status, head.Errors, head.Phases.Connect.Count)
	}
}

// TestEndlessHeadersFail: a response head beyond 1 MiB fails the request instead of growing
// the probe's memory.
func TestEndlessHeadersFail(t *testing.T) {
	s := startRaw(t, func(s *rawServer, c net.Conn, br *bufio.Reader) {
		if !s.readRequest(br) {
			return
		}
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\n")
		line := "X-Padding: " + strings.Repeat("a", 1000) + "\r\n"
		for range 3000 { // 3 MB of headers
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
	})
	r := run(t, probe.Config{URL: s.url, Concurrency: 1, Requests: 1, MaxTimeout: 10 * time.Second})
	if r.Responses != 0 || r.Errors["other"] != 1 {
		t.Errorf("responses %d errors %v, want the one request failed as other", r.Responses, r.Errors)
	}
}

// TestInterruptAbortsHangingRequests: Ctrl-C ends a run at once even while every request
// hangs on a target that never answers (well before --max-timeout).
func TestInterruptAbortsHangingRequests(t *testing.T) {
	url := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	begin := time.Now()
	// --max-timeout is an hour: a run that did not abort its requests would not return
	// within go test's timeout, whatever the machine's load.
	r, err := probe.Run(ctx, probe.Config{URL: url, Rate: 50, Duration: 10 * time.Second, MaxTimeout: time.Hour, Conn: "reuse"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || r.Responses != 0 || r.InterruptedInFlight == 0 {
		t.Errorf("interrupted %v responses %d cut %d, want an interrupted run without responses, its hanging requests cut", r.Interrupted, r.Responses, r.InterruptedInFlight)
	}
	// The bound is the mechanism's: the abort is a deadline in the past on each connection,
	// not a timer. A wall-clock bound, checked with PATIENCE_TIMING=1 (issue 24 item 12).
	if d := time.Since(begin); timing.Enabled() && d > 5*time.Second {
		t.Errorf("run took %v after a 300 ms interrupt, want it to stop at once", d)
	}
}

// TestURLCredentialsAreBasicAuth: user:password in the URL reaches the target as Basic auth
// and never reaches the result.
func TestURLCredentialsAreBasicAuth(t *testing.T) {
	var ok atomic.Int64
	url := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, found := r.BasicAuth(); found && u == "probe" && p == "hunter2" {
			ok.Add(1)
		}
	}))
	r := run(t, probe.Config{URL: strings.Replace(url, "http://", "http://probe:hunter2@", 1) + "/", Concurrency: 1, Requests: 2})
	if ok.Load() != 2 || strings.Contains(r.Target.URL, "hunter2") {
		t.Errorf("%d of 2 requests carried the credentials; target in the result %q", ok.Load(), r.Target.URL)
	}
}

// TestHostHeader: a Host given with --header is the one sent (to reach a virtual host at an
// address), otherwise the URL's.
func TestHostHeader(t *testing.T) {
	var got atomic.Value
	url := start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Store(r.Host) }))
	run(t, probe.Config{URL: url + "/", Concurrency: 1, Requests: 1, Header: http.Header{"Host": {"api.example.test"}}})
	if h, _ := got.Load().(string); h != "api.example.test" {
		t.Errorf("Host %q, want api.example.test", h)
	}
	run(t, probe.Config{URL: url + "/", Concurrency: 1, Requests: 1})
	if h, _ := got.Load().(string); h != strings.TrimPrefix(url, "http://") {
		t.Errorf("Host %q, want the URL's %q", h, strings.TrimPrefix(url, "http://"))
	}
}
