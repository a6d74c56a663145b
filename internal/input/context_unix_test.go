//go:build unix

package input

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// stopBound is a liveness bound ("returns at all"), not a speed.
const stopBound = 20 * time.Second

// TestOpenFIFOWithoutWriterStops: open(2) of a FIFO blocks until a writer opens it; Open
// returns a *StoppedError once ctx ends instead (issue 24 item 2).
func TestOpenFIFOWithoutWriterStops(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ReadFileContext(ctx, p, MaxProfile, nil)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		var se *StoppedError
		if !errors.As(err, &se) || se.Name != p || !errors.Is(err, context.Canceled) {
			t.Errorf("err %v (%T), want a StoppedError naming %s that wraps context.Canceled", err, err, p)
		}
	case <-time.After(stopBound):
		t.Fatal("ReadFileContext still blocked in open(2) after ctx ended")
	}
}

// TestReadIdlePipeStops: a read of a pipe whose writer says nothing returns once ctx ends;
// what came before is read intact.
func TestReadIdlePipeStops(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cr := NewReader(ctx, "standard input", r)
	if _, err := w.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(cr, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("read %q, %v; want hello", buf, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := cr.Read(buf)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		var se *StoppedError
		if !errors.As(err, &se) || se.Name != "standard input" {
			t.Errorf("err %v, want a StoppedError naming standard input", err)
		}
	case <-time.After(stopBound):
		t.Fatal("Read still blocked on the idle pipe after ctx ended")
	}
	// Once stopped, it stays stopped: the abandoned Read owns the buffer.
	if _, err := cr.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("a Read after the stop: %v, want the stop again", err)
	}
}

// TestSetInterruptStopsReadFile: ReadFile, whose callers (scenario, profile and check
// loaders) carry no context, watches the one SetInterrupt installs.
func TestSetInterruptStopsReadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer SetInterrupt(ctx)()
	cancel()
	if _, err := ReadFile(p, MaxScenario, nil); !errors.As(err, new(*StoppedError)) {
		t.Errorf("ReadFile after the interrupt: %v, want a StoppedError", err)
	}
}

// TestAbandonedNamesTheInput: a stop under the process interrupt notes the input it
// abandoned, so a loader that wraps errors as text still lets Main name it; a stop under
// another context does not.
func TestAbandonedNamesTheInput(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	other, cancelOther := context.WithCancel(context.Background())
	cancelOther()
	ctx, cancel := context.WithCancel(context.Background())
	defer SetInterrupt(ctx)()
	if _, err := Open(other, p); err == nil || Abandoned() != nil {
		t.Fatalf("Open under another context: %v, abandoned %v", err, Abandoned())
	}
	cancel()
	_, _ = ReadFile(p, MaxScenario, nil)
	if a := Abandoned(); a == nil || a.Name != p {
		t.Errorf("Abandoned() = %v, want %s", a, p)
	}
}
