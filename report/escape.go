package report

import (
	"bytes"
	"html"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Every text a report shows that came from input — a scenario, dependency, policy, layer or
// trigger name, a file path, a skipped file's reason, a message quoting a user's value, a
// route, host or label — is escaped for the format it lands in, here and only here
// (issue 24, item 7: a newline in a name reached the text and Markdown reports as a real
// line break, so a name could start a line with "::error", a GitHub Actions workflow
// command, or put raw <img onerror> into a pull-request comment).
//
//   - text: textSafe, one line, control characters shown as strconv.Quote shows them.
//   - Markdown: mdText for prose and table cells, mdCode for a value set in code.
//   - GitHub workflow commands: GitHubData and GitHubProperty (check_github.go), the
//     runner's own toolkit escaping.
//   - JSON, JUnit, SARIF and HTML are written by encoding/json, encoding/xml and
//     html/template, which escape for where a string lands; htmlDocSafe keeps a name's line
//     breaks out of the HTML source as it does for text.
//
// terminalWriter (terminal.go) stays the last guard for every format: what escaped a call
// here still cannot reach a terminal as an escape sequence.

// textSafe is s on one line for a text report: every character strconv.Quote would escape
// as non-printable (C0 and C1 controls, line and paragraph breaks, tabs, DEL, bidi
// overrides, other format characters) and every invalid UTF-8 byte is shown as Quote shows
// it (\n, \t, \x1b, \u202e, \xff), without the quotes; the rest, backslashes and quotes
// included, is kept. No line can start inside it, and no escape sequence reaches the
// terminal from it, whatever the colour decision.
func textSafe(s string) string {
	if !needsTextEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])>>4, 16) + strconv.FormatUint(uint64(s[i])&0xf, 16))
		case r == ' ' || unicode.IsPrint(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r) // 'x' with x escaped: \n, \x1b, \u202e
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// textProse is a description or a lesson — prose a scenario file may fold over several
// lines — for a text report: every run of white space, line breaks included, is one space
// (as a Markdown paragraph reads it), then textSafe. No line can start inside it.
func textProse(s string) string {
	return textSafe(strings.Join(strings.Fields(s), " "))
}

// needsTextEscape says whether textSafe changes s (most names are plain ASCII).
func needsTextEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= 0x7f {
			return true
		}
	}
	return false
}

// textSafeAll is textSafe of each of ss (policy and layer lists).
func textSafeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = textSafe(s)
	}
	return out
}

// mdSpecial are the characters escaped in Markdown text: & and < (no HTML tag or entity
// comes from input; > closes nothing without <), the table cell separator |, and what
// GitHub-flavoured Markdown reads as emphasis (* and _) or a link or an image ([). A
// backslash is escaped first so that an escape cannot be undone ("\|" would end a cell).
// A backtick is kept: a code span shows its content literally, and a row splits at | before
// code spans are read (GFM spec, tables extension), so it can neither carry HTML nor break
// a row; ~ needs two to strike through and is kept for the marks that use it.
var mdSpecial = strings.NewReplacer(
	`\`, `\\`,
	"&", "&amp;", "<", "&lt;",
	"|", `\|`, "*", `\*`, "_", `\_`, "[", `\[`,
)

// mdText keeps s on one line of Markdown prose or in one table cell and keeps it from being
// read as Markdown or HTML: textSafe first (a line break shows as \n, so the table row and
// the paragraph stay whole, and no line can start with "::" or "#"), then mdSpecial.
func mdText(s string) string {
	return mdSpecial.Replace(textSafe(s))
}

// mdProse is a description or a lesson in Markdown: textProse (white space folded, as a
// paragraph reads it anyway), then mdSpecial.
func mdProse(s string) string {
	return mdSpecial.Replace(textProse(s))
}

// htmlText is s for raw HTML inside Markdown (a <summary>, a <pre>), where Markdown escapes
// are not read: textSafe, then HTML's escaping.
func htmlText(s string) string {
	return html.EscapeString(textSafe(s))
}

// mdCode sets s in code: a code span when s holds nothing a code span cannot carry
// (backtick, |, a control character) nor HTML, else <code> around mdText(s) — GitHub shows
// both in monospace, and inside <code> HTML entities and backslash escapes are read.
func mdCode(s string) string {
	if !strings.ContainsAny(s, "`|<&\\") && !needsTextEscape(s) {
		return "`" + s + "`"
	}
	return "<code>" + mdText(s) + "</code>"
}

