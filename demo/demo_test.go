package demo

import (
	"testing"

	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/replay"
)

// TestRan: a stage has something to show once its result is set, and only then; a name that
// is not a stage never ran.
func TestRan(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    Result
		want map[string]bool
	}{
		{"nothing yet", Result{}, map[string]bool{}},
		{"probe only", Result{Probe: &profile.Profile{}}, map[string]bool{"probe": true}},
		{"all three", Result{Probe: &profile.Profile{}, Replay: &replay.Result{}, Live: &live.Agreement{}},
			map[string]bool{"probe": true, "replay": true, "live": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range append(Sections, "storm") {
				if got := tc.d.Ran(s); got != tc.want[s] {
					t.Errorf("Ran(%q) = %v, want %v", s, got, tc.want[s])
				}
			}
		})
	}
}
