package emit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/internal/golden"
	"github.com/patience-dev/patience/profile"
)

// pyGoCase is one fixed call the Python and Go targets are written for.
type pyGoCase struct {
	name string
	in   Input
}

// pyGoCases are the calls of the goldens: a GET from an interactive caller (two attempts), a
// POST with an Idempotency-Key (two attempts, the key reused), a POST without one (one
// attempt), a queue job (one attempt per run), and a recommendation with neither a connect nor
// a read timeout (the total bounds both).
func pyGoCases() []pyGoCase {
	rec := func(method string, key bool, attempts int) profile.Recommendation {
		read := 1200.0
		return profile.Recommendation{
			ConnectTimeoutMs: 1100, ReadTimeoutMs: &read, TimeoutMs: 2000,
			MaxAttempts: attempts, AttemptsFit: 2, BudgetMs: 5000, FitsBudget: true,
			Caller: profile.CallerInfo{Kind: profile.CallerInteractive, Method: method, IdempotencyKey: key, BudgetMs: 5000},
		}
	}
	job := rec("POST", true, 1)
	job.Caller = profile.CallerInfo{Kind: profile.CallerJob, Method: "POST", IdempotencyKey: true}
	job.Job = &profile.JobDesign{Tries: 6, BackoffMs: []float64{10000, 30000, 90000, 270000, 600000},
		Jitter: "proportional", JitterFactor: 0.25, TimeoutMs: 8000, RetryAfterMs: 90000, GiveUpAfterMs: 1298000}
	bare := rec("GET", false, 2)
	bare.ConnectTimeoutMs, bare.ReadTimeoutMs = 0, nil
	return []pyGoCase{
		{"get", Input{URL: "https://api.example.com/orders/42", Method: "GET", Rec: rec("GET", false, 2)}},
		{"post-key", Input{URL: "https://api.example.com/shipments", Method: "POST", Rec: rec("POST", true, 2)}},
		{"post-nokey", Input{URL: "https://api.example.com/charges", Method: "post", Rec: rec("POST", false, 1)}},
		{"job", Input{URL: "https://api.example.com/shipments", Method: "POST", Rec: job}},
		{"bare", Input{URL: "http://127.0.0.1:8080/orders/42?full=1", Rec: bare}},
	}
}

// emitted is the emission a golden holds: the program, then its settings and what is missing.
func emitted(e Emission) []byte {
	var b strings.Builder
	b.WriteString(e.Text)
	b.WriteString("\n----- settings -----\n")
	for _, s := range e.Settings {
		b.WriteString(s.Knob + " = " + s.Value + ": " + s.Bounds + "\n")
	}
	b.WriteString("----- missing -----\n")
	for _, m := range e.Missing {
		b.WriteString("- " + m + "\n")
	}
	return []byte(b.String())
}

func TestPythonGoGoldens(t *testing.T) {
	for _, target := range []Target{Requests, HTTPX, AIOHTTP, Go} {
		for _, c := range pyGoCases() {
			t.Run(string(target)+"/"+c.name, func(t *testing.T) {
				e, err := Emit(target, c.in)
				if err != nil {
					t.Fatal(err)
				}
				if e.Target != string(target) || e.Kind != string(KindCode) {
					t.Errorf("target %q kind %q, want %q code", e.Target, e.Kind, target)
				}
				golden.Assert(t, string(target)+"-"+c.name, emitted(e))
			})
		}
	}
}

