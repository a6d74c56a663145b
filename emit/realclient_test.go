package emit

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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
// target), behind a relay that stamps the program's first connection, and returns the URL
// and the relay.
func serveTarget(t *testing.T, fault string) (string, *relay) {
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
	r := startRelay(t, s.Addr().String())
	return "http://" + r.ln.Addr().String() + "/orders/42", r
}

// relay is a loopback TCP relay to a target that stamps the first connection it accepts: a
// program's wait is timed from its first contact with the target, not from its start — an
// interpreter loading its library (0.1 to 3 s on a loaded machine, measured) is not the
// client's wait, and no clock inside the program is trusted.
type relay struct {
	ln    net.Listener
	first atomic.Int64 // UnixNano of the first accepted connection; 0 before it
	mu    sync.Mutex
	conns []net.Conn
}

func startRelay(t *testing.T, target string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln}
	go r.accept(target)
	t.Cleanup(r.close)
	return r
}

func (r *relay) accept(target string) {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.first.CompareAndSwap(0, time.Now().UnixNano())
		d, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			continue
		}
		r.mu.Lock()
		r.conns = append(r.conns, c, d)
		r.mu.Unlock()
		go pipe(d, c)
		go pipe(c, d)
	}
}

// pipe copies until either side ends, then closes both: a program that gives up closes its
// connection, and the target's side goes with it.
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

func (r *relay) close() {
	r.ln.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Close()
	}
}

// since is how long ago at was measured from the first contact; false before any.
func (r *relay) since(at time.Time) (time.Duration, bool) {
	first := r.first.Load()
	if first == 0 {
		return 0, false
	}
	return at.Sub(time.Unix(0, first)), true
}

// giveUpBound is the longest an emitted program may wait for a target that never answers in
// time, from its first contact with the target to its exit: the recommendation's worst case
// for its attempts (every attempt timing out, every backoff at its jitter bound), never more
// than the budget, +10% +100 ms.
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
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					url, rl := serveTarget(t, tc.fault)
					in := Input{URL: url, Method: "GET", Rec: realRecommendation("GET")}
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
					exited, out, err := runProgram(dir, argv, bound+30*time.Second)
					elapsed, contacted := rl.since(exited)
					if tc.wantOK {
						if err != nil {
							t.Fatalf("healthy target: %v after %v\n%s", err, elapsed, out)
						}
						t.Logf("%s healthy: succeeded %v after its first contact", c.target, elapsed.Round(time.Millisecond))
						return
					}
					if !contacted {
						t.Fatalf("%s: the program never connected to the target (%v)\n%s", tc.name, err, out)
					}
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

// runProgram runs argv in dir, killed after limit, and returns when it exited.
func runProgram(dir string, argv []string, limit time.Duration) (time.Time, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return time.Now(), string(out), err
}

// TestRealClientsCover: every code target issue 27 item 6 names is proven in its real library
// (requests, httpx, Guzzle, axios, fetch, Go), and so are aiohttp and OkHttp, whose libraries
// Debian packages too. Laravel needs the framework, which no package here provides: its text
// is checked by php -l only.
func TestRealClientsCover(t *testing.T) {
	have := map[Target]bool{}
	for _, c := range realClients {
		have[c.target] = true
	}
	for _, w := range writers {
		if w.kind != KindCode || w.target == Laravel {
			continue
		}
		if !have[w.target] {
			t.Errorf("%s has no real-client row", w.target)
		}
	}
}
