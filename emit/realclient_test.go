package emit

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/scenario"
)

// The real-client test (issue 27 item 6): each code target's emitted program runs in the real
// library against serve on loopback — a hang and a drip give up within the recommended worst
// case (+10% +100 ms), a healthy target succeeds. It needs the runtimes and libraries, which
// .ci/run installs (Debian's python3-requests, python3-httpx, php-cli with
// php-guzzlehttp-guzzle, axios from npm, Node's fetch, Go) and then sets
// PATIENCE_REALCLIENTS=1: with it, a missing runtime fails the test; without it, the test
// skips, saying what is missing. It measures wall-clock give-up times, so it runs where
// .ci/run asks for it, like the probe's accuracy tests.

// realClient says how to run one code target's program: the file name it is written to and
// the command that runs it (the file's path is the last argument).
type realClient struct {
	target Target
	file   string
	// command is the program and its arguments before the file; check lists what must be
	// present (a binary on PATH, an import that must succeed) with the command that shows it.
	command []string
	check   [][]string
	// setup prepares dir before the program runs (npm's node_modules, composer's
	// vendor/autoload.php); nil for none.
	setup func(t *testing.T, dir string)
	// build, when set, turns the written file into the command to run, outside the timed
	// run (Go compiles the program first); nil runs command with the file's path.
	build func(t *testing.T, dir, path string) []string
}

// realClients lists the targets proven in their real library. Each target's file adds its
// row in its own test file through addRealClient (init order does not matter: the test
// sorts by target).
var realClients []realClient

func addRealClient(c realClient) { realClients = append(realClients, c) }

// realRecommendation is the recommendation every real client runs: a 300 ms connect, a
// 400 ms read and an 800 ms total timeout, two attempts within a 2 s budget — short enough
// for a fast test, long enough that a loaded machine does not fail a healthy call.
func realRecommendation(method string) profile.Recommendation {
	read := 400.0
	return profile.Recommendation{
		ConnectTimeoutMs: 300,
		ReadTimeoutMs:    &read,
		TimeoutMs:        800,
		MaxAttempts:      2,
		AttemptsFit:      2,
		BudgetMs:         2000,
		FitsBudget:       true,
		Caller:           profile.CallerInfo{Kind: profile.CallerInteractive, Method: method, BudgetMs: 2000},
	}
}

// serveTarget starts serve on loopback with one fault on every request ("" for a healthy
// target) and returns its URL.
func serveTarget(t *testing.T, fault string) string {
	t.Helper()
	y := "target:\n  latency: {fixed: 5ms}\n"
	if fault != "" {
		y += "  phases:\n    - {at: 0s, for: 10m, faults: [" + fault + "]}\n"
	}
	sc, err := scenario.ParseFor([]byte(y), "real-client.yaml", scenario.ForServe)
	if err != nil {
		t.Fatal(err)
	}
	s := live.NewServer(sc, live.ServerOptions{})
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(time.Second) })
	return s.URL() + "/orders/42"
}

// giveUpBound is the longest an emitted program may wait for a target that never answers in
// time: the recommendation's worst case for its attempts (every attempt timing out, every
// backoff at its jitter bound), never more than the budget, +10% +100 ms. The program's own
// start (an interpreter loading its library) is not the client's wait: the test measures it
// side by side, as the same program's run against the healthy target, and adds it.
func giveUpBound(in Input) time.Duration {
	r := in.Retry()
	worst := r.WorstCase(in.Rec.MaxAttempts, in.Timeout())
	if b := in.Budget(); b > 0 && b < worst {
		worst = b
	}
	return worst + worst/10 + 100*time.Millisecond
}

func TestRealClients(t *testing.T) {
	required := os.Getenv("PATIENCE_REALCLIENTS") == "1"
	cases := []struct {
		name   string
		fault  string
		wantOK bool
	}{
		{"healthy", "", true},
		{"hang", "{hang: 100%}", false},
		// A byte every 250 ms: each silence is inside the 400 ms read timeout, so only a
		// total bounds the wait (64 bytes take 16 s).
		{"drip", "{drip: 100%, every: 250ms, bytes: 1, size: 64}", false},
	}
	for _, c := range realClients {
		t.Run(string(c.target), func(t *testing.T) {
			if missing := missingRuntime(c); missing != "" {
				if required {
					t.Fatalf("PATIENCE_REALCLIENTS=1 and %s is missing: %s", c.target, missing)
				}
				t.Skipf("%s is missing (%s); .ci/run installs it and sets PATIENCE_REALCLIENTS=1", c.target, missing)
			}
			if !required {
				t.Skip("measures wall-clock give-up times: runs where .ci/run sets PATIENCE_REALCLIENTS=1")
			}
			dir := t.TempDir()
			if c.setup != nil {
				c.setup(t, dir)
			}
			var startup time.Duration // the healthy run: the program's start and one quick call
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					in := Input{URL: serveTarget(t, tc.fault), Method: "GET", Rec: realRecommendation("GET")}
					e, err := Emit(c.target, in)
					if err != nil {
						t.Fatal(err)
					}
					path := filepath.Join(dir, c.file)
					if err := os.WriteFile(path, []byte(e.Text), 0o644); err != nil {
						t.Fatal(err)
					}
					argv := append(append([]string{}, c.command...), path)
					if c.build != nil {
						argv = c.build(t, dir, path)
					}
					bound := giveUpBound(in)
					elapsed, out, err := runProgram(dir, argv, startup+bound+10*time.Second)
					if tc.wantOK {
						if err != nil {
							t.Fatalf("healthy target: %v after %v\n%s", err, elapsed, out)
						}
						startup = elapsed
						t.Logf("%s healthy: succeeded in %v (the program's start, taken off the others)", c.target, elapsed.Round(time.Millisecond))
						return
					}
					if startup == 0 {
						t.Fatal("the healthy run did not succeed: no start-up time to measure against")
					}
					elapsed -= startup
					var exit *exec.ExitError
					if !errors.As(err, &exit) {
						t.Fatalf("%s: want a non-zero exit, got %v after %v\n%s", tc.name, err, elapsed, out)
					}
					if elapsed > bound {
						t.Errorf("%s: gave up after %v, want within %v (the worst case of %d attempts of %v, +10%% +100 ms)\n%s",
							tc.name, elapsed.Round(time.Millisecond), bound, in.Rec.MaxAttempts, in.Timeout(), out)
					}
					t.Logf("%s %s: gave up after %v (bound %v)", c.target, tc.name, elapsed.Round(time.Millisecond), bound)
				})
			}
		})
	}
}

// missingRuntime names the first thing c needs that this machine lacks ("" when all is there).
func missingRuntime(c realClient) string {
	if _, err := exec.LookPath(c.command[0]); err != nil {
		return c.command[0] + " not on PATH"
	}
	for _, chk := range c.check {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := exec.CommandContext(ctx, chk[0], chk[1:]...).CombinedOutput()
		cancel()
		if err != nil {
			return strings.Join(chk, " ") + ": " + strings.TrimSpace(string(out))
		}
	}
	return ""
}

// runProgram runs argv in dir, killed after limit, and returns how long it ran.
func runProgram(dir string, argv []string, limit time.Duration) (time.Duration, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	return time.Since(start), string(out), err
}
