package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/patience-dev/patience/source"
)

func ms(n int64) *int64 { return &n }

// call is a found call with its three bounds: a number is a value (origin explicit), -1 no
// bound (none), -2 unresolved.
func call(file string, line int, connect, read, total int64, pt001 bool, attempts int) Found {
	b := func(v int64) (*int64, source.Origin) {
		switch v {
		case -1:
			return nil, source.OriginNone
		case -2:
			return nil, source.OriginUnresolved
		}
		return ms(v), source.OriginExplicit
	}
	c := source.Call{File: file, Line: line, Col: 1, Language: "x", Library: "lib"}
	var o source.Origins
	c.Timeouts.ConnectMS, o.Connect = b(connect)
	c.Timeouts.ReadMS, o.Read = b(read)
	c.Timeouts.TotalMS, o.Total = b(total)
	c.Origin = o
	if attempts != 1 {
		c.Retry = &source.Retry{Layer: "r", MaxAttempts: attempts}
	}
	return Found{Call: c, PT001: pt001}
}

func label(file string, line, end int, unbounded Truth, c, r, t, attempts Value) Label {
	return Label{File: file, Line: line, End: end, Language: "go", Library: "lib", Unbounded: unbounded,
		Connect: c, Read: r, Total: t, Attempts: attempts}
}

var (
	none = Value{Kind: KindNone}
	unk  = Value{Kind: KindUnknown}
)

func n(v int64) Value { return Value{Kind: KindNumber, N: v} }

// TestCompute is the scorer's maths: matching by line and span, the confusion counts, the
// values share, unresolved sites and attempts.
func TestCompute(t *testing.T) {
	type want struct {
		Labelled, Found, Extra, TruthUnknown int
		PT001                                Counts
		Resolved, Right                      int
		Unresolved, UnresolvedKnown          int
		AttemptsKnown, AttemptsRight         int
	}
	cases := []struct {
		name   string
		labels []Label
		calls  []Found
		want   want
	}{
		{
			name:   "a flagged unbounded site with its values: one true positive, right",
			labels: []Label{label("a/x.go", 3, 3, TruthYes, n(30000), none, none, n(1))},
			calls:  []Found{call("a/x.go", 3, 30000, -1, -1, true, 1)},
			want:   want{Labelled: 1, Found: 1, PT001: Counts{TP: 1}, Resolved: 1, Right: 1, AttemptsKnown: 1, AttemptsRight: 1},
		},
		{
			name:   "an unbounded site not found: a false negative, nothing resolved",
			labels: []Label{label("a/x.go", 3, 3, TruthYes, none, none, none, n(1))},
			calls:  nil,
			want:   want{Labelled: 1, PT001: Counts{FN: 1}},
		},
		{
			name:   "an unbounded site found but not flagged: a false negative",
			labels: []Label{label("a/x.go", 3, 3, TruthYes, none, none, none, n(1))},
			calls:  []Found{call("a/x.go", 3, -1, -1, 5000, false, 1)},
			want:   want{Labelled: 1, Found: 1, PT001: Counts{FN: 1}, Resolved: 1, AttemptsKnown: 1, AttemptsRight: 1},
		},
		{
			name:   "a bounded site flagged: a false positive, its wrong value counted",
			labels: []Label{label("a/x.go", 3, 3, TruthNo, none, none, n(5000), n(1))},
			calls:  []Found{call("a/x.go", 3, -1, -1, -1, true, 1)},
			want:   want{Labelled: 1, Found: 1, PT001: Counts{FP: 1}, Resolved: 1, AttemptsKnown: 1, AttemptsRight: 1},
		},
		{
			name:   "an extra call in a labelled file is counted, PT001 on it is a false positive; a call in another file is not",
			labels: []Label{label("a/x.go", 3, 3, TruthNo, none, none, n(5000), n(1))},
			calls: []Found{call("a/x.go", 3, -1, -1, 5000, false, 1), call("a/x.go", 9, -1, -1, -1, true, 1),
				call("a/other.go", 1, -1, -1, -1, true, 1)},
			want: want{Labelled: 1, Found: 1, Extra: 1, PT001: Counts{FP: 1}, Resolved: 1, Right: 1, AttemptsKnown: 1, AttemptsRight: 1},
		},
		{
			name: "a call reported on a later line of the label's span matches; the exact line is taken first",
			labels: []Label{label("a/x.go", 3, 6, TruthYes, none, none, none, n(1)),
				label("a/x.go", 5, 5, TruthNo, none, none, n(1000), n(1))},
			calls: []Found{call("a/x.go", 5, -1, -1, 1000, false, 1), call("a/x.go", 6, -1, -1, -1, true, 1)},
			want:  want{Labelled: 2, Found: 2, PT001: Counts{TP: 1}, Resolved: 2, Right: 2, AttemptsKnown: 2, AttemptsRight: 2},
		},
		{
			name: "unresolved bounds: not in the values share; counted, and whether the label knows them",
			labels: []Label{label("a/x.go", 3, 3, TruthNo, n(30000), none, n(5000), n(1)),
				label("a/x.go", 4, 4, TruthUnknown, n(30000), none, unk, unk)},
			calls: []Found{call("a/x.go", 3, 30000, -1, -2, false, 1), call("a/x.go", 4, 30000, -1, -2, false, 0)},
			want:  want{Labelled: 2, Found: 2, TruthUnknown: 1, Unresolved: 2, UnresolvedKnown: 1, AttemptsKnown: 1, AttemptsRight: 1},
		},
		{
			name:   "a label ? against a resolved value is wrong: the reader claims what the code does not say",
			labels: []Label{label("a/x.go", 3, 3, TruthNo, unk, none, n(5000), n(5))},
			calls:  []Found{call("a/x.go", 3, 30000, -1, 5000, false, 3)},
			want:   want{Labelled: 1, Found: 1, Resolved: 1, AttemptsKnown: 1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			scores := Compute(tc.labels, tc.calls, nil)
			if len(scores) != 1 {
				t.Fatalf("got %d scores, want 1", len(scores))
			}
			s := scores[0]
			got := want{s.Labelled, s.Found, s.Extra, s.TruthUnknown, s.PT001, s.Resolved, s.Right,
				s.Unresolved, s.UnresolvedKnown, s.AttemptsKnown, s.AttemptsRight}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("-want +got:\n%s\ndetails: %q", d, s.Details)
			}
		})
	}
}

