package probe

import (
	"bytes"
	"net"
	"net/http"
	"testing"
)

// scriptedConn is a connection whose peer sends fixed bytes and then closes.
type scriptedConn struct {
	net.Conn // nil: only the methods below are used
	r        *bytes.Reader
}

func (c *scriptedConn) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *scriptedConn) Write(b []byte) (int, error) { return len(b), nil }
func (c *scriptedConn) Close() error                { return nil }

// FuzzRoundTrip feeds arbitrary bytes to the probe as a target's answer: whatever a target
// sends, reading it ends (the peer closes after the input) without a panic, a status is
// reported only for a parsed response, and a connection is kept only after a complete one.
func FuzzRoundTrip(f *testing.F) {
	for _, seed := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nok\n\r\n0\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nbody until close",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\nextra",
		"garbage\r\n\r\n",
		"",
		"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n7\r\ndata: 1\r\n2\r\n\n\n\r\n7\r\ndata: 2\r\n",
		"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson; charset=utf-8\r\nContent-Length: 16\r\n\r\n{\"a\":1}\n{\"a\":2}\n",
	} {
		f.Add([]byte(seed), false)
	}
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"), true)
	f.Fuzz(func(t *testing.T, answer []byte, head bool) {
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		r := &runner{wire: &wire{head: &http.Request{Method: method}}}
		c := &caller{r: r, buf: make([]byte, 2048)}
		c.stream.reset(newShard())
		conn := &timedConn{Conn: &scriptedConn{r: bytes.NewReader(answer)}}
		status, keep, err := c.roundTrip(conn, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
		if err != nil && keep {
			t.Errorf("kept a connection after %v", err)
		}
		if err == nil && (status < 100 || status > 999) {
			t.Errorf("status %d without an error", status)
		}
		if keep && c.direct.br.Buffered() != 0 {
			t.Error("kept a connection with unread bytes")
		}
		if status == 0 && err == nil {
			t.Error("no status and no error")
		}
	})
}
