package probetest

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// H2Faults are the misbehaviours of an H2FaultServer. Go's own HTTP/2 server refuses no
// stream its client is allowed to open and sends GOAWAY only when it shuts down, so the
// faults the probe must tell apart are played by a small server on x/net's Framer.
type H2Faults struct {
	// GoAwayAfter: on each connection, the stream after the first GoAwayAfter ones is
	// answered with GOAWAY (last stream ID: the one before it, NO_ERROR), and so are none of
	// the later ones; the connection closes once the accepted streams are answered.
	GoAwayAfter int
	// RefuseAbove: a stream that arrives while RefuseAbove are being answered is reset with
	// REFUSED_STREAM (the server advertises no limit).
	RefuseAbove int
	// ResetEvery: every ResetEvery-th stream (over the whole server) is reset with
	// INTERNAL_ERROR.
	ResetEvery int
	// Delay is how long the server takes to answer each accepted stream.
	Delay time.Duration
}

// H2FaultServer is an h2c (prior knowledge) server on 127.0.0.1 playing H2Faults; every
// accepted stream is answered 200 "ok\n".
type H2FaultServer struct {
	// URL is "http://127.0.0.1:PORT".
	URL string
	// Streams counts the streams the server saw; Answered those it answered.
	Streams, Answered atomic.Int64

	f     H2Faults
	ln    net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// StartH2Faults serves f on 127.0.0.1 at a free port.
func StartH2Faults(f H2Faults) (*H2FaultServer, error) {
	ln, err := listenLoopback("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &H2FaultServer{URL: "http://" + ln.Addr().String(), f: f, ln: ln, conns: map[net.Conn]struct{}{}}
	s.wg.Go(s.accept)
	return s, nil
}

// Close stops the server and drops its connections.
func (s *H2FaultServer) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

func (s *H2FaultServer) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Go(func() {
			s.serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			_ = c.Close()
		})
	}
}

// h2writer serialises a connection's frame writes (the Framer is not safe for concurrent
// use, and HPACK state is per connection).
type h2writer struct {
	mu   sync.Mutex
	fr   *http2.Framer
	hbuf bytes.Buffer
	enc  *hpack.Encoder
}

func (w *h2writer) do(f func(fr *http2.Framer) error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = f(w.fr)
}

func (w *h2writer) answer(id uint32) {
	w.do(func(fr *http2.Framer) error {
		w.hbuf.Reset()
		_ = w.enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
		_ = w.enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "text/plain"})
		if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: w.hbuf.Bytes(), EndHeaders: true}); err != nil {
			return err
		}
		return fr.WriteData(id, true, []byte("ok\n"))
	})
}

func (s *H2FaultServer) serve(c net.Conn) {
	br := bufio.NewReader(c)
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(br, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	w := &h2writer{fr: http2.NewFramer(c, br)}
	w.enc = hpack.NewEncoder(&w.hbuf)
	w.do(func(fr *http2.Framer) error { return fr.WriteSettings() })
	var open atomic.Int64
	var answering sync.WaitGroup
	defer answering.Wait()
	streams, lastGood, goneAway := 0, uint32(0), false
	for {
		f, err := w.fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				w.do(func(fr *http2.Framer) error { return fr.WriteSettingsAck() })
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				data := f.Data
				w.do(func(fr *http2.Framer) error { return fr.WritePing(true, data) })
			}
		case *http2.GoAwayFrame:
			return
		case *http2.HeadersFrame:
			id := f.StreamID
			streams++
			n := s.Streams.Add(1)
			switch {
			case goneAway:
			case s.f.GoAwayAfter > 0 && streams > s.f.GoAwayAfter:
				goneAway = true
				last := lastGood
				w.do(func(fr *http2.Framer) error { return fr.WriteGoAway(last, http2.ErrCodeNo, nil) })
				go func() {
					answering.Wait()
					time.Sleep(50 * time.Millisecond)
					_ = c.Close()
				}()
			case s.f.RefuseAbove > 0 && open.Load() >= int64(s.f.RefuseAbove):
				w.do(func(fr *http2.Framer) error { return fr.WriteRSTStream(id, http2.ErrCodeRefusedStream) })
			case s.f.ResetEvery > 0 && n%int64(s.f.ResetEvery) == 0:
				w.do(func(fr *http2.Framer) error { return fr.WriteRSTStream(id, http2.ErrCodeInternal) })
			default:
				lastGood = id
				open.Add(1)
				answering.Go(func() {
					if s.f.Delay > 0 {
						time.Sleep(s.f.Delay)
					}
					w.answer(id)
					open.Add(-1)
					s.Answered.Add(1)
				})
			}
		}
	}
}
