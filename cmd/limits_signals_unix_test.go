//go:build unix

package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests below run the real binary (testscript.Main puts `patience` on PATH) and send it
// real signals. Their bounds are liveness, not speed: "exits at all within stopBound" on a
// machine shared by many test processes.
const stopBound = 20 * time.Second

// child is one patience process started by a test.
type child struct {
	cmd    *exec.Cmd
	errOut *bytes.Buffer
	exited chan error
}

// startPatience starts patience with args; stdin and stdout are given by the caller (nil:
// the null device and a buffer).
func startPatience(t *testing.T, stdin io.Reader, stdout io.Writer, args ...string) *child {
	t.Helper()
	path, err := exec.LookPath("patience")
	if err != nil {
		t.Fatalf("patience is not on PATH (testscript.Main puts it there): %v", err)
	}
	c := exec.Command(path, args...)
	c.Stdin = stdin
	if stdout == nil {
		stdout = new(bytes.Buffer)
	}
	c.Stdout = stdout
	errOut := new(bytes.Buffer)
	c.Stderr = errOut
	c.Env = append(os.Environ(), "NO_COLOR=1")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ch := &child{cmd: c, errOut: errOut, exited: make(chan error, 1)}
	go func() { ch.exited <- c.Wait() }()
	t.Cleanup(func() {
		if c.ProcessState == nil {
			_ = c.Process.Kill()
		}
	})
	return ch
}

// wait waits up to stopBound for the child to exit; ok is false (and the child is killed)
// when it did not.
func (c *child) wait(t *testing.T) (status syscall.WaitStatus, ok bool) {
	t.Helper()
	select {
	case <-c.exited:
		return c.cmd.ProcessState.Sys().(syscall.WaitStatus), true
	case <-time.After(stopBound):
		_ = c.cmd.Process.Kill()
		<-c.exited
		return 0, false
	}
}

// interruptOnce starts patience, lets it reach its blocking read, sends one SIGINT and
// returns how it ended. A child killed by the signal itself had not installed its handler
// yet (a slow start on a loaded machine): it is started again with a longer wait, so the
// test never depends on how fast the machine is.
func interruptOnce(t *testing.T, stdin func() io.Reader, args ...string) (status syscall.WaitStatus, errOut string) {
	t.Helper()
	settle := 300 * time.Millisecond
	for try := 0; ; try++ {
		c := startPatience(t, stdin(), nil, args...)
		time.Sleep(settle)
		if err := c.cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatalf("%v: exited before it was interrupted: %v\nstderr: %s", args, err, c.errOut)
		}
		st, ok := c.wait(t)
		if !ok {
			t.Fatalf("%v: still running %s after Ctrl-C (blocked on its input)\nstderr: %s", args, stopBound, c.errOut)
		}
		if st.Signaled() && st.Signal() == syscall.SIGINT && try < 4 {
			settle *= 3
			continue
		}
		return st, c.errOut.String()
	}
}

// idleStdin is a pipe whose writer never writes nor closes, as `sleep 30 | patience ...`.
func idleStdin(t *testing.T) func() io.Reader {
	return func() io.Reader {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		return r
	}
}

