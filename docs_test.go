package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/patience-dev/patience/source"
	"github.com/patience-dev/patience/verdict"
)

// markdownFiles are the documents whose links are checked: README.md and every docs/*.md.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, docs...)
}

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// proseLines returns the lines of a Markdown document outside fenced code blocks, each with
// its 1-based line number; inline code spans are blanked so a `[x](y)` in code is no link.
func proseLines(text string) (lines []string, numbers []int) {
	fence := false
	codeSpan := regexp.MustCompile("`[^`]*`")
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		lines = append(lines, codeSpan.ReplaceAllString(l, "``"))
		numbers = append(numbers, i+1)
	}
	return lines, numbers
}

// headingSlug is the anchor GitHub gives a heading: lower case, punctuation other than '-'
// and '_' dropped, spaces turned into '-'.
func headingSlug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors lists the anchors of a document: its headings' (with GitHub's -1, -2 suffixes for
// repeated ones) and its HTML anchors.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimLeft(l, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		s := headingSlug(strings.TrimSpace(h))
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// htmlAnchor is an anchor written as HTML: <a id="name"></a> (docs/scenario.md) or name=.
var htmlAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocLinks: every relative link in README.md and docs/*.md reaches a file, and every
// #anchor a heading of that file (issue 26 item 1: the README's sections moved to docs/, and a
// moved section must not leave a dead link behind).
func TestDocLinks(t *testing.T) {
	checked := 0
	for _, file := range markdownFiles(t) {
		lines, numbers := proseLines(readDoc(t, file))
		for i, l := range lines {
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, anchor, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), path)
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %s: %v", file, numbers[i], target, err)
					continue
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: link %s: an anchor into a file that is not Markdown", file, numbers[i], target)
					continue
				}
				if !anchors(readDoc(t, dest))[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading with the anchor #%s", file, numbers[i], target, dest, anchor)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links found: the link pattern no longer matches the documents", checked)
	}
}

// TestHeadingSlug pins the anchor rule the link check uses on the headings the docs link to.
func TestHeadingSlug(t *testing.T) {
	for _, tt := range []struct{ heading, want string }{
		{"`patience probe URL` — measure, then recommend", "patience-probe-url--measure-then-recommend"},
		{"`patience check [FILE|DIR...]` — the policy gate", "patience-check-filedir--the-policy-gate"},
		{"2. Command line and exit codes", "2-command-line-and-exit-codes"},
		{"Reading the reports: ✓ ~ ✗", "reading-the-reports---"},
		{"HdrHistogram interval logs (`.hlog`)", "hdrhistogram-interval-logs-hlog"},
	} {
		if got := headingSlug(tt.heading); got != tt.want {
			t.Errorf("headingSlug(%q) = %q, want %q", tt.heading, got, tt.want)
		}
	}
}

// readmeSection returns the text of README's "## name" section, up to the next "## ".
func readmeSection(t *testing.T, readme, name string) string {
	t.Helper()
	_, after, ok := strings.Cut(readme, "\n## "+name+"\n")
	if !ok {
		t.Fatalf("README has no ## %s section", name)
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	return after
}

// TestREADMEQuickStart: the quick start has exactly the two commands a newcomer runs first,
// the demo and the test command .ci/run runs (issue 26 item 1: install and first commands
// before any contributor material).
func TestREADMEQuickStart(t *testing.T) {
	readme := readDoc(t, "README.md")
	ci := readDoc(t, filepath.Join(".ci", "run"))
	_, after, ok := strings.Cut(ci, "# The README's test command, exactly:\n")
	if !ok {
		t.Fatal(".ci/run has no line \"# The README's test command, exactly:\"")
	}
	testCommand, _, _ := strings.Cut(after, "\n")
	quick := readmeSection(t, readme, "Quick start")
	for _, cmd := range []string{"go run . demo", testCommand} {
		if !strings.Contains(quick, "\n"+cmd+" ") && !strings.Contains(quick, "\n"+cmd+"\n") {
			t.Errorf("README's quick start does not show %q", cmd)
		}
	}
	install := readmeSection(t, readme, "Install")
	if !strings.Contains(install, "go install github.com/patience-dev/patience@latest") {
		t.Error("README's install section does not show go install …@latest")
	}
	if strings.Index(readme, "## Install") > strings.Index(readme, "## Commands") {
		t.Error("README's install comes after its commands")
	}
	for _, late := range []string{"PATIENCE_TIMING", "-fuzz"} {
		if i := strings.Index(readme, late); i >= 0 && i < strings.Index(readme, "## Commands") {
			t.Errorf("README mentions %s before its first command: contributor material belongs in docs/contributing.md", late)
		}
	}
}

// TestREADMELegend: README's legend shows each verdict level with the mark the reports print
// (verdict.Level.Symbol), so the README and the tool cannot disagree (issue 26: it showed "!"
// for degraded where the tool prints "~").
func TestREADMELegend(t *testing.T) {
	readme := readDoc(t, "README.md")
	legend := readmeSection(t, readme, "Reading the reports: ✓ ~ ✗")
	for _, l := range []verdict.Level{verdict.Good, verdict.Provisional, verdict.Degraded, verdict.Bad, verdict.NotGraded} {
		row := "| `" + l.Symbol() + "` | `" + string(l) + "`"
		if !strings.Contains(legend, row) {
			t.Errorf("README's legend has no row %q", row)
		}
	}
	for _, file := range markdownFiles(t) {
		text := readDoc(t, file)
		for _, wrong := range []string{"**! degraded", "`degraded` (!)"} {
			if strings.Contains(text, wrong) {
				t.Errorf("%s shows %q: the degraded mark is %q", file, wrong, verdict.Degraded.Symbol())
			}
		}
	}
}

// TestREADMEFirstScreens: every command has its example in README with the first screen it
// prints, and no captured line is wider than the 80 columns it was captured at.
func TestREADMEFirstScreens(t *testing.T) {
	readme := readDoc(t, "README.md")
	for _, name := range []string{"probe", "advise", "replay", "storm", "check", "serve", "demo", "scenarios"} {
		if !strings.Contains(readme, "\n### "+name+" ") {
			t.Errorf("README has no ### %s section", name)
		}
		if !strings.Contains(readme, "```console\n$ patience "+name) {
			t.Errorf("README shows no first screen of patience %s", name)
		}
	}
	inConsole := false
	for i, l := range strings.Split(readme, "\n") {
		switch {
		case l == "```console":
			inConsole = true
		case l == "```":
			inConsole = false
		case inConsole && utf8.RuneCountInString(l) > 80:
			t.Errorf("README.md:%d: a captured line of %d columns, past 80", i+1, utf8.RuneCountInString(l))
		}
	}
}

// The README's defaults table lists every library a source reader knows (issue 28): a reader
// that learns a library without the table saying its defaults fails here.
func TestREADMESourceDefaults(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "#### Source code: the libraries read and the defaults assumed")
	if start < 0 {
		t.Fatal("README has no source defaults table")
	}
	table := readme[start:]
	head := strings.Index(table, "\n| language")
	if head < 0 {
		t.Fatal("README's source defaults section has no table")
	}
	table = table[head+1:]
	if end := strings.Index(table, "\n\n"); end >= 0 {
		table = table[:end]
	}
	for _, lang := range source.Languages {
		for _, lib := range lang.Libraries {
			if !strings.Contains(table, "| "+lib.Name+" |") && !strings.Contains(table, ", "+lib.Name+" |") && !strings.Contains(table, "| "+lib.Name+" (") {
				t.Errorf("README's source defaults table has no row for %s's %s", lang.Name, lib.Name)
			}
		}
	}
}
