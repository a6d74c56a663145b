//go:build !(linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le))

package probe

import (
	"net"
	"syscall"
)

const stampOOB = 0

// enableKernelStamps: kernel receive timestamps are only read on 64-bit Linux; elsewhere
// reads are stamped in user space.
func enableKernelStamps(net.Conn) syscall.RawConn { return nil }

func readStamped(net.Conn, syscall.RawConn, []byte, []byte) (int, int64, error) {
	panic("readStamped without kernel stamps")
}
