package probe_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/timing"
	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/probe/probetest"
	"github.com/patience-dev/patience/profile"
)

// loopbackCert makes a self-signed certificate for names and writes it to the test's
// directory: the --cacert (and --cert) file, and the key file.
func loopbackCert(t *testing.T, names ...string) (c *probetest.Cert, certFile, keyFile string) {
	t.Helper()
	c, err := probetest.NewCert(names...)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, err = c.WriteFiles(t.TempDir(), "cert")
	if err != nil {
		t.Fatal(err)
	}
	return c, certFile, keyFile
}

func startTLS(t *testing.T, h http.Handler, c *probetest.Cert, o probetest.TLSOptions) string {
	t.Helper()
	s, err := probetest.StartTLS(h, c, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.URL
}

func startH2C(t *testing.T, h http.Handler) string {
	t.Helper()
	s, err := probetest.StartH2C(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.URL
}

func startFaults(t *testing.T, f probetest.H2Faults) *probetest.H2FaultServer {
	t.Helper()
	s, err := probetest.StartH2Faults(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// slowly answers after d, so concurrent requests overlap as streams.
func slowly(d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(d)
		_, _ = w.Write([]byte(r.Proto + "\n"))
	})
}

func noErrors(t *testing.T, r *profile.Profile, except ...string) {
	t.Helper()
	for c, n := range r.Errors {
		if n > 0 && !strings.Contains(strings.Join(except, " "), c) {
			t.Errorf("errors[%s] = %d (%v)", c, n, r.ErrorSamples[c])
		}
	}
}

// TestH2OverTLS: `--cacert test.pem` against Go's HTTP/2 server negotiates h2 by ALPN, and
// the workers' streams share one connection whose set-up is measured once.
func TestH2OverTLS(t *testing.T) {
	c, certFile, _ := loopbackCert(t, "127.0.0.1")
	url := startTLS(t, slowly(20*time.Millisecond), c, probetest.TLSOptions{HTTP2: true})
	r := run(t, probe.Config{URL: url + "/", Concurrency: 4, Requests: 40, Conn: "reuse", CACert: certFile})
	noErrors(t, r)
	if r.Target.Protocol != "h2" || r.Target.TLS == nil || r.Target.TLS.ALPN != "h2" || r.Target.TLS.Version == "" || r.Target.TLS.Cipher == "" {
		t.Fatalf("target %+v tls %+v: want h2 negotiated by ALPN, with version and cipher", r.Target, r.Target.TLS)
	}
	ph := r.Phases
	if r.Status["200"] != 40 || ph.Connect.Count != 1 || ph.TLS.Count != 1 || ph.TTFB.Count != 40 {
		t.Errorf("status %v, connect %d, tls %d, ttfb %d: want 40 × 200 on one connection set up once", r.Status, ph.Connect.Count, ph.TLS.Count, ph.TTFB.Count)
	}
	if cn := r.Connections; cn == nil || cn.Opened != 1 || cn.PeakStreams < 2 || cn.PeakStreams > 4 || cn.MaxConcurrentStreams == 0 {
		t.Errorf("connections %+v: want 1 opened, 2–4 streams at once, the server's limit", cn)
	}
	// The streams that waited for the set-up are fresh, the rest reused.
	if ph.Total.Fresh == nil || ph.Total.Fresh.Count < 1 || ph.Total.Fresh.Count > 4 || ph.Total.Reused.Count+ph.Total.Fresh.Count != 40 {
		t.Errorf("total fresh %+v reused %+v", ph.Total.Fresh, ph.Total.Reused)
	}
	if *ph.TTFB.P50Ms < 15 || *ph.Total.P50Ms < *ph.TTFB.P50Ms-1 {
		t.Errorf("ttfb p50 %v total p50 %v: want about the handler's 20 ms", *ph.TTFB.P50Ms, *ph.Total.P50Ms)
	}

	// --conn fresh: a connection per stream, each set up and measured.
	f := run(t, probe.Config{URL: url + "/", Concurrency: 2, Requests: 10, Conn: "fresh", CACert: certFile})
	noErrors(t, f)
	if f.Target.Protocol != "h2" || f.Connections.Opened != 10 || f.Phases.TLS.Count != 10 || f.Phases.Total.Fresh.Count != 10 {
		t.Errorf("--conn fresh: protocol %s, opened %d, tls %d, fresh %d; want 10 h2 connections", f.Target.Protocol, f.Connections.Opened, f.Phases.TLS.Count, f.Phases.Total.Fresh.Count)
	}
}

// TestHTTPChoice: auto speaks HTTP/1.1 to a server without h2 and in clear; --http 1.1
// keeps HTTP/1.1 where h2 is offered; --http 2 to a server without h2 fails as TLS.
func TestHTTPChoice(t *testing.T) {
	c, certFile, _ := loopbackCert(t, "127.0.0.1")
	h1 := startTLS(t, probetest.Fast(), c, probetest.TLSOptions{})
	h2 := startTLS(t, probetest.Fast(), c, probetest.TLSOptions{HTTP2: true})
	clear := start(t, probetest.Fast())
	for _, tc := range []struct {
		url, http, want string
	}{
		{h1, "auto", "http/1.1"},
		{h2, "1.1", "http/1.1"},
		{h2, "2", "h2"},
		{clear, "auto", "http/1.1"},
	} {
		r := run(t, probe.Config{URL: tc.url + "/", Concurrency: 1, Requests: 4, CACert: certFile, HTTP: tc.http})
		noErrors(t, r)
		if r.Target.Protocol != tc.want || r.Status["200"] != 4 {
			t.Errorf("%s --http %s: protocol %q status %v, want %s", tc.url, tc.http, r.Target.Protocol, r.Status, tc.want)
		}
	}
	bad := run(t, probe.Config{URL: h1 + "/", Concurrency: 1, Requests: 6, CACert: certFile, HTTP: "2"})
	if e := bad.ErrorSamples["tls"]; bad.Errors["tls"] == 0 || !strings.Contains(e.Message, "application protocol") || !strings.Contains(e.Hint, "--http") {
		t.Errorf("--http 2 to an HTTP/1.1-only server: errors %v %v, want tls (ALPN)", bad.Errors, bad.ErrorSamples)
	}
}

// TestH2C: --http 2 over http:// is h2c with prior knowledge, on Go's own server.
func TestH2C(t *testing.T) {
	url := startH2C(t, slowly(5*time.Millisecond))
	r := run(t, probe.Config{URL: url + "/", Concurrency: 3, Requests: 30, Conn: "both", HTTP: "2"})
	noErrors(t, r)
	if r.Target.Protocol != "h2c" || r.Target.TLS != nil || r.Status["200"] != 30 {
		t.Fatalf("protocol %q tls %v status %v, want 30 × 200 over h2c", r.Target.Protocol, r.Target.TLS, r.Status)
	}
	// both: the 15 even-numbered requests have their own connection; the rest share.
	if r.Connections.Opened < 16 || r.Connections.Opened > 18 || r.Phases.Connect.Count != r.Connections.Opened || r.Phases.TLS != nil && r.Phases.TLS.Count != 0 {
		t.Errorf("opened %d connect %+v tls %+v: want 15 fresh + 1–3 shared, no TLS", r.Connections.Opened, r.Phases.Connect, r.Phases.TLS)
	}
}

// TestH2GoAway: a server that sends GOAWAY after 4 streams on each connection. The 5th
// stream, above the GOAWAY's last stream ID, was not processed: goaway, with the hint that
// a retry is safe; the next request opens a new connection.
func TestH2GoAway(t *testing.T) {
	s := startFaults(t, probetest.H2Faults{GoAwayAfter: 4})
	r := run(t, probe.Config{URL: s.URL + "/", Concurrency: 1, Requests: 20, Conn: "reuse", HTTP: "2"})
	noErrors(t, r, "goaway")
	if r.Status["200"] != 16 || r.Errors["goaway"] != 4 || r.Connections.Opened != 4 {
		t.Errorf("status %v errors %v opened %d; want 16 × 200, 4 goaway, 4 connections", r.Status, r.Errors, r.Connections.Opened)
	}
	if h := r.ErrorSamples["goaway"].Hint; !strings.Contains(h, "safe") {
		t.Errorf("goaway hint %q", h)
	}
}

// TestH2RefusedStream: a server that refuses streams above 2 in progress; the refusals are
// their own class, and the answered streams are measured.
func TestH2RefusedStream(t *testing.T) {
	s := startFaults(t, probetest.H2Faults{RefuseAbove: 2, Delay: 30 * time.Millisecond})
	r := run(t, probe.Config{URL: s.URL + "/", Concurrency: 4, Requests: 40, Conn: "reuse", HTTP: "2"})
	noErrors(t, r, "refused_stream")
	if r.Errors["refused_stream"] == 0 || r.Status["200"] == 0 || r.Status["200"]+r.Errors["refused_stream"] != 40 {
		t.Errorf("status %v errors %v; want both 200s and refused streams", r.Status, r.Errors)
	}
	if h := r.ErrorSamples["refused_stream"].Hint; !strings.Contains(h, "whatever the method") {
		t.Errorf("refused_stream hint %q", h)
	}
	if r.Connections.Opened != 1 {
		t.Errorf("opened %d: a refused stream leaves the connection usable", r.Connections.Opened)
	}
}

// TestH2StreamReset: RST_STREAM INTERNAL_ERROR on every 5th stream is stream_reset: the
// server had accepted the stream.
func TestH2StreamReset(t *testing.T) {
	s := startFaults(t, probetest.H2Faults{ResetEvery: 5})
	r := run(t, probe.Config{URL: s.URL + "/", Concurrency: 1, Requests: 20, Conn: "reuse", HTTP: "2"})
	noErrors(t, r, "stream_reset")
	if r.Status["200"] != 16 || r.Errors["stream_reset"] != 4 || r.Connections.Opened != 1 {
		t.Errorf("status %v errors %v opened %d; want 16 × 200, 4 stream_reset, one connection", r.Status, r.Errors, r.Connections.Opened)
	}
}

// TestH2OneStreamStalls: one stream held 1 s while the others on the same connection flow;
// the open model times the held one from its intended send, the others are not held up.
func TestH2OneStreamStalls(t *testing.T) {
	var n atomic.Int64
	url := startH2C(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) == 5 {
			time.Sleep(time.Second)
		}
		_, _ = w.Write([]byte("ok\n"))
	}))
	r := run(t, probe.Config{URL: url + "/", Rate: 100, Requests: 50, Conn: "reuse", HTTP: "2"})
	noErrors(t, r)
	if r.Status["200"] != 50 || r.Connections.Opened != 1 || r.Connections.PeakStreams < 2 {
		t.Fatalf("status %v connections %+v: want 50 × 200 on one connection, the stall beside other streams", r.Status, r.Connections)
	}
	// The stall shows (a lower bound: load only adds to it); how little the others waited
	// is a wall-clock bound, checked with PATIENCE_TIMING=1 (issue 24 item 12).
	between(t, "max", r.Phases.Total.MaxMs, 1000, math.Inf(1))
	if timing.Enabled() {
		between(t, "max", r.Phases.Total.MaxMs, 1000, 3000)
		between(t, "p50", r.Phases.Total.P50Ms, 0, 200)
	}
}

