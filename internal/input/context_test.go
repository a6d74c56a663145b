package input

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestNewReaderPassesBytes: through the goroutine and the reader's own buffer, every byte
// arrives in order, in reads of any size (iotest.OneByteReader, HalfReader).
func TestNewReaderPassesBytes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	want := strings.Repeat("0123456789abcdef", 10000)
	for name, r := range map[string]io.Reader{
		"one byte": iotest.OneByteReader(strings.NewReader(want)),
		"half":     iotest.HalfReader(strings.NewReader(want)),
		"plain":    io.MultiReader(strings.NewReader(want)),
	} {
		got, err := io.ReadAll(NewReader(ctx, name, r))
		if err != nil || string(got) != want {
			t.Errorf("%s: %d bytes, %v; want %d bytes intact", name, len(got), err, len(want))
		}
	}
}

// TestNewReaderBackground: a context that never ends costs nothing: r is returned as is.
func TestNewReaderBackground(t *testing.T) {
	r := io.MultiReader(bytes.NewReader(nil))
	if got := NewReader(context.Background(), "x", r); got != r {
		t.Errorf("NewReader(Background) wrapped the reader: %T", got)
	}
	if Interrupt() != context.Background() {
		t.Errorf("Interrupt() without SetInterrupt is not Background")
	}
}

// TestStoppedBeforeRead: a context already done stops even an in-memory reader, and the
// error names the input.
func TestStoppedBeforeRead(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadContext(ctx, strings.NewReader("abc"), "body.json", MaxBody)
	if err == nil || err.Error() != "body.json: stopped while waiting for input" {
		t.Errorf("err %v, want body.json: stopped while waiting for input", err)
	}
}
