package storm

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// Overrides are the storm command's flags as the user gave them; Apply turns them into the
// scenario to run. The command fills the struct and the library applies it (conftest's
// runner.TestRunner), so what a flag does to a scenario is decided here, next to the model
// and the mitigations, not in cmd.
//
// Without Scenario the fields describe the quick model and every one of them is used (the
// command's flag defaults are DefaultModel's). With Scenario its load, target and policies
// are used, and a field changes them only when Changed names its flag; Outages and Errors
// add phases whenever given.
type Overrides struct {
	// Scenario is a scenario file or bundled name; empty = the quick model.
	Scenario string

	// Clients are caller instances (--clients).
	Clients int
	// Rate is the logical arrival rate across all clients, "150/s" (--rate).
	Rate string
	// Capacity is what the dependency serves, "300/s" (--capacity).
	Capacity string
	// Queue bounds the dependency's FIFO queue; 0 = unbounded (--queue).
	Queue int
	// Timeout is the bottom layer's per-attempt timeout, "1s" (--timeout).
	Timeout string
	// Attempts per layer, caller first, "4,4,4" (--attempts).
	Attempts string
	// Outages and Errors are LEN@AT windows: the server stops serving, or answers 503 at
	// once (--outage, --errors; repeatable).
	Outages, Errors []string
	// Duration is how long requests arrive, "3m" (--duration).
	Duration string
	// Seed seeds the simulation (--seed).
	Seed int64
	// Policies are FILE or preset:NAME specs compared instead of the mitigations or the
	// scenario's policies (--policy; repeatable).
	Policies []string
	// Given are policies the caller resolved itself (a check file's via: chain, --chain),
	// compared after the --policy ones; they keep their own layers.
	Given []*policy.Policy
	// Stdin is read for Scenario "-" (a scenario piped in) or a --policy "-" (the caller
	// lets one of them be "-"); nil: "-" is a name like any other.
	Stdin io.Reader

	// Changed names the flags the user set (OverrideFlags): quick-model flags override a
	// scenario's values only when set, and --timeout/--attempts override every policy only
	// when set.
	Changed map[string]bool
}

// OverrideFlags are the flags whose being set Apply asks about (Overrides.Changed).
var OverrideFlags = []string{"clients", "rate", "capacity", "queue", "timeout", "attempts", "outage", "errors", "duration", "seed"}

// overrideValues are the parsed quick-model flags.
type overrideValues struct {
	rate, capacity float64
	timeout        time.Duration
	attempts       []int
	outages, errs  []Window
	duration       time.Duration
}

// parse reads the flags' text; each error names its flag.
func (o Overrides) parse() (overrideValues, error) {
	var v overrideValues
	var err error
	if v.rate, err = scenario.ParseFlagRate(o.Rate); err != nil {
		return v, fmt.Errorf("--rate %w", err)
	}
	if v.capacity, err = scenario.ParseFlagRate(o.Capacity); err != nil {
		return v, fmt.Errorf("--capacity %w", err)
	}
	if v.timeout, err = scenario.ParseDuration(o.Timeout); err != nil {
		return v, fmt.Errorf("--timeout %w", err)
	}
	if v.attempts, err = ParseAttempts(o.Attempts); err != nil {
		return v, fmt.Errorf("--attempts %w", err)
	}
	if v.duration, err = scenario.ParseDuration(o.Duration); err != nil {
		return v, fmt.Errorf("--duration %w", err)
	}
	for _, s := range o.Outages {
		w, err := ParseWindow(s)
		if err != nil {
			return v, fmt.Errorf("--outage %w", err)
		}
		v.outages = append(v.outages, w)
	}
	for _, s := range o.Errors {
		w, err := ParseWindow(s)
		if err != nil {
			return v, fmt.Errorf("--errors %w", err)
		}
		v.errs = append(v.errs, w)
	}
	return v, nil
}

