// Package input reads the files a user hands patience — profiles, request bodies, scenario,
// policy and check files — with a size cap, so `/dev/zero` or a runaway file ends in a clear
// error instead of exhausting memory (issue 17). "-" names standard input where a command
// accepts it.
package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// Caps by kind of input. Each is far above what patience writes or a person writes by hand:
// a saved profile is a few hundred KB; a scenario or policy file a few KB (YAML costs about
// 50× its size once parsed); a check file may be a rendered manifest.
const (
	MaxProfile  = 16 << 20
	MaxBody     = 64 << 20
	MaxScenario = 1 << 20
	MaxCheck    = 4 << 20
	// MaxPEM caps a certificate, a key or a CA bundle (--cacert, --cert, --key): the
	// Mozilla bundle curl ships is about 220 KB.
	MaxPEM = 4 << 20
)

// Stdin is the name that reads standard input where a command accepts it.
const Stdin = "-"

// TooLargeError is returned for an input longer than its cap.
type TooLargeError struct {
	Name  string
	Limit int64
}

func (e *TooLargeError) Error() string { return e.Name + ": " + e.Reason() }

// Reason is the message without the name, for errors that carry the file apart.
func (e *TooLargeError) Reason() string { return "larger than " + Size(e.Limit) }

// Size writes a cap in MiB (or KiB below one MiB).
func Size(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// chunk is the unit an input of unknown length is read in.
const chunk = 1 << 20

// Read reads r to its end, up to limit bytes; name labels the error. What it holds stays
// near the cap whatever the input: r is read in chunks of 1 MiB that are joined only once it
// has ended within the cap, so an endless input (/dev/zero, a runaway pipe) stops at the cap
// plus one chunk (io.ReadAll doubles its buffer: up to three times the cap).
//
// Read watches the process's interrupt (SetInterrupt): Ctrl-C abandons a read that waits on
// an idle pipe with a *StoppedError.
func Read(r io.Reader, name string, limit int64) ([]byte, error) {
	return ReadContext(Interrupt(), r, name, limit)
}

// ReadContext is Read that ctx can stop, even while r's Read blocks.
func ReadContext(ctx context.Context, r io.Reader, name string, limit int64) ([]byte, error) {
	return read(NewReader(ctx, name, r), name, limit, -1)
}

// read is Read with r's length when known (a regular file), else -1: a file over the cap
// is refused unread, one within it read into a buffer of its size.
func read(r io.Reader, name string, limit, size int64) ([]byte, error) {
	tooLarge := &TooLargeError{Name: name, Limit: limit}
	if size > limit {
		return nil, tooLarge
	}
	if size >= 0 {
		// The file may grow while it is read: one byte more than its size tells.
		var buf bytes.Buffer
		buf.Grow(int(size) + 1)
		if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
			return nil, err
		}
		if int64(buf.Len()) > limit {
			return nil, tooLarge
		}
		return buf.Bytes(), nil
	}
	var chunks [][]byte
	var total int64
	for {
		c := make([]byte, min(chunk, limit+1))
		n, err := io.ReadFull(r, c)
		total += int64(n)
		if total > limit {
			return nil, tooLarge
		}
		if n > 0 {
			chunks = append(chunks, c[:n])
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return bytes.Join(chunks, nil), nil
}

// ReadFile reads the file at path, up to limit bytes (a regular file over it is refused
// unread). With a non-nil stdin, "-" reads it instead; with a nil one "-" is a file name
// like any other. It watches the process's interrupt (SetInterrupt): Ctrl-C abandons an open
// of a FIFO with no writer, or a read of an idle one, with a *StoppedError.
func ReadFile(path string, limit int64, stdin io.Reader) ([]byte, error) {
	return ReadFileContext(Interrupt(), path, limit, stdin)
}

// ReadFileContext is ReadFile that ctx can stop while it waits on its input.
func ReadFileContext(ctx context.Context, path string, limit int64, stdin io.Reader) ([]byte, error) {
	if path == Stdin && stdin != nil {
		return ReadContext(ctx, stdin, "standard input", limit)
	}
	f, err := Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	b, err := read(NewReader(ctx, path, f), path, limit, size)
	if err != nil {
		var pe *os.PathError
		if !errors.As(err, &pe) && !errors.As(err, new(*TooLargeError)) && !errors.As(err, new(*StoppedError)) {
			err = &os.PathError{Op: "read", Path: path, Err: err}
		}
		return nil, err
	}
	return b, nil
}
