package httpstatus

import (
	"net/http"
	"testing"
)

// TestTextMatchesNetHTTP keeps the table equal to net/http's over every code it may name.
func TestTextMatchesNetHTTP(t *testing.T) {
	for code := 0; code < 1000; code++ {
		if got, want := Text(code), http.StatusText(code); got != want {
			t.Errorf("Text(%d) = %q, want %q (net/http)", code, got, want)
		}
	}
}
