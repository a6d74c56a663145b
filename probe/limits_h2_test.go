package probe_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/verdict"
)

// h2Hostility is what a hostileH2 server does to each stream instead of answering it well.
type h2Hostility int

const (
	// bigFrame answers with a DATA frame of 1 MiB: above the 16,384 bytes the probe's
	// SETTINGS allow (it sends no SETTINGS_MAX_FRAME_SIZE, so the RFC 9113 §6.5.2 initial
	// value stands).
	bigFrame h2Hostility = iota
	// connWindow sends WINDOW_UPDATE on stream 0 with the largest increment: 65,535 +
	// 2^31−1 is past the 2^31−1 a flow-control window may reach (RFC 9113 §6.9.1).
	connWindow
	// streamWindow does the same on the stream's own window.
	streamWindow
	// settingsWindow first fills the stream's window to exactly 2^31−1 (legal), then raises
	// SETTINGS_INITIAL_WINDOW_SIZE by one, which takes that window past it (§6.9.2).
	settingsWindow
)

// hostileH2 is an h2c server on loopback that plays one h2Hostility on every stream, then
// answers 200; it records the GOAWAY and RST_STREAM codes the probe sends.
type hostileH2 struct {
	url  string
	ln   net.Listener
	mode h2Hostility
	wg   sync.WaitGroup

	mu      sync.Mutex
	goAways []http2.ErrCode
	resets  []http2.ErrCode
}

func startHostileH2(t *testing.T, mode h2Hostility) *hostileH2 {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &hostileH2{url: "http://" + ln.Addr().String() + "/", ln: ln, mode: mode}
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Go(func() { s.serve(c) })
		}
	})
	t.Cleanup(func() { _ = ln.Close(); s.wg.Wait() })
	return s
}

func (s *hostileH2) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(br, preface); err != nil {
		return
	}
	fr := http2.NewFramer(c, br)
	var hbuf bytes.Buffer
	enc := hpack.NewEncoder(&hbuf)
	_ = fr.WriteSettings()
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.GoAwayFrame:
			s.mu.Lock()
			s.goAways = append(s.goAways, f.ErrCode)
			s.mu.Unlock()
			return
		case *http2.RSTStreamFrame:
			s.mu.Lock()
			s.resets = append(s.resets, f.ErrCode)
			s.mu.Unlock()
		case *http2.HeadersFrame:
			id := f.StreamID
			switch s.mode {
			case connWindow:
				_ = fr.WriteWindowUpdate(0, 1<<31-1)
			case streamWindow:
				_ = fr.WriteWindowUpdate(id, 1<<31-1)
			case settingsWindow:
				_ = fr.WriteWindowUpdate(id, 1<<31-1-65535)
				_ = fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 65536})
			}
			hbuf.Reset()
			_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hbuf.Bytes(), EndHeaders: true})
			body := []byte("ok\n")
			if s.mode == bigFrame {
				body = make([]byte, 1<<20)
			}
			_ = fr.WriteData(id, true, body)
		}
	}
}

func (s *hostileH2) codes() (goAways, resets []http2.ErrCode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http2.ErrCode(nil), s.goAways...), append([]http2.ErrCode(nil), s.resets...)
}

// TestH2FrameLargerThanAdvertised (issue 24 item 5): the probe advertises the default
// SETTINGS_MAX_FRAME_SIZE (16 KiB) but its Framer read frames up to 16 MiB, so a hostile
// server made it buffer 16 MiB per connection (1.14 GB at --conn fresh -c 50) and the run
// reported success. A frame past what was advertised is a connection error of type
// FRAME_SIZE_ERROR (RFC 9113 §4.2); x/net's own Transport sets the same bound
// (golang.org/x/net/http2 transport.go newClientConn: cc.fr.SetMaxReadFrameSize).
func TestH2FrameLargerThanAdvertised(t *testing.T) {
	s := startHostileH2(t, bigFrame)
	r := run(t, probe.Config{URL: s.url, Concurrency: 1, Requests: 3, Conn: "reuse", HTTP: "2", MaxTimeout: 5 * time.Second})
	if r.Status["200"] != 0 || r.Errors["other"] != 3 || !strings.Contains(r.ErrorSamples["other"].Message, "16384") {
		t.Errorf("status %v errors %v samples %v: want every request failed, the sample naming the 16384-byte bound", r.Status, r.Errors, r.ErrorSamples)
	}
	if goAways, _ := s.codes(); len(goAways) == 0 || goAways[0] != http2.ErrCodeFrameSize {
		t.Errorf("GOAWAYs the server got: %v; want FRAME_SIZE_ERROR", goAways)
	}
	if r.Recommendation.Verdict.Level == verdict.Good {
		t.Errorf("verdict %v: want no good verdict from a run that got no response", r.Recommendation.Verdict)
	}
}

// TestH2WindowPastMaximum (issue 24 item 5): a WINDOW_UPDATE or a SETTINGS_INITIAL_WINDOW_SIZE
// that takes a flow-control window past 2^31−1 passed silently. RFC 9113 §6.9.1: on the
// connection it is a connection error (GOAWAY FLOW_CONTROL_ERROR); on a stream, RST_STREAM
// FLOW_CONTROL_ERROR and the connection goes on; §6.9.2: through SETTINGS, a connection
// error. x/net's Transport does the same (transport.go processWindowUpdate:
// ConnectionError(ErrCodeFlowControl) for stream 0, endStreamError for a stream).
func TestH2WindowPastMaximum(t *testing.T) {
	for _, tc := range []struct {
		name          string
		mode          h2Hostility
		goAway, reset bool
	}{
		{"connection window", connWindow, true, false},
		{"stream window", streamWindow, false, true},
		{"initial window size", settingsWindow, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startHostileH2(t, tc.mode)
			r := run(t, probe.Config{URL: s.url, Concurrency: 1, Requests: 2, Conn: "reuse", HTTP: "2", MaxTimeout: 5 * time.Second})
			if r.Status["200"] != 0 || !strings.Contains(r.ErrorSamples["other"].Message, "FLOW_CONTROL_ERROR") {
				t.Errorf("status %v errors %v samples %v: want every request failed with FLOW_CONTROL_ERROR", r.Status, r.Errors, r.ErrorSamples)
			}
			goAways, resets := s.codes()
			if got := len(goAways) > 0 && goAways[0] == http2.ErrCodeFlowControl; got != tc.goAway {
				t.Errorf("GOAWAYs %v: want FLOW_CONTROL_ERROR %v", goAways, tc.goAway)
			}
			if got := len(resets) > 0 && resets[0] == http2.ErrCodeFlowControl; got != tc.reset {
				t.Errorf("RST_STREAMs %v: want FLOW_CONTROL_ERROR %v", resets, tc.reset)
			}
			if tc.reset && r.Connections.Opened != 1 {
				t.Errorf("opened %d connections: a stream error must not cost the connection", r.Connections.Opened)
			}
		})
	}
}
