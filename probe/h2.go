package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// The HTTP/2 path (issue 18 item 1; --http 2, or auto when TLS's ALPN agrees). Frames,
// HPACK and the frame-level checks are golang.org/x/net/http2's Framer and hpack; the
// probe keeps its own connections on top of them (h2conn), because x/net's ClientConn
// hands every request from the caller to a write goroutine and every response back from
// its read loop, with channels, a body pipe and some thirty allocations per stream: 21–32 µs
// of CPU per request, six to nine times h2load's, and 0.55–0.6 of its throughput on this
// 2-core loopback (bench/probe-h2.sh); on its own connections the probe needs 7–9 µs.
//
//   - Streams share connections as Go's own client does: a request takes a stream on the
//     newest connection that can take one (below the server's SETTINGS_MAX_CONCURRENT_STREAMS,
//     no GOAWAY) and only when none can is a connection dialled; requests that arrive while
//     that dial is under way wait for it rather than dialling their own.
//   - A caller writes its own HEADERS (and DATA) frames into the connection's write buffer;
//     whoever finds no write under way writes the buffer, and frames that callers add
//     meanwhile go out in the next write: requests that become ready together share one
//     syscall, as h2load's do. One read loop per connection reads the frames (one read
//     brings many) and hands each finished stream to its caller: one wake-up per
//     request, no goroutine per stream, and each caller reuses its stream and channel.
//   - Connection set-up (DNS, connect, TLS) is timed by the probe's dialer and recorded once
//     per connection, on the stream that dialled it, as the fresh-connection phases. A stream
//     that waited for a set-up (it dialled, or waited on the dial) is "fresh": its total
//     includes the set-up; the others are "reused".
//   - --conn fresh gives every request a connection of its own, closed after its stream;
//     both alternates, as on HTTP/1.1.
//   - Per stream: TTFB from the request written (headers and body, END_STREAM) to its
//     response HEADERS, and total from the intended send time to the frame that ends it, as
//     on HTTP/1.1 (coordinated omission corrected). Both are the moment the read that
//     delivered the frame's last byte returned — over h2c the kernel's receive stamp of those
//     bytes (timedConn) — not when the read loop got round to the frame. (On loopback a
//     response can be read before the write that carried its request has returned; its
//     TTFB then counts from the moment that write began.)
//   - Nothing is retried: a REFUSED_STREAM, a stream above a GOAWAY's last stream ID and any
//     other RST_STREAM are counted in their own error classes (refused_stream, goaway,
//     stream_reset; h2Class), because what a client may do about them differs. Only a stream
//     that never left the probe — its connection became unusable between taking the stream
//     and writing it — is sent on another connection.

// h2path is a run's HTTP/2 connections.
type h2path struct {
	r      *runner
	h2c    bool                // prior knowledge over plain TCP
	fields []hpack.HeaderField // the request's header block, in order
	body   []byte

	mu      sync.Mutex
	conns   []*h2conn // connections streams may share, newest last
	dialing *h2dial   // the pool's dial under way, if any

	peakStreams atomic.Int64  // most streams in flight at once on one connection
	maxStreams  atomic.Uint32 // the server's SETTINGS_MAX_CONCURRENT_STREAMS, as last seen
}

// h2dial is a pool dial others wait on.
type h2dial struct {
	done chan struct{}
	err  error
}

// HTTP/2 settings of the probe's connections. The probe reads and discards every body, so
// it opens its receive windows wide (a window update per gigabyte instead of per 64 KB) and
// bounds response header blocks as the HTTP/1.1 path bounds heads.
const (
	h2Window         = 1 << 30
	h2MaxHeaderList  = maxResponseHeaderBytes
	h2InitialStreams = 100  // streams allowed before the server's SETTINGS (as x/net)
	h2DefaultStreams = 1000 // when its SETTINGS name no limit (as x/net)
	h2DefaultFrame   = 16384
	h2DefaultWindow  = 65535
	h2MaxStreamID    = 1<<31 - 1
	h2UserAgent      = "Go-http-client/2.0"
	// h2ReadBufferBytes bounds a read of the read loop. Every frame a read delivers is stamped
	// with that read's (kernel) time, so a read that gathers many responses stamps the early
	// ones late: after a stall releases 500 streams at once, 64 KB reads put the p95 10–12 ms
	// above the server's own record, 4 KB ones 3–7 ms (x/net's ClientConn: 14–21 ms), at the
	// same throughput (bench/accuracy.sh's h2c case).
	h2ReadBufferBytes = 4 << 10
)

