package cmd

import (
	"bytes"
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunStoppable: the first signal cancels the run's context and the run's own exit code
// stands (it printed what finished); a second signal returns 130 at once while the run is
// still blocked on something that watches no context, and says so on stderr.
func TestRunStoppable(t *testing.T) {
	t.Run("first signal cancels", func(t *testing.T) {
		sigs := make(chan os.Signal, 2)
		var errOut bytes.Buffer
		sigs <- os.Interrupt
		code := runStoppable(sigs, &errOut, func(ctx context.Context) int {
			<-ctx.Done()
			return 42
		})
		if code != 42 || errOut.Len() != 0 {
			t.Errorf("code %d, stderr %q; want the run's own 42 and nothing said", code, errOut.String())
		}
	})
	t.Run("second signal exits", func(t *testing.T) {
		sigs := make(chan os.Signal, 2)
		var errOut bytes.Buffer
		block := make(chan struct{})
		defer close(block)
		cancelled := make(chan struct{})
		sigs <- syscall.SIGTERM
		code := runStoppable(sigs, &errOut, func(ctx context.Context) int {
			<-ctx.Done()
			close(cancelled)
			sigs <- syscall.SIGTERM // the user presses again while the run is stuck
			<-block                 // a write to a pipe nobody reads, an open(2) ...
			return 0
		})
		select {
		case <-cancelled:
		case <-time.After(20 * time.Second):
			t.Fatal("the first signal did not cancel the run's context")
		}
		if code != ExitInterrupted || !strings.Contains(errOut.String(), "interrupted again (SIGTERM): exiting now") {
			t.Errorf("code %d, stderr %q; want 130 and the second signal named", code, errOut.String())
		}
	})
}

// TestAdviseInterruptedSaysNothingPrinted: Ctrl-C while advise reads prints nothing, so
// stderr must not point at "partial results above" (issue 24 item 9; it did).
func TestAdviseInterruptedSaysNothingPrinted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, out, errOut := runCmd(t, ctx, "GET /a 200 0.120\n", "advise", "-")
	if code != ExitInterrupted || out != "" {
		t.Fatalf("exit %d, stdout %q; want 130 and nothing", code, out)
	}
	if strings.Contains(errOut, "partial results above") || !strings.Contains(errOut, "interrupted: ") {
		t.Errorf("stderr %q: should say the run was stopped with nothing printed", errOut)
	}
}
