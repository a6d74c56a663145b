package emit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/profile"
)

// The fixed inputs of the goldens: an interactive GET with two attempts in a 2 s budget, a
// POST with an Idempotency-Key (retries safe), a POST without one (one attempt), and a job
// caller (the seeds' queue design: 6 tries, backoff 10 s ×3 capped at 600 s, +25% jitter).
const fixtureURL = "https://api.example.com/orders/42?expand=items"

func fixtureRec(method string, key bool) profile.Recommendation {
	read := 400.0
	return profile.Recommendation{
		ConnectTimeoutMs: 300, ReadTimeoutMs: &read, TimeoutMs: 800,
		MaxAttempts: 2, AttemptsFit: 2, BudgetMs: 2000, FitsBudget: true,
		Caller: profile.CallerInfo{Kind: profile.CallerInteractive, Method: method, IdempotencyKey: key, BudgetMs: 2000},
	}
}

func fixtureJobRec() profile.Recommendation {
	r := fixtureRec("GET", false)
	r.MaxAttempts, r.BudgetMs = 1, 0
	r.Caller = profile.CallerInfo{Kind: profile.CallerJob, Method: "GET"}
	r.Job = &profile.JobDesign{
		Tries: 6, BackoffMs: []float64{10_000, 30_000, 90_000, 270_000, 600_000},
		Jitter: "proportional", JitterFactor: 0.25, TimeoutMs: 5000, RetryAfterMs: 90_000,
		GiveUpAfterMs: 1_280_000,
	}
	return r
}

type fixture struct {
	name string
	in   Input
}

func fixtures() []fixture {
	noKey := fixtureRec("POST", false)
	noKey.MaxAttempts = 1
	return []fixture{
		{"get", Input{URL: fixtureURL, Method: "GET", Rec: fixtureRec("GET", false)}},
		{"post_key", Input{URL: fixtureURL, Method: "POST", Rec: fixtureRec("POST", true)}},
		{"post_nokey", Input{URL: fixtureURL, Method: "POST", Rec: noKey}},
		{"job", Input{URL: fixtureURL, Method: "GET", Rec: fixtureJobRec()}},
	}
}

// familyTargets are this file's targets, with the extension of their programs.
var familyTargets = []struct {
	target Target
	ext    string
}{{Axios, "js"}, {Fetch, "js"}, {Guzzle, "php"}, {Laravel, "php"}, {OkHttp, "java"}}

// emitFixture emits one target for one fixture, failing the test on an error.
func emitFixture(t *testing.T, tg Target, f fixture) Emission {
	t.Helper()
	e, err := Emit(tg, f.in)
	if err != nil {
		t.Fatalf("%s %s: %v", tg, f.name, err)
	}
	return e
}

// TestFamilyGoldens pins each program's text: one golden per target and input (the job only
// for laravel, whose job is a different program; the others make the one run's call).
func TestFamilyGoldens(t *testing.T) {
	for _, ft := range familyTargets {
		for _, f := range fixtures() {
			if f.name == "job" && ft.target != Laravel {
				continue
			}
			t.Run(string(ft.target)+"_"+f.name, func(t *testing.T) {
				e := emitFixture(t, ft.target, f)
				golden.Assert(t, string(ft.target)+"_"+f.name, []byte(e.Text))
			})
		}
	}
}

// TestFamilySyntax runs each language's own checker over every program: node --check,
// php -l, javac (against OkHttp when its jars are there). A missing tool skips, saying so.
func TestFamilySyntax(t *testing.T) {
	for _, ft := range familyTargets {
		for _, f := range fixtures() {
			t.Run(string(ft.target)+"_"+f.name, func(t *testing.T) {
				e := emitFixture(t, ft.target, f)
				dir := t.TempDir()
				name := "call." + ft.ext
				if ft.ext == "java" {
					name = "PatienceCall.java"
				}
				path := filepath.Join(dir, name)
				if err := os.WriteFile(path, []byte(e.Text), 0o644); err != nil {
					t.Fatal(err)
				}
				syntaxCheck(t, ft.ext, dir, path)
			})
		}
	}
}

