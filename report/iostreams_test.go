package report

import (
	"bytes"
	"io"
	"testing"
)

// TestSystemWidth: the width a text report fits (issue 26 item 3). With stdout not a
// terminal — a report piped into tee or less — it comes from stderr's terminal when there is
// one (bash does not export COLUMNS, so an 80-column terminal used to get 100), then COLUMNS,
// then 100.
func TestSystemWidth(t *testing.T) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	for _, tc := range []struct {
		name              string
		outCols, errCols  int // 0: not a terminal
		columns           string
		wantWidth, wantEW int
	}{
		{"stdout a terminal", 120, 90, "70", 120, 90},
		{"piped, stderr a terminal", 0, 80, "", 80, 80},
		{"piped, stderr a terminal, COLUMNS set", 0, 80, "132", 80, 80},
		{"piped, no terminal, COLUMNS", 0, 0, "132", 132, 132},
		{"piped, no terminal, no COLUMNS", 0, 0, "", DefaultWidth, 0},
		{"piped, COLUMNS not a number", 0, 0, "wide", DefaultWidth, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			size := func(w io.Writer) (bool, int) {
				c := tc.errCols
				if w == out {
					c = tc.outCols
				}
				return c > 0, c
			}
			getenv := func(k string) string {
				if k == "COLUMNS" {
					return tc.columns
				}
				return ""
			}
			s := systemStreams(nil, out, errOut, getenv, size)
			if s.Width != tc.wantWidth || s.ErrWidth != tc.wantEW {
				t.Errorf("Width %d, ErrWidth %d; want %d, %d", s.Width, s.ErrWidth, tc.wantWidth, tc.wantEW)
			}
			if s.StdoutTTY != (tc.outCols > 0) || s.StderrTTY != (tc.errCols > 0) {
				t.Errorf("StdoutTTY %v, StderrTTY %v", s.StdoutTTY, s.StderrTTY)
			}
		})
	}
}
