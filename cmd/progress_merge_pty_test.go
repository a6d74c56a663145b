//go:build linux

package cmd

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/probe/probetest"
	"github.com/patience-dev/patience/report"
)

// TestMergeBar: `probe --merge` on a terminal draws a bar over the profiles merged (it
// showed nothing while it read many large ones) and erases it, so the terminal holds the
// report alone. Each profile is held back a little (mergeAdded) so mpb draws frames.
func TestMergeBar(t *testing.T) {
	srv, err := probetest.Start(probetest.Fast())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	args := []string{"probe", "--merge"}
	for i := range 4 {
		save := filepath.Join(dir, fmt.Sprintf("p%d.json", i))
		if code, _, errOut := runCmd(t, context.Background(), "", "probe", srv.URL+"/", "-c", "1", "-n", "20", "--save", save, "-q"); code != ExitOK {
			t.Fatalf("probe: exit %d: %s", code, errOut)
		}
		args = append(args, save)
	}
	mergeAdded = func(int) { time.Sleep(200 * time.Millisecond) }
	defer func() { mergeAdded = nil }()
	master, slave := openPTY(t, 100)
	defer master.Close()
	stop := readPTY(master)
	var out bytes.Buffer
	f := &Factory{IO: report.System(nil, &out, slave)}
	code := run(context.Background(), f, args)
	slave.Close()
	raw := stop()
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%q", code, out.String(), raw)
	}
	if !strings.Contains(raw, "merge ") || !strings.Contains(raw, "/4 profiles") {
		t.Fatalf("no bar over the profiles was drawn: %q", raw)
	}
	if left := screen(raw); len(left) > 0 {
		t.Errorf("the finished bar is left on the terminal:\n%s\n(raw %q)", strings.Join(left, "\n"), raw)
	}
}
