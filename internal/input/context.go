package input

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync/atomic"
)

// Every read of user input can block for as long as its writer likes: open(2) of a FIFO
// waits for a writer to appear, a read of an idle pipe (`sleep 30 | patience advise -`) for
// its next byte. Neither syscall watches a context, so Ctrl-C could not stop a command
// waiting on one (issue 24 item 2). Open and NewReader are the one place that makes them
// stoppable: the blocking call runs in a goroutine and the caller selects on it and on the
// context. A call abandoned that way stays blocked in its goroutine until the writer comes
// or the process exits — the command is ending, so nothing waits for it.

// StoppedError is an open or a read of Name abandoned because the run was stopped (Ctrl-C,
// SIGTERM): nothing more was read from it. It wraps the context's error, so
// errors.Is(err, context.Canceled) holds.
type StoppedError struct {
	Name string
	Err  error
}

func (e *StoppedError) Error() string { return e.Name + ": stopped while waiting for input" }

func (e *StoppedError) Unwrap() error { return e.Err }

// interrupt is the context that reads without one of their own watch (SetInterrupt).
var interrupt atomic.Pointer[context.Context]

// abandoned is the first input a stop under the process interrupt abandoned (nil: none):
// a loader that wraps its errors as text still lets Main name what was waited for.
var abandoned atomic.Pointer[StoppedError]

// stopped builds the StoppedError of name and notes it when ctx is the process interrupt.
func stopped(ctx context.Context, name string) *StoppedError {
	e := &StoppedError{Name: name, Err: ctx.Err()}
	// Compared by their Done channels: a context's dynamic type need not be comparable.
	if p := interrupt.Load(); p != nil && (*p).Done() == ctx.Done() {
		abandoned.CompareAndSwap(nil, e)
	}
	return e
}

// Abandoned is the first input whose open or read the process interrupt abandoned since
// SetInterrupt, or nil.
func Abandoned() *StoppedError { return abandoned.Load() }

// SetInterrupt makes ctx the interrupt that Read, ReadFile and Interrupt's callers watch: the
// process's Ctrl-C context, set once by the command's Main, so that loaders whose signatures
// carry no context (a scenario, a profile, a check file) stop too. It returns a function that
// restores the previous one.
func SetInterrupt(ctx context.Context) (restore func()) {
	old := interrupt.Swap(&ctx)
	abandoned.Store(nil)
	return func() { interrupt.Store(old); abandoned.Store(nil) }
}

// Interrupt is the context set by SetInterrupt; context.Background() when none is.
func Interrupt() context.Context {
	if p := interrupt.Load(); p != nil {
		return *p
	}
	return context.Background()
}

// Open opens path for reading; ctx ending abandons an open that blocks (a FIFO with no
// writer) with a *StoppedError. A regular file or a directory is opened directly: its open
// never waits on another process.
func Open(ctx context.Context, path string) (*os.File, error) {
	if ctx.Err() != nil {
		return nil, stopped(ctx, path)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().IsRegular() || st.IsDir() || ctx.Done() == nil {
		return os.Open(path) // a Stat error is reported by Open as usual
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		// The goroutine stays in open(2) until a writer comes; it closes what it gets.
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, stopped(ctx, path)
	}
}

// NewReader returns a reader of r whose Read ends with a *StoppedError naming name once ctx
// is done, even while r's Read blocks (a pipe, a FIFO, a terminal): that Read is left to
// finish in its goroutine, into a buffer of the reader's own, and its bytes are dropped. A
// regular file and in-memory readers (which never block) are only checked between reads.
func NewReader(ctx context.Context, name string, r io.Reader) io.Reader {
	if ctx.Done() == nil {
		return r // a context that never ends: nothing to watch
	}
	switch v := r.(type) {
	case *ctxReader:
		return v
	case *bytes.Reader, *bytes.Buffer, *strings.Reader:
		return &checkedReader{ctx: ctx, name: name, r: r}
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			return &checkedReader{ctx: ctx, name: name, r: r}
		}
	}
	return &ctxReader{ctx: ctx, name: name, r: r}
}

// checkedReader is a reader that never blocks, checked for ctx between reads.
type checkedReader struct {
	ctx  context.Context
	name string
	r    io.Reader
}

func (c *checkedReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, stopped(c.ctx, c.name)
	}
	return c.r.Read(p)
}

// ctxReader runs each Read of r in a goroutine and returns when it ends or ctx does.
type ctxReader struct {
	ctx  context.Context
	name string
	r    io.Reader
	buf  []byte
	err  error // sticky: once stopped, a Read may still be in flight on buf
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.ctx.Err() != nil {
		c.err = stopped(c.ctx, c.name)
		return 0, c.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	done := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case res := <-done:
		return copy(p, buf[:res.n]), res.err
	case <-c.ctx.Done():
		// The Read in flight owns buf from now on: this reader never reads again.
		c.buf = nil
		c.err = stopped(c.ctx, c.name)
		return 0, c.err
	}
}
