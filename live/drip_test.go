package live

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/scenario"
)

// dripFault is a drip fault on every request: size bytes, bytes at a time, every apart.
func dripFault(every time.Duration, bytes, size int) scenario.Fault {
	return scenario.Fault{Kind: scenario.FaultDrip, Percent: 1, Drip: &scenario.Drip{Every: every, Bytes: bytes, Size: size}}
}

// paceRecorder is a ResponseWriter that stamps the head, each write and each flush, and
// signals the first flush (the head on the wire).
type paceRecorder struct {
	mu      sync.Mutex
	header  http.Header
	status  int
	events  []paceEvent
	flushed chan struct{}
	once    sync.Once
}

type paceEvent struct {
	what string // "head", "write", "flush"
	n    int
	at   time.Time
}

func newPaceRecorder() *paceRecorder {
	return &paceRecorder{header: http.Header{}, flushed: make(chan struct{})}
}

func (p *paceRecorder) add(what string, n int) {
	p.mu.Lock()
	p.events = append(p.events, paceEvent{what, n, time.Now()})
	p.mu.Unlock()
}

func (p *paceRecorder) Header() http.Header { return p.header }

func (p *paceRecorder) WriteHeader(code int) { p.status = code; p.add("head", 0) }

func (p *paceRecorder) Write(b []byte) (int, error) { p.add("write", len(b)); return len(b), nil }

func (p *paceRecorder) Flush() {
	p.add("flush", 0)
	p.once.Do(func() { close(p.flushed) })
}

// startedServer is a server whose phases are timed from now, for ServeHTTP without a
// listener.
func startedServer(sc *scenario.Scenario, opts ServerOptions) *Server {
	s := NewServer(sc, opts)
	s.start = time.Now()
	return s
}

// TestDripSendsHeadThenBodyPaced: the head (200, Content-Length the body's size) is flushed
// before any byte of the body, and the body comes in Pieces() writes, each flushed, with at
// least every (÷ speed) before each. Lower bounds only: a loaded machine is only ever late.
func TestDripSendsHeadThenBodyPaced(t *testing.T) {
	for _, tc := range []struct {
		name  string
		speed float64
		every time.Duration // scenario time
		bytes int
		size  int
	}{
		{"a byte at a time", 1, 20 * time.Millisecond, 1, 3},
		{"2 bytes at a time, the last piece shorter", 1, 20 * time.Millisecond, 2, 5},
		{"speed 4 divides every", 4, 80 * time.Millisecond, 2, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startedServer(target(time.Millisecond, dripFault(tc.every, tc.bytes, tc.size)), ServerOptions{Speed: tc.speed})
			rec := newPaceRecorder()
			s.ServeHTTP(rec, mustRequest(t, context.Background()))
			if rec.status != http.StatusOK || rec.header.Get("Content-Length") != strconv.Itoa(tc.size) {
				t.Fatalf("status %d, Content-Length %q: want 200 and %d", rec.status, rec.header.Get("Content-Length"), tc.size)
			}
			ev := rec.events
			if len(ev) < 2 || ev[0].what != "head" || ev[1].what != "flush" {
				t.Fatalf("events %v: want the head, flushed, first", ev)
			}
			gap := time.Duration(float64(tc.every) / tc.speed)
			last, pieces, total := ev[1].at, 0, 0
			for i, e := range ev[2:] {
				if e.what != "write" {
					continue
				}
				pieces++
				total += e.n
				if d := e.at.Sub(last); d < gap {
					t.Errorf("piece %d came %v after the one before, want at least %v", pieces, d, gap)
				}
				if i+3 >= len(ev) || ev[i+3].what != "flush" {
					t.Errorf("piece %d not flushed at once", pieces)
				}
				last = e.at
			}
			want := (scenario.Drip{Bytes: tc.bytes, Size: tc.size}).Pieces()
			if pieces < want || total != tc.size {
				t.Errorf("%d pieces, %d bytes: want %d pieces, %d bytes", pieces, total, want, tc.size)
			}
			if got := s.Stats().ByFault["drip"]; got != 1 {
				t.Errorf("stats by_fault.drip = %d, want 1", got)
			}
		})
	}
}

// TestDripStopsWhenClientLeaves: a client that goes away mid-drip ends the handler (no
// goroutine left behind), however long the drip had to run.
func TestDripStopsWhenClientLeaves(t *testing.T) {
	s := startedServer(target(time.Millisecond, dripFault(time.Hour, 1, 64)), ServerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	rec := newPaceRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.ServeHTTP(rec, mustRequest(t, ctx))
	}()
	<-rec.flushed // the head is out; the first piece is an hour away
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang guard, not a timing check
		t.Fatal("the drip went on after the client left")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, e := range rec.events {
		if e.what == "write" {
			t.Errorf("a piece was written after the client left: %v", rec.events)
		}
	}
}

// TestDripStopsWhenServerStops: Stop ends a drip in progress rather than waiting it out.
func TestDripStopsWhenServerStops(t *testing.T) {
	s := NewServer(target(time.Millisecond, dripFault(time.Hour, 1, 64)), ServerOptions{})
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	resp, err := client(time.Minute).Get(s.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.ContentLength != 64 {
		t.Fatalf("status %d, length %d: want 200 and 64 before the body", resp.StatusCode, resp.ContentLength)
	}
	stopped := make(chan error, 1)
	// A grace longer than the guard: Stop returns before it only if the drip ended.
	go func() { stopped <- s.Stop(2 * time.Minute) }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Stop: %v", err)
		}
	case <-time.After(time.Minute): // a hang guard, not a timing check
		t.Fatal("Stop waited for the drip")
	}
}

// TestProbeAgainstDrip: patience probe against serve's drip measures the pace as silence —
// its longest at least the drip's interval — and recommends a read timeout no longer than
// the total timeout.
func TestProbeAgainstDrip(t *testing.T) {
	const every = 50 * time.Millisecond
	s := startServer(t, target(time.Millisecond, dripFault(every, 1, 4)), ServerOptions{})
	r, err := probe.Run(context.Background(), probe.Config{URL: s.URL() + "/", Concurrency: 1, Requests: 3, Conn: "fresh"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status["200"] != 3 {
		t.Fatalf("statuses %v: want 3 × 200", r.Status)
	}
	sil := r.Phases.Silence
	if sil == nil || sil.MaxMs == nil {
		t.Fatalf("no silence measured: %+v", sil)
	}
	if got, want := *sil.MaxMs, float64(every)/float64(time.Millisecond)*0.999; got < want {
		t.Errorf("silence max %.3f ms, below the %v drip interval", got, every)
	}
	rec := r.Recommendation
	if rec.ReadTimeoutMs == nil {
		t.Fatalf("no read timeout recommended: %q", rec.Derivation)
	}
	if *rec.ReadTimeoutMs > rec.TimeoutMs {
		t.Errorf("read_timeout_ms %g above timeout_ms %g", *rec.ReadTimeoutMs, rec.TimeoutMs)
	}
	if got := s.Stats().ByFault["drip"]; got != 3 {
		t.Errorf("stats by_fault.drip = %d, want 3", got)
	}
}

func mustRequest(t *testing.T, ctx context.Context) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://patience.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Body = http.NoBody
	return req
}
