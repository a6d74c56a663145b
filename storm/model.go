package storm

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// Window is a time window given as "FOR@AT" on the command line: `--outage 10s@60s` is a
// 10 s window starting at t=60 s.
type Window struct {
	At  time.Duration
	For time.Duration
}

// End is when the window closes.
func (w Window) End() time.Duration { return w.At + w.For }

func (w Window) String() string {
	return fmt.Sprintf("%s@%s", scenario.FormatDuration(w.For), scenario.FormatDuration(w.At))
}

// ParseWindow parses "FOR@AT" ("10s@60s"): both are durations in the syntax of
// scenario.ParseDuration, FOR must be positive.
func ParseWindow(s string) (Window, error) {
	forS, atS, ok := strings.Cut(strings.TrimSpace(s), "@")
	if !ok {
		return Window{}, fmt.Errorf("%q: not a window (write LENGTH@START, e.g. 10s@60s)", s)
	}
	d, err := scenario.ParseDuration(forS)
	if err != nil {
		return Window{}, fmt.Errorf("%q: length: %w", s, err)
	}
	if d <= 0 {
		return Window{}, fmt.Errorf("%q: length must be positive", s)
	}
	at, err := scenario.ParseDuration(atS)
	if err != nil {
		return Window{}, fmt.Errorf("%q: start: %w", s, err)
	}
	if at > maxModelTime || d > maxModelTime {
		return Window{}, fmt.Errorf("%q: longer than %s", s, maxModelTime)
	}
	return Window{At: at, For: d}, nil
}

// maxAttemptsPerLayer and maxLayers bound --attempts: a storm of 10^12 attempts per request
// is not a model anyone can read, and the bounds keep the product inside an int.
const (
	maxAttemptsPerLayer = 100
	maxLayers           = 8
	maxModelTime        = 24 * time.Hour
)

// ParseAttempts parses per-layer attempts, caller first: "4,4,4" is three layers of four
// attempts each (first try included). Every value is an integer in 1..100, at most 8 layers.
func ParseAttempts(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty attempts (write e.g. 4 or 4,4,4: attempts per layer, caller first)")
	}
	parts := strings.Split(s, ",")
	if len(parts) > maxLayers {
		return nil, fmt.Errorf("%q: at most %d layers", s, maxLayers)
	}
	out := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			if strings.TrimSpace(p) == strings.TrimSpace(s) {
				return nil, fmt.Errorf("%q: not a whole number of attempts (write e.g. 4,4,4)", s)
			}
			return nil, fmt.Errorf("%q: %q is not a whole number of attempts (write e.g. 4,4,4)", s, strings.TrimSpace(p))
		}
		if n < 1 || n > maxAttemptsPerLayer {
			return nil, fmt.Errorf("%q: attempts per layer must be between 1 and %d (the first try counts)", s, maxAttemptsPerLayer)
		}
		out = append(out, n)
	}
	return out, nil
}

// Model is the quick model built from `patience storm` flags: many clients calling one
// finite-capacity dependency through one or more retrying layers.
type Model struct {
	// Clients are caller instances; each has its own retry budget and breaker.
	Clients int `json:"clients"`
	// RatePerS is the logical arrival rate across all clients (Poisson).
	RatePerS float64 `json:"rate_per_s"`
	// CapacityPerS is what the dependency serves per second: Workers / ServiceMs.
	CapacityPerS float64 `json:"capacity_per_s"`
	// Workers and ServiceMs realise the capacity: see ServerFor.
	Workers   int     `json:"workers"`
	ServiceMs float64 `json:"service_ms"`
	// Queue bounds the FIFO queue; 0 = unbounded.
	Queue int `json:"queue"`
	// TimeoutMs is the bottom layer's per-attempt timeout.
	TimeoutMs float64 `json:"timeout_ms"`
	// Attempts per layer, caller first.
	Attempts []int `json:"attempts"`
	// Outages stop the server (requests keep queueing); Errors answer 503 at once.
	Outages  []Window      `json:"-"`
	Errors   []Window      `json:"-"`
	Duration time.Duration `json:"-"`
	Seed     int64         `json:"-"`
}

// Quick-model defaults: 100 clients send 150 logical requests/s to a dependency that serves
// 300/s, timing out at 1 s and trying 4 times; a 10 s stall at t=30 s. 150 × 4 = 600/s is
// twice the capacity once every attempt times out, while 150/s alone is half of it: the
// textbook metastable band (C/N < λ < C). 180 s leaves 140 s after the stall to show that
// the system never comes back, and a run takes well under a second of CPU.
const (
	DefaultClients  = 100
	DefaultRate     = 150.0
	DefaultCapacity = 300.0
	DefaultTimeout  = time.Second
	DefaultDuration = 180 * time.Second
	DefaultSeed     = 1
)

