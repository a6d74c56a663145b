package report

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"
)

// IOStreams is the single place where patience touches the terminal: the three streams and
// the three separate decisions made once per run — colour, layout (tables when stdout is a
// TTY) and progress (bars when stderr is a TTY) — after gh's pkg/iostreams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// StdoutTTY and StderrTTY say whether each stream is a terminal.
	StdoutTTY bool
	StderrTTY bool

	// Color is the decided colour mode for stdout; set by ResolveColor.
	Color bool
	// Quiet suppresses progress output.
	Quiet bool
	// Width is the width text reports fit: stdout's when it is a terminal; else stderr's
	// when that is one (a report piped into tee or less from a terminal fits the terminal it
	// is read in: bash does not export COLUMNS); else COLUMNS when set, else 100.
	Width int
	// ErrWidth is the width notes, warnings, errors and progress bars on stderr fit:
	// stderr's when it is a terminal, else COLUMNS when set, else 0 — unknown, and notes are
	// written one message a line (WrapNote).
	ErrWidth int

	// Getenv reads the environment; tests replace it.
	Getenv func(string) string
}

// DefaultWidth is the width of text reports when neither the terminal nor COLUMNS says.
const DefaultWidth = 100

// System builds IOStreams over real streams, detecting TTYs and width.
func System(in io.Reader, out, errOut io.Writer) *IOStreams {
	return systemStreams(in, out, errOut, os.Getenv, terminalSize)
}

// terminalSize says whether w is a terminal and, when it is, its width (0 when unknown).
func terminalSize(w io.Writer) (tty bool, width int) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	if c, _, err := term.GetSize(int(f.Fd())); err == nil && c > 0 {
		return true, c
	}
	return true, 0
}

// systemStreams is System with the environment and the terminal query injected (tests).
// The report width is stdout's terminal, then stderr's, then COLUMNS, then DefaultWidth;
// stderr's width is stderr's terminal, then COLUMNS, then unknown.
func systemStreams(in io.Reader, out, errOut io.Writer, getenv func(string) string, size func(io.Writer) (bool, int)) *IOStreams {
	s := &IOStreams{In: in, Out: out, ErrOut: errOut, Width: DefaultWidth, Getenv: getenv}
	columns := 0
	if c, err := strconv.Atoi(strings.TrimSpace(getenv("COLUMNS"))); err == nil && c > 0 {
		columns = c
	}
	var outWidth, errWidth int
	s.StdoutTTY, outWidth = size(out)
	s.StderrTTY, errWidth = size(errOut)
	s.ErrWidth = firstPositive(errWidth, columns)
	if w := firstPositive(outWidth, errWidth, columns); w > 0 {
		s.Width = w
	}
	return s
}

// firstPositive is the first of ws above zero, 0 when none is.
func firstPositive(ws ...int) int {
	for _, w := range ws {
		if w > 0 {
			return w
		}
	}
	return 0
}

// Test builds IOStreams over buffers: no TTY, no colour, 80 columns for reports, stderr's
// width unknown (ErrWidth 0: notes unwrapped), empty environment.
func Test(in io.Reader, out, errOut io.Writer) *IOStreams {
	return &IOStreams{In: in, Out: out, ErrOut: errOut, Width: 80, Getenv: func(string) string { return "" }}
}

// ColorModes lists the values of --color.
var ColorModes = []string{"auto", "always", "never"}

// ResolveColor decides colour from --color, then NO_COLOR, CLICOLOR_FORCE, CLICOLOR, then
// whether stdout is a terminal (https://no-color.org, https://bixense.com/clicolors).
func (s *IOStreams) ResolveColor(mode string) error {
	switch mode {
	case "always":
		s.Color = true
	case "never":
		s.Color = false
	case "auto", "":
		getenv := s.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		switch {
		case getenv("NO_COLOR") != "":
			s.Color = false
		case getenv("CLICOLOR_FORCE") != "" && getenv("CLICOLOR_FORCE") != "0":
			s.Color = true
		case getenv("CLICOLOR") == "0":
			s.Color = false
		default:
			s.Color = s.StdoutTTY
		}
	default:
		return fmt.Errorf("invalid --color %q: want one of %s", mode, strings.Join(ColorModes, ", "))
	}
	return nil
}

// ShowProgress says whether progress bars may be drawn: stderr is a terminal, the user did
// not ask for quiet, and the output format is meant for people.
func (s *IOStreams) ShowProgress(format string) bool {
	return s.StderrTTY && !s.Quiet && !IsMachineFormat(format)
}

// Renderer returns the lipgloss renderer for stdout with the decided colour profile, so
// report code never consults the environment itself.
func (s *IOStreams) Renderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(s.Out)
	if s.Color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
}

// Options returns the rendering options for stdout.
func (s *IOStreams) Options() Options {
	return Options{Styles: NewStyles(s.Renderer()), Width: s.Width, Color: s.Color}
}

// ErrRenderer returns a renderer for stderr (warnings and errors), coloured only when
// stderr is a terminal and colour is not disabled.
func (s *IOStreams) ErrRenderer(mode string) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(s.ErrOut)
	color := s.StderrTTY
	if mode == "always" {
		color = true
	} else if mode == "never" || (s.Getenv != nil && s.Getenv("NO_COLOR") != "") {
		color = false
	}
	if color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
}
