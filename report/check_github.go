package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/patience-dev/patience/check"
)

// CheckGitHub renders findings as GitHub Actions workflow commands
// (`::error file=F,line=L,col=C,title=T::MESSAGE`), which GitHub shows as annotations on the
// pull request's diff. Escaping follows the runner's own toolkit (actions/toolkit
// packages/core/src/command.ts, escapeData and escapeProperty, commit a944251): data escapes
// %, CR and LF; properties also : and ,. The runner undoes exactly these
// (actions/runner src/Runner.Common/ActionCommand.cs, UnescapeData and UnescapeProperty), so
// a name's line break shows in the annotation and never starts a command of its own.
func CheckGitHub(w io.Writer, r *check.Result, _ Options) error {
	var b strings.Builder
	if e := r.Error; e != nil {
		// An input error is the one annotation: the file could not be checked.
		props := []string{"file=" + GitHubProperty(e.File)}
		if e.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", e.Line))
			if e.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", e.Col))
			}
		}
		title := "patience check: invalid input"
		if r.NothingChecked {
			title = "patience check: nothing checked"
		}
		props = append(props, "title="+GitHubProperty(title))
		fmt.Fprintf(&b, "::error %s::%s\n", strings.Join(props, ","), GitHubData(inputMessage(e)))
		githubSkipped(&b, r)
		_, err := io.WriteString(w, b.String())
		return err
	}
	if r.NothingChecked {
		// --allow-empty: the run passed, and the log still shows there was nothing to check.
		fmt.Fprintf(&b, "::warning title=%s::%s\n", GitHubProperty("patience check: nothing checked"), GitHubData(r.NothingCheckedReason))
		githubSkipped(&b, r)
	}
	for _, f := range r.Findings {
		cmd := "warning"
		if f.Level == check.SeverityError {
			cmd = "error"
		}
		props := []string{"file=" + GitHubProperty(f.File)}
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line))
			if f.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", f.Col))
			}
		}
		props = append(props, "title="+GitHubProperty(fmt.Sprintf("%s %s: %s", f.Rule, f.Dependency, f.Title)))
		msg := f.Message
		if f.Fix != "" {
			msg += "\nfix: " + f.Fix
		}
		fmt.Fprintf(&b, "::%s %s::%s\n", cmd, strings.Join(props, ","), GitHubData(msg))
	}
	// An interrupted run (Ctrl-C): a warning at each scenarios: entry it did not replay.
	for _, n := range r.NotReplayed {
		props := []string{"file=" + GitHubProperty(n.File), fmt.Sprintf("line=%d", n.Line)}
		if n.Col > 0 {
			props = append(props, fmt.Sprintf("col=%d", n.Col))
		}
		props = append(props, "title="+GitHubProperty("patience check interrupted"))
		msg := n.Scenario + " was not replayed"
		if len(n.Replayed) > 0 {
			msg = n.Scenario + " was replayed only for " + strings.Join(n.Replayed, ", ")
		}
		fmt.Fprintf(&b, "::warning %s::%s\n", strings.Join(props, ","), GitHubData(msg))
	}
	mark, word, counts := checkVerdict(r)
	// The verdict is a notice: the findings above already carry the errors.
	fmt.Fprintf(&b, "::notice title=%s::%s\n", GitHubProperty("patience check "+word), GitHubData(fmt.Sprintf("%s %s · %s · fail on %s", mark, counts, checkScope(r), r.FailOn)))
	_, err := io.WriteString(w, b.String())
	return err
}

// githubSkipped writes a notice on each file a run that checked nothing skipped, with the
// reason (a walk of a real repository skips many files: they are listed only when nothing
// else was checked, where they are the explanation).
func githubSkipped(b *strings.Builder, r *check.Result) {
	if !r.NothingChecked {
		return
	}
	for _, sk := range r.Skipped {
		fmt.Fprintf(b, "::notice file=%s,title=%s::%s\n", GitHubProperty(sk.Path), GitHubProperty("patience check skipped"), GitHubData(sk.Reason))
	}
}

// GitHubData escapes the message of a workflow command: % → %25, CR → %0D, LF → %0A
// (actions/toolkit packages/core/src/command.ts, escapeData).
func GitHubData(s string) string {
	s = strings.ReplaceAll(s, "%", "%25")
	s = strings.ReplaceAll(s, "\r", "%0D")
	return strings.ReplaceAll(s, "\n", "%0A")
}

// GitHubProperty escapes a property value of a workflow command: what GitHubData escapes,
// plus : → %3A and , → %2C (they separate properties; command.ts, escapeProperty).
func GitHubProperty(s string) string {
	s = GitHubData(s)
	s = strings.ReplaceAll(s, ":", "%3A")
	return strings.ReplaceAll(s, ",", "%2C")
}