// TestStallOpenModelH2 is TestStallOpenModel over h2c: the freeze shows in the tail.
func TestStallOpenModelH2(t *testing.T) {
	host := skipUnlessAccurate(t)
	epoch := time.Now()
	url := startH2C(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(probetest.StallWait(time.Since(epoch), 5*time.Second, 500*time.Millisecond))
		_, _ = w.Write([]byte("ok\n"))
	}))
	r := run(t, probe.Config{URL: url + "/", Rate: 200, Duration: 5 * time.Second, Conn: "reuse", HTTP: "2"})
	host.SkipIfBusy(t)
	between(t, "p99", r.Phases.Total.P99Ms, 450*0.85, 450*1.15)
	between(t, "p95", r.Phases.Total.P95Ms, 250*0.8, 250*1.3)
	between(t, "p50", r.Phases.Total.P50Ms, 0, 50)
	between(t, "achieved rate", &r.Schedule.AchievedPerS, 200*0.97, 200*1.01)
}

// TestServerNameAndResolve: a certificate for api.test only, served at 127.0.0.1. Without
// --servername the x509 reason is kept; with it, or with --resolve and the name in the URL,
// the handshake verifies against --cacert.
func TestServerNameAndResolve(t *testing.T) {
	c, certFile, _ := loopbackCert(t, "api.test")
	base := startTLS(t, probetest.Fast(), c, probetest.TLSOptions{HTTP2: true})
	bad := run(t, probe.Config{URL: base + "/", Concurrency: 1, Requests: 5, CACert: certFile})
	if e := bad.ErrorSamples["tls"]; bad.Errors["tls"] != 5 || !strings.HasPrefix(e.Message, "certificate name mismatch: ") || !strings.Contains(e.Hint, "--servername") {
		t.Errorf("no --servername: errors %v sample %v; want tls with the x509 reason (a name mismatch)", bad.Errors, bad.ErrorSamples["tls"])
	}
	ok := run(t, probe.Config{URL: base + "/", Concurrency: 1, Requests: 4, CACert: certFile, ServerName: "api.test"})
	noErrors(t, ok)
	if ok.Status["200"] != 4 || ok.Target.TLS == nil || ok.Target.TLS.ServerName != "api.test" {
		t.Errorf("--servername: status %v tls %+v", ok.Status, ok.Target.TLS)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, probe.Config{URL: "https://api.test:" + u.Port() + "/", Concurrency: 1, Requests: 4, Conn: "fresh",
		CACert: certFile, Resolve: []string{"api.test:" + u.Port() + ":127.0.0.1"}})
	noErrors(t, res)
	if res.Status["200"] != 4 || res.Target.Protocol != "h2" || res.Phases.DNS != nil && res.Phases.DNS.Count != 0 {
		t.Errorf("--resolve: status %v protocol %s dns %+v; want 4 × 200 over h2, no DNS", res.Status, res.Target.Protocol, res.Phases.DNS)
	}
}

