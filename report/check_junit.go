package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

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
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
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

// CheckJUnit renders one test case per dependency × rule: a failure for each rule that found
// something (type = its level), skipped for a rule that had nothing to evaluate (no caller
// budget, no profile), passing otherwise. One test suite per check file.
func CheckJUnit(w io.Writer, r *check.Result, _ Options) error {
	type key struct{ dep, rule string }
	found := map[key][]check.Finding{}
	for _, f := range r.Findings {
		k := key{f.Dependency, f.Rule}
		found[k] = append(found[k], f)
	}
	titles := map[string]string{}
	for _, rule := range r.Rules {
		titles[rule.ID] = rule.Title
	}
	out := junitSuites{Name: "patience check"}
	index := map[string]int{}
	for _, c := range r.Checked {
		i, ok := index[c.File]
		if !ok {
			i = len(out.Suites)
			index[c.File] = i
			out.Suites = append(out.Suites, junitSuite{Name: c.File})
		}
		s := &out.Suites[i]
		for _, id := range c.Rules {
			tc := junitCase{Classname: c.Dependency, Name: id + " " + titles[id], File: c.File, Line: c.Line}
			if fs := found[key{c.Dependency, id}]; len(fs) > 0 {
				var text, msgs []string
				level := check.LevelWarning
				for _, f := range fs {
					if f.Level == check.LevelError {
						level = check.LevelError
					}
					msgs = append(msgs, f.Message)
					text = append(text, fmt.Sprintf("%s: %s: %s\nfix: %s", location(f), f.Level, f.Message, f.Fix))
				}
				tc.File, tc.Line = fs[0].File, fs[0].Line
				tc.Failure = &junitFailure{Message: strings.Join(msgs, "; "), Type: string(level), Text: strings.Join(text, "\n")}
				s.Failures++
				out.Failures++
			}
			if reason, ok := c.Skipped[id]; ok && tc.Failure == nil {
				tc.Skipped = &junitSkipped{Message: reason}
				s.Skipped++
			}
			s.Tests++
			out.Tests++
			s.Cases = append(s.Cases, tc)
		}
	}
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
