// Package demo is the result of `patience demo`, the tour: a probe of a loopback target, a
// simulated replay and a live replay beside it, in one document. cmd runs the stages (each
// one the same engine as its own command) and fills it; report renders it. It is a package
// of its own because the document holds the results of probe, replay and live: probe and
// replay sit below live and may not import it (docs/contributing.md "Layout"), and live, which could hold
// it, replays scenarios; the tour is none of its business.
package demo

import (
	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/replay"
)

// Schema is the value of Result.Schema.
const Schema = "patience/demo/v1"

// Result is the tour's three stages in one document, so `-o json` is one JSON value and
// `-o markdown` one comment.
type Result struct {
	Schema string `json:"schema"`
	// Target is the loopback server the probe measured.
	Target Target `json:"target"`
	// RatePerS and DurationMs are the probe's rate and length; Speed is the live stage's
	// time compression.
	RatePerS   float64 `json:"rate_per_s"`
	DurationMs float64 `json:"duration_ms"`
	Speed      float64 `json:"speed"`
	// SpeedReason says how Speed was chosen: given with --speed, or picked from the timer
	// lateness measured in a trial of the live stage (live.Trial, live.ChooseSpeed). Empty in
	// older documents.
	SpeedReason string `json:"speed_reason,omitempty"`
	// CalibrationLatenessP99Ms is that measure (real time, p99); 0 when --speed was given.
	CalibrationLatenessP99Ms float64 `json:"calibration_lateness_p99_ms,omitempty"`
	// Probe, Replay and Live are the stages' results, null for a stage that did not run.
	Probe  *profile.Profile `json:"probe"`
	Replay *replay.Result   `json:"replay"`
	Live   *live.Agreement  `json:"live"`
}

// Target is the demo's target: patience serve on a bundled scenario, on loopback.
type Target struct {
	// Scenario is the bundled scenario served.
	Scenario string `json:"scenario"`
	// URL is where it listened while the demo ran (a loopback address, gone afterwards).
	URL string `json:"url"`
	// Description says what the scenario's API does.
	Description string `json:"description"`
}

// Sections are the stages of the tour, in order.
var Sections = []string{"probe", "replay", "live"}

// Ran says whether a stage has a result to show.
func (d *Result) Ran(section string) bool {
	switch section {
	case "probe":
		return d.Probe != nil
	case "replay":
		return d.Replay != nil
	case "live":
		return d.Live != nil
	}
	return false
}