// TestClientCertificate: a server that demands a client certificate answers only with
// --cert and --key.
func TestClientCertificate(t *testing.T) {
	server, caFile, _ := loopbackCert(t, "127.0.0.1")
	client, certFile, keyFile := loopbackCert(t, "client")
	for _, h2 := range []bool{false, true} {
		url := startTLS(t, probetest.Fast(), server, probetest.TLSOptions{HTTP2: h2, ClientCA: client})
		without := run(t, probe.Config{URL: url + "/", Concurrency: 1, Requests: 3, CACert: caFile})
		if without.Responses != 0 {
			t.Errorf("h2 %v, no client certificate: status %v errors %v, want no response", h2, without.Status, without.Errors)
		}
		with := run(t, probe.Config{URL: url + "/", Concurrency: 1, Requests: 3, CACert: caFile, Cert: certFile, Key: keyFile})
		noErrors(t, with)
		if with.Status["200"] != 3 {
			t.Errorf("h2 %v, --cert/--key: status %v", h2, with.Status)
		}
	}
}

func TestTLSConfigErrors(t *testing.T) {
	for _, cfg := range []probe.Config{
		{URL: "https://127.0.0.1:1/", HTTP: "3"},
		{URL: "https://127.0.0.1:1/", Cert: "c.pem"},
		{URL: "https://127.0.0.1:1/", Resolve: []string{"api.test:443"}},
		{URL: "https://127.0.0.1:1/", Resolve: []string{"api.test:443:not-an-ip"}},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	cfg := probe.Config{URL: "https://127.0.0.1:1/", CACert: "/nonexistent.pem"}
	if _, err := probe.Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "--cacert") {
		t.Errorf("missing --cacert file: %v", err)
	}
}

