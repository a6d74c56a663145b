package advise

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	inputpkg "github.com/patience-dev/patience/internal/input"
)

// input is one opened file: a buffered reader over its (decompressed) bytes.
type input struct {
	name string
	br   *bufio.Reader
	c    io.Closer
}

func (in *input) Close() error {
	if in.c != nil {
		return in.c.Close()
	}
	return nil
}

// countReader counts the compressed (on-disk) bytes read, for progress.
type countReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// open opens name ("-" is stdin) and sees through gzip by its magic bytes (1f 8b), so a
// rotated access.log.2.gz or an S3 ALB log reads like any other. ctx ending abandons an open
// or a read that waits on a writer (a FIFO, an idle pipe) with an input.StoppedError.
func open(ctx context.Context, name string, stdin io.Reader, read *atomic.Int64) (*input, error) {
	var r io.Reader
	var c io.Closer
	if name == "-" {
		if stdin == nil {
			return nil, errors.New("-: no standard input")
		}
		r = inputpkg.NewReader(ctx, "standard input", stdin)
		name = "(stdin)"
	} else {
		f, err := inputpkg.Open(ctx, name)
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory (give the log files inside it)", name)
		}
		r, c = inputpkg.NewReader(ctx, name, f), f
	}
	br := bufio.NewReaderSize(countReader{r, read}, 256<<10)
	magic, err := br.Peek(2)
	if se := new(inputpkg.StoppedError); errors.As(err, &se) {
		if c != nil {
			c.Close()
		}
		return nil, se // stopped before its first bytes came: nothing read
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			if c != nil {
				c.Close()
			}
			return nil, &InputError{File: name, Err: fmt.Errorf("gzip: %v", err)}
		}
		br = bufio.NewReaderSize(zr, 256<<10)
	} else if strings.HasSuffix(name, ".gz") {
		if c != nil {
			c.Close()
		}
		return nil, &InputError{File: name, Err: errors.New("named .gz but not gzip data")}
	}
	return &input{name: name, br: br, c: c}, nil
}

// reader reads every input into one accumulator.
type reader struct {
	opts   Options
	filter *Filter
	read   atomic.Int64
	// Prometheus expositions: the first and the last read, and how many (B8: one is a
	// lifetime, two a window).
	promFirst, promLast map[string]*promSeries
	promCount           int
	// stopped is where a run the user stopped ended (nil: every input read).
	stopped *stopPoint
}

// readAll reads the inputs in order, detecting each one's format when --format is auto.
func (r *reader) readAll(ctx context.Context) (*accum, error) {
	total := newAccum()
	var chosen Format
	var stop func()
	if r.opts.Progress != nil {
		stop = r.progress()
		defer stop()
	}
	for i, name := range r.opts.Files {
		in, err := open(ctx, name, r.opts.Stdin, &r.read)
		if err != nil {
			return nil, err
		}
		// Lines wrapped by the container runtime (Docker json-file, CRI) are read as the
		// lines inside them, whatever the format (container.go).
		wrapped := containerNone
		if head, _ := in.br.Peek(64 << 10); r.opts.Format != FormatHAR && r.opts.Format != FormatProfile {
			if wrapped = detectContainer(head); wrapped != containerNone {
				in = unwrapInput(in, wrapped)
			}
		}
		f := r.opts.Format
		if f == FormatAuto && r.opts.NginxConf != nil {
			f = FormatNginx
		} else if f == FormatAuto && r.opts.LogFormat != "" {
			// A template says the format: %{…} is a curl -w string, $… an nginx log_format.
			f = FormatNginx
			if strings.Contains(r.opts.LogFormat, "%{") {
				f = FormatCurl
			}
		}
		if f == FormatAuto {
			head, _ := in.br.Peek(64 << 10)
			if f, err = Detect(head); err != nil {
				in.Close()
				return nil, &InputError{File: in.name, Err: err}
			}
		}
		if chosen == "" {
			chosen = f
		} else if chosen != f {
			in.Close()
			return nil, &InputError{File: in.name, Err: fmt.Errorf("is %s, the files before it %s: advise one format at a time", f, chosen)}
		}
		a, err := r.readFile(ctx, in, f)
		in.Close()
		if err != nil {
			if ctx.Err() == nil || a == nil || f == FormatPrometheus {
				// A scrape cut mid-way is not a smaller scrape: its counters are partial.
				return nil, err
			}
			// Stopped (Ctrl-C): what was read is kept and reported as interrupted.
			total.merge(a)
			r.stopped = &stopPoint{file: in.name, lines: a.lines, unread: len(r.opts.Files) - 1 - i, err: err}
			r.opts.Format = chosen
			return total, nil
		}
		if wrapped != containerNone {
			a.note(fmt.Sprintf("lines unwrapped from the container runtime's %s format (partial lines joined, stdout and stderr both read)", wrapped))
		}
		total.merge(a)
	}
	r.opts.Format = chosen
	if chosen == FormatPrometheus {
		if err := r.promFinish(total); err != nil {
			return nil, err
		}
	}
	return total, nil
}

