package probe

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/patience-dev/patience/policy"
)

// maxResponseHeaderBytes bounds a response's status line and headers, as net/http's
// Transport does (its default is 1 MiB too): a target streaming endless headers fails the
// request instead of filling the probe's memory.
const maxResponseHeaderBytes = 1 << 20

// errHeadersTooLarge is the error of a response whose head exceeds maxResponseHeaderBytes.
var errHeadersTooLarge = fmt.Errorf("response headers exceed %d bytes", maxResponseHeaderBytes)

// checkIdleAfter is how long a kept-alive connection may sit idle before the probe checks
// that the server has not closed it (peerClosed). Servers' idle timeouts are seconds; a
// connection in a throughput run is idle for microseconds and is not checked.
const checkIdleAfter = 10 * time.Millisecond

// aLongTimeAgo is a deadline in the past: setting it makes a blocked read return at once.
var aLongTimeAgo = time.Unix(1, 0)

// wire is the probe's request as bytes, serialised once by net/http's Request.Write (the
// same bytes its Transport would send: Host, User-Agent, Content-Length, the user's headers
// and body).
type wire struct {
	keepAlive []byte // for the connection a caller keeps alive
	closing   []byte // with "Connection: close", for a fresh connection per request
	// head tells ReadResponse the method (a response to HEAD has no body).
	head *http.Request
	// network and addr are what to dial; tls, whether to run a handshake on it.
	network, addr string
	tls           bool
	// replayable: the request may be sent again when a kept-alive connection turns out to
	// have been closed by the server before it read anything (RFC 9110 §9.2.2 idempotent
	// methods, or an idempotency key, as net/http's Transport decides).
	replayable bool
}

func newWire(cfg *Config) (*wire, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, err
	}
	w := &wire{network: "tcp", tls: u.Scheme == "https"}
	port := u.Port()
	if port == "" {
		port = "80"
		if w.tls {
			port = "443"
		}
	}
	w.addr = net.JoinHostPort(u.Hostname(), port)
	serialise := func(close bool) ([]byte, error) {
		var body io.Reader
		if cfg.Body != nil {
			body = bytes.NewReader(cfg.Body)
		}
		req, err := http.NewRequest(cfg.Method, cfg.URL, body)
		if err != nil {
			return nil, err
		}
		if cfg.Header != nil {
			req.Header = cfg.Header.Clone()
		}
		req.Host = requestHost(cfg)
		// Credentials in the URL are sent as Basic auth, as net/http's Client and curl do
		// (the report shows the URL with its password redacted).
		if u.User != nil && req.Header.Get("Authorization") == "" {
			password, _ := u.User.Password()
			req.SetBasicAuth(u.User.Username(), password)
		}
		req.Close = close
		var b bytes.Buffer
		if err := req.Write(&b); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	if w.keepAlive, err = serialise(false); err != nil {
		return nil, err
	}
	if w.closing, err = serialise(true); err != nil {
		return nil, err
	}
	w.head = &http.Request{Method: cfg.Method}
	w.replayable = policy.IdempotentMethod(cfg.Method) ||
		cfg.Header.Get("Idempotency-Key") != "" || cfg.Header.Get("X-Idempotency-Key") != ""
	return w, nil
}

// requestHost is the Host header to send: one given with --header (to reach a virtual
// host at an address, as curl -H does; net/http would ignore it in Header), or the URL's.
func requestHost(cfg *Config) string {
	if h := cfg.Header.Get("Host"); h != "" {
		return h
	}
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return ""
	}
	return u.Host
}

// directState is a caller's connections.
type directState struct {
	// held is the connection kept alive between requests (nil until the first reused
	// request, and after any error or "Connection: close").
	held *timedConn
	// active is the connection the request in flight uses; guarded by caller.mu, because
	// an expiry or the end of the run aborts it from another goroutine.
	active *timedConn
	br     *bufio.Reader
	lim    limitedReader
}

