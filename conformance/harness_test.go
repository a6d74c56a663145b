package conformance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// The table: one row per preset and check, filled by the tests, printed by TestMain.
var (
	tableMu sync.Mutex
	table   = map[[2]string]bool{}
)

// record notes a preset × check verdict and fails t when the library and the preset differ.
func record(t *testing.T, preset, check string, agree bool, format string, args ...any) {
	t.Helper()
	tableMu.Lock()
	k := [2]string{preset, check}
	if prev, ok := table[k]; ok {
		agree = agree && prev
	}
	table[k] = agree
	tableMu.Unlock()
	if !agree {
		t.Errorf("%s / %s: differ: "+format, append([]any{preset, check}, args...)...)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	tableMu.Lock()
	keys := make([][2]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	var b strings.Builder
	w0, w1 := len("preset"), len("check")
	for _, k := range keys {
		w0, w1 = max(w0, len(k[0])), max(w1, len(k[1]))
	}
	fmt.Fprintf(&b, "%-*s  %-*s  %s\n", w0, "preset", w1, "check", "verdict")
	for _, k := range keys {
		v := "agree"
		if !table[k] {
			v = "DIFFER"
		}
		fmt.Fprintf(&b, "%-*s  %-*s  %s\n", w0, k[0], w1, k[1], v)
	}
	tableMu.Unlock()
	if len(keys) > 0 {
		fmt.Fprint(os.Stdout, b.String())
	}
	os.Exit(code)
}

// preset returns the named preset or fails.
func preset(t *testing.T, name string) *policy.Policy {
	t.Helper()
	p, ok := scenario.Preset(name)
	if !ok {
		t.Fatalf("no preset %s", name)
	}
	return p
}

// reply is one scripted answer of the loopback server.
type reply struct {
	status     int
	retryAfter string // Retry-After header ("" = none)
}

// outcome is what policy.Call sees for a reply.
func (r reply) outcome() policy.Outcome {
	if r.status < 400 {
		return policy.Outcome{Kind: policy.Success, Status: r.status}
	}
	return policy.Outcome{Kind: policy.Status, Status: r.status, RetryAfter: r.retryAfter}
}

// scriptServer answers the i-th request since the last reset with script[min(i, len−1)] and
// records when each arrived and with which method.
type scriptServer struct {
	*httptest.Server
	mu       sync.Mutex
	script   []reply
	arrivals []time.Time
	methods  []string
}

func newScriptServer(t *testing.T) *scriptServer {
	s := &scriptServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		i := len(s.arrivals)
		s.arrivals = append(s.arrivals, time.Now())
		s.methods = append(s.methods, r.Method)
		rep := s.script[min(i, len(s.script)-1)]
		s.mu.Unlock()
		if rep.retryAfter != "" {
			w.Header().Set("Retry-After", rep.retryAfter)
		}
		w.WriteHeader(rep.status)
	}))
	t.Cleanup(s.Close)
	return s
}

// run sets the script and forgets earlier arrivals.
func (s *scriptServer) run(script ...reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script, s.arrivals, s.methods = script, nil, nil
}

// gaps are the times between consecutive arrivals.
func (s *scriptServer) gaps() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var g []time.Duration
	for i := 1; i < len(s.arrivals); i++ {
		g = append(g, s.arrivals[i].Sub(s.arrivals[i-1]))
	}
	return g
}

func (s *scriptServer) attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.arrivals)
}

// schedule is what a policy does with a scripted sequence of outcomes: how many attempts, the
// bounds of each wait (lo with every draw at its minimum, hi at its maximum) and why it stopped.
type schedule struct {
	attempts int
	lo, hi   []time.Duration
	reason   string
}

// edgeSource is a rand.Source that always returns the same word: 1 makes every uniform draw
// its lower bound, all ones its upper bound.
type edgeSource uint64

func (e edgeSource) Uint64() uint64 { return uint64(e) }

// presetSchedule runs policy.Call under p on the script (the last reply repeats) with the
// draws at both ends. Waits do not advance the clock: a script has no deadline here.
func presetSchedule(p *policy.Policy, req policy.Request, wall time.Time, script ...reply) schedule {
	var sc schedule
	for pass, src := range []edgeSource{1, math.MaxUint64} {
		rng := rand.New(src)
		c := policy.NewCall(p, req, 0)
		var budget policy.RetryBudget
		if p.Budget != nil {
			budget = policy.NewRetryBudget(p.Budget)
		}
		for i := 0; ; i++ {
			d := c.Next(0, script[min(i, len(script)-1)].outcome(), budget, wall, rng)
			if !d.Retry {
				sc.attempts, sc.reason = c.Attempts(), d.Reason
				break
			}
			if pass == 0 {
				sc.lo = append(sc.lo, d.Wait)
			} else {
				sc.hi = append(sc.hi, d.Wait)
			}
			if i > 100 {
				break
			}
		}
	}
	return sc
}

// slack is how much later than the policy's longest wait a retry may arrive over loopback on
// a busy 2-core machine (the request's own round trip, scheduling). A retry can never arrive
// earlier than the shortest wait, so there is no slack below.
const slack = 400 * time.Millisecond

// gapsWithin checks observed gaps against a schedule's bounds.
func gapsWithin(gaps []time.Duration, sc schedule) (bool, string) {
	if len(gaps) != len(sc.lo) {
		return false, fmt.Sprintf("%d waits, preset %d", len(gaps), len(sc.lo))
	}
	for i, g := range gaps {
		if g < sc.lo[i] || g > sc.hi[i]+slack {
			return false, fmt.Sprintf("wait %d = %v, preset [%v, %v]", i+1, g, sc.lo[i], sc.hi[i])
		}
	}
	return true, ""
}

// sampleStats compares two samples of one delay: the library's and the preset's. They agree
// when the library's draws lie within the preset's support [lo, hi] (1ns rounding allowed) and
// the means differ by less than 5 standard errors of the difference (sqrt(s1²/n1 + s2²/n2)):
// a false alarm about once in 3.5 million runs, so the bound is never loosened to pass.
func sampleStats(lib, pre []time.Duration, lo, hi time.Duration) (bool, string) {
	m1, v1 := meanVar(lib)
	m2, v2 := meanVar(pre)
	se := math.Sqrt(v1/float64(len(lib)) + v2/float64(len(pre)))
	for _, d := range lib {
		if d < lo-time.Nanosecond || d > hi+time.Nanosecond {
			return false, fmt.Sprintf("library drew %v outside the preset's [%v, %v]", d, lo, hi)
		}
	}
	if math.Abs(m1-m2) > 5*se+1 {
		return false, fmt.Sprintf("mean %v vs preset %v (5·SE = %v)", time.Duration(m1), time.Duration(m2), time.Duration(5*se))
	}
	return true, ""
}

func meanVar(s []time.Duration) (float64, float64) {
	var sum, sq float64
	for _, d := range s {
		sum += float64(d)
	}
	m := sum / float64(len(s))
	for _, d := range s {
		sq += (float64(d) - m) * (float64(d) - m)
	}
	return m, sq / float64(max(len(s)-1, 1))
}

// presetWaits samples the preset's wait before retry n (1-based) after outcome o, nSamples
// times, from a seeded generator; the script before it is o repeated.
func presetWaits(p *policy.Policy, o policy.Outcome, n, nSamples int, seed uint64) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]time.Duration, 0, nSamples)
	for range nSamples {
		c := policy.NewCall(p, policy.Request{}, 0)
		var d policy.Decision
		for range n {
			d = c.Next(0, o, nil, time.Time{}, rng)
		}
		out = append(out, d.Wait)
	}
	return out
}
