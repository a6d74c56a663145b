package source

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readJSDir reads the files of one JavaScript fixture project.
func readJSDir(t testing.TB, dir string) []Call {
	t.Helper()
	return readFixture(t, &JavaScript, filepath.Join("js", dir, "*"))
}

// TestJSCalls: every pattern's calls with their effective bounds and origins, attempts and
// key (summary's one line per call).
func TestJSCalls(t *testing.T) {
	tests := []struct {
		dir  string
		want []string
	}{
		{"fetch", []string{
			// Node's fetch: undici's connect and head/body defaults, no total.
			"fetch.js:5:10 GET fetch connect=10000ms/default read=300000ms/default total=none attempts=- key=false",
			"fetch.js:9:10 GET fetch connect=10000ms/default read=300000ms/default total=5000ms/explicit attempts=- key=false",
			// An AbortController aborted by a setTimeout in the same function.
			"fetch.js:16:18 POST fetch connect=10000ms/default read=300000ms/default total=2500ms/explicit attempts=- key=true",
			// A signal from the caller: not guessed.
			"fetch.js:28:10 DELETE fetch connect=10000ms/default read=300000ms/default total=unresolved attempts=- key=false",
			// AbortSignal.any: the tightest timeout among its signals.
			"fetch.js:32:10 GET fetch connect=10000ms/default read=300000ms/default total=3000ms/explicit attempts=- key=false",
			"fetch.js:38:10 PUT fetch connect=10000ms/default read=300000ms/default total=none attempts=- key=false",
			// Options spread from elsewhere may set the signal or a dispatcher.
			"fetch.js:42:10 PATCH fetch connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// Options assigned again after their declaration: not guessed.
			"fetch.js:48:10 ? fetch connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// Options changed key by key after they are built: not guessed either.
			"fetch.js:54:10 ? fetch connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// A wrapper: its signal after the caller's spread options wins; one before them may
			// be overridden.
			"fetch.js:59:9 ? fetch connect=unresolved read=unresolved total=5000ms/explicit attempts=- key=?",
			"fetch.js:60:10 ? fetch connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// node-fetch: Node's http module bounds nothing; v2's timeout is the total.
			"nodefetch.mjs:3:25 GET node-fetch connect=none read=none total=4000ms/explicit attempts=- key=false",
			"nodefetch.mjs:4:27 POST node-fetch connect=none read=none total=none attempts=- key=false",
			// A wrapper function: its call, and each call of it with the bounds the wrapper sets
			// (client: set elsewhere), unresolved where the caller's options may change them.
			"wrap.mjs:3:10 ? fetch connect=unresolved read=unresolved total=4000ms/explicit attempts=- key=?",
			"wrap.mjs:7:9 ? fetch connect=unresolved read=unresolved total=4000ms/client attempts=- key=?",
			"wrap.mjs:8:10 ? fetch connect=unresolved read=unresolved total=4000ms/client attempts=- key=?",
			// health() calls a fixed URL: its own call is listed, its callers are not.
			"wrap.mjs:13:10 GET fetch connect=10000ms/default read=300000ms/default total=1000ms/explicit attempts=- key=false",
			// Wrappers exported (default, async) from another file.
			"wrapdefault.ts:2:10 ? fetch connect=unresolved read=unresolved total=1500ms/explicit attempts=- key=?",
			"wrapdefault.ts:7:10 ? fetch connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			"wrapuse.ts:4:33 ? fetch connect=unresolved read=unresolved total=1500ms/client attempts=- key=?",
			"wrapuse.ts:5:31 ? fetch connect=unresolved read=unresolved total=4000ms/client attempts=- key=?",
			// A wrapper with a TypeScript return type whose timeout is its caller's: unresolved
			// (a caller's argument is not carried into the wrapper).
			"wrapuse.ts:7:31 ? fetch connect=unresolved read=unresolved total=unresolved attempts=- key=?",
		}},
		{"axios", []string{
			// An instance imported from another file, its timeout an idle timer, retried by axios-retry (2 retries).
			"client.ts:7:21 GET axios connect=5000ms/client read=5000ms/client total=none attempts=3 key=false",
			// A POST: axios-retry retries it on network errors only (no 429/5xx).
			"client.ts:12:9 POST axios connect=5000ms/client read=5000ms/client total=none attempts=3 key=true",
			"client.ts:13:9 POST axios connect=5000ms/client read=5000ms/client total=none attempts=3 key=false",
			// timeout: 0 is none.
			"client.ts:17:10 GET axios connect=none read=none total=none attempts=- key=false",
			// axios.defaults.timeout set in defaults.js.
			"client.ts:21:10 GET axios connect=8000ms/client read=8000ms/client total=none attempts=- key=false",
			"client.ts:25:10 PATCH axios connect=1500ms/explicit read=1500ms/explicit total=4000ms/explicit attempts=- key=false",
			// An instance with a signal: the total.
			"client.ts:29:10 PUT axios connect=1000ms/client read=1000ms/client total=8000ms/client attempts=- key=false",
			// A class field holding an instance, a TypeScript generic call.
			"client.ts:40:12 POST axios connect=2000ms/client read=2000ms/client total=none attempts=- key=false",
			"client.ts:44:12 GET axios connect=unresolved read=unresolved total=none attempts=- key=false",
			// An instance a wrapper function of another file builds.
			"client.ts:54:10 GET axios connect=700ms/client read=700ms/client total=none attempts=- key=false",
			// A parameter typed AxiosInstance: the caller's client.
			"client.ts:58:10 DELETE axios connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// An import through a path alias: the one file read that ends with its path.
			"client.ts:64:31 GET axios connect=5000ms/client read=5000ms/client total=none attempts=3 key=false",
			// axios(config) with the config in a variable (a string variable is the URL); one
			// assigned again is not guessed.
			"client.ts:70:9 PUT axios connect=3000ms/explicit read=3000ms/explicit total=none attempts=- key=false",
			"client.ts:71:10 ? axios connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// axios.request(config): the method is the config's.
			"client.ts:76:10 DELETE axios connect=8000ms/client read=8000ms/client total=none attempts=- key=false",
		}},
		{"got", []string{
			// got retries GET twice by default, not POST.
			"got.mjs:9:24 GET got connect=none read=none total=none attempts=3 key=false",
			"got.mjs:10:24 POST got connect=none read=none total=none attempts=- key=false",
			"got.mjs:11:24 GET got connect=500ms/client read=none total=3000ms/client attempts=5 key=false",
			// got 11's timeout: N is the whole request.
			"got.mjs:12:24 GET got connect=none read=none total=10000ms/explicit attempts=- key=false",
			"got.mjs:13:24 POST got connect=none read=2000ms/explicit total=none attempts=2 key=true",
		}},
		{"undici", []string{
			// setGlobalDispatcher(new Agent({...})) in the project bounds Node's fetch.
			"undici.js:6:10 GET fetch connect=5000ms/client read=60000ms/client total=none attempts=- key=false",
			"undici.js:10:10 POST undici connect=5000ms/client read=2000ms/explicit total=none attempts=- key=false",
			// headersTimeout: 0 disables it: the read bound is none.
			"undici.js:15:10 GET fetch connect=100ms/explicit read=none total=9000ms/explicit attempts=- key=false",
		}},
		{"lexer", []string{
			// A generic function type `<T>(…) => R` in a .tsx annotation, JSX text "(none)".
			"generictype.tsx:9:10 GET axios connect=650ms/explicit read=650ms/explicit total=none attempts=- key=false",
			// A TypeScript non-null assertion before a division (`uptime! / 3_600_000`).
			"nonnull.ts:8:10 GET axios connect=900ms/explicit read=900ms/explicit total=none attempts=- key=false",
			"service.ts:11:25 GET axios connect=250ms/explicit read=250ms/explicit total=none attempts=- key=false",
			"view.jsx:10:11 GET fetch connect=10000ms/default read=300000ms/default total=700ms/explicit attempts=- key=false",
		}},
		{"instances", []string{
			// A field assigned in two branches, neither with a timeout: the calls through it have none.
			"branches.ts:21:12 POST axios connect=none read=none total=none attempts=- key=false",
			// Assigned different timeouts in two branches: not guessed.
			"branches.ts:38:12 GET axios connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// The same timeout in both: that one.
			"branches.ts:55:12 GET axios connect=2500ms/client read=2500ms/client total=none attempts=- key=false",
			// Options `has ? {headers} : undefined`: neither branch bounds the call; one that
			// bounds it in one branch only is not guessed.
			"field.ts:10:28 POST axios connect=none read=none total=none attempts=- key=?",
			"field.ts:20:11 GET axios connect=unresolved read=unresolved total=unresolved attempts=- key=?",
			// axios.create().post(…) inline: the instance's bounds (none, or its own timeout).
			"inline.ts:5:19 POST axios connect=none read=none total=none attempts=- key=false",
			"inline.ts:6:19 POST axios connect=none read=none total=none attempts=- key=false",
			"inline.ts:11:19 GET axios connect=1200ms/client read=1200ms/client total=none attempts=- key=false",
			"inline.ts:13:19 GET axios connect=none read=none total=none attempts=- key=false",
		}},
		{"conflict", []string{
			"a.js:8:26 GET axios connect=unresolved read=unresolved total=none attempts=- key=false",
			"a.js:9:27 GET fetch connect=unresolved read=unresolved total=none attempts=- key=false",
		}},
		{"notcalls", nil},
		// Build output is read when named (a walk leaves it out: TestJSBuilt).
		{"built", []string{
			"bundle.js:2:2425 POST fetch connect=10000ms/default read=300000ms/default total=none attempts=- key=false",
			"handwritten.js:6:21 PUT fetch connect=10000ms/default read=300000ms/default total=4000ms/explicit attempts=- key=false",
			"webpack.js:6:10 GET fetch connect=10000ms/default read=300000ms/default total=none attempts=- key=false",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			var got []string
			for _, c := range readJSDir(t, tt.dir) {
				got = append(got, summary(c))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJSDetails: hosts for the join, the retry layers with where they are set, classes and
// backoff, and the notes that say what a number means.
func TestJSDetails(t *testing.T) {
	hosts := map[string]string{}
	retries := map[string]string{}
	notes := map[string]string{}
	for _, dir := range []string{"fetch", "axios", "got", "undici", "lexer"} {
		for _, c := range readJSDir(t, dir) {
			at := fmt.Sprintf("%s:%d", filepath.Base(c.File), c.Line)
			hosts[at] = c.Host
			if r := c.Retry; r != nil {
				b := ""
				if r.Backoff != nil && r.Backoff.InitialMS != nil {
					b = fmt.Sprintf(" backoff=%dms×%g", *r.Backoff.InitialMS, *r.Backoff.Multiplier)
				} else if r.Backoff != nil {
					b = fmt.Sprintf(" backoff=%v", r.Backoff.ScheduleMS)
				}
				where := "library"
				if r.File != "" {
					where = fmt.Sprintf("%s:%d", filepath.Base(r.File), r.Line)
				}
				retries[at] = fmt.Sprintf("%s %d on=%s at=%s%s", r.Layer, r.MaxAttempts, strings.Join(r.On, ","), where, b)
			}
			notes[at] = strings.Join(c.Notes, " | ")
		}
	}
	wantHosts := map[string]string{
		"fetch.js:5": "api.example.com", "fetch.js:9": "api.example.com", "fetch.js:16": "pay.example.com", "fetch.js:28": "",
		"client.ts:7": "orders.example.com", "client.ts:21": "", "client.ts:44": "gw.example.com",
		"got.mjs:11": "search.example.com", "view.jsx:10": "widgets.example.com", "service.ts:11": "svc.example.com", "wrapuse.ts:4": "svc.example.com",
	}
	for at, want := range wantHosts {
		if hosts[at] != want {
			t.Errorf("%s: host %q, want %q", at, hosts[at], want)
		}
	}
	wantRetries := map[string]string{
		"client.ts:7":  "axios-retry 3 on=connect,reset,429,5xx at=api.ts:10 backoff=200ms×2",
		"client.ts:12": "axios-retry 3 on=connect,reset at=api.ts:10 backoff=200ms×2",
		"got.mjs:9":    "got 3 on=connect,timeout,reset,408,413,429,500,502,503,504,521,522,524 at=library backoff=1000ms×2",
		"got.mjs:13":   "got 2 on=connect,timeout,reset,408,413,429,500,502,503,504,521,522,524 at=library backoff=1000ms×2",
	}
	for at, want := range wantRetries {
		if retries[at] != want {
			t.Errorf("%s: retry %q, want %q", at, retries[at], want)
		}
	}
	for at, want := range map[string]string{
		"client.ts:7": "idle timer", "undici.js:10": "headersTimeout", "got.mjs:12": "got 11", "got.mjs:13": "timeout.response",
		"client.ts:58": "from the caller", "fetch.js:28": "from the caller", "fetch.js:42": "spread",
		"wrap.mjs:7": "through callApi at testdata/js/fetch/wrap.mjs:3", "wrapuse.ts:4": "through request",
	} {
		if !strings.Contains(notes[at], want) {
			t.Errorf("%s: notes %q do not say %q", at, notes[at], want)
		}
	}
}

// TestJSLibraries: every library a call names has its Fix and Defaults (PT001 names the fix
// in the library's words; the README's defaults table is built from them).
func TestJSLibraries(t *testing.T) {
	for _, dir := range []string{"fetch", "axios", "got", "undici"} {
		for _, c := range readJSDir(t, dir) {
			l := LibraryOf(&c)
			if l == nil || l.Fix == "" || l.Defaults == "" {
				t.Errorf("%s: library %q has no Fix or Defaults: %+v", c.Where(), c.Library, l)
			}
		}
	}
}

// TestJSLexErrors: what the lexer cannot tokenise is an *Error at its line and column; what
// it must tolerate is no error.
func TestJSLexErrors(t *testing.T) {
	bad := []struct {
		name, src string
		line, col int
	}{
		{"a.js", "const a = 1;\nconst s = 'open\n", 2, 11},
		{"a.js", "const t = `a ${b}\n", 1, 11},
		{"a.js", "f(a, {b: 1);\n", 1, 11},
		{"a.js", "function f() {\n  return 1;\n", 1, 14},
		{"a.js", "x = 1 }\n", 1, 7},
		{"a.js", "/* never closed\n", 1, 1},
		{"a.js", "const r = /abc\n", 1, 11},
		{"a.jsx", "const v = <div>\n  text\n", 1, 11},
		{"a.js", "const t = `${ `inner ${ x `}`;\n", 1, 15},
	}
	for _, tt := range bad {
		_, err := JavaScript.Read([]Input{{Path: tt.name, Data: []byte(tt.src)}})
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%q: err = %v, want *Error", tt.src, err)
			continue
		}
		if se.File != tt.name || se.Line != tt.line || se.Col != tt.col {
			t.Errorf("%q: error at %s:%d:%d, want %d:%d (%s)", tt.src, se.File, se.Line, se.Col, tt.line, tt.col, se.Msg)
		}
	}
	good := map[string]string{
		"hashbang.js":    "#!/usr/bin/env node\nconst a = 1;\n",
		"division.js":    "const a = (b) / 2 / c, d = x[1] / 3;\nlet e = a++ / 2;\n",
		"regex.js":       "if (a) return /[)}\\]]/.test(b);\nconst r = x.replace(/'/g, '\"');\n",
		"tmpl.js":        "const s = `a ${`b ${'}'}`} ${ {x: 1}.x }`;\n",
		"private.ts":     "class A { #x = 1; f() { return this.#x / 2; } }\n",
		"generic.ts":     "const m = new Map<string, Array<number>>(); const f = <T,>(x: T) => x; let y = <any>z;\n",
		"generic.tsx":    "const f = <T,>(x: T): T => x; const g = <T extends object>(x: T) => x;\n",
		"jsx.jsx":        "const v = <a href=\"x\" b={1 > 0}>it's {`${x}`} <b>bold</b><br/></a>;\n",
		"comments.js":    "a = 1 // ' unclosed in a comment\n/* ` */ b = 2;\n",
		"htmlcomm.js":    "<!-- old browsers\nconst a = 1;\n",
		"unicode.js":     "const é = '日本' ; const s = \"\\\"\" ;\n",
		"numbers.js":     "const a = 0x1F + 1e-3 + .5 + 10_000 + 1n;\n",
		"jsxinjs.js":     "export default () => (<div onClick={() => f('/x')}>{items.map(i => <p key={i}>{i}</p>)}</div>);\n",
		"arrowjsx.tsx":   "const C = () => <><A x={{y: 1}} /></>;\n",
		"jsxattr.tsx":    "const C = () => <F {...p} src={p.h} icon={<I src=\"/i.png\" w={16} />} b />;\n",
		"generictag.tsx": "const C = () => <List<User> items={u} render={(x: Array<U>) => <p>{x}</p>} />;\n",
		"tmplexpr.js":    "const s = `${/a\\/b/.test(x) ? 1 : 2} ${<b/>}`;\n",
		// A prefix not stays one: after a keyword, a condition's `)` in JavaScript, a line break.
		"notregex.js": "if (a) !/x/.test(b) && f();\nreturn !/y/.test(c);\nd\n!/z/.test(e);\n",
	}
	for name, src := range good {
		if _, err := JavaScript.Read([]Input{{Path: name, Data: []byte(src)}}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestJSLeftOut: the files a walk leaves out, and those it reads.
func TestJSLeftOut(t *testing.T) {
	for rel, out := range map[string]bool{
		"src/a.test.ts": true, "src/a.spec.js": true, "src/__tests__/a.js": true, "__mocks__/axios.js": true,
		"test/a.js": true, "tests/a.mjs": true, "e2e/a.ts": true, "cypress/support/a.js": true,
		"dist/index.js": true, "build/app.js": true, "vendor/jquery.min.js": true, "types/index.d.ts": true,
		"src/a.ts": false, "src/testing.js": false, "src/contest/a.js": false, "src/latest.js": false, "index.tsx": false,
	} {
		if got := JavaScript.Test(rel) != ""; got != out {
			t.Errorf("JavaScript.Test(%q) leaves it out = %v, want %v", rel, got, out)
		}
	}
	for path, want := range map[string]*Language{"a/b.ts": &JavaScript, "X.TSX": &JavaScript, "a.mjs": &JavaScript, "a.cjs": &JavaScript, "a.jsx": &JavaScript, "a.json": nil} {
		if got := ForPath(path); got != want {
			t.Errorf("ForPath(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestJSBuilt: a walk leaves out minified and bundled files by their content, whatever
// their names; hand-written code with one long line is read.
func TestJSBuilt(t *testing.T) {
	for file, want := range map[string]string{
		"bundle.js":      "a minified JavaScript file (a line of 2636 bytes of code, 1346 bytes a line on average)",
		"webpack.js":     "a webpack bundle (its runtime, __webpack_require__, is in the file)",
		"handwritten.js": "",
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "js", "built", file))
		if err != nil {
			t.Fatal(err)
		}
		got := JavaScript.Built(data)
		if !strings.HasPrefix(got, want) || (want == "") != (got == "") {
			t.Errorf("Built(%s) = %q, want %q…", file, got, want)
		}
	}
	// Only the head is read: a bundle's first 64 KiB decide, and a file with no line break.
	long := []byte(strings.Repeat("var a=1;", 20000))
	if got := JavaScript.Built(long); !strings.Contains(got, "a line of 65536 bytes of code") {
		t.Errorf("Built(one 160,000-byte line) = %q", got)
	}
	// A small component whose one long line is data (an SVG path): read, however high the
	// mean.
	var path strings.Builder
	for i := 0; path.Len() < 4000; i++ {
		fmt.Fprintf(&path, "L%d.%d %d.%d ", i%97, i%7, i%89, i%3)
	}
	icon := []byte("export const Icon = () => (\n  <svg viewBox=\"0 0 24 24\">\n    <path d=\"M0 0 " + path.String() + "Z\" />\n  </svg>\n);\n")
	if got := JavaScript.Built(icon); got != "" {
		t.Errorf("Built(an icon with a long path) = %q, want read", got)
	}
	short := []byte(strings.Repeat("const a = 1;\n", 20000) + strings.Repeat("x", 5000))
	if got := JavaScript.Built(short); got != "" {
		t.Errorf("Built(short lines, a long one past the head) = %q, want read", got)
	}
}

// TestJSPackage: a project is the nearest directory with a package.json above a file.
func TestJSPackage(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"app/src/lib", "loose"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "app", "package.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"app/src/lib/a.ts": "app", "app/index.js": "app", "loose/x.js": "loose",
	} {
		got, _ := filepath.Rel(root, JavaScript.Package(filepath.Join(root, file)))
		if got != want {
			t.Errorf("Package(%s) = %s, want %s", file, got, want)
		}
	}
}

// TestJSIgnores: both comment forms carry patience:ignore.
func TestJSIgnores(t *testing.T) {
	got := Ignores([]byte("fetch(u) // patience:ignore PT001\n/* patience:ignore PT005 */\naxios.post(u)\n"), JavaScript.Comments)
	want := map[int]map[string]bool{1: {"PT001": true}, 3: {"PT005": true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ignores (-want +got):\n%s", diff)
	}
}

// FuzzJSSource: the JavaScript reader never panics nor loops; it returns calls or an *Error.
func FuzzJSSource(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "js", "*", "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, filepath.Ext(p) == ".ts")
		}
	}
	f.Add([]byte("const a = a; a.get(a); fetch(a, a)"), false)
	f.Add([]byte("const x = axios.create(x); x.defaults.timeout = x; axiosRetry(x, x); x.get(u)"), false)
	f.Add([]byte("<a>{`${<b/>}`}</a>"), false)
	// Many blocks declaring and assigning one name: a lookup walks the blocks around it.
	f.Add([]byte(strings.Repeat("{ const a = 1; a = 2; fetch(a, a); }\n", 200)), false)
	// A value defined through others many times over: evaluated once each, not per path.
	f.Add([]byte("const a = b + b + b + b; const b = c + c + c + c; const c = d + d + d + d; const d = e + e + e + e; const e = g + g + g + g; const g = 1;\nfetch(u, {signal: AbortSignal.timeout(a)})"), false)
	f.Fuzz(func(t *testing.T, data []byte, ts bool) {
		name := "f.jsx"
		if ts {
			name = "f.ts"
		}
		fuzzRead(t, &JavaScript, []Input{{Path: name, Data: data}, {Path: "g.js", Data: []byte("import x from './f'; x.get('/'); export default x;")}})
	})
}

// BenchmarkReadJavaScript reads a generated project of more than 20,000 lines (issue 28: ≥
// 20,000 lines/s on two cores; a benchmark, not a timed test), reporting lines read per
// second.
func BenchmarkReadJavaScript(b *testing.B) {
	in, lines := jsBenchInput(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := JavaScript.Read(in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
}

// jsBenchInput is 20 files of the fixtures' patterns repeated, over 20,000 lines in all.
func jsBenchInput(b *testing.B) ([]Input, int) {
	files, _ := filepath.Glob(filepath.Join("testdata", "js", "*", "*"))
	var unit strings.Builder
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		// built/ holds build output, which a walk leaves out: its long lines are no measure
		// of the lines people write.
		if filepath.Ext(p) == ".ts" || filepath.Ext(p) == ".jsx" || filepath.Base(filepath.Dir(p)) == "built" {
			continue
		}
		unit.Write(data)
		unit.WriteString("\n")
	}
	var in []Input
	lines := 0
	for n := 0; lines < 20000; n++ {
		var f strings.Builder
		for k := 0; k < 8; k++ {
			f.WriteString(strings.ReplaceAll(strings.ReplaceAll(unit.String(), "#!", "//"), "export default", fmt.Sprintf("export const d%d =", k)))
			f.WriteString(fmt.Sprintf("\nfunction pad%d() { return fetch('https://x.example.com/%d'); }\n", k, k))
		}
		lines += strings.Count(f.String(), "\n")
		in = append(in, Input{Path: fmt.Sprintf("gen/f%d.js", n), Data: []byte(f.String())})
	}
	return in, lines
}

// TestJSCRLF: a backslash before CRLF continues a string, as before LF (files with Windows
// line ends), and the call after it keeps its line.
func TestJSCRLF(t *testing.T) {
	src := "const s = \"a \\\r\nb\";\r\nfetch(\"https://a.test/\");\r\n"
	calls, err := JavaScript.Read([]Input{{Path: "crlf.js", Data: []byte(src)}})
	if err != nil {
		t.Fatalf("a backslash before CRLF: %v, want the string continued", err)
	}
	if len(calls) != 1 || calls[0].Line != 3 {
		t.Errorf("calls = %+v, want fetch at line 3", calls)
	}
}
