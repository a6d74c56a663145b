package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// columns are the labels file's header, in order (docs/contributing.md "Scoring the source
// check").
var columns = []string{"file", "line", "language", "library", "unbounded", "connect_ms", "read_ms", "total_ms", "attempts", "note"}

// Truth is a labelled yes/no that may be unknown.
type Truth int

// Truths of a label's unbounded column.
const (
	TruthUnknown Truth = iota // "?": the code does not say statically
	TruthYes
	TruthNo
)

// Value is one labelled bound or count: a number, no bound at all ("-"), or not statically
// known ("?").
type Value struct {
	Kind Kind
	N    int64
}

// Kind says what a Value is.
type Kind int

// Kinds of a labelled Value.
const (
	KindUnknown Kind = iota // "?"
	KindNone                // "-": the bound does not exist
	KindNumber
)

func (v Value) String() string {
	switch v.Kind {
	case KindNone:
		return "-"
	case KindNumber:
		return strconv.FormatInt(v.N, 10)
	}
	return "?"
}

// Label is one labelled call site: the truth about the code, read by a person.
type Label struct {
	// Row is the label's line in the labels file, for messages.
	Row int
	// File is relative to the scored directory, with forward slashes.
	File string
	// Line and End are the lines the call expression spans (End == Line for one line): a
	// reader may report any line of it (the start of a chain, the method's own line).
	Line, End int
	Language  string
	Library   string
	Unbounded Truth
	Connect   Value
	Read      Value
	Total     Value
	Attempts  Value
	Note      string
}

// ParseLabels reads a labels file: a tab-separated header naming the columns, then one row per
// call site; blank lines and lines starting with # (provenance: repository and commit) are
// skipped. An error names name:line and the field.
func ParseLabels(name string, r io.Reader) ([]Label, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var out []Label
	header := false
	row := 0
	for sc.Scan() {
		row++
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if !header {
			if err := checkHeader(fields); err != nil {
				return nil, fmt.Errorf("%s:%d: header: %v", name, row, err)
			}
			header = true
			continue
		}
		l, err := parseRow(fields)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, row, err)
		}
		l.Row = row
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if !header {
		return nil, fmt.Errorf("%s: no header: want the columns %s", name, strings.Join(columns, ", "))
	}
	return out, nil
}

func checkHeader(fields []string) error {
	if len(fields) != len(columns) {
		return fmt.Errorf("want %d tab-separated columns (%s), got %d", len(columns), strings.Join(columns, ", "), len(fields))
	}
	for i, c := range columns {
		if strings.TrimSpace(fields[i]) != c {
			return fmt.Errorf("column %d: want %q, got %q", i+1, c, fields[i])
		}
	}
	return nil
}

func parseRow(f []string) (Label, error) {
	if len(f) != len(columns) {
		return Label{}, fmt.Errorf("want %d tab-separated fields, got %d", len(columns), len(f))
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	l := Label{File: f[0], Language: f[2], Library: f[3], Note: f[9]}
	if l.File == "" || strings.HasPrefix(l.File, "/") || strings.Contains(l.File, "\\") {
		return l, fmt.Errorf("file: want a path relative to the directory scored, with /, got %q", f[0])
	}
	var err error
	if l.Line, l.End, err = parseLines(f[1]); err != nil {
		return l, fmt.Errorf("line: %v", err)
	}
	if l.Language == "" {
		return l, fmt.Errorf("language: empty")
	}
	if l.Unbounded, err = parseTruth(f[4]); err != nil {
		return l, fmt.Errorf("unbounded: %v", err)
	}
	values := []*Value{&l.Connect, &l.Read, &l.Total, &l.Attempts}
	for i, v := range values {
		if *v, err = parseValue(f[5+i]); err != nil {
			return l, fmt.Errorf("%s: %v", columns[5+i], err)
		}
	}
	if l.Attempts.Kind == KindNumber && l.Attempts.N < 1 {
		return l, fmt.Errorf("attempts: want 1 or more (1 = no retry), got %d", l.Attempts.N)
	}
	return l, nil
}

// parseLines reads "42" or "42-45".
func parseLines(s string) (int, int, error) {
	a, b, ranged := strings.Cut(s, "-")
	start, err := strconv.Atoi(a)
	if err != nil || start < 1 {
		return 0, 0, fmt.Errorf("want a line number or a range such as 42-45, got %q", s)
	}
	if !ranged {
		return start, start, nil
	}
	end, err := strconv.Atoi(b)
	if err != nil || end < start {
		return 0, 0, fmt.Errorf("want a range such as 42-45 (end not before start), got %q", s)
	}
	return start, end, nil
}

func parseTruth(s string) (Truth, error) {
	switch s {
	case "yes":
		return TruthYes, nil
	case "no":
		return TruthNo, nil
	case "?":
		return TruthUnknown, nil
	}
	return 0, fmt.Errorf("want yes, no or ?, got %q", s)
}

func parseValue(s string) (Value, error) {
	switch s {
	case "-":
		return Value{Kind: KindNone}, nil
	case "?":
		return Value{Kind: KindUnknown}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return Value{}, fmt.Errorf("want milliseconds (a whole number), - (no bound) or ? (not statically known), got %q", s)
	}
	return Value{Kind: KindNumber, N: n}, nil
}
