package scenario

import (
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenarios"
)

// Info describes one bundled scenario for `patience scenarios`.
type Info struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Default marks the scenario `replay` runs without an argument.
	Default  bool     `json:"default"`
	Policies []string `json:"policies"`
	// ServeOnly marks a scenario only `patience serve` plays (a stream target: the
	// simulator does not model it, so replay, storm and check refuse it).
	ServeOnly bool `json:"serve_only,omitempty"`
}

// Bundled loads every bundled scenario replay runs (scenarios.Names) and describes it, in
// name order. A bundled file that does not load is a bug in the binary; its *Error is
// returned.
func Bundled() ([]Info, error) { return describe(scenarios.Names(), ForReplay) }

// BundledServe is Bundled for the scenarios only serve plays (scenarios.ServeNames), each
// loaded for serve.
func BundledServe() ([]Info, error) { return describe(scenarios.ServeNames(), ForServe) }

// describe loads each bundled scenario of names for purpose and describes it.
func describe(names []string, purpose Purpose) ([]Info, error) {
	out := make([]Info, 0, len(names))
	for _, name := range names {
		sc, err := OpenFor(name, purpose)
		if err != nil {
			return nil, err
		}
		info := Info{Name: name, Description: sc.Description, Default: name == DefaultName, Policies: make([]string, len(sc.Policies)),
			ServeOnly: purpose == ForServe}
		for i, p := range sc.Policies {
			info.Policies[i] = p.Name
		}
		out = append(out, info)
	}
	return out, nil
}

// AttachLayers gives p the scenario's `layers:` unless p set its own (a policy file with a
// `layers:` key, even an empty one). Commands call it for `--policy` policies, which replace
// the scenario's policies but still sit under the scenario's callers.
func (sc *Scenario) AttachLayers(p *policy.Policy) {
	if _, own := p.Source["layers"]; own {
		return
	}
	p.Layers = policy.CloneLayers(sc.Layers)
}
