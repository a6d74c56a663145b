package report

import (
	"encoding/json"
	"io"
	"net/url"
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
	Tool    SARIFTool     `json:"tool"`
	Results []SARIFResult `json:"results"`
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
func sarifLevel(l check.Level) string {
	if l == check.LevelError {
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
	for _, f := range r.Findings {
		msg := f.Dependency + ": " + f.Message
		if f.Fix != "" {
			msg += " Fix: " + f.Fix + "."
		}
		loc := SARIFPhysicalLocation{ArtifactLocation: SARIFArtifact{URI: sarifURI(f.File)}}
		if f.Line > 0 {
			loc.Region = &SARIFRegion{StartLine: f.Line, StartColumn: f.Col}
		}
		results = append(results, SARIFResult{
			RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Level),
			Message:   SARIFText{Text: msg},
			Locations: []SARIFLocation{{PhysicalLocation: loc}},
		})
	}
	log := SARIFLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []SARIFRun{{Tool: SARIFTool{Driver: driver}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// sarifURI turns a file path into a relative URI reference: forward slashes, no "./".
func sarifURI(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return (&url.URL{Path: p}).EscapedPath()
}
