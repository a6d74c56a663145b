package report

import (
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/patience-dev/patience/check"
)

// SARIF 2.1.0 (OASIS, https://docs.oasis-open.org/sarif/sarif/v2.1.0/), the subset GitHub
// code scanning reads (docs.github.com, "SARIF support for code scanning"): tool.driver with
// rule metadata, and results with a rule, a level, a message and a physical location.

// SARIFSchema is the $schema of every SARIF log patience writes.
const SARIFSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// SARIFLog is a SARIF 2.1.0 log with one run.
type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []SARIFRun `json:"runs"`
}

// SARIFRun is one run of one tool.
type SARIFRun struct {
	Tool SARIFTool `json:"tool"`
	// Invocations says whether the run could check anything: an input error (exit 2) is a
	// toolExecutionNotification of an unsuccessful invocation (SARIF §3.20).
	Invocations []SARIFInvocation `json:"invocations"`
	Results     []SARIFResult     `json:"results"`
}

// SARIFInvocation is one invocation of the tool (SARIF §3.20).
type SARIFInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []SARIFNotification `json:"toolExecutionNotifications,omitempty"`
}

// SARIFNotification is a notification (SARIF §3.58): here, the input error.
type SARIFNotification struct {
	Level     string          `json:"level"`
	Message   SARIFText       `json:"message"`
	Locations []SARIFLocation `json:"locations,omitempty"`
}

// SARIFSuppression says a result was suppressed (SARIF §3.35): `# patience:ignore` is a
// suppression in the source.
type SARIFSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// SARIFTool describes the tool.
type SARIFTool struct {
	Driver SARIFDriver `json:"driver"`
}

// SARIFDriver is patience and its rules.
type SARIFDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version"`
	Rules          []SARIFRule `json:"rules"`
}

// SARIFRule is a reportingDescriptor.
type SARIFRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name"`
	ShortDescription     SARIFText          `json:"shortDescription"`
	FullDescription      SARIFText          `json:"fullDescription"`
	Help                 SARIFText          `json:"help"`
	DefaultConfiguration SARIFConfiguration `json:"defaultConfiguration"`
}

// SARIFConfiguration is a reportingConfiguration.
type SARIFConfiguration struct {
	Level string `json:"level"`
}

// SARIFText is a message or multiformatMessageString.
type SARIFText struct {
	Text string `json:"text"`
}

// SARIFResult is one finding.
type SARIFResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   SARIFText       `json:"message"`
	Locations []SARIFLocation `json:"locations"`
	// Suppressions is set on findings `# patience:ignore` silenced, which code scanning
	// shows as dismissed rather than not at all.
	Suppressions []SARIFSuppression `json:"suppressions,omitempty"`
}

// SARIFLocation wraps a physical location.
type SARIFLocation struct {
	PhysicalLocation SARIFPhysicalLocation `json:"physicalLocation"`
}

// SARIFPhysicalLocation is a file and a region in it.
type SARIFPhysicalLocation struct {
	ArtifactLocation SARIFArtifact `json:"artifactLocation"`
	Region           *SARIFRegion  `json:"region,omitempty"`
}

// SARIFArtifact names the file (a relative URI, as code scanning wants).
type SARIFArtifact struct {
	URI string `json:"uri"`
}

// SARIFRegion is 1-based like the YAML positions.
type SARIFRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// sarifLevel maps check levels to SARIF levels (error, warning, note).
func sarifLevel(l check.Severity) string {
	if l == check.SeverityError {
		return "error"
	}
	return "warning"
}

