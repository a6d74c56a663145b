package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/patience-dev/patience/advise"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/verdict"
)

// TestEveryBadVerdictExitsNonZero walks every verdict code the profile and advise packages
// can give at verdict.Bad (read from their source, so a new ✗ is walked too) and checks that
// probe and advise exit non-zero on it (issue 26: "the budget cannot hold one normal call" was
// a ✗ that exited 0): the measurement codes 3, the others 1.
func TestEveryBadVerdictExitsNonZero(t *testing.T) {
	values := map[string]string{
		"CodeUnreachable": profile.CodeUnreachable, "CodeAllFailed": profile.CodeAllFailed,
		"CodeNoGoodResponse": profile.CodeNoGoodResponse, "CodeRateNotHeld": profile.CodeRateNotHeld,
		"CodeNoAnswer": profile.CodeNoAnswer, "CodeTailBeyond": profile.CodeTailBeyond,
		"CodeErrorRate": profile.CodeErrorRate, "CodeBudget": profile.CodeBudget,
		"CodeMalformedInput": advise.CodeMalformedInput,
	}
	want := map[string]int{
		profile.CodeUnreachable: ExitCannotMeasure, profile.CodeAllFailed: ExitCannotMeasure,
		profile.CodeNoGoodResponse: ExitCannotMeasure, profile.CodeRateNotHeld: ExitCannotMeasure,
	}
	bad := regexp.MustCompile(`\.Add\((Code\w+), verdict\.Bad`)
	found := map[string]bool{}
	for _, dir := range []string{"../profile", "../advise"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range bad.FindAllStringSubmatch(string(src), -1) {
				found[m[1]] = true
			}
		}
	}
	if !found["CodeBudget"] || len(found) < 5 {
		t.Fatalf("found the ✗ codes %v: the scan no longer matches how verdicts are built", found)
	}
	for name := range found {
		code, ok := values[name]
		if !ok {
			t.Errorf("%s is given at verdict.Bad: add it to this table and make its exit non-zero", name)
			continue
		}
		t.Run(code, func(t *testing.T) {
			res := &profile.Profile{Requests: 100, Responses: 100}
			res.Recommendation.Verdict.Add(code, verdict.Bad, code+" clause")
			w := want[code]
			if w == 0 {
				w = ExitGateFailed
			}
			if got := ExitCode(probeExit(&ProbeOptions{}, res)); got != w {
				t.Errorf("probe: ✗ %s exits %d, want %d", code, got, w)
			}
			if got := ExitCode(adviseExit(res)); got != w {
				t.Errorf("advise: ✗ %s exits %d, want %d", code, got, w)
			}
		})
	}
	// A ~ or ✓ alone exits 0.
	res := &profile.Profile{Requests: 100, Responses: 100}
	res.Recommendation.Verdict.Add(profile.CodeProvisional, verdict.Degraded, "provisional")
	if got := ExitCode(probeExit(&ProbeOptions{}, res)); got != ExitOK {
		t.Errorf("probe: ~ exits %d", got)
	}
}
