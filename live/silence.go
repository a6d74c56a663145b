package live

import (
	"context"
	"errors"
	"io"
	"net/http/httptrace"
	"sync"
	"time"
)

// errReadTimeout is the cause an attempt's context is cancelled with when its read timeout
// fires (context.Cause tells it from the total's deadline).
var errReadTimeout = errors.New("read timeout: a silence lasted the policy's read_timeout")

// silence is the read timeout of one attempt on the wire (policy.ReadTimeout, docs/design.md
// §5), as a client that has one enforces it: a timer armed when the request is written, reset
// by the response head and by every read of the body that brings bytes; when a silence
// lasts it, the attempt is cancelled. The total stays the context's deadline.
//
// At a stream target (docs/design.md §6, streams) the read timeout is the idle timeout and
// the policy's first_event_timeout, when set, bounds the first silence after the head — the
// wait for the first event — instead: from the head the timer runs with first, from the
// first event (event) with read again, none when read is 0. A stream's silences are between
// events, not reads (stream.go's driver calls event).
type silence struct {
	// d is the bound in force (wall time; 0: none), read the read timeout, first the
	// first-event timeout (0: read bounds the first event too).
	d, read, first time.Duration
	cancel         context.CancelCauseFunc
	mu             sync.Mutex
	t              *time.Timer
	done           bool
}

// watchSilence derives the attempt's context from ctx with read timeout read and
// first-event timeout first in wall time (both 0: none, and ctx is returned as is). stop
// releases the timer.
func watchSilence(ctx context.Context, read, first time.Duration) (context.Context, *silence) {
	if read <= 0 && first <= 0 {
		return ctx, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	s := &silence{d: read, read: read, first: first, cancel: cancel}
	// Armed now, before the write: on loopback the request is written at once, and the
	// trace's WroteRequest re-arms it from the write itself.
	s.t = time.AfterFunc(time.Hour, s.fire)
	s.heard()
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { s.heard() },
		GotFirstResponseByte: s.head,
	}), s
}

func (s *silence) fire() { s.cancel(errReadTimeout) }

// heard re-arms the timer with the bound in force (disarms it when there is none):
// something came (or the request is written).
func (s *silence) heard() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if !s.done {
		s.t.Stop()
		if s.d > 0 {
			s.t.Reset(s.d)
		}
	}
	s.mu.Unlock()
}

// bound sets the bound in force to d and re-arms the timer with it.
func (s *silence) bound(d time.Duration) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.d = d
	s.mu.Unlock()
	s.heard()
}

// head is the response head: the first-event timeout, if any, bounds the silence after it.
func (s *silence) head() {
	if s != nil && s.first > 0 {
		s.bound(s.first)
		return
	}
	s.heard()
}

// event is a stream's event: from it, the read timeout bounds the next silence.
func (s *silence) event() {
	if s != nil {
		s.bound(s.read)
	}
}

// stop disarms the timer and releases the context.
func (s *silence) stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.done = true
	s.t.Stop()
	s.mu.Unlock()
	s.cancel(nil)
}

// body wraps a response body so each read that brings bytes re-arms the timer.
func (s *silence) body(r io.Reader) io.Reader {
	if s == nil {
		return r
	}
	return &heardReader{r: r, s: s}
}

type heardReader struct {
	r io.Reader
	s *silence
}

func (h *heardReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if n > 0 {
		h.s.heard()
	}
	return n, err
}

// readTimedOut says whether the attempt's context ended by its read timeout.
func readTimedOut(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errReadTimeout) }