// CheckSARIF renders a check result as a SARIF 2.1.0 log for code scanning.
func CheckSARIF(w io.Writer, r *check.Result, _ Options) error {
	driver := SARIFDriver{Name: "patience", InformationURI: "https://github.com/patience-dev/patience", Version: r.Version, Rules: []SARIFRule{}}
	index := map[string]int{}
	for i, rule := range r.Rules {
		index[rule.ID] = i
		driver.Rules = append(driver.Rules, SARIFRule{
			ID: rule.ID, Name: rule.Name,
			ShortDescription:     SARIFText{Text: rule.Title},
			FullDescription:      SARIFText{Text: rule.Help},
			Help:                 SARIFText{Text: rule.Help},
			DefaultConfiguration: SARIFConfiguration{Level: sarifLevel(rule.Level)},
		})
	}
	results := []SARIFResult{}
	add := func(f check.Finding, suppressed bool) {
		msg := f.Dependency + ": " + f.Message
		if f.Fix != "" {
			msg += " Fix: " + f.Fix + "."
		}
		res := SARIFResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Level),
			Message:   SARIFText{Text: msg},
			Locations: []SARIFLocation{{PhysicalLocation: sarifPhysical(f.File, f.Line, f.Col)}},
		}
		if suppressed {
			res.Suppressions = []SARIFSuppression{{Kind: "inSource", Justification: "# patience:ignore " + f.Rule}}
		}
		results = append(results, res)
	}
	for _, f := range r.Findings {
		add(f, false)
	}
	for _, f := range r.Suppressed {
		add(f, true)
	}
	inv := SARIFInvocation{ExecutionSuccessful: r.Error == nil && !r.Interrupted}
	// An interrupted run (Ctrl-C) did not finish: one notification per scenario it did not
	// replay, at its scenarios: entry, so code scanning does not read the results as whole.
	for _, n := range r.NotReplayed {
		msg := "interrupted: " + n.Scenario + " was not replayed"
		if len(n.Replayed) > 0 {
			msg = "interrupted: " + n.Scenario + " was replayed only for " + strings.Join(n.Replayed, ", ")
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, SARIFNotification{Level: "warning", Message: SARIFText{Text: msg},
			Locations: []SARIFLocation{{PhysicalLocation: sarifPhysical(n.File, n.Line, n.Col)}}})
	}
	if e := r.Error; e != nil {
		msg := e.Message
		if e.Field != "" {
			msg = e.Field + ": " + msg
		}
		inv.ToolExecutionNotifications = []SARIFNotification{{Level: "error", Message: SARIFText{Text: msg},
			Locations: []SARIFLocation{{PhysicalLocation: sarifPhysical(e.File, e.Line, e.Col)}}}}
	}
	if r.NothingChecked {
		// A run that checked nothing: with --allow-empty a warning (the invocation
		// succeeded, and found nothing to check); a note on each file skipped, with why.
		if r.Error == nil {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, SARIFNotification{Level: "warning", Message: SARIFText{Text: r.NothingCheckedReason}})
		}
		for _, sk := range r.Skipped {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, SARIFNotification{Level: "note", Message: SARIFText{Text: "skipped: " + sk.Reason},
				Locations: []SARIFLocation{{PhysicalLocation: sarifPhysical(sk.Path, 0, 0)}}})
		}
	}
	log := SARIFLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []SARIFRun{{Tool: SARIFTool{Driver: driver}, Invocations: []SARIFInvocation{inv}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifPhysical is a file and, when known, the region at line:col.
func sarifPhysical(file string, line, col int) SARIFPhysicalLocation {
	loc := SARIFPhysicalLocation{ArtifactLocation: SARIFArtifact{URI: sarifURI(file)}}
	if line > 0 {
		loc.Region = &SARIFRegion{StartLine: line, StartColumn: col}
	}
	return loc
}

// sarifWorkDir is the directory artifact URIs are relative to (a variable for tests).
var sarifWorkDir = os.Getwd

// sarifURI turns a file path into a URI reference relative to the working directory, as
// code scanning wants (it resolves them against the checkout): forward slashes, no "./". An
// absolute path inside the working directory is made relative; one outside it becomes a
// file:// URI, which is still a location a reader can open.
func sarifURI(p string) string {
	if filepath.IsAbs(p) {
		if wd, err := sarifWorkDir(); err == nil {
			if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				p = rel
			} else {
				return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
			}
		}
	}
	p = filepath.ToSlash(filepath.Clean(p))
	p = strings.ReplaceAll(p, `\`, "/")
	return (&url.URL{Path: p}).EscapedPath()
}