func syntaxCheck(t *testing.T, ext, dir, path string) {
	t.Helper()
	var argv []string
	switch ext {
	case "js":
		argv = []string{"node", "--check", path}
	case "php":
		argv = []string{"php", "-l", path}
	case "java":
		for _, jar := range debianOkHttp {
			if _, err := os.Stat(jar); err != nil {
				t.Skipf("%s missing (libokhttp-java): javac cannot resolve OkHttp", jar)
			}
		}
		argv = []string{"javac", "-cp", strings.Join(debianOkHttp, string(os.PathListSeparator)), "-d", dir, path}
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		t.Skipf("%s not on PATH: the syntax check needs it", argv[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

// TestFamilySettings pins, per target and input, the knobs each emission says it sets and what
// each Missing entry is about, and that every knob it sets appears in the program.
func TestFamilySettings(t *testing.T) {
	get := Input{URL: fixtureURL, Method: "GET", Rec: fixtureRec("GET", false)}
	noConnect, noRead := get, get
	noConnect.Rec.ConnectTimeoutMs = 0
	noRead.Rec.ReadTimeoutMs = nil
	nokey := Input{URL: fixtureURL, Method: "POST", Rec: fixtureRec("POST", false)}
	job := Input{URL: fixtureURL, Method: "GET", Rec: fixtureJobRec()}
	loop := []string{"ATTEMPTS (the retry loop)", "BUDGET_MS (the loop's deadline)"}
	backoff := []string{"fullJitter", "retryAfterMs"}
	okhttp := []string{"connectTimeout", "readTimeout", "callTimeout", "retryOnConnectionFailure"}
	tests := []struct {
		target  Target
		name    string
		in      Input
		knobs   []string
		missing []string // a phrase each Missing entry starts with, in order
		text    []string // what the program must say
	}{
		{Axios, "get", get, cat([]string{"httpAgent / httpsAgent (a timer on each socket until it connects)", "timeout", "signal: AbortSignal.timeout"}, loop, backoff),
			[]string{"axios has no total timeout", "axios has no connect timeout", "axios alone does not retry"}, []string{"timeout: READ_MS,", "signal, //", "connectTimeoutAgent(CONNECT_MS)"}},
		{Axios, "no connect", noConnect, cat([]string{"timeout", "signal: AbortSignal.timeout"}, loop, backoff),
			[]string{"axios has no total timeout", "axios alone does not retry"}, []string{"no connect timeout (none recommended"}},
		{Axios, "no read", noRead, cat([]string{"httpAgent / httpsAgent (a timer on each socket until it connects)", "signal: AbortSignal.timeout"}, loop, backoff),
			[]string{"axios has no total timeout", "axios has no connect timeout", "axios alone does not retry"}, []string{"no read timeout (none recommended)"}},
		{Axios, "post without key", nokey, cat([]string{"httpAgent / httpsAgent (a timer on each socket until it connects)", "timeout", "signal: AbortSignal.timeout"}, loop),
			[]string{"axios has no total timeout", "axios has no connect timeout"}, []string{"const ATTEMPTS = 1;", "retrying could do it twice", "const RETRY_UNKNOWN = false;"}},
		{Fetch, "get", get, cat([]string{"signal: AbortSignal.timeout", "signal: idleWatchdog (AbortSignal.any with the total)"}, loop, backoff),
			[]string{"fetch has no timeout of its own", "fetch has no read timeout", "fetch has no connect timeout", "fetch does not retry"}, []string{"AbortSignal.any([total, idle.signal])"}},
		{Fetch, "no read", noRead, cat([]string{"signal: AbortSignal.timeout"}, loop, backoff),
			[]string{"fetch has no timeout of its own", "fetch has no connect timeout", "fetch does not retry"}, []string{"signal: total,"}},
		{Fetch, "job", job, []string{"signal: AbortSignal.timeout", "signal: idleWatchdog (AbortSignal.any with the total)", "ATTEMPTS (the retry loop)"},
			[]string{"fetch has no timeout of its own", "fetch has no read timeout", "fetch has no connect timeout", "a queue job's retries"}, []string{"const BUDGET_MS = Infinity;", "1 attempt per run"}},
		{Guzzle, "get", get, []string{"connect_timeout", "timeout", "Middleware::retry (the decider's ATTEMPTS)", "BUDGET_S (the decider's and the middleware's deadline)", "Middleware::retry (the delay: fullJitterMs)", "retryAfterMs"},
			[]string{"Guzzle under curl has no read timeout", "Guzzle keeps no deadline"}, []string{"'connect_timeout' => CONNECT_S,", "'timeout' => TIMEOUT_S,", "Middleware::retry($decider"}},
		{Guzzle, "no read, no connect", Input{URL: fixtureURL, Method: "GET", Rec: func() profile.Recommendation { r := noRead.Rec; r.ConnectTimeoutMs = 0; return r }()},
			[]string{"timeout", "Middleware::retry (the decider's ATTEMPTS)", "BUDGET_S (the decider's and the middleware's deadline)", "Middleware::retry (the delay: fullJitterMs)", "retryAfterMs"},
			[]string{"Guzzle keeps no deadline"}, []string{"'timeout' => TIMEOUT_S,"}},
		{Laravel, "get", get, []string{"connectTimeout", "timeout", "retry (times)", "retry (sleep closure, when callback)", "withMiddleware (each attempt's timeout)"},
			[]string{"Laravel's HTTP client has no read timeout", "Laravel keeps no deadline", "Laravel throws one ConnectionException"}, []string{"->retry(2, ", "throw: false", "->connectTimeout(0.3)"}},
		{Laravel, "post without key", nokey, []string{"connectTimeout", "timeout", "retry (times)", "withMiddleware (each attempt's timeout)"},
			[]string{"Laravel's HTTP client has no read timeout", "Laravel keeps no deadline"}, []string{"->retry(1, "}},
		{Laravel, "job", job, []string{"connectTimeout", "timeout", "$tries", "$maxExceptions", "$timeout", "backoff()", "retryUntil()", "retry_after (config/queue.php, a comment)"},
			[]string{"Laravel's HTTP client has no read timeout", "the queue's retry_after"}, []string{"public int $tries = 6;", "public int $timeout = 5;", "[10, 30, 90, 270, 600]", "addSeconds(1280)", "retry_after (config/queue.php) must exceed $timeout: 90 s"}},
		{OkHttp, "get", get, cat(okhttp, loop, []string{"fullJitterMs", "retryAfterMs"}),
			[]string{"OkHttp has no retry policy"}, []string{".callTimeout(Duration.ofMillis(TIMEOUT_MS))", ".retryOnConnectionFailure(false)"}},
		{OkHttp, "no read", noRead, cat(okhttp, loop, []string{"fullJitterMs", "retryAfterMs"}),
			[]string{"OkHttp has no retry policy"}, []string{".readTimeout(Duration.ZERO)"}},
		{OkHttp, "post without key", nokey, cat(okhttp, loop), nil, []string{"static final int ATTEMPTS = 1;"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.target)+" "+tt.name, func(t *testing.T) {
			e, err := Emit(tt.target, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var knobs []string
			for _, s := range e.Settings {
				knobs = append(knobs, s.Knob)
				if s.Value == "" || s.Bounds == "" {
					t.Errorf("setting %q: value %q, bounds %q: both must be said", s.Knob, s.Value, s.Bounds)
				}
			}
			if strings.Join(knobs, "|") != strings.Join(tt.knobs, "|") {
				t.Errorf("knobs:\n got %q\nwant %q", knobs, tt.knobs)
			}
			if len(e.Missing) != len(tt.missing) {
				t.Fatalf("missing: got %d %q, want %d starting %q", len(e.Missing), e.Missing, len(tt.missing), tt.missing)
			}
			for i, m := range e.Missing {
				if !strings.HasPrefix(m, tt.missing[i]) {
					t.Errorf("missing[%d] = %q, want it to start %q", i, m, tt.missing[i])
				}
			}
			for _, s := range tt.text {
				if !strings.Contains(e.Text, s) {
					t.Errorf("the program lacks %q", s)
				}
			}
		})
	}
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestFamilyLiterals: a URL is written as a literal each language reads back unchanged, and the
// programs holding an awkward one still pass their syntax check.
func TestFamilyLiterals(t *testing.T) {
	tests := []struct{ in, c, php string }{
		{"https://a.example/x", `"https://a.example/x"`, `'https://a.example/x'`},
		{`https://a.example/it's"q"\x`, `"https://a.example/it's\"q\"\\x"`, `'https://a.example/it\'s"q"\\x'`},
		{"https://a.example/é😀", `"https://a.example/\u00e9\ud83d\ude00"`, `'https://a.example/é😀'`},
		{"https://a.example/$x{y}", `"https://a.example/$x{y}"`, `'https://a.example/$x{y}'`},
		{"https://a.example/\n\r\x00", `"https://a.example/\n\r\u0000"`, "'https://a.example/\n\r\x00'"},
	}
	for _, tt := range tests {
		if got := cString(tt.in); got != tt.c {
			t.Errorf("cString(%q) = %s, want %s", tt.in, got, tt.c)
		}
		if got := phpString(tt.in); got != tt.php {
			t.Errorf("phpString(%q) = %s, want %s", tt.in, got, tt.php)
		}
	}
	for _, ft := range familyTargets {
		t.Run(string(ft.target), func(t *testing.T) {
			f := fixture{"quote", Input{URL: "https://a.example/it's\"q\"\\x/é/\\u000a/\n\r\x00\ufeff*/?>", Method: "GET", Rec: fixtureRec("GET", false)}}
			e := emitFixture(t, ft.target, f)
			dir := t.TempDir()
			name := map[string]string{"js": "call.js", "php": "call.php", "java": "PatienceCall.java"}[ft.ext]
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(e.Text), 0o644); err != nil {
				t.Fatal(err)
			}
			syntaxCheck(t, ft.ext, dir, path)
			for _, line := range strings.Split(e.Text, "\n") {
				if c := strings.TrimSpace(line); strings.HasPrefix(c, "//") && (strings.Contains(c, "?>") || strings.Contains(c, `\u`)) {
					t.Errorf("a comment line would end early (PHP's ?>, Java's \\u): %q", c)
				}
			}
		})
	}
}

// TestFamilyRefusals: what a target cannot write is an error, never a program.
func TestFamilyRefusals(t *testing.T) {
	jobNoDesign := fixtureJobRec()
	jobNoDesign.Job = nil
	noTimeout := fixtureRec("GET", false)
	noTimeout.TimeoutMs = 0
	tests := []struct {
		name   string
		target Target
		rec    profile.Recommendation
		want   string
	}{
		{"laravel job without a design", Laravel, jobNoDesign, "no job design"},
		{"no timeout", Axios, noTimeout, "no timeout to write"},
		{"no timeout", OkHttp, noTimeout, "no timeout to write"},
	}
	for _, tt := range tests {
		t.Run(string(tt.target)+" "+tt.name, func(t *testing.T) {
			_, err := Emit(tt.target, Input{URL: fixtureURL, Rec: tt.rec})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

// FuzzFamilyText: whatever the URL or method, the header stays comment lines (each starting
// `//`, none holding what ends a comment early in PHP or Java) and the literals hold no raw
// line break or control character; cString keeps every rune but the escaped ones.
func FuzzFamilyText(f *testing.F) {
	for _, s := range []string{fixtureURL, "https://a/\n?>\\u000a", "\x00\ufeff\r", "é😀\"'\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, line := range strings.Split(strings.TrimSuffix(slashComment([]string{s, "x " + s}), "\n"), "\n") {
			if !strings.HasPrefix(line, "// ") || strings.Contains(line, "?>") || strings.Contains(line, `\u`) {
				t.Fatalf("comment line %q", line)
			}
			for _, r := range line {
				if r < 0x20 || r == 0x7f || r == '\ufeff' {
					t.Fatalf("comment line %q holds %U", line, r)
				}
			}
		}
		c := cString(s)
		if !strings.HasPrefix(c, `"`) || !strings.HasSuffix(c, `"`) || len(c) < 2 {
			t.Fatalf("cString(%q) = %s", s, c)
		}
		for _, r := range c {
			if r < 0x20 || r > 0x7e {
				t.Fatalf("cString(%q) = %s holds %U", s, c, r)
			}
		}
		if p := phpString(s); readPHPString(p) != s {
			t.Fatalf("phpString(%q) = %s reads back as %q", s, p, readPHPString(p))
		}
	})
}

// readPHPString reads a single-quoted PHP literal as PHP does ("\x00" on a stray quote).
func readPHPString(p string) string {
	if len(p) < 2 || p[0] != '\'' || p[len(p)-1] != '\'' {
		return "\x00not a literal"
	}
	var b strings.Builder
	body := p[1 : len(p)-1]
	for i := 0; i < len(body); i++ {
		switch {
		case body[i] == '\\' && i+1 < len(body) && (body[i+1] == '\\' || body[i+1] == '\''):
			b.WriteByte(body[i+1])
			i++
		case body[i] == '\'':
			return "\x00a stray quote"
		default:
			b.WriteByte(body[i])
		}
	}
	return b.String()
}
