//go:build unix

package advise

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	inputpkg "github.com/patience-dev/patience/internal/input"
)

// TestNginxConfFIFOStops: a FIFO without a writer given as --log-format's nginx.conf is
// abandoned once the process's interrupt (Ctrl-C) ends, with a *StoppedError naming it
// (issue 24 item 2: os.ReadFile blocked in open(2) and Ctrl-C could not stop it). The
// bound is liveness ("returns at all"), not speed.
func TestNginxConfFIFOStops(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nginx.conf")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer inputpkg.SetInterrupt(ctx)()
	cancel()
	done := make(chan error, 1)
	go func() {
		_, err := readNginxConf(p + "#main")
		done <- err
	}()
	select {
	case err := <-done:
		var se *inputpkg.StoppedError
		if !errors.As(err, &se) || se.Name != p {
			t.Errorf("err = %v, want a StoppedError naming %s", err, p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still blocked on the FIFO after the interrupt")
	}
}
