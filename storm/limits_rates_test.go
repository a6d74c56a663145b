package storm

import (
	"context"
	"strings"
	"testing"

	"github.com/patience-dev/patience/scenario"
)

// TestOverridesRateBounds: every rate, capacity and duration flag of storm is held to the
// bounds of a scenario file before any simulation starts, and the error names the flag and
// its value (issue 24 item 6: --rate 1e-12/s and --capacity 1e-12/s reached the simulator
// and panicked, exit 70: a gap or a service time of 1e21 ns, past time.Duration's range).
func TestOverridesRateBounds(t *testing.T) {
	tests := []struct {
		name     string
		scenario string // "" = the quick model
		flag     string // the flag set
		value    string
		want     string // part of the error; "" = applies
	}{
		{"tiny rate", "", "rate", "1e-12/s", `--rate "1e-12/s": brings 1.8e-10 requests on average in 3m; want at least 1: a rate of at least 0.00556/s`},
		{"denormal rate", "", "rate", "5e-324", `--rate "5e-324": brings`},
		{"rate of one a run", "", "rate", "1/m", ""},
		{"tiny capacity", "", "capacity", "1e-12/s", `--capacity "1e-12/s": serves 1.8e-10 requests`},
		{"capacity below one a run", "", "capacity", "1/h", `--capacity "1/h": serves 0.05 requests`},
		{"nanosecond run", "", "duration", "1ns", `--duration "1ns": --rate 150/s brings 1.5e-07 requests`},
		{"zero rate", "", "rate", "0/s", "--rate must be positive"},
		{"rate above max", "", "rate", "2000000/s", "above the 1e+06/s"},
		{"scenario: tiny rate", "layered-retries", "rate", "1e-12/s", `--rate "1e-12/s": brings 1.8e-10 requests`},
		{"scenario: nanosecond run", "layered-retries", "duration", "1ns", `--duration "1ns": rate 20/s brings 2e-08 requests`},
		{"scenario: tiny capacity", "layered-retries", "capacity", "1e-12/s", `--capacity "1e-12/s": serves 1.8e-10 requests`},
		// layered-retries' latency (lognormal, p50 50 ms, p99 200 ms) has a mean of 59.7 ms:
		// one worker serves 16.7/s, and a capacity below half of that rounded to zero
		// workers, then silently to one (2/s ran as 16.7/s).
		{"scenario: capacity under half a worker", "layered-retries", "capacity", "2/s", `--capacity "2/s": below the 8.37/s of half a worker (one worker serves 16.7/s at the scenario's mean latency of 59.7 ms`},
		{"scenario: capacity of half a worker", "layered-retries", "capacity", "8.4/s", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := quickOverrides(tt.flag)
			o.Scenario = tt.scenario
			switch tt.flag {
			case "rate":
				o.Rate = tt.value
			case "capacity":
				o.Capacity = tt.value
			case "duration":
				o.Duration = tt.value
			}
			_, _, err := o.Apply()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("--%s %s: %v", tt.flag, tt.value, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("--%s %s: got %v, want …%s…", tt.flag, tt.value, err, tt.want)
			}
		})
	}
}

// TestBisectionSlowestRate: the stable_below_per_s search never probes a rate that brings
// fewer than one request in the run. A scenario within every bound — one worker with a
// fixed latency of 2562047h — has a capacity of 1.08e-10/s, and the search's first probe,
// 2% of that, made the simulator's gap between arrivals pass time.Duration's range: storm
// panicked (exit 70). Below one arrival per run there is nothing to search: no bisection.
func TestBisectionSlowestRate(t *testing.T) {
	for _, lat := range []string{"2562047h", "1000h", "24h"} {
		sc, err := scenario.Parse([]byte("name: cap\nduration: 1m\nload: {clients: 2, rate: 5/s}\ntarget:\n  latency: {fixed: "+lat+
			"}\n  capacity: {workers: 1}\n  phases: [{name: p, at: 10s, for: 10s, stall: true}]\npolicy: {timeout: 1s, retry: {max_attempts: 3}}\n"), "cap.yaml")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), sc, Options{Bisect: true, Parallel: 1})
		if err != nil {
			t.Fatalf("latency %s: %v", lat, err)
		}
		for _, p := range res.Policies {
			if p.Bisection != nil {
				t.Errorf("latency %s: %s searched below one arrival per run: %+v", lat, p.Name, *p.Bisection)
			}
		}
	}
	// A capacity that does allow a search still starts it at 2% of capacity.
	sc, err := scenario.Parse([]byte("name: cap\nduration: 1m\nload: {clients: 2, rate: 5/s}\ntarget:\n  latency: {fixed: 10ms}\n  capacity: {workers: 1}\npolicy: {timeout: 1s}\n"), "cap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	capacity := 100.0
	res := &Result{CapacityPerS: &capacity}
	if lo, hi, _, ok := searchBracket(sc, sc.Policies[0], res, Options{Bisect: true, Tolerance: DefaultTolerance}); !ok || lo != 2 || hi != 100 {
		t.Errorf("searchBracket at 100/s: lo %g hi %g ok %v, want 2, 100, true", lo, hi, ok)
	}
}
