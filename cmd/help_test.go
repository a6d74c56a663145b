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
