//go:build linux

package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/charmbracelet/lipgloss"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/patience-dev/patience/report"
)

// openPTY opens a pseudo-terminal of cols×30 (Linux /dev/ptmx) and returns its two ends.
func openPTY(t *testing.T, cols uint16) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), req, uintptr(arg)); e != 0 {
			return e
		}
		return nil
	}
	var unlock int32
	var n uint32
	if err := ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	if err := ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Skipf("ptsname: %v", err)
	}
	ws := [4]uint16{30, cols, 0, 0} // rows, columns, pixels
	if err := ioctl(syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
		t.Skipf("window size: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open the pty's terminal: %v", err)
	}
	return m, s
}

// csi is one control sequence of the kind mpb writes.
var csi = regexp.MustCompile(`^\x1b\[([0-9;?]*)([A-Za-z])`)

// screen plays what a terminal received and returns the lines left on it: text, carriage
// returns, line feeds, cursor up (CSI n A) and erase below (CSI J) or to the end of the line
// (CSI K), which is all a progress bar uses; other sequences are ignored.
func screen(out string) []string {
	lines := []string{""}
	row, col := 0, 0
	put := func(r rune) {
		line := []rune(lines[row])
		for len(line) < col {
			line = append(line, ' ')
		}
		if col < len(line) {
			line[col] = r
		} else {
			line = append(line, r)
		}
		lines[row] = string(line)
		col++
	}
	for len(out) > 0 {
		if m := csi.FindStringSubmatch(out); m != nil {
			n, _ := strconv.Atoi(m[1])
			switch m[2] {
			case "A":
				row = max(0, row-max(n, 1))
			case "J":
				lines = lines[:row+1]
				lines[row] = string([]rune(lines[row])[:min(col, len([]rune(lines[row])))])
			case "K":
				lines[row] = string([]rune(lines[row])[:min(col, len([]rune(lines[row])))])
			}
			out = out[len(m[0]):]
			continue
		}
		r := []rune(out[:min(len(out), 4)])[0]
		out = out[len(string(r)):]
		switch r {
		case '\r':
			col = 0
		case '\n':
			row++
			if row == len(lines) {
				lines = append(lines, "")
			}
		default:
			put(r)
		}
	}
	var kept []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, l)
		}
	}
	return kept
}

// readPTY collects what the terminal end of a pty receives until stop is called.
func readPTY(master *os.File) (stop func() string) {
	var mu sync.Mutex
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			got.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return func() string {
		<-done
		mu.Lock()
		defer mu.Unlock()
		return got.String()
	}
}