func (r *reader) progress() func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				r.opts.Progress(r.read.Load())
				return
			case <-t.C:
				r.opts.Progress(r.read.Load())
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// readFile reads one input of format f.
func (r *reader) readFile(ctx context.Context, in *input, f Format) (*accum, error) {
	spec, ok := formats[f]
	if !ok {
		return nil, fmt.Errorf("unknown format %q", f)
	}
	if spec.stream != nil {
		a := newAccum()
		a.unit = spec.unit
		err := spec.stream(ctx, r, in, a)
		return a, err
	}
	head, _ := in.br.Peek(64 << 10)
	newParser, err := spec.lines(r.opts, head)
	if err != nil {
		return nil, &InputError{File: in.name, Err: err}
	}
	workers := r.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if spec.sequential {
		workers = 1
	}
	return r.readLines(ctx, in, newParser, workers, spec.unit, spec.sequential)
}

// chunk is a run of whole lines.
type chunk struct {
	data []byte
	seq  int // its place in the input: results merge in this order
}

// chunkResult is what one chunk (or, seq < 0, a sequential parser's final flush) gave. Its
// line numbers (malformed lines, err's) count from the chunk's first line: the ordered merge
// makes them the file's.
type chunkResult struct {
	seq int
	a   *accum
	err error
}

// maxLine is the longest line read; longer is a fatal error naming the line.
const maxLine = 64 << 20

// chunkSize is how much input one chunk holds (whole lines: up to the last newline in it).
const chunkSize = 1 << 20

// readLines splits the input into chunks of whole lines and parses them on workers, each into
// its own accumulator (fortio's per-thread histograms, merged at the end): one pass, memory
// bounded by the chunks in flight and the histograms.
//
// At most 2×workers+1 chunks are in flight, from the read to the end of their merge: the
// reader waits for a slot, so a worker that falls behind (a busy machine) cannot let the
// others pile up results (each an accumulator) for the ordered merge. Chunk buffers and
// accumulators are recycled through free lists of that size: the steady state allocates
// nothing, and memory does not grow with the file.
//
// The stages are linePipeline's methods: feed (the read), work (each worker), merge (in
// input order), then mergeOwn.
func (r *reader) readLines(ctx context.Context, in *input, newParser parserFactory, workers int, unit time.Duration, flush bool) (*accum, error) {
	p := newLinePipeline(r, in, workers, unit)
	var wg sync.WaitGroup
	for w := range workers {
		parse := newParser()
		wg.Go(func() { p.work(w, parse, flush) })
	}
	merged := make(chan struct{})
	go func() {
		defer close(merged)
		p.merge()
	}()
	readErr := p.feed(ctx)
	wg.Wait()
	close(p.results)
	<-merged
	p.mergeOwn()
	if readErr != nil {
		if readErr.File == "" {
			// Stopped (the context ended): every line before the stop was merged, and the
			// caller may report them as an interrupted run.
			return p.out, readErr.Err
		}
		readErr.Line = p.out.lines + 1 // the line being read: every line before it was merged
		return nil, readErr
	}
	if p.firstErr != nil {
		return nil, p.firstErr
	}
	return p.out, nil
}