// errH2Unusable: the connection closed or took a GOAWAY between the stream's reservation
// and its first frame; nothing was sent.
var errH2Unusable = errors.New("http2: client conn not usable")

func newH2Path(r *runner, h2c bool) (*h2path, error) {
	cfg := &r.cfg
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, err
	}
	scheme := "https"
	if h2c {
		scheme = "http"
	}
	p := &h2path{r: r, h2c: h2c, body: cfg.Body}
	p.fields = []hpack.HeaderField{
		{Name: ":authority", Value: requestHost(cfg)},
		{Name: ":method", Value: cfg.Method},
		{Name: ":path", Value: u.RequestURI()},
		{Name: ":scheme", Value: scheme},
	}
	names := make([]string, 0, len(cfg.Header))
	for name := range cfg.Header {
		names = append(names, name)
	}
	slices.Sort(names)
	agent, auth := false, false
	for _, name := range names {
		lower := strings.ToLower(name)
		switch lower {
		// Connection-specific headers are not HTTP/2 (RFC 9113 §8.2.2); Host is :authority;
		// the length is the body's own.
		case "host", "connection", "proxy-connection", "keep-alive", "transfer-encoding", "upgrade", "te", "content-length":
			continue
		case "user-agent":
			agent = true
		case "authorization":
			auth = true
		}
		for _, v := range cfg.Header[name] {
			p.fields = append(p.fields, hpack.HeaderField{Name: lower, Value: v})
		}
	}
	// Credentials in the URL are sent as Basic auth, as on HTTP/1.1.
	if u.User != nil && !auth {
		password, _ := u.User.Password()
		p.fields = append(p.fields, hpack.HeaderField{Name: "authorization", Value: "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+password))})
	}
	if !agent {
		p.fields = append(p.fields, hpack.HeaderField{Name: "user-agent", Value: h2UserAgent})
	}
	if cfg.Body != nil {
		p.fields = append(p.fields, hpack.HeaderField{Name: "content-length", Value: strconv.Itoa(len(cfg.Body))})
	}
	return p, nil
}

// h2conn is one HTTP/2 connection: the probe's frames out, one read loop in.
type h2conn struct {
	p    *h2path
	conn net.Conn   // the TCP or TLS connection; written by whoever flushes
	tc   *timedConn // its reads, stamped, by the read loop only
	dial *dialTimes
	fr   *http2.Framer // reads: the read loop; writes: under wmu

	// Write side, under wmu. Frames are appended to wbuf (the Framer writes there); the
	// caller that finds no write under way writes it, and again while more was appended.
	wmu      sync.Mutex
	wbuf     []byte
	wstreams []h2written // streams whose last request frame is in wbuf
	spare    []byte
	spareStr []h2written
	flushing bool
	werr     error
	hbuf     bytes.Buffer
	enc      *hpack.Encoder
	block    []byte // the request's header block once HPACK encodes it to the same bytes each time
	nextID   uint32
	maxFrame atomic.Uint32 // the server's SETTINGS_MAX_FRAME_SIZE

	// Stream state, under mu (taken after wmu when both are held, never before it).
	mu            sync.Mutex
	streams       map[uint32]*h2stream
	reserved      uint32 // streams reserved or open
	maxConcurrent uint32
	goAway        *h2GoAway
	closed        bool
	sendWindow    int64 // connection-level send window (request bodies)
	initialWindow int64 // the server's SETTINGS_INITIAL_WINDOW_SIZE
	windowCh      chan struct{}

	streamsNow atomic.Int64 // streams in flight, for peakStreams

	// Read loop only.
	recvUnacked int64 // DATA bytes not yet returned to the server's connection window
	dec         *hpack.Decoder
	hdr         h2HeaderBlock // the response header block being decoded
}

// h2HeaderBlock is what the read loop keeps of a response header block (HEADERS and its
// CONTINUATIONs) while HPACK decodes it: the status, and the size against the limit. The
// fields themselves are not kept (the probe reads no response header), so decoding a block
// whose fields are in the dynamic table allocates nothing.
type h2HeaderBlock struct {
	stream    uint32
	endStream bool
	status    string
	size      int64
	truncated bool
	// kind is the kind of stream the content-type field names (streamNone: none, or no
	// such field).
	kind streamKind
}

// emitField is the HPACK decoder's callback for one response header field.
func (c *h2conn) emitField(f hpack.HeaderField) {
	h := &c.hdr
	h.size += int64(f.Size())
	if h.size > h2MaxHeaderList {
		h.truncated = true
	}
	if f.Name == ":status" && h.status == "" {
		h.status = f.Value
	}
	if f.Name == "content-type" {
		h.kind = streamKindOf(f.Value, false)
	}
}

// h2written is a stream whose request is in the write buffer, and the ID it had then.
type h2written struct {
	st *h2stream
	id uint32
}

// h2stream is one request's stream. A caller reuses its stream for the next request once
// the read loop has finished with it (done received).
type h2stream struct {
	id        uint32
	done      chan struct{} // receives once when the stream ends, either way
	wrote     atomic.Int64  // mono() when the write of its last request frame returned
	writing   atomic.Int64  // mono() when that write began
	firstByte int64         // mono() of the read that brought its response HEADERS
	end       int64         // mono() of the read that brought its last frame
	// heard is the stamp of the latest frame of this stream's response, maxGap the longest
	// time between two of them (the stream's longest pause: one running maximum).
	heard, maxGap int64
	status        int
	err           error
	// stream is the caller's record of its response as a stream (stream.go): the read loop
	// feeds it the DATA of a response whose head said it streams (the connection's mu held).
	stream *streamState
	// Under the connection's mu.
	sendWindow int64
	recvd      int64 // DATA bytes of this stream not yet returned to its window (read loop)
}

func newH2Stream() *h2stream { return &h2stream{done: make(chan struct{}, 1)} }

// hear notes a frame of the stream's response that arrived at stamp (the connection's mu
// held): the pause since the previous one may be the stream's longest. Frames read together
// share a stamp; a pause on the connection is a pause of every stream waiting on it.
func (st *h2stream) hear(stamp int64) {
	if st.heard != 0 {
		st.maxGap = max(st.maxGap, stamp-st.heard)
	}
	st.heard = stamp
}

// open dials a connection, writes the client preface and starts its read loop.
func (p *h2path) open(ctx context.Context) (*h2conn, error) {
	r := p.r
	r.opened.Add(1)
	var tc *timedConn
	var err error
	if p.h2c {
		tc, err = r.dialer.dialTCP(ctx, r.wire.network, r.wire.addr)
	} else {
		tc, err = r.dialer.dialTLS(ctx, r.wire.network, r.wire.addr, []string{http2.NextProtoTLS})
	}
	if err != nil {
		return nil, err
	}
	r.dialer.noteConn(tc.Conn)
	hc := &h2conn{
		p: p, conn: tc.Conn, tc: tc, dial: &tc.dial,
		nextID:  1,
		streams: map[uint32]*h2stream{}, maxConcurrent: h2InitialStreams,
		sendWindow: h2DefaultWindow, initialWindow: h2DefaultWindow, windowCh: make(chan struct{}),
	}
	hc.maxFrame.Store(h2DefaultFrame)
	hc.fr = http2.NewFramer(writerFunc(hc.appendFrame), bufio.NewReaderSize(tc, h2ReadBufferBytes))
	hc.fr.SetReuseFrames()
	// The SETTINGS below name no SETTINGS_MAX_FRAME_SIZE, so the server may send frames of
	// the initial 16,384 bytes at most (RFC 9113 §6.5.2); the Framer would otherwise read
	// frames up to 16 MiB, each into a buffer of that size (issue 24 item 5).
	hc.fr.SetMaxReadFrameSize(h2DefaultFrame)
	hc.dec = hpack.NewDecoder(4096, hc.emitField)
	hc.dec.SetMaxStringLength(h2MaxHeaderList)
	hc.enc = hpack.NewEncoder(&hc.hbuf)
	hc.wmu.Lock()
	hc.wbuf = append(hc.wbuf, http2.ClientPreface...)
	err = hc.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: h2Window},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: h2MaxHeaderList},
	)
	if err == nil {
		err = hc.fr.WriteWindowUpdate(0, h2Window-h2DefaultWindow)
	}
	if err == nil {
		err = hc.flushLocked(nil)
	}
	hc.wmu.Unlock()
	if err != nil {
		_ = tc.Conn.Close()
		return nil, err
	}
	go hc.readLoop()
	return hc, nil
}

