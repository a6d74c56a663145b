package storm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/replay"
	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/sim"
)

// The acceptance thresholds of issue 5, derived from the fluid model (fluid.go) for the
// default quick model BEFORE running the simulator: C = 300/s, N = 4 attempts, T = 1 s, a
// 10 s stall at t = 30 s, arrivals until 180 s. The bound is C/N = 75/s.
//
//   - λ = 112.5/s (1.5 × C/N): the stall leaves ≈ λ·N·D = 4500 queued attempts (15 s of
//     delay ≫ T); afterwards λ·N = 450/s > C: the backlog grows by 150/s, goodput ≈ 0,
//     final offered load ≈ 1.5 × C. Metastable.
//   - λ = 37.5/s (0.5 × C/N): backlog 1500 drains at C − λN = 150/s to C·T = 300 in 8 s;
//     the 5 s average settles a few seconds later. Recovers, recovery_s ≈ 8 (the fluid
//     backlog over-counts the first timeout period's ramp, the average adds ≤ 5 s: 3…15).
//   - No retries at λ = 112.5/s: backlog λD = 1125 drains at 187.5/s in 4.4 s. Recovers.
//   - AWS token bucket at λ = 112.5/s: each of 100 clients has 50 timeout-retries; ≈ 33 go
//     during the stall, the other ≈ 17 within ≈ 5 s after it, then only first tries
//     (λ < C) reach the server and the ≈ 5000 backlog drains at 187.5/s in ≈ 26 s. Recovers,
//     recovery_s ≈ 31 (< 60).
//   - stable_below_per_s for the plain retries: at most C/N plus the bisection tolerance, and
//     at least the horizon bound (300·106/(4·115) = 69.1/s) less the judge's noise: ≥ 0.8×.

func quick(t *testing.T, rate float64, policies ...*policy.Policy) *Result {
	t.Helper()
	m := DefaultModel()
	m.RatePerS = rate
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), m.Scenario(policies), Options{Model: &m})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func byName(res *Result, name string) PolicyResult {
	for _, p := range res.Policies {
		if p.Name == name {
			return p
		}
	}
	panic("no policy " + name)
}

func TestHighLoadCollapses(t *testing.T) {
	res := quick(t, 112.5, Layered("retries", []int{4}, time.Second))
	if !res.Judged || !res.Metastable || res.Recovered {
		t.Fatalf("λ = 1.5·C/N: judged %v metastable %v recovered %v, want metastable", res.Judged, res.Metastable, res.Recovered)
	}
	if r := *res.FinalLoadRatio; r < 1.35 || r > 1.65 {
		t.Errorf("final load ratio = %.2f, want ≈ λN/C = 1.5", r)
	}
	if res.GoodputPerS > 0.1*112.5 {
		t.Errorf("goodput = %.1f/s after the collapse, want ≈ 0", res.GoodputPerS)
	}
	if res.WastedWork == 0 {
		t.Error("no wasted work in a collapse: the server must be serving abandoned attempts")
	}
}

func TestLowLoadRecovers(t *testing.T) {
	res := quick(t, 37.5, Layered("retries", []int{4}, time.Second))
	if !res.Recovered || res.Metastable {
		t.Fatalf("λ = 0.5·C/N: recovered %v metastable %v, want recovered", res.Recovered, res.Metastable)
	}
	if s := *res.RecoveryS; s < 3 || s > 15 {
		t.Errorf("recovery_s = %g, want ≈ 8 (3…15)", s)
	}
}

func TestMitigationsRecoverAtHighLoad(t *testing.T) {
	res := quick(t, 112.5, Mitigations([]int{4}, time.Second)...)
	if p := byName(res, "retries"); !p.Metastable {
		t.Errorf("retries: metastable %v, want true", p.Metastable)
	}
	none := byName(res, "no-retries")
	if !none.Recovered || *none.RecoveryS > 12 {
		t.Errorf("no-retries: recovered %v after %v s, want ≈ 4.4 s", none.Recovered, none.RecoveryS)
	}
	bucket := byName(res, "token-bucket")
	if !bucket.Recovered || *bucket.RecoveryS > 60 {
		t.Errorf("token-bucket: recovered %v after %v s, want ≈ 31 s", bucket.Recovered, bucket.RecoveryS)
	}
	// Jitter spreads attempts but does not remove them: the steady offered load is still
	// λ·N > C, so it collapses too.
	if p := byName(res, "jitter"); !p.Metastable {
		t.Errorf("jitter: metastable %v, want true (λN > C whatever the spacing)", p.Metastable)
	}
}