// linePipeline is one readLines run: its channels, free lists and the workers' own
// histograms, and the merged result.
type linePipeline struct {
	r    *reader
	in   *input
	unit time.Duration
	// slots holds a token per chunk in flight, from the read to the end of its merge.
	slots      chan struct{}
	chunks     chan chunk
	results    chan chunkResult
	freeBufs   chan []byte
	freeAccums chan *accum
	// own holds each worker's whole-input histograms: they add up in any order, so they
	// need no ordered merge, and staying with their worker they stay in its cache (a
	// chunk's accumulator carries its counts, statuses, groups and windows).
	own [][numHists]*hist
	// out and firstErr are the merge's: read once the merge is done.
	out      *accum
	firstErr error
}

func newLinePipeline(r *reader, in *input, workers int, unit time.Duration) *linePipeline {
	inflight := 2*workers + 1
	out := newAccum()
	out.unit = unit
	return &linePipeline{
		r: r, in: in, unit: unit,
		slots:      make(chan struct{}, inflight),
		chunks:     make(chan chunk, inflight),
		results:    make(chan chunkResult, inflight),
		freeBufs:   make(chan []byte, inflight),
		freeAccums: make(chan *accum, inflight),
		own:        make([][numHists]*hist, workers),
		out:        out,
	}
}

// work is worker w: it parses each chunk it takes into the chunk's own accumulator. One
// accumulator per chunk, merged in input order: which routes fold into "(other)", the
// malformed lines shown and the first fatal error do not depend on which worker took which
// chunk (same input, same bytes out).
func (p *linePipeline) work(w int, parse lineFunc, flush bool) {
	var a *accum
	emit := func(rec *Record) { p.r.add(a, rec) }
	for c := range p.chunks {
		var hs [numHists]**hist
		a, hs = p.borrow(w)
		fatal := p.parseChunk(c.data, parse, emit, a)
		p.giveBack(w, hs, c.data)
		p.results <- chunkResult{seq: c.seq, a: a, err: fatal}
	}
	if flush {
		// A parser joining lines (k6) emits its last request at the end; such a parser
		// runs on one worker, so this comes after every chunk.
		a = newAccum()
		a.unit = p.unit
		_ = parse(nil, emit, a)
		p.results <- chunkResult{seq: -1, a: a}
	}
}

// borrow is a chunk accumulator (a recycled one when there is one) holding worker w's own
// whole-input histograms, and where they are in it.
func (p *linePipeline) borrow(w int) (*accum, [numHists]**hist) {
	var a *accum
	select {
	case a = <-p.freeAccums:
	default:
		a = newAccum()
	}
	a.unit, a.spill = p.unit, true
	hs := a.all.hists()
	for i, h := range hs {
		*h = p.own[w][i]
	}
	return a, hs
}

// giveBack takes worker w's histograms back from the chunk's accumulator (hs) and recycles
// the chunk's buffer.
func (p *linePipeline) giveBack(w int, hs [numHists]**hist, data []byte) {
	for i, h := range hs {
		p.own[w][i], *h = *h, nil
	}
	select {
	case p.freeBufs <- data[:0]:
	default:
	}
}

// parseChunk parses a chunk's lines into a (blank lines counted, not parsed); a malformed
// line is counted, and the first fatal one is returned, its line counted from the chunk's
// first.
func (p *linePipeline) parseChunk(data []byte, parse lineFunc, emit func(*Record), a *accum) error {
	var fatal error
	var line int64 = 1
	for len(data) > 0 {
		var l []byte
		l, data = cutLine(data)
		a.lines++
		if !blank(l) {
			if err := parse(l, emit, a); err != nil {
				fatal = p.lineError(a, line, err, fatal)
			}
		}
		line++
	}
	return fatal
}

// cutLine is data's first line (without its "\n" or "\r\n") and the rest.
func cutLine(data []byte) (line, rest []byte) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		line, rest = data, nil
	} else {
		line, rest = data[:i], data[i+1:]
	}
	return bytes.TrimSuffix(line, []byte{'\r'}), rest
}