// checkLimits holds the quick model's numbers, and the flags that override a scenario's, to
// the bounds of a scenario file (scenario.MaxCount and friends): a flag must not allow what
// a file refuses. workers is the capacity's, what --capacity turns into.
func checkLimits(clients int, rate, workers float64, queue int, duration time.Duration) error {
	switch {
	case clients > scenario.MaxCount:
		return fmt.Errorf("--clients %d is above the %d a scenario allows", clients, scenario.MaxCount)
	case rate > scenario.MaxRate:
		return fmt.Errorf("--rate %s is above the %s a scenario allows", fmtRate(rate), fmtRate(scenario.MaxRate))
	case workers > scenario.MaxCount:
		return fmt.Errorf("--capacity needs %.0f workers, above the %d a scenario allows", workers, scenario.MaxCount)
	case queue > scenario.MaxQueue:
		return fmt.Errorf("--queue %d is above the %d a scenario allows", queue, scenario.MaxQueue)
	case duration > scenario.MaxDuration:
		return fmt.Errorf("--duration %s is above the %s a scenario allows", scenario.FormatDuration(duration), scenario.FormatDuration(scenario.MaxDuration))
	}
	return nil
}

// Apply builds the scenario to run: the quick model (returned too, for the report's model
// line), or the named scenario with the flags the user set applied on top (a nil model).
// Every error it returns is the caller's input being wrong — a malformed or out-of-range
// flag, an unknown preset, an unreadable scenario — and names the flag where there is one.
func (o Overrides) Apply() (*scenario.Scenario, *Model, error) {
	v, err := o.parse()
	if err != nil {
		return nil, nil, err
	}
	var given []*policy.Policy
	for _, spec := range o.Policies {
		p, err := scenario.ResolvePolicyStdin(spec, o.Stdin)
		if err != nil {
			return nil, nil, err
		}
		given = append(given, p)
	}
	for _, p := range o.Given {
		given = append(given, p.Clone())
	}
	if o.Scenario == "" {
		return o.quick(v, given)
	}
	sc, err := o.onScenario(v, given)
	return sc, nil, err
}

// overridePolicies applies --timeout and --attempts to copies of ps. In the quick model,
// which is about clients that time out, a policy without a timeout gets the model's, as it
// would with --timeout.
func (o Overrides) overridePolicies(ps []*policy.Policy, v overrideValues, quick bool) []*policy.Policy {
	out := make([]*policy.Policy, len(ps))
	for i, p := range ps {
		var timeout time.Duration
		if o.Changed["timeout"] || (quick && p.Timeout == 0) {
			timeout = v.timeout
		}
		var attempts []int
		if o.Changed["attempts"] {
			attempts = v.attempts
		}
		out[i] = Override(p, timeout, attempts)
	}
	return out
}