// TestPythonGoSettingsMissing: what each target sets and what it says it lacks follows the
// library's semantics and the caller — requests and httpx always lack a total, aiohttp never;
// Go lacks a read timeout between body reads only when one is recommended; one attempt
// writes no retry knobs' complaint; a job's queue is always said to be missing.
func TestPythonGoSettingsMissing(t *testing.T) {
	tests := []struct {
		target      Target
		cases       []string // "" for every case
		knobs       []string // each must be set
		noKnobs     []string // none may be set
		missing     []string // each must start an entry of Missing
		noMissing   []string
		textHas     []string
		textHasNone []string
	}{
		{target: Requests, knobs: []string{"urllib3.Timeout(total=)", "TOTAL_TIMEOUT", "ATTEMPTS"}, missing: []string{"a total timeout: requests'"}},
		{target: HTTPX, knobs: []string{"httpx.Timeout(write=)", "httpx.Timeout(pool=)", "TOTAL_TIMEOUT"}, missing: []string{"a total timeout: httpx.Timeout's"}},
		{target: AIOHTTP, knobs: []string{"aiohttp.ClientTimeout(total=)"}, noKnobs: []string{"TOTAL_TIMEOUT"}, noMissing: []string{"a total timeout"}},
		{target: Go, knobs: []string{"http.Client.Timeout", "attempts"}, noMissing: []string{"a total timeout"}},

		{target: Requests, cases: []string{"get", "post-key"}, knobs: []string{"urllib3.Timeout(connect=)", "urllib3.Timeout(read=)", "BUDGET"},
			missing: []string{"retries with jitter and a deadline"}},
		{target: Go, cases: []string{"get", "post-key"}, knobs: []string{"net.Dialer.Timeout", "http.Transport.ResponseHeaderTimeout", "context.WithTimeout"},
			missing: []string{"a read timeout between two reads of the body", "a retry policy"}},
		{target: AIOHTTP, cases: []string{"get"}, knobs: []string{"aiohttp.ClientTimeout(sock_connect=)", "aiohttp.ClientTimeout(sock_read=)"},
			missing: []string{"retries: aiohttp has no retry layer"}},

		// A key: sent, and reused; none without one.
		{target: Requests, cases: []string{"post-key"}, knobs: []string{"Idempotency-Key"}, textHas: []string{`headers["Idempotency-Key"] = str(uuid.uuid4())`, "import uuid"}},
		{target: Go, cases: []string{"post-key"}, knobs: []string{"Idempotency-Key"}, textHas: []string{"key := idempotencyKey()", "bytes.NewReader(body)"}},
		{target: HTTPX, cases: []string{"get", "post-nokey"}, noKnobs: []string{"Idempotency-Key"}, textHasNone: []string{"uuid"}},

		// A POST without a key: one attempt, no retry complaint, timeouts not retried.
		{target: Requests, cases: []string{"post-nokey"}, textHas: []string{"ATTEMPTS = 1", "RETRY_UNKNOWN = False", "could do it twice", `METHOD = "POST"`},
			noMissing: []string{"retries"}},
		{target: Go, cases: []string{"post-nokey"}, textHas: []string{"attempts = 1", "retryUnknown = false"}, noMissing: []string{"a retry policy"}},

		// A job: one attempt per run, no budget, the queue's settings said.
		{target: Requests, cases: []string{"job"}, noKnobs: []string{"BUDGET"}, missing: []string{"requests makes one call per run and has no queue"},
			textHas: []string{"BUDGET = None", "ATTEMPTS = 1", "6 tries", "retry_after"}},
		{target: AIOHTTP, cases: []string{"job"}, missing: []string{"aiohttp makes one call per run"}, noMissing: []string{"retries"}},
		{target: Go, cases: []string{"job"}, noKnobs: []string{"context.WithTimeout"}, missing: []string{"net/http makes one call per run"},
			textHas: []string{"ctx := context.Background()"}, textHasNone: []string{"budget ="}},

		// Neither connect nor read recommended: no such knob, and the program says why.
		{target: Requests, cases: []string{"bare"}, noKnobs: []string{"urllib3.Timeout(connect=)", "urllib3.Timeout(read=)"},
			textHas: []string{"CONNECT_TIMEOUT = None", "READ_TIMEOUT = None", "the total bounds the connect"}},
		{target: Go, cases: []string{"bare"}, noKnobs: []string{"net.Dialer.Timeout", "http.Transport.ResponseHeaderTimeout"},
			noMissing: []string{"a read timeout"}, textHas: []string{"// No connect timeout:", "// No read timeout:"}, textHasNone: []string{"DialContext", "ResponseHeaderTimeout:"}},
	}
	for _, tt := range tests {
		for _, c := range pyGoCases() {
			if len(tt.cases) > 0 && !slices.Contains(tt.cases, c.name) {
				continue
			}
			e, err := Emit(tt.target, c.in)
			if err != nil {
				t.Fatalf("%s/%s: %v", tt.target, c.name, err)
			}
			knobs := map[string]bool{}
			for _, s := range e.Settings {
				knobs[s.Knob] = true
				if s.Value == "" || s.Bounds == "" {
					t.Errorf("%s/%s: setting %q has no value or no bounds: %+v", tt.target, c.name, s.Knob, s)
				}
			}
			for _, k := range tt.knobs {
				if !knobs[k] {
					t.Errorf("%s/%s: no setting %q", tt.target, c.name, k)
				}
			}
			for _, k := range tt.noKnobs {
				if knobs[k] {
					t.Errorf("%s/%s: setting %q, want none", tt.target, c.name, k)
				}
			}
			for _, m := range tt.missing {
				if !pyAnyPrefix(e.Missing, m) {
					t.Errorf("%s/%s: Missing has no %q: %q", tt.target, c.name, m, e.Missing)
				}
			}
			for _, m := range tt.noMissing {
				if pyAnyPrefix(e.Missing, m) {
					t.Errorf("%s/%s: Missing has %q, want none: %q", tt.target, c.name, m, e.Missing)
				}
			}
			for _, s := range tt.textHas {
				if !strings.Contains(e.Text, s) {
					t.Errorf("%s/%s: the program lacks %q", tt.target, c.name, s)
				}
			}
			for _, s := range tt.textHasNone {
				if strings.Contains(e.Text, s) {
					t.Errorf("%s/%s: the program has %q", tt.target, c.name, s)
				}
			}
		}
	}
}