// DefaultAttempts is the quick model's attempts per layer (one layer).
var DefaultAttempts = []int{4}

// DefaultOutage is the quick model's trigger when neither --outage nor --errors is given.
var DefaultOutage = Window{At: 30 * time.Second, For: 10 * time.Second}

// DefaultModel returns the quick model with every default.
func DefaultModel() Model {
	return Model{
		Clients:      DefaultClients,
		RatePerS:     DefaultRate,
		CapacityPerS: DefaultCapacity,
		TimeoutMs:    ms(DefaultTimeout),
		Attempts:     append([]int(nil), DefaultAttempts...),
		Outages:      []Window{DefaultOutage},
		Duration:     DefaultDuration,
		Seed:         DefaultSeed,
	}
}

// serviceTarget is the service time the quick model aims for: short against any sensible
// timeout, so an idle server answers at once and only queueing can cause timeouts.
const serviceTarget = 100 * time.Millisecond

// ServerFor realises a capacity of c requests/s as workers × fixed service time: workers =
// max(1, round(c × 100 ms)) and service = workers / c, so workers/service is c exactly (to the
// nanosecond). A fixed service time keeps the queueing delay a plain Q / c, which is what the
// fluid derivation (doc.go) assumes.
func ServerFor(c float64) (workers int, service time.Duration) {
	workers = int(math.Max(1, math.Round(c*serviceTarget.Seconds())))
	service = time.Duration(float64(workers) / c * float64(time.Second))
	return workers, service
}

// Validate checks the model's numbers; the error names the flag.
func (m *Model) Validate() error {
	switch {
	case m.Clients < 1:
		return errors.New("--clients must be at least 1")
	case m.RatePerS <= 0:
		return errors.New("--rate must be positive")
	case m.CapacityPerS <= 0:
		return errors.New("--capacity must be positive")
	case m.Queue < 0:
		return errors.New("--queue must be 0 (unbounded) or positive")
	case m.TimeoutMs <= 0:
		return errors.New("--timeout must be positive: storm studies clients that time out and retry")
	case len(m.Attempts) == 0:
		return errors.New("--attempts is empty")
	case m.Duration <= 0 || m.Duration > maxModelTime:
		return fmt.Errorf("--duration must be positive and at most %s", maxModelTime)
	}
	if err := checkLimits(m.Clients, m.RatePerS, m.CapacityPerS*serviceTarget.Seconds(), m.Queue, m.Duration); err != nil {
		return err
	}
	_, service := ServerFor(m.CapacityPerS)
	if float64(service) >= m.TimeoutMs*float64(time.Millisecond) {
		return fmt.Errorf("--timeout %s is shorter than one service time (%s at --capacity %g/s): every attempt would time out on an idle server",
			scenario.FormatDuration(time.Duration(m.TimeoutMs*float64(time.Millisecond))), units.Duration(service), m.CapacityPerS)
	}
	return nil
}

// Scenario builds the scenario the simulator runs for this model, with policies as given.
func (m *Model) Scenario(policies []*policy.Policy) *scenario.Scenario {
	workers, service := ServerFor(m.CapacityPerS)
	m.Workers, m.ServiceMs = workers, ms(service)
	queue := m.Queue
	if queue == 0 {
		queue = UnboundedQueue
	}
	sc := &scenario.Scenario{
		Name: "storm",
		Description: fmt.Sprintf("%s clients send logical requests at %s to a dependency that serves %s (%d workers × %s), timeout %s, attempts %s",
			units.Count(m.Clients), units.Rate(m.RatePerS), units.Rate(m.CapacityPerS), workers, units.Duration(service),
			units.Millis(m.TimeoutMs), joinInts(m.Attempts, ",")),
		Seed:     m.Seed,
		Duration: m.Duration,
		Drain:    10 * time.Minute,
		Load: scenario.Load{
			Clients: m.Clients,
			Rate:    m.RatePerS,
			Request: scenario.Request{Method: "GET", Path: "/"},
		},
		Target: scenario.Target{
			Latency:   scenario.Distribution{Kind: scenario.DistFixed, Fixed: service},
			Connect:   scenario.Distribution{Kind: scenario.DistFixed},
			Capacity:  &scenario.Capacity{Workers: workers, Queue: queue},
			Conflicts: "none",
		},
		Policies: policies,
	}
	sc.Target.Phases = faultPhases(m.Outages, m.Errors)
	return sc
}

// UnboundedQueue stands for "no bound" in scenario.Capacity.Queue, where 0 means no queue at
// all: about two billion waiting attempts is more than any run can hold.
const UnboundedQueue = math.MaxInt32

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func joinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'g', 4, 64) + "/s" }
