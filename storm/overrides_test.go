package storm

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/scenario"
)

// quickOverrides are the storm command's flag defaults with the given flags marked as set.
func quickOverrides(changed ...string) Overrides {
	o := Overrides{Clients: DefaultClients, Rate: "150/s", Capacity: "300/s", Timeout: "1s", Attempts: "4", Duration: "3m",
		Seed: DefaultSeed, Changed: map[string]bool{}}
	for _, c := range changed {
		o.Changed[c] = true
	}
	return o
}

func apply(t *testing.T, o Overrides) (*scenario.Scenario, *Model) {
	t.Helper()
	sc, m, err := o.Apply()
	if err != nil {
		t.Fatal(err)
	}
	return sc, m
}

// Quick-model overrides (docs/design.md §2): a preset without a timeout gets the model's; explicit
// --attempts override the preset's attempts and build layers; without --attempts the preset
// keeps its own.
func TestOverridesQuickModel(t *testing.T) {
	o := quickOverrides()
	o.Policies = []string{"preset:naive"}
	sc, m := apply(t, o)
	p := sc.Policies[0]
	if m == nil || p.Timeout != time.Second || p.Retry.MaxAttempts != 4 || len(p.Layers) != 0 {
		t.Errorf("naive in the quick model: timeout %s, attempts %d, layers %d", p.Timeout, p.Retry.MaxAttempts, len(p.Layers))
	}

	o = quickOverrides("attempts", "timeout")
	o.Policies, o.Attempts, o.Timeout = []string{"preset:aws-standard"}, "3,6", "2s"
	sc, _ = apply(t, o)
	if got := Attempts(sc.Policies[0]); !cmp.Equal(got, []int{3, 6}) || sc.Policies[0].Timeout != 2*time.Second {
		t.Errorf("aws-standard with --attempts 3,6 --timeout 2s: %v, %s", got, sc.Policies[0].Timeout)
	}
	if sc.Policies[0].Budget == nil {
		t.Error("the preset's token bucket was lost")
	}

	// Without --policy: the mitigation set, first the plain retries.
	o = quickOverrides("attempts")
	o.Attempts = "4,4,4"
	sc, _ = apply(t, o)
	if len(sc.Policies) != 7 || sc.Policies[0].Name != "retries" || sc.Policies[6].Name != "one-layer" {
		t.Errorf("mitigations: %d policies, first %q", len(sc.Policies), sc.Policies[0].Name)
	}

	// The model carries every flag; --errors replaces the default outage.
	o = quickOverrides("clients", "rate", "errors")
	o.Clients, o.Rate, o.Errors = 10, "2400/m", []string{"20s@30s"}
	sc, m = apply(t, o)
	if m.Clients != 10 || m.RatePerS != 40 || len(m.Outages) != 0 || !cmp.Equal(m.Errors, []Window{{At: 30 * time.Second, For: 20 * time.Second}}) {
		t.Errorf("model %+v: want 10 clients at 40/s and the one error burst", m)
	}
	if len(sc.Target.Phases) != 1 || sc.Target.Phases[0].Name != "errors" || sc.Target.Phases[0].Faults[0].Status != 503 {
		t.Errorf("phases %+v: want the 503 burst", sc.Target.Phases)
	}
}

