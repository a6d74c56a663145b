// Package scenario is the scenario file: its schema (this file), strict loading with
// file:line:col errors, defaults, presets, distributions and the target model. See docs/design.md §4.
package scenario

import (
	"time"

	"github.com/patience-dev/patience/policy"
)

// Scenario is a loaded, validated and defaulted scenario.
type Scenario struct {
	Name        string
	Description string
	Seed        int64
	// Duration is how long arrivals continue.
	Duration time.Duration
	// Drain is how long the run goes on after Duration before what is still in flight counts
	// as failed with reason "stuck" (default 10m).
	Drain  time.Duration
	Load   Load
	Target Target
	// Policies are compared side by side on the same arrivals: `policy` first, then `policies`.
	Policies []*policy.Policy
	// Layers are the scenario-level `layers:` (the callers above the compared policy, caller
	// first). The loader already put them into every policy without its own `layers:`; a
	// policy from elsewhere (`--policy`) gets them through AttachLayers.
	Layers []policy.Layer
	// Expect holds per-policy expectations checked by `patience check` (PT100), keyed by
	// policy name; "*" applies to every policy.
	Expect map[string]Expect
	// Lesson names the policy the scenario recommends and why (nil = none): replay prints it
	// under the verdicts and says when the recommended policy is not the best judged.
	Lesson *Lesson
	// File is the path the scenario was loaded from ("scenarios/NAME.yaml" when bundled).
	File string
}

// Load describes the callers.
type Load struct {
	// Clients are caller instances; each has its own worker pool, breaker and budget.
	Clients int
	// Workers is how many concurrent logical requests one client can hold (0 = unbounded).
	Workers int
	// Rate is the open-model arrival rate of logical requests across all clients, per second
	// (Poisson arrivals). 0 when the closed model or a burst is used.
	Rate float64
	// Concurrency is the closed-model worker count across all clients; each loops
	// request → Think → request.
	Concurrency int
	Think       time.Duration
	// Burst releases N logical requests together at t=0 (a thundering herd).
	Burst int
	// Budget is how long a caller can wait for one logical request before the answer is
	// useless (the page's or the job's budget); 0 = not stated. A policy whose p99 latency
	// exceeds it parks callers beyond their budget, which the replay verdict calls bad.
	Budget  time.Duration
	Request Request
}

// Lesson is what a bundled scenario teaches: the policy it recommends and why.
type Lesson struct {
	Recommends string
	Why        string
}

// Request is what each logical request sends: a scenario's `request:`, and a check file
// dependency's (check.Dependency.Request, which has no path). policy.Request is not this
// type: it is what one policy sends, after the policy's idempotency_key override.
type Request struct {
	Method string // default GET
	Path   string // default /
	// IdempotencyKey sends an Idempotency-Key with every logical request (the same key on retries).
	IdempotencyKey bool
}

// Idempotent says whether the method is idempotent by RFC 9110 §9.2.2 (policy.IdempotentMethod).
func (r Request) Idempotent() bool { return policy.IdempotentMethod(r.Method) }

// Target is the dependency's behaviour.
type Target struct {
	Latency Distribution
	Connect Distribution
	// Capacity is an optional FIFO server; nil = unbounded.
	Capacity *Capacity
	// Conflicts is "none" or "single-row" (optimistic concurrency on one row).
	Conflicts string
	// Phases change the target in time windows; outside them the base latency applies and no
	// fault is injected.
	Phases []Phase
	// Stream makes every answered request a stream (nil = a plain response after Latency).
	// serve sends it and the simulator models it (stream.go; docs/design.md §6).
	Stream *Stream
}

// Capacity is a server with Workers concurrent slots and a FIFO queue of Queue; overflow
// answers 503 at once.
type Capacity struct {
	Workers int
	Queue   int
}