// fifo makes a named pipe that no one writes to.
func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "input.fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// TestInterruptBlockedOnInput: Ctrl-C stops a command blocked on its input — a FIFO with
// no writer (open(2) blocks until one appears), a FIFO whose writer is idle, an idle pipe on
// standard input — with exit 130 and a message that says nothing was read, never "partial
// results above" (issue 24 items 2 and 9). Before, each of these ran until the writer came:
// SIGINT and SIGTERM only cancelled a context nobody was watching.
func TestInterruptBlockedOnInput(t *testing.T) {
	none := func() io.Reader { return nil }
	idle := idleStdin(t)
	for _, tc := range []struct {
		name  string
		stdin func() io.Reader
		args  func(fifo string) []string
	}{
		{"advise fifo", none, func(f string) []string { return []string{"advise", f} }},
		{"check fifo", none, func(f string) []string { return []string{"check", f} }},
		{"replay fifo", none, func(f string) []string { return []string{"replay", f} }},
		{"storm fifo", none, func(f string) []string { return []string{"storm", f} }},
		{"probe --merge fifo", none, func(f string) []string { return []string{"probe", "--merge", f} }},
		{"probe -d @fifo", none, func(f string) []string { return []string{"probe", "-d", "@" + f, "http://127.0.0.1:9/"} }},
		{"probe --cacert fifo", none, func(f string) []string { return []string{"probe", "--cacert", f, "https://127.0.0.1:9/"} }},
		{"probe --cert fifo", none, func(f string) []string {
			return []string{"probe", "--cert", f, "--key", f, "https://127.0.0.1:9/"}
		}},
		{"advise stdin", idle, func(string) []string { return []string{"advise", "-"} }},
		{"probe --merge stdin", idle, func(string) []string { return []string{"probe", "--merge", "-"} }},
		{"probe -d @- stdin", idle, func(string) []string { return []string{"probe", "-d", "@-", "http://127.0.0.1:9/"} }},
		// The nginx.conf and the check file piped in are read before any other input.
		{"advise --log-format - stdin", idle, func(f string) []string { return []string{"advise", f, "--log-format", "-#timed"} }},
		{"replay --chain -#DEP stdin", idle, func(string) []string { return []string{"replay", "--chain", "-#partner"} }},
		{"storm --chain -#DEP stdin", idle, func(string) []string { return []string{"storm", "--chain", "-#partner"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fifo(t)
			st, errOut := interruptOnce(t, tc.stdin, tc.args(f)...)
			if st.ExitStatus() != ExitInterrupted {
				t.Errorf("exit %d (%v), want %d\nstderr: %s", st.ExitStatus(), st, ExitInterrupted, errOut)
			}
			// stderr names what the command was waiting for, and points at no results.
			want := "interrupted: stopped while waiting for input from " + f + ": nothing to report"
			if strings.HasSuffix(tc.name, "stdin") {
				want = "interrupted: stopped while waiting for input from standard input: nothing to report"
			}
			if !strings.Contains(errOut, want) || strings.Contains(errOut, "partial results above") {
				t.Errorf("stderr %q, want %q", errOut, want)
			}
		})
	}
}

// TestInterruptFIFOIdleWriter: a FIFO whose writer opened it and then says nothing (a log
// shipper that stalls): the read, not the open, is what Ctrl-C must abandon.
func TestInterruptFIFOIdleWriter(t *testing.T) {
	p := fifo(t)
	settle := 300 * time.Millisecond
	for try := 0; ; try++ {
		c := startPatience(t, nil, nil, "advise", p)
		// The writer can open without blocking only once the reader has the FIFO open (or
		// is opening it): then patience is surely past its start and reading.
		var w *os.File
		deadline := time.Now().Add(time.Minute)
		for w == nil {
			fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
			switch {
			case err == nil:
				w = os.NewFile(uintptr(fd), p)
			case errors.Is(err, syscall.ENXIO) && time.Now().Before(deadline):
				time.Sleep(20 * time.Millisecond)
			default:
				t.Fatalf("open the FIFO for writing: %v", err)
			}
		}
		time.Sleep(settle)
		_ = c.cmd.Process.Signal(os.Interrupt)
		st, ok := c.wait(t)
		w.Close()
		if !ok {
			t.Fatalf("still running %s after Ctrl-C while its writer was idle\nstderr: %s", stopBound, c.errOut)
		}
		if st.Signaled() && try < 4 {
			settle *= 3
			continue
		}
		if st.ExitStatus() != ExitInterrupted || strings.Contains(c.errOut.String(), "partial results above") {
			t.Errorf("exit %d, stderr %q; want 130 and no pointer at results that were never printed", st.ExitStatus(), c.errOut)
		}
		return
	}
}

// TestSecondInterruptExitsAtOnce: whatever the run waits on after the first Ctrl-C — here a
// write to a stdout nobody reads (a pager the user suspended: `patience replay -o json |
// less`) — a second Ctrl-C exits at once with 130 (issue 24 item 2; docs/design.md §2's exit-code
// table promised it). Before, both signals were swallowed and the process waited for the
// reader for ever.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			// replay -o json of the default scenario is ~300 KB, far past a pipe's buffer.
			c := startPatience(t, nil, w, "replay", "-o", "json")
			w.Close()
			// The first bytes of the report: the command is running and then blocks on the
			// full pipe, since the test reads nothing more.
			if _, err := io.ReadFull(r, make([]byte, 4096)); err != nil {
				t.Fatalf("no report on stdout: %v\nstderr: %s", err, c.errOut)
			}
			_ = c.cmd.Process.Signal(sig)
			time.Sleep(100 * time.Millisecond)
			_ = c.cmd.Process.Signal(sig)
			st, ok := c.wait(t)
			if !ok {
				t.Fatalf("still running %s after two %v\nstderr: %s", stopBound, sig, c.errOut)
			}
			if st.ExitStatus() != ExitInterrupted {
				t.Errorf("exit %d (%v), want %d\nstderr: %s", st.ExitStatus(), st, ExitInterrupted, c.errOut)
			}
			if !strings.Contains(c.errOut.String(), "exiting now") {
				t.Errorf("stderr does not say the second signal ended the run:\n%s", c.errOut)
			}
		})
	}
}