// On a scenario only the flags the user set apply; --outage and --errors add phases.
func TestOverridesScenario(t *testing.T) {
	base, err := scenario.Open("layered-retries")
	if err != nil {
		t.Fatal(err)
	}
	o := quickOverrides("rate")
	o.Scenario, o.Rate = "layered-retries", "7/s"
	sc, m := apply(t, o)
	if m != nil || sc.Load.Rate != 7 || sc.Name != "layered-retries" {
		t.Errorf("scenario with --rate 7/s: model %v, rate %g, name %q", m, sc.Load.Rate, sc.Name)
	}
	if sc.Load.Clients != base.Load.Clients || sc.Duration != base.Duration || sc.Seed != base.Seed || sc.Target.Capacity != nil {
		t.Errorf("flags not set changed the scenario: clients %d duration %s seed %d capacity %v",
			sc.Load.Clients, sc.Duration, sc.Seed, sc.Target.Capacity)
	}
	if sc.Policies[0].Timeout != base.Policies[0].Timeout {
		t.Errorf("timeout %s without --timeout, want the scenario's %s", sc.Policies[0].Timeout, base.Policies[0].Timeout)
	}

	o = quickOverrides("clients", "capacity", "queue", "timeout", "duration", "seed", "outage")
	o.Scenario, o.Clients, o.Capacity, o.Queue, o.Timeout, o.Duration, o.Seed = "layered-retries", 9, "200/s", 0, "3s", "4m", 5
	o.Outages = []string{"10s@60s"}
	sc, _ = apply(t, o)
	// Capacity in workers: the rate × the target's mean latency, rounded.
	wantWorkers := int(200*base.Target.Latency.Mean().Seconds() + 0.5)
	if c := sc.Target.Capacity; c == nil || c.Workers != wantWorkers || c.Queue != UnboundedQueue {
		t.Errorf("--capacity 200/s --queue 0: capacity %+v, want %d workers and an unbounded queue", c, wantWorkers)
	}
	if sc.Load.Clients != 9 || sc.Duration != 4*time.Minute || sc.Seed != 5 {
		t.Errorf("clients %d duration %s seed %d, want 9, 4m, 5", sc.Load.Clients, sc.Duration, sc.Seed)
	}
	for _, p := range sc.Policies {
		if p.Timeout != 3*time.Second {
			t.Errorf("%s: timeout %s, want --timeout's 3s", p.Name, p.Timeout)
		}
	}
	last := sc.Target.Phases[len(sc.Target.Phases)-1]
	if len(sc.Target.Phases) != len(base.Target.Phases)+1 || last.Name != "outage" || !last.Stall || last.At != time.Minute {
		t.Errorf("phases %+v: want the scenario's and a stall at 60s", sc.Target.Phases)
	}
	if base.Policies[0].Timeout == 3*time.Second {
		t.Error("overriding changed the opened scenario's policy (Override must copy)")
	}
}

// Each error names the flag with the same text the command has always printed (it reports
// them as usage errors, exit 2).
func TestOverridesErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Overrides)
		want string
	}{
		{"rate", func(o *Overrides) { o.Rate = "fast" }, `--rate "fast"`},
		{"capacity", func(o *Overrides) { o.Capacity = "x" }, `--capacity "x"`},
		{"timeout", func(o *Overrides) { o.Timeout = "soon" }, `--timeout "soon"`},
		{"attempts", func(o *Overrides) { o.Attempts = "0,4" }, `--attempts "0,4"`},
		{"duration", func(o *Overrides) { o.Duration = "long" }, `--duration "long"`},
		{"outage", func(o *Overrides) { o.Outages = []string{"10s"} }, `--outage "10s"`},
		{"errors", func(o *Overrides) { o.Errors = []string{"10s"} }, `--errors "10s"`},
		{"preset", func(o *Overrides) { o.Policies = []string{"preset:nope"} }, `unknown preset "nope"`},
		{"model", func(o *Overrides) { o.Clients = 0 }, "--clients must be at least 1"},
		{"scenario", func(o *Overrides) { o.Scenario = "no-such-scenario" }, "no-such-scenario"},
		{"scenario clients", func(o *Overrides) { o.Scenario, o.Clients, o.Changed["clients"] = "layered-retries", 0, true },
			"--clients must be at least 1"},
		{"scenario queue", func(o *Overrides) { o.Scenario, o.Queue, o.Changed["queue"] = "layered-retries", 10, true },
			"--queue needs --capacity: scenario layered-retries has no capacity limit to queue behind"},
		{"scenario negative queue", func(o *Overrides) { o.Scenario, o.Queue, o.Changed["queue"] = "layered-retries", -1, true },
			"--queue must be 0 (unbounded) or positive"},
		{"scenario capacity", func(o *Overrides) { o.Scenario, o.Capacity, o.Changed["capacity"] = "layered-retries", "0/s", true },
			"--capacity needs a positive rate and a target latency above zero"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := quickOverrides()
			tc.edit(&o)
			_, _, err := o.Apply()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Apply() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
