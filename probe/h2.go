//lint:file-ignore SA1019 issue 18 asks for golang.org/x/net/http2 (its Transport and ClientConn give the probe its own connection pool and per-stream errors); net/http's newer NewClientConn is the follow-up
package probe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
)

// The HTTP/2 path (issue 18 item 1; --http 2, or auto when TLS's ALPN agrees). Framing,
// flow control and HPACK are golang.org/x/net/http2's ClientConn; the probe keeps the pool
// itself, so it knows which stream opened which connection:
//
//   - Streams share connections as Go's own client does: a request takes a stream on the
//     newest connection that can take one (below the server's SETTINGS_MAX_CONCURRENT_STREAMS,
//     no GOAWAY) and only when none can is a connection dialled; requests that arrive while
//     that dial is under way wait for it rather than dialling their own.
//   - Connection set-up (DNS, connect, TLS) is timed by the probe's dialer and recorded once
//     per connection, on the stream that dialled it, as the fresh-connection phases. A stream
//     that waited for a set-up (it dialled, or waited on the dial) is "fresh": its total
//     includes the set-up; the others are "reused".
//   - --conn fresh gives every request a connection of its own, closed after its stream;
//     both alternates, as on HTTP/1.1.
//   - Per stream: TTFB from the request written (headers and body, END_STREAM) to the
//     response headers, and total from the intended send time to the end of the body, as on
//     HTTP/1.1 (coordinated omission corrected). The end is when the body's last byte was
//     handed to the probe: one read loop per connection demultiplexes the streams, so there
//     is no per-stream kernel receive stamp as on the HTTP/1.1 path.
//   - ClientConn.RoundTrip, unlike http2.Transport, retries nothing: a REFUSED_STREAM, a
//     stream aborted by GOAWAY and any other RST_STREAM are counted in their own error
//     classes (refused_stream, goaway, stream_reset; h2Class), because what a client may do
//     about them differs. Only a stream that never left the probe — its connection became
//     unusable between taking the stream and sending it — is sent on another connection.

// h2path is a run's HTTP/2 connections.
type h2path struct {
	r    *runner
	t    *http2.Transport
	h2c  bool          // prior knowledge over plain TCP
	base *http.Request // the request, without body or context

	mu      sync.Mutex
	conns   []*h2conn // connections streams may share, newest last
	dialing *h2dial   // the pool's dial under way, if any

	peakStreams atomic.Int64  // most streams in flight at once on one connection
	maxStreams  atomic.Uint32 // the server's SETTINGS_MAX_CONCURRENT_STREAMS, as last seen
}

// h2conn is one HTTP/2 connection and its set-up times.
type h2conn struct {
	cc      *http2.ClientConn
	dial    *dialTimes
	streams atomic.Int64
}

// h2dial is a pool dial others wait on.
type h2dial struct {
	done chan struct{}
	err  error
}

func newH2Path(r *runner, h2c bool) (*h2path, error) {
	cfg := &r.cfg
	base, err := http.NewRequest(cfg.Method, cfg.URL, nil)
	if err != nil {
		return nil, err
	}
	if cfg.Header != nil {
		base.Header = cfg.Header.Clone()
		base.Header.Del("Host")
	}
	base.Host = requestHost(cfg)
	if u := base.URL.User; u != nil && base.Header.Get("Authorization") == "" {
		password, _ := u.Password()
		base.SetBasicAuth(u.Username(), password)
	}
	t := &http2.Transport{
		DisableCompression: true, // measure the bytes the server sends, not our gunzip
		AllowHTTP:          h2c,
		TLSClientConfig:    r.dialer.tls,
	}
	return &h2path{r: r, t: t, h2c: h2c, base: base}, nil
}

// open dials a connection and starts HTTP/2 on it.
func (p *h2path) open(ctx context.Context) (*h2conn, error) {
	r := p.r
	r.opened.Add(1)
	var tc *timedConn
	var err error
	if p.h2c {
		tc, err = r.dialer.dial(ctx, r.wire.network, r.wire.addr)
	} else {
		tc, err = r.dialer.dialTLS(ctx, r.wire.network, r.wire.addr, []string{http2.NextProtoTLS})
	}
	if err != nil {
		return nil, err
	}
	r.dialer.noteConn(tc.Conn)
	// The ClientConn reads and writes from its own goroutines: it gets the bare connection,
	// not the timedConn, whose stamps are for one request at a time.
	cc, err := p.t.NewClientConn(tc.Conn)
	if err != nil {
		_ = tc.Conn.Close()
		return nil, err
	}
	return &h2conn{cc: cc, dial: &tc.dial}, nil
}