func TestRatios(t *testing.T) {
	cases := []struct {
		c               Counts
		recall, precise string
	}{
		{Counts{TP: 19, FN: 1}, "0.95 (19/20)", "1.00 (19/19)"},
		{Counts{TP: 3, FP: 1, FN: 1}, "0.75 (3/4)", "0.75 (3/4)"},
		{Counts{}, "n/a (0/0)", "n/a (0/0)"},
		{Counts{FP: 2}, "n/a (0/0)", "0.00 (0/2)"},
	}
	for _, tc := range cases {
		r := frac(tc.c.TP, tc.c.TP+tc.c.FN)
		p := frac(tc.c.TP, tc.c.TP+tc.c.FP)
		if r != tc.recall || p != tc.precise {
			t.Errorf("%+v: recall %s precision %s, want %s %s", tc.c, r, p, tc.recall, tc.precise)
		}
		if (tc.c.Recall() == nil) != (tc.c.TP+tc.c.FN == 0) {
			t.Errorf("%+v: Recall nil-ness wrong", tc.c)
		}
	}
}

// TestPeer scores bandit's flags: a flag in a label's span is a hit, one in a labelled file on
// no label a false positive, one in an unlabelled file ignored.
func TestPeer(t *testing.T) {
	labels := []Label{
		{File: "p/a.py", Line: 3, End: 4, Language: "python", Unbounded: TruthYes},
		{File: "p/a.py", Line: 8, End: 8, Language: "python", Unbounded: TruthYes},
		{File: "p/a.py", Line: 12, End: 12, Language: "python", Unbounded: TruthNo},
	}
	flags := map[string][]Flag{"python": {{"p/a.py", 4}, {"p/a.py", 12}, {"p/a.py", 20}, {"p/b.py", 1}}}
	s := Compute(labels, nil, flags)[0]
	if s.Peer == nil {
		t.Fatal("no peer counts")
	}
	if want := (Counts{TP: 1, FP: 2, FN: 1}); *s.Peer != want {
		t.Errorf("peer %+v, want %+v", *s.Peer, want)
	}
	if want := (Counts{FN: 2}); s.PT001 != want {
		t.Errorf("PT001 %+v, want %+v (nothing found)", s.PT001, want)
	}
}

