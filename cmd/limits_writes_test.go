package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/patience-dev/patience/report"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// readWatch is a standard input that records whether anything read it.
type readWatch struct {
	r    io.Reader
	read atomic.Bool
}

func (w *readWatch) Read(p []byte) (int, error) {
	w.read.Store(true)
	return w.r.Read(p)
}

const goodAccessLog = `10.0.0.1 - - [01/May/2024:00:00:00 +0000] "GET /a HTTP/1.1" 200 512 "-" "curl/8" rt=0.050 uct="0.001" uht="0.045" urt="0.050"
10.0.0.1 - - [01/May/2024:00:00:01 +0000] "GET /a HTTP/1.1" 200 512 "-" "curl/8" rt=0.052 uct="0.001" uht="0.047" urt="0.052"
`

// TestAdviseSaveCheckedBeforeReading (issue 24 item 8): a --save that cannot be written fails
// before advise reads its input — before, standard input was read whole and the report
// printed, and only then did --save fail. A FIFO with no writer, or a slow pipe, would have
// been waited on first.
func TestAdviseSaveCheckedBeforeReading(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, save := range []string{
		filepath.Join(dir, "missing", "p.json"), // no such directory
		filepath.Join(notDir, "p.json"),         // a file where the directory should be
		dir,                                     // a directory
	} {
		in := &readWatch{r: strings.NewReader(goodAccessLog)}
		var out, errOut bytes.Buffer
		code := Main([]string{"advise", "-", "--save", save}, in, &out, &errOut)
		if code != ExitUsage {
			t.Errorf("--save %s: exit %d, want %d; stderr %s", save, code, ExitUsage, errOut.String())
		}
		if in.read.Load() {
			t.Errorf("--save %s: standard input was read before --save was found unwritable", save)
		}
		if out.Len() != 0 {
			t.Errorf("--save %s: stdout %.80q…, want nothing", save, out.String())
		}
		if !strings.Contains(errOut.String(), "--save: ") {
			t.Errorf("--save %s: stderr %q does not name --save", save, errOut.String())
		}
	}
}

// TestManPagesAtomic: `patience man DIR` writes the bytes cobra's doc.GenManTree writes, under
// the same names, but never through a symbolic link planted in DIR (GenManTree opens each page
// with os.Create, which follows one and truncates its target).
func TestManPagesAtomic(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "0")
	ours, theirs := t.TempDir(), t.TempDir()
	var out, errOut bytes.Buffer
	if code := Main([]string{"man", ours}, nil, &out, &errOut); code != 0 {
		t.Fatalf("man: exit %d: %s", code, errOut.String())
	}
	root := NewCmdRoot(&Factory{IO: report.Test(nil, io.Discard, io.Discard)})
	root.DisableAutoGenTag = true
	// What Execute adds before `patience man` runs: the help and completion commands.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	// What writeManTree does to each page's text before GenMan: Markdown-safe (manMarkdown).
	var safe func(c *cobra.Command)
	safe = func(c *cobra.Command) {
		if !isCompletion(c) {
			c.Long = manMarkdown(c.Long)
		}
		for _, sub := range c.Commands() {
			safe(sub)
		}
	}
	safe(root)
	v := currentVersion()
	header := &doc.GenManHeader{Section: "1", Source: "patience " + v.Version, Manual: "patience manual", Date: manDate(v)}
	if err := doc.GenManTree(root, header, theirs); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(theirs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadDir(ours)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) < 10 {
		t.Fatalf("%d pages, GenManTree writes %d", len(got), len(want))
	}
	for _, e := range want {
		a, err := os.ReadFile(filepath.Join(ours, e.Name()))
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		b, _ := os.ReadFile(filepath.Join(theirs, e.Name()))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from GenManTree's page", e.Name())
		}
	}

	// A link planted at one page's name: refused (exit 1, an error naming it), its target
	// untouched.
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "patience-probe.1")); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	errOut.Reset()
	if code := Main([]string{"man", dir}, nil, &out, &errOut); code == 0 {
		t.Errorf("man through a planted link: exit 0")
	}
	if !strings.Contains(errOut.String(), "patience-probe.1 is a symbolic link") {
		t.Errorf("stderr %q does not name the link", errOut.String())
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was written: %.40q", b)
	}
}
