package advise

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// HdrHistogram interval logs (.hlog: jHiccup, and whatever writes with HdrHistogram's
// HistogramLogWriter), read as HdrHistogram's own readers read them (HdrHistogram/HdrHistogram
// src/main/java/org/HdrHistogram/HistogramLogReader.java; HdrHistogram/hdrhistogram-go
// log_reader.go): '#' lines are comments, "#[StartTime: <s> …]" and "#[BaseTime: <s> …]"
// set the time origin, the legend line is "StartTimestamp","Interval_Length",…, and each
// interval is "[Tag=<tag>,]<start s>,<length s>,<max>,<base64 compressed histogram>" decoded
// with hdrhistogram.Decode (the call the Go reader makes).
//
// The values' unit is not written down. The third column is the interval's max divided by
// the writer's maxValueUnitRatio, which is 1 000 000 by default in every HdrHistogram writer
// (Java HistogramLogWriter, hdrhistogram-go log_writer.go's MsToNsRatio, "the msec : nsec
// ratio"): values in nanoseconds, the max column in milliseconds — jHiccup's case. So the
// unit is read from max ÷ column: 10⁶ ns, 10³ µs, 1 ms (the column taken as ms, as the
// writers mean it); --unit overrides. A start timestamp more than a year before StartTime is
// relative to it (the readers' rule).
//
// These are latency distributions without status, errors or routes: every value is counted
// as an answered request (shown as 200) and the note says so — the error rate is unknown.

// hlogInterval matches an interval line (with or without a tag).
func hlogInterval(l []byte) ([][]byte, bool) {
	if bytes.HasPrefix(l, []byte("Tag=")) {
		i := bytes.IndexByte(l, ',')
		if i < 0 {
			return nil, false
		}
		l = l[i+1:]
	}
	f := bytes.SplitN(l, []byte{','}, 4)
	if len(f) != 4 || !bytes.HasPrefix(f[3], []byte("HIST")) {
		return nil, false
	}
	for _, v := range f[:3] {
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			return nil, false
		}
	}
	return f, true
}

// hlogHead says whether the sample is an HdrHistogram log: its header comment, or interval
// lines among its first lines.
func hlogHead(lines [][]byte) bool {
	for i, l := range lines {
		if i >= 10 {
			break
		}
		if bytes.HasPrefix(l, []byte("#[Histogram log format version")) {
			return true
		}
		if _, ok := hlogInterval(l); ok {
			return true
		}
	}
	return false
}

// hlogUnits are the units the max column's ratio can name (the column in ms).
var hlogUnits = []struct {
	ratio float64
	unit  time.Duration
}{{1e6, time.Nanosecond}, {1e3, time.Microsecond}, {1, time.Millisecond}}

func hlogStream(ctx context.Context, r *reader, in *input, a *accum) error {
	if r.filter != nil {
		return &InputError{File: in.name, Err: errors.New("--filter does not apply to an HdrHistogram log: it holds distributions, not requests")}
	}
	hr := &hlogReader{r: r, in: in, a: a, tags: map[string]bool{}, why: "--unit"}
	if r.opts.Unit != "" {
		u, err := ParseUnit(r.opts.Unit)
		if err != nil {
			return err
		}
		hr.unit = u
	}
	if err := hr.readLines(ctx); err != nil {
		return err
	}
	return hr.finish()
}

// hlogSpan is one interval histogram and its start (zero when unknown).
type hlogSpan struct {
	start time.Time
	h     *hdrhistogram.Histogram
}

// hlogReader reads one HdrHistogram log: line by line, each interval kept pending until
// the unit is decided (from the first intervals' max column, or --unit), then streamed.
type hlogReader struct {
	r  *reader
	in *input
	a  *accum

	line    int64
	pending []hlogSpan
	count   int // the intervals read
	// startSec and baseSec are the time origin: StartTime (else the first interval's) and
	// BaseTime (else StartTime when the timestamps are relative to it, else 0).
	startSec, baseSec   float64
	haveStart, haveBase bool
	ratios              []float64 // the intervals' max ÷ max column
	tags                map[string]bool
	unit                time.Duration // 0 until decided
	why                 string        // where unit comes from
}