func TestParseLabels(t *testing.T) {
	head := strings.Join(columns, "\t") + "\n"
	good := head + "# repo: x/y abc\nr/a.py\t10-12\tpython\trequests\tyes\t-\t-\t-\t1\tsession\n"
	ls, err := ParseLabels("l.tsv", strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []Label{{Row: 3, File: "r/a.py", Line: 10, End: 12, Language: "python", Library: "requests", Unbounded: TruthYes,
		Connect: none, Read: none, Total: none, Attempts: n(1), Note: "session"}}
	if d := cmp.Diff(want, ls, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("-want +got:\n%s", d)
	}
	bad := []struct{ text, msg string }{
		{"", "l.tsv: no header"},
		{"file\tline\n", "l.tsv:1: header: want 10 tab-separated columns"},
		{strings.Replace(head, "note", "notes", 1), `l.tsv:1: header: column 10: want "note", got "notes"`},
		{head + "a.py\tx\tpython\tr\tyes\t-\t-\t-\t1\t\n", `l.tsv:2: line: want a line number`},
		{head + "a.py\t9-3\tpython\tr\tyes\t-\t-\t-\t1\t\n", `l.tsv:2: line: want a range`},
		{head + "a.py\t9\tpython\tr\tmaybe\t-\t-\t-\t1\t\n", `l.tsv:2: unbounded: want yes, no or ?`},
		{head + "a.py\t9\tpython\tr\tno\t5s\t-\t-\t1\t\n", `l.tsv:2: connect_ms: want milliseconds`},
		{head + "a.py\t9\tpython\tr\tno\t-\t-\t-\t0\t\n", `l.tsv:2: attempts: want 1 or more`},
		{head + "/abs/a.py\t9\tpython\tr\tno\t-\t-\t-\t1\t\n", `l.tsv:2: file: want a path relative`},
		{head + "a.py\t9\tpython\n", `l.tsv:2: want 10 tab-separated fields, got 3`},
	}
	for _, b := range bad {
		_, err := ParseLabels("l.tsv", strings.NewReader(b.text))
		if err == nil || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%q: error %v, want one containing %q", b.text, err, b.msg)
		}
	}
}

