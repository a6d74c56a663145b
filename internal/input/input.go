// Package input reads the files a user hands patience — profiles, request bodies, scenario,
// policy and check files — with a size cap, so `/dev/zero` or a runaway file ends in a clear
// error instead of exhausting memory (issue 17). "-" names standard input where a command
// accepts it.
package input

import (
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

// Read reads r whole, up to limit bytes; name labels the error.
func Read(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	return b, nil
}

// ReadFile reads the file at path, up to limit bytes. With a non-nil stdin, "-" reads it
// instead; with a nil one "-" is a file name like any other.
func ReadFile(path string, limit int64, stdin io.Reader) ([]byte, error) {
	if path == Stdin && stdin != nil {
		return Read(stdin, "standard input", limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := Read(f, path, limit)
	if err != nil {
		var pe *os.PathError
		if !errors.As(err, &pe) && !errors.As(err, new(*TooLargeError)) {
			err = &os.PathError{Op: "read", Path: path, Err: err}
		}
		return nil, err
	}
	return b, nil
}
