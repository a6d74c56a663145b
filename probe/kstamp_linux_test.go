//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le)

package probe

import (
	"errors"
	"io"
	"net"
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
