//go:build !unix

package probe

// peerClosed cannot peek at a socket here; a closed kept-alive connection is found by the
// request that uses it (and an idempotent request is sent again).
func peerClosed(*timedConn) bool { return false }
