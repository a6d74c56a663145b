package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/replay"
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
	want := -1
	for i, l := range lines {
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
	res := checkResult(t, strings.Replace(checkFixture, `"search, v2: 100% fresh"`, hostileYAML, 1))
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
	v := ScenarioValidation{Schema: "patience/scenarios-validate/v1", Files: []ValidatedFile{{File: hostile, Name: hostile, Policies: []string{hostile}}}}
	renderAll(t, ScenarioValidationFormats, "scenarios validate", v)
	s := serveFixture(3)
	s.Scenario = hostile
	s.ByFault = map[string]int64{hostile: 1}
	renderAll(t, ServeFormats, "serve", s, 80)
}