// TestH2BodyAndFlowControl: a 200 KB request body, three times the server's initial
// flow-control window, goes out in DATA frames as the server opens its windows; every byte
// reaches the handler.
func TestH2BodyAndFlowControl(t *testing.T) {
	var got atomic.Int64
	url := startH2C(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n != r.ContentLength {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		got.Add(n)
		_, _ = w.Write([]byte("ok\n"))
	}))
	body := bytes.Repeat([]byte("x"), 200<<10)
	r := run(t, probe.Config{URL: url + "/", Method: http.MethodPost, Body: body, Concurrency: 2, Requests: 6, Conn: "reuse", HTTP: "2"})
	noErrors(t, r)
	if r.Status["200"] != 6 || got.Load() != 6*int64(len(body)) {
		t.Errorf("status %v, %d bytes received of %d", r.Status, got.Load(), 6*len(body))
	}
}

// TestH2LargeHeaderBlock: a header block larger than one frame (16 KB) is sent as HEADERS
// and CONTINUATION frames, and reaches the handler whole.
func TestH2LargeHeaderBlock(t *testing.T) {
	big := strings.Repeat("v", 40<<10)
	url := startH2C(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Big") != big || r.Header.Get("User-Agent") == "" || r.Host == "" {
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	r := run(t, probe.Config{URL: url + "/", Header: http.Header{"X-Big": {big}}, Concurrency: 1, Requests: 3, Conn: "reuse", HTTP: "2"})
	noErrors(t, r)
	if r.Status["200"] != 3 {
		t.Errorf("status %v, want 3 × 200", r.Status)
	}
}

// TestH2HangIsBoundedByMaxTimeout: a stream the server never answers is given up at
// --max-timeout (RST_STREAM CANCEL); the connection goes on carrying the next streams.
func TestH2HangIsBoundedByMaxTimeout(t *testing.T) {
	url := startH2C(t, hang())
	begin := time.Now()
	r := run(t, probe.Config{URL: url + "/", Rate: 20, Requests: 4, MaxTimeout: 200 * time.Millisecond, Conn: "reuse", HTTP: "2"})
	// Unbounded, the target answers after 20 s: 4 responses, no timeout. How soon is a
	// wall-clock bound, checked with PATIENCE_TIMING=1 (issue 24 item 12).
	if r.Errors["timeout"] != 4 || r.Responses != 0 || r.Connections.Opened != 1 {
		t.Errorf("errors %v responses %d opened %d, want 4 timeouts on one connection", r.Errors, r.Responses, r.Connections.Opened)
	}
	if d := time.Since(begin); timing.Enabled() && d > 3*time.Second {
		t.Errorf("a hanging target held the probe %v with --max-timeout 200ms", d)
	}
}

// TestH2Credentials: user:password in the URL is Basic auth, as on HTTP/1.1.
func TestH2Credentials(t *testing.T) {
	url := startH2C(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "me" || p != "s3cret" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	r := run(t, probe.Config{URL: strings.Replace(url, "http://", "http://me:s3cret@", 1) + "/", Concurrency: 1, Requests: 2, HTTP: "2"})
	if r.Status["200"] != 2 {
		t.Errorf("status %v, want 2 × 200", r.Status)
	}
}

// TestH2ResponseHeadersBounded: a response header block past 1 MiB fails its stream, as an
// HTTP/1.1 head past 1 MiB does: many fields fail the stream alone (the connection goes on),
// one field longer than the limit fails the connection (HPACK cannot skip it); the next
// request is answered either way.
func TestH2ResponseHeadersBounded(t *testing.T) {
	var n atomic.Int64
	url := startH2C(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		switch n.Add(1) {
		case 1:
			for i := range 20 {
				w.Header().Set(fmt.Sprintf("X-Many-%d", i), strings.Repeat("m", 60<<10))
			}
		case 3:
			w.Header().Set("X-Huge", strings.Repeat("h", 1100<<10))
		}
		_, _ = w.Write([]byte("ok\n"))
	}))
	r := run(t, probe.Config{URL: url + "/", Concurrency: 1, Requests: 4, Conn: "reuse", HTTP: "2"})
	if r.Status["200"] != 2 || r.Errors["other"] != 2 || !strings.Contains(r.ErrorSamples["other"].Message, "exceed") {
		t.Errorf("status %v errors %v samples %v: want both large heads failed, the others answered", r.Status, r.Errors, r.ErrorSamples)
	}
	if r.Connections.Opened != 2 {
		t.Errorf("opened %d: want the first connection kept after the many fields, a second after the huge one", r.Connections.Opened)
	}
}
