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
