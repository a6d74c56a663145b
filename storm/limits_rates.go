package storm

import (
	"fmt"
	"strconv"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/scenario"
)

// checkQuickArrivals holds the quick model's --rate and --capacity to a scenario file's rule
// (scenario.SparseRate): at least one request on average in --duration. It runs before the
// model is built, so a value that slow never reaches the simulator, where a gap or a service
// time of 1/rate seconds can pass time.Duration's range (issue 24: --rate 1e-12/s and
// --capacity 1e-12/s panicked, exit 70). The error names the flag the user set: --duration
// when the rate is the default and the run too short.
func (o Overrides) checkQuickArrivals(v overrideValues) error {
	if why := scenario.SparseRate(v.rate, v.duration); why != "" {
		if o.Changed["duration"] && !o.Changed["rate"] {
			return fmt.Errorf("--duration %q: --rate %s %s", o.Duration, o.Rate, why)
		}
		return fmt.Errorf("--rate %q: %s", o.Rate, why)
	}
	if why := scenario.SparseCapacity(v.capacity, v.duration); why != "" {
		return fmt.Errorf("--capacity %q: %s", o.Capacity, why)
	}
	return nil
}

// checkScenarioArrivals is checkQuickArrivals on a scenario with the flags applied: its rate
// (or --rate) over its duration (or --duration), and --capacity when given. A --capacity
// becomes whole workers at the scenario's mean latency (onScenario); one below half a worker
// rounded to none and then silently to one, a capacity several times what was asked, so it
// is refused with the smallest capacity the scenario can model.
func (o Overrides) checkScenarioArrivals(sc *scenario.Scenario, v overrideValues) error {
	if why := scenario.SparseRate(sc.Load.Rate, sc.Duration); why != "" {
		if o.Changed["rate"] {
			return fmt.Errorf("--rate %q: %s", o.Rate, why)
		}
		return fmt.Errorf("--duration %q: rate %s %s", o.Duration, fmtRate(sc.Load.Rate), why)
	}
	if !o.Changed["capacity"] {
		return nil
	}
	if why := scenario.SparseCapacity(v.capacity, sc.Duration); why != "" {
		return fmt.Errorf("--capacity %q: %s", o.Capacity, why)
	}
	mean := sc.Target.Latency.Mean()
	if half := 0.5 / mean.Seconds(); mean > 0 && v.capacity < half {
		return fmt.Errorf("--capacity %q: below the %s of half a worker (one worker serves %s at the scenario's mean latency of %s, and capacity is whole workers); want at least %s",
			o.Capacity, fmtRate(roundG(half)), fmtRate(roundG(2*half)), units.Duration(mean), fmtRate(roundG(half)))
	}
	return nil
}

// roundG keeps three significant digits, as the errors show rates.
func roundG(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return r
}
