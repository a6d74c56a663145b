package check

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/patience-dev/patience/scenario"
)

// goClient is a package whose one file calls through a client with no timeout, one call
// with a trailing ignore comment and one with the comment on the line above.
const goClient = `package client

import "net/http"

var c = &http.Client{}

func List() {
	_, _ = c.Get("https://api.example.test/items")
	_, _ = http.Get("https://api.example.test/other") // patience:ignore PT001
	// patience:ignore PT001
	_, _ = http.Head("https://api.example.test/health")
}
`

// goRetry retries a POST with go-retryablehttp's defaults and a per-attempt timeout.
const goRetry = `package pay

import (
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

func Charge(body []byte) {
	rc := retryablehttp.NewClient()
	rc.HTTPClient.Timeout = 5 * time.Second
	req, _ := retryablehttp.NewRequest("POST", "https://pay.example.test/charges", body)
	_, _ = rc.Do(req)
}
`

// runSources loads paths and runs check on them as the command does.
func runSources(t *testing.T, paths ...string) (*Inputs, *Result) {
	t.Helper()
	in, err := LoadPaths(paths)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), in.Files, Options{Configs: in.Configs, Sources: in.Sources, Paths: paths, Read: len(in.Read)})
	if err != nil {
		t.Fatal(err)
	}
	return in, res
}

// A walk reads .go files, leaves _test.go files out with the reason (and vendor/ and hidden
// directories out), judges each call at its file:line:col and honours both ignore forms.
func TestSourceWalk(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"client/client.go":      goClient,
		"client/client_test.go": "package client\n\nimport \"net/http\"\n\nfunc f() { http.Get(\"http://127.0.0.1\") }\n",
		"client/none.go":        "package client\n\nfunc Add(a, b int) int { return a + b }\n",
		"vendor/x/x.go":         "package x\n\nimport \"net/http\"\n\nfunc f() { http.Get(\"http://x\") }\n",
		".git/y.go":             "package y\n",
		"pay/pay.go":            goRetry,
	})
	in, res := runSources(t, dir)
	client := filepath.Join(dir, "client", "client.go")
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Rule+" "+strings.TrimPrefix(f.File, dir+"/")+":"+itoa(f.Line)+":"+itoa(f.Col))
	}
	// go-retryablehttp's DefaultBackoff has no jitter: PT006 at the call.
	want := []string{"PT001 client/client.go:8:9", "PT005 pay/pay.go:13:9", "PT006 pay/pay.go:13:9"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("findings = %q, want %q", got, want)
	}
	if res.Summary.Suppressed != 2 || len(res.Suppressed) != 2 || res.Suppressed[0].File != client {
		t.Errorf("suppressed = %+v, want the two ignored calls of %s", res.Suppressed, client)
	}
	if len(res.Calls) != 4 {
		t.Errorf("%d calls, want 4 (vendor/ and _test.go left out): %+v", len(res.Calls), res.Calls)
	}
	// Three source files read, each a subject: the one with no call passed, not skipped.
	if res.Summary.Checked != 3 || res.NothingChecked {
		t.Errorf("checked = %d, nothing checked = %v; want the 3 files read", res.Summary.Checked, res.NothingChecked)
	}
	var skipped []string
	for _, s := range in.Configs.Skipped {
		skipped = append(skipped, strings.TrimPrefix(s.Path, dir+"/")+": "+s.Reason)
	}
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], "client/client_test.go: a Go test file") {
		t.Errorf("skipped = %q, want client_test.go with its reason", skipped)
	}
}

// A test file named on the command line is read.
func TestSourceNamedTestFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"a_test.go": "package a\n\nimport \"net/http\"\n\nfunc f() { http.Get(\"http://x\") }\n"})
	_, res := runSources(t, filepath.Join(dir, "a_test.go"))
	if len(res.Calls) != 1 || len(res.Findings) != 1 || res.Findings[0].Rule != "PT001" {
		t.Errorf("calls = %+v findings = %+v, want the one call and its PT001", res.Calls, res.Findings)
	}
}

