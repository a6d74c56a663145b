package live

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/scenarios"
	"github.com/patience-dev/patience/sim"
)

// TestAgreementTable prints the sim-vs-live agreement table of every bundled scenario. It
// takes minutes of real time, so it runs only when asked:
//
//	PATIENCE_AGREEMENT=1 go test ./live -run TestAgreementTable -v -timeout 30m
//
// PATIENCE_AGREEMENT_SPEED overrides the per-scenario speeds ("10" for all); a scenario
// name in PATIENCE_AGREEMENT (instead of 1) runs only that one.
func TestAgreementTable(t *testing.T) {
	want := os.Getenv("PATIENCE_AGREEMENT")
	if want == "" {
		t.Skip("set PATIENCE_AGREEMENT=1 to measure the agreement table (minutes of real time)")
	}
	// Speeds keep each policy's run within about a minute of real time and the load within
	// what two shared cores serve: retry-storm-10-servers offers 200/s before retries.
	speeds := map[string]float64{"retry-storm-10-servers": 2, "shipping-queue": 60}
	var rows []string
	for _, name := range scenarios.Names() {
		if want != "1" && want != name {
			continue
		}
		sc, err := scenario.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		speed := 10.0
		if s, ok := speeds[name]; ok {
			speed = s
		}
		if v := os.Getenv("PATIENCE_AGREEMENT_SPEED"); v != "" {
			speed, _ = strconv.ParseFloat(v, 64)
		}
		simRes, err := sim.Run(context.Background(), sc, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fid := &Fidelity{}
		start := time.Now()
		liveRes, err := Replay(context.Background(), sc, Options{Speed: speed, Fidelity: fid, Log: os.Stderr, Sequential: true})
		if err != nil {
			t.Fatal(err)
		}
		real := time.Since(start).Round(100 * time.Millisecond)
		for i, s := range simRes.Policies {
			l := liveRes.Policies[i]
			rows = append(rows, fmt.Sprintf("| %s | %g | %s | %.1f%% | %.1f%% | %+.1f | %.3f | %.3f | %+.1f%% | %d | %d | %s | %s |",
				name, speed, s.Name, 100*s.SuccessRate, 100*l.SuccessRate, 100*(l.SuccessRate-s.SuccessRate),
				s.Amplification, l.Amplification, 100*(l.Amplification/s.Amplification-1), s.Duplicates, l.Duplicates,
				fid.LatenessP99.Round(100*time.Microsecond), real))
		}
		t.Logf("%s done in %s", name, real)
	}
	fmt.Println("| scenario | speed | policy | success sim | success live | Δ points | amp sim | amp live | Δ amp | dup sim | dup live | lateness p99 | real time |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	fmt.Println(strings.Join(rows, "\n"))
}
