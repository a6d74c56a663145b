package probe

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// How a probe sends requests. Every caller (one per closed-model worker, pooled in the open
// model) sends one request at a time on connections the probe dials itself (direct.go): the
// request is serialised once by net/http, each send is one write, and the response is
// parsed by net/http's ReadResponse in the caller's own goroutine. net/http's Transport hands
// every request to a write loop and every response back from a read loop, goroutine to
// goroutine; that cost about 23 µs of CPU per request, held the probe to 0.5–0.6 of wrk's
// throughput on loopback, and after a stall made the probe's processing of hundreds of
// responses compete for the cores with the target still releasing them.
//
// Timings come from the connection, not from per-request hooks: every connection is a
// *timedConn whose dial measured its own DNS, connect and TLS time, and which stamps the
// socket-level moments of the request it carries (written, first and last response byte
// read; on Linux the kernel's receive time of those bytes, kstamp_linux.go).
//
// When the target is reached through a proxy the probe uses net/http's Transport, which
// speaks to proxies, with a per-request trace of every hook (proxy.go).

// clockBase anchors the monotonic nanosecond stamps of timedConn.
var clockBase = time.Now()

// mono is the monotonic time since clockBase in ns; at converts it back.
func mono() int64           { return int64(time.Since(clockBase)) }
func at(ns int64) time.Time { return clockBase.Add(time.Duration(ns)) }

// monoOf is the mono() stamp of t (which carries a monotonic reading: time.Now's).
func monoOf(t time.Time) int64 { return int64(t.Sub(clockBase)) }

// timings is what record needs to know about one request besides its three own times.
// Zero times mean "not observed".
type timings struct {
	dnsStart, dnsDone   time.Time
	connStart, connDone time.Time
	tlsStart, tlsDone   time.Time
	tlsErr              bool
	wrote, firstByte    time.Time
	// maxGap is the longest pause between two reads of the response that brought data,
	// after its first byte (0: none, or one read).
	maxGap time.Duration
	reused bool
}

// dialTimes are the DNS, connect and TLS times of one dial. The mutex is needed because a
// happy-eyeballs dial races two connects and the loser may report after the dial returned.
type dialTimes struct {
	mu                  sync.Mutex
	dnsStart, dnsDone   time.Time
	connStart, connDone time.Time
	tlsStart, tlsDone   time.Time
}

// trace returns hooks that fill d; they are attached to the dial's context only.
func (d *dialTimes) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) { d.mu.Lock(); d.dnsStart = time.Now(); d.mu.Unlock() },
		DNSDone:  func(httptrace.DNSDoneInfo) { d.mu.Lock(); d.dnsDone = time.Now(); d.mu.Unlock() },
		ConnectStart: func(string, string) {
			d.mu.Lock()
			if d.connStart.IsZero() {
				d.connStart = time.Now()
			}
			d.mu.Unlock()
		},
		ConnectDone: func(_, _ string, err error) {
			d.mu.Lock()
			if err == nil && d.connDone.IsZero() {
				d.connDone = time.Now()
			}
			d.mu.Unlock()
		},
	}
}

// copyTo puts the dial's times into t (the first request on a connection carries them).
func (d *dialTimes) copyTo(t *timings) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t.dnsStart, t.dnsDone, t.connStart, t.connDone, t.tlsStart, t.tlsDone = d.dnsStart, d.dnsDone, d.connStart, d.connDone, d.tlsStart, d.tlsDone
}

// timedConn is a dialled connection that knows its dial times and stamps, for the request it
// is carrying, when the request was written and when response bytes were read. Only the
// caller that owns the connection reads and writes it, so the stamps are plain fields.
type timedConn struct {
	net.Conn
	// stamps reads with kernel receive timestamps (kstamp_linux.go); nil when the kernel
	// does not provide them, or under TLS, and reads are then stamped on return.
	stamps *stampReader
	dial   dialTimes

	wrote     int64 // mono() when the latest Write returned
	firstRead int64 // mono() of the first Read with data since the latest Write began; 0 none
	lastRead  int64 // mono() of the latest Read with data
	// maxGap is the longest time between two Reads with data since the first one after the
	// latest Write: the response's longest pause, kept as one running maximum (no list of
	// reads: memory stays flat however the body is cut up).
	maxGap int64
}

