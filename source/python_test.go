package source

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readPyDir reads the Python files of one fixture package.
func readPyDir(t *testing.T, dir string) []Call {
	t.Helper()
	return readFixture(t, &Python, filepath.Join("python", dir, "*.py"))
}

// pySummary is summary with every layer (outermost first) and the host.
func pySummary(c Call) string {
	s := summary(c)
	layers := c.Layers
	if len(layers) == 0 && c.Retry != nil {
		layers = []Retry{*c.Retry}
	}
	for _, l := range layers {
		s += fmt.Sprintf(" [%s %d on=%s", l.Layer, l.MaxAttempts, strings.Join(l.On, ","))
		if l.DeadlineMS != nil {
			s += fmt.Sprintf(" deadline=%dms", *l.DeadlineMS)
		}
		if b := l.Backoff; b != nil {
			if b.InitialMS != nil {
				s += fmt.Sprintf(" backoff=%dms", *b.InitialMS)
			}
			if b.MaxMS != nil {
				s += fmt.Sprintf("..%dms", *b.MaxMS)
			}
			s += " jitter=" + b.Jitter
		}
		s += "]"
	}
	if c.Host != "" {
		s += " host=" + c.Host
	}
	return s
}

// TestPythonCalls: every pattern's calls, each with its effective bounds and their
// origins, its retry layers (outermost first), key and host.
func TestPythonCalls(t *testing.T) {
	tests := []struct {
		dir  string
		want []string
	}{
		{"defaults", []string{
			// requests' default: no timeout at all.
			"defaults.py:14:5 GET requests connect=none read=none total=none attempts=- key=false host=api.example.test",
			// A module constant; an f-string on a constant gives the host.
			"defaults.py:15:5 POST requests connect=10000ms/explicit read=10000ms/explicit total=none attempts=- key=false host=api.example.test",
			"defaults.py:16:5 PUT requests connect=3050ms/explicit read=27000ms/explicit total=none attempts=- key=false host=api.example.test",
			// timeout=None is no bound, as the default.
			"defaults.py:17:5 GET requests connect=none read=none total=none attempts=- key=false host=api.example.test",
			// Milliseconds given to a seconds parameter: read as requests reads it (a note says so).
			"defaults.py:18:5 PATCH requests connect=5000000ms/explicit read=5000000ms/explicit total=none attempts=- key=false host=api.example.test",
			// httpx's 5 s default for each phase, and no total.
			"defaults.py:22:5 GET httpx connect=5000ms/default read=5000ms/default total=none attempts=- key=false host=api.example.test",
			"defaults.py:24:9 POST httpx connect=5000ms/default read=5000ms/default total=none attempts=- key=false host=api.example.test",
			"defaults.py:29:15 GET httpx connect=none read=none total=none attempts=- key=false host=api.example.test",
			"defaults.py:31:20 GET aiohttp connect=none read=none total=300000ms/default attempts=- key=false host=api.example.test",
			// A PoolManager retries Retry(3) by default: 4 attempts.
			"defaults.py:39:12 GET urllib3 connect=none read=none total=none attempts=4 key=false [urllib3 4 on=connect,timeout,reset] host=api.example.test",
		}},
		{"sessions", []string{
			// spotipy's shape: self._session is the caller's, a built Session with a Retry
			// subclass mounted, or requests.api; a keyword default read in the class body.
			"builder.py:28:16 ? requests connect=5000ms/client read=5000ms/client total=none attempts=4 key=? [urllib3 4 on=connect,429,5xx]",
			// The https:// mount: TimeoutHTTPAdapter(timeout=2.5) and Retry(total=3).
			"sessions.py:32:5 GET requests connect=2500ms/client read=2500ms/client total=none attempts=4 key=false [urllib3 4 on=connect,timeout,reset,429,5xx backoff=1000ms..120000ms jitter=none] host=api.example.test",
			// POST is not in Retry's default allowed_methods: connect errors only.
			"sessions.py:33:5 POST requests connect=2500ms/client read=2500ms/client total=none attempts=4 key=true [urllib3 4 on=connect backoff=1000ms..120000ms jitter=none] host=api.example.test",
			// A Session with nothing mounted: requests' default.
			"sessions.py:34:5 GET requests connect=none read=none total=none attempts=- key=false host=api.example.test",
			// An integer max_retries is Retry.from_int(2): read errors retried for a GET too.
			"sessions.py:40:9 GET requests connect=4000ms/explicit read=4000ms/explicit total=none attempts=3 key=false [urllib3 3 on=connect,timeout,reset] host=api.example.test",
			// A Session subclass whose request() sets a default timeout.
			"sessions.py:50:5 GET requests connect=7000ms/client read=7000ms/client total=none attempts=- key=false host=api.example.test",
			"sessions.py:52:5 GET requests connect=1000ms/explicit read=1000ms/explicit total=none attempts=- key=false host=api.example.test",
			// A session from a factory function that mounts an adapter.
			"sessions.py:65:5 DELETE requests connect=9000ms/client read=9000ms/client total=none attempts=- key=false host=api.example.test",
			// The seeds' ExternalClient: self.timeout from __init__'s keyword default.
			"sessions.py:79:16 GET requests connect=10000ms/client read=10000ms/client total=none attempts=- key=false",
			"sessions.py:83:12 GET requests connect=5000ms/client read=5000ms/client total=none attempts=- key=false",
		}},
		{"retries", []string{
			"retries.py:11:12 GET requests connect=3000ms/explicit read=3000ms/explicit total=none attempts=5 key=false [tenacity 5 on=connect,reset,timeout backoff=2000ms..30000ms jitter=none] host=api.example.test",
			// A bare @retry never stops: 0 attempts, unresolved.
			"retries.py:16:12 POST requests connect=3000ms/explicit read=3000ms/explicit total=none attempts=0 key=false [tenacity 0 on=connect,timeout,reset] host=api.example.test",
			"retries.py:21:12 GET requests connect=3000ms/explicit read=3000ms/explicit total=none attempts=3 key=false [tenacity 3 on=connect,timeout,reset deadline=10000ms backoff=1000ms..8000ms jitter=full] host=api.example.test",
			"retries.py:26:12 GET requests connect=3000ms/explicit read=3000ms/explicit total=none attempts=8 key=false [backoff 8 on=connect,timeout,reset,4xx,5xx deadline=60000ms backoff=1000ms jitter=full] host=api.example.test",
			// Two layers: the decorator outside the adapter's Retry (Retry is the innermost).
			"retries.py:35:5 POST requests connect=3000ms/explicit read=3000ms/explicit total=none attempts=3 key=false [backoff 3 on=connect,reset backoff=1000ms jitter=none] [urllib3 3 on=connect,timeout,reset,5xx] host=api.example.test",
			"retries.py:36:5 GET requests connect=3000ms/explicit read=3000ms/explicit total=none attempts=3 key=false [backoff 3 on=connect,reset backoff=1000ms jitter=none] [urllib3 3 on=connect,timeout,reset,5xx] host=api.example.test",
			// Retry(connect=0) on a POST retries nothing (On is empty).
			"retries.py:45:5 POST requests connect=3000ms/explicit read=3000ms/explicit total=none attempts=5 key=false [urllib3 5 on=] host=api.example.test",
			"retries.py:46:5 PUT requests connect=3000ms/explicit read=3000ms/explicit total=none attempts=5 key=false [urllib3 5 on=timeout,reset] host=api.example.test",
		}},
		{"phases", []string{
			// httpx.Timeout(10, connect=5) on the client; relative URL on a base_url.
			"phases.py:11:5 GET httpx connect=5000ms/client read=10000ms/client total=none attempts=3 key=false [httpx-transport 3 on=connect] host=api.example.test",
			"phases.py:12:5 GET httpx connect=2000ms/explicit read=2000ms/explicit total=none attempts=3 key=false [httpx-transport 3 on=connect] host=api.example.test",
			// retries=False: no layer.
			"phases.py:13:5 GET urllib3 connect=2000ms/client read=7000ms/client total=none attempts=- key=false host=api.example.test",
			"phases.py:14:5 POST urllib3 connect=1500ms/explicit read=1500ms/explicit total=none attempts=4 key=false [urllib3 4 on=connect] host=api.example.test",
			"phases.py:19:15 GET aiohttp connect=3000ms/explicit read=10000ms/explicit total=30000ms/explicit attempts=- key=false host=api.example.test",
			"phases.py:20:15 POST aiohttp connect=none read=none total=5000ms/explicit attempts=- key=false host=api.example.test",
			"phases.py:28:22 GET httpx connect=20000ms/client read=20000ms/client total=none attempts=- key=false host=api.example.test",
		}},
		{"unresolved", []string{
			// A session from the caller: an adapter there may set a timeout.
			"unresolved.py:9:12 GET requests connect=unresolved read=unresolved total=none attempts=- key=false",
			"unresolved.py:13:12 GET httpx connect=unresolved read=unresolved total=none attempts=- key=false host=api.example.test",
			"unresolved.py:17:12 GET requests connect=unresolved read=unresolved total=none attempts=- key=?",
			"unresolved.py:21:12 GET requests connect=unresolved read=unresolved total=none attempts=- key=false",
			"unresolved.py:26:12 GET requests connect=3000ms/explicit read=3000ms/explicit total=none attempts=- key=false host=api.example.test",
			// A pool from a factory that returns one of two managers built with **opts:
			// its timeout and retries may be among them.
			"unresolved.py:39:12 GET urllib3 connect=unresolved read=unresolved total=none attempts=0 key=false [urllib3 0 on=] host=api.example.test",
		}},
		{"package", []string{
			// A session built in a sibling module, its adapter's timeout a constant of a third.
			"client.py:7:12 GET requests connect=2000ms/client read=8000ms/client total=none attempts=- key=false host=api.example.test",
			"client.py:11:12 GET requests connect=2000ms/explicit read=8000ms/explicit total=none attempts=- key=false host=api.example.test",
		}},
		{"notcalls", nil},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			var got []string
			for _, c := range readPyDir(t, tt.dir) {
				got = append(got, pySummary(c))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// findCall is the call at FILE:LINE of a fixture directory.
func findCall(t *testing.T, dir, at string) Call {
	t.Helper()
	for _, c := range readPyDir(t, dir) {
		if strings.HasPrefix(fmt.Sprintf("%s:%d:", filepath.Base(c.File), c.Line), at+":") {
			return c
		}
	}
	t.Fatalf("no call at %s in %s", at, dir)
	return Call{}
}

// TestPythonNotes: a number that is not what its name suggests, and a value not read, say
// so in the call's notes.
func TestPythonNotes(t *testing.T) {
	tests := []struct {
		dir, at, want string
	}{
		{"defaults", "defaults.py:18", "timeout=5000 is read in seconds, as requests reads it: 1h23m20s"},
		{"defaults", "defaults.py:15", "requests has no total timeout"},
		{"defaults", "defaults.py:22", "httpx has no total timeout"},
		{"sessions", "sessions.py:83", "timeout is the keyword default of fetch(): callers may pass another"},
		{"sessions", "sessions.py:32", "timeout set by TimeoutHTTPAdapter.send()"},
		{"unresolved", "unresolved.py:17", "the call passes *args/**kwargs"},
		{"unresolved", "unresolved.py:21", "float(…) is computed at run time"},
		{"unresolved", "unresolved.py:9", "the session is the caller's"},
	}
	for _, tt := range tests {
		c := findCall(t, tt.dir, tt.at)
		if !strings.Contains(strings.Join(c.Notes, "\n"), tt.want) {
			t.Errorf("%s: notes %q lack %q", tt.at, c.Notes, tt.want)
		}
	}
}

// TestPythonLayers: the layers multiply (Call.Attempts), a layer says where it is set, and
// a count that is not static says why.
func TestPythonLayers(t *testing.T) {
	layered := findCall(t, "retries", "retries.py:35")
	if got := layered.Attempts(); got != 9 {
		t.Errorf("backoff(max_tries=3) around Retry(total=2): %d attempts, want 9", got)
	}
	if len(layered.Layers) != 2 || layered.Layers[0].Layer != "backoff" || layered.Layers[0].Line != 33 || layered.Layers[1].Line != 30 {
		t.Errorf("layers: %+v, want backoff (line 33) outside urllib3 (line 30)", layered.Layers)
	}
	forever := findCall(t, "retries", "retries.py:16")
	if forever.Attempts() != 0 || forever.Retry.Unresolved != "tenacity's @retry with no stop retries forever" {
		t.Errorf("bare @retry: attempts %d, unresolved %q", forever.Attempts(), forever.Retry.Unresolved)
	}
	both := findCall(t, "retries", "retries.py:21")
	if both.Retry.DeadlineMS == nil || *both.Retry.DeadlineMS != 10000 || both.Retry.MaxAttempts != 3 {
		t.Errorf("stop_after_attempt(3) | stop_after_delay(10): %+v", both.Retry)
	}
}

// TestPythonLexErrors: what the lexer cannot tokenise is an *Error at file:line:col.
func TestPythonLexErrors(t *testing.T) {
	tests := []struct {
		src  string
		line int
		col  int
		msg  string
	}{
		{"x = 'open\n", 1, 5, "a string that does not end on its line"},
		{"x = \"\"\"never\nclosed\n", 1, 5, "a string that is never closed"},
		{"def f(:\n    pass\n", 1, 6, "'(' is never closed"},
		{"x = [1, 2)\n", 1, 10, "')' does not close an open bracket"},
		{"y = f'{a['k'}'\n", 1, 5, "a string that does not end on its line"},
		{"z = 1\n)\n", 2, 1, "')' does not close an open bracket"},
	}
	for _, tt := range tests {
		_, err := Python.Read([]Input{{Path: "bad.py", Data: []byte(tt.src)}})
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%q: %v, want a *source.Error", tt.src, err)
			continue
		}
		if se.File != "bad.py" || se.Line != tt.line || se.Col != tt.col || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("%q: %s, want bad.py:%d:%d: …%s", tt.src, se, tt.line, tt.col, tt.msg)
		}
	}
}

// TestPythonLexer: every quoting form, comments and continuations leave no call behind and
// keep lines and columns right.
func TestPythonLexer(t *testing.T) {
	src := `import requests
s = r"\"requests.get('x')"
t = f"{requests.get("https://a.test/" + 'x')}"
u = """
requests.get("https://b.test/")
"""
v = b'\x00' # requests.get("https://c.test/")
w = 1_000.5e-3 + 0x1F
requests.get(
    "https://d.test/",  # a comment inside
    timeout=(1,
             2),
)
x = requests.get \
    ("https://e.test/")
y = f'{w!r:>{10}}' + rb'\d' + Rb"\d"
        # an indented comment
z = [requests.post("https://f.test/") for _ in range(2)]
`
	calls, err := Python.Read([]Input{{Path: "lex.py", Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, fmt.Sprintf("%d:%d %s", c.Line, c.Col, c.Host))
	}
	// The f-string's replacement field is code, so its call is one; the others are text.
	want := []string{"9:1 d.test", "14:5 e.test", "18:6 f.test"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// TestPythonLeftOut: a walk leaves test modules and test directories out, with the reason.
func TestPythonLeftOut(t *testing.T) {
	for rel, out := range map[string]bool{
		"app/client.py": false, "app/test_client.py": true, "app/client_test.py": true,
		"conftest.py": true, "tests/helpers.py": true, "pkg/test/x.py": true, "latest/x.py": false, "testing.py": false,
	} {
		if got := pyLeftOut(rel) != ""; got != out {
			t.Errorf("%s: left out %v, want %v", rel, got, out)
		}
	}
}

// FuzzPythonSource: no input panics or hangs the reader; an error is a *source.Error.
func FuzzPythonSource(f *testing.F) {
	for _, dir := range []string{"defaults", "sessions", "retries", "phases", "unresolved", "notcalls"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "python", dir, "*.py"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("f'{x[\"a\"]}' \\\n'''"))
	f.Add([]byte("s = requests.Session()\ns.mount('https://', s)\ns.get(u)"))
	f.Add([]byte("a = a or a\nb = b.c.d(e)(f)[g].get(h)\n@retry(stop=(|))\ndef f(x=x): x.get()"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, &Python, []Input{{Path: "fuzz.py", Data: data}})
	})
}

// BenchmarkReadPython reads a generated module of ≥ 20,000 lines in the patterns real code
// has (classes, sessions, decorators, strings of every form): lines/s is the speed
// goal (≥ 20,000 on two cores).
func BenchmarkReadPython(b *testing.B) {
	var src strings.Builder
	src.WriteString("import requests\nimport httpx\nfrom tenacity import retry, stop_after_attempt\n\nTIMEOUT = (3.05, 10)\n")
	for i := 0; src.Len() == 0 || strings.Count(src.String(), "\n") < 20_000; i++ {
		fmt.Fprintf(&src, `

class Client%[1]d:
    """A client: requests.get("https://x.test/") in a docstring."""

    def __init__(self, base=f"https://api{%[1]d}.example.test", timeout=10):
        self.session = requests.Session()
        self.base = base  # a comment
        self.timeout = timeout

    @retry(stop=stop_after_attempt(3))
    def get(self, path, **kw):
        return self.session.get(self.base + path, timeout=self.timeout, headers={"Idempotency-Key": "k"})

    def post(self, data):
        return requests.post("https://api.example.test/items", json={"n": [1, 2, (3, 4)]}, timeout=TIMEOUT)

    async def stream(self):
        async with httpx.AsyncClient() as c:
            return await c.get(f"{self.base}/stream", params={"a": 'b'})
`, i)
	}
	data := []byte(src.String())
	lines := strings.Count(src.String(), "\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if _, err := Python.Read([]Input{{Path: "gen.py", Data: data}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// TestPythonFanOut: names that fan out (each a tuple of the next) are followed in bounded
// time, not exponential.
func TestPythonFanOut(t *testing.T) {
	var src strings.Builder
	src.WriteString("import requests\n")
	for i := range 30 {
		fmt.Fprintf(&src, "n%d = (%s)\n", i, strings.Repeat(fmt.Sprintf("n%d, ", i+1), 24))
	}
	src.WriteString("requests.get('https://a.test/', timeout=n0)\n")
	done := make(chan []Call, 1)
	go func() {
		calls, _ := Python.Read([]Input{{Path: "fan.py", Data: []byte(src.String())}})
		done <- calls
	}()
	select {
	case calls := <-done:
		if len(calls) != 1 || calls[0].Origin.Connect != OriginUnresolved {
			t.Errorf("calls %v, want one with an unresolved connect", calls)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a fan-out of names was not followed in bounded time")
	}
}

// TestPythonContext: a Celery task is a job and, with autoretry_for, a layer of its own; a
// route handler is a request; a session's headers.update carries the key.
func TestPythonContext(t *testing.T) {
	var got []string
	for _, c := range readPyDir(t, "context") {
		got = append(got, pySummary(c)+" context="+c.Context)
	}
	want := []string{
		// max_retries=5: 6 attempts; retry_backoff=True: 1 s doubling, full jitter.
		"tasks.py:12:12 POST requests connect=10000ms/explicit read=10000ms/explicit total=none attempts=6 key=false [celery 6 on=connect,reset,timeout backoff=1000ms..600000ms jitter=full] host=pay.example.test context=job",
		// A task without autoretry_for does not retry on its own.
		"tasks.py:17:12 GET requests connect=10000ms/explicit read=10000ms/explicit total=none attempts=- key=false host=api.example.test context=job",
		"tasks.py:22:12 POST requests connect=1000ms/explicit read=4000ms/explicit total=none attempts=- key=true host=api.example.test context=request",
		"tasks.py:27:9 GET requests connect=none read=none total=none attempts=- key=false host=api.example.test context=",
		"tasks.py:28:5 ? requests connect=2000ms/explicit read=2000ms/explicit total=none attempts=- key=false context=",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// TestPythonCRLF: a file with Windows line ends (TheAlgorithms/Python's maths/area.py has one)
// continues a string with a backslash before CRLF as before LF, and its calls keep their lines.
func TestPythonCRLF(t *testing.T) {
	src := "import requests\r\n" +
		"msg = \"only accepts integers greater than or \\\r\n" +
		"equal to three\"\r\n" +
		"requests.get(\"https://a.test/\")\r\n"
	calls, err := Python.Read([]Input{{Path: "crlf.py", Data: []byte(src)}})
	if err != nil {
		t.Fatalf("a backslash before CRLF: %v, want the string continued", err)
	}
	if len(calls) != 1 || calls[0].Line != 4 || calls[0].Host != "a.test" {
		t.Errorf("calls = %+v, want requests.get at line 4", calls)
	}
}
