package probe

import (
	"bytes"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// The proxy path: a target reached through a proxy (HTTP_PROXY, HTTPS_PROXY) is probed
// through net/http's Transport, which speaks to proxies and runs the target's TLS handshake
// itself, out of the probe's dialer's sight. Its timings come from a per-request trace with
// every hook. It is slower per request than the direct path (client.go), which only matters
// for throughput runs, and those are not run through proxies.

// proxyTransports are the Transports of the proxy path: one keeping connections alive,
// one opening a connection per request.
func proxyTransports(cfg *Config, d *dialer, idle int) (reuse, fresh *http.Transport) {
	mk := func(keepAlive bool) *http.Transport {
		return &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         d.dialContext,
			TLSClientConfig:     d.tls,
			TLSHandshakeTimeout: cfg.MaxTimeout,
			DisableKeepAlives:   !keepAlive,
			DisableCompression:  true, // measure the bytes the server sends, not our gunzip
			MaxIdleConnsPerHost: idle,
			IdleConnTimeout:     90 * time.Second,
		}
	}
	return mk(true), mk(false)
}

// viaTransport sends c's request through the proxy path's Transports and reads the whole response.
func (r *runner) viaTransport(c *caller, fresh bool) (status int, t timings, end time.Time, err error) {
	cfg := &r.cfg
	lt := newProxyTracer()
	rctx := httptrace.WithClientTrace(c.ctx, &lt.trace)
	var req *http.Request
	if c.req != nil {
		req = c.req.WithContext(rctx)
	} else {
		req, err = http.NewRequestWithContext(rctx, cfg.Method, cfg.URL, bytes.NewReader(cfg.Body))
		if err != nil {
			return 0, timings{}, time.Time{}, err
		}
		if cfg.Header != nil {
			req.Header = cfg.Header // read-only from here on: shared by every request
		}
		req.Host = requestHost(cfg)
	}
	rt := r.reuse
	if fresh {
		rt = r.fresh
	}
	resp, err := rt.RoundTrip(req)
	var gap time.Duration
	if err == nil {
		if resp.TLS != nil {
			r.dialer.noteTLS(*resp.TLS)
		}
		status = resp.StatusCode
		// The body's pauses, from the first response byte (GotFirstResponseByte, which
		// RoundTrip has run) to each read that brings data.
		last := lt.firstByte()
		if k := streamKindOf(resp.Header.Get("Content-Type"), cfg.Stream); k != streamNone {
			c.stream.via(lt.snapshot().reused)
			c.stream.begin(k)
		}
		for err == nil {
			var n int
			n, err = resp.Body.Read(c.buf)
			if n > 0 {
				now := time.Now()
				if !last.IsZero() {
					gap = max(gap, now.Sub(last))
				}
				last = now
				if c.stream.kind != streamNone {
					c.stream.feed(c.buf[:n], monoOf(now)) // stamped on return: no kernel stamp through a proxy
				}
			}
		}
		if err == io.EOF {
			err = nil
		}
		resp.Body.Close()
	}
	t = lt.snapshot()
	t.maxGap = gap
	if !t.reused {
		r.opened.Add(1)
	}
	return status, t, time.Now(), err
}

// proxyTracer collects the httptrace timestamps of one request when the probe's dialer
// cannot see the connection set-up (a proxy, see client.go). It is allocated per request: a
// reused one could receive hooks from an earlier request's background dial.
type proxyTracer struct {
	trace httptrace.ClientTrace
	dial  dialTimes  // DNS, connect and TLS, by the same hooks as the probe's own dialer
	mu    sync.Mutex // guards t
	t     timings
}

func newProxyTracer() *proxyTracer {
	lt := &proxyTracer{}
	t, d := &lt.t, &lt.dial
	// Every hook takes a lock: the transport may finish a dial in the background after the
	// request already returned on another connection, and still call these hooks.
	lt.trace = *d.trace()
	lt.trace.TLSHandshakeStart = func() { d.mu.Lock(); d.tlsStart = time.Now(); d.mu.Unlock() }
	lt.trace.TLSHandshakeDone = func(_ tls.ConnectionState, err error) {
		d.mu.Lock()
		d.tlsDone = time.Now()
		d.mu.Unlock()
		lt.mu.Lock()
		t.tlsErr = err != nil
		lt.mu.Unlock()
	}
	lt.trace.GotConn = func(info httptrace.GotConnInfo) { lt.mu.Lock(); t.reused = info.Reused; lt.mu.Unlock() }
	lt.trace.WroteRequest = func(httptrace.WroteRequestInfo) { lt.mu.Lock(); t.wrote = time.Now(); lt.mu.Unlock() }
	lt.trace.GotFirstResponseByte = func() { lt.mu.Lock(); t.firstByte = time.Now(); lt.mu.Unlock() }
	return lt
}

// firstByte is the moment of the response's first byte (zero: not seen).
func (lt *proxyTracer) firstByte() time.Time {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.t.firstByte
}

// snapshot copies the timings under the lock.
func (lt *proxyTracer) snapshot() timings {
	lt.mu.Lock()
	t := lt.t
	lt.mu.Unlock()
	lt.dial.copyTo(&t)
	return t
}
