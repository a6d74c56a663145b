//go:build !(linux && (amd64 || arm64 || riscv64 || loong64 || ppc64le))

package probe

import "net"

// stampReader is only implemented on 64-bit Linux; elsewhere reads are stamped in user
// space.
type stampReader struct{}

func newStampReader(net.Conn) *stampReader { return nil }

func (*stampReader) read([]byte) (int, int64, error) {
	panic("probe: kernel receive stamps are not supported here")
}

// wroteAt is writeWait's end of write (kstamp_linux.go).
func (*stampReader) wroteAtMono() int64 { return 0 }

func (*stampReader) write([]byte) (int, error) {
	panic("probe: kernel receive stamps are not supported here")
}

func (*stampReader) writeWait([]byte) (int, error) {
	panic("probe: kernel receive stamps are not supported here")
}
