package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/check"
)

// JUnit XML as read by GitHub (dorny/test-reporter, mikepenz/action-junit-report), GitLab
// (artifacts:reports:junit) and Jenkins: <testsuites><testsuite><testcase><failure>. Only the
// attributes those readers share are written.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
	elapsed  time.Duration
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Error     *junitFailure `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitTime renders seconds with millisecond precision, as JUnit readers expect.
func junitTime(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

// CheckJUnit renders one test case per dependency × rule, named after what the rule asserts
// ("PT001 every attempt has a timeout"), so the name reads right whether the case passed or
// failed: a failure for each rule that found something (type = its level), skipped for a
// rule that had nothing to evaluate (no caller budget, no profile), passing otherwise. One
// test suite per check file, with tests, failures, errors, skipped and time totals. An input
// error (exit 2) is one test case with an <error> in the suite of its file.
func CheckJUnit(w io.Writer, r *check.Result, _ Options) error {
	type key struct{ dep, rule string }
	found := map[key][]check.Finding{}
	for _, f := range r.Findings {
		k := key{f.Dependency, f.Rule}
		found[k] = append(found[k], f)
	}
	asserts := map[string]string{}
	for _, rule := range r.Rules {
		asserts[rule.ID] = rule.Asserts
	}
	out := junitSuites{Name: "patience check"}
	index := map[string]int{}
	suite := func(file string) *junitSuite {
		i, ok := index[file]
		if !ok {
			i = len(out.Suites)
			index[file] = i
			out.Suites = append(out.Suites, junitSuite{Name: file})
		}
		return &out.Suites[i]
	}
	if e := r.Error; e != nil {
		s := suite(e.File)
		msg := e.Message
		if e.Field != "" {
			msg = e.Field + ": " + msg
		}
		name, typ := "the check file is valid", "input"
		if r.NothingChecked {
			name, typ = "something was checked", "nothing-checked"
		}
		s.Cases = append(s.Cases, junitCase{Classname: e.File, Name: name, File: e.File, Line: e.Line, Time: junitTime(0),
			Error: &junitFailure{Message: msg, Type: typ, Text: e.Location() + ": " + msg}})
		s.Tests++
		s.Errors++
	}
	if r.NothingChecked {
		// Each file the run read and left, a skipped test case with the reason; --allow-empty
		// one skipped case for the run, so a reader that fails on no test at all shows why.
		if r.Error == nil {
			s := suite("patience check")
			s.Cases = append(s.Cases, junitCase{Classname: "patience check", Name: "something was checked", Time: junitTime(0),
				Skipped: &junitSkipped{Message: r.NothingCheckedReason}})
			s.Tests++
			s.Skipped++
		}
		for _, sk := range r.Skipped {
			s := suite(sk.Path)
			s.Cases = append(s.Cases, junitCase{Classname: sk.Path, Name: "a file check reads", File: sk.Path, Time: junitTime(0),
				Skipped: &junitSkipped{Message: sk.Reason}})
			s.Tests++
			s.Skipped++
		}
	}
	for _, c := range r.Checked {
		s := suite(c.File)
		s.elapsed += c.Elapsed
		per := time.Duration(0)
		if len(c.Rules) > 0 {
			per = c.Elapsed / time.Duration(len(c.Rules))
		}
		for _, id := range c.Rules {
			name := id
			if a := asserts[id]; a != "" {
				name += " " + a
			}
			tc := junitCase{Classname: c.Dependency, Name: name, File: c.File, Line: c.Line, Time: junitTime(per)}
			if fs := found[key{c.Dependency, id}]; len(fs) > 0 {
				var text, msgs []string
				level := check.SeverityWarning
				for _, f := range fs {
					if f.Level == check.SeverityError {
						level = check.SeverityError
					}
					msgs = append(msgs, f.Message)
					text = append(text, fmt.Sprintf("%s: %s: %s\nfix: %s", location(f), f.Level, f.Message, f.Fix))
				}
				tc.File, tc.Line = fs[0].File, fs[0].Line
				tc.Failure = &junitFailure{Message: strings.Join(msgs, "; "), Type: string(level), Text: strings.Join(text, "\n")}
				s.Failures++
			}
			if reason, ok := c.Skipped[id]; ok && tc.Failure == nil {
				tc.Skipped = &junitSkipped{Message: reason}
				s.Skipped++
			}
			s.Tests++
			s.Cases = append(s.Cases, tc)
		}
	}
	var total time.Duration
	for i := range out.Suites {
		s := &out.Suites[i]
		s.Time = junitTime(s.elapsed)
		total += s.elapsed
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
	}
	out.Time = junitTime(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
