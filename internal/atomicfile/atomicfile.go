// Package atomicfile writes the files patience leaves behind — check's --report files, the
// profiles of probe and advise --save, serve's --url-file, the man pages — so that a reader,
// and the disk after a crash or a full disk, sees either the old file whole or the new one
// whole, and so that no symbolic link planted at the destination redirects the write.
//
// A write goes to a temporary file created exclusively (O_CREATE|O_EXCL, a random name) in the
// destination's own directory; it is synced and closed, then renamed over the destination. The
// rename is atomic on POSIX file systems (rename(2)) and replaces an existing file on Windows
// (os.Rename uses MoveFileEx with MOVEFILE_REPLACE_EXISTING). Any error — a renderer's, a full
// disk's (ENOSPC), a sync's — removes the temporary file and leaves the destination as it was.
//
// Links: a destination that is a symbolic link is refused with ErrSymlink, whatever it points
// at (a file, nothing, a directory); the error names the link and its target. Replacing the
// link silently would break a user's own layout, and following it would let anyone who can
// plant a link in a shared directory point the write at any file the user can write. The one
// exception is a link to a character device or a named pipe (/dev/stdout, /dev/null, bash's
// >(…) as /dev/fd/63): there is no file there to replace or redirect onto, so the bytes are
// written to it directly, as they are to a device or pipe named directly. The rename itself
// never follows a link, so a link planted after the check is replaced, not written through.
// Links in the directories above the destination are the user's path and are followed.
package atomicfile

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrSymlink is the error (errors.Is) of a write refused because the destination is a
// symbolic link.
var ErrSymlink = errors.New("is a symbolic link")

// LinkError is a write refused because Path is a symbolic link (to Target).
type LinkError struct {
	Path   string
	Target string
}

func (e *LinkError) Error() string {
	to := ""
	if e.Target != "" {
		to = " (to " + e.Target + ")"
	}
	return fmt.Sprintf("%s is a symbolic link%s: patience writes no file through a link; remove it or name the file itself", e.Path, to)
}

// Is makes errors.Is(err, ErrSymlink) true.
func (e *LinkError) Is(target error) bool { return target == ErrSymlink }

// kind is what lies at a destination path.
type kind int

const (
	absent  kind = iota // nothing: the file is created
	regular             // a regular file: replaced by the rename
	stream              // a character device or a named pipe: written to directly
)

// inspect says what lies at path, refusing links (except to streams), directories and other
// special files. fi is the destination's own information (nil when absent).
func inspect(path string) (kind, fs.FileInfo, error) {
	lfi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return absent, nil, nil
	case err != nil:
		return absent, nil, dirError(path, filepath.Dir(path), err)
	}
	mode := lfi.Mode()
	switch {
	case mode.IsRegular():
		return regular, lfi, nil
	case mode&fs.ModeSymlink != 0:
		if fi, err := os.Stat(path); err == nil && isStream(fi.Mode()) {
			return stream, fi, nil
		}
		target, _ := os.Readlink(path)
		return absent, nil, &LinkError{Path: path, Target: target}
	case isStream(mode):
		return stream, lfi, nil
	case mode.IsDir():
		return absent, nil, fmt.Errorf("%s is a directory", path)
	default:
		return absent, nil, fmt.Errorf("%s is not a regular file (%v)", path, mode.Type())
	}
}

// isStream reports whether mode is a character device or a named pipe.
func isStream(mode fs.FileMode) bool {
	return mode&fs.ModeCharDevice != 0 || mode&fs.ModeNamedPipe != 0
}

// File is a file being written: Write, then Commit to put it in place or Abort to leave the
// destination as it was. The first write error sticks: later writes and Commit return it, so
// a renderer that ignores its own write errors (fmt.Fprintf) still never commits half a file.
type File struct {
	path string
	tmp  string   // the temporary file's name ("" for a stream)
	f    *os.File // the temporary file, or the stream
	w    io.Writer
	perm fs.FileMode // set on the temporary file before the rename (0: keep as created)
	err  error
	done bool
}

// Create starts writing path: nothing at path changes until Commit. It fails at once when path
// is a symbolic link (ErrSymlink, unless to a device or pipe), a directory, or in a directory
// where no file can be created.
func Create(path string) (*File, error) {
	k, fi, err := inspect(path)
	if err != nil {
		return nil, err
	}
	if k == stream {
		return openStream(path, fi)
	}
	// A new file gets 0644 less the umask, as os.WriteFile would give it; a replaced one
	// keeps its permissions and is written under 0600 until then, so the new content is never
	// readable by more people than the old.
	perm, final := fs.FileMode(0o644), fs.FileMode(0)
	if k == regular {
		perm, final = 0o600, fi.Mode().Perm()
	}
	f, err := createTemp(path, perm)
	if err != nil {
		return nil, err
	}
	return &File{path: path, tmp: f.Name(), f: f, w: f, perm: final}, nil
}

