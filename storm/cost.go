package storm

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// Cost is what a storm run is expected to take, estimated from the scenario before it runs
// (EstimateCost): an upper bound in the collapsed regime, where every attempt is made.
type Cost struct {
	// Attempts are the simulated attempts over every run (bisection runs included).
	Attempts float64
	// Bytes is the peak memory of the process.
	Bytes float64
	// Time is the expected wall time.
	Time time.Duration
}

// Budget is the largest Cost a run may have: a run estimated above it is refused before it
// starts, with the estimate and the --max-cost that would allow it. Zero fields are no limit.
type Budget struct {
	Bytes float64
	Time  time.Duration
}

// DefaultBudget is --max-cost's default: 2 GiB and 10 minutes, the most a run on a laptop or
// a CI runner should take without being asked for.
var DefaultBudget = Budget{Bytes: 2 << 30, Time: 10 * time.Minute}

// Cost-model constants, measured with bench/storm.sh (bench/sim.md): a core simulates about
// 2 million attempts per second (1.5 M is the figure on a shared machine, and the estimate
// should not be optimistic); a logical request in flight holds its request, call and
// attempt objects and two events (~450 B); a client holds its jitter source and, per layer
// with a budget, breaker or bulkhead, their state (~200 B); an orphan in the queue of a
// target whose service time is not fixed is one 24 B entry; the runtime, the binary and the
// report take about 20 MB.
const (
	attemptsPerCoreSecond = 1.5e6
	bytesPerInFlight      = 450
	bytesPerClient        = 24
	bytesPerClientLayer   = 200
	bytesPerQueued        = 24
	baseBytes             = 20 << 20
	// bisectionRuns is what a stable_below_per_s search costs per policy, at most: six
	// halvings of [2%, 100%] of capacity take 8–12 runs (BenchmarkStableBelowDefault).
	bisectionRuns = 12
)

// EstimateCost estimates the cost of storm-running sc: one run per policy, plus its bisection
// (at rates up to the capacity) when bisect is set, on parallel workers. Memory counts a run
// on every worker (with searches, probes of one policy may run side by side, parallel.go);
// time counts a speedup of no more than the policies (a search's probes mostly wait for each
// other), so neither is optimistic.
func EstimateCost(sc *scenario.Scenario, bisect bool, parallel int) Cost {
	atOnce := max(1, parallel)
	if !bisect {
		atOnce = max(1, min(parallel, len(sc.Policies)))
	}
	parallel = max(1, min(parallel, len(sc.Policies)))
	horizon := sc.Duration + sc.Drain
	if sc.Drain <= 0 {
		horizon = sc.Duration + 10*time.Minute
	}
	capacity, hasCapacity := CapacityOf(sc)
	var total, peakRun float64
	for _, p := range sc.Policies {
		amp := amplification(p, horizon)
		runs := []float64{logicalRequests(sc, sc.Load.Rate) * amp}
		if bisect && hasCapacity && sc.Load.Rate > 0 {
			for range bisectionRuns {
				runs = append(runs, logicalRequests(sc, math.Min(capacity, sc.Load.Rate))*amp)
			}
		}
		for _, r := range runs {
			total += r
		}
		peakRun = math.Max(peakRun, runBytes(sc, p, amp))
	}
	return Cost{
		Attempts: total,
		Bytes:    baseBytes + float64(atOnce)*peakRun,
		Time:     time.Duration(total / attemptsPerCoreSecond / float64(parallel) * float64(time.Second)),
	}
}

// logicalRequests is how many logical requests arrive in sc at rate (the scenario's for an
// open model).
func logicalRequests(sc *scenario.Scenario, rate float64) float64 {
	ld := sc.Load
	n := float64(ld.Burst)
	switch {
	case ld.Concurrency > 0:
		// Each loop issues a request, waits for it and thinks; at least a millisecond each.
		cycle := ld.Think + sc.Target.Latency.Mean()
		n += float64(ld.Concurrency) * sc.Duration.Seconds() / math.Max(cycle.Seconds(), 1e-3)
	case rate > 0:
		n += rate * sc.Duration.Seconds()
	}
	return n
}

// amplification is the attempts per logical request when every attempt fails: Π attempts,
// or for an unlimited policy as many timeouts (or 100 ms waits) as fit in the run.
func amplification(p *policy.Policy, horizon time.Duration) float64 {
	a := p.TheoreticalAmplification()
	if math.IsInf(a, 0) {
		step := max(p.Timeout, p.Retry.Base, 100*time.Millisecond)
		a = math.Max(1, horizon.Seconds()/step.Seconds())
	}
	return a
}

