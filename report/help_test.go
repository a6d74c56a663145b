package report

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

func TestWrapHelp(t *testing.T) {
	in := "Replay a failure scenario through every policy it lists, side by side, in a deterministic\n" +
		"discrete-event simulation: ten minutes of traffic take well under a second.\n" +
		"\n" +
		"Presets (--policy preset:NAME):\n" +
		"  naive               3 immediate retries, no jitter, no timeout, everything retried (4xx and POST too), Retry-After ignored\n" +
		"- a list item that is long enough to wrap at the width of this test, with 250 ms in it\n" +
		"\n" +
		"Flags:\n" +
		"  -o, --output string   text|json|markdown|html (default \"text\")\n"
	got := WrapHelp(in, 60)
	want := "Replay a failure scenario through every policy it lists,\n" +
		"side by side, in a deterministic discrete-event simulation:\n" +
		"ten minutes of traffic take well under a second.\n" +
		"\n" +
		"Presets (--policy preset:NAME):\n" +
		"  naive               3 immediate retries, no jitter, no\n" +
		"                      timeout, everything retried (4xx and\n" +
		"                      POST too), Retry-After ignored\n" +
		"- a list item that is long enough to wrap at the width of\n" +
		"  this test, with 250 ms in it\n" +
		"\n" +
		"Flags:\n" +
		"  -o, --output string   text|json|markdown|html (default\n" +
		"                        \"text\")\n"
	if got != want {
		t.Errorf("WrapHelp at 60:\n%s\nwant:\n%s", got, want)
	}
	for _, l := range strings.Split(got, "\n") {
		if lipgloss.Width(l) > 60 {
			t.Errorf("line wider than 60: %q", l)
		}
	}
	if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(in), " ") {
		t.Error("a word was lost or cut")
	}
	flag := "      --format string   input format: auto|nginx|alb|har|otlp|prometheus|k6|vegeta|curl|haproxy|envoy|csv|profile (default \"auto\")"
	if got, want := WrapHelp(flag, 60), "      --format string   input format:\n"+
		"                        auto|nginx|alb|har|otlp|prometheus|\n"+
		"                        k6|vegeta|curl|haproxy|envoy|csv|\n"+
		"                        profile (default \"auto\")"; got != want {
		t.Errorf("a list of choices wider than the column:\n%s\nwant:\n%s", got, want)
	}
	if WrapHelp(in, 0) != in {
		t.Error("width 0 changed the text")
	}
}
