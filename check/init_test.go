package check

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/profile"
)

// TestStarterAttemptsAgreeWithPT004 runs what --init writes without a profile through check:
// an interactive caller gets at most one retry (profile.InteractiveAttempts, the seeds), fewer
// when the budget holds fewer, and the count is one PT004 accepts for the retry block written.
// The starter itself passes (its deadline equals the budget); with the deadline taken out,
// k attempts still pass, and where the budget limited k, k+1 raise PT004.
func TestStarterAttemptsAgreeWithPT004(t *testing.T) {
	maxAttempts := regexp.MustCompile(`(?m)^(\s+max_attempts: )(\d+)`)
	deadline := regexp.MustCompile(`(?m)^\s+deadline: .*\n`)
	// The recommended preset's 2s timeout: 2 attempts need 4.1s.
	for _, tt := range []struct {
		budget time.Duration
		method string
		want   int
	}{{3 * time.Second, "GET", 1}, {5 * time.Second, "GET", 2}, {30 * time.Second, "GET", 2}, {time.Minute, "POST", 1}} {
		t.Run(tt.budget.String()+" "+tt.method, func(t *testing.T) {
			data, err := Starter(StarterOptions{Budget: tt.budget, Method: tt.method})
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			m := maxAttempts.FindStringSubmatch(text)
			if m == nil {
				t.Fatalf("no max_attempts in\n%s", text)
			}
			k, _ := strconv.Atoi(m[2])
			if k != tt.want {
				t.Errorf("max_attempts: %d, want %d", k, tt.want)
			}
			res := runYAML(t, text, Options{FailOn: SeverityWarning})
			if ids := ruleIDs(res); len(ids) != 0 {
				t.Errorf("the starter has findings %v\n%s", ids, text)
			}
			// Issue 23: the starter states every field whose default decides a rule.
			for _, c := range res.Checked {
				if len(c.Assumed) > 0 {
					t.Errorf("the starter leaves %s to defaults:\n%s", AssumedText(c.Assumed), text)
				}
			}
			bare := deadline.ReplaceAllString(text, "")
			if bare == text {
				t.Fatalf("the starter's deadline line moved:\n%s", text)
			}
			if ids := ruleIDs(runYAML(t, bare, Options{})); slices.Contains(ids, "PT004") {
				t.Errorf("%d attempts raise PT004 without the deadline:\n%s", k, bare)
			}
			if k >= profile.InteractiveAttempts || tt.method != "GET" {
				return // capped by the caller's rules, not the budget
			}
			more := maxAttempts.ReplaceAllString(bare, "${1}"+fmt.Sprint(k+1))
			if ids := ruleIDs(runYAML(t, more, Options{})); !slices.Contains(ids, "PT004") {
				t.Errorf("%d attempts fit the %s budget too, but --init wrote %d:\n%s", k+1, tt.budget, k, more)
			}
		})
	}
}