// TestReplayLiveInterruptedNotGraded: Ctrl-C during `replay --live` prints the policy it cut
// marked interrupted and not graded — in the JSON too — and exits 130 pointing at it; before,
// the cut policy was graded ✗ ("requests still hanging … does not recover", issue 24 item 9).
func TestReplayLiveInterruptedNotGraded(t *testing.T) {
	dir := t.TempDir()
	sc := filepath.Join(dir, "hang.yaml")
	// A dependency that hangs for most of a minute: at the stop, requests are in flight.
	if err := os.WriteFile(sc, []byte("name: hang\nseed: 1\nduration: 60s\ndrain: 30s\nload: {clients: 1, workers: 20, rate: 20/s}\ntarget:\n  latency: {fixed: 10ms}\n  phases:\n    - {name: hang, at: 0s, for: 50s, latency: {fixed: 40s}}\npolicies:\n  - {name: patient, timeout: 1m}\n  - {name: brisk, timeout: 200ms}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut, signalled := runInterrupted(t, 2*time.Second, "replay", sc, "--live", "-o", "json")
	if !signalled {
		t.Fatalf("the run ended before it was interrupted: exit %d\nstderr: %s", code, errOut)
	}
	if code != ExitInterrupted || !strings.Contains(errOut, "interrupted: partial results above") {
		t.Errorf("exit %d, stderr %q; want 130 pointing at the results", code, errOut)
	}
	var doc struct {
		Interrupted bool `json:"interrupted"`
		Policies    []struct {
			Name        string `json:"name"`
			Interrupted bool   `json:"interrupted"`
			Verdict     struct {
				Level   string `json:"level"`
				Reasons []struct{ Code, Text string }
			} `json:"verdict"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !doc.Interrupted || len(doc.Policies) != 1 {
		t.Fatalf("interrupted %v, %d policies; want the one cut policy", doc.Interrupted, len(doc.Policies))
	}
	p := doc.Policies[0]
	if !p.Interrupted || p.Verdict.Level != "not_graded" || len(p.Verdict.Reasons) != 1 || p.Verdict.Reasons[0].Code != "interrupted" {
		t.Errorf("policy %s: interrupted %v, verdict %+v; want not_graded with the one interrupted clause", p.Name, p.Interrupted, p.Verdict)
	}
}

// TestCertDevZeroRefused: --cacert, --cert and --key are read with a cap (input.MaxPEM), so
// /dev/zero named there is an error naming the flag and the cap, not a read that grows until
// the machine runs out of memory (os.ReadFile, tls.LoadX509KeyPair before).
func TestCertDevZeroRefused(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"probe", "--cacert", "/dev/zero", "https://127.0.0.1:9/"}, "--cacert: /dev/zero: larger than 4 MiB"},
		{[]string{"probe", "--cert", "/dev/zero", "--key", "/dev/zero", "https://127.0.0.1:9/"}, "--cert: /dev/zero: larger than 4 MiB"},
	} {
		code, _, errOut := runCmd(t, t.Context(), "", tc.args...)
		if code == ExitOK || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error with %q", tc.args, code, errOut, tc.want)
		}
	}
}
