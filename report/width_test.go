package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

// ownedWidthGoldens are the goldens this test holds to their width: the text reports whose
// names end in the width they were rendered at (replay_text_80.golden, probe_text_job_80,
// check_text_100).
var ownedWidthGoldens = regexp.MustCompile(`^(replay|storm|serve|demo|agreement|probe|advise|check|scenarios)_.*_(\d+)\.golden$`)

// TestGoldensFitTheirWidth: no line of a text report is wider than the terminal it was
// rendered for, and no line breaks a number from its unit.
func TestGoldensFitTheirWidth(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range paths {
		m := ownedWidthGoldens.FindStringSubmatch(filepath.Base(path))
		if m == nil {
			continue
		}
		width, _ := strconv.Atoi(m[2])
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if w := lipgloss.Width(line); w > width {
					t.Errorf("line %d is %d columns wide, more than %d:\n%s", i+1, w, width, line)
				}
				if unitLine.MatchString(line) {
					t.Errorf("line %d starts with a unit cut from its number:\n%s", i+1, line)
				}
			}
		})
		checked++
	}
	if checked < 30 {
		t.Errorf("only %d width goldens found", checked)
	}
}

// unitLine matches a line that starts with a unit: a number and its unit were split.
var unitLine = regexp.MustCompile(`^\s*(ms|s|min)\b[^-]`)
