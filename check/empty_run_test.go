package check

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/verdict"
)

// emptyRun loads paths and runs check on them as the command does.
func emptyRun(t *testing.T, paths []string, allow bool) (*Result, error) {
	t.Helper()
	in, err := LoadPaths(paths)
	if err != nil {
		return nil, err
	}
	res, err := Run(context.Background(), in.Files, Options{Configs: in.Configs, Paths: paths, Read: len(in.Read), AllowEmpty: allow,
		Replay: func(context.Context, string) (*Replay, error) {
			return &Replay{Scenario: "s", Expect: map[string]scenario.Expect{"*": {SuccessRate: ">= 50%"}}, Policies: []ReplayedPolicy{{Name: "p", SuccessRate: 1}}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	return res, nil
}

const scenarioWithExpect = `target:
  latency: {p50: 50ms, p99: 200ms}
load: {clients: 1, rate: 5/s}
duration: 10s
policy: {timeout: 1s}
expect:
  "*": {success_rate: ">= 50%"}
`

// Nothing checked is an input error that says what was read; every file given that check
// does not read is listed with the reason. A check file that loads but has nothing in it
// is the loader's error at its line.
func TestEmptyRunIsAnError(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		// loadErr is the input error LoadPaths returns ("" = it loads, and the run checks
		// nothing); skipped, the reasons of the files skipped.
		loadErr string
		skipped []string
	}{
		{name: "empty file", files: map[string]string{"a.yaml": ""}, skipped: []string{"a.yaml: no YAML mapping"}},
		{name: "README", files: map[string]string{"README.md": "# Service\n\nRetries: see below.\n"},
			skipped: []string{"README.md: no retry or timeout settings check reads"}},
		{name: "unrelated YAML", files: map[string]string{"ci.yaml": "jobs:\n  build: {runs-on: ubuntu}\n"},
			skipped: []string{"ci.yaml: no retry or timeout settings check reads"}},
		// A check file whose key is misspelt, named: the loader's own words at the key.
		{name: "misspelt scenarios key", files: map[string]string{"checks.yaml": "scenario: [slow.yaml]\n"},
			loadErr: "checks.yaml:1:1: scenario: unknown field (did you mean scenarios?"},
		{name: "misspelt dependencies key", files: map[string]string{"checks.yaml": "dependecies:\n  - name: api\n"},
			loadErr: "checks.yaml:1:1: dependecies: unknown field (did you mean dependencies?"},
		// Truncated check files.
		{name: "patience.yaml cut to a comment", files: map[string]string{"patience.yaml": "# dependencies of the checkout service\n"},
			loadErr: "patience.yaml: empty file: want a mapping with dependencies:"},
		{name: "patience.yaml cut inside its first key", files: map[string]string{"patience.yaml": "max_amplification: 4\ndepend"},
			loadErr: "patience.yaml:2:1: could not find expected ':'"},
		{name: "patience.yaml cut after rules", files: map[string]string{"patience.yaml": "rules:\n  disable: [PT012]\n"},
			loadErr: "patience.yaml:1:1: dependencies: nothing to check"},
		{name: "dependencies null", files: map[string]string{"gate.yaml": "dependencies:\n"},
			loadErr: "gate.yaml:1:14: dependencies: want a list, got nothing"},
		{name: "dependencies empty", files: map[string]string{"gate.yaml": "dependencies: []\n"},
			loadErr: "gate.yaml:1:1: dependencies: nothing to check"},
		{name: "dependency cut at its policy", files: map[string]string{"gate.yaml": "dependencies:\n  - name: api\n    policy:\n"},
			loadErr: "gate.yaml:3:12: dependencies[0].policy: want a string, got nothing"},
		// Scenario files named directly: replayed when they have expect:, loaded as strictly
		// as replay loads them.
		{name: "scenario without expect", files: map[string]string{"slow.yaml": strings.Replace(scenarioWithExpect, "expect:\n  \"*\": {success_rate: \">= 50%\"}\n", "", 1)},
			skipped: []string{"slow.yaml: a scenario with no expect: block: a replay would assert nothing"}},
		{name: "scenario with a typo", files: map[string]string{"slow.yaml": strings.Replace(scenarioWithExpect, "duration:", "durration:", 1)},
			loadErr: "slow.yaml:4:1: durration: unknown field (did you mean duration?"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, c.files)
			var paths []string
			for p := range c.files {
				paths = append(paths, filepath.Join(dir, p))
			}
			res, err := emptyRun(t, paths, false)
			if c.loadErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.loadErr) {
					t.Fatalf("err = %v, want %q", err, c.loadErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !res.NothingChecked || res.Error == nil || res.Outcome != OutcomeError || res.Level != verdict.Bad || res.Passed {
				t.Fatalf("nothing checked %v, error %+v, outcome %s %s, passed %v", res.NothingChecked, res.Error, res.Outcome, res.Level, res.Passed)
			}
			if res.Error.File != paths[0] || !strings.HasPrefix(res.Error.Message, "nothing checked: no dependency, config or scenario found (1 file read, 1 skipped with its reason)") {
				t.Errorf("error: %+v", res.Error)
			}
			if len(res.Skipped) != len(c.skipped) {
				t.Fatalf("skipped %+v, want %q", res.Skipped, c.skipped)
			}
			for i, want := range c.skipped {
				got := filepath.Base(res.Skipped[i].Path) + ": " + res.Skipped[i].Reason
				if !strings.HasPrefix(got, want) {
					t.Errorf("skipped %q, want %q…", got, want)
				}
			}
			if res.Summary.Read != 1 || res.Summary.Skipped != 1 || res.Summary.Checked != 0 {
				t.Errorf("summary: %+v", res.Summary)
			}
		})
	}
}

// --allow-empty passes a run that checked nothing, provisionally, and says so.
func TestEmptyRunAllowed(t *testing.T) {
	dir := t.TempDir()
	res, err := emptyRun(t, []string{dir}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Passed || res.Error != nil || res.Outcome != OutcomePassed || res.Level != verdict.Provisional || !res.NothingChecked || !res.AllowEmpty {
		t.Errorf("passed %v, error %+v, outcome %s %s, nothing checked %v", res.Passed, res.Error, res.Outcome, res.Level, res.NothingChecked)
	}
	if want := "nothing checked: no dependency, config or scenario found (0 files read, 1 skipped with its reason); passed by --allow-empty"; res.NothingCheckedReason != want {
		t.Errorf("reason %q, want %q", res.NothingCheckedReason, want)
	}
}

// A scenario file named on the command line is replayed like a scenarios: entry; one found in
// a walk is skipped (a walk does not run every simulation in a tree).
func TestEmptyScenarioNamedOrWalked(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"slow.yaml": scenarioWithExpect})
	path := filepath.Join(dir, "slow.yaml")
	res, err := emptyRun(t, []string{path}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Error != nil || res.Summary.Scenarios != 1 || len(res.Checked) != 1 || res.Checked[0].Dependency != "s/p" || res.Files[0] != path {
		t.Errorf("error %+v, scenarios %d, checked %+v", res.Error, res.Summary.Scenarios, res.Checked)
	}
	res, err = emptyRun(t, []string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Error == nil || len(res.Skipped) != 1 || !strings.HasPrefix(res.Skipped[0].Reason, "a scenario file: check replays one named") {
		t.Errorf("walked: error %+v, skipped %+v", res.Error, res.Skipped)
	}
}

// A run that checks something reports what it read and skipped.
func TestEmptySummaryCounts(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"patience.yaml": oneDependency, "README": "x\n", "mesh/vs.yaml": istioVS})
	res, err := emptyRun(t, []string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.NothingChecked || res.Error != nil {
		t.Fatalf("nothing checked: %+v", res.Error)
	}
	if res.Summary.Read != 3 || res.Summary.Skipped != 1 || res.Summary.Checked != 2 || res.Summary.Dependencies != 1 || res.Summary.Configs != 1 {
		t.Errorf("summary %+v", res.Summary)
	}
}

// FuzzEmptyNearCheckKey holds what loadOne hands a file it takes for a misspelt check file
// or a scenario: the loaders answer, never panic.
func FuzzEmptyNearCheckKey(f *testing.F) {
	for _, s := range []string{"scenario: []\n", "dependecies:\n", "apiVersion: v1\nscenario: x\n", "max-amplification: 3\n", "a: b\n", "", scenarioWithExpect, "target: {}\npolicy: {}\n", "dependencies:\n  - name: a\n    version: 1\n", "name: x\ndependencies: [a]\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Whatever nearCheckKey says, the loader it hands the file to returns a file or an
		// error, never panics.
		if nearCheckKey([]byte(s)) {
			_, _ = Load("f.yaml", []byte(s))
		}
		// A file another tool's by its keys is never one the loader accepts.
		if isCheckFile([]byte(s)) && otherToolsFile([]byte(s)) != "" {
			if _, err := Load("f.yaml", []byte(s)); err == nil {
				t.Fatalf("skipped as another tool's file (%s), but it loads as a check file", otherToolsFile([]byte(s)))
			}
		}
		// A file taken for a scenario is loaded as replay loads it: a scenario or an error.
		if isScenarioFile([]byte(s)) {
			sc, err := scenario.Parse([]byte(s), "f.yaml")
			if (sc == nil) == (err == nil) {
				t.Fatalf("scenario.Parse: %v, %v", sc, err)
			}
		}
	})
}

// A config read that makes no call chain alone checks nothing either, and the message names
// what was read: a DestinationRule's traffic policy bounds connections (connectionPool,
// outlierDetection) but sets no route's attempts or request timeout — those are the
// VirtualService HTTPRoute's retries and timeout (istio/api
// networking/v1alpha3/virtual_service.proto) — so check reads it with the VirtualService
// that routes to its host.
func TestEmptyConfigAlone(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"dr.yaml": `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: ratings}
spec:
  host: ratings
  trafficPolicy: {connectionPool: {tcp: {maxConnections: 100}}}
`})
	path := filepath.Join(dir, "dr.yaml")
	res, err := emptyRun(t, []string{path}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "nothing checked: 1 config file read (DestinationRule/ratings) makes no call chain on its own (1 file read); name the routes or services it applies to with it, or pass --allow-empty if checking nothing is meant"
	if res.Error == nil || res.Error.Message != want || res.Summary.Configs != 1 {
		t.Errorf("error %+v, configs %d\nwant %q", res.Error, res.Summary.Configs, want)
	}
	// With the VirtualService that routes to it, there is a chain to check.
	write(t, dir, map[string]string{"vs.yaml": istioVS})
	res, err = emptyRun(t, []string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.NothingChecked || res.Summary.Chains == 0 {
		t.Errorf("with the VirtualService: nothing checked %v, chains %d", res.NothingChecked, res.Summary.Chains)
	}
}