// TestPythonKnobsOneComment: every knob constant of a Python program carries exactly one
// comment saying what it bounds, right above it.
func TestPythonKnobsOneComment(t *testing.T) {
	knobs := []string{"CONNECT_TIMEOUT", "READ_TIMEOUT", "TOTAL_TIMEOUT", "ATTEMPTS", "BUDGET", "BACKOFF_BASE", "BACKOFF_CAP", "RETRIED_STATUSES", "RETRY_UNKNOWN"}
	for _, target := range []Target{Requests, HTTPX, AIOHTTP} {
		for _, c := range pyGoCases() {
			e, err := Emit(target, c.in)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(e.Text, "\n")
			for _, k := range knobs {
				defs, comments := 0, 0
				for i, l := range lines {
					if !strings.HasPrefix(l, k+" = ") {
						continue
					}
					defs++
					if i > 0 && strings.HasPrefix(lines[i-1], "# ") {
						comments++
					}
				}
				mentions := strings.Count(e.Text, "# "+k+" ") + strings.Count(e.Text, "# No "+k+":")
				if defs != 1 || comments != 1 || mentions != 1 {
					t.Errorf("%s/%s: %s defined %d times, commented above %d, its comment written %d times; want 1 each", target, c.name, k, defs, comments, mentions)
				}
			}
		}
	}
}

// TestPythonCompiles: every emitted Python program compiles (py_compile) under the Debian
// interpreter the real-client test runs, whatever its URL and method hold; skipped, saying so,
// where the interpreter is absent.
func TestPythonCompiles(t *testing.T) {
	if _, err := os.Stat(debianPython); err != nil {
		t.Skipf("%s is absent: the emitted Python is not compiled here", debianPython)
	}
	dir := t.TempDir()
	// A URL and a method that would end a comment or a string if written raw.
	odd := pyGoCases()[0]
	odd.name, odd.in.URL, odd.in.Method = "odd", "http://h/\"x\"\n\rimport os\x00\xff\ufeff{y}", "PO'ST\n"
	for _, target := range []Target{Requests, HTTPX, AIOHTTP} {
		for _, c := range append(pyGoCases(), odd) {
			e, err := Emit(target, c.in)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "emitted_"+string(target)+"_"+strings.ReplaceAll(c.name, "-", "_")+".py")
			if err := os.WriteFile(path, []byte(e.Text), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			out, err := exec.CommandContext(ctx, debianPython, "-m", "py_compile", path).CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s/%s: py_compile: %v\n%s", target, c.name, err, out)
			}
		}
	}
}

func pyAnyPrefix(list []string, prefix string) bool {
	for _, x := range list {
		if strings.HasPrefix(x, prefix) {
			return true
		}
	}
	return false
}
