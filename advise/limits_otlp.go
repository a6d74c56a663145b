package advise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Issue 24 item 4: an OTLP/JSON document was decoded whole (a 300 MB export took 1.9 GB).
// otlpWalker reads it with encoding/json's Token API down to
// resourceSpans[].scopeSpans[].spans[] (and instrumentationLibrarySpans[], the name before
// opentelemetry-proto v0.15.0 renamed it — opentelemetry-proto
// opentelemetry/proto/trace/v1/trace.proto, ResourceSpans field 1000 "deprecated"), and
// decodes one span at a time: memory is one span plus the histograms, whatever the
// document's size.
//
// A value of the wrong type costs only itself: a span is counted malformed on its own line,
// a misshapen resourceSpans or scopeSpans entry on its line, and the read goes on with the
// next (the whole document was dropped before).

type otlpWalker struct {
	ctx  context.Context
	dec  *json.Decoder
	lt   *lineTracker
	name string
	a    *accum
	// span is called for each span, with the line it starts on.
	span func(sp *otlpSpan, line int64)
}

// syntax is a fatal error at the decoder's position, as otlpStream reported it before.
func (w *otlpWalker) syntax(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return &InputError{File: w.name, Line: w.lt.lineAt(w.dec.InputOffset()), Err: err}
}

// document reads one top-level value (an export object); io.EOF at the end of the input.
func (w *otlpWalker) document() error {
	off := w.dec.InputOffset()
	t, err := w.dec.Token()
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return w.syntax(err)
	}
	ok, err := w.opened(t, '{', "export", w.lt.valueLine(off))
	if err != nil || !ok {
		return err
	}
	return w.object(func(key string) error {
		if key != "resourceSpans" {
			return w.skip()
		}
		return w.array("resourceSpans", func(off int64) error {
			return w.objectValue("resourceSpans", off, func(key string) error {
				if key != "scopeSpans" && key != "instrumentationLibrarySpans" {
					return w.skip()
				}
				field := "resourceSpans." + key
				return w.array(field, func(off int64) error {
					return w.objectValue(field, off, func(key string) error {
						if key != "spans" {
							return w.skip()
						}
						return w.array(field+".spans", w.oneSpan(field+".spans"))
					})
				})
			})
		})
	})
}

// oneSpan decodes the next value as a span.
func (w *otlpWalker) oneSpan(field string) func(off int64) error {
	return func(off int64) error {
		var sp otlpSpan
		err := w.dec.Decode(&sp)
		line := w.lt.valueLine(off)
		if err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				// The decoder read the whole value: the next span follows.
				f := field
				if typ.Field != "" {
					f += "." + typ.Field
				}
				w.a.malformedLine(w.name, line, fmt.Sprintf("%s: want %s, got %s", f, typ.Type, typ.Value))
				return nil
			}
			return w.syntax(err)
		}
		w.span(&sp, line)
		return nil
	}
}

// opened says whether t opens want; null is an absent value (false, no error), any other
// value is counted malformed at line and skipped.
func (w *otlpWalker) opened(t json.Token, want json.Delim, field string, line int64) (bool, error) {
	if d, ok := t.(json.Delim); ok && d == want {
		return true, nil
	}
	if t == nil {
		return false, nil
	}
	kind := map[json.Delim]string{'{': "an object", '[': "an array"}
	got := fmt.Sprintf("%T", t)
	switch v := t.(type) {
	case json.Delim:
		got = kind[v]
		if err := w.skipOpen(); err != nil {
			return false, err
		}
	case string:
		got = "a string"
	case float64, json.Number:
		got = "a number"
	case bool:
		got = "a boolean"
	}
	w.a.malformedLine(w.name, line, fmt.Sprintf("%s: want %s, got %s", field, kind[want], got))
	return false, nil
}

// object reads the members of an object whose '{' was read; each calls fn with its key, which
// must read the value.
func (w *otlpWalker) object(fn func(key string) error) error {
	for w.dec.More() {
		t, err := w.dec.Token()
		if err != nil {
			return w.syntax(err)
		}
		if err := fn(t.(string)); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // '}'
		return w.syntax(err)
	}
	return nil
}

// objectValue reads the next value as an object.
func (w *otlpWalker) objectValue(field string, off int64, fn func(key string) error) error {
	t, err := w.dec.Token()
	if err != nil {
		return w.syntax(err)
	}
	ok, err := w.opened(t, '{', field, w.lt.valueLine(off))
	if err != nil || !ok {
		return err
	}
	return w.object(fn)
}

// array reads the next value as an array, calling each for its elements with the offset
// before each (lineTracker.valueLine, once it is read: the line it starts on); each must
// read its element.
func (w *otlpWalker) array(field string, each func(off int64) error) error {
	off := w.dec.InputOffset()
	t, err := w.dec.Token()
	if err != nil {
		return w.syntax(err)
	}
	ok, err := w.opened(t, '[', field, w.lt.valueLine(off))
	if err != nil || !ok {
		return err
	}
	for w.dec.More() {
		if w.ctx.Err() != nil {
			return w.ctx.Err() // Ctrl-C inside one document of millions of spans
		}
		if err := each(w.dec.InputOffset()); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // ']'
		return w.syntax(err)
	}
	return nil
}

// skip reads the next value without keeping it.
func (w *otlpWalker) skip() error {
	t, err := w.dec.Token()
	if err != nil {
		return w.syntax(err)
	}
	if _, ok := t.(json.Delim); ok {
		return w.skipOpen()
	}
	return nil
}

// skipOpen reads to the end of the object or array whose opening token was just read.
func (w *otlpWalker) skipOpen() error {
	for depth := 1; depth > 0; {
		t, err := w.dec.Token()
		if err != nil {
			return w.syntax(err)
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}
