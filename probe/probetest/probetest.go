// Package probetest holds loopback HTTP targets whose latency distribution is known, for the
// probe's tests, the demo and bench/: a fast endpoint, 10 ms + Exp(5 ms), a server that
// freezes 500 ms every 5 s (stall.go), and a lognormal one with a few 503s. Every RNG is seeded
// (math/rand/v2 PCG), so a target behaves the same for the same seed.
package probetest

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/patience-dev/patience/profile"
)

// Fast answers at once with a 3-byte body: the throughput target.
func Fast() http.Handler {
	body := []byte("ok\n")
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write(body)
	})
}

// Exp answers after 10 ms + Exp(mean 5 ms). Analytic quantiles: q → 10 − 5·ln(1−q) ms, so
// p50 13.47, p90 21.51, p95 24.98, p99 33.03 ms (plus the timer overshoot of the host).
func Exp(seed uint64) http.Handler {
	h, _ := ExpRecorded(seed)
	return h
}

// ExpRecorded is Exp plus the server's own record: every handler's wall time (the sleep
// with the host's timer overshoot), so a client's figures can be compared with what the
// server really did rather than only with the analytic distribution.
func ExpRecorded(seed uint64) (http.Handler, *Record) {
	rng := newLocked(seed)
	rec := &Record{}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		start := time.Now()
		time.Sleep(10*time.Millisecond + time.Duration(rng.ExpFloat64()*5*float64(time.Millisecond)))
		rec.add(time.Since(start))
		_, _ = w.Write([]byte("ok\n"))
	}), rec
}

// Record is a server-side latency record (HDR histogram, microseconds, 3 digits).
type Record struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
}

func (r *Record) add(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.h == nil {
		r.h = profile.NewHistogram()
	}
	_ = r.h.RecordValue(d.Microseconds())
}

// RecordStats is a snapshot of a Record in milliseconds.
type RecordStats struct {
	Count int64   `json:"count"`
	P50Ms float64 `json:"p50_ms"`
	P90Ms float64 `json:"p90_ms"`
	P95Ms float64 `json:"p95_ms"`
	P99Ms float64 `json:"p99_ms"`
}

// Stats returns the record so far.
func (r *Record) Stats() RecordStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.h == nil {
		return RecordStats{}
	}
	q := func(p float64) float64 { return float64(r.h.ValueAtQuantile(p)) / 1000 }
	return RecordStats{Count: r.h.TotalCount(), P50Ms: q(50), P90Ms: q(90), P95Ms: q(95), P99Ms: q(99)}
}

// Reset clears the record.
func (r *Record) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.h = nil
}

// ExpQuantile is the analytic quantile of Exp in milliseconds.
func ExpQuantile(q float64) float64 { return 10 - 5*math.Log(1-q) }

// StallWait is how long a request arriving at elapsed (since epoch) is held by Stall.
func StallWait(elapsed, period, freeze time.Duration) time.Duration {
	phase := elapsed % period
	if phase >= period-freeze {
		return period - phase
	}
	return 0
}

// StallRecorded is the stall target as a plain handler, for servers of any protocol (the
// h2c server of bench/targets): it holds each request until the freeze it arrived in ends
// (StallWait from epoch) and records the handler's wall time. Unlike StallServer it sleeps
// per request rather than releasing the held requests together.
func StallRecorded(epoch time.Time, period, freeze time.Duration) (http.Handler, *Record) {
	rec := &Record{}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		start := time.Now()
		if d := StallWait(start.Sub(epoch), period, freeze); d > 0 {
			time.Sleep(d)
		}
		rec.add(time.Since(start))
		_, _ = w.Write([]byte("ok\n"))
	}), rec
}

// Lognormal answers after a lognormal latency through p50 and p99 (σ = ln(p99/p50)/z₀.₉₉,
// z₀.₉₉ = 2.326348) and answers 503 at once to a share errorRate of requests.
func Lognormal(seed uint64, p50, p99 time.Duration, errorRate float64) http.Handler {
	rng := newLocked(seed)
	mu := math.Log(float64(p50))
	sigma := math.Log(float64(p99)/float64(p50)) / 2.326348
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fail, z := rng.draw(errorRate)
		if fail {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		time.Sleep(time.Duration(math.Exp(mu + sigma*z)))
		_, _ = w.Write([]byte("ok\n"))
	})
}

// Mux serves the net/http targets under one address: /fast, /exp and /lognormal (p50
// 40 ms, p99 300 ms, 1% 503). GET /exp/stats returns the server's record of /exp as JSON
// and clears it. The streaming targets (Stream): /sse, 20 SSE events, the first 30 ms after
// the request, then one every 10 ms (its record at /sse/stats, cleared when read), and
// /sse/long, 60,000 events 10 ms apart (a 10-minute stream, for the probe's memory). The
// stall target has its own server (StartStall).
func Mux(seed uint64) *http.ServeMux {
	m := http.NewServeMux()
	m.Handle("/fast", Fast())
	exp, rec := ExpRecorded(seed)
	m.Handle("/exp", exp)
	m.HandleFunc("/exp/stats", func(w http.ResponseWriter, _ *http.Request) {
		st := rec.Stats()
		rec.Reset()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(st)
	})
	m.Handle("/lognormal", Lognormal(seed, 40*time.Millisecond, 300*time.Millisecond, 0.01))
	sse, sseRec := Stream(StreamConfig{FirstEvent: 30 * time.Millisecond, Gap: 10 * time.Millisecond, Events: 20})
	m.Handle("/sse", sse)
	m.HandleFunc("/sse/stats", func(w http.ResponseWriter, _ *http.Request) {
		st := sseRec.Stats()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(st)
	})
	long, _ := Stream(StreamConfig{FirstEvent: 10 * time.Millisecond, Gap: 10 * time.Millisecond, Events: 60_000})
	m.Handle("/sse/long", long)
	return m
}

// Server is a running loopback target.
type Server struct {
	// URL is "http://127.0.0.1:PORT" without a trailing slash.
	URL string
	srv *http.Server
	ln  net.Listener
}

// Start serves h on 127.0.0.1 at a free port. Loopback only, by construction.
func Start(h http.Handler) (*Server, error) {
	return Listen("127.0.0.1:0", h)
}

// Listen serves h on addr, which must be a loopback address.
func Listen(addr string, h http.Handler) (*Server, error) {
	ln, err := listenLoopback(addr)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ln: ln}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// listenLoopback listens on addr, which must be a loopback address.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, errors.New("probetest serves on loopback addresses only")
	}
	return net.Listen("tcp", addr)
}

// Close stops the server and drops its connections.
func (s *Server) Close() error { return s.srv.Close() }

// locked is a seeded PCG generator safe for concurrent handlers.
type locked struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newLocked(seed uint64) *locked {
	return &locked{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// ExpFloat64 draws from Exp(1).
func (l *locked) ExpFloat64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rng.ExpFloat64()
}

// draw decides a failure with probability p and draws a standard normal, in one lock, so
// the sequence for a seed does not depend on which requests failed.
func (l *locked) draw(p float64) (bool, float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rng.Float64() < p, l.rng.NormFloat64()
}
