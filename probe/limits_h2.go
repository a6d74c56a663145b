package probe

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/net/http2"
)

// The HTTP/2 path's bounds on what a server sends (issue 24 item 5): frames no larger than
// the probe advertised (h2.go's open calls SetMaxReadFrameSize), and flow-control windows
// no larger than 2^31−1 (RFC 9113 §6.9.1). A server past either is broken or hostile: its
// streams fail, counted in the "other" class with what it did, and the probe tells it why
// (GOAWAY or RST_STREAM with the RFC's error code) as x/net's own Transport does.

// h2MaxWindow is the largest flow-control window RFC 9113 §6.9.1 allows.
const h2MaxWindow = 1<<31 - 1

// h2Violation is a server's breach of the protocol that ends a stream (stream ≠ 0) or the
// connection: code is the error code the probe answers it with.
type h2Violation struct {
	code   http2.ErrCode
	stream uint32
	text   string
}

func (e h2Violation) Error() string {
	return fmt.Sprintf("http2: %s (%v, RFC 9113)", e.text, e.code)
}

// readFrameError says what a failed frame read means. A frame past the advertised size is a
// FRAME_SIZE_ERROR (RFC 9113 §4.2); one whose header reads as "HTTP/1.1" is a server that
// does not speak h2c.
func readFrameError(err error) error {
	if !errors.Is(err, http2.ErrFrameTooLarge) {
		return err
	}
	text := fmt.Sprintf("the server sent a frame larger than the %d bytes the probe's SETTINGS allow (SETTINGS_MAX_FRAME_SIZE)", h2DefaultFrame)
	if strings.Contains(err.Error(), "HTTP/1.1") {
		text = "the server answered in HTTP/1.1, not HTTP/2: it does not speak h2c with prior knowledge (--http 1.1 or auto)"
	}
	return h2Violation{code: http2.ErrCodeFrameSize, text: text}
}

// connectionError ends the connection after a read or a frame failed: a protocol breach
// (the probe's own h2Violation, or x/net's ConnectionError) is told to the server in a
// GOAWAY first, with a short write deadline, as a server that breaks the protocol may not
// read either.
func (c *h2conn) connectionError(err error) {
	code, tell := http2.ErrCode(0), false
	var v h2Violation
	var ce http2.ConnectionError
	switch {
	case errors.As(err, &v) && v.stream == 0:
		code, tell = v.code, true
	case errors.As(err, &ce):
		code, tell = http2.ErrCode(ce), true
	}
	if tell {
		// Written directly, not through the write buffer: a caller flushing it would write
		// the GOAWAY after fail closed the connection. Whole writes to a connection do not
		// interleave (net and tls hold a write lock per call), so it lands between frames.
		var b bytes.Buffer
		_ = http2.NewFramer(&b, nil).WriteGoAway(0, code, nil)
		_ = c.conn.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = c.conn.Write(b.Bytes())
	}
	c.fail(err)
}

// windowUpdate applies a WINDOW_UPDATE (read loop). Past 2^31−1 the connection's window is
// a connection error, a stream's a stream error: RST_STREAM FLOW_CONTROL_ERROR, the
// connection goes on (RFC 9113 §6.9.1; x/net transport.go processWindowUpdate does the same).
func (c *h2conn) windowUpdate(f *http2.WindowUpdateFrame, stamp int64) error {
	inc := int64(f.Increment)
	c.mu.Lock()
	if f.StreamID == 0 {
		if c.sendWindow+inc > h2MaxWindow {
			c.mu.Unlock()
			return h2Violation{code: http2.ErrCodeFlowControl, text: fmt.Sprintf("the server's WINDOW_UPDATE of %d took the connection's send window past 2^31-1", inc)}
		}
		c.sendWindow += inc
	} else if st := c.streams[f.StreamID]; st != nil {
		if st.sendWindow+inc > h2MaxWindow {
			id := f.StreamID
			c.finishLocked(st, stamp, h2Violation{code: http2.ErrCodeFlowControl, stream: id, text: fmt.Sprintf("the server's WINDOW_UPDATE of %d took stream %d's send window past 2^31-1", inc, id)})
			c.mu.Unlock()
			return c.write(nil, func(fr *http2.Framer) error { return fr.WriteRSTStream(id, http2.ErrCodeFlowControl) })
		}
		st.sendWindow += inc
	}
	c.wakeSendersLocked()
	c.mu.Unlock()
	return nil
}
