package report

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/source"
)

// callsResult checks two of package source's Go fixtures (transports and go-retryablehttp):
// nine calls, PT001 and PT005 among their findings.
func callsResult(t *testing.T) *check.Result {
	t.Helper()
	dir := filepath.Join("..", "source", "testdata", "go")
	in, err := check.LoadPaths([]string{filepath.Join(dir, "transport"), filepath.Join(dir, "retryable")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := check.Run(context.Background(), in.Files, check.Options{Version: "1.2.3", Configs: in.Configs, Sources: in.Sources, Read: len(in.Read),
		LoadProfile: func(string) (*profile.Profile, error) { return nil, errors.New("none") }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Checked {
		res.Checked[i].Elapsed = 0
	}
	return res
}

// TestCheckCallsGoldens: the call inventory in text at every golden width, in Markdown, and
// calls[] in JSON.
func TestCheckCallsGoldens(t *testing.T) {
	res := callsResult(t)
	if len(res.Calls) != 9 {
		t.Fatalf("%d calls, want 9", len(res.Calls))
	}
	for _, w := range goldenWidths {
		golden.Assert(t, fmt.Sprintf("check_text_calls_%d", w), renderCheckWidth(t, "text", res, false, w))
	}
	golden.Assert(t, "check_markdown_calls", renderCheck(t, "markdown", res, false))
	golden.Assert(t, "check_json_calls", renderCheck(t, "json", res, false))
	golden.Assert(t, "check_html_calls", renderCheck(t, "html", res, false))
}

// TestCheckCallsFitWidth: at every width from 60 to 200 no line is wider than the terminal,
// and every call's file:line:col (its path may break before a slash) and total cell is in the
// report whole.
func TestCheckCallsFitWidth(t *testing.T) {
	res := callsResult(t)
	for w := 60; w <= 200; w++ {
		out := string(renderCheckWidth(t, "text", res, false, w))
		for i, line := range strings.Split(out, "\n") {
			if lw := lipgloss.Width(line); lw > w {
				t.Errorf("at %d: line %d is %d columns wide:\n%s", w, i+1, lw, line)
			}
		}
		for _, c := range res.Calls {
			row := callRow(c)
			for _, cell := range []string{filepath.Base(row[0]), row[2]} {
				if !strings.Contains(out, cell) {
					t.Errorf("at %d: %q is not in the report whole", w, cell)
				}
			}
		}
	}
}

// TestCallRow: a bound's cell carries its origin; a read bound from ResponseHeaderTimeout
// says it ends at the head; an unknown method and unresolved attempts say so; the attempts
// are the product of the layers, listed beside them.
func TestCallRow(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	tests := []struct {
		call check.Call
		want string
	}{
		{check.Call{File: "a.go", Line: 3, Col: 9, Library: "net/http", Method: "GET",
			Timeouts: source.Timeouts{ConnectMS: ms(30000)},
			Origin:   source.Origins{Connect: source.OriginDefault, Read: source.OriginNone, Total: source.OriginNone}},
			"a.go:3:9|net/http GET|none|30 s default|none|1|-"},
		{check.Call{File: "b.go", Line: 1, Col: 2, Library: "go-retryablehttp",
			Timeouts: source.Timeouts{ReadMS: ms(5000), TotalMS: ms(1500)},
			Origin:   source.Origins{Connect: source.OriginUnresolved, Read: source.OriginClient, Total: source.OriginExplicit},
			Retry:    &source.Retry{Layer: "go-retryablehttp"},
			Notes:    []string{"read is Transport.ResponseHeaderTimeout: it bounds the wait for the response head, not the body"}},
			"b.go:1:2|go-retryablehttp request|1.5 s explicit|unresolved|5 s client (head)|?|go-retryablehttp ?"},
		{check.Call{File: "c.go", Line: 7, Col: 1, Library: "go-retryablehttp", Method: "POST",
			Origin: source.Origins{Connect: source.OriginUnresolved, Read: source.OriginUnresolved, Total: source.OriginUnresolved},
			Retry:  &source.Retry{Layer: "go-retryablehttp", MaxAttempts: 3}},
			"c.go:7:1|go-retryablehttp POST|unresolved|unresolved|unresolved|3|go-retryablehttp 3"},
		// The seeds' job: the product of the layers, each listed outermost first.
		{check.Call{File: "Job.php", Line: 20, Col: 9, Library: "laravel-http", Method: "GET",
			Origin: source.Origins{Connect: source.OriginDefault, Read: source.OriginNone, Total: source.OriginDefault}, Timeouts: source.Timeouts{ConnectMS: ms(10000), TotalMS: ms(30000)},
			Layers: []source.Retry{{Layer: "laravel-job", MaxAttempts: 6}, {Layer: "laravel-http", MaxAttempts: 3}}},
			"Job.php:20:9|laravel-http GET|30 s default|10 s default|none|18|laravel-job 6 × laravel-http 3"},
		// tenacity's bare @retry: no limit; a count not static: "?".
		{check.Call{File: "a.py", Line: 9, Col: 5, Library: "requests", Method: "GET",
			Origin: source.Origins{Connect: source.OriginNone, Read: source.OriginNone, Total: source.OriginNone},
			Layers: []source.Retry{{Layer: "tenacity", Unresolved: "forever: no stop="}, {Layer: "urllib3", Unresolved: "total=n: a parameter"}}},
			"a.py:9:5|requests GET|none|none|none|unlimited|tenacity unlimited × urllib3 ?"},
	}
	for _, tt := range tests {
		if got := strings.Join(callRow(tt.call), "|"); got != tt.want {
			t.Errorf("callRow = %q, want %q", got, tt.want)
		}
	}
}

// TestSkippedGrouped: a large tree's test files skipped for one reason are one line in text,
// with their count and an example; a reason shared by few files lists each; JSON lists all.
func TestSkippedGrouped(t *testing.T) {
	res := callsResult(t)
	const reason = "a Go test file: the servers and clients of tests are no outbound calls"
	for i := range 8 {
		res.Skipped = append(res.Skipped, check.SkippedFile{Path: fmt.Sprintf("pkg%d/x_test.go", i), Reason: reason})
	}
	res.Skipped = append(res.Skipped, check.SkippedFile{Path: "README.md", Reason: "not YAML or JSON"})
	out := string(renderCheckWidth(t, "text", res, false, 200))
	if !strings.Contains(out, "skipped 8 files: "+reason+" (e.g. pkg0/x_test.go; -o json lists every one)") {
		t.Errorf("text report does not group the 8 test files:\n%s", out)
	}
	if strings.Contains(out, "pkg1/x_test.go") || !strings.Contains(out, "skipped README.md: not YAML or JSON") {
		t.Errorf("text report lists a grouped file, or not the one README.md:\n%s", out)
	}
	js := string(renderCheck(t, "json", res, false))
	for i := range 8 {
		if !strings.Contains(js, fmt.Sprintf("pkg%d/x_test.go", i)) {
			t.Errorf("JSON leaves pkg%d/x_test.go out", i)
		}
	}
}
