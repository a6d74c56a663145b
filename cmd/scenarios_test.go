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
		{[]string{}, ScenariosOptions{Action: "list", Output: "text", For: "replay"}},
		{[]string{"-o", "json"}, ScenariosOptions{Action: "list", Output: "json", For: "replay"}},
		{[]string{"show", "rate-limited"}, ScenariosOptions{Action: "show", Name: "rate-limited", Output: "text", For: "replay"}},
		{[]string{"validate", "a.yaml", "b.yaml", "-o", "json"}, ScenariosOptions{Action: "validate", Files: []string{"a.yaml", "b.yaml"}, Output: "json", For: "replay"}},
		{[]string{"validate", "--for", "serve", "a.yaml"}, ScenariosOptions{Action: "validate", Files: []string{"a.yaml"}, Output: "text", For: "serve"}},
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

// TestScenariosValidateForChoices: --for accepts only the purposes, at parse time.
func TestScenariosValidateForChoices(t *testing.T) {
	f := &Factory{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{})}
	c := NewCmdScenarios(f, func(*ScenariosOptions) error { t.Error("ran with --for storm"); return nil })
	c.SetArgs([]string{"validate", "--for", "storm", "a.yaml"})
	c.SetOut(&bytes.Buffer{})
	c.SetErr(&bytes.Buffer{})
	if err := c.Execute(); err == nil || !strings.Contains(err.Error(), "must be one of replay, serve") {
		t.Errorf("--for storm: %v", err)
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
