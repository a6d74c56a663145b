package probe_test

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/probe/probetest"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/verdict"
)

// TestVerdictsOfFailingTargets: what the probe says about loopback targets that fail, each
// in a few requests bounded by a short --max-timeout.
func TestVerdictsOfFailingTargets(t *testing.T) {
	for _, tc := range []struct {
		name     string
		h        http.Handler
		code     string
		level    profile.Level
		headline string
	}{
		{"half the requests hang", probetest.HangEvery(2), profile.CodeNoAnswer, verdict.Bad,
			"50% of requests got no answer within 200 ms: the dependency is failing, not slow"},
		{"every response 404", probetest.Status(http.StatusNotFound), profile.CodeNoGoodResponse, verdict.Bad,
			"every response was 404 Not Found — is the URL right?"},
		{"every response 503", probetest.Status(http.StatusServiceUnavailable), profile.CodeNoGoodResponse, verdict.Bad,
			"every response was 503 Service Unavailable: the dependency is failing, nothing to base a timeout on"},
		{"a healthy target with few samples", probetest.Fast(), profile.CodeProvisional, verdict.Provisional, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := start(t, tc.h)
			// The closed model: a busy machine cannot fail the run for a missed rate.
			r := run(t, probe.Config{URL: url + "/", Concurrency: 4, Requests: 20, MaxTimeout: 200 * time.Millisecond})
			v := r.Recommendation.Verdict
			if v.Level != tc.level || v.Reasons[0].Code != tc.code {
				t.Fatalf("verdict %+v, want %s led by %s", v, tc.level, tc.code)
			}
			if tc.headline != "" && v.Headline() != tc.headline {
				t.Errorf("headline %q, want %q", v.Headline(), tc.headline)
			}
			if tc.code == profile.CodeNoAnswer {
				if r.Recommendation.TimeoutMs != 0 || !r.Recommendation.BasisBeyond {
					t.Errorf("a hanging target got a %g ms timeout", r.Recommendation.TimeoutMs)
				}
				if s := r.ErrorSamples["timeout"]; s.Message != "no answer within 200 ms (--max-timeout)" {
					t.Errorf("timeout sample %+v", s)
				}
				c := r.CutoffCurve
				if !c[0].Beyond || c[len(c)-1].Label != "max-timeout" || *c[len(c)-1].CutRate != 0.5 {
					t.Errorf("cut-off curve %+v: want p90 beyond --max-timeout and a max-timeout row cutting off 50%%", c)
				}
			}
		})
	}
}

// TestErrorSampleTLS: a certificate that does not verify is reported with its x509 reason
// (certificate not trusted) and the --insecure hint, in the samples and in a headline that
// says TLS failure, not target unreachable.
func TestErrorSampleTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(probetest.Fast())
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes fail by design
	srv.StartTLS()
	defer srv.Close()
	r := run(t, probe.Config{URL: srv.URL + "/", Concurrency: 2, Requests: 10, Conn: "fresh"})
	s, ok := r.ErrorSamples["tls"]
	if !ok || !strings.HasPrefix(s.Message, "certificate not trusted: ") || !strings.Contains(s.Hint, "--insecure") {
		t.Fatalf("tls sample %+v (samples %+v)", s, r.ErrorSamples)
	}
	if h := r.Recommendation.Verdict.Headline(); !strings.HasPrefix(h, "TLS failure: ") || !strings.Contains(h, "certificate not trusted") || !strings.Contains(h, "--insecure") {
		t.Errorf("headline %q lacks the reason and the hint", h)
	}
	if ins := run(t, probe.Config{URL: srv.URL + "/", Concurrency: 1, Requests: 5, Conn: "fresh", Insecure: true}); ins.Responses != 5 {
		t.Errorf("--insecure: %d responses of 5", ins.Responses)
	}
}

// TestAdviseFromSavedProfile: a saved profile gives back the evidence its recommendation was
// made from, so check's Advise call over `probe --save` files agrees with probe's own.
func TestAdviseFromSavedProfile(t *testing.T) {
	url := start(t, probetest.Fast())
	cfg := probe.Config{URL: url + "/", Concurrency: 2, Requests: 40, Method: "POST", Header: http.Header{"Idempotency-Key": {"k1"}}, Budget: 3 * time.Second}
	r := run(t, cfg)
	path := filepath.Join(t.TempDir(), "p.json")
	if err := profile.Save(path, r); err != nil {
		t.Fatal(err)
	}
	loaded, err := profile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := loaded.Evidence()
	if err != nil {
		t.Fatal(err)
	}
	got := profile.Recommend(ev, profile.Caller{Budget: 3 * time.Second, Method: "POST", IdempotencyKey: true}, profile.RecommendOptions{})
	if diff := cmp.Diff(r.Recommendation, got); diff != "" {
		t.Errorf("advice from the saved profile differs (-probe +profile):\n%s", diff)
	}
	if r.Recommendation.MaxAttempts != 2 || !r.Recommendation.Caller.IdempotencyKey {
		t.Errorf("POST with an Idempotency-Key: %d attempts, caller %+v; want 2 and the key seen", r.Recommendation.MaxAttempts, r.Recommendation.Caller)
	}
}
