package conformance

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/patience-dev/patience/live"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// Part (b) of the conformance check: the real client of each library, over loopback, against
// `patience serve`'s fault server (live.NewServer, in-process), compared with `patience replay`
// of the same scenario under the library's preset, simulated (sim.Run) and live (live.Replay).
//
// Every scenario is a burst of serveRequests POSTs (no Idempotency-Key) at t=0 against a
// target that answers after a fixed 20ms and, from t=0 on, injects one kind of fault. The
// real client sends each logical request's Patience-Logical-Id and each attempt's index
// (Patience-Attempt), so the server draws that attempt's fault and service time from the
// simulator's stream for it: the real client, the simulation and the live replay meet the
// same faults (common random numbers). The tolerances below do not rely on that: they are
// those of two independent samples of serveRequests requests.
//
// Time is compressed: the server runs at the library's speed S (scenario durations ÷ S in
// real time), and the real library's own waits are divided by S (retryablehttp's Backoff,
// aws's BackoffDelayer, cenkalti's BackOff and clock are wrapped; their values are the
// library's). Retry-After is written by the server in scenario seconds, which is what the
// library reads, so dividing its result by S keeps it in step. Real latencies × S are
// scenario latencies.

// serveRequests is the number of logical requests per scenario.
const serveRequests = 40

// z is the number of standard errors a difference may reach: about one false alarm in 1.7
// million comparisons for a normal statistic. It is never raised to make a check pass.
const z = 5

// serviceTime is the target's latency (target.latency fixed) for a request it serves; a
// status fault answers at once.
const serviceTime = 20 * time.Millisecond

// faultCase is one scenario of part (b).
type faultCase struct {
	name   string
	faults string // YAML flow sequence of the phase's faults
	// drain after the burst: long enough for the slowest give-up, or the observation window
	// of a hanging target.
	drain time.Duration
	// dateWaits: each honoured wait is read from an HTTP-date (one-second resolution).
	date bool
}

// hangDrain is how long a hanging target is watched (scenario time): at the highest speed
// used, 100ms of real time.
const hangDrain = 50 * time.Second

func faultCases(giveUp time.Duration) []faultCase {
	// Twice the give-up: the real client's waits run on a busy machine's wall clock.
	d := 2*giveUp + time.Minute
	return []faultCase{
		{name: "always 503", faults: `[{status: 503}]`, drain: d},
		{name: "429 Retry-After 1 (delay-seconds)", faults: `[{status: 429, retry_after: 1s}]`, drain: d},
		{name: "429 Retry-After HTTP-date +2s", faults: `[{status: 429, retry_after: {date: +2s}}]`, drain: d, date: true},
		{name: "500 with Retry-After 1", faults: `[{status: 500, retry_after: 1s}]`, drain: d},
		{name: "a share of 500s (40%)", faults: `[{status: 500, percent: 40%}]`, drain: d},
		{name: "hanging target", faults: `[{hang: 100%}]`, drain: hangDrain},
		{name: "POST without a key, 30% reset after the charge", faults: `[{reset: 30%}]`, drain: d},
	}
}

