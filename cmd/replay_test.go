package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/report"
)

func TestReplayFlags(t *testing.T) {
	var got *ReplayOptions
	f := &Factory{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{})}
	c := NewCmdReplay(f, func(o *ReplayOptions) error { got = o; return nil })
	c.SetArgs([]string{"shipping-queue", "--policy", "preset:none", "--policy", "p.yaml", "--seed", "42", "-o", "markdown"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := ReplayOptions{Scenario: "shipping-queue", Policies: []string{"preset:none", "p.yaml"}, Seed: 42, SeedSet: true, Output: "markdown", Live: LiveFlags{Speed: 1}}
	got.IO = nil
	if d := cmp.Diff(want, *got); d != "" {
		t.Errorf("options (-want +got):\n%s", d)
	}
}

// Ctrl-C renders what was replayed so far and exits 130.
func TestReplayInterrupted(t *testing.T) {
	var out, errOut bytes.Buffer
	opts := &ReplayOptions{IO: report.Test(nil, &out, &errOut), Scenario: "retry-storm-10-servers", Output: "text"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := replayRun(ctx, opts)
	if ExitCode(err) != ExitInterrupted {
		t.Fatalf("exit %d (%v), want %d", ExitCode(err), err, ExitInterrupted)
	}
	if !strings.Contains(out.String(), "replay retry-storm-10-servers") || !strings.Contains(out.String(), "interrupted") {
		t.Errorf("partial report missing:\n%s", out.String())
	}
}

// The demo's replay stage replays the default scenario and shows its lesson.
func TestDemoReplay(t *testing.T) {
	var out bytes.Buffer
	d := &report.Demo{}
	opts := &DemoOptions{IO: report.Test(nil, &out, &bytes.Buffer{}), Output: "text"}
	if err := demoReplay(context.Background(), opts, d); err != nil {
		t.Fatal(err)
	}
	if err := report.DemoSectionText(&out, d, "replay", opts.IO.Options()); err != nil {
		t.Fatal(err)
	}
	// Verdicts wrap to the width; join the words back to read them.
	text := strings.Join(strings.Fields(out.String()), " ")
	if !strings.Contains(text, "replay delivery-date-hang") || !strings.Contains(text, "unrelated pages die") {
		t.Errorf("demo replay:\n%s", out.String())
	}
}
