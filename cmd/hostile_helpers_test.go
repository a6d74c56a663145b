package cmd

import (
	"io"
	"net/http"
	"sync/atomic"
)

// bodyRecorder answers 200 and keeps the last request body it read.
func bodyRecorder(got *atomic.Value) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b))
		w.WriteHeader(http.StatusOK)
	})
}