// writerFunc adapts appendFrame to the Framer's writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// appendFrame is where the Framer writes (wmu held): the frame joins the write buffer.
func (c *h2conn) appendFrame(b []byte) (int, error) {
	c.wbuf = append(c.wbuf, b...)
	return len(b), nil
}

// flushLocked writes the buffer unless a write is under way (its writer then writes what
// was added too); wmu is held on entry and on return. w, when set, is told the connection it
// is writing, so that the watchdog or the end of the run can cut a write the server does not
// take.
func (c *h2conn) flushLocked(w *caller) error {
	if c.flushing {
		return c.werr
	}
	c.flushing = true
	if w != nil {
		w.setH2Write(c.conn)
		// Let the callers that are ready to run add their frames first: the read loop wakes
		// a batch of them at once (one read, many responses), and they would otherwise each
		// write alone. One write for the batch cut the CPU per request from ~10 to ~6.5 µs
		// (bench/probe-h2.sh); the flusher's own request waits for a few callers' turns
		// (microseconds), which its TTFB, timed from the end of the write, does not count.
		c.wmu.Unlock()
		runtime.Gosched()
		c.wmu.Lock()
	}
	for len(c.wbuf) > 0 && c.werr == nil {
		buf, streams := c.wbuf, c.wstreams
		c.wbuf, c.wstreams = c.spare[:0], c.spareStr[:0]
		before := mono()
		for _, w := range streams {
			if w.st.id == w.id {
				w.st.writing.Store(before)
			}
		}
		c.wmu.Unlock()
		_, err := c.conn.Write(buf)
		now := mono()
		c.wmu.Lock()
		// A stream's caller may have moved on to its next request (its stream reused, with
		// a new ID set under wmu) before this write returned: only a stream still carrying
		// the request that was written is stamped.
		for _, w := range streams {
			if w.st.id == w.id {
				w.st.wrote.Store(now)
			}
		}
		if err != nil {
			c.werr = err
		}
		clear(streams)
		c.spare, c.spareStr = buf[:0], streams[:0]
	}
	if w != nil {
		w.setH2Write(nil)
	}
	c.flushing = false
	return c.werr
}