// startResponse forgets the previous response's reads: the next Read with data is the
// first byte of the response to the request being written.
func (c *timedConn) startResponse() { c.firstRead, c.maxGap = 0, 0 }

func (c *timedConn) Write(b []byte) (int, error) {
	c.startResponse()
	var n int
	var err error
	if c.stamps != nil {
		n, err = c.stamps.write(b)
	} else {
		n, err = c.Conn.Write(b)
	}
	c.wrote = mono()
	return n, err
}

// send writes an HTTP/1.1 request and, on a connection with kernel stamps, waits until the
// response starts to arrive before returning (stampReader.writeWait); wrote is stamped when
// the write ended either way. Only the caller that reads the response next may use it.
func (c *timedConn) send(b []byte) (int, error) {
	if c.stamps == nil {
		return c.Write(b)
	}
	c.startResponse()
	n, err := c.stamps.writeWait(b)
	if w := c.stamps.wroteAtMono(); w != 0 {
		c.wrote = w
	} else {
		c.wrote = mono()
	}
	return n, err
}

func (c *timedConn) Read(b []byte) (int, error) {
	var n int
	var err error
	var kernel int64
	if c.stamps != nil {
		n, kernel, err = c.stamps.read(b)
	} else {
		n, err = c.Conn.Read(b)
	}
	if n > 0 {
		now := time.Now()
		t := int64(now.Sub(clockBase))
		// The kernel stamp is wall-clock time: take the delay since it, by the wall clock,
		// off the monotonic now. A step of the wall clock in between could make it absurd.
		if kernel != 0 {
			if d := now.UnixNano() - kernel; d > 0 && d < int64(time.Minute) {
				t -= d
			}
		}
		if c.firstRead == 0 {
			c.firstRead = t
		} else {
			c.maxGap = max(c.maxGap, t-c.lastRead)
		}
		c.lastRead = t
	}
	return n, err
}

// dialer dials timedConns: plain TCP, or TCP then TLS for https, timing each step.
type dialer struct {
	net        net.Dialer
	tls        *tls.Config
	tlsTimeout time.Duration
	// resolve maps "host:port" to the addresses --resolve gives for it (tls.go).
	resolve map[string][]string
	// handshakes holds the state of the run's first completed TLS handshake, for the report.
	handshakes atomic.Pointer[tls.ConnectionState]
}

// noteTLS keeps the first handshake's state (of conn, when it is a TLS connection).
func (d *dialer) noteConn(conn net.Conn) {
	if c, ok := conn.(*tls.Conn); ok && d.handshakes.Load() == nil {
		d.noteTLS(c.ConnectionState())
	}
}

func (d *dialer) noteTLS(st tls.ConnectionState) {
	if d.handshakes.Load() == nil {
		d.handshakes.CompareAndSwap(nil, &st)
	}
}

func (d *dialer) dial(ctx context.Context, network, addr string) (*timedConn, error) {
	tc := &timedConn{}
	conn, err := d.dialContext(httptrace.WithClientTrace(ctx, tc.dial.trace()), network, addr)
	if err != nil {
		return nil, err
	}
	tc.Conn = conn
	return tc, nil
}

// dialTCP dials a plain connection whose reads carry kernel receive stamps where the
// platform has them.
func (d *dialer) dialTCP(ctx context.Context, network, addr string) (*timedConn, error) {
	tc, err := d.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc.stamps = newStampReader(tc.Conn)
	return tc, nil
}

// dialTLS dials and runs the handshake net/http would (ServerName from the address,
// the handshake bounded by tlsTimeout), timed. The timedConn wraps the *tls.Conn, so its
// stamps see response bytes, not TLS 1.3 session tickets that arrive after the handshake.
// alpn is the protocols offered: none for HTTP/1.1 (the server then speaks it), ["h2"] for
// HTTP/2, and a server that does not choose h2 then fails the dial.
func (d *dialer) dialTLS(ctx context.Context, network, addr string, alpn []string) (*timedConn, error) {
	tc, err := d.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := d.tls.Clone()
	cfg.NextProtos = alpn
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			_ = tc.Conn.Close()
			return nil, err
		}
		cfg.ServerName = host
	}
	conn := tls.Client(tc.Conn, cfg)
	hctx, cancel := context.WithTimeout(ctx, d.tlsTimeout)
	defer cancel()
	start := time.Now()
	err = conn.HandshakeContext(hctx)
	done := time.Now()
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	tc.dial.mu.Lock()
	tc.dial.tlsStart, tc.dial.tlsDone = start, done
	tc.dial.mu.Unlock()
	tc.Conn = conn
	st := conn.ConnectionState()
	if len(alpn) > 0 && !slices.Contains(alpn, st.NegotiatedProtocol) {
		_ = conn.Close()
		return nil, fmt.Errorf("tls: the server chose no protocol of %q by ALPN (%q): it does not speak HTTP/2 over TLS; --http 1.1 or auto", alpn, st.NegotiatedProtocol)
	}
	return tc, nil
}