// serveScenario is the scenario of a case under one preset.
func serveScenario(t *testing.T, presetName string, fc faultCase) *scenario.Scenario {
	t.Helper()
	y := fmt.Sprintf(`name: conformance
seed: 42
duration: 1s
drain: %s
load:
  clients: 1
  burst: %d
  request: {method: POST, path: /v1/charges}
target:
  latency: {fixed: 20ms}
  phases:
    - name: fault
      at: 0s
      for: 24h
      faults: %s
policies:
  - preset:%s
`, fc.drain, serveRequests, fc.faults, presetName)
	sc, err := scenario.Parse([]byte(y), "conformance.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	return sc
}

// attemptCounter is the real client's transport wrapper: it numbers the attempts of each
// logical request (Patience-Attempt), counts them, and measures what each round trip cost
// beyond the model's service time (connection setup, loopback, scheduling on a busy
// machine: the "excess", which the simulation does not have). It changes nothing else.
type attemptCounter struct {
	next   http.RoundTripper
	speed  float64
	mu     sync.Mutex
	n      map[string]int
	excess map[string]time.Duration // scenario time
	model  map[string]time.Duration // the model's time of the attempts made
	each   []time.Duration          // every attempt's excess
}

func newAttemptCounter(next http.RoundTripper, speed float64) *attemptCounter {
	return &attemptCounter{next: next, speed: speed, n: map[string]int{}, excess: map[string]time.Duration{}, model: map[string]time.Duration{}}
}

func (a *attemptCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	id := r.Header.Get(live.LogicalIDHeader)
	a.mu.Lock()
	j := a.n[id]
	a.n[id]++
	a.mu.Unlock()
	r2 := r.Clone(r.Context())
	r2.Header.Set(live.AttemptHeader, strconv.Itoa(j))
	t0 := time.Now()
	resp, err := a.next.RoundTrip(r2)
	took := time.Duration(float64(time.Since(t0)) * a.speed)
	// The model's time for this attempt: the service time when the target served it (a 2xx,
	// or the reset that follows the side effect), nothing for a status fault. A hang is
	// cancelled at the horizon: its time is the model's too.
	var model time.Duration
	switch {
	case err != nil && r.Context().Err() != nil:
		model = took
	case err != nil || resp.StatusCode < 300:
		model = serviceTime
	}
	a.mu.Lock()
	a.excess[id] += max(took-model, 0)
	a.model[id] += model
	a.each = append(a.each, max(took-model, 0))
	a.mu.Unlock()
	return resp, err
}

// libClient is a real library's client, built once per scenario (as an application would)
// with its waits divided by speed, sending through rt.
type libClient interface {
	// do sends one logical request (a POST with a JSON body, the logical id header set) and
	// says whether it ended in a 2xx.
	do(ctx context.Context, url, logicalID string) bool
}

// realRun is what the real client did: per logical request, attempts, success, latency
// (clamped to the horizon for requests still in flight there: "stuck", as a replay counts
// them) and its round trips' excess (scenario time); the server's duplicate count; the p99
// of every attempt's excess, which bounds what the machine costs between two attempts too
// (waking the library after its wait, rebuilding the request); and the p99 lateness of a
// 5ms timer during the run (scenario time), which every wait of the library may suffer.
type realRun struct {
	attempts   []int
	ok         []bool
	latency    []time.Duration
	excess     []time.Duration
	duplicates int
	perAttempt time.Duration
	lateness   time.Duration
}

// watchTimers measures the lateness of a 5ms timer until stop is closed; it returns the p99.
func watchTimers(stop <-chan struct{}) <-chan time.Duration {
	out := make(chan time.Duration, 1)
	go func() {
		var late []time.Duration
		const tick = 5 * time.Millisecond
		for {
			want := time.Now().Add(tick)
			select {
			case <-stop:
				slices.Sort(late)
				if len(late) == 0 {
					out <- 0
				} else {
					out <- late[min(len(late)*99/100, len(late)-1)]
				}
				return
			case now := <-time.After(tick):
				late = append(late, max(now.Sub(want), 0))
			}
		}
	}()
	return out
}

// runReal starts patience serve's server for sc at speed, sends the burst through the
// library's client and cancels what is still in flight at the end of the drain.
func runReal(t *testing.T, sc *scenario.Scenario, speed float64, build func(rt http.RoundTripper, speed float64) libClient) realRun {
	t.Helper()
	srv := live.NewServer(sc, live.ServerOptions{Speed: speed})
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop(time.Second)
	// One pool large enough for the burst, so an attempt does not pay for a new connection
	// because the pool kept too few (net/http keeps 2 per host by default): its cost is
	// measured anyway (excess), this only keeps it small.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2 * sc.Load.Burst
	defer tr.CloseIdleConnections()
	counter := newAttemptCounter(tr, speed)
	c := build(counter, speed)
	horizon := time.Duration(float64(sc.Duration+sc.Drain) / speed)
	ctx, cancel := context.WithTimeout(context.Background(), horizon)
	defer cancel()
	n := sc.Load.Burst
	rr := realRun{attempts: make([]int, n), ok: make([]bool, n), latency: make([]time.Duration, n), excess: make([]time.Duration, n)}
	stop := make(chan struct{})
	lateness := watchTimers(stop)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "lib:" + strconv.Itoa(i)
			rr.ok[i] = c.do(ctx, srv.URL()+sc.Load.Request.Path, id)
			rr.latency[i] = min(time.Duration(float64(time.Since(start))*speed), sc.Duration+sc.Drain)
			counter.mu.Lock()
			rr.attempts[i], rr.excess[i] = counter.n[id], counter.excess[id]
			counter.mu.Unlock()
		}()
	}
	wg.Wait()
	close(stop)
	rr.lateness = time.Duration(float64(<-lateness) * speed)
	slices.Sort(counter.each)
	rr.perAttempt = quantile(counter.each, 0.99)
	rr.duplicates = int(srv.Stats().DuplicatesByTag["lib"])
	return rr
}