// write runs frames (Framer writes) and flushes; a failed write fails the connection.
func (c *h2conn) write(w *caller, frames func(fr *http2.Framer) error) error {
	c.wmu.Lock()
	err := c.werr
	if err == nil {
		err = frames(c.fr)
	}
	if err == nil {
		err = c.flushLocked(w)
	}
	c.wmu.Unlock()
	if err != nil {
		c.fail(err)
	}
	return err
}

// reserve takes a stream slot on c if it can carry one more.
func (c *h2conn) reserve() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.goAway != nil || c.reserved >= c.maxConcurrent || c.nextIDLocked() > h2MaxStreamID {
		return false
	}
	c.reserved++
	return true
}

// nextIDLocked is the next stream ID (read under mu for reserve; written under wmu and mu).
func (c *h2conn) nextIDLocked() uint32 { return c.nextID + 2*c.reserved }

// unusable reports whether c will take no more streams.
func (c *h2conn) unusable() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed || c.goAway != nil
}

// headerBlock is the request's HPACK block: encoded each time until every field is an
// index into the tables, then those bytes. wmu held.
func (c *h2conn) headerBlock() []byte {
	if c.block != nil {
		return c.block
	}
	c.hbuf.Reset()
	for _, f := range c.p.fields {
		_ = c.enc.WriteField(f)
	}
	b := c.hbuf.Bytes()
	// One byte per field: every field was an indexed representation (RFC 7541 §6.1), which
	// leaves the dynamic table as it was, so the same bytes stay right for every later
	// request until the server changes the table's size.
	if len(b) == len(c.p.fields) {
		c.block = append([]byte(nil), b...)
	}
	return b
}

