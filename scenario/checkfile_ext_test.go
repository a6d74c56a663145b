package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/scenario"
)

// This external test imports check, which the scenario package itself must not (the
// layout's direction, layout_test.go reads `go list -deps`, which leaves tests out): it holds
// scenario's copy of a check file's top-level keys to the check loader's own list.

// TestCheckFileKeys compares scenario.CheckFileKeys with the keys the check loader accepts
// at the top of a check file, as its unknown-field message lists them.
func TestCheckFileKeys(t *testing.T) {
	_, err := check.Load("c.yaml", []byte("not_a_check_key: 1\n"))
	var e *scenario.Error
	if !errors.As(err, &e) {
		t.Fatalf("check.Load of an unknown key: %v, want a *scenario.Error", err)
	}
	_, list, ok := strings.Cut(e.Msg, "want one of ")
	if !ok {
		t.Fatalf("check's unknown-field message %q does not list its keys", e.Msg)
	}
	got := strings.Split(strings.TrimSuffix(list, ")"), ", ")
	if !slices.Equal(got, scenario.CheckFileKeys) {
		t.Errorf("a check file's top-level keys are %v (check/load.go), scenario's copy says %v", got, scenario.CheckFileKeys)
	}
}

// TestCheckTestdataIsNamedACheckFile: every check file of check's testdata that check loads
// is one the scenario loader names a check file.
func TestCheckTestdataIsNamedACheckFile(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "check", "testdata", "rules", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := check.Load(f, data); err != nil {
			continue
		}
		n++
		_, err = scenario.Parse(data, f)
		if err == nil || err.Error() != f+": this is a check file: use patience check "+f {
			t.Errorf("scenario.Parse(%s) = %v, want the check-file message", f, err)
		}
	}
	if n < 10 {
		t.Errorf("only %d of %d check files in check/testdata/rules loaded", n, len(files))
	}
}
