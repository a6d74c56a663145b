package report

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/patience-dev/patience/profile"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/scenario"
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

func checkResult(t testing.TB, text string) *check.Result {
	t.Helper()
	f, err := check.Load("patience.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), []*check.File{f}, check.Options{
		Version:     "1.2.3",
		LoadProfile: func(string) (*profile.Profile, error) { return nil, errors.New("none") },
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Checked {
		res.Checked[i].Elapsed = 0 // JUnit's time: byte-stable goldens
	}
	return res
}

func renderCheck(t *testing.T, format string, res *check.Result, color bool) []byte {
	t.Helper()
	return renderCheckWidth(t, format, res, color, 100)
}

// renderCheckWidth renders res for a terminal width columns wide.
func renderCheckWidth(t *testing.T, format string, res *check.Result, color bool, width int) []byte {
	t.Helper()
	var buf bytes.Buffer
	io := Test(nil, &buf, nil)
	io.Color = color
	io.Width = width
	render, err := CheckFormats.Get(format)
	if err != nil {
		t.Fatal(err)
	}
	if err := render(&buf, res, io.Options()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// chainResult checks check's chain fixture (ingress-nginx → the app → Istio, defaults only),
// whose text report holds a layer × failure-class table.
func chainResult(t *testing.T) *check.Result {
	t.Helper()
	in, err := check.LoadPaths([]string{filepath.Join("..", "check", "testdata", "configs", "chain")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), in.Files, check.Options{Version: "1.2.3", Configs: in.Configs,
		LoadProfile: func(string) (*profile.Profile, error) { return nil, errors.New("none") }})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCheckGoldens(t *testing.T) {
	failing := checkResult(t, checkFixture)
	passing := checkResult(t, "dependencies:\n  - name: search\n    policy: {timeout: 1s}\n")
	for _, format := range CheckFormats.Names() {
		switch format {
		case "text":
			continue // at every width, below
		case "html":
			continue // html_test.go holds check_html.golden
		}
		golden.Assert(t, "check_"+format, renderCheck(t, format, failing, false))
	}
	golden.Assert(t, "check_text_color", renderCheck(t, "text", failing, true))
	golden.Assert(t, "check_markdown_pass", renderCheck(t, "markdown", passing, false))
	golden.Assert(t, "check_junit_pass", renderCheck(t, "junit", passing, false))
	golden.Assert(t, "check_markdown_chains", renderCheck(t, "markdown", chainResult(t), false))
}

// checkWidthGoldens are the text reports at each golden width: the failing fixture, the
// passing one and the chain fixture.
func checkWidthGoldens(t *testing.T) map[string][]byte {
	t.Helper()
	variants := map[string]*check.Result{
		"":        checkResult(t, checkFixture),
		"_pass":   checkResult(t, "dependencies:\n  - name: search\n    policy: {timeout: 1s}\n"),
		"_chains": chainResult(t),
	}
	out := map[string][]byte{}
	for suffix, res := range variants {
		for _, w := range goldenWidths {
			out[fmt.Sprintf("check_text%s_%d", suffix, w)] = renderCheckWidth(t, "text", res, false, w)
		}
	}
	return out
}

func TestCheckTextGoldens(t *testing.T) {
	for name, got := range checkWidthGoldens(t) {
		t.Run(name, func(t *testing.T) { golden.Assert(t, name, got) })
	}
}

// afterComma is a comma or a slash and the space after it, which a line break may add.
var afterComma = regexp.MustCompile(`([,/])\s+`)

// checkUnitLine is a line that starts with a unit cut from its number.
var checkUnitLine = regexp.MustCompile(`^\s*(ms|s|min|h)\b[^-]`)

// TestCheckTextFitsWidth: no line of the check text report is wider than the terminal it is
// rendered for — at the golden widths and at every width from 60 to 200 — no line starts
// with a unit cut from its number or ends with a field cut from its value ("policy.deadline:"
// / "20s"), and no word is cut: joined back, the lines hold every
// finding's message and fix word for word.
func TestCheckTextFitsWidth(t *testing.T) {
	results := map[string]*check.Result{"failing": checkResult(t, checkFixture), "chains": chainResult(t)}
	for name, res := range results {
		for w := 60; w <= 200; w++ {
			out := string(renderCheckWidth(t, "text", res, false, w))
			for i, line := range strings.Split(out, "\n") {
				if lw := lipgloss.Width(line); lw > w {
					t.Errorf("%s at %d: line %d is %d columns wide:\n%s", name, w, i+1, lw, line)
				}
				if checkUnitLine.MatchString(line) {
					t.Errorf("%s at %d: line %d starts with a unit cut from its number:\n%s", name, w, i+1, line)
				}
				if f := strings.Fields(line); len(f) > 0 && fieldName.MatchString(f[len(f)-1]) {
					t.Errorf("%s at %d: line %d parts %s from the value to paste:\n%s", name, w, i+1, f[len(f)-1], line)
				}
			}
			// Lines break at spaces, or after a comma or slash inside a word too wide for a line.
			flat := afterComma.ReplaceAllString(strings.Join(strings.Fields(out), " "), "$1")
			for _, f := range res.Findings {
				for _, s := range []string{f.Message, f.Fix, f.Dependency, location(f)} {
					if !strings.Contains(flat, afterComma.ReplaceAllString(s, "$1")) {
						t.Errorf("%s at %d: %q is not in the report whole", name, w, s)
					}
				}
			}
		}
	}
}

// TestCheckGoldensFitTheirWidth holds the check goldens named for a width
// (check_text_80.golden) to it, as TestGoldensFitTheirWidth does the other reports'.
func TestCheckGoldensFitTheirWidth(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "check_*_[0-9]*.golden"))
	if len(paths) < 9 {
		t.Fatalf("only %d check width goldens", len(paths))
	}
	for _, path := range paths {
		m := regexp.MustCompile(`_(\d+)\.golden$`).FindStringSubmatch(path)
		width, _ := strconv.Atoi(m[1])
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if lw := lipgloss.Width(line); lw > width {
				t.Errorf("%s: line %d is %d columns wide, more than %d:\n%s", path, i+1, lw, width, line)
			}
			if checkUnitLine.MatchString(line) {
				t.Errorf("%s: line %d starts with a unit cut from its number:\n%s", path, i+1, line)
			}
		}
	}
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
	if len(results) != len(res.Findings)+len(res.Suppressed) || len(results) == 0 || len(res.Suppressed) == 0 {
		t.Fatalf("results %d, findings %d + suppressed %d", len(results), len(res.Findings), len(res.Suppressed))
	}
	if inv := run["invocations"].([]any)[0].(map[string]any); inv["executionSuccessful"] != true {
		t.Errorf("invocation %v", inv)
	}
	suppressed := 0
	for _, r := range results {
		result := r.(map[string]any)
		if sup, ok := result["suppressions"].([]any); ok {
			suppressed++
			if kind := sup[0].(map[string]any)["kind"]; kind != "inSource" {
				t.Errorf("suppression kind %v", kind)
			}
		}
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
	if suppressed != len(res.Suppressed) {
		t.Errorf("%d results with suppressions, want %d (the PT008 # patience:ignore)", suppressed, len(res.Suppressed))
	}
}

// TestSARIFURIRelativeToWorkDir: code scanning resolves artifact URIs against the checkout,
// so an absolute path inside the working directory is made relative to it.
func TestSARIFURIRelativeToWorkDir(t *testing.T) {
	wd := filepath.Join(string(filepath.Separator), "repo")
	defer func(f func() (string, error)) { sarifWorkDir = f }(sarifWorkDir)
	sarifWorkDir = func() (string, error) { return wd, nil }
	tests := map[string]string{
		filepath.Join(wd, "ci", "patience.yaml"):                         "ci/patience.yaml",
		"./patience.yaml":                                                "patience.yaml",
		filepath.Join("ci", "a b.yaml"):                                  "ci/a%20b.yaml",
		filepath.Join(string(filepath.Separator), "elsewhere", "p.yaml"): "file:///elsewhere/p.yaml",
	}
	for in, want := range tests {
		if got := sarifURI(in); got != want {
			t.Errorf("sarifURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCheckInputError: an input error (exit 2) is rendered by every CI format — one
// ::error annotation at FILE:LINE:COL, a JUnit <error>, a SARIF tool execution notification —
// so uploading the reports shows it.
func TestCheckInputError(t *testing.T) {
	_, err := check.Load("patience.yaml", []byte("dependencies:\n  - name: api\n    policy:\n      retyr: {max_attempts: 3}\n"))
	if err == nil {
		t.Fatal("want an input error")
	}
	res := check.InputFailed(err, []string{"patience.yaml"}, check.Options{Version: "1.2.3"})
	gh := string(renderCheck(t, "github", res, false))
	if !strings.HasPrefix(gh, "::error file=patience.yaml,line=4,col=7,title=patience check%3A invalid input::dependencies[0].policy.retyr: unknown field") || strings.Count(gh, "\n") != 1 {
		t.Errorf("github:\n%s", gh)
	}
	var suites struct {
		Tests  int `xml:"tests,attr"`
		Errors int `xml:"errors,attr"`
		Suites []struct {
			Cases []struct {
				Name  string `xml:"name,attr"`
				Line  int    `xml:"line,attr"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(renderCheck(t, "junit", res, false), &suites); err != nil {
		t.Fatal(err)
	}
	if suites.Tests != 1 || suites.Errors != 1 || len(suites.Suites) != 1 || suites.Suites[0].Cases[0].Error == nil || suites.Suites[0].Cases[0].Line != 4 {
		t.Errorf("junit: %+v", suites)
	}
	var log SARIFLog
	if err := json.Unmarshal(renderCheck(t, "sarif", res, false), &log); err != nil {
		t.Fatal(err)
	}
	inv := log.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 || inv.ToolExecutionNotifications[0].Locations[0].PhysicalLocation.Region.StartLine != 4 {
		t.Errorf("sarif invocation: %+v", inv)
	}
	var doc map[string]any
	if err := json.Unmarshal(renderCheck(t, "json", res, false), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["passed"] != false || doc["error"].(map[string]any)["line"] != 4.0 {
		t.Errorf("json: %v", doc)
	}
}

func TestJUnitIsValidXML(t *testing.T) {
	res := checkResult(t, checkFixture)
	var suites struct {
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Time     string `xml:"time,attr"`
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
	// Nothing to evaluate: PT010, PT016 and PT017 (no profile), PT012 (no rate) and PT014 (no
	// tries) on both, PT011 on search.
	if skipped != 11 || suites.Skipped != 11 {
		t.Errorf("skipped %d (attr %d), want 11", skipped, suites.Skipped)
	}
	// Two dependencies × 17 rules; shipping's findings (one per rule) fail, PT008 was ignored.
	if cases != 34 || suites.Tests != 34 {
		t.Errorf("testcases %d (tests=%d), want 34", cases, suites.Tests)
	}
	if suites.Errors != 0 || suites.Time == "" {
		t.Errorf("errors %d, time %q", suites.Errors, suites.Time)
	}
	if failures != len(res.Findings) || suites.Failures != failures {
		t.Errorf("failures %d (attr %d), findings %d", failures, suites.Failures, len(res.Findings))
	}
}

// TestGitHubEscaping: the escaping of actions/toolkit packages/core/src/command.ts (commit
// a944251): escapeData replaces % with %25, \r with %0D and \n with %0A; escapeProperty also
// : with %3A and , with %2C. % first, so an escape in the input stays literal.
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
		{"x\n::error title=pwned::owned", "x%0A::error title=pwned::owned", "x%0A%3A%3Aerror title=pwned%3A%3Aowned"},
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

// interruptedResult is a check run stopped (Ctrl-C) while it replayed the second of its
// scenarios: one.yaml finished, two.yaml did not.
func interruptedResult(t *testing.T) *check.Result {
	t.Helper()
	f, err := check.Load("patience.yaml", []byte("dependencies:\n  - name: search\n    policy: {timeout: 1s}\nscenarios: [one.yaml, two.yaml]\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	replay := func(ctx context.Context, path string) (*check.Replay, error) {
		if path == "two.yaml" {
			cancel()
			return nil, ctx.Err()
		}
		return &check.Replay{Scenario: "one", File: path, Expect: map[string]scenario.Expect{"*": {Amplification: "<= 1.5"}},
			Policies: []check.ReplayedPolicy{{Name: "a", SuccessRate: 1, Amplification: 1.2}}}, nil
	}
	res, err := check.Run(ctx, []*check.File{f}, check.Options{Version: "1.2.3", Replay: replay})
	if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
		t.Fatalf("want an interrupted result, got %v, %v", res, err)
	}
	return res
}

// TestCheckInterruptedReports: every format says the run was interrupted and what it did not
// replay — the text and Markdown verdict (~: nothing that finished fails), a SARIF
// notification at the scenarios: entry with executionSuccessful false, a skipped JUnit case.
func TestCheckInterruptedReports(t *testing.T) {
	res := interruptedResult(t)
	golden.Assert(t, "check_text_interrupted_80", renderCheckWidth(t, "text", res, false, 80))
	golden.Assert(t, "check_markdown_interrupted", renderCheck(t, "markdown", res, false))
	var log SARIFLog
	if err := json.Unmarshal(renderCheck(t, "sarif", res, false), &log); err != nil {
		t.Fatal(err)
	}
	inv := log.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 || inv.ToolExecutionNotifications[0].Message.Text != "interrupted: two.yaml was not replayed" ||
		inv.ToolExecutionNotifications[0].Locations[0].PhysicalLocation.Region.StartLine != 4 {
		t.Errorf("sarif invocation: %+v", inv)
	}
	if junit := string(renderCheck(t, "junit", res, false)); !strings.Contains(junit, `<skipped message="interrupted before it was replayed">`) {
		t.Errorf("junit has no skipped case for two.yaml:\n%s", junit)
	}
	if gh := string(renderCheck(t, "github", res, false)); !strings.Contains(gh, "::warning file=patience.yaml,line=4,col=23,title=patience check interrupted::two.yaml was not replayed\n") ||
		!strings.Contains(gh, "title=patience check interrupted::~ 0 errors") {
		t.Errorf("github:\n%s", gh)
	}
	// HTML: headed interrupted, marked ~ (nothing that finished fails), naming what was not replayed.
	html := string(renderCheck(t, "html", res, false))
	for _, want := range []string{`class="verdict lvl-provisional"`, "check interrupted", "not replayed: two.yaml"} {
		if !strings.Contains(html, want) {
			t.Errorf("html lacks %q", want)
		}
	}
}

// nothingResult is a run that read a README and walked a directory of logs, and so checked
// nothing; allow is --allow-empty.
func nothingResult(t *testing.T, allow bool) *check.Result {
	t.Helper()
	cs := check.NewConfigs()
	cs.Skipped = []check.SkippedFile{
		{Path: "README.md", Reason: "not YAML or JSON: line 3: did not find expected comment or line break"},
		{Path: "logs", Reason: "a directory of 2 files, none of a kind a walk reads (.yaml, .yml, .json, .ini, .cfg, .conf or no extension)"},
	}
	res, err := check.Run(context.Background(), nil, check.Options{Version: "1.2.3", Configs: cs, Paths: []string{"README.md", "logs"}, Read: 1, AllowEmpty: allow})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A run that checked nothing is an error in every format, which names each file skipped with
// its reason; with --allow-empty it passes, provisionally, and every format still says so.
func TestCheckNothingChecked(t *testing.T) {
	for _, allow := range []bool{false, true} {
		res := nothingResult(t, allow)
		name := "check_nothing"
		if allow {
			name = "check_nothing_allowed"
		}
		for _, format := range CheckFormats.Names() {
			if format == "html" {
				continue // html_test.go holds the HTML goldens
			}
			out := renderCheck(t, format, res, false)
			golden.Assert(t, name+"_"+format, out)
			for _, want := range []string{"nothing checked", "README.md", "not YAML or JSON", "logs"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("%s %s lacks %q", name, format, want)
				}
			}
		}
	}
	// The machine formats, read back.
	var log SARIFLog
	if err := json.Unmarshal(renderCheck(t, "sarif", nothingResult(t, false), false), &log); err != nil {
		t.Fatal(err)
	}
	inv := log.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 3 || inv.ToolExecutionNotifications[0].Level != "error" || inv.ToolExecutionNotifications[1].Level != "note" {
		t.Errorf("sarif invocation: %+v", inv)
	}
	if err := json.Unmarshal(renderCheck(t, "sarif", nothingResult(t, true), false), &log); err != nil {
		t.Fatal(err)
	}
	if inv := log.Runs[0].Invocations[0]; !inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 3 || inv.ToolExecutionNotifications[0].Level != "warning" {
		t.Errorf("sarif invocation (--allow-empty): %+v", inv)
	}
	var suites struct {
		Tests   int `xml:"tests,attr"`
		Errors  int `xml:"errors,attr"`
		Skipped int `xml:"skipped,attr"`
	}
	for _, c := range []struct {
		allow                  bool
		tests, errors, skipped int
	}{{false, 3, 1, 2}, {true, 3, 0, 3}} {
		if err := xml.Unmarshal(renderCheck(t, "junit", nothingResult(t, c.allow), false), &suites); err != nil {
			t.Fatal(err)
		}
		if suites.Tests != c.tests || suites.Errors != c.errors || suites.Skipped != c.skipped {
			t.Errorf("junit (allow %v): %+v, want %d tests, %d errors, %d skipped", c.allow, suites, c.tests, c.errors, c.skipped)
		}
	}
	var doc struct {
		NothingChecked bool          `json:"nothing_checked"`
		Outcome        check.Outcome `json:"outcome"`
		Summary        check.Summary `json:"summary"`
		Error          *check.InputError
	}
	if err := json.Unmarshal(renderCheck(t, "json", nothingResult(t, false), false), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.NothingChecked || doc.Outcome != check.OutcomeError || doc.Error == nil || doc.Error.File != "README.md" ||
		doc.Summary.Read != 1 || doc.Summary.Skipped != 2 || doc.Summary.Checked != 0 {
		t.Errorf("json: %+v", doc)
	}
}

// TestCheckHTMLNothingChecked: the HTML report of a run that checked nothing lists each file
// skipped with its reason, as every other format does (it showed the error line alone).
func TestCheckHTMLNothingChecked(t *testing.T) {
	for _, allow := range []bool{false, true} {
		out := string(renderCheck(t, "html", nothingResult(t, allow), false))
		for _, want := range []string{"nothing checked", "<h3>Skipped</h3>", "README.md: not YAML or JSON", "logs"} {
			if !strings.Contains(out, want) {
				t.Errorf("allow-empty %v: the HTML report lacks %q", allow, want)
			}
		}
	}
}