// start opens stream st on c (reserved) and writes its request. It fails only with
// errH2Unusable, when nothing was sent; once the stream is open, every failure (of the
// connection, of a write) ends the stream and reaches its caller through st.done.
func (c *h2conn) start(w *caller, st *h2stream) error {
	body := c.p.body
	c.wmu.Lock()
	c.mu.Lock()
	if c.closed || c.goAway != nil || c.werr != nil {
		c.reserved--
		c.closeIfDoneLocked()
		c.mu.Unlock()
		c.wmu.Unlock()
		return errH2Unusable
	}
	st.id = c.nextID
	c.nextID += 2
	c.reserved-- // the reservation is now the stream
	st.sendWindow = c.initialWindow
	st.recvd, st.firstByte, st.end, st.status, st.err = 0, 0, 0, 0, nil
	st.heard, st.maxGap = 0, 0
	st.wrote.Store(0)
	st.writing.Store(0)
	c.streams[st.id] = st
	c.mu.Unlock()
	block := c.headerBlock()
	endStream := len(body) == 0
	maxFrame := c.maxFrame.Load()
	first := block
	if uint32(len(first)) > maxFrame {
		first = block[:maxFrame]
	}
	err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: st.id, BlockFragment: first, EndStream: endStream, EndHeaders: len(first) == len(block)})
	for rest := block[len(first):]; err == nil && len(rest) > 0; {
		n := min(uint32(len(rest)), maxFrame)
		err = c.fr.WriteContinuation(st.id, int(n) == len(rest), rest[:n])
		rest = rest[n:]
	}
	if err == nil && endStream {
		c.wstreams = append(c.wstreams, h2written{st, st.id})
	}
	if err == nil {
		err = c.flushLocked(w)
	}
	c.wmu.Unlock()
	if err != nil {
		c.fail(err)
		return nil
	}
	if !endStream {
		c.sendBody(w, st, body)
	}
	return nil
}

// sendBody writes body as DATA frames within the server's flow-control windows. It stops
// when the stream ends first (answered, reset or failed: st.done says how) or the caller's
// context is done (the caller then abandons the stream).
func (c *h2conn) sendBody(w *caller, st *h2stream, body []byte) {
	for len(body) > 0 {
		c.mu.Lock()
		if c.streams[st.id] != st || c.closed {
			c.mu.Unlock()
			return
		}
		n := min(int64(len(body)), int64(c.maxFrame.Load()), c.sendWindow, st.sendWindow)
		if n <= 0 {
			ch := c.windowCh
			c.mu.Unlock()
			select {
			case <-ch:
			case <-w.ctx.Done():
				return
			}
			continue
		}
		c.sendWindow -= n
		st.sendWindow -= n
		c.mu.Unlock()
		chunk, last := body[:n], int(n) == len(body)
		body = body[n:]
		err := c.write(w, func(fr *http2.Framer) error {
			if last {
				c.wstreams = append(c.wstreams, h2written{st, st.id})
			}
			return fr.WriteData(st.id, last, chunk)
		})
		if err != nil {
			return
		}
	}
}

// finish ends stream st (the read loop, or a failure): it leaves the table, its caller is
// woken. mu held.
func (c *h2conn) finishLocked(st *h2stream, end int64, err error) {
	delete(c.streams, st.id)
	st.end, st.err = end, err
	st.done <- struct{}{}
	c.closeIfDoneLocked()
}

// closeIfDoneLocked closes a connection that took a GOAWAY once nothing is left on it.
func (c *h2conn) closeIfDoneLocked() {
	if c.goAway != nil && c.reserved == 0 && len(c.streams) == 0 {
		_ = c.conn.Close()
	}
}

// abandon gives up stream st (its caller's context is done): RST_STREAM CANCEL, unless the
// stream already ended, whose end is then collected.
func (c *h2conn) abandon(st *h2stream) {
	c.mu.Lock()
	open := c.streams[st.id] == st
	if open {
		delete(c.streams, st.id)
		c.closeIfDoneLocked()
	}
	c.mu.Unlock()
	if !open {
		<-st.done
		return
	}
	id := st.id
	_ = c.write(nil, func(fr *http2.Framer) error { return fr.WriteRSTStream(id, http2.ErrCodeCancel) })
}

// fail ends the connection: every stream on it fails with err (after a GOAWAY, with it).
func (c *h2conn) fail(err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	if c.goAway != nil {
		err = *c.goAway
	}
	now := mono()
	for _, st := range c.streams {
		c.finishLocked(st, now, err)
	}
	close(c.windowCh)
	c.mu.Unlock()
	_ = c.conn.Close()
}

// readLoop reads frames until the connection fails.
func (c *h2conn) readLoop() {
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				c.streamError(se)
				continue
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			c.connectionError(readFrameError(err))
			return
		}
		if err := c.handle(f); err != nil {
			c.connectionError(err)
			return
		}
	}
}

