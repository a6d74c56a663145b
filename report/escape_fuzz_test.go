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

// ownTag matches an HTML tag our Markdown writes itself; any other "<" in Markdown output
// came from input unescaped.
var ownTag = regexp.MustCompile(`^</?(details|summary|code|pre|br)>`)

// FuzzRenderHostileNames puts an arbitrary name — as a dependency, a finding's file, a
// skipped file's reason, a scenario and its policies — through the check and replay
// renderers and holds what TestHostileNames holds for one name: no line from input is a
// workflow command (the github format's lines are all ours), no ESC byte in text without
// colour, no HTML tag in Markdown but ours, and every table keeps its columns.
func FuzzRenderHostileNames(f *testing.F) {
	for _, seed := range []string{
		hostile, "", "shipping", "::error::x", "a ::warning title=t::w", "a|b|c", "a\\|b", "\r\n::notice::n",
		"```\n<script>alert(1)</script>", "<IMG SRC=x onerror=1>", "&lt;img&gt;", "\u202eevil\u2066", "\xff\xfe",
		"**bold** _em_ [l](http://x) `c`", "\x1b]52;c;ZXZpbA==\x07", "\u0085::error::nel", "\u2028::error::ls",
		strings.Repeat("word ", 30) + "::error::wrapped",
	} {
		f.Add(seed)
	}
	base := checkResult(f, checkFixture)
	rep := replayFixture(f)
	f.Fuzz(func(t *testing.T, name string) {
		res := *base
		res.Findings = append([]check.Finding(nil), base.Findings...)
		for i := range res.Findings {
			res.Findings[i].Dependency = name
			res.Findings[i].File = name
		}
		res.Skipped = []check.SkippedFile{{Path: name, Reason: name}}
		boxes := !strings.ContainsAny(name, "│┌└├┼─") // a name may draw a table's border itself
		for _, format := range CheckFormats.Names() {
			for _, width := range []int{40, 100} {
				fuzzAssertSafe(t, "check -o "+format, format, renderFuzz(t, CheckFormats, format, &res, width), boxes)
			}
		}
		r := *rep
		r.Scenario, r.Description = name, name
		r.Policies = append([]replay.PolicyResult(nil), rep.Policies...)
		for i := range r.Policies {
			r.Policies[i].Name = fmt.Sprintf("%s%d", name, i)
		}
		for _, format := range []string{"text", "markdown"} {
			fuzzAssertSafe(t, "replay -o "+format, format, renderFuzz(t, ReplayFormats, format, &r, 80), boxes)
		}
	})
}

func renderFuzz[T any](t *testing.T, reg Registry[T], format string, v T, width int) string {
	t.Helper()
	render, err := reg.Get(format)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := render(&b, v, replayOptions(false, width)); err != nil {
		t.Fatalf("%s: %v", format, err)
	}
	return b.String()
}

func fuzzAssertSafe(t *testing.T, what, format, out string, boxes bool) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		start := strings.TrimLeft(l, " \t\v\f\r\u0085\u00a0")
		if format == "github" {
			if l != "" && !ownCommand.MatchString(l) {
				t.Fatalf("%s: line %d is not one of our commands: %q", what, i+1, l)
			}
			continue
		}
		if strings.HasPrefix(start, "::") {
			t.Fatalf("%s: line %d is a workflow command: %q", what, i+1, l)
		}
	}
	switch format {
	case "text":
		if strings.Contains(out, "\x1b") {
			t.Fatalf("%s: ESC byte in text: %q", what, out)
		}
		if boxes {
			assertBoxTables(t, what, lines)
		}
	case "markdown":
		for i := strings.Index(out, "<"); i >= 0; i = nextIndex(out, "<", i) {
			if !ownTag.MatchString(out[i:]) {
				t.Fatalf("%s: an HTML tag from input: %q", what, out[i:min(len(out), i+40)])
			}
		}
		assertMDTables(t, what, lines)
	}
}

func nextIndex(s, sub string, after int) int {
	j := strings.Index(s[after+1:], sub)
	if j < 0 {
		return -1
	}
	return after + 1 + j
}
