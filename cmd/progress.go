package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/sim"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// progressBar draws one mpb bar on stderr when it may (a terminal, not --quiet, a format for
// people); otherwise both functions do nothing. The bar is created on the first report, when
// the total is known. finish must be called before the report prints: it aborts an unfinished
// bar and waits for the container.
func progressBar(s *report.IOStreams, format, label string, counter decor.Decorator) (progress func(done, total int), finish func(aborted bool)) {
	p := newProgress(context.Background(), s, s.ShowProgress(format), 40)
	var bar *mpb.Bar
	progress = func(done, total int) {
		if bar == nil {
			// A finished bar is removed, so a copied terminal holds the report alone.
			bar = p.AddBar(int64(total), mpb.BarRemoveOnComplete(), mpb.PrependDecorators(decor.Name(label)), mpb.AppendDecorators(counter))
		}
		bar.SetCurrent(int64(done))
	}
	finish = func(aborted bool) {
		if bar != nil && (aborted || !bar.Completed()) {
			bar.Abort(true)
		}
		p.Wait()
	}
	return progress, finish
}

// heldLog is a log writer beside a progress bar: it writes through until the bar is drawn,
// then holds what is written until the bar is erased (release), so a note never lands in the
// middle of the bar's frames, which erase the lines they drew.
type heldLog struct {
	mu   sync.Mutex
	out  io.Writer
	hold bool
	held bytes.Buffer
}

func (h *heldLog) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hold {
		return h.held.Write(b)
	}
	return h.out.Write(b)
}

// start holds what is written from now on.
func (h *heldLog) start() {
	h.mu.Lock()
	h.hold = true
	h.mu.Unlock()
}

// release writes what was held and writes through again.
func (h *heldLog) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hold = false
	_, _ = h.held.WriteTo(h.out)
}

// progressBarLog is progressBar with log, where the work being shown writes its notes: the
// writer it returns writes to log, holding the notes written while the bar is up until finish.
func progressBarLog(s *report.IOStreams, format, label string, counter decor.Decorator, log io.Writer) (progress func(done, total int), finish func(aborted bool), logw io.Writer) {
	bar, end := progressBar(s, format, label, counter)
	if !s.ShowProgress(format) {
		return bar, end, log
	}
	h := &heldLog{out: log}
	var once sync.Once
	progress = func(done, total int) {
		once.Do(h.start)
		bar(done, total)
	}
	finish = func(aborted bool) {
		end(aborted)
		h.release()
	}
	return progress, finish, h
}

// newProgress is the container of every progress bar: on stderr when show, else drawn
// nowhere. barWidth is the bar's own width (its decorators come beside it); the whole line
// fits stderr's width less one (barWriter).
func newProgress(ctx context.Context, s *report.IOStreams, show bool, barWidth int) *mpb.Progress {
	if !show {
		return mpb.NewWithContext(ctx, mpb.WithOutput(io.Discard), mpb.WithWidth(barWidth))
	}
	return mpb.NewWithContext(ctx, mpb.WithConsoleWriter(newBarWriter(s)), mpb.WithWidth(barWidth))
}

// barWriter is mpb's console writer (what its own cupwriter does: each flush writes the
// frame, then moves the cursor up over it and erases, ready for the next) with one
// difference: the width it gives mpb is the terminal's less one. A line as wide as the
// terminal leaves the cursor in the pending-wrap state of the last column, and on some
// terminals (tmux) every redraw of such a line then left a copy of the bar behind. mpb
// fits each line to this width, shrinking the bar first.
type barWriter struct {
	bytes.Buffer
	out io.Writer
	// fd is stderr's descriptor when it is a terminal (its size is read at every frame, so
	// a resized window is followed), else -1.
	fd int
	// width is the fallback width: stderr's as IOStreams decided it.
	width int
}

func newBarWriter(s *report.IOStreams) *barWriter {
	w := &barWriter{out: s.ErrOut, fd: -1, width: s.ErrWidth}
	if f, ok := s.ErrOut.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		w.fd = int(f.Fd())
	}
	return w
}

// IsTerminal is true: a barWriter is only made for a stderr that shows progress.
func (w *barWriter) IsTerminal() bool { return true }

