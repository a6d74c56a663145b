package live

import "github.com/patience-dev/patience/replay"

// AgreementSchema is the value of Agreement.Schema.
const AgreementSchema = "patience/agreement/v1"

// FaithfulLatenessMs is the scenario-time timer lateness (p99) above which a live run stops
// being a check of the model: a quarter of a second is 5% of the bundled scenarios' shortest
// timeouts.
const FaithfulLatenessMs = 250

// Agreement pairs a simulated replay with a live replay of the same scenario, so the reader
// can see whether the model and real sockets tell the same story. Policies are matched by
// name; the renderers only place the two results' figures side by side. It is built by
// NewAgreement, which also judges whether the live run kept time well enough to compare.
type Agreement struct {
	Schema    string         `json:"schema"` // AgreementSchema
	Simulated *replay.Result `json:"simulated"`
	Live      *replay.Result `json:"live"`
	// Speed is the live replay's time compression.
	Speed float64 `json:"speed"`
	// TimerLatenessP99Ms is how late the live run's timers fired (real time, p99); times
	// Speed, it is how much scenario time a late timer cost.
	TimerLatenessP99Ms float64 `json:"timer_lateness_p99_ms"`
	// ScenarioLatenessP99Ms is TimerLatenessP99Ms × Speed: the scenario time a late timer
	// cost (p99).
	ScenarioLatenessP99Ms float64 `json:"scenario_lateness_p99_ms"`
	// Faithful says the live run kept time: ScenarioLatenessP99Ms is at most
	// FaithfulLatenessMs. When it is false the machine was too busy for a faithful live run,
	// and where the two results differ the simulation is the reference.
	Faithful bool `json:"faithful"`
}

// NewAgreement sets a live replay beside the simulated one of the same scenario, run at
// speed with its timers timerLatenessP99Ms late (real time, p99: Fidelity.LatenessP99), and
// judges the live run's fidelity once, for every renderer.
func NewAgreement(simulated, liveRun *replay.Result, speed, timerLatenessP99Ms float64) *Agreement {
	scenarioLateness := timerLatenessP99Ms * speed
	return &Agreement{
		Schema:                AgreementSchema,
		Simulated:             simulated,
		Live:                  liveRun,
		Speed:                 speed,
		TimerLatenessP99Ms:    timerLatenessP99Ms,
		ScenarioLatenessP99Ms: scenarioLateness,
		Faithful:              !(scenarioLateness > FaithfulLatenessMs),
	}
}
