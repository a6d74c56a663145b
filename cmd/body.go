package cmd

import (
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/patience-dev/patience/internal/input"
)

// bodyChunk is the unit a body of unknown length is read in.
const bodyChunk = 1 << 20

// readBody reads the request body of -d @FILE, or of -d @- from stdin, up to limit bytes,
// so that what it holds stays near the cap whatever the input (issue 17: io.ReadAll doubled
// its buffer past the cap, and `-d @/dev/zero` peaked at 171 MiB of RSS for a 64 MiB cap).
// A regular file is measured first: one over the cap is refused unread, one within it is
// read into a buffer of its size. Anything else (a pipe, a terminal, a device) is read in
// chunks of 1 MiB that are joined only once the input has ended within the cap, so an
// endless input stops at the cap plus one chunk.
func readBody(path string, limit int64, stdin io.Reader) ([]byte, error) {
	if path == input.Stdin && stdin != nil {
		return readBounded(stdin, "standard input", limit, -1)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	b, err := readBounded(f, path, limit, size)
	if err != nil {
		var pe *os.PathError
		if !errors.As(err, &pe) && !errors.As(err, new(*input.TooLargeError)) {
			err = &os.PathError{Op: "read", Path: path, Err: err}
		}
		return nil, err
	}
	return b, nil
}

// readBounded reads r to its end, refusing more than limit bytes; size is r's length when
// known (a regular file), else -1.
func readBounded(r io.Reader, name string, limit, size int64) ([]byte, error) {
	tooLarge := &input.TooLargeError{Name: name, Limit: limit}
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
		c := make([]byte, bodyChunk)
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