// A Go file that does not parse is an input error at its line and column, not a file skipped.
func TestSourceParseError(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"ok.go": goClient, "bad/bad.go": "package bad\n\nfunc f() {\n\tx := \n}\n"})
	_, err := LoadPaths([]string{dir})
	var se *scenario.Error
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *scenario.Error", err)
	}
	if se.File != filepath.Join(dir, "bad", "bad.go") || se.Line != 5 || se.Col != 1 || !strings.Contains(se.Msg, "not valid Go") {
		t.Errorf("error = %s:%d:%d %s, want bad.go:5:1", se.File, se.Line, se.Col, se.Msg)
	}
}

// A check file's levels and disabled rules (PT006 here) apply to the calls, as to the configs
// no via: took; a key on the request silences PT005.
func TestSourceRulesFollowCheckFile(t *testing.T) {
	dir := t.TempDir()
	keyed := strings.Replace(goRetry, "_, _ = rc.Do(req)", "req.Header.Set(\"Idempotency-Key\", \"k\")\n\t_, _ = rc.Do(req)", 1)
	write(t, dir, map[string]string{
		"patience.yaml":    "dependencies:\n  - name: x\n    policy: {timeout: 1s}\nrules:\n  levels: {PT001: warning}\n  disable: [PT006]\n",
		"client/client.go": goClient,
		"pay/pay.go":       keyed,
	})
	_, res := runSources(t, dir)
	if len(res.Findings) != 1 || res.Findings[0].Rule != "PT001" || res.Findings[0].Level != SeverityWarning {
		t.Errorf("findings = %+v, want one PT001 at warning (the key silences PT005)", res.Findings)
	}
	if !res.Passed {
		t.Error("a warning failed the default gate")
	}
}

// A package is read whole though a walk meets a subdirectory between its files: the client
// built in a.go bounds the call in z.go.
func TestSourcePackageAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"pkg/a.go":   "package pkg\n\nimport (\n\t\"net/http\"\n\t\"time\"\n)\n\nvar api = &http.Client{Timeout: 2 * time.Second}\n",
		"pkg/m/x.go": "package m\n\nimport \"net/http\"\n\nfunc F() { _, _ = http.Get(\"https://x.example.test\") }\n",
		"pkg/z.go":   "package pkg\n\nfunc Call() { _, _ = api.Get(\"https://api.example.test\") }\n",
	})
	_, res := runSources(t, dir)
	var got []string
	for _, c := range res.Calls {
		total := "none"
		if c.Timeouts.TotalMS != nil {
			total = strconv.FormatInt(*c.Timeouts.TotalMS, 10)
		}
		got = append(got, strings.TrimPrefix(c.File, dir+"/")+" "+total+" "+string(c.Origin.Total))
	}
	want := []string{"pkg/m/x.go none none", "pkg/z.go 2000 client"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("calls = %q, want %q", got, want)
	}
}

// A walk leaves a minified bundle out with the reason, by its content (source.Language.Built),
// even one that does not lex (cut short); the package's other files are read. Named on the
// command line, it is read.
func TestSourceWalkMinified(t *testing.T) {
	dir := t.TempDir()
	bundle := "/*! lib v1 */\n!function(){" + strings.Repeat("var a=1,b=a/2;", 100) + "fetch(\"https://cdn.example.test/x\")}();\n"
	write(t, dir, map[string]string{
		"package.json":     "{}",
		"src/app.js":       "export const get = () => fetch('https://api.example.test/items');\n",
		"public/js/lib.js": bundle,
		"public/js/cut.js": bundle[:1300],
	})
	in, res := runSources(t, dir)
	if len(res.Calls) != 1 || !strings.HasSuffix(res.Calls[0].File, "app.js") {
		t.Errorf("calls = %+v, want app.js's only", res.Calls)
	}
	var skipped []string
	for _, s := range in.Configs.Skipped {
		if strings.HasSuffix(s.Path, ".js") {
			skipped = append(skipped, strings.TrimPrefix(s.Path, dir+"/")+": "+s.Reason)
		}
	}
	if len(skipped) != 2 || !strings.HasPrefix(skipped[0], "public/js/cut.js: a minified JavaScript file") || !strings.HasPrefix(skipped[1], "public/js/lib.js: a minified") {
		t.Errorf("skipped = %q, want both bundles with the reason", skipped)
	}
	_, res = runSources(t, filepath.Join(dir, "public", "js", "lib.js"))
	if len(res.Calls) != 1 {
		t.Errorf("named: calls = %+v, want the bundle's one", res.Calls)
	}
}
