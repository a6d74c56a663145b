package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		{[]string{"--allow-empty", "deploy/"},
			CheckOptions{Files: []string{"deploy/"}, AllowEmpty: true, FailOn: "error", Output: "text", Method: "GET", Name: "api", Caller: "interactive"}},
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

// TestREADMECheckExample: the patience.yaml in the check reference (docs/commands.md, README's
// check section until issue 26 moved it) runs as written and passes (issue 11 item 5).
func TestREADMECheckExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "```yaml\n# patience.yaml\n")
	if start < 0 {
		t.Fatal("docs/commands.md has no ```yaml # patience.yaml block")
	}
	body := text[start+len("```yaml\n"):]
	body = body[:strings.Index(body, "```")]
	f, err := check.Load("patience.yaml", []byte(body))
	if err != nil {
		t.Fatalf("docs/commands.md's patience.yaml does not load: %v", err)
	}
	res, err := check.Run(context.Background(), []*check.File{f}, check.Options{FailOn: check.SeverityWarning})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Errorf("docs/commands.md's patience.yaml has findings: %+v", res.Findings)
	}
}

// TestCheckMaxCost: a scenarios: entry is held to replay's budget (issue 17: flags and files
// share one set of limits): refused before it is replayed, exit 2, pointing at the entry,
// with the estimate and the flag; --max-cost raises it (the replay then starts: stopped here
// by Ctrl-C, exit 130).
func TestCheckMaxCost(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "huge.yaml"), []byte(hugeReplay), 0o644); err != nil {
		t.Fatal(err)
	}
	chk := filepath.Join(dir, "patience.yaml")
	if err := os.WriteFile(chk, []byte("scenarios: [huge.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCmd(t, context.Background(), "", "check", chk)
	if code != ExitUsage || !strings.Contains(errOut, "patience.yaml:1:") || !strings.Contains(errOut, "this run would simulate about 5.18 billion attempts") ||
		!strings.Contains(errOut, "raise it with --max-cost ") {
		t.Errorf("default budget: exit %d, stderr %q", code, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	code, _, errOut = runCmd(t, ctx, "", "check", chk, "--max-cost", "100h")
	if code != ExitInterrupted || strings.Contains(errOut, "budget") {
		t.Errorf("--max-cost 100h: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCmd(t, context.Background(), "", "check", chk, "--max-cost", "lots")
	if code != ExitUsage || !strings.Contains(errOut, `--max-cost: "lots"`) {
		t.Errorf("--max-cost lots: exit %d, stderr %q", code, errOut)
	}
}

// Nothing checked: checkRun renders the report on stdout and exits 2; --allow-empty exits 0
// with the same report marked provisional; --no-fail does not pass it.
func TestCheckRunNothingChecked(t *testing.T) {
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	if err := os.WriteFile(readme, []byte("# svc\n\n| a | b |\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts CheckOptions
		code int
		out  string
	}{
		{CheckOptions{Output: "text"}, ExitUsage, "✗ check could not run: " + readme},
		{CheckOptions{Output: "text", NoFail: true}, ExitUsage, "✗ check could not run"},
		{CheckOptions{Output: "text", AllowEmpty: true}, ExitOK, "~ check passed"},
		{CheckOptions{Output: "json"}, ExitUsage, `"nothing_checked": true`},
	} {
		var out, errOut bytes.Buffer
		o := c.opts
		o.IO, o.Files, o.FailOn = report.Test(nil, &out, &errOut), []string{readme}, "error"
		err := checkRun(&o)
		text := out.String()
		if got := ExitCode(err); got != c.code || !strings.Contains(text, c.out) || !strings.Contains(text, "nothing checked") || !strings.Contains(text, readme) {
			t.Errorf("%+v: exit %d (err %v), stdout:\n%s\nwant exit %d and %q", c.opts, got, err, text, c.code, c.out)
		}
	}
}