// htmlDocSafe applies textSafe to every string of d that html/template will escape (not the
// SVG, template.HTML, nor the CSS): html/template escapes a string for where it lands but
// keeps its line breaks, and a line of the page's source beginning with "::" is a workflow
// command when the page is printed to a GitHub Actions log (-o html).
func htmlDocSafe(d *htmlDoc) {
	htmlSafeValue(reflect.ValueOf(d).Elem())
}

var (
	stringType = reflect.TypeOf("")
	preType    = reflect.TypeOf(htmlPre{})
)

// textSafeLines is textSafe for each line of a verbatim text (an emitted program), its line
// breaks kept.
func textSafeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = textSafe(l)
	}
	return strings.Join(lines, "\n")
}

func htmlSafeValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.Type() == stringType && v.CanSet() {
			v.SetString(textSafe(v.String()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			htmlSafeValue(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			htmlSafeValue(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == preType {
			// Verbatim text keeps its lines: each is made safe on its own.
			f := v.FieldByName("Text")
			f.SetString(textSafeLines(f.String()))
			v.FieldByName("Lang").SetString(textSafe(v.FieldByName("Lang").String()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			htmlSafeValue(v.Field(i))
		}
	}
}

// commandGuard keeps a line of a report from being a GitHub Actions workflow command. The
// runner reads a line as one when it starts with "::" after leading white space
// (actions/runner src/Runner.Common/ActionCommand.cs, TryParseV2: message.TrimStart(), then
// StartsWith("::")), so textSafe's one line is not enough: a name holding " ::error::x" or
// a file named "::error::x.yaml" can start a line where a report wraps or where a location
// leads. Every format but github (whose own lines are commands, and whose data GitHubData
// escapes) is written through it: a line whose first visible characters (after white space
// and colour sequences) are "::" has its first colon written as \x3a, as textSafe would
// show an escaped character. Lines are held until their newline; Flush writes the rest.
type commandGuard struct {
	w   io.Writer
	buf []byte
}

func (g *commandGuard) Write(p []byte) (int, error) {
	g.buf = append(g.buf, p...)
	for {
		i := bytes.IndexByte(g.buf, '\n')
		if i < 0 {
			break
		}
		if _, err := g.w.Write(guardLine(g.buf[:i+1])); err != nil {
			return 0, err
		}
		g.buf = g.buf[i+1:]
	}
	return len(p), nil
}

// Flush writes what is left of the last line.
func (g *commandGuard) Flush() error {
	if len(g.buf) == 0 {
		return nil
	}
	_, err := g.w.Write(guardLine(g.buf))
	g.buf = nil
	return err
}

// guardLine is line with a leading "::" broken (see commandGuard).
func guardLine(line []byte) []byte {
	i := 0
	for i < len(line) {
		if line[i] == 0x1b {
			if n, _ := sgrLength(line[i:]); n > 0 {
				i += n
				continue
			}
			return line
		}
		r, size := utf8.DecodeRune(line[i:])
		if !unicode.IsSpace(r) || r == '\n' {
			break
		}
		i += size
	}
	if !bytes.HasPrefix(line[i:], []byte("::")) {
		return line
	}
	out := make([]byte, 0, len(line)+3)
	out = append(out, line[:i]...)
	out = append(out, `\x3a`...)
	return append(out, line[i+1:]...)
}
