package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/scenario"
)

// wantComment is `# want: PT006` at the end of a line (several IDs separated by spaces or
// commas): a finding of each rule must point at that line.
var wantComment = regexp.MustCompile(`#\s*want:\s*((?:PT\d{3}[\s,]*)+)$`)

// wantedFindings lists "LINE RULE" for every `# want:` in a rule file.
func wantedFindings(data []byte) []string {
	var out []string
	for i, line := range strings.Split(string(data), "\n") {
		m := wantComment.FindStringSubmatch(strings.TrimRight(line, " \t\r"))
		if m == nil {
			continue
		}
		for _, id := range ruleID.FindAllString(m[1], -1) {
			out = append(out, fmt.Sprintf("%d %s", i+1, id))
		}
	}
	slices.Sort(out)
	return out
}

// TestRuleFiles checks every file in testdata/rules, as staticcheck's testdata does its
// analyzers: each `# want: PT006` must be a finding of that rule at that line, and every
// finding must be wanted, so a file without `want` must pass. Profiles sit beside the files.
func TestRuleFiles(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "rules", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no rule files (%v)", err)
	}
	fired := map[string]bool{}
	ran := 0
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".yaml"), func(t *testing.T) {
			ran++
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Load(path, data)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			noReplay := func(context.Context, string) (*Replay, error) { return nil, errors.New("no replay in rule files") }
			res, err := Run(context.Background(), []*File{f}, Options{Replay: noReplay})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			got := []string{}
			for _, fd := range res.Findings {
				if fd.File != path {
					t.Errorf("%s points into %s, want %s", fd.Rule, fd.File, path)
				}
				got = append(got, fmt.Sprintf("%d %s", fd.Line, fd.Rule))
				fired[fd.Rule] = true
			}
			slices.Sort(got)
			want := wantedFindings(data)
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings as \"LINE RULE\" (-want +got):\n%s", diff)
				for _, fd := range res.Findings {
					t.Logf("%d:%d %s %s: %s", fd.Line, fd.Col, fd.Rule, fd.Dependency, fd.Message)
				}
			}
		})
	}
	if ran < len(paths) {
		return // -run picked some files: the others may be the ones that fire a rule
	}
	for _, r := range Catalog {
		if r.dependency != nil && !fired[r.ID] {
			t.Errorf("no file in testdata/rules makes %s fire", r.ID)
		}
	}
}

// gluedDuration is a duration in config syntax ("3s", "1m30s", "250ms"), not the reports'
// unit style ("3 s", "1 min 30 s").
var gluedDuration = regexp.MustCompile(`\b[0-9][0-9.]*(ms|s|m|h)([0-9]|\b)`)

// pastedDuration is "FIELD: VALUE" in a fix, the one place a duration keeps config syntax.
var pastedDuration = regexp.MustCompile(`[a-z_\]]+: (\[[^\]]*\]|[0-9][0-9a-z.]*)`)

// TestFindingsSpeakOneUnitStyle: every finding of every rule file and config fixture writes
// its durations as the other reports do (internal/units: "3 s", "2 min 30 s"); only the value
// after "FIELD:" in a fix keeps patience.yaml's syntax, and it loads as written.
func TestFindingsSpeakOneUnitStyle(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "rules", "*.yaml"))
	dirs, _ := filepath.Glob(filepath.Join("testdata", "configs", "*"))
	paths = append(paths, dirs...)
	literals, prose := 0, 0
	for _, path := range paths {
		in, err := LoadPaths([]string{path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		res, err := Run(context.Background(), in.Files, Options{Replay: noReplay, Configs: in.Configs})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, f := range res.Findings {
			if m := gluedDuration.FindString(f.Message); m != "" {
				t.Errorf("%s %s: message writes %q in config syntax: %s", path, f.Rule, m, f.Message)
			}
			if strings.Contains(f.Message, " ms") || strings.Contains(f.Message, " s ") || strings.Contains(f.Message, " min") {
				prose++
			}
			// The literals pasted into patience.yaml parse as they are written.
			fix := f.Fix
			for _, lit := range pastedDuration.FindAllString(fix, -1) {
				_, v, _ := strings.Cut(lit, ": ")
				if !gluedDuration.MatchString(v) {
					continue
				}
				for _, d := range strings.Split(strings.Trim(v, "[]"), ", ") {
					if _, err := scenario.ParseDuration(d); err != nil {
						t.Errorf("%s %s: fix pastes %q, which does not load: %v", path, f.Rule, lit, err)
					}
				}
				literals++
				fix = strings.Replace(fix, lit, "", 1)
			}
			if m := gluedDuration.FindString(fix); m != "" && f.File == path {
				t.Errorf("%s %s: fix writes %q in config syntax outside a FIELD: value: %s", path, f.Rule, m, f.Fix)
			}
		}
	}
	if literals == 0 || prose == 0 {
		t.Errorf("%d pasted literals, %d messages with durations: the fixtures no longer exercise both", literals, prose)
	}
}