// runBytes is the peak memory of one policy's run beyond the runtime's: its clients, the
// requests in flight (what arrives over the longest a request can live, bounded by the
// clients' workers) and, when the service time is not fixed, the orphans of the queue.
func runBytes(sc *scenario.Scenario, p *policy.Policy, amp float64) float64 {
	ld := sc.Load
	clients := float64(max(ld.Clients, 1))
	layers := 0.0
	eachLayer(p, func(l *policy.Policy) {
		if l.Budget != nil || l.Breaker != nil || l.Bulkhead != nil {
			layers++
		}
	})
	b := clients * (bytesPerClient + layers*bytesPerClientLayer)
	// A request lives through its attempts and their waits; without a timeout, as long as
	// the run.
	life := sc.Duration + sc.Drain
	if p.Timeout > 0 {
		life = time.Duration(amp) * (p.Timeout + p.Retry.Cap)
	}
	rate := ld.Rate
	if ld.Concurrency > 0 {
		rate = 0
	}
	inFlight := rate*math.Min(life.Seconds(), sc.Duration.Seconds()) + float64(ld.Burst+ld.Concurrency)
	if ld.Workers > 0 {
		inFlight = math.Min(inFlight, clients*float64(ld.Workers))
	}
	b += inFlight * bytesPerInFlight
	if cp := sc.Target.Capacity; cp != nil && !fixedService(sc) {
		queued := logicalRequests(sc, ld.Rate) * amp
		if cp.Queue < UnboundedQueue {
			queued = math.Min(queued, float64(cp.Queue))
		}
		b += queued * bytesPerQueued
	}
	return b
}

// fixedService says every service time of the target is fixed: orphans then merge into runs
// of one queue entry each (sim's fifo), and a long queue costs nothing.
func fixedService(sc *scenario.Scenario) bool {
	if sc.Target.Latency.Kind != scenario.DistFixed {
		return false
	}
	for i := range sc.Target.Phases {
		if d := sc.PhaseLatency(i); d.Kind != scenario.DistFixed {
			return false
		}
	}
	return true
}

// Check returns nil when c fits within b, else an error with the estimate and the
// --max-cost that would allow it.
func (b Budget) Check(c Cost) error {
	overTime := b.Time > 0 && c.Time > b.Time
	overBytes := b.Bytes > 0 && c.Bytes > b.Bytes
	if !overTime && !overBytes {
		return nil
	}
	need := Budget{Time: b.Time, Bytes: b.Bytes}
	if overTime {
		need.Time = roundUp(c.Time)
	}
	if overBytes {
		need.Bytes = math.Ceil(c.Bytes/(1<<30)) * (1 << 30)
	}
	return fmt.Errorf("this run would simulate about %s attempts, taking about %s and %s: above the budget of %s "+
		"(raise it with --max-cost %s, or --max-cost none)", fmtCount(c.Attempts), units.Duration(roundUp(c.Time)), sizeProse(c.Bytes), b, need)
}

func (b Budget) String() string {
	var parts []string
	if b.Time > 0 {
		parts = append(parts, scenario.FormatDuration(b.Time))
	}
	if b.Bytes > 0 {
		parts = append(parts, fmtBytes(b.Bytes))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

// ParseBudget parses --max-cost: "none", or a duration, a size (MiB, GiB, TiB), or both
// separated by a comma ("30m,8GiB"); a part not given keeps DefaultBudget's.
func ParseBudget(s string) (Budget, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		if s == "" {
			return DefaultBudget, nil
		}
		return Budget{}, nil
	}
	b := DefaultBudget
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if n, ok := parseBytes(part); ok {
			b.Bytes = n
			continue
		}
		d, err := scenario.ParseDuration(part)
		if err != nil || d <= 0 {
			return Budget{}, fmt.Errorf("%q: want a time (30m), a size (8GiB), both (30m,8GiB) or none", s)
		}
		b.Time = d
	}
	return b, nil
}

func parseBytes(s string) (float64, bool) {
	for _, u := range []struct {
		suffix string
		n      float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || v <= 0 || math.IsInf(v, 0) {
				return 0, false
			}
			return v * u.n, true
		}
	}
	return 0, false
}

func roundUp(d time.Duration) time.Duration {
	switch {
	case d < time.Minute:
		return max(time.Second, d.Round(time.Second)+time.Second)
	case d < time.Hour:
		return d.Truncate(time.Minute) + time.Minute
	}
	return d.Truncate(time.Hour) + time.Hour
}

func fmtCount(x float64) string {
	switch {
	case x >= 1e9:
		return strconv.FormatFloat(x/1e9, 'g', 3, 64) + " billion"
	case x >= 1e6:
		return strconv.FormatFloat(x/1e6, 'g', 3, 64) + " million"
	}
	return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
}

// sizeProse writes a size as prose ("304 MiB", "2.5 GiB"); fmtBytes writes the --max-cost
// literal ("304MiB").
func sizeProse(b float64) string {
	f := fmtBytes(b)
	return f[:len(f)-3] + " " + f[len(f)-3:]
}

func fmtBytes(b float64) string {
	if b >= 1<<30 {
		return strconv.FormatFloat(b/(1<<30), 'g', 3, 64) + "GiB"
	}
	return strconv.FormatFloat(math.Ceil(b/(1<<20)), 'f', 0, 64) + "MiB"
}
