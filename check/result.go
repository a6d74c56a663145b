package check

// Schema names the JSON document of `patience check` (DESIGN §3).
const Schema = "patience/check/v1"

// Result is everything `check` found: the machine contract every output format renders.
type Result struct {
	Schema string `json:"schema"`
	// Version is patience's version, for SARIF's tool.driver.version.
	Version string `json:"version"`
	// Files are the check files read, as named on the command line.
	Files    []string  `json:"files"`
	Findings []Finding `json:"findings"`
	// Passed says that no finding is at or above FailOn (--no-fail changes the exit code,
	// never this).
	Passed  bool    `json:"passed"`
	FailOn  Level   `json:"fail_on"`
	Summary Summary `json:"summary"`
	// Rules are the rules that ran, with the level each ran at; disabled rules are absent.
	Rules []Rule `json:"rules"`
	// Checked lists what was checked — one entry per dependency (and per replayed scenario
	// policy) with the rules applied to it — so JUnit can show passing test cases too.
	Checked []Checked `json:"checked"`
}

// Finding is one rule that fired on one dependency.
type Finding struct {
	Rule  string `json:"rule"`
	Level Level  `json:"level"`
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
