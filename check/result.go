package check

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/verdict"
)

// Schema names the JSON document of `patience check` (docs/design.md §3).
const Schema = "patience/check/v1"

// Result is everything `check` found: the machine contract every output format renders.
type Result struct {
	Schema string `json:"schema"`
	// Version is patience's version, for SARIF's tool.driver.version.
	Version string `json:"version"`
	// Files are the check files read, as named on the command line.
	Files    []string  `json:"files"`
	Findings []Finding `json:"findings"`
	// Suppressed are the findings `# patience:ignore` silenced (SARIF emits them with
	// suppressions); Summary.Suppressed counts them.
	Suppressed []Finding `json:"suppressed_findings"`
	// Passed says that no finding is at or above FailOn (--no-fail changes the exit code,
	// never this).
	Passed  bool     `json:"passed"`
	FailOn  Severity `json:"fail_on"`
	Summary Summary  `json:"summary"`
	// Rules are the rules that ran, with the level each ran at; disabled rules are absent.
	Rules []Rule `json:"rules"`
	// Checked lists what was checked — one entry per dependency (and per replayed scenario
	// policy) with the rules applied to it — so JUnit can show passing test cases too.
	Checked []Checked `json:"checked"`
	// Chains are the call chains check multiplied per failure class: each dependency with
	// via:, and each layer of a config file no via: took.
	Chains []Chain `json:"chains"`
	// Calls are the outbound HTTP call sites read from source code (issue 28), with their
	// effective timeouts and retry layer.
	Calls []Call `json:"calls"`
	// Configs are the real config files read (recognised by content); Skipped the files
	// named or found that are none of the formats check reads.
	Configs []ConfigFile  `json:"configs,omitempty"`
	Skipped []SkippedFile `json:"skipped,omitempty"`
	// Error is set when check could not run (exit 2): the input error every report renders.
	Error *InputError `json:"error,omitempty"`
	// Interrupted says the run was stopped (Ctrl-C) before every scenario was replayed: the
	// findings are those of what finished, NotReplayed lists the rest, and Passed is false.
	Interrupted bool          `json:"interrupted,omitempty"`
	NotReplayed []NotReplayed `json:"not_replayed,omitempty"`
	// Outcome and Level are the run's judgement, stated here once and printed by every
	// format (Judge): passed (good), failed (bad), error (bad: check could not run), or
	// interrupted — bad when what finished already fails, provisional otherwise: it did not
	// pass, and it did not finish failing either.
	Outcome Outcome       `json:"outcome"`
	Level   verdict.Level `json:"level"`
	// NothingChecked says that no rule applied to anything: no dependency, no config layer,
	// no scenario replayed. Such a run is an input error (Error
	// says what was read and Skipped why each file was left) unless AllowEmpty: then it
	// passes, provisionally, and still says so.
	NothingChecked bool `json:"nothing_checked,omitempty"`
	AllowEmpty     bool `json:"allow_empty,omitempty"`
	// NothingCheckedReason says what was read when NothingChecked (Error.Message too when
	// the run is an error): "nothing checked: … (2 files read, 2 skipped, …)".
	NothingCheckedReason string `json:"nothing_checked_reason,omitempty"`
}

// Outcome is how a check run ended.
type Outcome string

// Outcomes of a run.
const (
	OutcomePassed      Outcome = "passed"
	OutcomeFailed      Outcome = "failed"
	OutcomeInterrupted Outcome = "interrupted"
	OutcomeError       Outcome = "error"
)

// Judge sets Passed, Outcome and Level from the findings, FailOn, Interrupted and Error.
// An interrupted run never passed: the scenarios it did not replay could have failed. A run
// that checked nothing (NothingChecked) with AllowEmpty passed, but provisionally: nothing
// was shown to be good.
func (r *Result) Judge() {
	failing := len(r.Failing()) > 0
	r.Passed = !failing && !r.Interrupted && r.Error == nil
	switch {
	case r.Error != nil:
		r.Outcome, r.Level = OutcomeError, verdict.Bad
	case r.Interrupted && failing:
		r.Outcome, r.Level = OutcomeInterrupted, verdict.Bad
	case r.Interrupted:
		r.Outcome, r.Level = OutcomeInterrupted, verdict.Provisional
	case failing:
		r.Outcome, r.Level = OutcomeFailed, verdict.Bad
	case r.NothingChecked:
		r.Outcome, r.Level = OutcomePassed, verdict.Provisional
	default:
		r.Outcome, r.Level = OutcomePassed, verdict.Good
	}
}

// NotReplayed is a scenario an interruption stopped, at its scenarios: entry.
type NotReplayed struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col,omitempty"`
	Scenario string `json:"scenario"`
	// Replayed are the scenario's policies that finished before the interruption, whose
	// expectations were checked; empty when none did.
	Replayed []string `json:"replayed,omitempty"`
}

// Finished says whether an interrupted run checked anything: a dependency, a config chain or
// a replayed policy. A run that did not has nothing to report.
func (r *Result) Finished() bool {
	if r.Summary.Dependencies > 0 || len(r.Chains) > 0 || r.Summary.Scenarios > 0 {
		return true
	}
	for _, n := range r.NotReplayed {
		if len(n.Replayed) > 0 {
			return true
		}
	}
	return false
}

// Finding is one rule that fired on one dependency.
type Finding struct {
	Rule  string   `json:"rule"`
	Level Severity `json:"level"`
	// Dependency names the dependency, or "SCENARIO/POLICY" for PT100.
	Dependency string `json:"dependency"`
	Title      string `json:"title"`
	// Message says what will happen in production, with the numbers.
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
	// File, Line and Col point at the YAML value that set what the rule is about.
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col,omitempty"`
}

