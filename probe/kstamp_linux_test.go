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

// TestStampWriteWait: writeWait writes the request and returns only once the answer is
// there to read (a read then finds it without waiting), with wroteAt set before the answer;
// a request larger than the socket takes at once is still written whole; a deadline already
// past fails it before anything is written; a peer that closes ends the wait, and the read
// meets io.EOF.
func TestStampWriteWait(t *testing.T) {
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
	// The server answers 30 ms after reading the request: writeWait must not return before.
	go func() {
		buf := make([]byte, 64)
		if _, err := io.ReadFull(server, buf[:4]); err != nil {
			return
		}
		time.Sleep(30 * time.Millisecond)
		_, _ = server.Write([]byte("pong"))
	}()
	start := time.Now()
	if n, err := sr.writeWait([]byte("ping")); n != 4 || err != nil {
		t.Fatalf("writeWait: %d, %v; want 4, nil", n, err)
	}
	if waited := time.Since(start); waited < 25*time.Millisecond {
		t.Fatalf("writeWait returned after %v, before the answer (sent 30 ms after the request)", waited)
	}
	if w := sr.wroteAtMono(); w == 0 || w > mono() || mono()-w < int64(25*time.Millisecond) {
		t.Fatalf("wroteAt %d (now %d): want the end of the write, before the answer", w, mono())
	}
	buf := make([]byte, 16)
	if n, _, err := sr.read(buf); err != nil || string(buf[:n]) != "pong" {
		t.Fatalf("read after writeWait: %q, %v", buf[:n], err)
	}

	// A request larger than the socket takes: the rest goes through write, whole.
	_ = client.(*net.TCPConn).SetWriteBuffer(4096)
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i % 253)
	}
	go func() {
		b := make([]byte, len(big))
		if _, err := io.ReadFull(server, b); err != nil || string(b) != string(big) {
			_, _ = server.Write([]byte("bad!"))
			return
		}
		_, _ = server.Write([]byte("good"))
	}()
	if n, err := sr.writeWait(big); n != len(big) || err != nil || sr.wroteAtMono() == 0 {
		t.Fatalf("writeWait of 1 MiB: %d, %v, wroteAt %d; want %d, nil, set", n, err, sr.wroteAtMono(), len(big))
	}
	if n, _, err := sr.read(buf); err != nil || string(buf[:n]) != "good" {
		t.Fatalf("server saw %q, %v; want the whole request (good)", buf[:n], err)
	}

	// A deadline already past (an expiry): nothing is written.
	_ = client.SetDeadline(time.Unix(1, 0))
	if n, err := sr.writeWait([]byte("late")); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) || sr.wroteAtMono() != 0 {
		t.Fatalf("writeWait past the deadline: %d, %v; want 0 and a deadline error", n, err)
	}
	_ = client.SetDeadline(time.Time{})

	// The peer closes instead of answering: the wait ends and the read meets io.EOF.
	go func() {
		_, _ = io.ReadFull(server, make([]byte, 3))
		server.Close()
	}()
	if n, err := sr.writeWait([]byte("bye")); n != 3 || err != nil {
		t.Fatalf("writeWait to a closing peer: %d, %v", n, err)
	}
	if n, _, err := sr.read(buf); n != 0 || err != io.EOF {
		t.Fatalf("read after the peer closed: %d, %v; want io.EOF", n, err)
	}
}
