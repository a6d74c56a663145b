package advise

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/corpus"
)

// TestOTLPSpanOutcomes reads advise/testdata/otlp-outcomes-fixes.json (written for this
// test): four CLIENT spans — a 200, an HTTP span with status Error and error.type timeout
// but no status code, an HTTP span with neither a status code nor an Error status, and a
// database span.
//
// semantic-conventions docs/http/http-spans.md: http.response.status_code is "Conditionally
// Required: If and only if one was received/sent"; a request that fails without a response
// sets the span status to Error (opentelemetry-proto trace.proto: STATUS_CODE_ERROR = 2) with
// error.type. So span 2 is a request with no answer (timeout), span 3's outcome is unknown
// (it was counted as a 200), and span 4 is no HTTP request at all: both left out, in notes.
func TestOTLPSpanOutcomes(t *testing.T) {
	r := run(t, Options{Files: []string{"testdata/otlp-outcomes-fixes.json"}})
	if r.Requests != 2 || r.Status["200"] != 1 || r.Errors["timeout"] != 1 || len(r.Status) != 1 {
		t.Fatalf("requests %d status %v errors %v: want the 200 and the timeout", r.Requests, r.Status, r.Errors)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, w := range []string{"1 client or server spans are not HTTP requests", "1 HTTP spans have no http.response.status_code and no Error status"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}

// TestCorpusOTLPExampleTrace: open-telemetry/opentelemetry-proto examples/trace.json holds
// one SERVER span with no HTTP attribute and no status. It was counted as one 200 with a
// 1.5 s timeout; it is no HTTP request, so there is nothing to advise from (ErrNoSamples,
// which the command exits 3 for), and the error says why.
func TestCorpusOTLPExampleTrace(t *testing.T) {
	_, err := Run(context.Background(), Options{Files: []string{corpus.Path(t, "otlp-proto-example-trace.json")}})
	if !errors.Is(err, ErrNoSamples) || !strings.Contains(err.Error(), "1 not HTTP") {
		t.Fatalf("err %v: want no samples, the one span not HTTP", err)
	}
}
