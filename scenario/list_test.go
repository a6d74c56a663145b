package scenario

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/scenarios"
)

// TestBundledListIsBundled: the list `patience scenarios` prints is Bundled and BundledServe
// under its schema, in name order, the serve-only ones marked.
func TestBundledListIsBundled(t *testing.T) {
	list, err := BundledList()
	if err != nil {
		t.Fatal(err)
	}
	infos, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	serve, err := BundledServe()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Info{}
	for _, in := range append(infos, serve...) {
		want[in.Name] = in
	}
	if list.Schema != ListSchema || len(list.Scenarios) != len(want) {
		t.Fatalf("BundledList = %+v, want schema %s and %d scenarios", list, ListSchema, len(want))
	}
	for i, in := range list.Scenarios {
		if i > 0 && list.Scenarios[i-1].Name >= in.Name {
			t.Errorf("%s listed after %s", in.Name, list.Scenarios[i-1].Name)
		}
		if !cmp.Equal(in, want[in.Name]) {
			t.Errorf("%s: %+v, want %+v", in.Name, in, want[in.Name])
		}
		if in.ServeOnly != scenarios.ServeOnly(in.Name) {
			t.Errorf("%s: serve_only %v", in.Name, in.ServeOnly)
		}
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
