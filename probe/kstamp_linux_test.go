//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le)

package probe

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestKernelStamp: data that reached the socket before a 20 ms sleep carries a kernel stamp
// at least 20 ms old when it is read; the end of the stream reads as io.EOF, as net.Conn does.
func TestKernelStamp(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	sr := newStampReader(client)
	if sr == nil {
		t.Skip("SO_TIMESTAMPNS refused by this kernel")
	}
	// Linux switches receive timestamping on through deferred work (net_enable_timestamp),
	// so the first segments after the option may carry no stamp: try a few times.
	buf := make([]byte, 16)
	var stamp, now int64
	for try := 0; try < 5 && stamp == 0; try++ {
		if _, err := server.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		var n int
		n, stamp, err = sr.read(buf)
		now = time.Now().UnixNano()
		if err != nil || string(buf[:n]) != "hello" {
			t.Fatalf("read %q, %v", buf[:n], err)
		}
	}
	if stamp == 0 || now-stamp < int64(20*time.Millisecond) || now-stamp > int64(time.Minute) {
		t.Errorf("kernel stamp %d (%d ns before the read), want at least the 20 ms the data waited", stamp, now-stamp)
	}
	server.Close()
	if n, _, err := sr.read(buf); n != 0 || !errors.Is(err, io.EOF) || err != io.EOF {
		t.Errorf("after close: %d, %v; want 0, io.EOF", n, err)
	}
}

func TestParseStampRejectsGarbage(t *testing.T) {
	for _, oob := range [][]byte{nil, make([]byte, 8), make([]byte, 40), {200, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 35, 0, 0, 0}} {
		if got := parseStamp(oob); got != 0 {
			t.Errorf("parseStamp(%v) = %d, want 0", oob, got)
		}
	}
}

// TestStampWrite: the raw write path writes a payload larger than the socket takes at once
// whole (it waits in the poller for room), honours the write deadline an expiry sets, and
// fails on a connection the peer reset with the errors net.Conn.Write gives (*net.OpError
// around ECONNRESET or EPIPE, classified as a reset).
func TestStampWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	sr := newStampReader(client)
	if sr == nil {
		t.Skip("SO_TIMESTAMPNS refused by this kernel")
	}
	_ = client.(*net.TCPConn).SetWriteBuffer(4096)
	payload := make([]byte, 1<<20)
	for i := range payload {
		payload[i] = byte(i % 251)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(server, int64(len(payload))))
		got <- b
	}()
	if n, err := sr.write(payload); n != len(payload) || err != nil {
		t.Fatalf("write: %d, %v; want %d, nil", n, err, len(payload))
	}
	if b := <-got; len(b) != len(payload) || string(b[:1000]) != string(payload[:1000]) || b[len(b)-1] != payload[len(payload)-1] {
		t.Fatalf("server read %d bytes, want the %d written", len(b), len(payload))
	}

	// Nobody reads now: the write blocks until a deadline in the past aborts it.
	_ = client.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := sr.write(payload); !errors.Is(err, os.ErrDeadlineExceeded) || classify(err) != errTimeout {
		t.Fatalf("write past the deadline: %v (class %d), want a timeout", err, classify(err))
	}
	_ = client.SetWriteDeadline(time.Time{})

	// The peer resets the connection (SO_LINGER 0): a later write fails as a reset.
	_ = server.(*net.TCPConn).SetLinger(0)
	server.Close()
	time.Sleep(20 * time.Millisecond)
	var werr error
	for i := 0; i < 10 && werr == nil; i++ {
		_, werr = sr.write([]byte("GET / HTTP/1.1\r\n\r\n"))
	}
	var op *net.OpError
	if !errors.As(werr, &op) || op.Op != "write" || classify(werr) != errReset ||
		!(errors.Is(werr, syscall.ECONNRESET) || errors.Is(werr, syscall.EPIPE)) {
		t.Fatalf("write after a reset: %#v, want *net.OpError write around ECONNRESET or EPIPE", werr)
	}
}
