package probe

import (
	"net"
	"testing"
)

// KernelStamps reports whether the probe's plain TCP connections here carry the kernel's
// receive stamps (kstamp_linux.go): a read is then stamped when its last byte reached this
// host, however late the probe's goroutine read it. Elsewhere reads are stamped on return.
func KernelStamps(t testing.TB) bool {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return newStampReader(c) != nil
}
