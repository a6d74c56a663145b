//go:build linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le)

package probe

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"syscall"
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

// enableKernelStamps turns SO_TIMESTAMPNS on for conn and returns the raw connection to read
// through; nil when conn is not TCP or the option is refused (the probe then stamps reads
// in user space).
func enableKernelStamps(conn net.Conn) syscall.RawConn {
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
	return raw
}

// readStamped reads like net.Conn.Read (io.EOF at end of stream, errors as *net.OpError) and
// returns the kernel's receive time of the data in Unix ns, 0 when there is none.
func readStamped(conn net.Conn, raw syscall.RawConn, b, oob []byte) (int, int64, error) {
	if len(b) == 0 {
		return 0, 0, nil
	}
	var n, oobn int
	var rerr error
	err := raw.Read(func(fd uintptr) bool {
		for {
			n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), b, oob, 0)
			if rerr != syscall.EINTR {
				break
			}
		}
		return rerr != syscall.EAGAIN
	})
	if err == nil && rerr != nil {
		err = &net.OpError{Op: "read", Net: "tcp", Source: conn.LocalAddr(), Addr: conn.RemoteAddr(), Err: os.NewSyscallError("recvmsg", rerr)}
	}
	if err != nil {
		return 0, 0, err
	}
	if n == 0 {
		return 0, 0, io.EOF
	}
	return n, parseStamp(oob[:oobn]), nil
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
