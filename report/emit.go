package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/patience-dev/patience/profile"
)

// The emitted texts (--emit, package emit): rendered as they are — a program or a
// configuration file is never wrapped — after the recommendation they were written from,
// with the bounds the target cannot express said under each.

// emitTitle is an emission's heading: "Emitted for requests (python)", with its group.
func emitTitle(e profile.Emission) string {
	t := "Emitted for " + e.Target + " (" + e.Language + ")"
	if e.Group != "" {
		t += " — " + e.Group
	}
	return t
}

// emitWhere is the caption: where the text went and how many knobs it sets.
func emitWhere(e profile.Emission) string {
	knobs := fmt.Sprintf("%d knobs", len(e.Settings))
	if len(e.Settings) == 1 {
		knobs = "1 knob"
	}
	if e.Path != "" {
		return "written to " + e.Path + " · " + knobs
	}
	return knobs
}

// writeEmitText writes each emission: its title, its text verbatim — not indented, so that
// a program copied from the terminal runs (Python's indentation is its syntax) — made safe
// for a terminal line by line, unless it was written to a file; then what the target lacks.
func writeEmitText(b *strings.Builder, st Styles, width int, ems []profile.Emission) {
	for _, e := range ems {
		b.WriteString("\n")
		writeTitle(b, st, textSafe(emitTitle(e)), textSafe(emitWhere(e)), width)
		if e.Path == "" {
			b.WriteString(textSafeLines(strings.TrimRight(e.Text, "\n")) + "\n")
		} else {
			for _, s := range e.Settings {
				writeHanging(b, "  "+textSafe(s.Knob)+" = "+textSafe(s.Value)+"  ", 4, textSafe(s.Bounds), width, st.Muted)
			}
		}
		for _, m := range e.Missing {
			writeHanging(b, "  missing: ", 4, textSafe(m), width, st.Warn)
		}
	}
}

// EmitText renders emissions alone, as `check --init --emit` prints them.
func EmitText(w io.Writer, ems []profile.Emission, o Options) error {
	var b strings.Builder
	writeEmitText(&b, o.Styles, textWidth(o), ems)
	_, err := io.WriteString(w, strings.TrimPrefix(b.String(), "\n"))
	return err
}

// writeEmitMarkdown writes each emission as a heading, a fenced block in its language and
// the missing bounds.
func writeEmitMarkdown(b *strings.Builder, ems []profile.Emission) {
	for _, e := range ems {
		fmt.Fprintf(b, "\n#### %s\n\n", mdText(emitTitle(e)))
		if e.Path != "" {
			fmt.Fprintf(b, "Written to `%s`.\n\n", strings.ReplaceAll(e.Path, "`", "'"))
		}
		fence := "```"
		for strings.Contains(e.Text, fence) {
			fence += "`"
		}
		fmt.Fprintf(b, "%s%s\n%s\n%s\n", fence, e.Language, textSafeLines(strings.TrimRight(e.Text, "\n")), fence)
		for _, m := range e.Missing {
			fmt.Fprintf(b, "- missing: %s\n", mdText(m))
		}
	}
}

// emitHTMLBlocks is the HTML report's blocks for the emissions.
func emitHTMLBlocks(ems []profile.Emission) []htmlBlock {
	var blocks []htmlBlock
	for _, e := range ems {
		blocks = append(blocks, htmlBlock{Heading: emitTitle(e)}, para("muted", emitWhere(e)), htmlBlock{Pre: &htmlPre{Lang: e.Language, Text: e.Text}})
		if len(e.Missing) > 0 {
			items := make([]string, len(e.Missing))
			for i, m := range e.Missing {
				items[i] = "missing: " + m
			}
			blocks = append(blocks, list("", items))
		}
	}
	return blocks
}
