package live

import (
	"errors"
	"net"
	"sync"
)

// gateListener is a net.Listener whose underlying socket can be closed and reopened on the
// same address while one http.Server keeps calling Accept. Closing the socket is what makes
// a 100% `refuse` phase real: the kernel answers SYNs with RST, so clients get ECONNREFUSED
// from connect(2), exactly as when a process is down. Reopening relies on SO_REUSEADDR,
// which Go sets on every listening socket on Unix.
type gateListener struct {
	network, addr string

	mu      sync.Mutex
	cur     net.Listener  // nil while paused
	open    chan struct{} // closed when cur becomes non-nil again
	stopped bool
	bound   net.Addr
}

func newGateListener(network, addr string) (*gateListener, error) {
	ln, err := net.Listen(network, addr)
	if err != nil {
		return nil, err
	}
	g := &gateListener{network: network, addr: ln.Addr().String(), cur: ln, bound: ln.Addr(), open: make(chan struct{})}
	close(g.open)
	return g, nil
}

// Accept waits for a connection on whichever socket is open, across pauses.
func (g *gateListener) Accept() (net.Conn, error) {
	for {
		g.mu.Lock()
		if g.stopped {
			g.mu.Unlock()
			return nil, net.ErrClosed
		}
		ln, open := g.cur, g.open
		g.mu.Unlock()
		if ln == nil {
			<-open
			continue
		}
		c, err := ln.Accept()
		if err == nil {
			return c, nil
		}
		g.mu.Lock()
		paused := g.cur != ln && !g.stopped
		g.mu.Unlock()
		if paused || errors.Is(err, net.ErrClosed) {
			continue // the socket was closed by pause (or stop, seen at the top of the loop)
		}
		return nil, err
	}
}

// pause closes the listening socket: new connections are refused until resume.
func (g *gateListener) pause() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cur == nil || g.stopped {
		return nil
	}
	err := g.cur.Close()
	g.cur = nil
	g.open = make(chan struct{})
	return err
}

// resume reopens the socket on the same address.
func (g *gateListener) resume() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cur != nil || g.stopped {
		return nil
	}
	ln, err := net.Listen(g.network, g.addr)
	if err != nil {
		return err
	}
	g.cur = ln
	close(g.open)
	return nil
}

// paused says whether the socket is currently closed.
func (g *gateListener) paused() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cur == nil && !g.stopped
}

// Close stops the listener for good.
func (g *gateListener) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return nil
	}
	g.stopped = true
	var err error
	if g.cur != nil {
		err = g.cur.Close()
		g.cur = nil
	} else {
		close(g.open)
	}
	return err
}

// Addr is the bound address (stable across pauses).
func (g *gateListener) Addr() net.Addr { return g.bound }