// frameLines splits what a bar wrote into the lines it drew — every cursor movement and
// erase removed, a carriage return starting the line anew — with their widths in columns.
func frameLines(raw string) (lines []string, widest int) {
	plain := regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`).ReplaceAllString(raw, "\n")
	for _, l := range strings.FieldsFunc(plain, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines = append(lines, l)
		widest = max(widest, lipgloss.Width(l))
	}
	return lines, widest
}

// TestBarsFitTheWidthLessOne: on a terminal of 80 columns every line a progress bar draws
// is at most 79 wide, however long its figures — a line as wide as the terminal leaves the
// cursor in the last column, and tmux then kept one copy of the bar per redraw. advise's bar
// (bytes, speed and time left), probe's (done, rate, errors) and replay's and storm's.
func TestBarsFitTheWidthLessOne(t *testing.T) {
	bars := []struct {
		name string
		// wide is a bar whose figures alone are wider than the terminal: mpb truncates them,
		// and the line must still stop at 79.
		wide bool
		draw func(s *report.IOStreams)
	}{
		{"advise", false, func(s *report.IOStreams) {
			set, finish := adviseProgress(&AdviseOptions{IO: s, Output: "text"}, 1200<<20)
			for i := range 8 {
				set(int64(1000+i) << 20)
				time.Sleep(60 * time.Millisecond)
			}
			finish(true)
		}},
		{"advise stdin", false, func(s *report.IOStreams) {
			set, finish := adviseProgress(&AdviseOptions{IO: s, Output: "text"}, 0)
			for i := range 8 {
				set(int64(900+i) << 30)
				time.Sleep(60 * time.Millisecond)
			}
			finish(true)
		}},
		{"wide figures", true, func(s *report.IOStreams) {
			progress, finish := progressBar(s, "text", "storm", decor.Any(func(decor.Statistics) string {
				return strings.Repeat("9,999 done ", 10)
			}))
			for i := range 8 {
				progress(i, 10)
				time.Sleep(60 * time.Millisecond)
			}
			finish(true)
		}},
		{"storm", false, func(s *report.IOStreams) {
			progress, finish := stormProgress(s, "text")
			for i := range 8 {
				progress(i, 78)
				time.Sleep(60 * time.Millisecond)
			}
			finish(true)
		}},
		{"replay", false, func(s *report.IOStreams) {
			progress, finish := replayProgress(s, "text", strings.Repeat("a-long-scenario-name-", 5))
			for i := range 8 {
				progress(i, 10)
				time.Sleep(60 * time.Millisecond)
			}
			finish(true)
		}},
	}
	for _, b := range bars {
		master, slave := openPTY(t, 80)
		stop := readPTY(master)
		s := report.System(nil, &bytes.Buffer{}, slave)
		if !s.StderrTTY || s.ErrWidth != 80 {
			t.Fatalf("the pty is not seen as a terminal of 80 columns: tty %v, width %d", s.StderrTTY, s.ErrWidth)
		}
		b.draw(s)
		slave.Close()
		raw := stop()
		master.Close()
		lines, widest := frameLines(raw)
		if len(lines) == 0 {
			t.Errorf("%s: no bar was drawn: %q", b.name, raw)
			continue
		}
		if widest > 79 {
			t.Errorf("%s: a bar line is %d columns on a terminal of 80:\n%s", b.name, widest, strings.Join(lines, "\n"))
		}
		for _, l := range lines {
			// A figure mpb had to cut ("…"), a negative time left, a total of nothing.
			if !b.wide && (strings.Contains(l, "…") || strings.Contains(l, "-1") || strings.Contains(l, "0.0 b")) {
				t.Errorf("%s: a cut or meaningless figure: %q", b.name, l)
			}
		}
	}
}

// TestFinishedBarIsCleared: on a terminal, the progress bar is drawn while the replay runs and
// erased when it finishes, so a copied terminal holds the report alone (issue 16 item 7).
func TestFinishedBarIsCleared(t *testing.T) {
	master, slave := openPTY(t, 100)
	defer master.Close()
	var mu sync.Mutex
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			got.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	sc := filepath.Join(t.TempDir(), "mid.yaml")
	// The replay must last long enough for mpb to draw a frame (it refreshes every 150 ms):
	// 30 minutes at 1000/s take about 3 s; under the race detector, which slows the simulator
	// about 17× (52 s for this test at 30m), 3 minutes take as long as 30 did without it.
	duration := "30m"
	if raceEnabled {
		duration = "3m"
	}
	if err := os.WriteFile(sc, []byte("name: mid\nduration: "+duration+"\nload: {rate: 1000/s}\ntarget:\n  latency: {fixed: 5ms}\npolicies:\n  - {name: a, timeout: 1s}\n  - {name: b, timeout: 2s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	f := &Factory{IO: report.System(nil, &out, slave)}
	if !f.IO.StderrTTY {
		t.Fatal("the pty is not seen as a terminal")
	}
	code := run(context.Background(), f, []string{"replay", sc})
	slave.Close()
	<-done
	mu.Lock()
	raw := got.String()
	mu.Unlock()
	if code != ExitOK || !strings.Contains(out.String(), "replay mid") {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	if !strings.Contains(raw, "replay mid ") {
		t.Fatalf("no bar was drawn on the terminal: %q", raw)
	}
	if left := screen(raw); len(left) > 0 {
		t.Errorf("the finished bar is left on the terminal:\n%s\n(raw %q)", strings.Join(left, "\n"), raw)
	}
}

// TestReportWidthFromStderrTerminal: a report piped into tee or less from an 80-column
// terminal (stdout a pipe, stderr the terminal, COLUMNS not exported as bash does not) is
// 80 wide, not 100 (issue 26 item 3).
func TestReportWidthFromStderrTerminal(t *testing.T) {
	master, slave := openPTY(t, 80)
	defer master.Close()
	defer slave.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	t.Setenv("COLUMNS", "")
	s := report.System(nil, w, slave)
	if s.StdoutTTY || !s.StderrTTY || s.Width != 80 || s.ErrWidth != 80 {
		t.Errorf("stdout a pipe, stderr an 80-column pty: StdoutTTY %v StderrTTY %v Width %d ErrWidth %d; want false true 80 80",
			s.StdoutTTY, s.StderrTTY, s.Width, s.ErrWidth)
	}
}