// streamError ends one stream the Framer found malformed, and resets it.
func (c *h2conn) streamError(se http2.StreamError) {
	c.mu.Lock()
	st := c.streams[se.StreamID]
	if st != nil {
		c.finishLocked(st, c.tc.lastRead, se)
	}
	c.mu.Unlock()
	_ = c.write(nil, func(fr *http2.Framer) error { return fr.WriteRSTStream(se.StreamID, se.Code) })
}

// handle processes one frame of the read loop; an error fails the connection. Each kind of
// frame has its own method.
func (c *h2conn) handle(f http2.Frame) error {
	stamp := c.tc.lastRead
	switch f := f.(type) {
	case *http2.HeadersFrame:
		c.hdr = h2HeaderBlock{stream: f.StreamID, endStream: f.StreamEnded()}
		return c.headerFragment(f.HeaderBlockFragment(), f.HeadersEnded(), stamp)
	case *http2.ContinuationFrame:
		// The Framer checks that it follows a HEADERS of the same stream.
		return c.headerFragment(f.HeaderBlockFragment(), f.HeadersEnded(), stamp)
	case *http2.DataFrame:
		return c.data(f, stamp)
	case *http2.RSTStreamFrame:
		c.mu.Lock()
		if st := c.streams[f.StreamID]; st != nil {
			c.finishLocked(st, stamp, http2.StreamError{StreamID: f.StreamID, Code: f.ErrCode})
		}
		c.mu.Unlock()
	case *http2.SettingsFrame:
		if f.IsAck() {
			return nil
		}
		return c.settings(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			data := f.Data
			return c.write(nil, func(fr *http2.Framer) error { return fr.WritePing(true, data) })
		}
	case *http2.GoAwayFrame:
		c.goAwayFrame(f, stamp)
	case *http2.WindowUpdateFrame:
		return c.windowUpdate(f, stamp)
	case *http2.PushPromiseFrame:
		return errors.New("http2: the server pushed a stream, which the probe's SETTINGS disable")
	}
	return nil
}

// headerFragment decodes one fragment of a header block (HEADERS or CONTINUATION) and ends
// the block when the frame says so.
func (c *h2conn) headerFragment(frag []byte, ended bool, stamp int64) error {
	if _, err := c.dec.Write(frag); err != nil {
		return hpackError(err)
	}
	if ended {
		return c.headersDone(stamp)
	}
	return nil
}

// data counts a DATA frame against its stream and the connection, ends the stream when the
// frame does, and returns the flow-control windows once half of one is used.
func (c *h2conn) data(f *http2.DataFrame, stamp int64) error {
	n := int64(f.Length)
	c.mu.Lock()
	st := c.streams[f.StreamID]
	var streamUpdate int64
	if st != nil {
		st.hear(stamp)
		if st.stream != nil && st.stream.kind != streamNone {
			st.stream.feed(f.Data(), stamp)
		}
		st.recvd += n
		if st.recvd >= h2Window/2 && !f.StreamEnded() {
			streamUpdate, st.recvd = st.recvd, 0
		}
		if f.StreamEnded() {
			if st.status == 0 {
				c.finishLocked(st, stamp, errors.New("http2: DATA before response HEADERS"))
			} else {
				c.finishLocked(st, stamp, nil)
			}
		}
	}
	c.mu.Unlock()
	c.recvUnacked += n
	var connUpdate int64
	if c.recvUnacked >= h2Window/2 {
		connUpdate, c.recvUnacked = c.recvUnacked, 0
	}
	if connUpdate == 0 && streamUpdate == 0 {
		return nil
	}
	return c.write(nil, func(fr *http2.Framer) error {
		if connUpdate > 0 {
			if err := fr.WriteWindowUpdate(0, uint32(connUpdate)); err != nil {
				return err
			}
		}
		if streamUpdate > 0 {
			return fr.WriteWindowUpdate(f.StreamID, uint32(streamUpdate))
		}
		return nil
	})
}

// goAwayFrame records the server's GOAWAY: streams above its last stream ID were not
// processed (RFC 9113 §6.8) and fail now; the others go on, and fail with it if the
// connection closes before they end.
func (c *h2conn) goAwayFrame(f *http2.GoAwayFrame, stamp int64) {
	ga := h2GoAway{last: f.LastStreamID, code: f.ErrCode, debug: string(f.DebugData())}
	unprocessed := fmt.Errorf("http2: the server's GOAWAY (%v, last stream %d) came before this stream: not processed (graceful shutdown)", f.ErrCode, f.LastStreamID)
	c.mu.Lock()
	c.goAway = &ga
	for id, st := range c.streams {
		if id > f.LastStreamID {
			c.finishLocked(st, stamp, unprocessed)
		}
	}
	c.closeIfDoneLocked()
	c.mu.Unlock()
}