// openStream opens a device or pipe for writing in place, checking that what was opened is
// still one (not a regular file swapped in since inspect: opening it wrote nothing, as the
// open neither creates nor truncates).
func openStream(path string, want fs.FileInfo) (*File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && (!isStream(fi.Mode()) || !os.SameFile(fi, want)) {
		err = fmt.Errorf("%s changed while it was opened", path)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &File{path: path, f: f, w: f}, nil
}

// createTemp creates a file exclusively, under a random name, beside path.
func createTemp(path string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// A name stays below the 255 bytes most file systems allow.
	if len(base) > 200 {
		base = base[:200]
	}
	for range 100 {
		name := filepath.Join(dir, "."+base+"."+rand.Text()[:12]+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, dirError(path, dir, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}

// dirError says why no file can be created beside path.
func dirError(path, dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot write %s: the directory %s does not exist", path, filepath.Clean(dir))
	}
	return fmt.Errorf("cannot write %s: %w", path, err)
}

// Name is the destination's path.
func (f *File) Name() string { return f.path }

// Write writes to the temporary file (or the stream).
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.done {
		return 0, fs.ErrClosed
	}
	n, err := f.w.Write(p)
	if err != nil {
		err = f.named(err)
		f.err = err
	}
	return n, err
}

// named puts the destination's name in an error about the temporary file: the user named
// one file and never saw the other ("write report.sarif: no space left on device").
func (f *File) named(err error) error {
	var pe *fs.PathError
	if f.tmp != "" && errors.As(err, &pe) && pe.Path == f.tmp {
		return &fs.PathError{Op: pe.Op, Path: f.path, Err: pe.Err}
	}
	return err
}

// Commit syncs and closes the temporary file and renames it over the destination. On any
// error, an earlier write's included, the temporary file is removed and the destination is
// left as it was.
func (f *File) Commit() error {
	if f.done {
		return fs.ErrClosed
	}
	f.done = true
	if f.tmp == "" { // a stream
		err := f.f.Close()
		if f.err != nil {
			return f.err
		}
		return err
	}
	err := f.err
	if err == nil {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && f.perm != 0 {
		err = os.Chmod(f.tmp, f.perm)
	}
	if err == nil {
		err = os.Rename(f.tmp, f.path)
	}
	if err != nil {
		_ = os.Remove(f.tmp)
		return f.named(err)
	}
	syncDir(filepath.Dir(f.path))
	return nil
}

// Abort removes the temporary file; the destination is left as it was. It does nothing after
// Commit, so `defer f.Abort()` is safe.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	_ = f.f.Close()
	if f.tmp != "" {
		_ = os.Remove(f.tmp)
	}
}

// syncDir makes the rename durable where the system allows it (POSIX: fsync of the
// directory); elsewhere (Windows) it does nothing useful and its error is ignored.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// Write replaces path with what fill writes, atomically (Create, fill, Commit). An error from
// fill or from any write leaves path as it was.
func Write(path string, fill func(io.Writer) error) error {
	return write(path, fill, nil)
}

// write is Write with wrap, when set, between fill and the file: tests put a writer there that
// fails the way a full disk does.
func write(path string, fill func(io.Writer) error, wrap func(io.Writer) io.Writer) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if wrap != nil {
		f.w = wrap(f.w)
	}
	if err := fill(f); err != nil {
		return err
	}
	return f.Commit()
}

// WriteFile replaces path with data, atomically.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteNew writes data to path only when nothing is there, not even a link (the error is then
// fs.ErrExist): the file is written and synced under a temporary name, then hard-linked to
// path, which fails rather than replace anything. Where the file system has no hard links the
// file is created exclusively at path (O_EXCL never follows a link) and removed again if the
// write fails.
func WriteNew(path string, data []byte) error {
	if _, err := os.Lstat(path); err == nil {
		return &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
	}
	f, err := createTemp(path, 0o644)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	lerr := os.Link(tmp, path)
	if lerr == nil {
		syncDir(filepath.Dir(path))
		return nil
	}
	if errors.Is(lerr, fs.ErrExist) {
		return lerr
	}
	return writeExclusive(path, data)
}

// writeExclusive creates path exclusively and writes data, removing it on a failed write.
func writeExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

// Check reports whether path can be written, before the work whose result it will hold
// starts: it is not a link (ErrSymlink), a directory or another special file, and its
// directory exists and takes a new file (one is created there and removed, as Create will).
func Check(path string) error {
	k, _, err := inspect(path)
	if err != nil || k == stream {
		return err
	}
	f, err := createTemp(path, 0o600)
	if err != nil {
		return err
	}
	name := f.Name()
	_ = f.Close()
	return os.Remove(name)
}

// Append adds what fill writes to the end of path (created when missing): the file many steps
// add to, such as GitHub's $GITHUB_STEP_SUMMARY, cannot be replaced by a rename. The bytes are
// rendered first and written with one write; if that write fails (a full disk), the file is
// truncated back to its old length. A link at path is refused as by Create, and the file
// opened must be the one inspected, so a link planted in between is not written through.
func Append(path string, fill func(io.Writer) error) error {
	return appendTo(path, fill, nil)
}

// appendTo is Append with wrap between the rendered bytes and the file, for tests.
func appendTo(path string, fill func(io.Writer) error, wrap func(io.Writer) io.Writer) error {
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return err
	}
	k, before, err := inspect(path)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return err
	}
	if k != absent && !os.SameFile(before, opened) {
		return fmt.Errorf("%s changed while it was opened", path)
	}
	if k == absent {
		// Created by this open, or a link planted since inspect was followed: Lstat tells.
		now, err := os.Lstat(path)
		if err != nil {
			return err
		}
		if now.Mode()&fs.ModeSymlink != 0 || !os.SameFile(now, opened) {
			target, _ := os.Readlink(path)
			return &LinkError{Path: path, Target: target}
		}
	}
	size := opened.Size()
	var w io.Writer = f
	if wrap != nil {
		w = wrap(w)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		if opened.Mode().IsRegular() {
			_ = f.Truncate(size)
		}
		return err
	}
	if opened.Mode().IsRegular() {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return f.Close()
}
