package scenario

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/scenarios"
)

// TestBundledListIsBundled: the list `patience scenarios` prints is Bundled under its schema.
func TestBundledListIsBundled(t *testing.T) {
	list, err := BundledList()
	if err != nil {
		t.Fatal(err)
	}
	infos, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	if list.Schema != ListSchema || !cmp.Equal(list.Scenarios, infos) {
		t.Errorf("BundledList = %+v, want schema %s and %+v", list, ListSchema, infos)
	}
}

// TestValidateListsWhatLoads: the files that load are listed in the order given with their policies (an
// empty list, never null, for a serve file with none), and each file that does not load
// gives one problem, in order.
func TestValidateListsWhatLoads(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bundled, err := scenarios.Read(DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	good := write("good.yaml", string(bundled))
	bad := write("bad.yaml", "name: broken\nnot_a_section: 1\n")
	sc, err := OpenFor(good, ForReplay)
	if err != nil {
		t.Fatal(err)
	}
	var policies []string
	for _, p := range sc.Policies {
		policies = append(policies, p.Name)
	}
	for _, tc := range []struct {
		name         string
		files        []string
		wantFiles    []ValidatedFile
		wantProblems int
	}{
		{"none", nil, []ValidatedFile{}, 0},
		{"one good", []string{good}, []ValidatedFile{{File: good, Name: sc.Name, Policies: policies}}, 0},
		{"bad between goods", []string{good, bad, good}, []ValidatedFile{{File: good, Name: sc.Name, Policies: policies}, {File: good, Name: sc.Name, Policies: policies}}, 1},
		{"missing file", []string{filepath.Join(dir, "absent.yaml"), bad}, []ValidatedFile{}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, problems := Validate(tc.files, ForReplay)
			if res.Schema != ValidationSchema {
				t.Errorf("schema %q", res.Schema)
			}
			if diff := cmp.Diff(tc.wantFiles, res.Files); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if len(problems) != tc.wantProblems {
				t.Errorf("%d problems, want %d: %v", len(problems), tc.wantProblems, problems)
			}
		})
	}
}
