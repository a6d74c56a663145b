package probetest

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// HangEvery answers at once, except that every n-th request (the 1st, the n+1-th, …) gets no
// answer at all: the handler holds it until the client gives up or the server closes. n = 2
// is a dependency where half the requests hang. The count is per handler, so the share is
// exact whatever the timing.
func HangEvery(n int64) http.Handler {
	var seen atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (seen.Add(1)-1)%n == 0 {
			<-r.Context().Done()
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
}

// Status answers every request at once with the given status (404: a wrong path; 503: a
// failing dependency).
func Status(code int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, http.StatusText(code), code)
	})
}

// FailEvery answers every n-th request (the 1st, the n+1-th, …) with the given status and the
// others with 200 at once: n = 10 and 503 is a dependency where 10% of requests fail.
func FailEvery(n int64, code int) http.Handler {
	var seen atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if (seen.Add(1)-1)%n == 0 {
			http.Error(w, http.StatusText(code), code)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
}

// Drip sends the response head at once, then a body of n bytes one byte at a time, sleeping
// at least gap before each: a response that is never silent for much longer than gap, and
// never done before n × gap — what a read timeout above gap lets through and a total timeout
// below n × gap cuts. With chunked, the body has no Content-Length (chunked framing over
// HTTP/1.1); over HTTP/2 each byte is a DATA frame of its own.
func Drip(gap time.Duration, n int, chunked bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if !chunked {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		for range n {
			time.Sleep(gap)
			if _, err := w.Write([]byte{'.'}); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	})
}
