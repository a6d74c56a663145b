package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/internal/units"
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

// checkVerdict is the one line that leads every human report: the result's own judgement
// (check.Result.Judge: its level's mark and its outcome), the counts.
func checkVerdict(r *check.Result) (mark, word, counts string) {
	mark, word = r.Level.Symbol(), string(r.Outcome)
	counts = fmt.Sprintf("%s, %s", plural(r.Summary.Errors, "error"), plural(r.Summary.Warnings, "warning"))
	return mark, word, counts
}

// notReplayedText says what an interruption left out: "interrupted: the findings cover what
// finished; not replayed: slow.yaml (only a, b replayed), long.yaml"; "" when the run
// finished.
func notReplayedText(r *check.Result) string {
	if !r.Interrupted {
		return ""
	}
	parts := make([]string, 0, len(r.NotReplayed))
	for _, n := range r.NotReplayed {
		p := textSafe(n.Scenario)
		if len(n.Replayed) > 0 {
			p += " (only " + strings.Join(textSafeAll(n.Replayed), ", ") + " replayed)"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "interrupted: the findings cover what finished"
	}
	return "interrupted: the findings cover what finished; not replayed: " + strings.Join(parts, ", ")
}

// checkScope says what was checked: "3 dependencies, 1 scenario in patience.yaml".
func checkScope(r *check.Result) string {
	parts := []string{plural(r.Summary.Dependencies, "dependency")}
	if r.Summary.Scenarios > 0 {
		parts = append(parts, plural(r.Summary.Scenarios, "scenario"))
	}
	if len(r.Calls) > 0 {
		parts = append(parts, plural(len(r.Calls), "outbound call"))
	}
	s := strings.Join(parts, ", ")
	if len(r.Files) > 0 {
		s += " in " + strings.Join(textSafeAll(r.Files), ", ")
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
		return units.Count(n) + " " + strings.TrimSuffix(noun, "y") + "ies"
	}
	return units.Count(n) + " " + noun + "s"
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
// where it is, what will happen in production and the fix. It fits opts.Width (textWidth):
// prose wraps by word with a hanging indent, a number keeps its unit, and a location, a
// rule or a dependency's name is never split.
func CheckText(w io.Writer, r *check.Result, opts Options) error {
	st := opts.Styles
	width := textWidth(opts)
	mark, word, counts := checkVerdict(r)
	verdict := st.Good
	switch {
	case mark == "~":
		verdict = st.Warn
	case !r.Passed:
		verdict = st.Bad
	}
	var b strings.Builder
	if e := r.Error; e != nil {
		head := "✗ check could not run: "
		writeHanging(&b, st.Bad.Render(strings.TrimSuffix(head, " "))+" ", lipgloss.Width(head), textSafe(e.Location()+": "+inputMessage(e)), width, st.Verdict)
		// Nothing checked: what was read and why each file was left is the explanation.
		skippedText(&b, r, st, width)
		writeLegend(&b, st, width, checkLegend, false)
		_, err := io.WriteString(w, b.String())
		return err
	}
	head := mark + " check " + word + ": "
	writeHanging(&b, verdict.Render(strings.TrimSuffix(head, " "))+" ", lipgloss.Width(head), counts, width, st.Verdict)
	for _, l := range wrapSeparated([]string{checkScope(r), "fail on " + string(r.FailOn), plural(len(r.Rules), "rule")}, " · ", width) {
		b.WriteString(st.Muted.Render(l) + "\n")
	}
	if text := notReplayedText(r); text != "" {
		writeHanging(&b, "", 0, text, width, st.Warn)
	}
	if r.NothingChecked {
		writeHanging(&b, "", 0, textSafe(r.NothingCheckedReason), width, st.Warn)
	}
	if r.Summary.Suppressed > 0 {
		writeHanging(&b, "", 0, plural(r.Summary.Suppressed, "finding")+" suppressed by # patience:ignore", width, st.Muted)
	}
	skippedText(&b, r, st, width)
	checkChainsText(&b, r, st, width)
	checkCallsText(&b, r, st, width)
	for _, f := range r.Findings {
		level := st.Warn
		if f.Level == check.SeverityError {
			level = st.Bad
		}
		b.WriteString("\n")
		writeIndented(&b, "", 0, []piece{
			{text: textSafe(location(f)), style: st.Muted},
			{text: fmt.Sprintf("%-7s", f.Level), style: level},
			{text: f.Rule, style: st.Key},
			{text: textSafe(f.Dependency), style: st.Value},
		}, "· "+textSafe(f.Title), st.Muted, width, 4)
		writeIndented(&b, "  ", 2, nil, textSafe(f.Message), lipgloss.NewStyle(), width, 2)
		if f.Fix != "" {
			writeIndented(&b, "  "+st.Good.Render("fix:")+" ", 7, nil, textSafe(f.Fix), lipgloss.NewStyle(), width, 7)
		}
	}
	assumedText(&b, r, st, width)
	writeLegend(&b, st, width, checkLegend, false)
	_, err := io.WriteString(w, b.String())
	return err
}

// assumedText writes, after the findings, one muted line per dependency that left a field to
// check's default: "assumed  charge: policy.retry.non_idempotent always (PT005, PT009) · …"
// (check.AssumedText), wrapped to width under the name; the verdicts above rest on them.
func assumedText(b *strings.Builder, r *check.Result, st Styles, width int) {
	first := true
	for _, c := range r.Checked {
		if len(c.Assumed) == 0 {
			continue
		}
		if first {
			b.WriteString("\n")
			first = false
		}
		writeIndented(b, st.Muted.Render("assumed")+"  ", 9, []piece{{text: textSafe(c.Dependency) + ":", style: st.Muted}},
			textSafe(check.AssumedText(c.Assumed)), st.Muted, width, 9)
	}
}

// assumedMarkdown is assumedText as a list after the findings.
func assumedMarkdown(b *strings.Builder, r *check.Result) {
	first := true
	for _, c := range r.Checked {
		if len(c.Assumed) == 0 {
			continue
		}
		if first {
			b.WriteString("\n")
			first = false
		}
		fmt.Fprintf(b, "- assumed **%s**: %s\n", mdText(c.Dependency), mdText(check.AssumedText(c.Assumed)))
	}
}

// skippedText lists every file skipped with its reason: "skipped README.md: not YAML or JSON".
// More than groupSkips files skipped for one reason (a large tree's Go test files) are one
// line with the count and the first as an example; JSON lists them all.
func skippedText(b *strings.Builder, r *check.Result, st Styles, width int) {
	count := map[string]int{}
	for _, sk := range r.Skipped {
		count[sk.Reason]++
	}
	done := map[string]bool{}
	for _, sk := range r.Skipped {
		n := count[sk.Reason]
		if n <= groupSkips {
			writeIndented(b, "", 0, []piece{{text: "skipped", style: st.Muted}, {text: textSafe(sk.Path) + ":", style: st.Muted}}, textSafe(sk.Reason), st.Muted, width, 2)
			continue
		}
		if done[sk.Reason] {
			continue
		}
		done[sk.Reason] = true
		text := fmt.Sprintf("%s (e.g. %s; -o json lists every one)", textSafe(sk.Reason), textSafe(sk.Path))
		writeIndented(b, "", 0, []piece{{text: "skipped", style: st.Muted}, {text: fmt.Sprintf("%d files:", n), style: st.Muted}}, text, st.Muted, width, 2)
	}
}

// groupSkips is how many files skipped for one reason the text report lists one by one.
const groupSkips = 5

// breakAfter splits a word after each comma or slash: where a word too wide for a line may
// break.
var breakAfter = regexp.MustCompile(`[^,/]*[,/]+|[^,/]+$`)

// fieldName is a patience.yaml field as a fix names it before its value:
// "policy.retry.max_attempts:", "retry_after_max:".
var fieldName = regexp.MustCompile(`^[a-z][a-z0-9]*([._][a-z0-9_]+|\[\])+:$`)

// pastedTokens keeps "FIELD: VALUE" — the literal a fix asks the user to paste, such as
// "policy.deadline: 20s" or "policy.retry.on: [connect, timeout, 5xx]" — on one line when it
// fits in room.
func pastedTokens(tokens []string, room int) []string {
	out := make([]string, 0, len(tokens))
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		if fieldName.MatchString(t) && i+1 < len(tokens) {
			j := i + 1
			if strings.HasPrefix(tokens[j], "[") {
				for j < len(tokens)-1 && !strings.Contains(tokens[j], "]") {
					j++
				}
			}
			if joined := strings.Join(tokens[i:j+1], " "); lipgloss.Width(joined) <= room {
				out = append(out, joined)
				i = j
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

// piece is a run of text a line may not break inside (a location, a rule, a name with
// spaces), in its style; the pieces of one group are rendered together where they share a
// line. A glued piece follows the one before it with no space (the rest of a comma list).
type piece struct {
	text  string
	style lipgloss.Style
	group int
	glue  bool
}

// writeIndented writes prefix (already styled, prefixW columns wide), heads, then text's
// words (wrapTokens: a number keeps its unit), all in one paragraph wrapped to width, its
// later lines indented by indent. A head is never broken: a name such as "search, v2" stays
// on one line, or has a line of its own when it is wider than the room. A word wider than the
// room breaks only after a comma or a slash ("connect-failure,refused-stream,…" as Istio
// writes it, "nginx.ingress.kubernetes.io/proxy-next-upstream-tries").
func writeIndented(b *strings.Builder, prefix string, prefixW int, heads []piece, text string, style lipgloss.Style, width, indent int) {
	room := width - indent
	pieces := make([]piece, 0, len(heads)+8)
	for i, h := range heads {
		pieces = append(pieces, piece{text: h.text, style: h.style, group: i})
	}
	for _, t := range pastedTokens(wrapTokens(text), room) {
		if n := len(pieces); n > len(heads) && pieces[n-1].text == "·" {
			pieces[n-1].text += " " + t // "· title" never ends a line at the dot
			continue
		}
		parts := breakAfter.FindAllString(t, -1)
		if lipgloss.Width(t) <= room || len(parts) < 2 {
			pieces = append(pieces, piece{text: t, style: style, group: len(heads)})
			continue
		}
		for i, part := range parts {
			pieces = append(pieces, piece{text: part, style: style, group: len(heads), glue: i > 0})
		}
	}
	var lines [][]piece
	var cur []piece
	lw := prefixW
	for _, p := range pieces {
		pw := lipgloss.Width(p.text)
		sep := 1
		if p.glue {
			sep = 0
		}
		if len(cur) > 0 && lw+sep+pw > width {
			lines = append(lines, cur)
			cur, lw = nil, indent
			p.glue = false
		}
		if len(cur) > 0 {
			lw += sep
		}
		cur = append(cur, p)
		lw += pw
	}
	lines = append(lines, cur)
	for i, l := range lines {
		if i == 0 {
			b.WriteString(prefix)
		} else {
			b.WriteString(strings.Repeat(" ", indent))
		}
		for j := 0; j < len(l); {
			k, run := j, l[j].text
			for k+1 < len(l) && l[k+1].group == l[j].group {
				k++
				if !l[k].glue {
					run += " "
				}
				run += l[k].text
			}
			if j > 0 {
				b.WriteString(" ")
			}
			b.WriteString(l[j].style.Render(run))
			j = k + 1
		}
		b.WriteString("\n")
	}
}

// CheckMarkdown renders a check result as GitHub-flavoured Markdown, for pull-request
// comments and $GITHUB_STEP_SUMMARY.
func CheckMarkdown(w io.Writer, r *check.Result, _ Options) error {
	mark, word, counts := checkVerdict(r)
	var b strings.Builder
	if e := r.Error; e != nil {
		fmt.Fprintf(&b, "## patience check ✗ could not run\n\n%s: %s\n", mdCode(e.Location()), mdText(inputMessage(e)))
		skippedMarkdown(&b, r)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "## patience check %s %s\n\n", mark, word)
	fmt.Fprintf(&b, "**%s** · %s · fail on %s\n\n", counts, mdText(checkScope(r)), r.FailOn)
	if text := notReplayedText(r); text != "" {
		fmt.Fprintf(&b, "> %s\n\n", mdText(text))
	}
	if r.Summary.Suppressed > 0 {
		fmt.Fprintf(&b, "%s suppressed by `# patience:ignore`.\n\n", plural(r.Summary.Suppressed, "finding"))
	}
	checkChainsMarkdown(&b, r)
	checkCallsMarkdown(&b, r)
	if r.NothingChecked {
		fmt.Fprintf(&b, "> %s\n", mdText(r.NothingCheckedReason))
		skippedMarkdown(&b, r)
		_, err := io.WriteString(w, b.String())
		return err
	}
	if len(r.Findings) == 0 {
		if r.Interrupted {
			b.WriteString("No findings in what finished.\n")
		} else {
			b.WriteString("No findings: every rule passed.\n")
		}
	} else {
		b.WriteString("| Level | Rule | Dependency | Where | What will happen | Fix |\n")
		b.WriteString("|---|---|---|---|---|---|\n")
		for _, f := range r.Findings {
			// The marks of every report: ✗ fails the gate at the default level, ~ warns.
			icon := "~ warning"
			if f.Level == check.SeverityError {
				icon = "✗ error"
			}
			fmt.Fprintf(&b, "| %s | `%s` %s | %s | %s | %s | %s |\n",
				icon, f.Rule, mdText(f.Title), mdText(f.Dependency), mdCode(location(f)), mdText(f.Message), mdText(f.Fix))
		}
	}
	assumedMarkdown(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// skippedMarkdown lists the files skipped, with their reasons, after a blank line.
func skippedMarkdown(b *strings.Builder, r *check.Result) {
	if len(r.Skipped) == 0 {
		return
	}
	b.WriteString("\n")
	for _, sk := range r.Skipped {
		fmt.Fprintf(b, "- skipped %s: %s\n", mdCode(sk.Path), mdText(sk.Reason))
	}
}