// take returns a connection with a stream reserved on it. setup reports that the stream
// waited for a connection set-up; dialled, that it opened the connection (and carries its
// DNS, connect and TLS times).
func (p *h2path) take(ctx context.Context, fresh bool) (hc *h2conn, setup, dialled bool, err error) {
	if fresh {
		hc, err = p.open(ctx)
		return hc, true, true, err
	}
	for {
		p.mu.Lock()
		for i := len(p.conns) - 1; i >= 0; i-- {
			c := p.conns[i]
			if c.cc.ReserveNewRequest() {
				p.mu.Unlock()
				return c, setup, false, nil
			}
			if st := c.cc.State(); st.Closed || st.Closing {
				p.conns = append(p.conns[:i], p.conns[i+1:]...)
			}
		}
		if d := p.dialing; d != nil {
			p.mu.Unlock()
			setup = true
			select {
			case <-d.done:
			case <-ctx.Done():
				return nil, setup, false, context.Cause(ctx)
			}
			if d.err != nil {
				return nil, setup, false, d.err
			}
			continue
		}
		d := &h2dial{done: make(chan struct{})}
		p.dialing = d
		p.mu.Unlock()
		hc, err = p.open(ctx)
		p.mu.Lock()
		p.dialing = nil
		if err == nil {
			hc.cc.ReserveNewRequest()
			p.conns = append(p.conns, hc)
		}
		d.err = err
		close(d.done)
		p.mu.Unlock()
		return hc, true, true, err
	}
}

// h2stamps are one stream's trace times, mono() ns; the hooks run on the ClientConn's
// goroutines.
type h2stamps struct {
	wrote, firstByte atomic.Int64
}

func (s *h2stamps) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { s.wrote.Store(mono()) },
		GotFirstResponseByte: func() { s.firstByte.Store(mono()) },
	}
}

// errConnUnusable is x/net/http2's "client conn not usable": the connection took a GOAWAY
// or closed between the stream's reservation and its first frame; nothing was sent.
const errConnUnusable = "http2: client conn not usable"

// exchange sends c's request as one stream and reads the response to its end.
func (p *h2path) exchange(c *caller, fresh bool) (status int, t timings, end time.Time, err error) {
	cfg := &p.r.cfg
	for attempt := 0; ; attempt++ {
		hc, setup, dialled, err := p.take(c.ctx, fresh)
		if err != nil {
			return 0, timings{}, time.Time{}, err
		}
		t = timings{reused: !setup}
		if dialled {
			hc.dial.copyTo(&t)
		}
		n := hc.streams.Add(1)
		for {
			peak := p.peakStreams.Load()
			if n <= peak || p.peakStreams.CompareAndSwap(peak, n) {
				break
			}
		}
		var st h2stamps
		req := p.base.WithContext(httptrace.WithClientTrace(c.ctx, st.trace()))
		if cfg.Body != nil {
			req.Body = io.NopCloser(bytes.NewReader(cfg.Body))
			req.ContentLength = int64(len(cfg.Body))
		}
		var resp *http.Response
		resp, err = hc.cc.RoundTrip(req)
		if err == nil {
			status = resp.StatusCode
			for err == nil {
				_, err = resp.Body.Read(c.buf)
			}
			if err == io.EOF {
				err = nil
			}
			_ = resp.Body.Close()
			end = time.Now()
		}
		hc.streams.Add(-1)
		if dialled {
			if m := hc.cc.State().MaxConcurrentStreams; m > 0 {
				p.maxStreams.Store(m)
			}
		}
		if fresh {
			_ = hc.cc.Close()
		}
		if v := st.wrote.Load(); v != 0 {
			t.wrote = at(v)
		}
		if v := st.firstByte.Load(); v != 0 {
			t.firstByte = at(v)
		}
		if err != nil && attempt < 3 && err.Error() == errConnUnusable && c.ctx.Err() == nil {
			continue
		}
		if err != nil {
			end = time.Time{}
		}
		return status, t, end, err
	}
}

// close closes every connection.
func (p *h2path) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.cc.Close()
	}
	p.conns = nil
}

// h2Class is the error class of an HTTP/2 stream failure, or -1. A REFUSED_STREAM never
// reached the server's application (RFC 9113 §8.7): any request may be sent again. A stream
// aborted because a GOAWAY's last stream ID is below it was not processed either; one still
// open when the connection closed after a GOAWAY may have been. Any other RST_STREAM came
// after the server accepted the stream.
func h2Class(err error) int {
	var se http2.StreamError
	if errors.As(err, &se) {
		if se.Code == http2.ErrCodeRefusedStream {
			return errRefusedStream
		}
		return errStreamReset
	}
	var ga http2.GoAwayError
	if errors.As(err, &ga) || strings.Contains(err.Error(), "GOAWAY") {
		return errGoAway
	}
	return -1
}
