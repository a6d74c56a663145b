package cmd

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/patience-dev/patience/report"
)

func TestCheckFlags(t *testing.T) {
	tests := []struct {
		args []string
		want CheckOptions
	}{
		// Not nil: cobra reads nil args from os.Args, which holds go test's flags (-update).
		{[]string{}, CheckOptions{Files: []string{}, FailOn: "error", Output: "text", Method: "GET", Name: "api"}},
		{[]string{"a.yaml", "b.yaml", "-o", "sarif", "--fail-on", "warning", "--no-fail", "--report", "junit=j.xml", "--report", "markdown=m.md", "--profile", "p.json"},
			CheckOptions{Files: []string{"a.yaml", "b.yaml"}, Output: "sarif", FailOn: "warning", NoFail: true, Reports: []string{"junit=j.xml", "markdown=m.md"}, Profile: "p.json", Method: "GET", Name: "api"}},
		{[]string{"--init", "--budget", "3s", "--method", "POST", "--name", "pay", "--idempotency-key", "svc.yaml"},
			CheckOptions{Files: []string{"svc.yaml"}, Init: true, Budget: "3s", Method: "POST", Name: "pay", IdempotencyKey: true, FailOn: "error", Output: "text"}},
	}
	for _, tt := range tests {
		var got *CheckOptions
		f := &Factory{IO: report.Test(nil, &bytes.Buffer{}, &bytes.Buffer{})}
		c := NewCmdCheck(f, func(o *CheckOptions) error { got = o; return nil })
		c.SetArgs(tt.args)
		if err := c.Execute(); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if diff := cmp.Diff(&tt.want, got, cmpopts.IgnoreFields(CheckOptions{}, "IO", "Ctx")); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.args, diff)
		}
	}
}
