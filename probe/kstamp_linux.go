//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le)

package probe

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// Kernel receive timestamps (socket(7), SO_TIMESTAMPNS): the kernel stamps every received
// segment with the time it arrived, and recvmsg hands the stamp of the data it returns to
// the reader. A response's end is then the moment its bytes reached this host, however late
// the probe's goroutine got to read them: after a stall, hundreds of responses arrive at once
// and are read one after another on a couple of cores, and that queue is the probe's, not
// the target's.

// stampOOB is the control buffer size: one cmsghdr (16 bytes on 64-bit Linux) and one
// struct timespec (16 bytes), with room to spare.
const stampOOB = 64

// stampReader reads a TCP connection with recvmsg and the kernel's receive stamps, and
// writes it too. Its message header, buffers and callbacks are built once per connection, so
// a read or a write allocates nothing (syscall.Recvmsg and a fresh closure would, on every
// response). The socket is non-blocking (the poller waits for it), so the callbacks make
// their calls as raw system calls: none can block, and the runtime's bookkeeping around a
// call that might (entersyscall, exitsyscall: twice per request) is saved.
type stampReader struct {
	conn net.Conn
	raw  syscall.RawConn
	oob  [stampOOB]byte
	iov  syscall.Iovec
	msg  syscall.Msghdr
	n    int
	errn syscall.Errno
	fn   func(fd uintptr) bool

	// The write in progress: what is left of it, bytes written, its error.
	wbuf  []byte
	wn    int
	werrn syscall.Errno
	wfn   func(fd uintptr) bool
	// writeWait's state: whether its callback has written, and mono() when the write ended.
	wsent   bool
	wroteAt int64
	wwfn    func(fd uintptr) bool
}

// newStampReader turns SO_TIMESTAMPNS on for conn; nil when conn is not TCP or the option
// is refused (the probe then stamps reads in user space).
func newStampReader(conn net.Conn) *stampReader {
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		return nil
	}
	raw, err := tcp.SyscallConn()
	if err != nil {
		return nil
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return nil
	}
	s := &stampReader{conn: conn, raw: raw}
	s.fn, s.wfn, s.wwfn = s.recv, s.send, s.sendThenWait
	return s
}

// writeWait writes a request b and waits until the socket has something to read (the
// response, or the end of the connection): it returns the bytes written and the write's
// error, and wroteAt is then when the write ended (0 if it did not). The write is made
// from within a RawConn.Read, after the poller forgot the socket's earlier readiness and
// before it waits: no response can arrive in between and be missed, and the read that
// follows finds the response there instead of first meeting an empty socket (one recvmsg
// and EAGAIN fewer per request). Only when the socket does not take the whole request at
// once does the rest go through write, waiting for room as usual. An error of the wait
// itself (a deadline, a closed connection) is met again by the next read.
func (s *stampReader) writeWait(b []byte) (int, error) {
	s.wbuf, s.wn, s.werrn, s.wsent, s.wroteAt = b, 0, 0, false, 0
	rerr := s.raw.Read(s.wwfn)
	if !s.wsent {
		s.wbuf = nil
		return 0, rerr // the connection failed (a deadline already past, closed) before any write
	}
	if s.werrn == 0 && len(s.wbuf) > 0 {
		n := s.wn
		rest, err := s.write(s.wbuf)
		if err == nil {
			s.wroteAt = mono()
		}
		return n + rest, err
	}
	s.wbuf = nil
	if s.werrn != 0 {
		return s.wn, &net.OpError{Op: "write", Net: "tcp", Source: s.conn.LocalAddr(), Addr: s.conn.RemoteAddr(), Err: os.NewSyscallError("write", s.werrn)}
	}
	return s.wn, nil
}

// wroteAtMono is when writeWait's write ended, in mono() ns (0: it did not).
func (s *stampReader) wroteAtMono() int64 { return s.wroteAt }