// GetTermSize gives mpb the terminal's width less one and its height.
func (w *barWriter) GetTermSize() (width, height int, err error) {
	width, height = w.width, 24
	if w.fd >= 0 {
		if c, r, err := term.GetSize(w.fd); err == nil && c > 0 {
			width, height = c, r
		}
	}
	if width <= 0 {
		width = report.DefaultWidth
	}
	return max(width-1, 1), height, nil
}

// Flush writes the frame and queues the cursor-up-and-erase of its lines before the next.
func (w *barWriter) Flush(lines int) error {
	if _, err := w.WriteTo(w.out); err != nil {
		return err
	}
	if lines > 0 {
		fmt.Fprintf(&w.Buffer, "\x1b[%dA\x1b[J", lines)
	}
	return nil
}

// bytesIEC writes a byte count as the bars show it: three significant digits and the
// largest binary unit that keeps the number below 1,000 ("85 MiB", "1.1 GiB").
func bytesIEC(n float64) string {
	unit := 0
	names := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	for n >= 999.5 && unit < len(names)-1 {
		n /= 1024
		unit++
	}
	return units.Sig(n) + " " + names[unit]
}

// announceProbe announces a probe's expected length (announceDuration): its --duration, or
// --requests at --rate when that ends it sooner.
func announceProbe(s *report.IOStreams, cfg probe.Config) {
	d := cfg.Duration
	detail := ""
	if cfg.Rate > 0 {
		if cfg.Requests > 0 {
			byCount := time.Duration(float64(cfg.Requests) / cfg.Rate * float64(time.Second))
			if d <= 0 || byCount < d {
				d = byCount
			}
		}
		detail = units.Count(int(math.Round(d.Seconds()*cfg.Rate))) + " requests at " + units.Rate(cfg.Rate)
	} else if cfg.Requests > 0 {
		return // a closed model bounded by a count: its length is not known ahead
	} else if cfg.Concurrency == 1 {
		detail = "1 worker"
	} else if cfg.Concurrency > 1 {
		detail = units.Count(cfg.Concurrency) + " workers"
	}
	announceDuration(s, d, detail)
}

// announceLongerThan is the expected run time above which a command says how long it will take.
const announceLongerThan = 10 * time.Second

// announceDuration writes one line on stderr before a run expected to last longer than
// announceLongerThan — "about 15 s (probe 5 s at 200/s, …)" — so a run in a pipe, with no
// progress bar, does not look hung. --quiet silences it.
func announceDuration(s *report.IOStreams, d time.Duration, detail string) {
	if s.Quiet || d <= announceLongerThan {
		return
	}
	line := "about " + units.Duration(d.Round(time.Second))
	if detail != "" {
		line += " (" + detail + ")"
	}
	notef(s, "%s", line)
}

// announceEstimate is announceDuration for an estimate (sim.Estimate), said when its High is
// above announceLongerThan: "about 3–8 s" where its Low and High are more than half apart
// (a run that may tip either way), else "about 5 s".
func announceEstimate(s *report.IOStreams, est sim.Estimate, detail string) {
	if s.Quiet || max(est.High, est.Time) <= announceLongerThan {
		return
	}
	line := "about " + estimateProse(est)
	if detail != "" {
		line += " (" + detail + ")"
	}
	notef(s, "%s", line)
}

// estimateProse writes an estimate to the second: a range "3–8 s" or "50 s to 2 min" when
// its High is more than 1.5 times its Low, else its Time.
func estimateProse(est sim.Estimate) string {
	lo, hi := max(est.Low.Round(time.Second), time.Second), est.High.Round(time.Second)
	if est.Low <= 0 || hi*2 <= lo*3 {
		return units.Duration(max(est.Time.Round(time.Second), time.Second))
	}
	if hi < time.Minute {
		return fmt.Sprintf("%d–%d s", int(lo.Seconds()), int(hi.Seconds()))
	}
	return units.Duration(lo) + " to " + units.Duration(hi)
}

// notef writes a note, warning or error on stderr, wrapped by word to stderr's width
// (report.WrapNote): every line cmd itself writes there goes through it or noteWriter.
func notef(s *report.IOStreams, format string, args ...any) {
	_ = report.WrapNote(s.ErrOut, s.ErrWidth, fmt.Sprintf(format, args...))
}

// noteWriter is stderr for the notes other packages write (live's estimate and warnings,
// serve's log): each line wrapped as notef wraps it.
func noteWriter(s *report.IOStreams) io.Writer {
	return report.NoteWriter(s.ErrOut, s.ErrWidth)
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
