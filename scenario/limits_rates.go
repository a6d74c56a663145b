package scenario

import (
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// MinArrivals is the fewest requests a rate must bring on average in the time arrivals last
// (rate × duration). Below one, a Poisson run most likely has no request at all, and a
// report of no requests ("0 failed", "recovers") answers nothing the user asked: the rate
// is almost surely a unit slip (1/h for 1/s) or a duration too short. So a run that slow is
// refused with the reason rather than run empty. A rate this rule allows also keeps every
// gap between arrivals inside time.Duration: at the slowest rate over the longest duration
// (1/24h) the largest exponential draw (about 45 mean gaps) is about 45 days.
const MinArrivals = 1

// SparseRate says why rate (requests per second) brings fewer than MinArrivals requests
// on average in d, the time arrivals last, or "" when it brings enough. A zero rate or
// duration is not this rule's business (each is refused on its own) and gives "".
func SparseRate(rate float64, d time.Duration) string { return sparse("brings", "rate", rate, d) }

// SparseCapacity is SparseRate for what a dependency serves (storm's --capacity): a capacity
// below one request in the run has no service to study, and its service time (a run's
// length or more) is beyond every timeout.
func SparseCapacity(rate float64, d time.Duration) string {
	return sparse("serves", "capacity", rate, d)
}

func sparse(verb, noun string, rate float64, d time.Duration) string {
	if !(rate > 0) || d <= 0 {
		return ""
	}
	expected := rate * d.Seconds()
	if expected >= MinArrivals {
		return ""
	}
	return verb + " " + trimG(expected) + " requests on average in " + FormatDuration(d) +
		"; want at least 1: a " + noun + " of at least " + trimG(MinArrivals/d.Seconds()) + "/s, or a longer duration"
}

// trimG writes v with three significant digits: 6e-11, 0.0167, 0.99.
func trimG(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// sparseRate refuses, at load.rate, a rate that brings fewer than MinArrivals requests in the
// scenario's duration (SparseRate). It runs once both are decoded; a file without a duration
// (serve needs none) is not judged.
func (d *decoder) sparseRate(f map[string]Entry, sc *Scenario) error {
	why := SparseRate(sc.Load.Rate, sc.Duration)
	if why == "" {
		return nil
	}
	n := f["load"].Val
	if rate := mappingValue(n, "rate"); rate != nil {
		n = rate
	}
	return d.Errf(n, "load.rate", "%s %s", n.Value, why)
}

// mappingValue is the value of key in mapping n (aliases resolved), or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	n = ResolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return ResolveAlias(n.Content[i+1])
		}
	}
	return nil
}