// Checked is one dependency (or one replayed scenario policy) and the rules applied to it.
type Checked struct {
	Dependency string   `json:"dependency"`
	File       string   `json:"file"`
	Line       int      `json:"line"`
	Rules      []string `json:"rules"`
	// Skipped maps rules that had nothing to evaluate to why (no caller budget, no profile):
	// they did not pass, they did not apply.
	Skipped map[string]string `json:"skipped,omitempty"`
	// Assumed are the defaults check used for fields the dependency's file left out that
	// decide a rule (field, value, why, rules); absent when it assumed nothing.
	Assumed []Assumed `json:"assumed,omitempty"`
	// Elapsed is how long the rules took on it (a replayed scenario's share of its replay),
	// JUnit's time.
	Elapsed time.Duration `json:"-"`
}

// Summary counts findings.
type Summary struct {
	Errors       int `json:"errors"`
	Warnings     int `json:"warnings"`
	Files        int `json:"files"`
	Dependencies int `json:"dependencies"`
	Scenarios    int `json:"scenarios"`
	// Suppressed counts findings silenced by `# patience:ignore`.
	Suppressed int `json:"suppressed"`
	// Configs counts the config files read, Chains the chains checked.
	Configs int `json:"configs,omitempty"`
	Chains  int `json:"chains,omitempty"`
	// Read counts the files opened (check files, configs, scenarios named, files skipped);
	// Skipped the entries of Result.Skipped; Checked the entries of Result.Checked — the
	// subjects rules applied to (a scenario replayed without expect: has none).
	Read    int `json:"read"`
	Skipped int `json:"skipped"`
	Checked int `json:"checked"`
}

// Failing returns the findings at or above the result's FailOn level.
func (r *Result) Failing() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Level.AtLeast(r.FailOn) {
			out = append(out, f)
		}
	}
	return out
}

// InputError is why check could not run: a check file (or a file it names) that could not be
// read or is invalid. No rule ran; the command exits 2. Every report format still renders it
// (a GitHub annotation, a JUnit error, a SARIF tool execution notification), so a CI job that
// uploads the reports shows the one error instead of failing on a missing file.
type InputError struct {
	File string `json:"file"`
	// Line and Col are 1-based; 0 when the problem has no position (an unreadable file).
	Line int `json:"line,omitempty"`
	Col  int `json:"col,omitempty"`
	// Field is the dotted path of the offending field ("dependencies[0].policy.retyr").
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Location renders FILE:LINE:COL, leaving out what is unknown.
func (e *InputError) Location() string {
	s := e.File
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
		if e.Col > 0 {
			s += ":" + strconv.Itoa(e.Col)
		}
	}
	return s
}

// InputFailed is the result of a run that could not check anything because of err (a
// *scenario.Error names the file, line, column and field; any other error is reported
// against the first of files). It is not Passed.
func InputFailed(err error, files []string, opts Options) *Result {
	if opts.FailOn == "" {
		opts.FailOn = SeverityError
	}
	res := &Result{Schema: Schema, Version: opts.Version, FailOn: opts.FailOn, Findings: []Finding{}, Suppressed: []Finding{}, Checked: []Checked{}, Files: append([]string{}, files...), Rules: []Rule{}, Chains: []Chain{}, Calls: []Call{}}
	ie := &InputError{Message: err.Error()}
	var se *scenario.Error
	if errors.As(err, &se) {
		ie = &InputError{File: se.File, Line: se.Line, Col: se.Col, Field: se.Field, Message: se.Msg}
	}
	if ie.File == "" && len(files) > 0 {
		ie.File = files[0]
	}
	res.Error = ie
	res.Judge()
	return res
}

// nothingCheckedMessage says why a run checked nothing: what was named (when more than the
// one path its location names), how many files were read and skipped (Skipped holds the
// reasons), the configs read that gave nothing to check on their own, and the way out.
func nothingCheckedMessage(paths []string, read, skipped int, configs []ConfigFile, allowed bool) string {
	var b strings.Builder
	b.WriteString("nothing checked: ")
	if len(configs) == 0 {
		b.WriteString("no dependency, config or scenario found")
	} else {
		// A DestinationRule applies through a VirtualService, an ingress-nginx ConfigMap
		// through the Ingresses it configures: read alone, they make no call chain.
		var kinds []string
		for _, cf := range configs {
			kinds = append(kinds, cf.Kinds...)
		}
		verb := "makes no call chain on its own"
		if len(configs) > 1 {
			verb = "make no call chain on their own"
		}
		fmt.Fprintf(&b, "%s read (%s) %s", plural(len(configs), "config file", "config files"), strings.Join(kinds, ", "), verb)
	}
	if len(paths) > 1 {
		b.WriteString(" in " + strings.Join(paths, ", "))
	}
	switch {
	case read == 0 && skipped == 0:
		b.WriteString(" (no file read)")
	case skipped == 1:
		fmt.Fprintf(&b, " (%s read, 1 skipped with its reason)", plural(read, "file", "files"))
	case skipped > 0:
		fmt.Fprintf(&b, " (%s read, %d skipped, each with its reason)", plural(read, "file", "files"), skipped)
	default:
		fmt.Fprintf(&b, " (%s read)", plural(read, "file", "files"))
	}
	switch {
	case allowed:
		b.WriteString("; passed by --allow-empty")
	case len(configs) == 1:
		b.WriteString("; name the routes or services it applies to with it, or pass --allow-empty if checking nothing is meant")
	case len(configs) > 1:
		b.WriteString("; name the routes or services they apply to with them, or pass --allow-empty if checking nothing is meant")
	default:
		b.WriteString("; name a patience.yaml or a config check reads, or pass --allow-empty if checking nothing is meant")
	}
	return b.String()
}

// plural is "1 file", "3 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