func FuzzParseLabels(f *testing.F) {
	head := strings.Join(columns, "\t") + "\n"
	f.Add(head + "r/a.py\t10-12\tpython\trequests\tyes\t-\t-\t-\t1\tsession\n")
	f.Add(head + "r/a.go\t3\tgo\tnet/http\t?\t?\t5\t-\t?\t\n")
	f.Add("# only a comment\n")
	f.Fuzz(func(t *testing.T, text string) {
		ls, err := ParseLabels("f.tsv", strings.NewReader(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.tsv") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for _, l := range ls {
			if l.Line < 1 || l.End < l.Line || l.File == "" {
				t.Fatalf("accepted a bad label: %+v", l)
			}
		}
	})
}

// squash collapses each run of blanks to one space, so a test reads the table's cells, not
// its padding.
func squash(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// script writes an executable shell script into dir.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunWithFakes runs the command end to end with a stand-in check (its JSON for two Python
// calls) and a stand-in bandit, then without bandit: the table, bandit's row, and the exit code
// of a tool that fails.
func TestRunWithFakes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell stand-ins")
	}
	tmp := t.TempDir()
	tree := filepath.Join(tmp, "tree")
	if err := os.MkdirAll(filepath.Join(tree, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	labels := filepath.Join(tmp, "labels.tsv")
	text := strings.Join(columns, "\t") + "\n" +
		"p/a.py\t3\tpython\trequests\tyes\t-\t-\t-\t1\tmodule call\n" +
		"p/a.py\t7\tpython\thttpx\tno\t5000\t5000\t-\t1\thttpx default\n"
	if err := os.WriteFile(labels, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	check := script(t, tmp, "patience", `for a; do p=$a; done
cat <<EOF
{"calls":[{"file":"$p/a.py","line":3,"col":5,"language":"python","library":"requests","timeouts":{"connect_ms":null,"read_ms":null,"total_ms":null},"timeout_origin":{"connect":"none","read":"none","total":"none"},"retry":null},
{"file":"$p/a.py","line":7,"col":5,"language":"python","library":"httpx","timeouts":{"connect_ms":5000,"read_ms":5000,"total_ms":null},"timeout_origin":{"connect":"default","read":"default","total":"none"},"retry":null}],
"findings":[{"rule":"PT001","file":"$p/a.py","line":3,"col":5}]}
EOF
exit 1
`)
	bandit := script(t, tmp, "bandit", `for a; do p=$a; done
printf '{"results":[{"filename":"%s/a.py","line_number":3,"test_id":"B113"},{"filename":"%s/a.py","line_number":7,"test_id":"B113"}]}\n' "$p" "$p"
exit 1
`)
	var out, errOut bytes.Buffer
	if code := run([]string{"-labels", labels, "-patience", check, "-bandit", bandit, tree}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"python 2 2 0 1.00 (1/1) 1.00 (1/1) 1.00 (2/2) 0 (0) 1.00 (2/2) 0", "bandit B113 1.00 (1/1) 0.50 (1/2)"} {
		if !strings.Contains(squash(out.String()), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run([]string{"-labels", labels, "-patience", check, "-bandit", filepath.Join(tmp, "no-bandit"), tree}, &out, &errOut); code != 0 {
		t.Fatalf("bandit-less run: exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "bandit B113: not run: ") || !strings.Contains(squash(out.String()), "bandit B113 not run not run") {
		t.Errorf("bandit-less run:\n%s", out.String())
	}
	broken := script(t, tmp, "broken", "echo boom >&2; exit 2\n")
	errOut.Reset()
	if code := run([]string{"-labels", labels, "-patience", broken, "-bandit", "", tree}, &out, &errOut); code != 1 {
		t.Errorf("a failing check: exit %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), "boom") {
		t.Errorf("a failing check's message is not passed on: %q", errOut.String())
	}
	// A check that cannot read the tree (one bad file stops a walk) but reads the labelled
	// files named one by one: scored on those, and the run still exits 1.
	picky := script(t, tmp, "picky", `for a; do [ -d "$a" ] && { echo "p/old.py:1:1: does not parse" >&2; exit 2; }; f=$a; done
cat <<EOF
{"calls":[{"file":"$f","line":3,"col":5,"language":"python","library":"requests","timeouts":{"connect_ms":null,"read_ms":null,"total_ms":null},"timeout_origin":{"connect":"none","read":"none","total":"none"},"retry":null}],
"findings":[{"rule":"PT001","file":"$f","line":3,"col":5}]}
EOF
exit 1
`)
	out.Reset()
	errOut.Reset()
	if code := run([]string{"-labels", labels, "-patience", picky, "-bandit", "", tree}, &out, &errOut); code != 1 {
		t.Errorf("a check that fails on the tree: exit %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), "does not parse") || !strings.Contains(errOut.String(), "scored p on its 1 labelled files") ||
		!strings.Contains(squash(out.String()), "python 2 1 0 1.00 (1/1) 1.00 (1/1)") {
		t.Errorf("fallback to the labelled files:\nstdout %s\nstderr %s", out.String(), errOut.String())
	}
	if code := run([]string{"-labels", filepath.Join(tmp, "missing.tsv"), tree}, &out, &errOut); code != 2 {
		t.Errorf("a missing labels file: exit %d, want 2", code)
	}
}

// TestRunRealCheck builds patience and scores the Go fixture (testdata/tree, written for this
// test) against testdata/labels.tsv: the scorer and the Go reader agree on every site.
func TestRunRealCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds patience")
	}
	bin := filepath.Join(t.TempDir(), "patience")
	b := exec.Command("go", "build", "-o", bin, "../..")
	if msg, err := b.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, msg)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-labels", "testdata/labels.tsv", "-patience", bin, "-bandit", "", "-v", "testdata/tree"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{
		"go 4 3 0 1.00 (2/2) 1.00 (2/2) 1.00 (3/3) 0 (0) 1.00 (3/3) 0",
		"not found app/main.go:19",
	} {
		if !strings.Contains(squash(out.String()), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
