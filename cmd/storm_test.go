package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

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
		Clients: 10, Rate: "2400/m", Capacity: "300/s", Queue: 50, Timeout: "1s", Attempts: "3,6",
		Outages: []string{"10s@60s", "5s@90s"}, Errors: []string{"30s@100s"}, Duration: "3m", Seed: 1,
		Policies: []string{"preset:naive"}, NoBisect: true, Output: "json",
		Changed: map[string]bool{"clients": true, "rate": true, "capacity": false, "queue": true, "timeout": false,
			"attempts": true, "outage": true, "errors": true, "duration": false, "seed": false},
	}
	got.IO = nil
	if d := cmp.Diff(want, *got); d != "" {
		t.Errorf("options (-want +got):\n%s", d)
	}
}

func stormOpts(args map[string]string, changed ...string) *StormOptions {
	o := &StormOptions{Clients: 100, Rate: "150/s", Capacity: "300/s", Timeout: "1s", Attempts: "4", Duration: "3m", Seed: 1, Output: "text",
		Changed: map[string]bool{}}
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

// Quick-model overrides (DESIGN §2): a preset without a timeout gets the model's; explicit
// --attempts override the preset's attempts and build layers; without --attempts the preset
// keeps its own.
func TestLoadStormOverrides(t *testing.T) {
	sc, m, err := loadStorm(stormOpts(map[string]string{"policy": "preset:naive"}))
	if err != nil {
		t.Fatal(err)
	}
	p := sc.Policies[0]
	if m == nil || p.Timeout != time.Second || p.Retry.MaxAttempts != 4 || len(p.Layers) != 0 {
		t.Errorf("naive in the quick model: timeout %s, attempts %d, layers %d", p.Timeout, p.Retry.MaxAttempts, len(p.Layers))
	}
	sc, _, err = loadStorm(stormOpts(map[string]string{"policy": "preset:aws-standard", "attempts": "3,6", "timeout": "2s"}, "attempts", "timeout"))
	if err != nil {
		t.Fatal(err)
	}
	if got := storm.Attempts(sc.Policies[0]); !cmp.Equal(got, []int{3, 6}) || sc.Policies[0].Timeout != 2*time.Second {
		t.Errorf("aws-standard with --attempts 3,6 --timeout 2s: %v, %s", got, sc.Policies[0].Timeout)
	}
	if sc.Policies[0].Budget == nil {
		t.Error("the preset's token bucket was lost")
	}
	// Without --policy: the mitigation set, first the plain retries.
	sc, _, err = loadStorm(stormOpts(map[string]string{"attempts": "4,4,4"}, "attempts"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Policies) != 7 || sc.Policies[0].Name != "retries" || sc.Policies[6].Name != "one-layer" {
		t.Errorf("mitigations: %d policies, first %q", len(sc.Policies), sc.Policies[0].Name)
	}
	// A scenario: only the flags the user set apply.
	sc, m, err = loadStorm(stormOpts(map[string]string{"scenario": "layered-retries", "rate": "7/s"}, "rate"))
	if err != nil {
		t.Fatal(err)
	}
	if m != nil || sc.Load.Rate != 7 || sc.Name != "layered-retries" {
		t.Errorf("scenario with --rate 7/s: model %v, rate %g, name %q", m, sc.Load.Rate, sc.Name)
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
	if !strings.HasPrefix(first, "✗ metastable") && !strings.HasPrefix(first, "✓ recovers") {
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
