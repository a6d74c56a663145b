package emit_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/check"
	"github.com/patience-dev/patience/emit"
	"github.com/patience-dev/patience/profile"
)

// The round trip of issue 27 item 6: each config target's emitted file passes `patience
// check` with no finding and reads back the numbers it was written with. Loopback-free: check
// reads files only.

// configFileName is the file each target's text is saved as, named as check recognises it.
var configFileName = map[emit.Target]string{
	emit.Nginx:        "upstream.conf",
	emit.Envoy:        "envoy.yaml",
	emit.Istio:        "istio.yaml",
	emit.GatewayAPI:   "route.yaml",
	emit.Resilience4j: "application.yml",
	emit.GRPC:         "service-config.json",
	emit.ALB:          "ingress.yaml",
}

// readBack is what check should read from a target's file for a recommendation: the layer's
// timeouts and its attempts on a connect failure.
type readBack struct {
	timeouts check.LayerTimeouts
	attempts float64
}

// want derives, from the recommendation alone, what check reads back from tg's file: each
// format holds the figures it can express (the others are the emission's Missing), in its own
// terms.
func want(tg emit.Target, rec profile.Recommendation) readBack {
	connect := rec.ConnectTimeoutMs
	if connect == 0 {
		connect = rec.TimeoutMs // none recommended: the total bounds the connect
	}
	total := rec.TimeoutMs
	attempts := float64(rec.MaxAttempts)
	deadline := rec.Caller.BudgetMs
	if rec.Caller.Kind == profile.CallerJob {
		attempts, deadline = 1, rec.TimeoutMs // one attempt per run: the queue retries
	}
	read := rec.ReadTimeoutMs
	switch tg {
	case emit.Nginx:
		// No per-try total; proxy_read_timeout is the read timeout, else the total, + 300 ms
		// for nginx's lazy timer (NGX_TIMER_LAZY_DELAY, emit/nginx.go). nginx tries each server
		// once: the one server of the emitted upstream makes one try.
		silence := total
		if read != nil {
			silence = *read
		}
		silence += 300
		return readBack{check.LayerTimeouts{ConnectMs: &connect, ReadMs: &silence, DeadlineMs: &deadline}, 1}
	case emit.Envoy:
		// The connection manager's stream_idle_timeout is left at Envoy's 5 min default.
		idle := 300_000.0
		return readBack{check.LayerTimeouts{ConnectMs: &connect, ReadMs: read, IdleMs: &idle, TotalMs: &total, DeadlineMs: &deadline}, attempts}
	case emit.ALB:
		// The idle timeout alone, in whole seconds rounded up from the read timeout (for a
		// stream the larger of its first-event and idle timeouts), else the total; an ALB makes
		// one try, so it is the try's read timeout too.
		silence := total
		if read != nil {
			silence = *read
		}
		if a := rec.StreamAdvice; a.PerReadMs() > 0 {
			silence = a.PerReadMs()
		}
		idle := math.Ceil(silence/1000) * 1000
		return readBack{check.LayerTimeouts{ReadMs: &idle, IdleMs: &idle}, 1}
	case emit.Istio:
		return readBack{check.LayerTimeouts{ConnectMs: &connect, TotalMs: &total, DeadlineMs: &deadline}, attempts}
	case emit.GatewayAPI:
		return readBack{check.LayerTimeouts{TotalMs: &total, DeadlineMs: &deadline}, attempts}
	case emit.Resilience4j:
		return readBack{check.LayerTimeouts{TotalMs: &total}, attempts}
	case emit.GRPC:
		// One timeout, the deadline across all attempts (with one attempt, its total): the
		// chain arithmetic takes it as each try's bound too.
		if attempts == 1 {
			deadline = total
		}
		return readBack{check.LayerTimeouts{TotalMs: &deadline, DeadlineMs: &deadline}, attempts}
	}
	panic("no read-back for " + string(tg))
}

