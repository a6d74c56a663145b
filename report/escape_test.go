package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
)

// hostile is a name an attacker controls (a scenario, a dependency, a policy, a route): a
// line break followed by a GitHub Actions workflow command, raw HTML, a table's cell
// separator and a colour escape (issue 24, item 7).
const hostile = "x\n::error title=pwned::owned\n<img src=x onerror=alert(1)>|\x1b[31m"

// hostileYAML is hostile as a YAML double-quoted scalar (\e is YAML's escape for ESC).
const hostileYAML = `"x\n::error title=pwned::owned\n<img src=x onerror=alert(1)>|\e[31m"`

// ownCommand is a workflow command the github format writes itself.
var ownCommand = regexp.MustCompile(`^::(error|warning|notice) (file=[^,:]*(,line=\d+(,col=\d+)?)?,)?title=[^:]*::`)

// assertHostileSafe checks one rendering of a result that carries hostile: no line from
// input begins with "::", no raw <img in Markdown, no ESC byte from input in text, and
// every table keeps its column count.
func assertHostileSafe(t *testing.T, what, format string, colour bool, out []byte) {
	t.Helper()
	s := string(out)
	if !strings.Contains(s, "x") {
		t.Fatalf("%s: the hostile name is not in the output at all:\n%s", what, s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		plain := strings.TrimLeft(sgr.ReplaceAllString(l, ""), " \t")
		// The name's own lines must not appear at all: textSafe keeps it on one line, so the
		// command guard (which would show \x3a) has nothing to do either.
		for _, start := range []string{"::error title=pwned", `\x3a:error title=pwned`} {
			if strings.HasPrefix(strings.ToLower(plain), strings.ToLower(start)) {
				t.Errorf("%s: line %d starts with a line of the name: %q", what, i+1, l)
			}
		}
		if !strings.HasPrefix(plain, "::") {
			continue
		}
		if format != "github" || !ownCommand.MatchString(plain) {
			t.Errorf("%s: line %d from input is a workflow command: %q", what, i+1, l)
		}
	}
	switch format {
	case "text":
		if !colour && strings.Contains(s, "\x1b") {
			t.Errorf("%s: an ESC byte reached text output without colour: %q", what, s)
		}
		// With colour the renderer writes SGR sequences itself: the name's own follows its "|".
		if strings.Contains(s, "|\x1b[31m") {
			t.Errorf("%s: the name's colour escape reached the terminal: %q", what, s)
		}
		assertBoxTables(t, what, lines)
	case "markdown":
		if strings.Contains(strings.ToLower(s), "<img") {
			t.Errorf("%s: raw <img in Markdown:\n%s", what, s)
		}
		if strings.Contains(s, "\x1b") {
			t.Errorf("%s: an ESC byte in Markdown: %q", what, s)
		}
		assertMDTables(t, what, lines)
	}
}

// mdCellSep matches a cell separator of a GitHub-flavoured Markdown table row: a "|" not
// escaped by a backslash.
var mdCellSep = regexp.MustCompile(`(^|[^\\])\|`)

// assertMDTables: every row of a Markdown table has as many cells as its header.
func assertMDTables(t *testing.T, what string, lines []string) {
	t.Helper()
	want, code := -1, false
	for i, l := range lines {
		// A chart's fenced or <pre> block is not Markdown: a line of it may start with |.
		switch {
		case strings.HasPrefix(l, "```"), strings.HasSuffix(l, "<pre>"), l == "</pre>":
			code = !code
			continue
		case code:
			continue
		}
		if !strings.HasPrefix(l, "|") {
			if want >= 0 && strings.TrimSpace(l) != "" {
				t.Errorf("%s: line %d breaks a table: %q", what, i+1, l)
			}
			want = -1
			continue
		}
		n := len(mdCellSep.FindAllString(l, -1))
		if want < 0 {
			want = n
			continue
		}
		if n != want {
			t.Errorf("%s: line %d has %d cell separators, its table %d: %q", what, i+1, n, want, l)
		}
	}
}

// assertBoxTables: every row of a bordered text table has as many │ as the row under its
// top border, and a table ends with its bottom border.
func assertBoxTables(t *testing.T, what string, lines []string) {
	t.Helper()
	want := -1
	for i, l := range lines {
		plain := sgr.ReplaceAllString(l, "")
		switch {
		case strings.HasPrefix(plain, "┌"):
			want = 0
		case want < 0:
		case strings.HasPrefix(plain, "└"):
			want = -1
		case strings.HasPrefix(plain, "├"):
		case strings.HasPrefix(plain, "│"):
			n := strings.Count(plain, "│")
			if want == 0 {
				want = n
			} else if n != want {
				t.Errorf("%s: line %d has %d │, its table %d: %q", what, i+1, n, want, l)
			}
		default:
			t.Errorf("%s: line %d breaks a table: %q", what, i+1, l)
		}
	}
}

// renderAll renders v through every format of reg, colour off and on.
func renderAll[T any](t *testing.T, reg Registry[T], what string, v T, widths ...int) {
	t.Helper()
	if len(widths) == 0 {
		widths = []int{100}
	}
	for _, format := range reg.Names() {
		for _, colour := range []bool{false, true} {
			for _, width := range widths {
				render, err := reg.Get(format)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := render(&b, v, replayOptions(colour, width)); err != nil {
					t.Fatalf("%s %s: %v", what, format, err)
				}
				assertHostileSafe(t, fmt.Sprintf("%s -o %s (colour %v, width %d)", what, format, colour, width), format, colour, b.Bytes())
			}
		}
	}
}

// TestHostileNamesCheck: a dependency named hostile, a skipped file and an input error in a
// file named hostile, through every check format.
func TestHostileNamesCheck(t *testing.T) {
	res := checkResult(t, strings.Replace(checkFixture, `name: shipping`, "name: "+hostileYAML, 1))
	res.Skipped = append(res.Skipped, check.SkippedFile{Path: hostile + ".yaml", Reason: "not YAML: " + hostile})
	renderAll(t, CheckFormats, "check", res, 60, 100)
	nothing := nothingResult(t, false)
	nothing.Error.File = hostile
	nothing.Error.Message = "quoted " + hostile
	nothing.Skipped = append(nothing.Skipped, check.SkippedFile{Path: hostile, Reason: hostile})
	renderAll(t, CheckFormats, "check (nothing checked)", nothing)
	allowed := nothingResult(t, true)
	allowed.NothingCheckedReason = "no file in " + hostile
	renderAll(t, CheckFormats, "check (nothing checked, allowed)", allowed)
	chains := chainResult(t)
	for i := range chains.Chains {
		for j := range chains.Chains[i].Layers {
			chains.Chains[i].Layers[j].Name = hostile
		}
	}
	renderAll(t, CheckFormats, "check (chains)", chains, 80, 160)
}

// TestHostileNamesReplay: a scenario, its description and its policies named hostile.
func TestHostileNamesReplay(t *testing.T) {
	res := replayFixture(t)
	res.Scenario, res.Description = hostile, hostile
	for i := range res.Policies {
		res.Policies[i].Name = fmt.Sprintf("%s%d", hostile, i)
	}
	for i := range res.Incidents {
		res.Incidents[i].Name = hostile
	}
	res.Lesson = &replay.Lesson{Recommends: hostile, Why: hostile}
	renderAll(t, ReplayFormats, "replay", res, 80, 160)
	a := agreementFixture(1)
	a.Simulated.Scenario = hostile
	for _, r := range []*replay.Result{a.Simulated, a.Live} {
		for i := range r.Policies {
			r.Policies[i].Name = fmt.Sprintf("%s%d", hostile, i)
		}
	}
	renderAll(t, AgreementFormats, "simulated vs live", a, 80)
}

// TestHostileNamesStorm: a storm scenario, its trigger and its policies named hostile.
func TestHostileNamesStorm(t *testing.T) {
	res := stormFixture()
	res.Scenario, res.Description, res.Policy = hostile, hostile, hostile+"0"
	for i := range res.Policies {
		res.Policies[i].Name = fmt.Sprintf("%s%d", hostile, i)
	}
	for i := range res.Triggers {
		res.Triggers[i].Name = hostile
	}
	renderAll(t, StormFormats, "storm", res, 80, 160)
}

// TestHostileNamesProbe: a target URL, a header, a note and an error sample carrying hostile.
func TestHostileNamesProbe(t *testing.T) {
	res := probeFixture()
	res.Target.URL = "http://127.0.0.1/" + hostile
	res.Target.Headers = []string{"X-Note: " + hostile}
	res.Notes = []string{"note " + hostile}
	renderAll(t, ProbeFormats, "probe", res, 80, 160)
}

// TestHostileNamesAdvise: a route and a file named hostile.
func TestHostileNamesAdvise(t *testing.T) {
	res := adviseNginx(t)
	for i := range res.Groups {
		res.Groups[i].Key = fmt.Sprintf("GET /%s%d", hostile, i)
	}
	res.Source.Files = []string{hostile}
	res.Source.MalformedSample = []string{hostile + ":1: " + hostile}
	renderAll(t, AdviseFormats, "advise", res, 80, 160)
}

// TestHostileNamesScenariosServe: the scenario list, scenarios validate and serve's counters.
func TestHostileNamesScenariosServe(t *testing.T) {
	l := scenarioListFixture()
	l.Scenarios[0].Name, l.Scenarios[0].Description, l.Scenarios[0].Policies = hostile, hostile, []string{hostile}
	renderAll(t, ScenarioListFormats, "scenarios", l, 60, 100)
	v := scenario.Validation{Schema: "patience/scenarios-validate/v1", Files: []scenario.ValidatedFile{{File: hostile, Name: hostile, Policies: []string{hostile}}}}
	renderAll(t, ScenarioValidationFormats, "scenarios validate", v)
	s := serveFixture(3)
	s.Scenario = hostile
	s.ByFault = map[string]int64{hostile: 1}
	renderAll(t, ServeFormats, "serve", s, 80)
}

func TestTextSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"checkout-api", "checkout-api"},
		{"search, v2: 100% fresh", "search, v2: 100% fresh"},
		{"a\nb", `a\nb`},
		{"a\r\nb", `a\r\nb`},
		{"tab\there", `tab\there`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"bell\a", `bell\a`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"line sep \u2028 para \u2029", `line sep \u2028 para \u2029`},
		{"nbsp\u00a0", `nbsp\u00a0`},
		{"bad \xff byte", `bad \xff byte`},
		{`back\slash "quoted"`, `back\slash "quoted"`}, // kept: only what Quote calls non-printable
		{"café → ✓ 中文", "café → ✓ 中文"},
		{"", ""},
	} {
		if got := textSafe(tc.in); got != tc.want {
			t.Errorf("textSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.ContainsAny(textSafe(tc.in), "\n\r\x1b") {
			t.Errorf("textSafe(%q) keeps a line break or ESC", tc.in)
		}
	}
	if got := textProse("A scenario\nfolded over\n\n  two lines\t\x1b[2J"); got != `A scenario folded over two lines \x1b[2J` {
		t.Errorf("textProse = %q", got)
	}
}