// lineError counts a malformed line in a, or, for a fatal one, is the first fatal error of
// the chunk (fatal: the one so far).
func (p *linePipeline) lineError(a *accum, line int64, err, fatal error) error {
	var fe *fatalError
	if !errors.As(err, &fe) {
		a.malformedLine(p.in.name, line, err.Error())
		return fatal
	}
	if fatal == nil {
		return &InputError{File: p.in.name, Line: line, Err: fe.err}
	}
	return fatal
}

// merge folds the results into out in input order as they come (a sequential parser's
// final flush last), freeing a slot per chunk merged.
func (p *linePipeline) merge() {
	pending := map[int]chunkResult{}
	var tail []chunkResult
	next := 0
	for res := range p.results {
		if res.seq < 0 {
			tail = append(tail, res)
			continue
		}
		pending[res.seq] = res
		for {
			q, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			p.take(q)
			<-p.slots
			next++
		}
	}
	for _, res := range tail {
		p.take(res)
	}
}

// take merges one chunk's result into out and recycles its accumulator. The chunk's line
// numbers become the file's: it starts after every line merged before it.
func (p *linePipeline) take(res chunkResult) {
	base := p.out.lines
	for i := range res.a.bad {
		res.a.bad[i].line += base
	}
	if ie, ok := res.err.(*InputError); ok {
		ie.Line += base
	}
	if res.err != nil && p.firstErr == nil {
		p.firstErr = res.err
	}
	p.out.mergeCapped(res.a)
	res.a.reset()
	res.a.spill = false
	select {
	case p.freeAccums <- res.a:
	default:
	}
}

// feed reads the input into chunks of whole lines, each taking a slot, and closes chunks at
// the end. Its error is the read's; its line is set once every chunk before it is merged.
func (p *linePipeline) feed(ctx context.Context) *InputError {
	defer close(p.chunks)
	lc := &lineChunker{r: p.in.br}
	seq := 0
	for {
		if ctx.Err() != nil {
			return &InputError{Err: ctx.Err()}
		}
		p.slots <- struct{}{}
		var buf []byte
		select {
		case buf = <-p.freeBufs:
		default:
			buf = make([]byte, 0, chunkSize)
		}
		data, err := lc.next(ctx, buf)
		if len(data) > 0 {
			// Whole lines, even those before a line too long: its number is then the one
			// after every line merged.
			p.chunks <- chunk{data, seq}
			seq++
		} else {
			<-p.slots
		}
		switch {
		case err == nil:
		case err == io.EOF:
			return nil
		case errors.Is(err, errStopped) || ctx.Err() != nil:
			// The run was stopped, whatever the reader made of it.
			return &InputError{Err: ctx.Err()}
		default:
			return &InputError{File: p.in.name, Err: err}
		}
	}
}

// mergeOwn adds every worker's own histograms to out's.
func (p *linePipeline) mergeOwn() {
	for w := range p.own {
		for i, h := range p.out.all.hists() {
			mergeHist(h, p.own[w][i], p.out.all.sig)
		}
	}
}

// blank says whether l holds only white space (bytes.TrimSpace's), at the cost of one
// comparison for a line that starts with a printable ASCII byte.
func blank(l []byte) bool {
	if len(l) > 0 && l[0] > ' ' && l[0] < 0x7f {
		return false
	}
	return len(bytes.TrimSpace(l)) == 0
}

// add applies the filter and the time window, then records rec.
func (r *reader) add(a *accum, rec *Record) {
	o := &r.opts
	if !rec.Time.IsZero() {
		if !o.Since.IsZero() && rec.Time.Before(o.Since) {
			return
		}
		if !o.Until.IsZero() && !rec.Time.Before(o.Until) {
			return
		}
	}
	if r.filter != nil && !r.filter.Match(rec) {
		return
	}
	a.add(rec, o.By, o.Window)
}

// fatalError stops the read at the line that caused it (a line parser's way to say the
// input cannot be this format at all).
type fatalError struct{ err error }

func (f *fatalError) Error() string { return f.err.Error() }