// readLines reads the log to its end.
func (hr *hlogReader) readLines(ctx context.Context) error {
	br := bufio.NewReaderSize(hr.in.br, 64<<10)
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		l, err := br.ReadBytes('\n')
		if len(l) == 0 && err != nil {
			if err == io.EOF {
				return nil
			}
			return &InputError{File: hr.in.name, Line: hr.line + 1, Err: err}
		}
		hr.line++
		if err := hr.readLine(bytes.TrimRight(l, "\r\n")); err != nil {
			return err
		}
	}
}

// readLine reads one line: a comment or the legend, else an interval (a malformed line is
// counted). The unit is decided on the first intervals; the rest stream through.
func (hr *hlogReader) readLine(l []byte) error {
	switch {
	case blank(l):
		return nil
	case l[0] == '#':
		hr.comment(l)
		return nil
	case bytes.HasPrefix(l, []byte(`"StartTimestamp"`)):
		return nil
	}
	hr.tag(l)
	f, ok := hlogInterval(l)
	if !ok {
		hr.a.malformedLine(hr.in.name, hr.line, "not an interval line (start,length,max,HIST… payload)")
		return nil
	}
	h, err := hdrhistogram.Decode(f[3])
	if err != nil {
		hr.a.malformedLine(hr.in.name, hr.line, fmt.Sprintf("interval histogram: %v", err))
		return nil
	}
	hr.interval(f, h)
	if hr.unit == 0 && len(hr.ratios) >= hlogUnitSample {
		if err := hr.decide(); err != nil {
			return err
		}
	}
	if hr.unit != 0 {
		hr.flush()
	}
	return nil
}

// comment reads a '#' line: jHiccup's mark, StartTime and BaseTime.
func (hr *hlogReader) comment(l []byte) {
	if bytes.HasPrefix(l, []byte("#[Logged with jHiccup")) {
		// jHiccup (giltene/jHiccup src/main/java/org/jhiccup/HiccupMeter.java, its
		// HiccupRecorder) records the stalls its own thread saw (sleep
		// overshoot), the platform's hiccups, not the latency of requests.
		hr.a.note("HdrHistogram log written by jHiccup: the values are platform hiccups (how much longer than asked a thread's sleep took), not request latencies — a timeout derived from them is the stall a request could meet, not its service time")
	}
	if v, ok := hlogHeaderSec(l, "#[StartTime: "); ok {
		hr.startSec, hr.haveStart = v, true
	} else if v, ok := hlogHeaderSec(l, "#[BaseTime: "); ok {
		hr.baseSec, hr.haveBase = v, true
	}
}

// tag remembers an interval's tag (the first 20 tags).
func (hr *hlogReader) tag(l []byte) {
	if !bytes.HasPrefix(l, []byte("Tag=")) {
		return
	}
	if i := bytes.IndexByte(l, ','); i > 4 && len(hr.tags) < 20 {
		hr.tags[string(l[4:i])] = true
	}
}

// interval keeps interval histogram h (fields f) pending, with its start and its max ratio.
func (hr *hlogReader) interval(f [][]byte, h *hdrhistogram.Histogram) {
	ts, _ := strconv.ParseFloat(string(f[0]), 64)
	maxCol, _ := strconv.ParseFloat(string(f[2]), 64)
	hr.origin(ts)
	if maxCol > 0 && h.Max() > 0 {
		hr.ratios = append(hr.ratios, float64(h.Max())/maxCol)
	}
	sec := ts + hr.baseSec
	var at time.Time
	if sec > 0 && sec < math.MaxInt64/1e9 {
		at = time.Unix(0, int64(sec*1e9)).UTC()
	}
	hr.count++
	hr.pending = append(hr.pending, hlogSpan{start: at, h: h})
}

// origin sets the time origin the header did not give from the first interval's timestamp
// ts.
func (hr *hlogReader) origin(ts float64) {
	if !hr.haveStart {
		hr.startSec, hr.haveStart = ts, true
	}
	if hr.haveBase {
		return
	}
	// The readers' rule: a timestamp over a year before StartTime is relative to it.
	if ts < hr.startSec-365*24*3600 {
		hr.baseSec = hr.startSec
	}
	hr.haveBase = true
}

// decide sets the unit from the max column ratios; an error when they name none.
func (hr *hlogReader) decide() error {
	if hr.unit, hr.why = hlogUnit(hr.ratios); hr.unit == 0 {
		return &InputError{File: hr.in.name, Err: fmt.Errorf("the values' unit cannot be read from the max column (max ÷ column ≈ %.3g, none of 10⁶ ns, 10³ µs, 1 ms): give --unit", median(hr.ratios))}
	}
	return nil
}

