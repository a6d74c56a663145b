package input

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadFileCaps(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(small, 10, nil); err != nil || string(b) != "0123456789" {
		t.Errorf("at the cap: %q, %v", b, err)
	}
	_, err := ReadFile(small, 9, nil)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != small+": larger than 0 KiB" {
		t.Errorf("over the cap: %v", err)
	}
	if b, err := ReadFile("-", 10, strings.NewReader("stdin")); err != nil || string(b) != "stdin" {
		t.Errorf("-: %q, %v", b, err)
	}
	if _, err := ReadFile("-", 3, strings.NewReader("stdin")); err == nil || err.Error() != "standard input: larger than 0 KiB" {
		t.Errorf("- over the cap: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 10, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadFileDevZero: an endless file ends at the cap (issue 17: /dev/zero to --merge, -d @,
// check, profile: or scenarios: ran out of memory).
func TestReadFileDevZero(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero")
	}
	_, err := ReadFile("/dev/zero", MaxProfile, nil)
	if err == nil || err.Error() != "/dev/zero: larger than 16 MiB" {
		t.Errorf("/dev/zero: %v", err)
	}
}
