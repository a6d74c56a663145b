//go:build unix

package probe

import (
	"crypto/tls"
	"syscall"
)

// peerClosed reports whether the server closed (or reset) an idle kept-alive connection:
// a non-blocking peek at its socket finds the end of the stream, an error, or — on a plain
// connection — bytes nobody asked for. net/http's Transport learns this from a read loop
// that waits on every idle connection; the probe asks once, before reusing one that sat idle.
// Under TLS pending bytes may be a session ticket, so only the end of the stream counts.
func peerClosed(c *timedConn) bool {
	nc, isTLS := c.Conn, false
	if t, ok := nc.(*tls.Conn); ok {
		nc, isTLS = t.NetConn(), true
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var closed bool
	var b [1]byte
	err = raw.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK || err == syscall.EINTR:
		case err != nil, n == 0:
			closed = true
		default:
			closed = !isTLS
		}
		return true // never wait: this is a peek
	})
	return closed || err != nil
}
