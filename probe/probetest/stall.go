package probetest

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// StallServer is the stall target on its own loopback listener: it answers at once, except
// during a global freeze of Freeze every Period (the last Freeze of each period, from
// epoch), when requests are held until the freeze ends. For an open-model client at any
// constant rate over a whole number of periods, Freeze/Period of the arrivals wait
// U(0, Freeze): with 500 ms every 5 s, 10% of them, so the true p95 is 250 ms and the true
// p99 450 ms, and p50 is about 0.
//
// It is served without net/http's server, because what it defines is the moment a held
// response is released. At 1000/s a freeze holds 500 requests; a frozen server resuming
// drains its queue oldest first, and here one goroutine per core writes the held responses,
// prebuilt, one write each. net/http wakes every held handler and runs its end-of-request
// work per response, which on a 2-core machine, with the client competing for the cores,
// answered the median held request 11–16 ms late (p95 +4.5–6.6% by the server's own
// record). Requests are still parsed by net/http (http.ReadRequest).
type StallServer struct {
	// URL is "http://127.0.0.1:PORT" without a trailing slash. GET URL/stats returns the
	// server's record of the requests so far as JSON (RecordStats) and clears it.
	URL string
	// Record is the server's own record: for every request, the time from its arrival (its
	// head read) to its response written to the socket.
	Record *Record

	epoch          time.Time
	period, freeze time.Duration
	ln             net.Listener

	// released, when set (by tests), is told which writer answered each held request, in
	// the order it wrote them.
	released func(writer int, h *heldRequest)

	mu    sync.Mutex
	held  map[int64][]*heldRequest // by the freeze's end, ns since epoch; arrival order
	conns map[net.Conn]struct{}
	done  bool
	wg    sync.WaitGroup
}

type heldRequest struct {
	conn    net.Conn
	resp    []byte
	arrived time.Time
	// answered is closed once the response was written: the connection's goroutine may
	// then read the next request.
	answered chan struct{}
	err      error
}

// StartStall serves the stall target on 127.0.0.1 at a free port.
func StartStall(epoch time.Time, period, freeze time.Duration) (*StallServer, error) {
	return ListenStall("127.0.0.1:0", epoch, period, freeze)
}

// ListenStall serves the stall target on addr, which must be a loopback address.
func ListenStall(addr string, epoch time.Time, period, freeze time.Duration) (*StallServer, error) {
	ln, err := listenLoopback(addr)
	if err != nil {
		return nil, err
	}
	s := &StallServer{URL: "http://" + ln.Addr().String(), Record: &Record{}, epoch: epoch, period: period, freeze: freeze,
		ln: ln, held: map[int64][]*heldRequest{}, conns: map[net.Conn]struct{}{}}
	s.wg.Go(s.accept)
	return s, nil
}

// Close stops the server, drops its connections and waits for its goroutines.
func (s *StallServer) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	s.done = true
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *StallServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.done {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

var (
	stallOK   = []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n")
	stallHead = []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\n")
	stallBad  = []byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
)

// serve reads the requests of one connection and answers each, at once or at the end of
// the freeze it arrived in.
func (s *StallServer) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		_ = c.Close()
	}()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			var bad = !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed)
			if bad {
				_, _ = c.Write(stallBad)
			}
			return
		}
		arrived := time.Now()
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return
		}
		resp := stallOK
		switch {
		case req.Method == http.MethodHead:
			resp = stallHead
		case req.URL.Path == "/stats":
			st, _ := json.Marshal(s.Record.Stats())
			s.Record.Reset()
			resp = []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(st)+1) + "\r\n\r\n" + string(st) + "\n")
			if _, err := c.Write(resp); err != nil {
				return
			}
			continue
		}
		if elapsed := arrived.Sub(s.epoch); StallWait(elapsed, s.period, s.freeze) > 0 {
			h := &heldRequest{conn: c, resp: resp, arrived: arrived, answered: make(chan struct{})}
			s.hold(elapsed+StallWait(elapsed, s.period, s.freeze), h)
			<-h.answered
			err = h.err
		} else {
			_, err = c.Write(resp)
			s.Record.add(time.Since(arrived))
		}
		if err != nil || req.Close {
			return
		}
	}
}

// hold queues h for the freeze ending at end (ns since epoch), starting its releaser with
// the first request it holds.
func (s *StallServer) hold(end time.Duration, h *heldRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	batch, ok := s.held[int64(end)]
	s.held[int64(end)] = append(batch, h)
	if !ok {
		s.wg.Add(1)
		go s.release(int64(end))
	}
}

// release waits for the end of a freeze (a sleep, then a spin over the last millisecond,
// which the host's timer would overshoot) and answers the requests it held, oldest first,
// spread over one writer per core.
func (s *StallServer) release(end int64) {
	defer s.wg.Done()
	at := s.epoch.Add(time.Duration(end))
	if d := time.Until(at) - time.Millisecond; d > 0 {
		time.Sleep(d)
	}
	for time.Now().Before(at) {
		runtime.Gosched()
	}
	s.mu.Lock()
	batch := s.held[end]
	delete(s.held, end) // a request that computed this freeze but locks later starts a new batch
	s.mu.Unlock()
	writers := min(runtime.GOMAXPROCS(0), len(batch))
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := w; i < len(batch); i += writers {
				h := batch[i]
				_, h.err = h.conn.Write(h.resp)
				s.Record.add(time.Since(h.arrived))
				if s.released != nil {
					s.released(w, h)
				}
			}
		})
	}
	wg.Wait()
	// The connections' goroutines are woken only after the last write: each one that wakes
	// reads its connection, which would compete for the cores with the writes to come.
	for _, h := range batch {
		close(h.answered)
	}
}
