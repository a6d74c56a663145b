package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/timing"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
	"github.com/spf13/cobra"
)

const liveScenario = `name: tiny-live
seed: 4
duration: 4s
drain: 4s
load: {clients: 2, workers: 10, rate: 20/s, request: {method: POST, path: /v1/charges}}
target:
  latency: {fixed: 20ms}
  phases:
    - {name: broken, at: 1s, for: 1s, faults: [{status: 503, percent: 50%, retry_after: 1s}]}
policies:
  - {name: with-key, idempotency_key: true, timeout: 1s, retry: {max_attempts: 3, non_idempotent: with_key}}
  - {name: no-retry, timeout: 1s, retry: {max_attempts: 1}}
`

func TestReplayLive(t *testing.T) {
	sc, err := scenario.Parse([]byte(liveScenario), "tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	opts := &ReplayOptions{IO: report.Test(nil, &out, &errOut)}
	res, err := replayLiveWith(context.Background(), opts, sc, &LiveFlags{Live: true, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != replay.ModeLive || len(res.Policies) != 2 {
		t.Fatalf("mode %q, %d policies", res.Mode, len(res.Policies))
	}
	if !strings.Contains(errOut.String(), "one after another") || !strings.Contains(errOut.String(), "about 2 s real time") {
		t.Errorf("run time not announced up front: %q", errOut.String())
	}
	simRes, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Policies {
		if l, s := res.Policies[i], simRes.Policies[i]; l.Requests != s.Requests {
			t.Errorf("%s: %d live requests, %d simulated", l.Name, l.Requests, s.Requests)
		}
	}
	// Which policy succeeds more over real sockets at speed 4 is a wall-clock outcome: on a
	// loaded machine late timers shift attempts across the fault window (measured: 65 vs 73
	// beside another go test). The structural checks above always hold; this one runs where
	// .ci/run asks for timing tests.
	if timing.Enabled() && res.Policies[0].Succeeded <= res.Policies[1].Succeeded {
		t.Errorf("retrying 503s should beat not retrying: %d vs %d", res.Policies[0].Succeeded, res.Policies[1].Succeeded)
	}
}

func TestReplayLiveUsageErrors(t *testing.T) {
	sc, err := scenario.Parse([]byte(liveScenario), "tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts := &ReplayOptions{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{})}
	for _, lf := range []LiveFlags{
		{Live: true, Speed: 1, Target: "http://192.0.2.7:8080"},
		{Live: true, Speed: 1, Target: "https://127.0.0.1:8443"},
		{Live: true, Speed: 0},
		{Live: true, Speed: -2},
	} {
		if _, err := replayLiveWith(context.Background(), opts, sc, &lf); ExitCode(err) != ExitUsage {
			t.Errorf("%+v: %v (exit %d), want exit 2", lf, err, ExitCode(err))
		}
	}
}

func TestAddLiveFlags(t *testing.T) {
	var lf LiveFlags
	c := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
	addLiveFlags(c, &lf)
	c.SetArgs([]string{"--live", "--speed", "10", "--target", "http://127.0.0.1:9", "--parallel"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if !lf.Live || lf.Speed != 10 || lf.Target != "http://127.0.0.1:9" || !lf.Parallel {
		t.Fatalf("%+v", lf)
	}
}