// hpackError is the connection's failure when a header block does not decode: the
// decoder's state is then lost with it. A field longer than the head limit says so.
func hpackError(err error) error {
	if errors.Is(err, hpack.ErrStringLength) {
		return fmt.Errorf("%w (one HPACK field)", errHeadersTooLarge)
	}
	return fmt.Errorf("http2: %v: %w", err, http2.ConnectionError(http2.ErrCodeCompression))
}

// headersDone acts on a complete response header block: the stream's first byte, its
// status (after any 1xx), its end when the block ends the stream.
func (c *h2conn) headersDone(stamp int64) error {
	if err := c.dec.Close(); err != nil {
		return hpackError(err)
	}
	h := &c.hdr
	c.mu.Lock()
	st := c.streams[h.stream]
	if st == nil {
		c.mu.Unlock()
		return nil
	}
	if st.firstByte == 0 {
		st.firstByte = stamp
	}
	st.hear(stamp)
	if st.status == 0 {
		status, err := strconv.Atoi(h.status)
		switch {
		case h.truncated:
			c.finishLocked(st, stamp, errHeadersTooLarge)
			c.mu.Unlock()
			return c.write(nil, func(fr *http2.Framer) error { return fr.WriteRSTStream(h.stream, http2.ErrCodeCancel) })
		case err != nil || status < 100 || status > 999:
			c.finishLocked(st, stamp, fmt.Errorf("http2: response with malformed :status %q", h.status))
			c.mu.Unlock()
			return c.write(nil, func(fr *http2.Framer) error { return fr.WriteRSTStream(h.stream, http2.ErrCodeProtocol) })
		case status >= 200:
			st.status = status
			c.beginStream(st, h.kind)
		}
	}
	if h.endStream {
		c.finishLocked(st, stamp, nil)
	}
	c.mu.Unlock()
	return nil
}

// beginStream starts timing st's response as a stream of the kind its head named, or of
// chunks (every DATA frame's read an event) with --stream (mu held).
func (c *h2conn) beginStream(st *h2stream, k streamKind) {
	if k == streamNone && c.p.r.cfg.Stream {
		k = streamChunks
	}
	if k != streamNone && st.stream != nil {
		st.stream.begin(k)
	}
}

// wakeSendersLocked wakes the callers waiting for flow-control window (mu held).
func (c *h2conn) wakeSendersLocked() {
	if !c.closed {
		close(c.windowCh)
		c.windowCh = make(chan struct{})
	}
}

// settings applies the server's SETTINGS and acknowledges them.
func (c *h2conn) settings(f *http2.SettingsFrame) error {
	if err := f.ForeachSetting(func(s http2.Setting) error { return s.Valid() }); err != nil {
		return err
	}
	c.wmu.Lock()
	c.mu.Lock()
	limit := false
	overflow := f.ForeachSetting(func(s http2.Setting) error {
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			c.maxConcurrent, limit = s.Val, true
			c.p.maxStreams.Store(s.Val)
		case http2.SettingInitialWindowSize:
			delta := int64(s.Val) - c.initialWindow
			c.initialWindow = int64(s.Val)
			for _, st := range c.streams {
				// RFC 9113 §6.9.2: a change that takes any window past 2^31−1 is a
				// connection error of type FLOW_CONTROL_ERROR.
				if st.sendWindow+delta > h2MaxWindow {
					return h2Violation{code: http2.ErrCodeFlowControl, text: fmt.Sprintf("the server's SETTINGS_INITIAL_WINDOW_SIZE %d took stream %d's send window past 2^31-1", s.Val, st.id)}
				}
				st.sendWindow += delta
			}
		case http2.SettingMaxFrameSize:
			c.maxFrame.Store(s.Val)
		case http2.SettingHeaderTableSize:
			c.enc.SetMaxDynamicTableSizeLimit(s.Val)
			c.block = nil
		}
		return nil
	})
	if overflow != nil {
		c.mu.Unlock()
		c.wmu.Unlock()
		return overflow
	}
	if !limit && c.maxConcurrent == h2InitialStreams {
		c.maxConcurrent = h2DefaultStreams
	}
	c.wakeSendersLocked()
	c.mu.Unlock()
	err := c.werr
	if err == nil {
		err = c.fr.WriteSettingsAck()
	}
	if err == nil {
		err = c.flushLocked(nil)
	}
	c.wmu.Unlock()
	return err
}