// serveCompare runs one case: the real client, then the preset simulated and live, and
// records one row per replay mode.
func serveCompare(t *testing.T, presetName, label string, fc faultCase, speed float64, skipLive bool, build func(rt http.RoundTripper, speed float64) libClient) {
	sc := serveScenario(t, presetName, fc)
	real := runReal(t, sc, speed, build)
	simRes, err := sim.Run(context.Background(), sc, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var fid live.Fidelity
	liveRes, err := live.Replay(context.Background(), sc, live.Options{Speed: speed, Fidelity: &fid})
	if err != nil {
		t.Fatal(err)
	}
	liveLate := time.Duration(float64(fid.LatenessP99) * speed)
	for _, m := range []struct {
		mode string
		res  *replay.Result
	}{{"sim", simRes}, {"live", liveRes}} {
		if m.mode == "live" && skipLive {
			continue
		}
		ok, why := compareRun(real, m.res.Policies[0], m.mode == "live", liveLate, fc.date)
		record(t, presetName, "serve "+label+fc.name+" vs replay ("+m.mode+")", ok, "%s", why)
	}
}

// compareRun compares the real client's run with a replay's result for the same scenario
// (live: the replay ran on real sockets too):
//
//   - attempts per request: the means differ by at most z·sqrt(2·s²/n), s² the real
//     sample's variance (under agreement both samples have it): exact when attempts do not vary;
//   - success rate: binomial, |p₁ − p₂| ≤ z·sqrt(p̄(1−p̄)·2/n), exact when p̄ is 0 or 1;
//   - latency (the give-up latency where every request fails): the median. Its standard error
//     is read off the real sample's order statistics (the median's rank is Binomial(n, ½),
//     sd √n/2: half the spread between the order statistics n/2 ± √n/2), doubled in variance
//     for the replay's own sample, plus 0.2% for the replay's histogram precision. Against
//     the simulation, which has no sockets, each real latency first loses its round trips'
//     excess over the model's service time (measured by attemptCounter), and may then still
//     be later, per attempt, by one p99 timer lateness and one p99 attempt excess (both
//     measured during the run: what the machine costs between attempts). Against the
//     live replay, which pays a loopback cost of its own, the raw latencies are compared and
//     either may be later by the real run's 90th-percentile per-request excess plus that
//     allowance per attempt, and the live replay also by its own p99 timer lateness
//     (live.Fidelity) per attempt. When the waits are read from an HTTP-date, the real median may
//     be earlier by up to 1 s per wait: a real client reads the date against its own clock
//     and the date has one-second resolution, while a replay reads the exact delay the
//     scenario states (the simulator) or the date against the response's Date header (live);
//   - duplicate side effects: counts, |d₁ − d₂| ≤ z·sqrt(d₁ + d₂) (Poisson).
func compareRun(real realRun, pr replay.PolicyResult, live bool, liveLate time.Duration, date bool) (bool, string) {
	n := len(real.attempts)
	var why []string
	if pr.Requests != n {
		return false, fmt.Sprintf("replay has %d requests, the real client %d", pr.Requests, n)
	}
	// attempts per request
	var sum, sq float64
	maxAtt := 0
	for _, a := range real.attempts {
		sum += float64(a)
		maxAtt = max(maxAtt, a)
	}
	mean := sum / float64(n)
	for _, a := range real.attempts {
		sq += (float64(a) - mean) * (float64(a) - mean)
	}
	v := sq / float64(max(n-1, 1))
	preMean := float64(pr.Attempts) / float64(n)
	if tol := z * math.Sqrt(2*v/float64(n)); math.Abs(mean-preMean) > tol+1e-9 {
		why = append(why, fmt.Sprintf("attempts/request %.3f, replay %.3f (tolerance %.3f)", mean, preMean, tol))
	}
	// success rate
	succ := 0
	for _, ok := range real.ok {
		if ok {
			succ++
		}
	}
	p1, p2 := float64(succ)/float64(n), float64(pr.Succeeded)/float64(n)
	pbar := (p1 + p2) / 2
	if tol := z * math.Sqrt(pbar*(1-pbar)*2/float64(n)); math.Abs(p1-p2) > tol+1e-9 {
		why = append(why, fmt.Sprintf("success rate %.3f, replay %.3f (tolerance %.3f)", p1, p2, tol))
	}
	// median latency
	lat := slices.Clone(real.latency)
	ex := slices.Clone(real.excess)
	slices.Sort(ex)
	if !live {
		for i := range lat {
			lat[i] -= real.excess[i]
		}
	}
	slices.Sort(lat)
	med := quantile(lat, 0.5)
	h := math.Sqrt(float64(n)) / 2
	lo, hi := quantileRank(lat, float64(n)/2-h), quantileRank(lat, float64(n)/2+h)
	se := float64(hi-lo) / 2
	tol := z*math.Sqrt2*se + 0.002*float64(med)
	late := float64(maxAtt) * float64(real.lateness+real.perAttempt)
	up, down := tol+late, tol
	if live {
		both := float64(quantile(ex, 0.9)) + float64(maxAtt)*float64(liveLate)
		up += both
		down += late + both
	}
	if date {
		down += float64(maxAtt-1) * float64(time.Second)
	}
	preMed := time.Duration(pr.Latency.P50Ms * float64(time.Millisecond))
	if d := float64(med - preMed); d > up || -d > down {
		why = append(why, fmt.Sprintf("median latency %v, replay %v (tolerance −%v +%v)", med.Round(time.Millisecond), preMed.Round(time.Millisecond),
			time.Duration(down).Round(time.Millisecond), time.Duration(up).Round(time.Millisecond)))
	}
	// duplicates
	if tol := z * math.Sqrt(float64(real.duplicates+pr.Duplicates)); math.Abs(float64(real.duplicates-pr.Duplicates)) > tol+1e-9 {
		why = append(why, fmt.Sprintf("duplicates %d, replay %d (tolerance %.1f)", real.duplicates, pr.Duplicates, tol))
	}
	summary := fmt.Sprintf("real: attempts/request %.3f, success %.3f, median %v, duplicates %d (excess p90 %v, timer p99 %v); replay: %.3f, %.3f, %v, %d",
		mean, p1, med.Round(time.Millisecond), real.duplicates, quantile(ex, 0.9).Round(time.Millisecond), real.lateness.Round(time.Millisecond),
		preMean, p2, preMed.Round(time.Millisecond), pr.Duplicates)
	if len(why) > 0 {
		return false, strings.Join(why, "; ") + " — " + summary
	}
	return true, summary
}

// quantile of a sorted sample (nearest rank).
func quantile(s []time.Duration, q float64) time.Duration {
	return quantileRank(s, q*float64(len(s)))
}

// quantileRank is the order statistic of (1-based, rounded, clamped) rank r.
func quantileRank(s []time.Duration, r float64) time.Duration {
	i := int(math.Round(r)) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// scaleDur divides a library's wait by the speed.
func scaleDur(d time.Duration, speed float64) time.Duration {
	return time.Duration(float64(d) / speed)
}