// closeHeld closes the kept-alive connection.
func (s *directState) closeHeld() {
	if s.held != nil {
		_ = s.held.Close()
		s.held = nil
	}
}

// abortActive makes the request in flight fail at once (c.mu held).
func (c *caller) abortActive() {
	if a := c.direct.active; a != nil {
		_ = a.SetDeadline(aLongTimeAgo)
	}
	if w := c.h2w; w != nil {
		_ = w.SetWriteDeadline(aLongTimeAgo) // a write the server does not take (h2.go)
	}
}

// setActive records the connection the request is about to use; a request whose bound
// already expired (or whose run ended) fails at its first read or write.
func (c *caller) setActive(conn *timedConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.direct.active = conn
	if conn != nil && (c.deadline.Load() == expiredMark || c.ctx.Err() != nil) {
		_ = conn.SetDeadline(aLongTimeAgo)
	}
}

// exchange sends c's request on a fresh connection (closed afterwards) or on the one c
// keeps alive, reads the whole response, and returns its status, timings and end (the
// moment its last byte was read, or zero when unknown).
func (c *caller) exchange(fresh bool) (status int, t timings, end time.Time, err error) {
	w := c.r.wire
	payload := w.keepAlive
	if fresh {
		payload = w.closing
	}
	for attempt := 0; ; attempt++ {
		conn, reused, dialErr := c.connection(fresh)
		if dialErr != nil {
			return 0, timings{}, time.Time{}, dialErr
		}
		t = timings{reused: reused}
		if !reused {
			conn.dial.copyTo(&t)
		}
		c.setActive(conn)
		c.stream.via(reused)
		var keep bool
		status, keep, err = c.roundTrip(conn, payload)
		c.setActive(nil)
		if c.aborted() {
			// The watchdog or the end of the run aborted this request, perhaps just as it
			// completed: the connection carries a deadline in the past and is not reused.
			keep = false
		}
		end = conn.copyStamps(&t)
		if err != nil || !keep || fresh {
			c.release(conn)
		}
		// A kept-alive connection the server closed while it was idle fails before any
		// response byte: send once more on a new connection, as net/http's Transport does,
		// if the request may be sent twice.
		if err != nil && reused && conn.firstRead == 0 && w.replayable && attempt == 0 && !c.aborted() {
			c.r.resent.Add(1)
			continue
		}
		if err != nil {
			end = time.Time{}
		}
		return status, t, end, err
	}
}

// connection is the connection for the next request: the kept-alive one unless it is fresh
// that is asked for, none is held, or the held one was closed by the peer while idle (checked
// past checkIdleAfter); else a new one, held when it is to be kept alive.
func (c *caller) connection(fresh bool) (conn *timedConn, reused bool, err error) {
	s := &c.direct
	conn = s.held
	if !fresh && conn != nil && mono()-conn.lastRead > int64(checkIdleAfter) && peerClosed(conn) {
		_ = conn.Close()
		s.held, conn = nil, nil
	}
	if !fresh && conn != nil {
		return conn, true, nil
	}
	if conn, err = c.r.dial(c.ctx); err != nil {
		return nil, false, err
	}
	if !fresh {
		s.held = conn
	}
	return conn, false, nil
}

// aborted reports whether the watchdog or the end of the run aborted c's request.
func (c *caller) aborted() bool {
	return c.deadline.Load() == expiredMark || c.ctx.Err() != nil
}

// copyStamps copies the connection's write and first-read stamps and the response's longest
// pause between reads into t, and returns the moment of the last read (zero when nothing was
// read).
func (c *timedConn) copyStamps(t *timings) (end time.Time) {
	if c.wrote != 0 {
		t.wrote = at(c.wrote)
	}
	if c.firstRead != 0 {
		t.firstByte = at(c.firstRead)
		t.maxGap = time.Duration(c.maxGap)
	}
	if c.lastRead != 0 {
		end = at(c.lastRead)
	}
	return end
}

