package storm

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
)

// Issue 17: flags and files share one set of limits, and a run whose estimated cost is above
// the budget is refused before it starts, with the estimate and the flag that raises it.
func TestFlagsShareTheScenarioLimitsAndTheBudget(t *testing.T) {
	base := func() Overrides {
		return Overrides{Clients: DefaultClients, Rate: "150/s", Capacity: "300/s", Timeout: "1s", Attempts: "4", Duration: "3m", Seed: 1, Changed: map[string]bool{}}
	}
	for _, tc := range []struct {
		name string
		edit func(*Overrides)
		want string // "" accepted within DefaultBudget
	}{
		{"defaults", func(*Overrides) {}, ""},
		{"issue 17's storm", func(o *Overrides) {
			o.Clients, o.Rate, o.Capacity, o.Attempts, o.Duration, o.Outages = 100_000, "2000/s", "2200/s", "3", "10m", []string{"20s@60s"}
		}, ""},
		{"clients 1e9", func(o *Overrides) { o.Clients = 1_000_000_000 }, "--clients 1000000000 is above the 1000000 a scenario allows"},
		{"clients 1e9 on a scenario", func(o *Overrides) {
			o.Scenario, o.Clients, o.Changed["clients"] = "retry-storm-10-servers", 1_000_000_000, true
		}, "--clients 1000000000 is above the 1000000 a scenario allows"},
		{"rate above a file's", func(o *Overrides) { o.Rate = "2000000/s" }, "--rate 2e+06/s is above"},
		{"rate 1000000/s", func(o *Overrides) { o.Rate = "1000000/s" }, "--max-cost"},
		{"attempts 4^8", func(o *Overrides) { o.Attempts = "4,4,4,4,4,4,4,4" }, "--max-cost"},
		{"queue above a file's", func(o *Overrides) { o.Queue = 20_000_000 }, "--queue 20000000 is above"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base()
			tc.edit(&o)
			sc, _, err := o.Apply()
			if err == nil {
				err = DefaultBudget.Check(EstimateCost(sc, true, 2))
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// The estimate is an upper bound of what the run simulates, and not a wild one.
func TestEstimateBoundsTheRun(t *testing.T) {
	m := issue17Model()
	m.Clients, m.Duration = 1000, 2*time.Minute
	sc := m.Scenario([]*policy.Policy{Layered("retries", []int{3}, time.Second)})
	res, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := EstimateCost(sc, false, 1)
	if got := float64(res.Attempts); c.Attempts < got || c.Attempts > 2*got {
		t.Errorf("estimated %.0f attempts, the run made %.0f", c.Attempts, got)
	}
}

func TestParseBudget(t *testing.T) {
	for in, want := range map[string]Budget{
		"":           DefaultBudget,
		"none":       {},
		"30m":        {Time: 30 * time.Minute, Bytes: DefaultBudget.Bytes},
		"8GiB":       {Time: DefaultBudget.Time, Bytes: 8 << 30},
		"1h, 512MiB": {Time: time.Hour, Bytes: 512 << 20},
	} {
		got, err := ParseBudget(in)
		if err != nil || got != want {
			t.Errorf("ParseBudget(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"lots", "-1GiB", "0s", "10m,x"} {
		if _, err := ParseBudget(in); err == nil {
			t.Errorf("ParseBudget(%q) accepted", in)
		}
	}
}

// With a search, a single policy's probes may run on every worker at once (speculation), so
// the memory estimate counts a run per worker; the time estimate never assumes more speedup
// than there are policies.
func TestEstimateCountsSpeculativeProbes(t *testing.T) {
	m := issue17Model()
	sc := m.Scenario([]*policy.Policy{Layered("retries", []int{3}, time.Second)})
	one, four := EstimateCost(sc, true, 1), EstimateCost(sc, true, 4)
	if perRun := one.Bytes - baseBytes; math.Abs(four.Bytes-baseBytes-4*perRun) > 1 {
		t.Errorf("bytes on 4 workers = %.0f, want the base and 4 runs of %.0f", four.Bytes, perRun)
	}
	if four.Time != one.Time {
		t.Errorf("time on 4 workers = %s, on 1 = %s: one policy's search is not 4 times faster", four.Time, one.Time)
	}
	if noSearch := EstimateCost(sc, false, 4); noSearch.Bytes != EstimateCost(sc, false, 1).Bytes {
		t.Errorf("without a search one policy is one run at a time: %.0f bytes on 4 workers, %.0f on 1", noSearch.Bytes, EstimateCost(sc, false, 1).Bytes)
	}
}
