package input

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// zeros is an endless input, as /dev/zero or a runaway pipe.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// allocated is how many bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadBounded: ReadFile (-d @, --merge, check files, profile:, scenarios:) holds at most the cap and a chunk of an endless input before it
// refuses it (io.ReadAll's doubling allocated twice the cap and more: 171 MiB of RSS for
// /dev/zero), and refuses a regular file over the cap without reading it.
func TestReadBounded(t *testing.T) {
	var err error
	n := allocated(func() { _, err = ReadFile("-", MaxBody, zeros{}) })
	if err == nil || err.Error() != "standard input: larger than 64 MiB" {
		t.Errorf("endless standard input: %v", err)
	}
	if limit := uint64(MaxBody + 4*chunk); n > limit {
		t.Errorf("an endless input allocated %d MiB before it was refused; want at most %d MiB", n>>20, limit>>20)
	}

	dir := t.TempDir()
	over := filepath.Join(dir, "over")
	f, err := os.Create(over)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file one byte over the cap: generated, not written.
	if err := f.Truncate(MaxBody + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	n = allocated(func() { _, err = ReadFile(over, MaxBody, nil) })
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != over+": larger than 64 MiB" {
		t.Errorf("file over the cap: %v", err)
	}
	if n > 1<<20 {
		t.Errorf("a file over the cap allocated %d KiB: it was read", n>>10)
	}
}

// TestReadWithinCap: what is within the cap is read whole, from a file or standard input, up to
// the cap exactly; missing files keep their error.
func TestReadWithinCap(t *testing.T) {
	dir := t.TempDir()
	body := bytes.Repeat([]byte("0123456789abcdef"), 3*chunk/16+5) // three chunks and a bit
	file := filepath.Join(dir, "body")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	limit := int64(len(body))
	for name, read := range map[string]func(limit int64) ([]byte, error){
		"file":  func(limit int64) ([]byte, error) { return ReadFile(file, limit, nil) },
		"stdin": func(limit int64) ([]byte, error) { return ReadFile("-", limit, bytes.NewReader(body)) },
		"short reads": func(limit int64) ([]byte, error) {
			return ReadFile("-", limit, iotest.HalfReader(bytes.NewReader(body)))
		},
	} {
		if got, err := read(limit); err != nil || !bytes.Equal(got, body) {
			t.Errorf("%s at the cap: %d bytes, %v; want %d", name, len(got), err, len(body))
		}
		if _, err := read(limit - 1); !errors.As(err, new(*TooLargeError)) {
			t.Errorf("%s a byte over the cap: %v", name, err)
		}
	}
	if got, err := ReadFile("-", 10, strings.NewReader("")); err != nil || len(got) != 0 {
		t.Errorf("empty standard input: %q, %v", got, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 10, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