// Phase is a time window that changes the target.
type Phase struct {
	Name string
	At   time.Duration
	For  time.Duration
	// Latency replaces the target latency during the phase (nil = unchanged).
	Latency *Distribution
	Faults  []Fault
	// Stall stops the server from serving during the phase while requests keep arriving and
	// queueing (a GC pause, a lost primary): work in progress and queued work resume when the
	// phase ends. YAML `stall: true`; storm's `--outage 10s@60s`.
	Stall bool
	// FirstEvent and Gap replace a stream target's first-event and gap distributions
	// during the phase (nil = unchanged): a slow first token under load.
	FirstEvent, Gap *Distribution
}

// End is when the phase stops.
func (p Phase) End() time.Duration { return p.At + p.For }

// FaultKind names what a fault does to a request.
type FaultKind string

// Fault kinds.
const (
	FaultStatus FaultKind = "status" // answer with Status (and Retry-After when set)
	FaultHang   FaultKind = "hang"   // never answer
	FaultReset  FaultKind = "reset"  // reset the connection after the request was sent
	FaultRefuse FaultKind = "refuse" // refuse the connection (the request never left)
	// FaultDrip sends the response head at once and the body a few bytes at a time, Drip
	// apart: a read timeout above the pace never ends it, a total does (docs/design.md §6).
	FaultDrip FaultKind = "drip"
)

// Fault is injected into a share of requests during a phase. Faults of one phase are tried
// in order against one uniform draw, so their percentages add up (at most 100%).
type Fault struct {
	Kind    FaultKind
	Status  int
	Percent float64 // 0–1
	// RetryAfter is sent with status faults (nil = no header).
	RetryAfter *RetryAfter
	// Drip is the pace of a drip fault's body (nil for every other kind).
	Drip *Drip
}

// Drip is the pace of a drip fault: a body of Size bytes sent Bytes at a time, with Every
// (scenario time) before each piece, so the whole body takes Pieces()·Every after the head.
type Drip struct {
	Every time.Duration
	Bytes int
	Size  int
}

// Pieces is how many writes the body takes: Size/Bytes, rounded up.
func (d Drip) Pieces() int { return (d.Size + d.Bytes - 1) / d.Bytes }

// RetryAfter is a Retry-After header to send: delay-seconds, or an HTTP-date Delay from now.
type RetryAfter struct {
	Delay time.Duration
	// Date selects the HTTP-date form (RFC 9110 §10.2.3) instead of delay-seconds.
	Date bool
}

// DistKind names a latency distribution.
type DistKind string

// Distribution kinds.
const (
	DistFixed       DistKind = "fixed"
	DistUniform     DistKind = "uniform"
	DistExponential DistKind = "exponential" // Min + Exp(Mean)
	DistLognormal   DistKind = "lognormal"   // through P50 and P99
	DistProfile     DistKind = "profile"     // inverse CDF of a measured probe histogram
)

// Distribution is a latency distribution. Use Sample to draw from it.
type Distribution struct {
	Kind    DistKind
	Fixed   time.Duration
	Min     time.Duration // uniform lower bound; exponential offset
	Max     time.Duration // uniform upper bound
	ExpMean time.Duration // exponential: the mean above Min (YAML `mean`)
	P50     time.Duration // lognormal median
	P99     time.Duration // lognormal 99th percentile
	// Profile is the probe JSON path the profile was loaded from.
	Profile string
	// quantiles is the loaded profile as an inverse CDF (set by the loader).
	quantiles []time.Duration
	// lnMu and lnSigma cache a lognormal's parameters (set by the loader when lnSet), so
	// Sample, on the simulator's hot path, takes no logarithm.
	lnMu, lnSigma float64
	lnSet         bool
}

// Expect is a set of expectations on one policy's replay result, each a comparison string
// such as ">= 99%", "<= 2" or "0".
type Expect struct {
	SuccessRate      string
	Amplification    string
	Duplicates       string
	WorkerSaturation string
	Pos              map[string]policy.Pos
}

// LastPhaseEnd is when the target's last phase ends (0 without phases): the end of the
// incident, which recovery is measured from. Every phase counts, a latency change included —
// it is a trigger like any other.
func (t *Target) LastPhaseEnd() time.Duration {
	var end time.Duration
	for _, ph := range t.Phases {
		end = max(end, ph.End())
	}
	return end
}
