package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/patience-dev/patience/check"
)

// CheckFormats are the output formats of `patience check` (-o and --report).
var CheckFormats = Registry[*check.Result]{
	"text":     CheckText,
	"json":     JSON[*check.Result],
	"markdown": CheckMarkdown,
	"html":     CheckHTML,
	"junit":    CheckJUnit,
	"sarif":    CheckSARIF,
	"github":   CheckGitHub,
}

// inputMessage is an input error without its location: "FIELD: message".
func inputMessage(e *check.InputError) string {
	if e.Field != "" {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

// checkVerdict is the one line that leads every human report: pass or fail, counts, scope.
func checkVerdict(r *check.Result) (mark, word, counts string) {
	mark, word = "✓", "passed"
	if !r.Passed {
		mark, word = "✗", "failed"
	}
	counts = fmt.Sprintf("%s, %s", plural(r.Summary.Errors, "error"), plural(r.Summary.Warnings, "warning"))
	return mark, word, counts
}

// checkScope says what was checked: "3 dependencies, 1 scenario in patience.yaml".
func checkScope(r *check.Result) string {
	parts := []string{plural(r.Summary.Dependencies, "dependency")}
	if r.Summary.Scenarios > 0 {
		parts = append(parts, plural(r.Summary.Scenarios, "scenario"))
	}
	s := strings.Join(parts, ", ")
	if len(r.Files) > 0 {
		s += " in " + strings.Join(r.Files, ", ")
	}
	if c := configScope(r); c != "" {
		s += "; " + c
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// location renders FILE:LINE:COL, leaving out what is unknown.
func location(f check.Finding) string {
	s := f.File
	if f.Line > 0 {
		s += fmt.Sprintf(":%d", f.Line)
		if f.Col > 0 {
			s += fmt.Sprintf(":%d", f.Col)
		}
	}
	return s
}

// CheckText renders a check result for people: the verdict first, then every finding with
// where it is, what will happen in production and the fix.
func CheckText(w io.Writer, r *check.Result, opts Options) error {
	st := opts.Styles
	mark, word, counts := checkVerdict(r)
	verdict := st.Good
	if !r.Passed {
		verdict = st.Bad
	}
	var b strings.Builder
	if e := r.Error; e != nil {
		fmt.Fprintf(&b, "%s %s\n", st.Bad.Render("✗ check could not run:"), st.Verdict.Render(e.Location()+": "+inputMessage(e)))
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "%s %s\n", verdict.Render(mark+" check "+word+":"), st.Verdict.Render(counts))
	fmt.Fprintf(&b, "%s\n", st.Muted.Render(fmt.Sprintf("%s · fail on %s · %s", checkScope(r), r.FailOn, plural(len(r.Rules), "rule"))))
	if r.Summary.Suppressed > 0 {
		fmt.Fprintf(&b, "%s\n", st.Muted.Render(fmt.Sprintf("%s suppressed by # patience:ignore", plural(r.Summary.Suppressed, "finding"))))
	}
	for _, sk := range r.Skipped {
		fmt.Fprintf(&b, "%s\n", st.Muted.Render("skipped "+sk.Path+": "+sk.Reason))
	}
	checkChainsText(&b, r, st)
	for _, f := range r.Findings {
		level := st.Warn
		if f.Level == check.LevelError {
			level = st.Bad
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "%s %s %s %s %s\n",
			st.Muted.Render(location(f)),
			level.Render(fmt.Sprintf("%-7s", f.Level)),
			st.Key.Render(f.Rule),
			st.Value.Render(f.Dependency),
			st.Muted.Render("· "+f.Title))
		fmt.Fprintf(&b, "  %s\n", f.Message)
		if f.Fix != "" {
			fmt.Fprintf(&b, "  %s %s\n", st.Good.Render("fix:"), f.Fix)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CheckMarkdown renders a check result as GitHub-flavoured Markdown, for pull-request
// comments and $GITHUB_STEP_SUMMARY.
func CheckMarkdown(w io.Writer, r *check.Result, _ Options) error {
	mark, word, counts := checkVerdict(r)
	var b strings.Builder
	if e := r.Error; e != nil {
		fmt.Fprintf(&b, "## patience check ✗ could not run\n\n`%s`: %s\n", mdEscape(e.Location()), mdEscape(inputMessage(e)))
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "## patience check %s %s\n\n", mark, word)
	fmt.Fprintf(&b, "**%s** · %s · fail on %s\n\n", counts, mdEscape(checkScope(r)), r.FailOn)
	if r.Summary.Suppressed > 0 {
		fmt.Fprintf(&b, "%s suppressed by `# patience:ignore`.\n\n", plural(r.Summary.Suppressed, "finding"))
	}
	checkChainsMarkdown(&b, r)
	if len(r.Findings) == 0 {
		b.WriteString("No findings: every rule passed.\n")
	} else {
		b.WriteString("| Level | Rule | Dependency | Where | What will happen | Fix |\n")
		b.WriteString("|---|---|---|---|---|---|\n")
		for _, f := range r.Findings {
			icon := "⚠️ warning"
			if f.Level == check.LevelError {
				icon = "❌ error"
			}
			fmt.Fprintf(&b, "| %s | `%s` %s | %s | `%s` | %s | %s |\n",
				icon, f.Rule, mdEscape(f.Title), mdEscape(f.Dependency), mdEscape(location(f)), mdEscape(f.Message), mdEscape(f.Fix))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps a value inside one Markdown table cell.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", "<br>")
}