// caller sends one request at a time. Its context is built once and reused until a
// request times out (it is then cancelled and rebuilt).
type caller struct {
	r      *runner
	ctx    context.Context
	cancel context.CancelCauseFunc
	buf    []byte // drains response bodies

	direct directState   // the probe's own connections (direct.go)
	h2     *h2stream     // h2.go: the caller's stream, reused from request to request
	h2w    net.Conn      // h2.go: the HTTP/2 connection this caller is writing (c.mu)
	req    *http.Request // proxy.go: r.base bound to ctx; nil when each send needs a body
	// stream is the streaming response in flight, if the response streams (stream.go).
	stream streamState

	// deadline bounds the request in flight by MaxTimeout: 0 while idle, mono() ns of the
	// deadline while a request is out, expiredMark once the watchdog cancelled it. One
	// watchdog per run replaces a timer (or context.WithTimeout) per request, whose heap
	// operations cost several percent of the probe's CPU.
	deadline atomic.Int64
	// mu guards ctx and cancel (between the caller's rebind and the watchdog) and the
	// connection a request is using (direct.active), which an expiry or the end of the run
	// aborts.
	mu sync.Mutex
}

// expiredMark in caller.deadline: the watchdog cancelled the request.
const expiredMark = -1

func (r *runner) newCaller(parent context.Context) *caller {
	c := &caller{r: r, buf: make([]byte, 2048)}
	c.bind(parent)
	r.callersMu.Lock()
	r.callers = append(r.callers, c)
	r.callersMu.Unlock()
	return c
}

// bind gives c a fresh context under parent (and the proxy path's request bound to it).
func (c *caller) bind(parent context.Context) {
	ctx, cancel := context.WithCancelCause(parent)
	c.ctx, c.cancel = ctx, cancel
	if c.r.base != nil {
		c.req = c.r.base.WithContext(ctx)
	}
}

func (c *caller) arm() { c.deadline.Store(mono() + int64(c.r.cfg.MaxTimeout)) }

// disarm ends the request's bound and reports whether the watchdog cancelled it; if it did,
// c gets a new context for the next request.
func (c *caller) disarm(parent context.Context) bool {
	if c.deadline.Swap(0) != expiredMark {
		return false
	}
	c.mu.Lock()
	c.bind(parent)
	c.mu.Unlock()
	return true
}

// expireIfDue cancels c's request if its deadline d (as loaded) is still the one in force.
func (c *caller) expireIfDue(d int64) {
	c.mu.Lock()
	if c.deadline.CompareAndSwap(d, expiredMark) {
		c.cancel(context.DeadlineExceeded)
		c.abortActive()
	}
	c.mu.Unlock()
}

// abort stops the request in flight, if any (the run is ending).
func (c *caller) abort() {
	c.mu.Lock()
	c.abortActive()
	c.mu.Unlock()
}

func (c *caller) close() {
	c.mu.Lock()
	c.cancel(context.Canceled)
	c.abortActive()
	c.mu.Unlock()
	c.direct.closeHeld()
}

// watchdog cancels requests that outlive MaxTimeout until stop is closed. Deadlines are
// handed out in time order (start + MaxTimeout), so sleeping until the earliest one in force
// — or MaxTimeout from now when none is — never misses one.
func (r *runner) watchdog(stop <-chan struct{}) {
	bound := int64(r.cfg.MaxTimeout)
	t := time.NewTimer(r.cfg.MaxTimeout)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		r.callersMu.Lock()
		callers := r.callers
		r.callersMu.Unlock()
		now := mono()
		next := now + bound
		for _, c := range callers {
			d := c.deadline.Load()
			switch {
			case d <= 0:
			case d <= now:
				c.expireIfDue(d)
			case d < next:
				next = d
			}
		}
		t.Reset(time.Duration(next - now))
	}
}
