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

// TestWrapHelpAlignedLabel: a label with a gap of its own ("storm  [SCENARIO]", aligned with
// "replay [SCENARIO]") wraps under the text column its neighbours use, not after its first
// gap (issue 26 item 5: the root help's storm row was misaligned).
func TestWrapHelpAlignedLabel(t *testing.T) {
	in := "  replay [SCENARIO]  replay a failure scenario through retry/backoff/breaker policies\n" +
		"  storm  [SCENARIO]  retry-storm amplification and metastable collapse across many clients"
	want := "  replay [SCENARIO]  replay a failure scenario through retry/backoff/breaker\n" +
		"                     policies\n" +
		"  storm  [SCENARIO]  retry-storm amplification and metastable collapse across\n" +
		"                     many clients"
	if got := WrapHelp(in, 80); got != want {
		t.Errorf("WrapHelp at 80:\n%s\nwant:\n%s", got, want)
	}
}

// TestWrapHelpExamples: an example wraps between arguments with a shell continuation, a flag
// kept with its value and a quoted argument whole, so it still pastes as one command (issue
// 26 item 5: examples wrapped mid-command at 80 columns).
func TestWrapHelpExamples(t *testing.T) {
	in := "Examples:\n" +
		"  patience probe https://api.example.com/ -H 'Authorization: Bearer …' --save eu.json\n" +
		"  patience probe --merge eu.json us.json -o markdown\n" +
		"\n" +
		"Flags:\n" +
		"      --save string   write the profile to this file so that it can be merged later on\n"
	want := "Examples:\n" +
		"  patience probe https://api.example.com/ -H 'Authorization: Bearer …' \\\n" +
		"      --save eu.json\n" +
		"  patience probe --merge eu.json us.json -o markdown\n" +
		"\n" +
		"Flags:\n" +
		"      --save string   write the profile to this file so that it can be merged\n" +
		"                      later on\n"
	if got := WrapHelp(in, 80); got != want {
		t.Errorf("WrapHelp at 80:\n%s\nwant:\n%s", got, want)
	}
	if got := WrapHelp("Examples:\n  patience check -o github --report 'junit=a b c d e f g h'", 30); got != "Examples:\n  patience check -o github \\\n      --report 'junit=a b c d e f g h'" {
		t.Errorf("a quoted argument was split:\n%s", got)
	}
}