func TestMarkdownEscape(t *testing.T) {
	for _, tc := range []struct{ in, text, code string }{
		{"checkout-api", "checkout-api", "`checkout-api`"},
		{"patience.yaml:4:34", "patience.yaml:4:34", "`patience.yaml:4:34`"},
		{"<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>", "<code>&lt;img src=x onerror=alert(1)></code>"},
		{"a|b", `a\|b`, `<code>a\|b</code>`},
		{`a\|b`, `a\\\|b`, `<code>a\\\|b</code>`}, // a backslash cannot undo the escape of |
		{"x\n::error::y", `x\\n::error::y`, `<code>x\\n::error::y</code>`},
		{"**bold** _em_ [link](http://x)", `\*\*bold\*\* \_em\_ \[link](http://x)`, "`**bold** _em_ [link](http://x)`"},
		{"&amp;", "&amp;amp;", "<code>&amp;amp;</code>"},
		{"tick`s", "tick`s", "<code>tick`s</code>"},
	} {
		if got := mdText(tc.in); got != tc.text {
			t.Errorf("mdText(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := mdCode(tc.in); got != tc.code {
			t.Errorf("mdCode(%q) = %q, want %q", tc.in, got, tc.code)
		}
	}
}

func TestGuardLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"::error::x\n", `\x3a:error::x` + "\n"},
		{"    ::error title=a::b\n", `    \x3a:error title=a::b` + "\n"},
		{"\t \u00a0::warning::w", "\t \u00a0\\x3a:warning::w"},
		{"\x1b[90m::notice::n\x1b[0m\n", "\x1b[90m\\x3a:notice::n\x1b[0m\n"},
		{"a ::error::x\n", "a ::error::x\n"},
		{": single\n", ": single\n"},
		{"\n", "\n"},
	} {
		if got := string(guardLine([]byte(tc.in))); got != tc.want {
			t.Errorf("guardLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestNoWorkflowCommandFromWrapping: a name without a line break whose "::error::" lands at
// the start of a line — where a report wraps, or where a file's location leads a finding —
// is not a workflow command: the GitHub runner trims leading white space before it looks
// for "::" (actions/runner src/Runner.Common/ActionCommand.cs, TryParseV2).
func TestNoWorkflowCommandFromWrapping(t *testing.T) {
	res := checkResult(t, strings.Replace(checkFixture, `"search, v2: 100% fresh"`, `"search v2 ::error title=pwned::owned"`, 1))
	for i := range res.Findings {
		res.Findings[i].File = "::error::pwned.yaml"
	}
	res.Skipped = append(res.Skipped, check.SkippedFile{Path: "a", Reason: strings.Repeat("word ", 12) + "::error::owned"})
	for _, format := range CheckFormats.Names() {
		if format == "github" {
			continue
		}
		for width := 30; width <= 120; width += 7 {
			out := renderCheckWidth(t, format, res, false, width)
			for i, l := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") {
					t.Errorf("-o %s at width %d: line %d is a workflow command: %q", format, width, i+1, l)
				}
			}
		}
	}
}

// TestStructuredFormatsEscape: JSON, SARIF and JUnit carry the hostile name through their
// encoders (encoding/json, encoding/xml) escaped, so it decodes back whole, and no line of
// theirs is a workflow command or holds an ESC byte.
func TestStructuredFormatsEscape(t *testing.T) {
	res := checkResult(t, strings.Replace(checkFixture, `name: shipping`, "name: "+hostileYAML, 1))
	for _, format := range []string{"json", "sarif", "junit"} {
		out := renderCheck(t, format, res, false)
		if bytes.ContainsAny(out, "\x1b") {
			t.Errorf("-o %s: an ESC byte", format)
		}
		for i, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "::") || strings.HasPrefix(strings.TrimSpace(l), "<img") {
				t.Errorf("-o %s: line %d is the name's: %q", format, i+1, l)
			}
		}
		switch format {
		case "json":
			var back check.Result
			if err := json.Unmarshal(out, &back); err != nil {
				t.Fatal(err)
			}
			if !hasDependency(back.Findings, hostile) {
				t.Errorf("-o json: the name does not decode back whole")
			}
		case "sarif":
			if !strings.Contains(string(out), `onerror=alert(1)\u003e|\u001b[31m`) && !strings.Contains(string(out), `\u003cimg`) {
				t.Errorf("-o sarif: the name's < and ESC are not JSON-escaped:\n%s", out)
			}
		case "junit":
			// encoding/xml writes a line break in text or an attribute as &#xA; and replaces
			// ESC, which XML 1.0 cannot carry, by U+FFFD.
			if !strings.Contains(string(out), "x&#xA;::error title=pwned::owned&#xA;&lt;img") {
				t.Errorf("-o junit: the name's line breaks are not escaped:\n%s", out)
			}
			if err := xml.Unmarshal(out, new(struct{})); err != nil {
				t.Errorf("-o junit: not XML: %v", err)
			}
		}
	}
}

func hasDependency(fs []check.Finding, name string) bool {
	for _, f := range fs {
		if f.Dependency == name {
			return true
		}
	}
	return false
}
