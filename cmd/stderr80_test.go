package cmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/report"
)

// TestStderrFitsEighty: what cmd and the packages it hands stderr to write there — errors,
// the demo's and live replay's run-time estimate, serve's log — fits a stderr of 80 columns,
// wrapped by word with nothing lost (issue 16: every README example at 80 columns). The demo
// printed live's estimate on one line of 108 columns, serve its URLs on one of 115, and an
// error its whole message on one line.
func TestStderrFitsEighty(t *testing.T) {
	cases := []struct {
		name string
		args []string
		// want is text that must be on stderr once its line breaks are undone.
		want string
	}{
		{"error", []string{"probe", "localhost:8080"},
			`error: target "localhost:8080" is not an http:// or https:// URL: did you mean http://localhost:8080?`},
		{"demo", []string{"demo", "--duration", "1s", "--speed", "300", "--rate", "50/s"}, "live: 4 policies at once"},
		{"serve", []string{"serve", "rate-limited", "--listen", "127.0.0.1:0", "--for", "200ms"},
			"8 phases timed from now, the last ending 2 min 15 s in (scenario time); then baseline; stops after --for 200ms or on Ctrl-C"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			s := report.Test(nil, &out, &errOut)
			s.ErrWidth = 80
			run(context.Background(), &Factory{IO: s}, c.args)
			lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
			for _, l := range lines {
				if w := lipgloss.Width(l); w > 80 {
					t.Errorf("a stderr line of %d columns: %q", w, l)
				}
			}
			// The message is whole: joined back (continuations are indented two spaces).
			joined := strings.Join(strings.Fields(errOut.String()), " ")
			if !strings.Contains(joined, c.want) {
				t.Errorf("stderr lost %q:\n%s", c.want, errOut.String())
			}
			if len(lines) < 2 {
				t.Errorf("nothing was wrapped: %q", errOut.String())
			}
		})
	}
}