// release closes conn, no longer held.
func (c *caller) release(conn *timedConn) {
	_ = conn.Close()
	if c.direct.held == conn {
		c.direct.held = nil
	}
}

// dial opens a connection to the target, timed.
func (r *runner) dial(ctx context.Context) (*timedConn, error) {
	r.opened.Add(1)
	if r.wire.tls {
		tc, err := r.dialer.dialTLS(ctx, r.wire.network, r.wire.addr, nil)
		if err == nil {
			r.dialer.noteConn(tc.Conn)
		}
		return tc, err
	}
	return r.dialer.dialTCP(ctx, r.wire.network, r.wire.addr)
}

// roundTrip writes payload on conn and reads the response to its end. keep reports whether
// the connection may carry another request.
func (c *caller) roundTrip(conn *timedConn, payload []byte) (status int, keep bool, err error) {
	s := &c.direct
	c.readFrom(conn)
	_, werr := conn.send(payload)
	// --stream times every body as a stream: ReadResponse and the stream reader read it.
	if werr == nil && !c.r.cfg.Stream {
		if res, ok := fastHead(s.br, c.r.wire.head.Method == http.MethodHead); ok {
			err = fastBody(s.br, &s.lim, res)
			keep = err == nil && !res.close && s.br.Buffered() == 0
			return res.status, keep, err
		}
	}
	return c.readResponse(conn, werr)
}

// readFrom points the caller's reader at conn for one response, its head bounded.
func (c *caller) readFrom(conn *timedConn) {
	s := &c.direct
	s.lim = limitedReader{r: conn, n: maxResponseHeaderBytes}
	if s.br == nil {
		s.br = bufio.NewReaderSize(&s.lim, 4096)
	} else {
		s.br.Reset(&s.lim)
	}
}

// readResponse reads the response with net/http's ReadResponse (every response the fast
// path does not take). werr is the error of the request's write, if any.
func (c *caller) readResponse(conn *timedConn, werr error) (status int, keep bool, err error) {
	s := &c.direct
	// Even when the write failed the server may have answered first (a 413 before reading a
	// large body, then closing): what it sent is still read.
	var resp *http.Response
	for {
		resp, err = http.ReadResponse(s.br, c.r.wire.head)
		// An interim 1xx response (100 Continue, 103 Early Hints) has no body; the final one
		// follows. 101 Switching Protocols is final: the connection is no longer HTTP.
		if err != nil || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	if err != nil {
		if werr != nil {
			err = werr
		}
		return 0, false, err
	}
	s.lim.n = math.MaxInt64
	if k := streamKindOf(resp.Header.Get("Content-Type"), c.r.cfg.Stream); k != streamNone {
		c.stream.begin(k)
		err = readStream(resp.Body, c.buf, &c.stream, func() int64 { return conn.lastRead })
	} else {
		for err == nil {
			_, err = resp.Body.Read(c.buf)
		}
		if err == io.EOF {
			err = nil
		}
	}
	_ = resp.Body.Close()
	keep = err == nil && werr == nil && !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols &&
		s.br.Buffered() == 0 // bytes beyond the response: the connection is out of step
	return resp.StatusCode, keep, err
}

// limitedReader fails reads once n bytes were read: it bounds a response's head. An error
// of the connection is returned again by every later read of the same response, so that
// ReadResponse meets the error the fast path's peek met (fastresp.go) instead of reading a
// connection that has already failed.
type limitedReader struct {
	r   io.Reader
	n   int64
	err error
}

func (l *limitedReader) Read(b []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if l.n <= 0 {
		return 0, errHeadersTooLarge
	}
	if int64(len(b)) > l.n {
		b = b[:l.n]
	}
	n, err := l.r.Read(b)
	l.n -= int64(n)
	l.err = err
	return n, err
}
