package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckFileGivenAsScenario: a check file given to replay, serve or storm (or as --policy)
// is named for what it is, with the command that reads it, instead of "unknown field" at its
// first key; a scenario with a stray check-file key is still a scenario and gets the usual
// unknown-field error at that key.
func TestCheckFileGivenAsScenario(t *testing.T) {
	const want = "this is a check file: use patience check "
	for _, tc := range []struct {
		name, src string
	}{
		{"dependencies", "dependencies:\n  - name: partner\n    policy: {timeout: 2s}\n"},
		{"every check key", "max_amplification: 4\nrules: {disable: [PT006]}\nscenarios: [s.yaml]\ndependencies: []\n"},
		{"with a misspelt key", "max_amplificaton: 4\ndependencies: []\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range []Purpose{ForReplay, ForServe} {
				_, err := ParseFor([]byte(tc.src), "patience.yaml", p)
				var e *Error
				if !errors.As(err, &e) || e.File != "patience.yaml" || e.Line != 0 || e.Field != "" || e.Msg != want+"patience.yaml" {
					t.Errorf("%s: err = %#v, want an *Error for patience.yaml saying %q", p, err, want+"patience.yaml")
				}
				if err != nil && err.Error() != "patience.yaml: "+want+"patience.yaml" {
					t.Errorf("%s: %q", p, err)
				}
			}
		})
	}
	// A scenario key beside a check-file key: a scenario with a mistake, reported as before.
	_, err := Parse([]byte(minimal+"dependencies: []\n"), "s.yaml")
	var e *Error
	if !errors.As(err, &e) || e.Line != 7 || e.Field != "dependencies" || !strings.HasPrefix(e.Msg, "unknown field") {
		t.Errorf("scenario with dependencies: err = %v, want unknown field at 7", err)
	}
	// Nothing of a check file: unknown field as before.
	_, err = Parse([]byte("colour: red\n"), "s.yaml")
	if !errors.As(err, &e) || e.Line != 1 || e.Field != "colour" {
		t.Errorf("colour: err = %v, want unknown field at line 1", err)
	}

	// --policy FILE with a check file says so too, and where a dependency's chain goes.
	file := filepath.Join(t.TempDir(), "patience.yaml")
	if err := os.WriteFile(file, []byte("dependencies:\n  - name: partner\n    policy: {timeout: 2s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ResolvePolicy(file)
	if !errors.As(err, &e) || e.Line != 0 || !strings.HasPrefix(e.Msg, want+file) || !strings.Contains(e.Msg, "--chain "+file+"#DEPENDENCY") {
		t.Errorf("--policy check file: err = %v", err)
	}
	if _, err := OpenFor(file, ForServe); err == nil || err.Error() != file+": "+want+file {
		t.Errorf("OpenFor(check file) = %v", err)
	}
}

// TestNoScenarioKeyIsACheckFileKey: the detection relies on the two key sets being apart.
func TestNoScenarioKeyIsACheckFileKey(t *testing.T) {
	for _, k := range checkFileKeys {
		if scenarioTable.field(k) != nil {
			t.Errorf("%s is a key of both a scenario and a check file", k)
		}
	}
}