// TestProbeAdviceStarterPasses is the property of issue 11 item 1 on check's side: for many
// generated profiles (fast targets, slow ones, long tails, few samples) and callers (budgets
// from tiny to generous, GET, POST with and without a key, jobs), what probe recommends —
// profile.Recommend over the profile, written by `check --init --profile` — passes `check` at
// warning level with no finding, PT010 reading the same profile. A budget that cannot hold one
// call gets the queue design, as probe advises. Seeded, bounded in time: part of go test.
func TestProbeAdviceStarterPasses(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	dir := t.TempDir()
	cases := 250
	if testing.Short() {
		cases = 60
	}
	deadline := time.Now().Add(20 * time.Second)
	budgets := []time.Duration{0, 50 * time.Millisecond, 300 * time.Millisecond, time.Second, 3 * time.Second, 10 * time.Second, time.Minute}
	for i := 0; i < cases && time.Now().Before(deadline); i++ {
		if failures := t.Failed(); failures && i > 0 && i%20 == 0 {
			t.Fatalf("stopping after the failures above")
		}
		base := []float64{0.3, 2, 15, 80, 400, 1500, 6000}[rng.IntN(7)] // median latency, ms
		spread := 1 + rng.Float64()*3                                   // lognormal σ-ish
		n := []int{50, 400, 1200, 4000}[rng.IntN(4)]
		connectMs := []float64{0.05, 1, 20, 400}[rng.IntN(4)]
		caller := profile.Caller{Budget: budgets[rng.IntN(len(budgets))], Method: []string{"GET", "POST", "PUT"}[rng.IntN(3)], IdempotencyKey: rng.IntN(2) == 0}
		if rng.IntN(5) == 0 {
			caller.Kind = profile.CallerJob
			caller.Budget = []time.Duration{0, 2 * time.Hour}[rng.IntN(2)]
		}
		good := hdrhistogram.New(1, 3_600_000_000, 3)
		for j := 0; j < n; j++ {
			v := base * math.Exp(rng.NormFloat64()*math.Log(spread)/2)
			if rng.IntN(200) == 0 {
				v *= 5 + rng.Float64()*20 // a long tail
			}
			_ = good.RecordValue(max(int64(v*1000), 1))
		}
		connect := hdrhistogram.New(1, 3_600_000_000, 3)
		for j := 0; j < n/4+1; j++ {
			_ = connect.RecordValue(max(int64(connectMs*1000*(0.5+rng.Float64())), 1))
		}
		goodEnc, err := profile.EncodeHistogram(good)
		if err != nil {
			t.Fatal(err)
		}
		connectEnc, err := profile.EncodeHistogram(connect)
		if err != nil {
			t.Fatal(err)
		}
		res := &profile.Profile{Schema: profile.Schema, Requests: int64(n), Responses: int64(n),
			Status: map[string]int64{"200": int64(n)}, Errors: map[string]int64{"timeout": 0},
			MaxTimeoutMs: 30000, Histogram: goodEnc, Histograms: map[string]string{profile.SeriesGood: goodEnc, profile.SeriesConnect: connectEnc}}
		ev, err := res.Evidence()
		if err != nil {
			t.Fatal(err)
		}
		res.Recommendation = profile.Recommend(ev, caller, profile.RecommendOptions{})
		name := fmt.Sprintf("case %d: median %gms ×%.2g, n=%d, connect %gms, %s %s budget %s key %t", i, base, spread, n, connectMs, caller.Kind, caller.Method, caller.Budget, caller.IdempotencyKey)
		if res.Recommendation.TimeoutMs <= 0 {
			continue // nothing recommended (beyond --max-timeout): nothing to write
		}
		saved := filepath.Join(dir, fmt.Sprintf("probe-%d.json", i))
		if err := profile.Save(saved, res); err != nil {
			t.Fatal(err)
		}
		data, err := Starter(StarterOptions{Profile: saved, Budget: caller.Budget, Method: caller.Method, IdempotencyKey: caller.IdempotencyKey, Caller: caller.Kind})
		if err != nil {
			t.Errorf("%s: --init --profile: %v", name, err)
			continue
		}
		path := filepath.Join(dir, fmt.Sprintf("patience-%d.yaml", i))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := LoadFile(path)
		if err != nil {
			t.Errorf("%s: the starter does not load: %v\n%s", name, err, data)
			continue
		}
		out, err := Run(context.Background(), []*File{f}, Options{FailOn: SeverityWarning})
		if err != nil {
			t.Errorf("%s: check: %v", name, err)
			continue
		}
		for _, c := range out.Checked {
			if len(c.Assumed) > 0 {
				t.Errorf("%s: the starter leaves %s to defaults (issue 23: it states them)\n%s", name, AssumedText(c.Assumed), data)
			}
		}
		if len(out.Findings) > 0 {
			var lines []string
			for _, fd := range out.Findings {
				lines = append(lines, fmt.Sprintf("%d %s: %s (fix: %s)", fd.Line, fd.Rule, fd.Message, fd.Fix))
			}
			t.Errorf("%s: probe's advice fails check:\n%s\n%s", name, strings.Join(lines, "\n"), data)
		}
	}
}