// TestConfigRoundTrip emits every config target from every fixture, runs check on the file
// alone (the chain check infers from it) and behind a dependency whose via: names it (so the
// caller's rules — budget, idempotency, amplification — apply too), and asserts no finding
// and the numbers read back.
func TestConfigRoundTrip(t *testing.T) {
	for _, tg := range configTargets {
		for _, fx := range configFixtures() {
			t.Run(string(tg)+"/"+fx.name, func(t *testing.T) {
				e, err := emit.Emit(tg, fx.in)
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				path := filepath.Join(dir, configFileName[tg])
				if err := os.WriteFile(path, []byte(e.Text), 0o644); err != nil {
					t.Fatal(err)
				}
				alone := runCheck(t, path)
				l := layerFrom(t, alone, path)
				w := want(tg, fx.in.Rec)
				if diff := cmp.Diff(w.timeouts, l.Timeouts); diff != "" {
					t.Errorf("timeouts read back (-want +got):\n%s\n%s", diff, e.Text)
				}
				if l.Attempts.Connect != w.attempts {
					t.Errorf("attempts on a connect failure read back %v, want %v", l.Attempts.Connect, w.attempts)
				}
				if !fx.in.RetryUnknown() && (l.Attempts.Timeout != 1 || l.Attempts.Reset != 1) {
					t.Errorf("a %s without a key is retried on a timeout (%v) or a reset (%v)", fx.in.MethodOrGet(), l.Attempts.Timeout, l.Attempts.Reset)
				}
				dep := filepath.Join(dir, "patience.yaml")
				if err := os.WriteFile(dep, []byte(dependencyFile(fx.in, filepath.Base(path))), 0o644); err != nil {
					t.Fatal(err)
				}
				behind := layerFrom(t, runCheck(t, dep), path)
				if diff := cmp.Diff(w.timeouts, behind.Timeouts); diff != "" {
					t.Errorf("timeouts read back behind the dependency (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// runCheck runs check on paths as `patience check` does and fails on any finding.
func runCheck(t *testing.T, paths ...string) *check.Result {
	t.Helper()
	in, err := check.LoadPaths(paths)
	if err != nil {
		t.Fatalf("LoadPaths: %v", err)
	}
	res, err := check.Run(context.Background(), in.Files, check.Options{Configs: in.Configs})
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if res.Error != nil {
		t.Fatalf("check: %s: %s", res.Error.Location(), res.Error.Message)
	}
	for _, f := range append(res.Findings, res.Suppressed...) {
		t.Errorf("finding %s:%d %s %s: %s", filepath.Base(f.File), f.Line, f.Rule, f.Dependency, f.Message)
	}
	return res
}

// layerFrom returns the one layer check read from path.
func layerFrom(t *testing.T, res *check.Result, path string) check.ChainLayer {
	t.Helper()
	var found []check.ChainLayer
	for _, ch := range res.Chains {
		for _, l := range ch.Layers {
			if l.File == path {
				found = append(found, l)
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one layer read from %s, got %d", path, len(found))
	}
	return found[0]
}

// dependencyFile is a check file whose one dependency is the fixture's caller, calling
// through the emitted file: the application waits for the proxy's deadline and retries
// nothing itself.
func dependencyFile(in emit.Input, file string) string {
	rec := in.Rec
	var b strings.Builder
	b.WriteString("dependencies:\n  - name: " + in.NameOrAPI() + "\n")
	fmt.Fprintf(&b, "    request: {method: %s, idempotency_key: %t}\n", in.MethodOrGet(), rec.Caller.IdempotencyKey)
	timeout := rec.Caller.BudgetMs
	if j := rec.Job; rec.Caller.Kind == profile.CallerJob && j != nil {
		fmt.Fprintf(&b, "    caller: {kind: job, timeout: %gms, retry_after: %gms}\n", j.TimeoutMs, j.RetryAfterMs)
		timeout = rec.TimeoutMs
	} else {
		fmt.Fprintf(&b, "    caller: {kind: interactive, budget: %gms}\n", rec.Caller.BudgetMs)
	}
	fmt.Fprintf(&b, "    via:\n      - {file: %s}\n", file)
	fmt.Fprintf(&b, "    policy: {timeout: %gms, retry: {max_attempts: 1}}\n", timeout)
	return b.String()
}

// TestGatewayAPIRoundTripPerImplementation runs the emitted HTTPRoute as each implementation
// translates it (--gateway-impl): the numbers read back are the same for both. Under Istio the
// route has no retry budget — the Gateway API has no field for one, and without a
// DestinationRule Istio lifts Envoy's cap on concurrent retries — so PT012 fires there, and
// only there, exactly when the route retries; the emission's Missing names the way.
func TestGatewayAPIRoundTripPerImplementation(t *testing.T) {
	for _, impl := range []check.GatewayImpl{check.GatewayImplIstio, check.GatewayImplEnvoyGateway} {
		for _, fx := range configFixtures() {
			t.Run(string(impl)+"/"+fx.name, func(t *testing.T) {
				e, err := emit.Emit(emit.GatewayAPI, fx.in)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "route.yaml")
				if err := os.WriteFile(path, []byte(e.Text), 0o644); err != nil {
					t.Fatal(err)
				}
				in, err := check.LoadPaths([]string{path})
				if err != nil {
					t.Fatal(err)
				}
				in.Configs.GatewayImpl = impl
				res, err := check.Run(context.Background(), in.Files, check.Options{Configs: in.Configs})
				if err != nil || res.Error != nil {
					t.Fatalf("check: %v %+v", err, res.Error)
				}
				var rules []string
				for _, f := range res.Findings {
					rules = append(rules, f.Rule)
				}
				var wantRules []string
				retries := fx.in.Rec.MaxAttempts > 1 && fx.in.Rec.Caller.Kind != profile.CallerJob
				if impl == check.GatewayImplIstio && retries {
					wantRules = []string{"PT012"}
					if !strings.Contains(strings.Join(e.Missing, "\n"), "no retry budget") {
						t.Errorf("PT012 fires under Istio and Missing does not say the route has no retry budget: %q", e.Missing)
					}
				}
				if diff := cmp.Diff(wantRules, rules); diff != "" {
					t.Errorf("findings (-want +got):\n%s", diff)
				}
				l := layerFrom(t, res, path)
				w := want(emit.GatewayAPI, fx.in.Rec)
				if diff := cmp.Diff(w.timeouts, l.Timeouts); diff != "" {
					t.Errorf("timeouts read back (-want +got):\n%s", diff)
				}
				if l.Attempts.Connect != w.attempts {
					t.Errorf("attempts on a connect failure read back %v, want %v", l.Attempts.Connect, w.attempts)
				}
			})
		}
	}
}