func TestStableBelowMatchesFluidBound(t *testing.T) {
	m := DefaultModel()
	res, err := Run(context.Background(), m.Scenario([]*policy.Policy{Layered("retries", []int{4}, time.Second)}), Options{Model: &m, Bisect: true})
	if err != nil {
		t.Fatal(err)
	}
	got := *res.StableBelowPerS
	bound, horizon := *res.FluidBoundPerS, *res.FluidHorizonBoundPerS
	tol := res.Bisection.TolerancePerS
	if bound != 75 || math.Abs(horizon-300.0*106/(4*115)) > 1e-6 {
		t.Fatalf("fluid bounds = %g, %g", bound, horizon)
	}
	if got > bound+tol || got < 0.8*horizon {
		t.Errorf("stable_below = %.1f/s, want within [%.1f, %.1f] (0.8 × horizon bound, C/N + tolerance)", got, 0.8*horizon, bound+tol)
	}
	if res.Bisection.Runs > 13 {
		t.Errorf("bisection took %d runs, want ≤ 13", res.Bisection.Runs)
	}
	t.Logf("stable_below %.1f/s (fluid C/N %.1f, horizon %.1f) in %d runs", got, bound, horizon, res.Bisection.Runs)
}

// TestLayersAmplification: with the bottom always failing (503 for the whole run and the
// drain), every layer exhausts its attempts: observed amplification equals Π attempts.
func TestLayersAmplification(t *testing.T) {
	for _, attempts := range [][]int{{4, 4, 4}, {3, 6}} {
		m := DefaultModel()
		m.RatePerS, m.CapacityPerS, m.Duration = 20, 10000, 10*time.Second
		m.Outages = nil
		m.Errors = []Window{{At: 0, For: time.Hour}}
		res, err := Run(context.Background(), m.Scenario([]*policy.Policy{Layered("chain", attempts, time.Second)}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := 1.0
		for _, a := range attempts {
			want *= float64(a)
		}
		if res.Requests == 0 || res.Amplification.Observed != want || *res.Amplification.Theoretical != want {
			t.Errorf("%v: %d requests, %d attempts: observed %g, theoretical %v; want %g",
				attempts, res.Requests, res.Attempts, res.Amplification.Observed, res.Amplification.Theoretical, want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	run := func(seed int64) []byte {
		m := DefaultModel()
		m.Seed = seed
		m.Duration = 80 * time.Second
		res, err := Run(context.Background(), m.Scenario(Mitigations([]int{4}, time.Second)[:2]), Options{Model: &m})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := run(1), run(1), run(2)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different JSON")
	}
	if bytes.Equal(a, c) {
		t.Error("different seed, same JSON")
	}
}

// TestInterrupted: a cancelled run returns what finished, with the top level describing the
// first policy, and the context's error.
func TestInterrupted(t *testing.T) {
	m := DefaultModel()
	m.Duration = 80 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	engine := func(ctx context.Context, sc *scenario.Scenario, p *policy.Policy) (replay.PolicyResult, error) {
		calls++
		if calls == 2 {
			cancel()
		}
		return sim.RunPolicy(ctx, sc, p)
	}
	res, err := Run(ctx, m.Scenario(Mitigations([]int{4}, time.Second)), Options{engine: engine})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !res.Interrupted || len(res.Policies) != 1 || res.Policy != "retries" || res.Requests == 0 || len(res.Series) == 0 {
		t.Errorf("interrupted result: interrupted %v, %d policies, policy %q, %d requests", res.Interrupted, len(res.Policies), res.Policy, res.Requests)
	}
}

// TestLayeredShortStall pins the disagreement explained in fluid.go: with 4,4,4 the fluid
// bound is 300/64 = 4.7/s, but a 10 s stall cannot make the 64-attempt collapse build up at
// 12/s (tipping alone needs λ > 300/(4·10) = 7.5/s, and the ramp to λ·64 takes ≈ 75 s while
// the backlog drains): it recovers. At 40/s the bottom layer alone offers 160/s and the ramp
// passes C within seconds: it collapses.
func TestLayeredShortStall(t *testing.T) {
	for _, tc := range []struct {
		rate       float64
		metastable bool
	}{{12, false}, {40, true}} {
		m := DefaultModel()
		m.RatePerS, m.Attempts = tc.rate, []int{4, 4, 4}
		res, err := Run(context.Background(), m.Scenario([]*policy.Policy{Layered("retries", m.Attempts, time.Second)}), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Metastable != tc.metastable || res.Recovered == tc.metastable {
			t.Errorf("4,4,4 at %g/s: metastable %v recovered %v, want metastable %v", tc.rate, res.Metastable, res.Recovered, tc.metastable)
		}
	}
}

// TestBoundedQueueRecovers: a queue of 200 at 300/s makes no attempt wait 1 s (0.77 s at
// most), so the timeout regime of the derivation cannot happen: overflow is answered 503 at
// once and, at the load that collapses with an unbounded queue (1.5 × C/N), the same retries
// recover.
func TestBoundedQueueRecovers(t *testing.T) {
	m := DefaultModel()
	m.RatePerS, m.Queue = 112.5, 200
	res, err := Run(context.Background(), m.Scenario([]*policy.Policy{Layered("retries", []int{4}, time.Second)}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Recovered {
		t.Errorf("bounded queue: recovered %v metastable %v", res.Recovered, res.Metastable)
	}
	if *res.FluidBoundPerS != 300 {
		t.Errorf("fluid bound = %g, want C = 300", *res.FluidBoundPerS)
	}
}

// TestPolicyResultJSONOneRecovery: policies[] carry replay's fields, the recovery rule's
// judgement among them, and the storm analysis; no field is named by both (encoding/json would
// drop both silently), and recovery_s is recovery_ms in seconds.
func TestPolicyResultJSONOneRecovery(t *testing.T) {
	for _, recovered := range []bool{true, false} {
		rec := replay.Recovery{Judged: true, Recovered: recovered}
		if recovered {
			ms := 4500.0
			rec.RecoveryMs = &ms
		}
		p := NewPolicyResult(replay.PolicyResult{Name: "x", Requests: 3, Recovery: rec}, Analysis{RecoveryS: rec.RecoverySeconds()})
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if doc["recovered"] != recovered || doc["judged"] != true || doc["name"] != "x" || doc["requests"] != 3.0 {
			t.Errorf("JSON %s: recovered = %v, want %v", b, doc["recovered"], recovered)
		}
		if recovered && (doc["recovery_ms"] != 4500.0 || doc["recovery_s"] != 4.5) {
			t.Errorf("JSON %s: recovery_ms %v recovery_s %v, want 4500 and 4.5", b, doc["recovery_ms"], doc["recovery_s"])
		}
		if !recovered && (doc["recovery_ms"] != nil || doc["recovery_s"] != nil) {
			t.Errorf("JSON %s: not recovered but recovery_ms %v recovery_s %v", b, doc["recovery_ms"], doc["recovery_s"])
		}
	}
	// Every JSON name appears once across the two embedded structs.
	seen := map[string]string{}
	for _, typ := range []reflect.Type{reflect.TypeOf(replay.PolicyResult{}), reflect.TypeOf(replay.Recovery{}), reflect.TypeOf(Analysis{})} {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || f.Anonymous {
				continue
			}
			if prev, ok := seen[name]; ok {
				t.Errorf("JSON field %q is in both %s and %s", name, prev, typ.Name())
			}
			seen[name] = typ.Name()
		}
	}
}

// The policies run side by side (one per core); the result is the same bytes on one core
// and on two, and in the scenario's order.
func TestRunIsTheSameOnOneAndTwoCores(t *testing.T) {
	m := DefaultModel()
	m.Duration = time.Minute
	sc := m.Scenario(Mitigations(m.Attempts, time.Second))
	runOn := func(procs int) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := Run(context.Background(), sc, Options{Bisect: true, Tolerance: 0.1, Parallel: runtime.GOMAXPROCS(0)})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one, two := runOn(1), runOn(2)
	if !bytes.Equal(one, two) {
		t.Fatal("storm output differs between GOMAXPROCS=1 and GOMAXPROCS=2")
	}
	for _, parallel := range []int{0, 3} {
		res, err := Run(context.Background(), sc, Options{Bisect: true, Tolerance: 0.1, Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(res); !bytes.Equal(b, one) {
			t.Fatalf("storm output differs with Parallel %d", parallel)
		}
	}
}