// TestStarterFromProfileWritesAdvice: a fast GET target in a 3s budget gets probe's advice —
// one retry, no separate connect timeout below the lost-SYN floor (PT002 agrees) — and a POST
// without a key one attempt.
func TestStarterFromProfileWritesAdvice(t *testing.T) {
	good := hdrhistogram.New(1, 3_600_000_000, 3)
	for i := 0; i < 2000; i++ {
		_ = good.RecordValue(int64(80_000 + i*10)) // 80–100ms
	}
	enc, err := profile.EncodeHistogram(good)
	if err != nil {
		t.Fatal(err)
	}
	res := &profile.Profile{Schema: profile.Schema, Requests: 2000, Responses: 2000, Status: map[string]int64{"200": 2000}, Errors: map[string]int64{"timeout": 0},
		MaxTimeoutMs: 30000, Histogram: enc, Histograms: map[string]string{profile.SeriesGood: enc}}
	path := filepath.Join(t.TempDir(), "probe.json")
	if err := profile.Save(path, res); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		method string
		want   []string
	}{
		{"GET", []string{"timeout: 150ms", "# connect_timeout: none", "max_attempts: 2 ", "budget: 3s", "deadline: 3s", "profile: "}},
		{"POST", []string{"max_attempts: 1 ", "non_idempotent: never"}},
	} {
		data, err := Starter(StarterOptions{Profile: path, Budget: 3 * time.Second, Method: tt.method})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range tt.want {
			if !strings.Contains(string(data), want) {
				t.Errorf("%s starter lacks %q:\n%s", tt.method, want, data)
			}
		}
	}
}

// TestStarterAttemptsCommentMatchesValue: the comment beside max_attempts says what the value
// does (issue 26: `--init --budget 3s` wrote "max_attempts: 1  # … retries at most once"): one
// attempt is no retry, two are one retry.
func TestStarterAttemptsCommentMatchesValue(t *testing.T) {
	line := regexp.MustCompile(`(?m)^\s+max_attempts: (\d+)\s+# (.*)$`)
	for _, tt := range []struct {
		budget time.Duration
		method string
	}{{3 * time.Second, "GET"}, {4 * time.Second, "GET"}, {5 * time.Second, "GET"}, {30 * time.Second, "GET"}, {time.Minute, "POST"}, {time.Second, "GET"}} {
		t.Run(tt.budget.String()+" "+tt.method, func(t *testing.T) {
			data, err := Starter(StarterOptions{Budget: tt.budget, Method: tt.method})
			if err != nil {
				t.Fatal(err)
			}
			m := line.FindStringSubmatch(string(data))
			if m == nil {
				t.Fatalf("no commented max_attempts in\n%s", data)
			}
			k, comment := m[1], m[2]
			retries := strings.Contains(comment, "one retry") || strings.Contains(comment, "retries at most once")
			switch {
			case k == "1" && retries:
				t.Errorf("max_attempts: 1 (no retry) with the comment %q", comment)
			case k == "2" && !retries:
				t.Errorf("max_attempts: 2 (one retry) with the comment %q", comment)
			case k == "1" && !strings.Contains(comment, "no retry") && !strings.Contains(comment, "Idempotency-Key") && !strings.Contains(comment, "WARNING"):
				t.Errorf("max_attempts: 1 with the comment %q: say there is no retry, and why", comment)
			}
		})
	}
}

// readTimeoutLine writes probe's read timeout only where it bounds something the timeout
// does not (below it), and says why not otherwise; what it writes reads back as the value.
func TestReadTimeoutLine(t *testing.T) {
	for _, tc := range []struct {
		read, timeout time.Duration
		want          string
	}{
		{0, 2 * time.Second, "# read_timeout: none "},
		{800 * time.Millisecond, 2 * time.Second, "read_timeout: 800ms "},
		{2 * time.Second, 2 * time.Second, "# read_timeout: none "},
	} {
		got := strings.TrimSpace(readTimeoutLine(tc.read, tc.timeout))
		if !strings.HasPrefix(got, strings.TrimSpace(tc.want)) {
			t.Errorf("read %v timeout %v: %q, want it to start %q", tc.read, tc.timeout, got, tc.want)
		}
	}
	// Written below the timeout, it is a policy check accepts without PT015.
	data := "dependencies:\n  - name: api\n    caller: {kind: interactive, budget: 3s}\n    policy:\n      timeout: 2s\n" +
		readTimeoutLine(800*time.Millisecond, 2*time.Second) + "\n"
	res := runYAML(t, data, Options{FailOn: SeverityWarning})
	for _, id := range ruleIDs(res) {
		if id == "PT015" || id == "PT002" {
			t.Errorf("finding %s for a read timeout below the timeout\n%s", id, data)
		}
	}
	// At the timeout, it would be PT015: the line is a comment, and a written one fires.
	res = runYAML(t, strings.Replace(data, "read_timeout: 800ms", "read_timeout: 2s", 1), Options{FailOn: SeverityWarning})
	if !slices.Contains(ruleIDs(res), "PT015") {
		t.Errorf("read_timeout at the timeout: findings %v, want PT015", ruleIDs(res))
	}
}
