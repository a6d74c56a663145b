package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// fullDisk is a writer that takes limit bytes and then fails as write(2) does on a full disk.
type fullDisk struct {
	w     io.Writer
	limit int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.limit {
		d.limit -= len(p)
		return d.w.Write(p)
	}
	n, _ := d.w.Write(p[:d.limit])
	d.limit = 0
	name := "?"
	if f, ok := d.w.(*os.File); ok {
		name = f.Name()
	}
	return n, &fs.PathError{Op: "write", Path: name, Err: syscall.ENOSPC}
}

func fullAfter(n int) func(io.Writer) io.Writer {
	return func(w io.Writer) io.Writer { return &fullDisk{w: w, limit: n} }
}

// sarifLike is a document big enough to be cut in the middle.
var sarifLike = []byte(`{"version": "2.1.0", "runs": [` + strings.Repeat(`{"results": []},`, 1000) + `{}]}` + "\n")

func mustWrite(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers lists the directory's entries other than want.
func leftovers(t *testing.T, dir string, want ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var extra []string
	for _, e := range ents {
		found := false
		for _, w := range want {
			found = found || e.Name() == w
		}
		if !found {
			extra = append(extra, e.Name())
		}
	}
	return extra
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

func TestWriteReplacesWholeAndKeepsPermissions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.sarif")
	mustWrite(t, path, []byte("old\n"))
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, sarifLike); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); got != string(sarifLike) {
		t.Fatalf("content: got %d bytes, want %d", len(got), len(sarifLike))
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want the replaced file's 0600", fi.Mode().Perm())
		}
	}
	if extra := leftovers(t, dir, "report.sarif"); extra != nil {
		t.Errorf("left behind: %v", extra)
	}
}

func TestWriteCreatesMissingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.json")
	if err := WriteFile(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); got != "{}\n" {
		t.Fatalf("got %q", got)
	}
	if extra := leftovers(t, dir, "new.json"); extra != nil {
		t.Errorf("left behind: %v", extra)
	}
}

// A disk that fills up in the middle of the document (issue 24 item 8: a full disk left a
// valid SARIF as 16 KB of invalid JSON) leaves the old file whole and no temporary file.
func TestFullDiskKeepsOldFile(t *testing.T) {
	for _, limit := range []int{0, 1, 4096, len(sarifLike) - 1} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.sarif")
			mustWrite(t, path, []byte(`{"old": true}`+"\n"))
			err := write(path, func(w io.Writer) error {
				// Written in pieces, as a renderer does.
				for chunk := range bytes.SplitAfterSeq(sarifLike, []byte(",")) {
					if _, err := w.Write(chunk); err != nil {
						return err
					}
				}
				return nil
			}, fullAfter(limit))
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("err = %v, want ENOSPC", err)
			}
			if want := "write " + path + ": "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %v, want it to name the destination (%q…), not the temporary file", err, want)
			}
			if got := mustRead(t, path); got != `{"old": true}`+"\n" {
				t.Fatalf("old file changed: %q…", got[:min(len(got), 40)])
			}
			if extra := leftovers(t, dir, "report.sarif"); extra != nil {
				t.Errorf("left behind: %v", extra)
			}
		})
	}
}

// A renderer that ignores its write errors (fmt.Fprintf) still commits nothing: the first
// write error sticks and Commit returns it.
func TestIgnoredWriteErrorIsNotCommitted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.md")
	mustWrite(t, path, []byte("old\n"))
	err := write(path, func(w io.Writer) error {
		for i := range 100 {
			fmt.Fprintf(w, "line %d\n", i)
		}
		return nil
	}, fullAfter(50))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	if got := mustRead(t, path); got != "old\n" {
		t.Fatalf("old file changed: %q", got)
	}
}

func TestFillErrorKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.json")
	mustWrite(t, path, []byte("old\n"))
	boom := errors.New("renderer failed")
	err := Write(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half a doc")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got := mustRead(t, path); got != "old\n" {
		t.Fatalf("old file changed: %q", got)
	}
	if extra := leftovers(t, dir, "p.json"); extra != nil {
		t.Errorf("left behind: %v", extra)
	}
}

