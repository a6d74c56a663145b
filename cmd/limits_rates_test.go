package cmd

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSpeedFactor is the one --speed bound replay --live, serve and demo share (issue 25:
// the check was written out in each; issue 24: 1e-308 passed it).
func TestSpeedFactor(t *testing.T) {
	for _, tc := range []struct {
		v   float64
		bad bool
	}{
		{0.01, false}, {0.5, false}, {1, false}, {30, false}, {1000, false},
		{0.00999, true}, {1e-308, true}, {math.SmallestNonzeroFloat64, true}, {0, true}, {-1, true},
		{1000.001, true}, {math.Inf(1), true}, {math.Inf(-1), true}, {math.NaN(), true},
	} {
		if b := speedFactor(tc.v); b.bad != tc.bad || b.flag != "--speed" {
			t.Errorf("speedFactor(%g): bad %v flag %q, want bad %v", tc.v, b.bad, b.flag, tc.bad)
		}
	}
}

// TestLimitsRatesFlags: every rate, capacity, speed and duration flag of replay, storm,
// serve and demo out of its bound is a usage error (exit 2) naming the flag and its value,
// before any work: nothing on stdout, never a panic (exit 70) or a run that never ends.
// Each case failed before issue 24's fix: storm panicked (exit 70), --speed 1e-308 ran a
// live replay in "0 ms", demo --rate 1e-12/s waited 1e12 s for its second request.
func TestLimitsRatesFlags(t *testing.T) {
	dir := t.TempDir()
	tiny := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(tiny, []byte("name: tiny\nduration: 1m\nload:\n  rate: 1e-12/s\ntarget:\n  latency: {fixed: 10ms}\npolicy: {timeout: 1s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Within every bound of a file, yet 30 million attempts: a live replay of it passed
	// 800 MB in 17 s before the budget applied to --live.
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("name: big\nduration: 1m\nload: {clients: 1000000, burst: 10000000}\ntarget:\n  latency: {fixed: 10ms}\npolicy: {timeout: 1s, retry: {max_attempts: 3}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	speedWant := `want a factor from 0.01 (a hundred times slower than real time) to 1000`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"storm", "--rate", "1e-12/s"}, `--rate "1e-12/s": brings 1.8e-10 requests on average in 3m; want at least 1: a rate of at least 0.00556/s`},
		{[]string{"storm", "--capacity", "1e-12/s"}, `--capacity "1e-12/s": serves 1.8e-10 requests on average in 3m`},
		{[]string{"storm", "--duration", "1ns"}, `--duration "1ns": --rate 150/s brings 1.5e-07 requests`},
		{[]string{"storm", "layered-retries", "--rate", "1e-12/s"}, `--rate "1e-12/s": brings`},
		{[]string{"storm", "layered-retries", "--capacity", "1e-12/s"}, `--capacity "1e-12/s": serves`},
		{[]string{"storm", tiny}, tiny + `:4:9: load.rate: 1e-12/s brings 6e-11 requests on average in 1m`},
		{[]string{"replay", tiny}, tiny + `:4:9: load.rate: 1e-12/s brings 6e-11 requests`},
		// --max-cost bounds a live replay as it does a simulated one (it was not looked at).
		{[]string{"replay", "--live", "--max-cost", "1s,1MiB"}, `above the budget of 1s,1MiB`},
		{[]string{"replay", "--live", big}, `this run would simulate about 30 million attempts, taking about 21 s and 4.23 GiB: above the budget of 10m,2GiB`},
		{[]string{"replay", "--live", "--speed", "1e-308"}, `--speed "1e-308": ` + speedWant},
		{[]string{"replay", "--live", "--speed", "0.001"}, `--speed "0.001": ` + speedWant},
		{[]string{"replay", "--live", "--speed", "NaN"}, `--speed "NaN": ` + speedWant},
		{[]string{"replay", "--live", "--speed", "1001"}, `--speed "1001": ` + speedWant},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--speed", "1e-308"}, `--speed "1e-308": ` + speedWant},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--speed", "+Inf"}, `--speed "+Inf": ` + speedWant},
		{[]string{"demo", "--speed", "1e-308"}, `--speed "1e-308": ` + speedWant},
		{[]string{"demo", "--rate", "1e-12/s"}, `--rate "1e-12/s": brings 5e-12 requests on average in 5s; want at least 1: a rate of at least 0.2/s`},
		{[]string{"demo", "--rate", "1/m"}, `--rate "1/m": brings 0.0833 requests`},
		{[]string{"demo", "--rate", "1e12/s"}, `--rate "1e12/s": want at most 10000/s`},
		{[]string{"demo", "--duration", "10000h"}, `--duration "10000h0m0s": want at most 10m`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			// A run that starts when it should have been refused is cut, not waited for.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			code, out, errOut := runCmd(t, ctx, "", tc.args...)
			if code != ExitUsage || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stdout %.200q, stderr %.300q; want exit 2, no stdout and %q", code, out, errOut, tc.want)
			}
		})
	}
}