// flush records the pending intervals that start within --since and --until.
func (hr *hlogReader) flush() {
	o := &hr.r.opts
	hr.a.unit = hr.unit
	for _, iv := range hr.pending {
		if !iv.start.IsZero() && ((!o.Since.IsZero() && iv.start.Before(o.Since)) || (!o.Until.IsZero() && !iv.start.Before(o.Until))) {
			continue
		}
		hlogAdd(hr.a, iv.h, hr.unit, iv.start, o.Window)
	}
	hr.pending = hr.pending[:0]
}

// finish records what is still pending (the unit decided on every interval when there were
// fewer than hlogUnitSample) and notes the tags, the unit and what the log cannot say.
func (hr *hlogReader) finish() error {
	a := hr.a
	a.lines = hr.line
	if hr.count == 0 {
		if a.malformed > 0 {
			return nil
		}
		return &InputError{File: hr.in.name, Err: errors.New("no interval histograms in this HdrHistogram log")}
	}
	if hr.unit == 0 {
		if err := hr.decide(); err != nil {
			return err
		}
	}
	hr.flush()
	if len(hr.tags) > 0 {
		names := make([]string, 0, len(hr.tags))
		for t := range hr.tags {
			names = append(names, t)
		}
		sort.Strings(names)
		a.note(fmt.Sprintf("HdrHistogram log: the intervals tagged %s are merged into one distribution (a tag is a separate series: give one tag's lines to read it alone)", strings.Join(names, ", ")))
	}
	a.noStatus = a.all.requests
	a.note(fmt.Sprintf("HdrHistogram log: %d interval histograms, values read in %s (%s); latency distributions only — no status, no errors: every value is counted as answered (shown as 200), the error rate is unknown", hr.count, unitName(hr.unit), hr.why))
	return nil
}

// hlogUnitSample is how many intervals with a max decide the unit.
const hlogUnitSample = 16

// hlogHeaderSec reads the seconds after a header prefix ("#[StartTime: 1441812279.474 …").
func hlogHeaderSec(l []byte, prefix string) (float64, bool) {
	if !bytes.HasPrefix(l, []byte(prefix)) {
		return 0, false
	}
	rest := string(l[len(prefix):])
	if i := strings.IndexAny(rest, " ]"); i >= 0 {
		rest = rest[:i]
	}
	v, err := strconv.ParseFloat(rest, 64)
	return v, err == nil
}

// hlogUnit names the unit from the max column ratios (their median within ±25 % of a known
// ratio).
func hlogUnit(ratios []float64) (time.Duration, string) {
	if len(ratios) == 0 {
		return time.Nanosecond, "no interval has a max: HdrHistogram's default, nanoseconds"
	}
	m := median(ratios)
	for _, u := range hlogUnits {
		if m > u.ratio*0.75 && m < u.ratio*1.25 {
			return u.unit, fmt.Sprintf("max ÷ the max column ≈ %.4g: the writer's maxValueUnitRatio for %s values and a column in ms", m, unitName(u.unit))
		}
	}
	return 0, ""
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}

// hlogAdd records an interval histogram (values in unit) into a: every value an answered
// request, at the highest value equivalent to its bucket (HdrHistogram's own percentiles).
func hlogAdd(a *accum, h *hdrhistogram.Histogram, unit time.Duration, at time.Time, window time.Duration) {
	s := a.all
	var w *windowAcc
	if !at.IsZero() {
		if a.first.IsZero() || at.Before(a.first) {
			a.first = at
		}
		if at.After(a.last) {
			a.last = at
		}
		k := at.UnixNano() / int64(window)
		if w = a.windows[k]; w == nil && len(a.windows) < maxWindows {
			w = &windowAcc{}
			a.windows[k] = w
		}
	}
	for _, b := range h.Distribution() {
		if b.Count <= 0 {
			continue
		}
		us := int64(float64(b.To) * float64(unit) / float64(time.Microsecond))
		us = min(max(us, histLowest), histHighest)
		for _, dst := range []**hist{&s.total[1], &s.good} {
			if *dst == nil {
				*dst = newHistogram(s.sig)
			}
			(*dst).recordN(us, b.Count)
		}
		s.requests += b.Count
		s.addStatus(answeredNoStatus, b.Count)
		if w != nil {
			w.count += b.Count
			if w.good == nil {
				w.good = newHistogram(2)
			}
			w.good.recordN(us, b.Count)
		}
	}
}
