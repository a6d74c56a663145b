// Package probetest holds loopback HTTP targets whose latency distribution is known, for the
// probe's tests, the demo and bench/: a fast endpoint, 10 ms + Exp(5 ms), a server that
// freezes 500 ms every 5 s, and a lognormal one with a few 503s. Every RNG is seeded
// (math/rand/v2 PCG), so a target behaves the same for the same seed.
package probetest

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
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
		r.h = hdrhistogram.New(1, 3_600_000_000, 3)
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

// Stall answers at once, except during a global freeze of freeze every period (the last
// freeze of each period, measured from epoch): requests arriving during a freeze are held
// until it ends. For an open-model client at any constant rate over a whole number of
// periods, freeze/period of arrivals wait U(0, freeze): with 500 ms every 5 s, 10% of them,
// so the true p95 is 250 ms and the true p99 450 ms — and p50 is about 0.
func Stall(epoch time.Time, period, freeze time.Duration) http.Handler {
	h, _ := StallRecorded(epoch, period, freeze)
	return h
}

// StallRecorded is Stall plus the server's own record: for every request, the time from the
// handler's start to its response written to the socket (Content-Length set and flushed, so
// one write). Compared with a client's figures it separates the client's error from the
// time this server itself takes to answer hundreds of requests released at once.
//
// The held requests are answered by one goroutine, oldest first, in a tight loop of one
// write each, as a frozen server that resumes would drain its queue. Letting every held
// handler wake on its own timer instead costs a goroutine wake-up, net/http's bookkeeping
// and a scheduling race with the client per response: at 1000/s (500 held) that release
// took so long on a 2-core machine that the server itself answered the median held
// request 16 ms late (p95 +6.6% against the 250 ms the freeze defines), while the loop
// writes 500 responses in about 5 ms on a quiet machine (p95 +3.6% with the client
// competing for the cores, bench/accuracy.sh).
func StallRecorded(epoch time.Time, period, freeze time.Duration) (http.Handler, *Record) {
	g := &stallGate{epoch: epoch, period: period, freeze: freeze, rec: &Record{}, held: map[int64]*heldBatch{}}
	return g, g.rec
}

// stallGate is the handler of StallRecorded.
type stallGate struct {
	epoch          time.Time
	period, freeze time.Duration
	rec            *Record

	mu   sync.Mutex
	held map[int64]*heldBatch // by the freeze's end, ns since epoch
}

// heldBatch is the requests held by one freeze, in arrival order.
type heldBatch struct{ reqs []*heldRequest }

type heldRequest struct {
	w     http.ResponseWriter
	start time.Time
	// answered is closed by the releaser once it wrote the response: only then may the
	// handler return (net/http owns w again after that).
	answered chan struct{}
}

var stallBody = []byte("ok\n")

func (g *stallGate) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	start := time.Now()
	elapsed := start.Sub(g.epoch)
	wait := StallWait(elapsed, g.period, g.freeze)
	if wait <= 0 {
		g.answer(w, start)
		return
	}
	end := elapsed + wait
	h := &heldRequest{w: w, start: start, answered: make(chan struct{})}
	g.mu.Lock()
	b, ok := g.held[int64(end)]
	if !ok {
		b = &heldBatch{}
		g.held[int64(end)] = b
		go g.release(int64(end))
	}
	b.reqs = append(b.reqs, h)
	g.mu.Unlock()
	<-h.answered
}

// release waits for the end of a freeze (a sleep, then a spin over the last millisecond,
// which the host's timer would overshoot) and answers the batch held by it.
func (g *stallGate) release(end int64) {
	at := g.epoch.Add(time.Duration(end))
	if d := time.Until(at) - time.Millisecond; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(at) {
		runtime.Gosched()
	}
	g.mu.Lock()
	b := g.held[end]
	delete(g.held, end) // a handler that computed this freeze but locks later starts a new batch
	g.mu.Unlock()
	// The handlers are woken only after the last write: each one that wakes runs net/http's
	// end-of-request work, which would compete for the CPU with the writes still to come.
	for _, h := range b.reqs {
		g.answer(h.w, h.start)
	}
	for _, h := range b.reqs {
		close(h.answered)
	}
}

// answer writes the response in one write and records it.
func (g *stallGate) answer(w http.ResponseWriter, start time.Time) {
	w.Header().Set("Content-Length", "3")
	_, _ = w.Write(stallBody)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	g.rec.add(time.Since(start))
}

// StallWait is how long a request arriving at elapsed (since epoch) is held by Stall.
func StallWait(elapsed, period, freeze time.Duration) time.Duration {
	phase := elapsed % period
	if phase >= period-freeze {
		return period - phase
	}
	return 0
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

// Mux serves every target under one address: /fast, /exp, /stall (500 ms every 5 s from
// the moment Mux was called) and /lognormal (p50 40 ms, p99 300 ms, 1% 503). GET
// /exp/stats and /stall/stats return the server's record of /exp and /stall as JSON and
// clear it.
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
	stall, stallRec := StallRecorded(time.Now(), 5*time.Second, 500*time.Millisecond)
	m.Handle("/stall", stall)
	m.HandleFunc("/stall/stats", func(w http.ResponseWriter, _ *http.Request) {
		st := stallRec.Stats()
		stallRec.Reset()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(st)
	})
	m.Handle("/lognormal", Lognormal(seed, 40*time.Millisecond, 300*time.Millisecond, 0.01))
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
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, errors.New("probetest serves on loopback addresses only")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ln: ln}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
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
