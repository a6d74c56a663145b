// Command sourcescore scores `patience check`'s source reading (issue 28 item 7) on a directory
// of real code against a labels file a person wrote by reading that code: per language, the
// sites labelled and found, PT001's recall and precision against the labels' "unbounded" truth,
// the share of resolved sites whose effective connect/read/total equal the label, the
// unresolved count, and — for Python — bandit B113 scored on the same labels beside it.
//
//	go run ./bench/sourcescore -labels FILE [-patience BIN] [-bandit PATH|""] [-v] DIR
//
// DIR holds one directory per repository; the labels' paths are relative to DIR and start with
// that directory, and check runs once per directory the labels name (so one repository's
// parse error does not hide the others). A file the labels name is labelled whole: a call check
// reports there that no label names is an extra call, and PT001 on it a false positive. The
// labels format is in docs/contributing.md "Scoring the source check". It is a measurement,
// not a gate: the exit code is 1 only when a tool failed (check could not run, bandit's output
// is not its JSON), 2 for a bad labels file or flag.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/patience-dev/patience/source"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// options are the command's flags and argument.
type options struct {
	labels, patience, bandit, dir string
	verbose                       bool
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sourcescore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.labels, "labels", "", "the labels file (TSV, docs/contributing.md)")
	fs.StringVar(&o.patience, "patience", "", "the patience binary (default: built from this module into a temporary directory)")
	fs.StringVar(&o.bandit, "bandit", "bandit", `bandit to score beside check on Python labels ("" = do not run it)`)
	fs.BoolVar(&o.verbose, "v", false, "list every miss: sites not found, wrong PT001, wrong values, extra calls")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.labels == "" || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: sourcescore -labels FILE [-patience BIN] [-bandit PATH] [-v] DIR")
		return 2
	}
	o.dir = fs.Arg(0)
	labels, err := readLabels(o.labels)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if o.dir, err = filepath.Abs(o.dir); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	if o.patience == "" {
		bin, cleanup, err := build()
		if err != nil {
			fmt.Fprintln(stderr, "building patience:", err)
			return 1
		}
		defer cleanup()
		o.patience = bin
	}
	return score(o, labels, stdout, stderr)
}

func readLabels(name string) ([]Label, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLabels(name, f)
}

// build compiles patience from the module this command is in.
func build() (string, func(), error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", nil, err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", nil, errors.New("not inside the patience module: pass -patience BIN")
	}
	tmp, err := os.MkdirTemp("", "sourcescore")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(tmp, "patience")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Dir(gomod)
	if msg, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return "", nil, fmt.Errorf("%v: %s", err, msg)
	}
	return bin, func() { os.RemoveAll(tmp) }, nil
}

// units are the directories under dir check runs on: the first element of each label's path
// in the order the labels name them, or dir itself when a label names a file at its top.
func units(labels []Label) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range labels {
		top, _, nested := strings.Cut(l.File, "/")
		if !nested {
			return []string{"."}
		}
		if !seen[top] {
			seen[top] = true
			out = append(out, top)
		}
	}
	return out
}

func score(o options, labels []Label, stdout, stderr io.Writer) int {
	failed := false
	var calls []Found
	peer := map[string][]Flag{}
	banditPath, banditErr := lookBandit(o.bandit)
	for _, u := range units(labels) {
		path := filepath.Join(o.dir, u)
		got, err := checkCalls(o.patience, o.dir, path)
		if err != nil {
			// One file check cannot read (a Python 2 script in a tree of Python 3) stops the
			// whole walk; the labelled files, named one by one, are still scored, and the run
			// still fails: the tool failed on the tree.
			fmt.Fprintf(stderr, "check %s: %v\n", path, err)
			failed = true
			files := labelledFiles(labels, o.dir, u)
			if got, err = checkCalls(o.patience, o.dir, files...); err != nil {
				fmt.Fprintf(stderr, "check on the %d labelled files of %s: %v\n", len(files), u, err)
				continue
			}
			fmt.Fprintf(stderr, "scored %s on its %d labelled files, named one by one\n", u, len(files))
		}
		calls = append(calls, got...)
		if banditPath == "" || !hasLanguage(labels, u, "python") {
			continue
		}
		flags, err := banditFlags(banditPath, o.dir, path)
		if err != nil {
			fmt.Fprintf(stderr, "bandit %s: %v\n", path, err)
			failed = true
			continue
		}
		peer["python"] = append(peer["python"], flags...)
	}
	if banditPath == "" {
		peer = nil
	}
	scores := Compute(labels, calls, peer)
	render(stdout, scores, banditErr, o.verbose)
	if failed {
		return 1
	}
	return 0
}

func hasLanguage(labels []Label, unit, lang string) bool {
	for _, l := range labels {
		if l.Language == lang && (unit == "." || strings.HasPrefix(l.File, unit+"/")) {
			return true
		}
	}
	return false
}

