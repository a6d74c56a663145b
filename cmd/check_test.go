package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/report"
)

func TestCheckFlags(t *testing.T) {
	tests := []struct {
		args []string
		want CheckOptions
	}{
		// Not nil: cobra reads nil args from os.Args, which holds go test's flags (-update).
		{[]string{}, CheckOptions{Files: []string{}, FailOn: "error", Output: "text", Method: "GET", Name: "api", Caller: "interactive"}},
		{[]string{"a.yaml", "b.yaml", "-o", "sarif", "--fail-on", "warning", "--no-fail", "--report", "junit=j.xml", "--report", "markdown=m.md", "--profile", "p.json"},
			CheckOptions{Files: []string{"a.yaml", "b.yaml"}, Output: "sarif", FailOn: "warning", NoFail: true, Reports: []string{"junit=j.xml", "markdown=m.md"}, Profile: "p.json", Method: "GET", Name: "api", Caller: "interactive"}},
		{[]string{"--init", "--budget", "3s", "--method", "POST", "--name", "pay", "--idempotency-key", "svc.yaml"},
			CheckOptions{Files: []string{"svc.yaml"}, Init: true, Budget: "3s", Method: "POST", Name: "pay", IdempotencyKey: true, FailOn: "error", Output: "text", Caller: "interactive"}},
		{[]string{"--init", "--profile", "p.json", "--caller", "job"},
			CheckOptions{Files: []string{}, Init: true, Profile: "p.json", Method: "GET", Name: "api", FailOn: "error", Output: "text", Caller: "job"}},
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

// TestREADMECheckExample: the patience.yaml in README's check section runs as written and
// passes (issue 11 item 5).
func TestREADMECheckExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "```yaml\n# patience.yaml\n")
	if start < 0 {
		t.Fatal("README has no ```yaml # patience.yaml block")
	}
	body := text[start+len("```yaml\n"):]
	body = body[:strings.Index(body, "```")]
	f, err := check.Load("patience.yaml", []byte(body))
	if err != nil {
		t.Fatalf("README's patience.yaml does not load: %v", err)
	}
	res, err := check.Run(context.Background(), []*check.File{f}, check.Options{FailOn: check.LevelWarning})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Errorf("README's patience.yaml has findings: %+v", res.Findings)
	}
}