// quick builds the quick model from every flag: the mitigations, or the given policies.
func (o Overrides) quick(v overrideValues, given []*policy.Policy) (*scenario.Scenario, *Model, error) {
	m := DefaultModel()
	m.Clients, m.RatePerS, m.CapacityPerS, m.Queue = o.Clients, v.rate, v.capacity, o.Queue
	m.TimeoutMs = ms(v.timeout)
	m.Attempts, m.Duration, m.Seed = v.attempts, v.duration, o.Seed
	if len(v.outages)+len(v.errs) > 0 {
		m.Outages, m.Errors = v.outages, v.errs
	}
	if err := o.checkQuickArrivals(v); err != nil {
		return nil, nil, err
	}
	if err := o.checkWindowsInRun(v, v.duration, "--duration "+o.Duration); err != nil {
		return nil, nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	policies := Mitigations(m.Attempts, v.timeout)
	if len(given) > 0 {
		policies = o.overridePolicies(given, v, true)
	}
	return m.Scenario(policies), &m, nil
}

// onScenario opens the scenario and applies the flags the user set.
func (o Overrides) onScenario(v overrideValues, given []*policy.Policy) (*scenario.Scenario, error) {
	sc, err := scenario.OpenStdin(o.Scenario, scenario.ForReplay, o.Stdin)
	if err != nil {
		return nil, err
	}
	if len(given) > 0 {
		// --policy policies replace the scenario's but still sit under its callers.
		for _, p := range given {
			sc.AttachLayers(p)
		}
		sc.Policies = given
	}
	sc.Policies = o.overridePolicies(sc.Policies, v, false)
	ch := o.Changed
	if ch["clients"] {
		if o.Clients < 1 {
			return nil, errors.New("--clients must be at least 1")
		}
		sc.Load.Clients = o.Clients
	}
	if ch["rate"] {
		if v.rate <= 0 {
			return nil, errors.New("--rate must be positive")
		}
		sc.Load.Rate, sc.Load.Concurrency, sc.Load.Burst = v.rate, 0, 0
	}
	if ch["capacity"] || ch["queue"] {
		if o.Queue < 0 {
			return nil, errors.New("--queue must be 0 (unbounded) or positive")
		}
		if sc.Target.Capacity == nil {
			if !ch["capacity"] {
				return nil, fmt.Errorf("--queue needs --capacity: scenario %s has no capacity limit to queue behind", sc.Name)
			}
			sc.Target.Capacity = &scenario.Capacity{Queue: UnboundedQueue}
		}
		if ch["capacity"] {
			mean := sc.Target.Latency.Mean()
			if v.capacity <= 0 || mean <= 0 {
				return nil, errors.New("--capacity needs a positive rate and a target latency above zero")
			}
			sc.Target.Capacity.Workers = max(1, int(math.Round(v.capacity*mean.Seconds())))
		}
		if ch["queue"] {
			sc.Target.Capacity.Queue = o.Queue
			if o.Queue == 0 {
				sc.Target.Capacity.Queue = UnboundedQueue
			}
		}
	}
	sc.Target.Phases = append(sc.Target.Phases, faultPhases(v.outages, v.errs)...)
	if ch["duration"] {
		if v.duration <= 0 {
			return nil, errors.New("--duration must be positive")
		}
		sc.Duration = v.duration
	}
	if ch["seed"] {
		sc.Seed = o.Seed
	}
	if err := o.checkScenarioRun(sc, v); err != nil {
		return nil, err
	}
	return sc, nil
}

// faultPhases are the target phases of --outage windows (the server stops serving; requests
// keep queueing) and --errors windows (every request answered 503 at once), in that order.
func faultPhases(outages, errs []Window) []scenario.Phase {
	var out []scenario.Phase
	for _, w := range outages {
		out = append(out, scenario.Phase{Name: "outage", At: w.At, For: w.For, Stall: true})
	}
	for _, w := range errs {
		out = append(out, scenario.Phase{Name: "errors", At: w.At, For: w.For,
			Faults: []scenario.Fault{{Kind: scenario.FaultStatus, Status: 503, Percent: 1}}})
	}
	return out
}

// checkWindowsInRun refuses an --outage or --errors window that starts once requests have
// stopped arriving (at duration, set by durFrom): it would never be met, and the run would
// judge a fault that did not happen. The message reads LEN@AT back as LEN of fault from AT,
// so that a length and a start written the other way round show.
func (o Overrides) checkWindowsInRun(v overrideValues, duration time.Duration, durFrom string) error {
	check := func(flag string, specs []string, ws []Window, what string) error {
		for i, w := range ws {
			if w.At < duration {
				continue
			}
			return fmt.Errorf("%s %s: %s of %s from %s, but requests stop arriving at %s (%s): start it before %s (e.g. %s@%s) or lengthen --duration",
				flag, specs[i], scenario.FormatDuration(w.For), what, scenario.FormatDuration(w.At), scenario.FormatDuration(duration), durFrom,
				scenario.FormatDuration(duration), scenario.FormatDuration(w.For), scenario.FormatDuration(duration/3))
		}
		return nil
	}
	if err := check("--outage", o.Outages, v.outages, "outage"); err != nil {
		return err
	}
	return check("--errors", o.Errors, v.errs, "503 errors")
}

// durationFrom says where a scenario run's duration comes from: --duration, or the scenario.
func (o Overrides) durationFrom(sc *scenario.Scenario) string {
	if o.Changed["duration"] {
		return "--duration " + o.Duration
	}
	return "scenario " + sc.Name + "'s duration"
}

// checkScenarioRun checks the scenario as the flags left it: its arrivals, the fault windows
// within them, and the bounds of a scenario file.
func (o Overrides) checkScenarioRun(sc *scenario.Scenario, v overrideValues) error {
	if err := o.checkScenarioArrivals(sc, v); err != nil {
		return err
	}
	if err := o.checkWindowsInRun(v, sc.Duration, o.durationFrom(sc)); err != nil {
		return err
	}
	workers := 0
	if cp := sc.Target.Capacity; cp != nil {
		workers = cp.Workers
	}
	queue := 0
	if cp := sc.Target.Capacity; cp != nil && cp.Queue < UnboundedQueue {
		queue = cp.Queue
	}
	return checkLimits(sc.Load.Clients, sc.Load.Rate, float64(workers), queue, sc.Duration)
}
