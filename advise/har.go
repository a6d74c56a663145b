package advise

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"
)

// HAR 1.2 (docs/formats.md#har-12, w3c/web-performance specs/HAR): "All times are
// specified in milliseconds"; -1 where a timing does not apply (dns and connect on a reused
// connection); ssl "is also included in the connect field" — it is not added again, and
// connect here is connect − ssl, the TCP part, as probe measures it. `time` is the total, the
// sum of the timings that apply, browser queueing (blocked) included.

type harEntry struct {
	StartedDateTime string   `json:"startedDateTime"`
	Time            *float64 `json:"time"`
	Request         struct {
		Method string `json:"method"`
		URL    string `json:"url"`
	} `json:"request"`
	Response struct {
		Status int    `json:"status"`
		Error  string `json:"_error"`
	} `json:"response"`
	Timings struct {
		Blocked *float64 `json:"blocked"`
		DNS     *float64 `json:"dns"`
		Connect *float64 `json:"connect"`
		SSL     *float64 `json:"ssl"`
		Send    *float64 `json:"send"`
		Wait    *float64 `json:"wait"`
		Receive *float64 `json:"receive"`
	} `json:"timings"`
}

func msOf(v *float64) time.Duration {
	if v == nil || *v < 0 {
		return unknown
	}
	return time.Duration(*v * float64(time.Millisecond))
}

func harStream(ctx context.Context, r *reader, in *input, a *accum) error {
	// An entry opens at depth 4: {log:{entries:[{ (limits_json.go).
	lt := &lineTracker{r: &jsonClip{r: in.br, unitDepth: 3, what: "HAR entry"}}
	dec := json.NewDecoder(lt)
	fail := func(err error) error {
		var syn *json.SyntaxError
		off := dec.InputOffset()
		if errors.As(err, &syn) {
			off = syn.Offset
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("unexpected end of the HAR document")
		}
		return &InputError{File: in.name, Line: lt.lineAt(off), Err: err}
	}
	expect := func(want json.Delim) error {
		t, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		if d, ok := t.(json.Delim); !ok || d != want {
			return fail(fmt.Errorf("want %q, got %v", want, t))
		}
		return nil
	}
	// walk moves into the object's key name, skipping the others.
	walk := func(name string) error {
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return fail(err)
			}
			if k, _ := t.(string); k == name {
				return nil
			}
			if err := skipJSON(dec); err != nil {
				return fail(err)
			}
		}
		return fail(fmt.Errorf("no %q", name))
	}
	if err := expect('{'); err != nil {
		return err
	}
	if err := walk("log"); err != nil {
		return err
	}
	if err := expect('{'); err != nil {
		return err
	}
	if err := walk("entries"); err != nil {
		return err
	}
	if err := expect('['); err != nil {
		return err
	}
	a.note("HAR: total is the entry's time, browser queueing (blocked) included; connect is TCP only (ssl is inside HAR's connect and is taken out, B6)")
	a.note("HAR: silence is at most max(wait, receive): no pause within the body is recorded, so the read timeout derived from it errs long")
	n := int64(0)
	for dec.More() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		n++
		line := lt.valueLine(dec.InputOffset())
		var e harEntry
		if err := dec.Decode(&e); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				a.malformedLine(in.name, line, fmt.Sprintf("entry %d: %s: want %s, got %s", n, typ.Field, typ.Type, typ.Value))
				continue
			}
			return fail(err)
		}
		a.lines = lt.lines
		rec, err := harRecord(&e)
		if err != nil {
			a.malformedLine(in.name, line, fmt.Sprintf("entry %d: %v", n, err))
			continue
		}
		r.add(a, &rec)
	}
	a.lines = lt.lines
	return nil
}

func harRecord(e *harEntry) (Record, error) {
	rec := newRecord()
	rec.Method = e.Request.Method
	if u, err := url.Parse(e.Request.URL); err == nil {
		rec.Host, rec.Path = u.Host, u.Path
	}
	if e.StartedDateTime != "" {
		t, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		if err != nil {
			return rec, fmt.Errorf("startedDateTime %q: %v", e.StartedDateTime, err)
		}
		rec.Time = t
	}
	tm := e.Timings
	if tm.Wait == nil && e.Time == nil {
		return rec, errors.New("no timings.wait and no time")
	}
	rec.Status = e.Response.Status
	if rec.Status == 0 {
		rec.Err = classifyError(e.Response.Error)
		rec.ErrMsg = e.Response.Error
		if rec.ErrMsg == "" {
			rec.ErrMsg = "no response (HAR status 0)"
		}
	}
	if e.Time != nil && *e.Time >= 0 {
		rec.Total = msOf(e.Time)
	} else {
		var sum float64
		for _, v := range []*float64{tm.Blocked, tm.DNS, tm.Connect, tm.Send, tm.Wait, tm.Receive} {
			if v != nil && *v > 0 {
				sum += *v
			}
		}
		rec.Total = msOf(&sum)
	}
	rec.TTFB = msOf(tm.Wait)
	rec.Silence = silenceBound(rec.TTFB, msOf(tm.Receive))
	connect, ssl := msOf(tm.Connect), msOf(tm.SSL)
	if connect >= 0 {
		rec.Reused = 1
		rec.DNS = msOf(tm.DNS)
		if ssl >= 0 {
			rec.TLS = ssl
			connect = max(connect-ssl, 0)
		}
		rec.Connect = connect
	} else {
		rec.Reused = 2
	}
	return rec, nil
}

// lineTracker counts the lines a JSON decoder has been given and keeps its last reads, so
// an offset the decoder reports turns into a line number without holding the file.
type lineTracker struct {
	r     io.Reader
	off   int64
	lines int64
	reads []trackedRead
}

type trackedRead struct {
	start int64
	lines int64 // newlines before start
	data  []byte
}

func (t *lineTracker) Read(p []byte) (int, error) {
	// Reads are kept: at most 256 KiB each, however large the decoder's buffer has grown.
	n, err := t.r.Read(p[:min(len(p), 256<<10)])
	if n > 0 {
		tr := trackedRead{start: t.off, lines: t.lines, data: append([]byte(nil), p[:n]...)}
		if len(t.reads) >= 4 {
			copy(t.reads, t.reads[1:])
			t.reads = t.reads[:3]
		}
		t.reads = append(t.reads, tr)
		t.off += int64(n)
		t.lines += int64(bytes.Count(p[:n], []byte{'\n'}))
	}
	return n, err
}

// valueLine is the line of the next value after offset off: past whitespace and a comma.
func (t *lineTracker) valueLine(off int64) int64 {
	for i := len(t.reads) - 1; i >= 0; i-- {
		tr := t.reads[i]
		if off >= tr.start {
			// The value may begin in a later read: the comma ended this one.
			for _, tr := range t.reads[i:] {
				for k := max(off-tr.start, 0); k < int64(len(tr.data)); k++ {
					if c := tr.data[k]; c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ',' {
						return t.lineAt(tr.start + k)
					}
				}
			}
			break
		}
	}
	return t.lineAt(off)
}

// lineAt is the 1-based line of byte offset off (the last line read when it is no longer
// held).
func (t *lineTracker) lineAt(off int64) int64 {
	for i := len(t.reads) - 1; i >= 0; i-- {
		tr := t.reads[i]
		if off >= tr.start {
			k := min(off-tr.start, int64(len(tr.data)))
			return tr.lines + int64(bytes.Count(tr.data[:k], []byte{'\n'})) + 1
		}
	}
	return t.lines + 1
}
