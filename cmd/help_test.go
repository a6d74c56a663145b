package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

// TestHelpFitsEighty: every command's --help at 80 columns (the tests' width) has no line
// wider than 80 (issue 16: a newcomer in an 80-column terminal; the hand-wrapped texts were
// about 90 wide and flag lines unwrapped). That no word is lost is report's TestWrapHelp.
func TestHelpFitsEighty(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"probe", "--help"}, {"advise", "--help"}, {"replay", "--help"}, {"storm", "--help"},
		{"check", "--help"}, {"serve", "--help"}, {"demo", "--help"}, {"scenarios", "--help"}, {"man", "--help"}, {"version", "--help"}} {
		code, out, _ := runCmd(t, context.Background(), "", args...)
		if code != ExitOK || len(out) < 100 {
			t.Fatalf("%v: exit %d, %d bytes", args, code, len(out))
		}
		for i, l := range strings.Split(out, "\n") {
			if w := lipgloss.Width(l); w > 80 {
				t.Errorf("%v line %d is %d columns: %q", args, i+1, w, l)
			}
		}
	}
}

// TestHelpExamplesPaste: at 80 columns every example in --help is one command a shell can
// take as shown — a wrapped one ends its broken lines with " \" — and the root help's
// command rows wrap under one text column, storm's too (issue 26 item 5).
func TestHelpExamplesPaste(t *testing.T) {
	for _, args := range [][]string{{"probe", "--help"}, {"advise", "--help"}, {"replay", "--help"}, {"storm", "--help"},
		{"check", "--help"}, {"serve", "--help"}, {"man", "--help"}} {
		_, out, _ := runCmd(t, context.Background(), "", args...)
		in, prev := false, ""
		for _, l := range strings.Split(out, "\n") {
			switch {
			case l == "Examples:":
				in = true
			case !strings.HasPrefix(l, " "):
				in = false
			case in && !strings.HasPrefix(strings.TrimSpace(l), "patience") && !strings.HasSuffix(prev, " \\"):
				if !strings.Contains(strings.TrimSpace(l), " patience ") && !strings.HasPrefix(strings.TrimSpace(l), "man ") && !strings.HasPrefix(strings.TrimSpace(l), "curl ") {
					t.Errorf("%v: example line %q continues %q without a \\", args, l, prev)
				}
			}
			prev = l
		}
	}
	_, out, _ := runCmd(t, context.Background(), "", "--help")
	if !strings.Contains(out, "Marks: ✓ good · ~ provisional") || !strings.Contains(out, "✗ bad: act on it") {
		t.Errorf("root help has no legend for ✓ ~ ✗:\n%s", out)
	}
	if !strings.Contains(out, "  storm  [SCENARIO]  retry-storm amplification and metastable collapse across\n                     many clients") {
		t.Errorf("root help's storm row does not wrap under the text column:\n%s", out)
	}
}
