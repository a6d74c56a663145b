package report

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
)

// noteMinWidth is the narrowest a note's text is wrapped to, whatever its indentation: below
// it a line of one or two words each reads worse than a line the terminal wraps itself.
const noteMinWidth = 20

// WrapNote writes text — a note, warning or error for stderr — wrapped by word so that no
// line is wider than width (wrapWords: nothing is cut, a number keeps its unit, a word wider
// than the width gets a line of its own). Each line of text keeps its own indentation, and
// the lines it wraps into are indented two spaces further, so a note's continuation reads
// as one item. A width of 0 or less (stderr's width unknown: not a terminal and no COLUMNS)
// writes text unchanged, so logs and the tools that read them see each message on one line.
// A missing final newline is added.
func WrapNote(w io.Writer, width int, text string) error {
	text = strings.TrimSuffix(text, "\n")
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if width <= 0 || lipgloss.Width(line) <= width {
			b.WriteString(line + "\n")
			continue
		}
		body := strings.TrimLeft(line, " ")
		indent := line[:len(line)-len(body)]
		room := max(width-len(indent), noteMinWidth)
		parts := wrapWords(body, room)
		b.WriteString(indent + parts[0] + "\n")
		if len(parts) > 1 {
			// The continuation lines, two spaces further in, are wrapped again to their room.
			rest := wrapWords(strings.Join(parts[1:], " "), max(room-2, noteMinWidth))
			for _, p := range rest {
				b.WriteString(indent + "  " + p + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// NoteWriter returns a writer that wraps every line written to it with WrapNote before it
// reaches w: for the notes other packages write to a writer they are given (live's run-time
// estimate and warnings, serve's phase log). Lines are passed on whole, as each newline
// arrives; a write that ends mid-line waits for the rest. It is safe for concurrent use, and
// a width of 0 or less passes everything through unchanged.
func NoteWriter(w io.Writer, width int) io.Writer {
	if width <= 0 {
		return w
	}
	return &noteWriter{w: w, width: width}
}

type noteWriter struct {
	mu    sync.Mutex
	w     io.Writer
	width int
	buf   []byte
}

func (n *noteWriter) Write(p []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.buf = append(n.buf, p...)
	i := bytes.LastIndexByte(n.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	lines := string(n.buf[:i+1])
	n.buf = append(n.buf[:0], n.buf[i+1:]...)
	if err := WrapNote(n.w, n.width, lines); err != nil {
		return 0, err
	}
	return len(p), nil
}
