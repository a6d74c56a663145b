package probe

import (
	"context"
	"net/http/httptest"
	"testing"

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