// A symbolic link planted at the destination is refused whatever it points at, and what it
// points at is untouched (not truncated, not created).
func TestSymlinkAtDestinationIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(dir string) string
	}{
		{"to a file", func(dir string) string {
			victim := filepath.Join(dir, "victim")
			mustWrite(t, victim, []byte("precious\n"))
			return victim
		}},
		{"dangling", func(dir string) string { return filepath.Join(dir, "created-elsewhere") }},
		{"to a directory", func(dir string) string {
			d := filepath.Join(dir, "d")
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			return d
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			target := tc.target(dir)
			path := filepath.Join(dir, "report.sarif")
			symlink(t, target, path)
			for name, do := range map[string]func() error{
				"WriteFile": func() error { return WriteFile(path, sarifLike) },
				"Check":     func() error { return Check(path) },
				"Append": func() error {
					return Append(path, func(w io.Writer) error { _, err := w.Write(sarifLike); return err })
				},
				"WriteNew": func() error { return WriteNew(path, sarifLike) },
			} {
				err := do()
				if err == nil {
					t.Fatalf("%s through a link: no error", name)
				}
				if name != "WriteNew" && !errors.Is(err, ErrSymlink) {
					t.Errorf("%s: err = %v, want ErrSymlink", name, err)
				}
				if name == "WriteNew" && !errors.Is(err, fs.ErrExist) {
					t.Errorf("%s: err = %v, want ErrExist", name, err)
				}
			}
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the link itself was replaced or removed")
			}
			switch tc.name {
			case "to a file":
				if got := mustRead(t, target); got != "precious\n" {
					t.Errorf("the link's target was written: %q…", got[:min(len(got), 40)])
				}
			case "dangling":
				if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the dangling link's target was created")
				}
			}
			if !strings.Contains(WriteFile(path, nil).Error(), "is a symbolic link (to "+target+")") {
				t.Errorf("the error does not name the link's target: %v", WriteFile(path, nil))
			}
		})
	}
}

// A link planted between Create and Commit is replaced by the rename, never written through.
func TestLinkPlantedDuringWriteIsReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "profile.json")
	victim := filepath.Join(dir, "victim")
	mustWrite(t, victim, []byte("precious\n"))
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	symlink(t, victim, path)
	if _, err := f.Write([]byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, victim); got != "precious\n" {
		t.Errorf("victim written: %q", got)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("path is not a regular file: %v %v", fi, err)
	}
	if got := mustRead(t, path); got != "new\n" {
		t.Errorf("got %q", got)
	}
}

// The temporary file has a random name created exclusively: links planted at the names a
// fixed scheme would use (serve's old PATH.tmp) are not followed.
func TestFixedTemporaryNamesAreNotFollowed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "url.txt")
	victim := filepath.Join(dir, "victim")
	mustWrite(t, victim, []byte("precious\n"))
	for _, name := range []string{path + ".tmp", filepath.Join(dir, ".url.txt.tmp")} {
		symlink(t, victim, name)
	}
	if err := WriteFile(path, []byte("http://127.0.0.1:1/\n")); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, victim); got != "precious\n" {
		t.Errorf("victim written: %q", got)
	}
	if got := mustRead(t, path); got != "http://127.0.0.1:1/\n" {
		t.Errorf("got %q", got)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.pprof")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write([]byte("x"))
	f.Abort()
	f.Abort()
	if err := f.Commit(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Commit after Abort: %v", err)
	}
	if extra := leftovers(t, dir); extra != nil {
		t.Errorf("left behind: %v", extra)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	mustWrite(t, file, nil)
	for _, tc := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "p.json"), ""},
		{file, ""},
		{filepath.Join(dir, "no-such-dir", "p.json"), "the directory " + filepath.Join(dir, "no-such-dir") + " does not exist"},
		{filepath.Join(file, "p.json"), "cannot write " + filepath.Join(file, "p.json")},
		{dir, "is a directory"},
	} {
		err := Check(tc.path)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%s) = %v", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if extra := leftovers(t, dir, "file"); extra != nil {
		t.Errorf("left behind: %v", extra)
	}
}

func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "patience.yaml")
	if err := WriteNew(path, []byte("a: 1\n")); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, path); got != "a: 1\n" {
		t.Fatalf("got %q", got)
	}
	if err := WriteNew(path, []byte("b: 2\n")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second WriteNew: %v, want ErrExist", err)
	}
	if got := mustRead(t, path); got != "a: 1\n" {
		t.Fatalf("overwritten: %q", got)
	}
	if extra := leftovers(t, dir, "patience.yaml"); extra != nil {
		t.Errorf("left behind: %v", extra)
	}
	// Where there are no hard links, the exclusive create removes what a failed write left.
	if err := writeExclusive(filepath.Join(dir, "x.yaml"), []byte("c: 3\n")); err != nil {
		t.Fatal(err)
	}
	if err := writeExclusive(filepath.Join(dir, "x.yaml"), nil); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("writeExclusive over a file: %v", err)
	}
}

func TestAppend(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.md")
	add := func(s string, wrap func(io.Writer) io.Writer) error {
		return appendTo(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err }, wrap)
	}
	if err := add("# one\n", nil); err != nil {
		t.Fatal(err)
	}
	if err := add("# two\n", nil); err != nil {
		t.Fatal(err)
	}
	// A full disk in the middle of the third step's summary: the file is cut back.
	if err := add("# three, long enough to be cut\n", fullAfter(5)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want ENOSPC", err)
	}
	if got := mustRead(t, path); got != "# one\n# two\n" {
		t.Fatalf("got %q", got)
	}
}
