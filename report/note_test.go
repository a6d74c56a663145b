package report

import (
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

// liveNote is live's run-time estimate as the demo printed it, 108 columns on one line.
const liveNote = "live: 4 policies at once, 4 min of arrivals at speed 30: about 8 s real time (at most 10 s with the 1 min drain)"

func TestWrapNote(t *testing.T) {
	cases := []struct {
		name, text string
		width      int
		want       string
	}{
		{"fits", "note: short", 80, "note: short\n"},
		{"unknown width", liveNote, 0, liveNote + "\n"},
		{"wrapped, continuation indented", liveNote, 80,
			"live: 4 policies at once, 4 min of arrivals at speed 30: about 8 s real time (at\n" +
				"  most 10 s with the 1 min drain)\n"},
		{"a number keeps its unit", "a b c d e f g h i j k l m n o p q r 10 s", 38,
			"a b c d e f g h i j k l m n o p q r\n  10 s\n"},
		{"own indentation kept", "error: x\n    " + strings.Repeat("word ", 20), 40,
			"error: x\n    word word word word word word word\n      word word word word word word word\n      word word word word word word\n"},
		{"a word wider than the line is not cut", "see " + strings.Repeat("x", 50) + " here", 30,
			"see\n  " + strings.Repeat("x", 50) + "\n  here\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		if err := WrapNote(&b, c.width, c.text); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%s:\ngot\n%q\nwant\n%q", c.name, b.String(), c.want)
		}
		if c.width > 0 {
			for _, l := range strings.Split(b.String(), "\n") {
				if w := lipgloss.Width(l); w > c.width && !strings.Contains(l, strings.Repeat("x", 50)) {
					t.Errorf("%s: line of %d columns > %d: %q", c.name, w, c.width, l)
				}
			}
		}
	}
}

// TestNoteWriter: lines written in pieces, and from several goroutines, each reach the
// terminal whole and wrapped.
func TestNoteWriter(t *testing.T) {
	var b strings.Builder
	w := NoteWriter(&b, 80)
	half := len(liveNote) / 2
	w.Write([]byte(liveNote[:half]))
	if b.Len() != 0 {
		t.Fatalf("half a line was written: %q", b.String())
	}
	w.Write([]byte(liveNote[half:] + "\nserve: t=0s phase baseline\n"))
	want := "live: 4 policies at once, 4 min of arrivals at speed 30: about 8 s real time (at\n" +
		"  most 10 s with the 1 min drain)\nserve: t=0s phase baseline\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}

	var locked lockedBuilder
	w = NoteWriter(&locked, 80)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				w.Write([]byte(liveNote + "\n"))
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(locked.b.String(), "\n"), "\n")
	if len(lines) != 8*20*2 {
		t.Fatalf("%d lines, want %d", len(lines), 8*20*2)
	}
	for i := 0; i < len(lines); i += 2 {
		if !strings.HasPrefix(lines[i], "live: ") || !strings.HasPrefix(lines[i+1], "  most 10 s") {
			t.Fatalf("lines %d–%d interleaved: %q / %q", i, i+1, lines[i], lines[i+1])
		}
	}
	if NoteWriter(&b, 0) != &b {
		t.Error("width 0 should pass the writer through")
	}
}

type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
