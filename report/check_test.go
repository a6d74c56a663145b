package report

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/check"
)

// checkFixture is a check file with one finding of most kinds, one clean dependency and
// one suppressed finding; every format renders the result of checking it.
const checkFixture = `max_amplification: 10
dependencies:
  - name: shipping
    caller: {kind: job, timeout: 20s, retry_after: 15s}
    request: {method: POST}
    layers: [{name: gateway, max_attempts: 3}]
    policy:
      timeout: 5s
      retry:
        max_attempts: 4
        on: [timeout, 5xx, "400"]
        non_idempotent: always
        jitter: none
        retry_after: ignore # patience:ignore PT008
  - name: "search, v2: 100% fresh"
    caller: {kind: interactive, budget: 3s}
    policy:
      connect_timeout: 500ms
      timeout: 1s
      deadline: 3s
      retry: {max_attempts: 3, retry_after_max: 2s}
`

func checkResult(t *testing.T, text string) *check.Result {
	t.Helper()
	f, err := check.Load("patience.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), []*check.File{f}, check.Options{
		Version:     "1.2.3",
		LoadProfile: func(string) (*hdrhistogram.Histogram, error) { return nil, errors.New("none") },
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func renderCheck(t *testing.T, format string, res *check.Result, color bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	io := Test(nil, &buf, nil)
	io.Color = color
	render, err := CheckFormats.Get(format)
	if err != nil {
		t.Fatal(err)
	}
	if err := render(&buf, res, io.Options()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheckGoldens(t *testing.T) {
	failing := checkResult(t, checkFixture)
	passing := checkResult(t, "dependencies:\n  - name: search\n    policy: {timeout: 1s}\n")
	for _, format := range CheckFormats.Names() {
		golden.Assert(t, "check_"+format, renderCheck(t, format, failing, false))
	}
	golden.Assert(t, "check_text_color", renderCheck(t, "text", failing, true))
	golden.Assert(t, "check_text_pass", renderCheck(t, "text", passing, false))
	golden.Assert(t, "check_markdown_pass", renderCheck(t, "markdown", passing, false))
	golden.Assert(t, "check_junit_pass", renderCheck(t, "junit", passing, false))
}

func TestCheckTextNoANSIWithoutColor(t *testing.T) {
	out := renderCheck(t, "text", checkResult(t, checkFixture), false)
	if bytes.Contains(out, []byte("\x1b[")) {
		t.Error("plain text has ANSI escapes")
	}
	if !bytes.HasPrefix(out, []byte("✗ check failed: ")) {
		t.Errorf("the verdict does not lead: %q", out[:40])
	}
	colored := renderCheck(t, "text", checkResult(t, checkFixture), true)
	if !bytes.Contains(colored, []byte("\x1b[")) {
		t.Error("coloured text has no ANSI escapes")
	}
}

// TestSARIFShape checks the properties SARIF 2.1.0 requires (and code scanning reads) on
// the generic JSON, so a struct tag typo cannot hide behind our own types.
func TestSARIFShape(t *testing.T) {
	res := checkResult(t, checkFixture)
	var log map[string]any
	if err := json.Unmarshal(renderCheck(t, "sarif", res, false), &log); err != nil {
		t.Fatal(err)
	}
	if log["version"] != "2.1.0" || !strings.Contains(log["$schema"].(string), "sarif-2.1.0") {
		t.Errorf("version/$schema: %v %v", log["version"], log["$schema"])
	}
	runs := log["runs"].([]any)
	if len(runs) != 1 {
		t.Fatalf("runs: %d", len(runs))
	}
	run := runs[0].(map[string]any)
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	for _, k := range []string{"name", "informationUri", "version", "rules"} {
		if _, ok := driver[k]; !ok {
			t.Errorf("tool.driver.%s missing", k)
		}
	}
	rules := driver["rules"].([]any)
	ids := map[string]int{}
	for i, r := range rules {
		rule := r.(map[string]any)
		ids[rule["id"].(string)] = i
		for _, k := range []string{"id", "name", "shortDescription", "fullDescription", "help", "defaultConfiguration"} {
			if _, ok := rule[k]; !ok {
				t.Errorf("rule %v lacks %s", rule["id"], k)
			}
		}
		if rule["shortDescription"].(map[string]any)["text"] == "" {
			t.Errorf("rule %v has an empty shortDescription", rule["id"])
		}
		if l := rule["defaultConfiguration"].(map[string]any)["level"]; l != "error" && l != "warning" && l != "note" {
			t.Errorf("rule %v level %v", rule["id"], l)
		}
	}
	results := run["results"].([]any)
	if len(results) != len(res.Findings) || len(results) == 0 {
		t.Fatalf("results %d, findings %d", len(results), len(res.Findings))
	}
	for _, r := range results {
		result := r.(map[string]any)
		id := result["ruleId"].(string)
		if int(result["ruleIndex"].(float64)) != ids[id] {
			t.Errorf("%s: ruleIndex %v does not point at its rule (%d)", id, result["ruleIndex"], ids[id])
		}
		if result["message"].(map[string]any)["text"] == "" {
			t.Errorf("%s: empty message", id)
		}
		if l := result["level"]; l != "error" && l != "warning" {
			t.Errorf("%s: level %v", id, l)
		}
		loc := result["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
		if loc["artifactLocation"].(map[string]any)["uri"] != "patience.yaml" {
			t.Errorf("%s: uri %v", id, loc["artifactLocation"])
		}
		if region := loc["region"].(map[string]any); region["startLine"].(float64) < 1 || region["startColumn"].(float64) < 1 {
			t.Errorf("%s: region %v", id, region)
		}
	}
}

func TestJUnitIsValidXML(t *testing.T) {
	res := checkResult(t, checkFixture)
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Classname string    `xml:"classname,attr"`
				Name      string    `xml:"name,attr"`
				Failure   *struct{} `xml:"failure"`
				Skipped   *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(renderCheck(t, "junit", res, false), &suites); err != nil {
		t.Fatal(err)
	}
	cases, failures, skipped := 0, 0, 0
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			cases++
			if c.Failure != nil {
				failures++
			}
			if c.Skipped != nil {
				skipped++
			}
		}
	}
	// Nothing to evaluate: PT010 (no profile) and PT012 (no rate) on both, PT011 on search.
	if skipped != 5 {
		t.Errorf("skipped %d, want 5", skipped)
	}
	// Two dependencies × 13 rules; shipping's findings (one per rule) fail, PT008 was ignored.
	if cases != 26 || suites.Tests != 26 {
		t.Errorf("testcases %d (tests=%d), want 26", cases, suites.Tests)
	}
	if failures != len(res.Findings) || suites.Failures != failures {
		t.Errorf("failures %d (attr %d), findings %d", failures, suites.Failures, len(res.Findings))
	}
}

func TestGitHubEscaping(t *testing.T) {
	tests := []struct {
		in, data, property string
	}{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"file:line,col", "file:line,col", "file%3Aline%2Ccol"},
		{"%0A literal", "%250A literal", "%250A literal"},
		{"::error::", "::error::", "%3A%3Aerror%3A%3A"},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := GitHubData(tt.in); got != tt.data {
			t.Errorf("GitHubData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := GitHubProperty(tt.in); got != tt.property {
			t.Errorf("GitHubProperty(%q) = %q, want %q", tt.in, got, tt.property)
		}
	}
}

func TestGitHubOneCommandPerLine(t *testing.T) {
	res := checkResult(t, checkFixture)
	lines := strings.Split(strings.TrimSuffix(string(renderCheck(t, "github", res, false)), "\n"), "\n")
	if len(lines) != len(res.Findings)+1 {
		t.Fatalf("%d lines for %d findings + the verdict", len(lines), len(res.Findings))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::warning ") && !strings.HasPrefix(l, "::notice ") {
			t.Errorf("not a workflow command: %q", l)
		}
	}
}
