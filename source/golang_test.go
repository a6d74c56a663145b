package source

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readFixture reads the files matching glob (below testdata/) with lang's reader, as one
// package.
func readFixture(t testing.TB, lang *Language, glob string) []Call {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", glob))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture at %s: %v", glob, err)
	}
	var in []Input
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, Input{Path: f, Data: b})
	}
	calls, err := lang.Read(in)
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

// readDir reads the Go files of one fixture package.
func readDir(t *testing.T, dir string) []Call {
	t.Helper()
	return readFixture(t, &Go, filepath.Join("go", dir, "*.go"))
}

// TestGoCalls: every pattern's calls, each with its effective bounds and their origins, the
// retry layer and the key (summary's one line per call).
func TestGoCalls(t *testing.T) {
	tests := []struct {
		dir  string
		want []string
	}{
		{"defaults", []string{
			// DefaultClient: no Timeout; DefaultTransport dials with 30 s.
			"defaults.go:11:15 GET net/http connect=30000ms/default read=none total=none attempts=- key=false",
			"defaults.go:19:9 POST net/http connect=30000ms/default read=none total=none attempts=- key=false",
			"defaults.go:20:9 POST net/http connect=30000ms/default read=none total=none attempts=- key=false",
			// context.Background() bounds nothing (noctx accepts it; we do not).
			"defaults.go:25:9 PUT net/http connect=30000ms/default read=none total=none attempts=- key=false",
			"defaults.go:29:9 HEAD net/http connect=30000ms/default read=none total=none attempts=- key=false",
		}},
		{"clients", []string{
			"clients.go:29:9 GET net/http connect=30000ms/default read=none total=1500ms/explicit attempts=- key=false",
			// A package variable, through a package constant.
			"clients.go:33:9 GET net/http connect=30000ms/default read=none total=8000ms/client attempts=- key=false",
			// A struct field set by a constructor that sets the client's Timeout after building it.
			"clients.go:37:9 GET net/http connect=30000ms/default read=none total=3000ms/client attempts=- key=false",
			"clients.go:43:9 GET net/http connect=30000ms/default read=none total=none attempts=- key=false",
			"clients.go:48:9 GET net/http connect=30000ms/default read=none total=none attempts=- key=false",
			// Built two ways, neither with a Timeout: no total bound; the connects differ.
			"clients.go:59:9 GET net/http connect=unresolved read=none total=none attempts=- key=false",
		}},
		{"transport", []string{
			// ResponseHeaderTimeout is the read bound (head only), no total.
			"transport.go:23:9 GET net/http connect=2000ms/client read=5000ms/client total=none attempts=- key=false",
			"transport.go:28:9 GET net/http connect=1000ms/client read=none total=10000ms/client attempts=- key=false",
			"transport.go:35:9 GET net/http connect=30000ms/default read=4000ms/explicit total=20000ms/explicit attempts=- key=false",
			// A Transport without DialContext dials with a zero net.Dialer.
			"transport.go:40:9 GET net/http connect=none read=none total=none attempts=- key=false",
		}},
		{"context", []string{
			"context.go:16:15 GET net/http connect=30000ms/default read=none total=2000ms/explicit attempts=- key=false",
			// The caller's context may carry a deadline: not guessed.
			"context.go:25:9 GET net/http connect=30000ms/default read=none total=unresolved attempts=- key=false",
			"context.go:30:9 DELETE net/http connect=30000ms/default read=none total=none attempts=- key=false",
			// req = req.WithContext(ctx), and the tighter of the context and the client.
			"context.go:39:9 GET net/http connect=30000ms/default read=none total=750ms/explicit attempts=- key=false",
		}},
		{"retryable", []string{
			"retryable.go:12:9 GET go-retryablehttp connect=30000ms/default read=none total=none attempts=5 key=false",
			"retryable.go:20:9 POST go-retryablehttp connect=30000ms/default read=none total=10000ms/explicit attempts=3 key=false",
			"retryable.go:28:9 POST go-retryablehttp connect=30000ms/default read=none total=4000ms/explicit attempts=5 key=true",
			"retryable.go:35:9 GET go-retryablehttp connect=30000ms/default read=none total=none attempts=2 key=false",
			"retryable.go:39:9 GET go-retryablehttp connect=30000ms/default read=none total=none attempts=5 key=false",
		}},
		{"unresolved", []string{
			"unresolved.go:12:9 GET net/http connect=30000ms/default read=none total=unresolved attempts=- key=false",
			"unresolved.go:16:9 ? net/http connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			"unresolved.go:21:9 GET net/http connect=unresolved read=unresolved total=none attempts=- key=false",
			// A package interface with Do(*http.Request): a client from the caller.
			"unresolved.go:29:9 ? net/http connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// client = &copy of the parameter: still the caller's client.
			"unresolved.go:36:9 GET net/http connect=unresolved read=unresolved total=unresolved attempts=- key=false",
			// A method whose declared result is a client, built where the reader cannot see.
			"unresolved.go:45:9 ? net/http connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// A function field that returns a client (gh's opts.HttpClient()).
			"unresolved.go:52:9 GET net/http connect=unresolved read=unresolved total=unresolved attempts=- key=false",
		}},
		{"failsafe", []string{
			// NewWithDefaults: 3 attempts around http.DefaultTransport.
			"failsafe.go:23:9 GET failsafe-go connect=30000ms/default read=none total=none attempts=3 key=false",
			"failsafe.go:32:9 POST failsafe-go connect=30000ms/default read=none total=10000ms/explicit attempts=4 key=false",
			// A package-level policy: WithMaxRetries(4) is 5 attempts.
			"failsafe.go:37:9 GET failsafe-go connect=30000ms/default read=none total=none attempts=5 key=false",
			"failsafe.go:48:9 GET failsafe-go connect=30000ms/default read=none total=none attempts=3 key=false",
			// NewRequest(req, client, rp).Do(): the client's Timeout bounds each attempt.
			"failsafe.go:57:9 PUT failsafe-go connect=30000ms/default read=none total=1000ms/explicit attempts=2 key=false",
			// A policy from the caller: attempts not read.
			"failsafe.go:62:9 GET failsafe-go connect=30000ms/default read=none total=none attempts=0 key=false",
			"failsafe.go:67:9 GET net/http connect=30000ms/default read=none total=2000ms/explicit attempts=- key=false",
			// The inner Transport's bounds; WithMaxRetries(-1) has no limit.
			"failsafe.go:74:9 GET failsafe-go connect=2000ms/explicit read=4000ms/explicit total=none attempts=0 key=false",
			"failsafe.go:82:9 GET failsafe-go connect=30000ms/default read=none total=none attempts=0 key=true",
		}},
		{"notcalls", nil},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			var got []string
			for _, c := range readDir(t, tt.dir) {
				got = append(got, summary(c))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGoNotes: a number that is not what its name suggests, and a value not read, say so.
func TestGoNotes(t *testing.T) {
	calls := readDir(t, "transport")
	if !strings.Contains(strings.Join(calls[0].Notes, "\n"), "head") {
		t.Errorf("ResponseHeaderTimeout's read bound carries no note: %q", calls[0].Notes)
	}
	un := readDir(t, "unresolved")
	for _, c := range un {
		if len(c.Notes) == 0 {
			t.Errorf("%s: unresolved with no note saying why", c.Where())
		}
	}
	for _, c := range readDir(t, "retryable") {
		if c.Retry == nil || c.Retry.Layer != "go-retryablehttp" || !cmp.Equal(c.Retry.On, []string{"connect", "timeout", "reset", "429", "5xx"}) {
			t.Errorf("%s: retry = %+v, want go-retryablehttp's default classes", c.Where(), c.Retry)
		}
	}
}

// TestGoParseError: a file that does not parse is an error at its line and column.
func TestGoParseError(t *testing.T) {
	_, err := Go.Read([]Input{{Path: "bad.go", Data: []byte("package x\n\nfunc f() {\n\treturn 1 +\n}\n")}})
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if se.File != "bad.go" || se.Line != 5 || se.Col != 1 {
		t.Errorf("error at %s:%d:%d, want bad.go:5:1 (%s)", se.File, se.Line, se.Col, se.Msg)
	}
}

// TestIgnores: a trailing comment covers its line, one alone on its line the next; another
// language's marker or no rule ID covers nothing.
func TestIgnores(t *testing.T) {
	src := "a() // patience:ignore PT001\n// patience:ignore PT005, PT001\nb()\nc() # patience:ignore PT001\nd() // patience:ignore\n"
	got := Ignores([]byte(src), []string{"//"})
	want := map[int]map[string]bool{1: {"PT001": true}, 3: {"PT005": true, "PT001": true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ignores (-want +got):\n%s", diff)
	}
}

func TestForPath(t *testing.T) {
	for path, want := range map[string]*Language{"a/b.go": &Go, "X.GO": &Go, "a.py": &Python, "B.PY": &Python, "a.pyc": nil, "go": nil} {
		if got := ForPath(path); got != want {
			t.Errorf("ForPath(%q) = %v, want %v", path, got, want)
		}
	}
	for rel, out := range map[string]bool{"pkg/x_test.go": true, "pkg/testdata/bad.go": true, "_old/x.go": true, "pkg/_x.go": true,
		"pkg/x.go": false, "x.go": false, "testdata.go": false, "pkg/testdatax/x.go": false} {
		if got := Go.Test(rel) != ""; got != out {
			t.Errorf("Go.Test(%q) leaves it out = %v, want %v", rel, got, out)
		}
	}
}

// FuzzGoSource: the Go reader never panics; it returns calls or an *Error.
func FuzzGoSource(f *testing.F) {
	for _, dir := range []string{"defaults", "clients", "transport", "context", "retryable", "unresolved", "failsafe"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "go", dir, "*.go"))
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("package x\nfunc f() { var a = a; a.Do(a) }"))
	f.Add([]byte("package x\nimport h \"net/http\"\nfunc f() { c := c; r = r.WithContext(r); c.Do(r) }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, &Go, []Input{{Path: "f.go", Data: data}})
	})
}

// fuzzRead is every reader's fuzz check: any input either reads or fails with an *Error
// (never a panic, never another error), every call has a line and column, and the ignore
// comments of the same text can be read.
func fuzzRead(t *testing.T, lang *Language, in []Input) {
	t.Helper()
	calls, err := lang.Read(in)
	var se *Error
	if err != nil && !errors.As(err, &se) {
		t.Fatalf("error %v is not an *Error", err)
	}
	for _, c := range calls {
		if c.Line < 1 || c.Col < 1 {
			t.Fatalf("call at %d:%d", c.Line, c.Col)
		}
	}
	Ignores(in[0].Data, lang.Comments)
}

// BenchmarkGoRead reads every fixture package, reporting source lines read per second (issue
// 28 asks ≥ 20,000 on two cores; a benchmark, not a timed test).
func BenchmarkGoRead(b *testing.B) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "go", "*"))
	var pkgs [][]Input
	lines := 0
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.go"))
		var in []Input
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			lines += strings.Count(string(data), "\n")
			in = append(in, Input{Path: f, Data: data})
		}
		pkgs = append(pkgs, in)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, in := range pkgs {
			if _, err := Go.Read(in); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
}