// lookBandit is bandit's path, or "" and why it will not run.
func lookBandit(name string) (string, string) {
	if name == "" {
		return "", "not run (-bandit \"\")"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Sprintf("not run: %s not found (Debian: apt-get install bandit)", name)
	}
	return p, ""
}

// report is the part of `patience check -o json` scored here.
type report struct {
	Calls    []source.Call `json:"calls"`
	Findings []struct {
		Rule string `json:"rule"`
		File string `json:"file"`
		Line int    `json:"line"`
		Col  int    `json:"col"`
	} `json:"findings"`
	Error *struct {
		File    string `json:"file"`
		Message string `json:"message"`
	} `json:"error"`
}

// labelledFiles are the paths of the files the labels name under unit, once each.
func labelledFiles(labels []Label, dir, unit string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range labels {
		if (unit == "." || strings.HasPrefix(l.File, unit+"/")) && !seen[l.File] {
			seen[l.File] = true
			out = append(out, filepath.Join(dir, filepath.FromSlash(l.File)))
		}
	}
	return out
}

// checkCalls runs check on paths and returns its calls, files relative to dir. Exit 0 and 1
// (findings) are a run; anything else, or a run that could not check, is a tool failure.
func checkCalls(bin, dir string, paths ...string) ([]Found, error) {
	cmd := exec.Command(bin, append([]string{"check", "-o", "json", "--allow-empty"}, paths...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		var r report
		if json.Unmarshal(out.Bytes(), &r) == nil && r.Error != nil {
			return nil, fmt.Errorf("%v: %s %s", err, r.Error.File, r.Error.Message)
		}
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(errOut.String()))
	}
	var r report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("its JSON: %v", err)
	}
	pt001 := map[string]bool{}
	for _, f := range r.Findings {
		if f.Rule == "PT001" {
			pt001[fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col)] = true
		}
	}
	found := make([]Found, 0, len(r.Calls))
	for _, c := range r.Calls {
		f := Found{Call: c, PT001: pt001[c.Where()]}
		f.Call.File = rel(dir, c.File)
		found = append(found, f)
	}
	return found, nil
}

// rel is file relative to dir with forward slashes (as the labels write it).
func rel(dir, file string) string {
	if r, err := filepath.Rel(dir, file); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(file)
}

// banditFlags runs `bandit -t B113 -f json -r path` and returns its B113 results. bandit exits 1
// when it found something, so its exit code is not read: its JSON is.
func banditFlags(bin, dir, path string) ([]Flag, error) {
	cmd := exec.Command(bin, "-t", "B113", "-f", "json", "-q", "-r", path)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	var r struct {
		Results []struct {
			Filename   string `json:"filename"`
			LineNumber int    `json:"line_number"`
			TestID     string `json:"test_id"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("its JSON: %v (exit: %v; %s)", err, runErr, strings.TrimSpace(errOut.String()))
	}
	var flags []Flag
	for _, x := range r.Results {
		if x.TestID == "B113" {
			flags = append(flags, Flag{File: rel(dir, x.Filename), Line: x.LineNumber})
		}
	}
	return flags, nil
}

// render prints one row per language (and bandit's row under Python's), then the details.
func render(w io.Writer, scores []Score, banditNote string, verbose bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "language\tlabelled\tfound\textra\tPT001 recall\tPT001 precision\tvalues right (of resolved)\tunresolved (label knows)\tattempts right\t? truth")
	for _, s := range scores {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%d (%d)\t%s\t%d\n", s.Language, s.Labelled, s.Found, s.Extra,
			frac(s.PT001.TP, s.PT001.TP+s.PT001.FN), frac(s.PT001.TP, s.PT001.TP+s.PT001.FP),
			frac(s.Right, s.Resolved), s.Unresolved, s.UnresolvedKnown, frac(s.AttemptsRight, s.AttemptsKnown), s.TruthUnknown)
		if s.Language != "python" {
			continue
		}
		if s.Peer == nil {
			fmt.Fprintf(tw, "  bandit B113\t\t\t\tnot run\tnot run\t\t\t\t\n")
			continue
		}
		p := *s.Peer
		fmt.Fprintf(tw, "  bandit B113\t\t\t\t%s\t%s\t\t\t\t\n", frac(p.TP, p.TP+p.FN), frac(p.TP, p.TP+p.FP))
	}
	tw.Flush()
	if banditNote != "" {
		fmt.Fprintf(w, "bandit B113: %s\n", banditNote)
	}
	if !verbose {
		return
	}
	for _, s := range scores {
		if len(s.Details) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", s.Language)
		for _, d := range s.Details {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
}

// frac is "0.95 (19/20)", or "n/a (0/0)" when there is nothing to divide.
func frac(n, d int) string {
	r := ratio(n, d)
	if r == nil {
		return "n/a (0/0)"
	}
	return fmt.Sprintf("%.2f (%d/%d)", *r, n, d)
}
