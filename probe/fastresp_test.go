package probe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// chunkedConn is a scripted peer that delivers its bytes at most chunk at a time, then
// fails every read with err (io.EOF: it closed).
type chunkedConn struct {
	scriptedConn
	chunk int
	err   error
}

func (c *chunkedConn) Read(b []byte) (int, error) {
	if c.chunk > 0 && len(b) > c.chunk {
		b = b[:c.chunk]
	}
	n, err := c.r.Read(b)
	if err == io.EOF && c.err != nil {
		err = c.err
	}
	return n, err
}

// answerBoth reads answer as the probe does (fast path first) and with ReadResponse alone.
func answerBoth(answer []byte, head bool, chunk int, peerErr error) (fast, slow outcome) {
	method := http.MethodGet
	if head {
		method = http.MethodHead
	}
	for i, out := range []*outcome{&fast, &slow} {
		r := &runner{wire: &wire{head: &http.Request{Method: method}}}
		c := &caller{r: r, buf: make([]byte, 2048)}
		c.stream.reset(newShard()) // as do does: a streaming answer records its gaps there
		conn := &timedConn{Conn: &chunkedConn{scriptedConn: scriptedConn{r: bytes.NewReader(answer)}, chunk: chunk, err: peerErr}}
		if i == 0 {
			out.status, out.keep, out.err = c.roundTrip(conn, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
		} else {
			c.readFrom(conn)
			out.status, out.keep, out.err = c.readResponse(conn, nil)
		}
		out.left = c.direct.br.Buffered()
		out.unread = conn.Conn.(*chunkedConn).r.Len()
	}
	return fast, slow
}

type outcome struct {
	status       int
	keep         bool
	err          error
	left, unread int
}

func (o outcome) String() string {
	return fmt.Sprintf("status %d keep %v err %v buffered %d unread %d", o.status, o.keep, o.err, o.left, o.unread)
}

func (o outcome) same(p outcome) bool {
	if (o.err == nil) != (p.err == nil) || o.err != nil && o.err.Error() != p.err.Error() {
		return false
	}
	return o.status == p.status && o.keep == p.keep && o.left == p.left && o.unread == p.unread
}

var fastSeeds = []string{
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nDate: Wed, 02 Dec 2026 00:00:00 GMT\r\n\r\nok\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\nHTTP/1.1 200 OK\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length:  12 \r\nConnection: keep-alive, Close\r\n\r\nhello world\n",
	"HTTP/1.1 503\r\ncontent-length: 0\r\n\r\n",
	"HTTP/1.1 204 No Content\r\nContent-Length: nonsense\r\n\r\n",
	"HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
	"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nok\n",
	"HTTP/1.1 200 OK\r\nContent-Length: +3\r\n\r\nok\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nok\n\r\n0\r\n\r\n",
	"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\n\r\nbody until close",
	"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
	"HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nBad Name: x\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nX: caf\xc3\xa9\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 2000 OK\r\n\r\n",
	"HTTP/1.1 20x OK\r\n\r\n",
	"HTTP/1.1 200OK\r\n\r\n",
	"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n",
	"garbage\r\n\r\n",
	"",
}

// TestFastResponseMatchesReadResponse: on every seed, whole or a byte at a time, with the
// peer closing or resetting after it, the fast path and ReadResponse agree on the status,
// the error, the keep-alive decision and the bytes consumed; and the common response is
// taken by the fast path.
func TestFastResponseMatchesReadResponse(t *testing.T) {
	reset := errors.New("connection reset by peer")
	for _, seed := range fastSeeds {
		for _, head := range []bool{false, true} {
			for _, chunk := range []int{0, 1, 7} {
				for _, peerErr := range []error{nil, reset} {
					fast, slow := answerBoth([]byte(seed), head, chunk, peerErr)
					if !fast.same(slow) {
						t.Errorf("%q head=%v chunk=%d peer %v:\nfast %v\nslow %v", seed, head, chunk, peerErr, fast, slow)
					}
				}
			}
		}
	}
	br := bytes.NewBufferString(fastSeeds[0])
	c := &caller{}
	c.readFrom(&timedConn{Conn: &scriptedConn{r: bytes.NewReader(br.Bytes())}})
	if res, ok := fastHead(c.direct.br, false); !ok || res.status != 200 || res.length != 3 || res.close {
		t.Errorf("the common response: %+v ok=%v, want the fast path's 200, 3 bytes, kept", res, ok)
	}
}

// TestFastResponseAllocs: the fast path reads a response without allocating.
func TestFastResponseAllocs(t *testing.T) {
	answer := []byte(fastSeeds[0])
	src := bytes.NewReader(answer)
	conn := &timedConn{Conn: &scriptedConn{r: src}}
	c := &caller{r: &runner{wire: &wire{head: &http.Request{Method: http.MethodGet}}}, buf: make([]byte, 2048)}
	c.readFrom(conn)
	payload := []byte("GET / HTTP/1.1\r\n\r\n")
	allocs := testing.AllocsPerRun(100, func() {
		src.Reset(answer)
		if st, keep, err := c.roundTrip(conn, payload); st != 200 || !keep || err != nil {
			t.Fatalf("status %d keep %v err %v", st, keep, err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per response, want 0", allocs)
	}
}

// FuzzFastResponse: for any bytes a target sends, delivered whole or in pieces, the fast
// path reads what ReadResponse would.
func FuzzFastResponse(f *testing.F) {
	for _, seed := range fastSeeds {
		f.Add([]byte(seed), false, uint8(0))
	}
	f.Add([]byte(fastSeeds[0]), true, uint8(3))
	f.Fuzz(func(t *testing.T, answer []byte, head bool, chunk uint8) {
		fast, slow := answerBoth(answer, head, int(chunk), nil)
		if !fast.same(slow) {
			t.Errorf("fast %v\nslow %v", fast, slow)
		}
	})
}
