package storm

import "github.com/patience-dev/patience/replay"

// Schema is the value of Result.Schema (docs/design.md §3).
const Schema = "patience/storm/v1"

// Result is the outcome of `patience storm`: the storm analysis of every policy, run on the
// same arrivals. The top-level fields describe the first policy (docs/design.md §3); Policies holds
// every policy, the first included, in replay's shape plus the storm fields.
type Result struct {
	Schema      string `json:"schema"`
	Scenario    string `json:"scenario"`
	Description string `json:"description,omitempty"`
	Seed        int64  `json:"seed"`
	// DurationMs is how long arrivals lasted.
	DurationMs float64 `json:"duration_ms"`
	// Model is the quick model's parameters when the run was built from flags.
	Model *Model `json:"model,omitempty"`
	// RatePerS is the logical arrival rate (0 for closed-model or burst scenarios).
	RatePerS float64 `json:"rate_per_s"`
	// CapacityPerS is what the dependency serves per second: workers / mean service time;
	// null when the scenario's target has no capacity limit.
	CapacityPerS *float64 `json:"capacity_per_s"`
	// Triggers are the scenario's fault phases.
	Triggers []Trigger `json:"triggers"`
	// LastFaultEndMs is when the last fault phase ends (0 without faults).
	LastFaultEndMs float64 `json:"last_fault_end_ms"`
	// Interrupted is set when the run was stopped before every policy finished.
	Interrupted bool `json:"interrupted,omitempty"`

	// Policy names the first policy, which the fields below describe.
	Policy   string `json:"policy"`
	Requests int    `json:"requests"`
	// Attempts counts attempts that reached for the target (bottom layer).
	Attempts      int           `json:"attempts"`
	Amplification Amplification `json:"amplification"`
	// WastedWork counts attempts the target served after their caller had given up.
	WastedWork int `json:"wasted_work"`
	// Verdict is the first policy's verdict (VerdictOf); each policy carries its own.
	Verdict replay.Verdict `json:"verdict"`
	// Recovery is the first policy's recovery judgement (the one rule, replay.Recovery).
	replay.Recovery
	Analysis
	// Series is the first policy's per-second view: offered load against capacity, goodput
	// and its moving average, queue length.
	Series []Point `json:"series"`

	Policies []PolicyResult `json:"policies"`
}

// Amplification compares attempts at the target per logical request with the product of the
// layers' max attempts.
type Amplification struct {
	// Theoretical is Π max_attempts; null when some layer retries without limit.
	Theoretical *float64 `json:"theoretical"`
	// Observed is bottom attempts / top logical requests.
	Observed float64 `json:"observed"`
}

// Trigger is one fault phase of the target.
type Trigger struct {
	Name string `json:"name"`
	// Kind is "stall" (the server stops serving), "errors" (status faults), "faults" (other
	// faults) or "latency" (a latency change only).
	Kind  string  `json:"kind"`
	AtMs  float64 `json:"at_ms"`
	ForMs float64 `json:"for_ms"`
}

// Analysis is what storm adds to one policy's replay result.
type Analysis struct {
	// Outcome is the policy's outcome in one or two words ("recovers in 8 s", "metastable",
	// "steady", "inconclusive"): OutcomeOf.
	Outcome string `json:"outcome"`
	// PeakOfferedPerS is the most attempts started at the target in one second.
	PeakOfferedPerS float64 `json:"peak_offered_per_s"`
	// PeakLoadRatio is PeakOfferedPerS / capacity (null without a capacity).
	PeakLoadRatio *float64 `json:"peak_load_ratio"`
	// FinalOfferedPerS and FinalLoadRatio are the mean offered load over the last 30 s of
	// arrivals, and its ratio to capacity: where the system settled after the faults.
	FinalOfferedPerS float64  `json:"final_offered_per_s"`
	FinalLoadRatio   *float64 `json:"final_load_ratio"`
	// GoodputPerS is the mean goodput (logical successes per second) over the same window.
	GoodputPerS float64 `json:"goodput_per_s"`
	// RecoveryS is the recovery rule's recovery_ms in seconds (replay.Recovery): from the end
	// of the last fault to the start of the steady window; null when not recovered. It is an
	// alias kept for one release; read recovery_ms.
	RecoveryS *float64 `json:"recovery_s"`
	// StableBelowPerS is the largest arrival rate from which the policy still recovers after
	// the same trigger, by bisection over simulated runs; null when not searched (no capacity,
	// no arrival rate, or --no-bisect).
	StableBelowPerS *float64   `json:"stable_below_per_s"`
	Bisection       *Bisection `json:"bisection,omitempty"`
	// FluidBoundPerS is the fluid model's closed-form bound (doc.go) where one exists: C/ΠN
	// for retry-on-timeout, C without retries or with a token bucket, C/(1+p) for a ratio
	// budget without reserve; null otherwise (breakers, bulkheads, unlimited attempts).
	FluidBoundPerS *float64 `json:"fluid_bound_per_s"`
	// FluidHorizonBoundPerS is the same bound shortened by the run's length: the drain plus
	// the 35 s the judge needs must fit between the end of the stall and the end of arrivals.
	// Set only for C/ΠN bounds with a single stall trigger.
	FluidHorizonBoundPerS *float64 `json:"fluid_horizon_bound_per_s"`
	// FluidBasis says which closed form FluidBoundPerS is.
	FluidBasis string `json:"fluid_basis,omitempty"`
	// FluidOmitted says why no fluid bound is given although one might be expected (the
	// trigger is not a stall, which the derivation assumes).
	FluidOmitted string `json:"fluid_omitted,omitempty"`
	// FluidNote explains a stable_below_per_s that disagrees with the fluid bound.
	FluidNote string `json:"fluid_note,omitempty"`
}

// PolicyResult is one policy: replay's result (the same JSON fields, the recovery rule's
// judgement included) plus the storm analysis. The two share no field name: the recovery
// judgement is replay's (one rule, replay.Recovery), storm adds only what replay does not say.
type PolicyResult struct {
	replay.PolicyResult
	Analysis
}

// NewPolicyResult pairs a replay result with its storm analysis.
func NewPolicyResult(pr replay.PolicyResult, a Analysis) PolicyResult {
	return PolicyResult{PolicyResult: pr, Analysis: a}
}

// Point is one second of the storm series.
type Point struct {
	T        int `json:"t"`
	Arrivals int `json:"arrivals"`
	// OfferedPerS is attempts started at the target in this second.
	OfferedPerS int `json:"offered_per_s"`
	// GoodputPerS is logical requests that succeeded in this second; GoodputAvgPerS its
	// trailing 5 s moving average (what the recovery rule reads).
	GoodputPerS    int     `json:"goodput_per_s"`
	GoodputAvgPerS float64 `json:"goodput_avg_per_s"`
	Failed         int     `json:"failed"`
	QueueLength    int     `json:"queue_length"`
}

// Failing names the policies the run judged bad (✗: replay.PolicyResult.JudgedBad), in the
// run's order: storm's gate, as replay's (replay.Result.Failing).
func (r *Result) Failing() []string {
	var names []string
	for _, p := range r.Policies {
		if p.JudgedBad() {
			names = append(names, p.Name)
		}
	}
	return names
}
