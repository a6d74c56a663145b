package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/patience-dev/patience/report"
	"github.com/patience-dev/patience/scenarios"
)

// TestScenariosFlags: arguments and flags bind into ScenariosOptions.
func TestScenariosFlags(t *testing.T) {
	tests := []struct {
		args []string
		want ScenariosOptions
	}{
		{[]string{}, ScenariosOptions{Action: "list", Output: "text"}},
		{[]string{"-o", "json"}, ScenariosOptions{Action: "list", Output: "json"}},
		{[]string{"show", "rate-limited"}, ScenariosOptions{Action: "show", Name: "rate-limited", Output: "text"}},
		{[]string{"validate", "a.yaml", "b.yaml", "-o", "json"}, ScenariosOptions{Action: "validate", Files: []string{"a.yaml", "b.yaml"}, Output: "json"}},
	}
	for _, tt := range tests {
		var got *ScenariosOptions
		f := &Factory{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{})}
		c := NewCmdScenarios(f, func(o *ScenariosOptions) error { got = o; return nil })
		c.SetArgs(tt.args)
		c.SetOut(&bytes.Buffer{})
		c.SetErr(&bytes.Buffer{})
		if err := c.Execute(); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if diff := cmp.Diff(&tt.want, got, cmpopts.IgnoreFields(ScenariosOptions{}, "IO")); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestScenariosShowVerbatim: show prints the embedded bytes unchanged.
func TestScenariosShowVerbatim(t *testing.T) {
	for _, name := range scenarios.Names() {
		var out bytes.Buffer
		opts := &ScenariosOptions{IO: report.Test(nil, &out, &bytes.Buffer{}), Action: "show", Name: name}
		if err := scenariosRun(opts); err != nil {
			t.Fatal(err)
		}
		want, _ := scenarios.Read(name)
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: show changed the YAML", name)
		}
	}
	opts := &ScenariosOptions{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{}), Action: "show", Name: "../go.mod"}
	err := scenariosRun(opts)
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "bundled: ") {
		t.Errorf("show ../go.mod: %v (exit %d)", err, ExitCode(err))
	}
}
