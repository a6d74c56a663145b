package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/scenario"
)

func scenarioListFixture() scenario.List {
	return scenario.List{Schema: "patience/scenarios/v1", Scenarios: []scenario.Info{
		{Name: "delivery-date-hang", Description: "A checkout page waits on a hung delivery-date API with no timeout until every web worker is stuck.", Default: true, Policies: []string{"no-timeout", "timeouts", "breaker-fallback"}},
		{Name: "llm-stream", Description: "An LLM API streams tokens; under load its first token is slow.", Policies: []string{}, ServeOnly: true},
		{Name: "rate-limited", Description: "429 with Retry-After.", Policies: []string{"honor", "ignore"}},
	}}
}

func renderScenarios[T any](t *testing.T, reg Registry[T], format string, v T, color bool, width int) []byte {
	t.Helper()
	var buf bytes.Buffer
	io := Test(nil, &buf, nil)
	io.Color, io.Width = color, width
	render, err := reg.Get(format)
	if err != nil {
		t.Fatal(err)
	}
	if err := render(&buf, v, io.Options()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestScenarioGoldens(t *testing.T) {
	l := scenarioListFixture()
	golden.Assert(t, "scenarios_text", renderScenarios(t, ScenarioListFormats, "text", l, false, 80))
	golden.Assert(t, "scenarios_text_color", renderScenarios(t, ScenarioListFormats, "text", l, true, 80))
	golden.Assert(t, "scenarios_json", renderScenarios(t, ScenarioListFormats, "json", l, false, 80))
	v := scenario.Validation{Schema: "patience/scenarios-validate/v1", Files: []scenario.ValidatedFile{{File: "mine.yaml", Name: "mine", Policies: []string{"ours", "preset:naive"}}}}
	golden.Assert(t, "scenarios_validate_text", renderScenarios(t, ScenarioValidationFormats, "text", v, false, 80))
	// The README's example: a long file line wraps by word under its mark (it was 92 columns).
	long := scenario.Validation{Schema: "patience/scenarios-validate/v1", Files: []scenario.ValidatedFile{{File: "my-incident.yaml", Name: "payment-double-charge",
		Policies: []string{"without-key", "with-key", "no-retry", "preset:aws-standard"}}}}
	golden.Assert(t, "scenarios_validate_text_80", renderScenarios(t, ScenarioValidationFormats, "text", long, false, 80))
}

// TestScenarioListWraps: no line is wider than the terminal, at any width, and no ANSI
// escapes appear without colour.
func TestScenarioListWraps(t *testing.T) {
	for _, width := range []int{40, 60, 80, 120} {
		out := renderScenarios(t, ScenarioListFormats, "text", scenarioListFixture(), false, width)
		for _, line := range strings.Split(string(out), "\n") {
			if n := len([]rune(line)); n > width && !strings.HasPrefix(line, "patience replay") {
				t.Errorf("width %d: line of %d cells: %q", width, n, line)
			}
			if strings.Contains(line, "\x1b[") {
				t.Errorf("ANSI escape without colour: %q", line)
			}
		}
	}
}

func TestScenarioWrap(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"a bb ccc", 4, []string{"a bb", "ccc"}},
		{"", 10, []string{""}},
		{"averyveryverylongword x", 5, []string{"averyveryverylongword", "x"}},
	}
	for _, tt := range tests {
		got := scenarioWrap(tt.in, tt.width)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("scenarioWrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}