// sendThenWait is writeWait's RawConn.Read callback: the first call writes (false: wait for
// something to read, unless the write failed or was partial), the next one ends the wait.
func (s *stampReader) sendThenWait(fd uintptr) bool {
	if s.wsent {
		return true
	}
	s.wsent = true
	if !s.send(fd) || s.werrn != 0 {
		return true
	}
	s.wroteAt = mono()
	return false
}

// send is the RawConn.Write callback: false asks the poller to wait until the socket takes
// more (the rest of s.wbuf is written then).
func (s *stampReader) send(fd uintptr) bool {
	for len(s.wbuf) > 0 {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&s.wbuf[0])), uintptr(len(s.wbuf)))
		switch e {
		case 0:
			s.wn += int(r)
			s.wbuf = s.wbuf[r:]
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			s.werrn = e
			return true
		}
	}
	return true
}

// write writes b whole, like net.Conn.Write (errors as *net.OpError).
func (s *stampReader) write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	s.wbuf, s.wn, s.werrn = b, 0, 0
	err := s.raw.Write(s.wfn)
	s.wbuf = nil // do not keep the caller's buffer alive
	if err == nil && s.werrn != 0 {
		err = &net.OpError{Op: "write", Net: "tcp", Source: s.conn.LocalAddr(), Addr: s.conn.RemoteAddr(), Err: os.NewSyscallError("write", s.werrn)}
	}
	return s.wn, err
}

// recv is the RawConn.Read callback: false asks the poller to wait for data.
func (s *stampReader) recv(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&s.msg)), 0)
		if e == syscall.EINTR {
			continue
		}
		s.n, s.errn = int(r), e
		return e != syscall.EAGAIN
	}
}

// read reads like net.Conn.Read (io.EOF at end of stream, errors as *net.OpError) and
// returns the kernel's receive time of the data in Unix ns, 0 when there is none.
func (s *stampReader) read(b []byte) (int, int64, error) {
	if len(b) == 0 {
		return 0, 0, nil
	}
	s.iov.Base = &b[0]
	s.iov.SetLen(len(b))
	s.msg.Iov = &s.iov
	s.msg.Iovlen = 1
	s.msg.Control = &s.oob[0]
	s.msg.SetControllen(len(s.oob))
	s.n, s.errn = 0, 0
	err := s.raw.Read(s.fn)
	s.iov.Base = nil // do not keep the caller's buffer alive
	if err == nil && s.errn != 0 {
		err = &net.OpError{Op: "read", Net: "tcp", Source: s.conn.LocalAddr(), Addr: s.conn.RemoteAddr(), Err: os.NewSyscallError("recvmsg", s.errn)}
	}
	if err != nil {
		return 0, 0, err
	}
	if s.n == 0 {
		return 0, 0, io.EOF
	}
	return s.n, parseStamp(s.oob[:s.msg.Controllen]), nil
}

// parseStamp finds SCM_TIMESTAMPNS in a control message buffer: Unix ns, or 0.
func parseStamp(oob []byte) int64 {
	const hdr = 16 // struct cmsghdr: len uint64, level int32, type int32
	for len(oob) >= hdr {
		l := int(binary.NativeEndian.Uint64(oob))
		level := int32(binary.NativeEndian.Uint32(oob[8:]))
		typ := int32(binary.NativeEndian.Uint32(oob[12:]))
		if l < hdr || l > len(oob) {
			return 0
		}
		if level == syscall.SOL_SOCKET && typ == syscall.SCM_TIMESTAMPNS && l >= hdr+16 {
			sec := int64(binary.NativeEndian.Uint64(oob[hdr:]))
			nsec := int64(binary.NativeEndian.Uint64(oob[hdr+8:]))
			return sec*1e9 + nsec
		}
		l = (l + 7) &^ 7 // CMSG_ALIGN
		if l > len(oob) {
			return 0
		}
		oob = oob[l:]
	}
	return 0
}