// take returns a connection with a stream reserved on it. setup reports that the stream
// waited for a connection set-up; dialled, that it opened the connection (and carries its
// DNS, connect and TLS times).
func (p *h2path) take(ctx context.Context, fresh bool) (hc *h2conn, setup, dialled bool, err error) {
	if fresh {
		hc, err = p.open(ctx)
		if err == nil {
			hc.reserve()
		}
		return hc, true, true, err
	}
	for {
		p.mu.Lock()
		for i := len(p.conns) - 1; i >= 0; i-- {
			c := p.conns[i]
			if c.reserve() {
				p.mu.Unlock()
				return c, setup, false, nil
			}
			if c.unusable() {
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
			hc.reserve()
			p.conns = append(p.conns, hc)
		}
		d.err = err
		close(d.done)
		p.mu.Unlock()
		return hc, true, true, err
	}
}

// exchange sends c's request as one stream and waits for the response's end.
func (p *h2path) exchange(c *caller, fresh bool) (status int, t timings, end time.Time, err error) {
	for attempt := 0; ; attempt++ {
		hc, setup, dialled, err := p.take(c.ctx, fresh)
		if err != nil {
			return 0, timings{}, time.Time{}, err
		}
		t = timings{reused: !setup}
		if dialled {
			hc.dial.copyTo(&t)
		}
		n := hc.streamsNow.Add(1)
		for {
			peak := p.peakStreams.Load()
			if n <= peak || p.peakStreams.CompareAndSwap(peak, n) {
				break
			}
		}
		st := c.h2
		if st == nil {
			st = newH2Stream()
			c.h2 = st
		}
		st.stream = &c.stream
		c.stream.via(!setup)
		if err = hc.start(c, st); err == nil {
			select {
			case <-st.done:
				err = st.err
			case <-c.ctx.Done():
				hc.abandon(st)
				err = context.Cause(c.ctx)
			}
		}
		wrote := st.wrote.Load()
		if err != errH2Unusable && (wrote == 0 || c.ctx.Err() != nil) {
			// The write that carries the request may not have returned yet (on loopback the
			// response can be read first) and will stamp the stream then: a new one for the
			// next request. Its TTFB counts from the moment that write began.
			c.h2 = nil
			wrote = st.writing.Load()
		}
		hc.streamsNow.Add(-1)
		if fresh {
			_ = hc.conn.Close()
		}
		if err == errH2Unusable && attempt < 3 && c.ctx.Err() == nil {
			continue
		}
		if err != nil {
			return 0, t, time.Time{}, err
		}
		if wrote != 0 {
			t.wrote = at(wrote)
		}
		if st.firstByte != 0 {
			t.firstByte = at(st.firstByte)
			t.maxGap = time.Duration(st.maxGap)
		}
		return st.status, t, at(st.end), nil
	}
}

// setH2Write records the connection c is writing for an HTTP/2 connection (nil when done),
// so that an expiry or the end of the run can cut a write the server does not take.
func (c *caller) setH2Write(conn net.Conn) {
	c.mu.Lock()
	c.h2w = conn
	if conn != nil && (c.deadline.Load() == expiredMark || c.ctx.Err() != nil) {
		_ = conn.SetWriteDeadline(aLongTimeAgo)
	}
	c.mu.Unlock()
}

// close closes every connection.
func (p *h2path) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.fail(net.ErrClosed)
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
	var ga h2GoAway
	if errors.As(err, &ga) || strings.Contains(err.Error(), "GOAWAY") {
		return errGoAway
	}
	return -1
}

// h2GoAway fails the streams still open when a connection closes after the server's GOAWAY
// (those above its last stream ID fail at once, as not processed).
type h2GoAway struct {
	last  uint32
	code  http2.ErrCode
	debug string
}

func (e h2GoAway) Error() string {
	return fmt.Sprintf("http2: server sent GOAWAY and closed the connection; LastStreamID=%v, ErrCode=%v, debug=%q", e.last, e.code, e.debug)
}
