//go:build unix

package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A link to a device (/dev/stdout, /dev/null) is written through: there is no file to replace
// or redirect onto; the link stays.
func TestLinkToDeviceIsWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.sarif")
	symlink(t, os.DevNull, path)
	if err := Check(path); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if err := WriteFile(path, sarifLike); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	if err := Append(path, func(w io.Writer) error { _, err := w.Write(sarifLike); return err }); err != nil {
		t.Fatalf("Append: %v", err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	if extra := leftovers(t, dir, "report.sarif"); extra != nil {
		t.Errorf("left behind: %v", extra)
	}
}

// A named pipe (bash's >(…) is one) gets the bytes as they are written.
func TestNamedPipeIsWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := WriteFile(path, []byte("through the pipe\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe\n" {
		t.Fatalf("reader got %q", s)
	}
}
