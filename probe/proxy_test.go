package probe

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/patience-dev/patience/probe/probetest"
)

// TestProxyTracePath runs the per-request trace that a proxied target uses (loopback
// targets are never proxied by http.ProxyFromEnvironment, so it is forced here): the same
// phases as the probe's own dialer, fresh and reused apart, TLS timed.
func TestProxyTracePath(t *testing.T) {
	s := httptest.NewTLSServer(probetest.Fast())
	defer s.Close()
	cfg := Config{URL: s.URL + "/", Concurrency: 1, Requests: 20, Conn: "both", Insecure: true}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := run(context.Background(), cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	ph := r.Phases
	if r.Status["200"] != 20 || ph.Connect.Count != 11 || ph.TLS.Count != 11 || ph.Total.Reused.Count != 9 || ph.TTFB.Count < 18 {
		t.Errorf("status %v connect %d tls %d reused %d ttfb %d; want 20 × 200, 11 connects and handshakes, 9 reused, a TTFB for (nearly) every request",
			r.Status, ph.Connect.Count, ph.TLS.Count, ph.Total.Reused.Count, ph.TTFB.Count)
	}
}

// TestProxyTracePathSilence: the proxy path times the body's pauses from the trace's first
// response byte to each read of the body. Against a target that drips its body a byte every
// 50 ms (at least), one silence per response, and the longest of the run at least 50 ms:
// reads are stamped when they return, never before their byte arrived, and only a chain of
// reads each less late than the one before could shorten every pause of every response
// (TestSilenceDrip says why the minimum is held to it only under kernel stamps). No
// wall-clock upper bound.
func TestProxyTracePathSilence(t *testing.T) {
	gap := 50 * time.Millisecond
	s := httptest.NewServer(probetest.Drip(gap, 3, false))
	defer s.Close()
	cfg := Config{URL: s.URL + "/", Concurrency: 1, Requests: 4, Conn: "both"}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := run(context.Background(), cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	sil := r.Phases.Silence
	if r.Status["200"] != 4 || sil.Count != 4 || *sil.MaxMs < float64(gap)/float64(time.Millisecond)*0.999 {
		t.Errorf("status %v silence %+v: want 4 responses, the longest silent at least %v", r.Status, sil, gap)
	}
}
