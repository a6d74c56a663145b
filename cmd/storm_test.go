package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/storm"
)

func TestStormFlags(t *testing.T) {
	var got *StormOptions
	f := &Factory{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{})}
	c := NewCmdStorm(f, func(o *StormOptions) error { got = o; return nil })
	c.SetArgs([]string{"--clients", "10", "--rate", "2400/m", "--attempts", "3,6", "--outage", "10s@60s", "--outage", "5s@90s",
		"--errors", "30s@100s", "--policy", "preset:naive", "--queue", "50", "--no-bisect", "-o", "json"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := StormOptions{
		Overrides: storm.Overrides{
			Clients: 10, Rate: "2400/m", Capacity: "300/s", Queue: 50, Timeout: "1s", Attempts: "3,6",
			Outages: []string{"10s@60s", "5s@90s"}, Errors: []string{"30s@100s"}, Duration: "3m", Seed: 1,
			Policies: []string{"preset:naive"},
			Changed: map[string]bool{"clients": true, "rate": true, "capacity": false, "queue": true, "timeout": false,
				"attempts": true, "outage": true, "errors": true, "duration": false, "seed": false},
		},
		NoBisect: true, Output: "json",
	}
	got.IO = nil
	if d := cmp.Diff(want, *got); d != "" {
		t.Errorf("options (-want +got):\n%s", d)
	}
}

// stormOpts are the command's flag defaults with args applied and the named flags marked set.
func stormOpts(args map[string]string, changed ...string) *StormOptions {
	o := &StormOptions{Output: "text", Overrides: storm.Overrides{Clients: 100, Rate: "150/s", Capacity: "300/s", Timeout: "1s",
		Attempts: "4", Duration: "3m", Seed: 1, Changed: map[string]bool{}}}
	for k, v := range args {
		switch k {
		case "rate":
			o.Rate = v
		case "timeout":
			o.Timeout = v
		case "attempts":
			o.Attempts = v
		case "policy":
			o.Policies = append(o.Policies, v)
		case "scenario":
			o.Scenario = v
		}
	}
	for _, c := range changed {
		o.Changed[c] = true
	}
	return o
}

// The flags fill storm.Overrides and storm applies them (storm/overrides_test.go); what the
// command keeps is the mapping of Apply's errors to usage errors: exit 2, the text unchanged.
func TestStormUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args map[string]string
		want string
	}{
		{map[string]string{"rate": "fast"}, `--rate "fast"`},
		{map[string]string{"attempts": "0,4"}, `--attempts "0,4"`},
		{map[string]string{"policy": "preset:nope"}, `unknown preset "nope"`},
		{map[string]string{"scenario": "no-such-scenario"}, "no-such-scenario"},
	} {
		var out bytes.Buffer
		o := stormOpts(tc.args)
		o.IO = report.Test(nil, &out, &bytes.Buffer{})
		err := stormRun(context.Background(), o)
		if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: exit %d (%v), want %d and %q", tc.args, ExitCode(err), err, ExitUsage, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("%v: stdout %q, want nothing", tc.args, out.String())
		}
	}
}

func TestStormRunText(t *testing.T) {
	var out, errOut bytes.Buffer
	o := stormOpts(map[string]string{"rate": "30/s"})
	o.IO, o.NoBisect = report.Test(nil, &out, &errOut), true
	if err := stormRun(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(first, "✗ ") && !strings.HasPrefix(first, "✓ ") && !strings.HasPrefix(first, "! ") {
		t.Errorf("the report does not lead with a verdict: %q", first)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr: %q", errOut.String())
	}
}

// Ctrl-C before anything ran: nothing to render, exit 130.
func TestStormInterrupted(t *testing.T) {
	var out bytes.Buffer
	o := stormOpts(nil)
	o.IO = report.Test(nil, &out, &bytes.Buffer{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := stormRun(ctx, o); ExitCode(err) != ExitInterrupted {
		t.Fatalf("exit %d (%v), want %d", ExitCode(err), err, ExitInterrupted)
	}
}
