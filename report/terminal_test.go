package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "checkout → 200 ok", "checkout → 200 ok"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"clipboard write (OSC 52)", "x\x1b]52;c;ZXZpbA==\x07y", `x\x1b]52;c;ZXZpbA==\x07y`},
		{"screen clear", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"colour from the user", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"carriage return", "ok\rFAILED", `ok\rFAILED`},
		{"backspace and bell", "a\bb\x07", `a\bb\x07`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"C1 CSI", "a\u009b2Jb", `a\u009b2Jb`},
		{"bidi override", "user\u202eexe.txt", `user\u202eexe.txt`},
		{"bidi isolate", "a\u2066b\u2069", `a\u2066b\u2069`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"NUL", "a\x00b", `a\x00b`},
		{"workflow command on a line of its own", "bad name \"x\n  ::error::owned\"", "bad name \"x\n  \\x3a:error::owned\""},
	} {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("%s: Sanitize(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestTerminalWriterSplitWrites: SGR sequences and UTF-8 characters split across writes
// pass whole when colour is on; other escapes never pass.
func TestTerminalWriterSplitWrites(t *testing.T) {
	in := "\x1b[1;31m✓ ok\x1b[0m é \x1b]0;title\x07 \x1b[2J end\n"
	for _, colour := range []bool{true, false} {
		for split := 1; split < len(in); split++ {
			var b bytes.Buffer
			w := newTerminalWriter(&b, colour)
			for i := 0; i < len(in); i += split {
				_, _ = w.Write([]byte(in[i:min(len(in), i+split)]))
			}
			want := `\x1b[1;31m✓ ok\x1b[0m é \x1b]0;title\x07 \x1b[2J end` + "\n"
			if colour {
				want = "\x1b[1;31m✓ ok\x1b[0m é \\x1b]0;title\\x07 \\x1b[2J end\n"
			}
			if b.String() != want {
				t.Fatalf("colour %v, writes of %d: %q, want %q", colour, split, b.String(), want)
			}
		}
	}
}

// sgr matches the colour sequences the renderers write.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// TestRenderersEscapeUserStrings: a hostile URL, header and error sample reach no terminal
// as escapes through any probe format, with colour on or off (issue 17: raw escape sequences
// in scenario names reached the terminal even with --color never).
func TestRenderersEscapeUserStrings(t *testing.T) {
	r := probeFixture()
	r.Target.URL = "http://127.0.0.1/\x1b]52;c;ZXZpbA==\x07\x1b[2J\r"
	r.Target.Headers = []string{"X-Note: \x1b[8mhidden"}
	r.Notes = []string{"note \u202eevil"}
	for _, colour := range []bool{false, true} {
		for _, name := range ProbeFormats.Names() {
			render, _ := ProbeFormats.Get(name)
			var b bytes.Buffer
			if err := render(&b, r, probeOptions(colour)); err != nil {
				t.Fatal(err)
			}
			out := sgr.ReplaceAllString(b.String(), "")
			if !colour && b.String() != out {
				t.Errorf("%s, colour off: SGR sequences in the output", name)
			}
			if strings.ContainsAny(out, "\x1b\x07\r\u202e") {
				t.Errorf("%s, colour %v: a control character reached the output: %q", name, colour, out)
			}
		}
	}
}

// TestSafeWriterGuardsCommands: serve's log lines name scenario phases; a phase named with a
// line break and a workflow command does not start a command line on stderr.
func TestSafeWriterGuardsCommands(t *testing.T) {
	var b bytes.Buffer
	w := SafeWriter(&b)
	_, _ = w.Write([]byte("serve: phase x\n::error title=pwned::owned\x1b[31m starts\n"))
	_, _ = w.Write([]byte("  ::warning::w"))
	_, _ = w.Write([]byte(" ::still the same line\n"))
	want := "serve: phase x\n\\x3a:error title=pwned::owned\\x1b[31m starts\n  \\x3a:warning::w ::still the same line\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
