package probe

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The hot path of a probe is one keep-alive request after another. Building an
// httptrace.ClientTrace with its hook closures, a timeout context and a request copy for
// every send was about a third of the time in runner.do and a tenth of the client's CPU
// (CPU profile of -c 50 against bench/targets /fast), so the timings come from two places
// instead:
//
//   - every connection the probe dials is a *timedConn: the dial measures its own DNS,
//     connect and TLS time once, and the connection stamps the socket-level moments of each
//     request it carries (request written, first and last response byte read);
//   - a caller (one per closed-model worker, pooled in the open model) owns a context, a
//     request and a ClientTrace built once; its only hook, GotConn, runs synchronously in the
//     caller's own goroutine before RoundTrip returns (net/http Transport.getConn), so it
//     can never write into a later request's state.
//
// When the target is reached through a proxy the transport dials the proxy and runs the
// target's TLS handshake itself (Transport.dialConn → addTLS), out of the dialer's sight; the
// probe then falls back to a fresh per-request trace with every hook (legacyTracer).

// clockBase anchors the monotonic nanosecond stamps of timedConn.
var clockBase = time.Now()

// mono is the monotonic time since clockBase in ns; at converts it back.
func mono() int64           { return int64(time.Since(clockBase)) }
func at(ns int64) time.Time { return clockBase.Add(time.Duration(ns)) }

// timings is what record needs to know about one request besides its three own times.
// Zero times mean "not observed".
type timings struct {
	dnsStart, dnsDone   time.Time
	connStart, connDone time.Time
	tlsStart, tlsDone   time.Time
	tlsErr              bool
	wrote, firstByte    time.Time
	reused              bool
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

// timedConn is a dialled connection that knows its dial times and stamps, for the request it
// is carrying, when the request was written and when response bytes were read. Read and
// Write run on the transport's read and write loops (and the body reader), the stamps are
// read by the caller: all of them are atomics.
type timedConn struct {
	net.Conn
	// stamps reads with kernel receive timestamps (kstamp_linux.go); nil when the kernel
	// does not provide them, or under TLS, and reads are then stamped on return.
	stamps *stampReader

	dial    dialTimes
	claimed atomic.Bool // the dial times were recorded (by the connection's first request)
	// owner is the caller that last got the connection (GotConn): a caller trusts the
	// stamps below only while it is still the owner.
	owner atomic.Pointer[caller]

	writes    atomic.Int64 // Write calls started; a new request on this connection bumps it
	wrote     atomic.Int64 // mono() when the latest Write returned
	wroteSeq  atomic.Int64 // the writes count that wrote belongs to
	firstRead atomic.Int64 // mono() of the first Read with data since the latest Write began; 0 none
	lastRead  atomic.Int64 // mono() of the latest Read with data
}

func (c *timedConn) Write(b []byte) (int, error) {
	seq := c.writes.Add(1)
	c.firstRead.Store(0)
	n, err := c.Conn.Write(b)
	c.wrote.Store(mono())
	c.wroteSeq.Store(seq)
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
		if c.firstRead.Load() == 0 {
			c.firstRead.Store(t)
		}
		c.lastRead.Store(t)
	}
	return n, err
}

// written waits until the stamp of Write number seq is stored and returns it (0 if that
// takes more than 10 ms). The response can reach the caller before the transport's write
// loop, descheduled right after its write returned, has stored the stamp; and a server that
// answers before reading a large body leaves the write blocked.
func (c *timedConn) written(seq int64) int64 {
	var since time.Time
	for k := 0; c.wroteSeq.Load() != seq; k++ {
		if k%64 == 0 {
			switch {
			case k == 0:
			case since.IsZero():
				since = time.Now()
			case time.Since(since) > 10*time.Millisecond:
				return 0
			}
		}
		runtime.Gosched()
	}
	return c.wrote.Load()
}

// NetConn returns the wrapped connection, as tls.Conn.NetConn does.
func (c *timedConn) NetConn() net.Conn { return c.Conn }

// dialer dials timedConns: plain TCP, or TCP then TLS for https, timing each step.
type dialer struct {
	net        net.Dialer
	tls        *tls.Config
	tlsTimeout time.Duration
}

func (d *dialer) dial(ctx context.Context, network, addr string) (*timedConn, error) {
	tc := &timedConn{}
	// The dial context carries the caller's trace (net/http keeps the request context's
	// values for the dial); composing adds the caller's GotConn to this trace, which the
	// dialer never calls.
	conn, err := d.net.DialContext(httptrace.WithClientTrace(ctx, tc.dial.trace()), network, addr)
	if err != nil {
		return nil, err
	}
	tc.Conn = conn
	return tc, nil
}

// DialContext is the Transport's DialContext.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	tc, err := d.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc.stamps = newStampReader(tc.Conn)
	return tc, nil
}

// DialTLSContext is the Transport's DialTLSContext: the handshake net/http would do
// (Transport.addTLS: ServerName from the address, TLSHandshakeTimeout), timed here. The
// timedConn wraps the *tls.Conn, so its stamps see response bytes, not TLS 1.3 session
// tickets that arrive after the handshake.
func (d *dialer) DialTLSContext(ctx context.Context, network, addr string) (net.Conn, error) {
	tc, err := d.dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := d.tls.Clone()
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
	return tc, nil
}

// caller sends one request at a time. Its context, request and trace are built once and
// reused until a request times out (its context is then cancelled and rebuilt).
type caller struct {
	r      *runner
	ctx    context.Context
	cancel context.CancelCauseFunc
	req    *http.Request // r.base bound to ctx; nil when each send needs a body
	trace  httptrace.ClientTrace
	conn   net.Conn // from GotConn
	reused bool
	buf    []byte // drains response bodies

	// deadline bounds the request in flight by MaxTimeout: 0 while idle, mono() ns of the
	// deadline while a request is out, expiredMark once the watchdog cancelled it. One
	// watchdog per run replaces a timer (or context.WithTimeout) per request, whose heap
	// operations cost several percent of the probe's CPU.
	deadline atomic.Int64
	mu       sync.Mutex // ctx and cancel, between the caller's rebind and the watchdog
}

// expiredMark in caller.deadline: the watchdog cancelled the request.
const expiredMark = -1

func (r *runner) newCaller(parent context.Context) *caller {
	c := &caller{r: r, buf: make([]byte, 2048)}
	c.trace.GotConn = func(info httptrace.GotConnInfo) {
		c.conn, c.reused = info.Conn, info.Reused
		if tc, ok := info.Conn.(*timedConn); ok {
			tc.owner.Store(c)
		}
	}
	c.bind(parent)
	r.callersMu.Lock()
	r.callers = append(r.callers, c)
	r.callersMu.Unlock()
	return c
}

// bind gives c a fresh context under parent (and the request bound to it).
func (c *caller) bind(parent context.Context) {
	ctx, cancel := context.WithCancelCause(parent)
	if !c.r.legacy {
		ctx = httptrace.WithClientTrace(ctx, &c.trace)
	}
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
	}
	c.mu.Unlock()
}

func (c *caller) close() {
	c.mu.Lock()
	c.cancel(context.Canceled)
	c.mu.Unlock()
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
