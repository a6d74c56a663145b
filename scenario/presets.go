package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
)

// presetDef is one preset: what users get when they pick a library's defaults, which version
// of the library it follows, and how that was checked.
type presetDef struct {
	name    string
	help    string // one line for --help: attempts, backoff and jitter, POST, Retry-After
	source  string // library@version and the source files and lines the values come from
	checked string // conformance/ (the real library, driven in its tests) or docs and source only
	build   func() *policy.Policy
	// budgets are the interactive callers' budgets the preset is offered to as advice, at
	// which check's own rules must find nothing (check's TestPresetsPassAtTheirBudgets); none
	// for a library's defaults, which are offered to be compared, not followed.
	budgets []time.Duration
}

// Checked-by lines of presetDef.checked.
const (
	checkedConformance = "conformance/ drives the real library at this version"
	checkedSourceOnly  = "no Go implementation here: checked against its documentation and source only"
)

// presets follow docs/design.md §4: each is the default behaviour of the library version it names,
// including what it does with POST (most libraries do not look at the method: they retry a
// POST without an idempotency key, which is what a replay must show), Retry-After and jitter.
// The Go ones are compared with the real library in conformance/ (cd conformance && go test
// ./...). Each constructor builds a fresh value, so callers may modify what Preset returns.
var presets = []presetDef{
	{
		name:    "none",
		help:    "no timeout, no retry",
		source:  "Go's http.DefaultClient and most HTTP clients out of the box (Timeout: 0)",
		checked: "net/http",
		build: func() *policy.Policy {
			return defaultPolicy()
		},
	},
	{
		// A hand-written retry loop: `for i := 0; i < 4; i++ { resp, err = do(); if ok { break } }`.
		// No timeout (http.DefaultClient), no backoff, no jitter, retries anything that is not
		// a 2xx — 4xx and POSTs included — and ignores Retry-After.
		name:    "naive",
		help:    "3 immediate retries, no jitter, no timeout, everything retried (4xx and POST too), Retry-After ignored",
		source:  "the retry loop everyone writes once",
		checked: "by construction",
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.Retry.MaxAttempts = 4
			p.Retry.On = []string{"connect", "timeout", "reset", "4xx", "5xx"}
			p.Retry.Never = nil
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Backoff = policy.BackoffNone
			p.Retry.Base, p.Retry.Cap = 0, 0
			p.Retry.Jitter = policy.JitterNone
			p.Retry.RetryAfter = policy.RetryAfterIgnore
			return p
		},
	},
	{
		// aws-sdk-go-v2 v1.48.0 aws/retry, the standard retryer's defaults (the 2026 "retry
		// behavior 2.1" release):
		//   - 3 attempts (standard.go DefaultMaxAttempts).
		//   - retry n waits b·min(x·2^(n−1), 20s), b = U[0,1): full jitter after the cap
		//     (jitter_backoff.go:107-131 backoffDelay2026); x = 50ms (standard.go NewStandard,
		//     "baseDelay = 50 * time.Millisecond"), or 1s after a throttling error
		//     (jitter_backoff.go:113-116), which an unmodelled 429 is (throttle_error.go
		//     throttleUnmodeledTooManyRequests).
		//   - retried: 500, 502, 503, 504 (standard.go DefaultRetryableHTTPStatusCodes), 429
		//     (retryable_error.go retryableUnmodeledTooManyRequests), connection errors, resets
		//     and timeouts (retryable_error.go RetryableConnectionError) — for every operation:
		//     the retry middleware never looks at the method or an idempotency token
		//     (middleware.go:268-290), so a POST is retried after a 5xx or a timeout.
		//   - quota: a bucket of 500 (DefaultRetryRateTokens); a retry costs 14 (standard.go
		//     defaultRetryCost; timeouts no longer cost more), 5 after throttling
		//     (DefaultThrottlingRetryCost); a successful retry refunds its cost; a first-try
		//     success adds 1 (DefaultNoRetryIncrement).
		//   - Retry-After is not read: only x-amz-retry-after (milliseconds), clamped to
		//     [backoff, backoff+5s] (middleware.go:513-548), which patience's targets do not send.
		//   - no per-attempt timeout (the SDK's HTTP client sets none).
		name:    "aws-standard",
		help:    "3 attempts; full jitter U[0, min(50ms·2^(n-1), 20s)], from 1s after a 429; quota 500, retry 14, after 429 5, +1; POST retried; Retry-After ignored",
		source:  "aws-sdk-go-v2 v1.48.0 aws/retry standard.go NewStandard/standardDefaults, jitter_backoff.go:107-131, middleware.go:268-320",
		checked: checkedConformance,
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.Retry.MaxAttempts = 3
			p.Retry.On = []string{"connect", "timeout", "reset", "429", "500", "502", "503", "504"}
			p.Retry.Never = nil
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Base, p.Retry.ThrottleBase = 50*time.Millisecond, time.Second
			p.Retry.Multiplier, p.Retry.Cap = 2, 20*time.Second
			p.Retry.Jitter = policy.JitterFull
			p.Retry.RetryAfter = policy.RetryAfterIgnore
			p.Budget = &policy.Budget{Kind: policy.BudgetTokenBucket, Capacity: 500, RetryCost: 14, ThrottleCost: 5, Refill: 1}
			return p
		},
	},
	{
		// aws-sdk-go-v2 up to v1.47.x (v1.47.8 checked), the standard retryer before the 2026
		// defaults; v1.48 keeps the formula as NewExponentialJitterBackoff's legacy mode
		// (jitter_backoff.go:84-101): retry n (the n-th failed attempt) waits b·2^n seconds,
		// b = U[0,1) — U[0,2s), U[0,4s) — and from n = 5 on exactly 20s. Quota 500; a retry costs
		// 5, 10 after a timeout; +1 on a first-try success (v1.47.8 standard.go:38-47). Same
		// retryable errors, POST and Retry-After handling as aws-standard.
		name:    "aws-standard-legacy",
		help:    "aws-sdk-go-v2 ≤ v1.47: 3 attempts, full jitter U[0, 2^n s] cap 20s, quota 500/5/10/+1; POST retried; Retry-After ignored",
		source:  "aws-sdk-go-v2 v1.47.8 aws/retry standard.go:38-47, jitter_backoff.go (v1.48.0 jitter_backoff.go:84-101)",
		checked: checkedConformance + " (its legacy backoff, NewExponentialJitterBackoff)",
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.Retry.MaxAttempts = 3
			p.Retry.On = []string{"connect", "timeout", "reset", "429", "500", "502", "503", "504"}
			p.Retry.Never = nil
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Base, p.Retry.Multiplier, p.Retry.Cap = 2*time.Second, 2, 20*time.Second
			p.Retry.Jitter = policy.JitterFull
			p.Retry.RetryAfter = policy.RetryAfterIgnore
			p.Budget = &policy.Budget{Kind: policy.BudgetTokenBucket, Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1}
			return p
		},
	},
	{
		// grpc-go v1.85.0 with the retryPolicy of gRFC A6's example service config
		// (maxAttempts 4, initialBackoff 0.1s, maxBackoff 1s, backoffMultiplier 2, retryable
		// UNAVAILABLE); grpc-go has no retry policy unless the service config gives one.
		//   - retry n waits min(0.1s·2^(n−1), 1s)·U[0.8, 1.2] — ±20% jitter, not full jitter
		//     (stream.go:884-888).
		//   - UNAVAILABLE is what grpc-go makes of HTTP 429, 502, 503 and 504
		//     (internal/transport/http_util.go:70-88 HTTPStatusConvTab) and of a connection that
		//     failed; DEADLINE_EXCEEDED is not retried and there is no per-attempt timeout.
		//   - the method does not matter: a configured method is retried whether or not it is
		//     idempotent.
		//   - server pushback (the grpc-retry-pushback-ms trailer; patience's Retry-After stands
		//     for it, and conformance/ sends it as that trailer) replaces the backoff, uncapped,
		//     and restarts the exponent (stream.go:880-882).
		name:    "grpc",
		help:    "4 attempts, min(100ms·2^(n-1), 1s)·U[0.8,1.2]; UNAVAILABLE (429/502/503/504, connect) retried for any method; pushback replaces the backoff and resets it",
		source:  "grpc-go v1.85.0 stream.go:809-903 (shouldRetry), internal/transport/http_util.go:70-88; gRFC A6 example service config",
		checked: checkedConformance,
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.Retry.MaxAttempts = 4
			p.Retry.On = []string{"connect", "reset", "429", "502", "503", "504"}
			p.Retry.Never = nil
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Base, p.Retry.Multiplier, p.Retry.Cap = 100*time.Millisecond, 2, time.Second
			p.Retry.Jitter, p.Retry.JitterFactor = policy.JitterRandomized, 0.2
			p.Retry.RetryAfter, p.Retry.RetryAfterMax = policy.RetryAfterReplaceReset, 0
			return p
		},
	},
	{
		// Envoy route retry policy defaults: num_retries 1, base_interval 25ms, max_interval
		// 10 × base = 250ms, fully jittered exponential (source/common/common/backoff_strategy.cc
		// JitteredExponentialBackOffStrategy: random % min(base·2^(n−1), max)); route timeout
		// 15s (per_try_timeout defaults to it). retry_on has no default; "5xx,reset,
		// connect-failure" is the usual choice, and Envoy does not look at the method. Retry-After
		// is read only with rate_limited_retry_back_off (opt-in). The default cluster circuit
		// breaker max_retries = 3 (retries in flight at once) is a concurrency cap our budget
		// model cannot express exactly; it is left out.
		name:    "envoy",
		help:    "1 retry, full jitter base 25ms cap 250ms, 15s route timeout; POST retried; Retry-After ignored",
		source:  "Envoy config.route.v3.RetryPolicy and cluster CircuitBreakers defaults; backoff_strategy.cc",
		checked: checkedSourceOnly,
		build: func() *policy.Policy {
			p := envoyPolicy()
			return p
		},
	},
	{
		// Envoy with the opt-in retry budget (budget_percent 20%, min_retry_concurrency 3).
		// Envoy counts retries in flight against active requests; modelled as a ratio budget
		// of 20% over 10s plus 3 retries per second.
		name:    "envoy-budget",
		help:    "envoy with the opt-in retry budget: 20% of requests, at least 3",
		source:  "Envoy CircuitBreakers.Thresholds.RetryBudget",
		checked: checkedSourceOnly,
		build: func() *policy.Policy {
			p := envoyPolicy()
			p.Budget = &policy.Budget{Kind: policy.BudgetRatio, Percent: 0.2, MinPerS: 3, Window: 10 * time.Second}
			return p
		},
	},
	{
		// hashicorp/go-retryablehttp v0.7.8 NewClient (client.go:440-450): RetryWaitMin 1s,
		// RetryWaitMax 30s, RetryMax 4 (5 attempts).
		//   - DefaultBackoff (client.go:551-566): retry n sleeps min·2^(n−1) capped at max —
		//     1, 2, 4, 8s, no jitter. On a 429 or a 503 a parseable Retry-After replaces that
		//     sleep entirely, uncapped (not even by RetryWaitMax), "0" and past dates meaning
		//     now (client.go:578-607); on other statuses it is not read.
		//   - DefaultRetryPolicy/baseRetryPolicy (client.go:472-545): any transport error
		//     (refused, reset, timeout), 429, and 5xx except 501 — for any method: Do rewinds
		//     the body and sends a POST again.
		//   - cleanhttp.DefaultPooledClient: no client timeout, a 30s dial timeout.
		name:    "retryablehttp",
		help:    "5 attempts, 1,2,4,8s no jitter; 429 and 5xx except 501 and any transport error, POST too; Retry-After on 429/503 replaces the backoff, uncapped",
		source:  "hashicorp/go-retryablehttp v0.7.8 client.go:440-450 (NewClient), 472-545 (DefaultRetryPolicy), 551-607 (DefaultBackoff, parseRetryAfterHeader)",
		checked: checkedConformance,
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.ConnectTimeout = 30 * time.Second
			p.Retry.MaxAttempts = 5
			p.Retry.On = []string{"connect", "timeout", "reset", "429", "5xx"}
			p.Retry.Never = []int{501}
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Base, p.Retry.Multiplier, p.Retry.Cap = time.Second, 2, 30*time.Second
			p.Retry.Jitter = policy.JitterNone
			p.Retry.RetryAfter, p.Retry.RetryAfterMax = policy.RetryAfterReplace, 0
			p.Retry.RetryAfterOn = []int{429, 503}
			return p
		},
	},
	{
		// cenkalti/backoff v4.3.0 and v5.0.3 (the same defaults): ExponentialBackOff
		// InitialInterval 500ms, Multiplier 1.5, RandomizationFactor 0.5 — each interval drawn
		// from [0.5·d, 1.5·d] (exponential.go getRandomValueFromInterval) — MaxInterval 60s
		// (the cap applies before randomization: up to 90s), and Retry gives up when elapsed +
		// next > 15m (v4 exponential.go NextBackOff, v5 retry.go DefaultMaxElapsedTime); no
		// attempt limit. It retries whatever error the operation returns, for any method; the
		// operation modelled here returns an error for transport failures, 408, 429 and 5xx
		// except 501. Retry-After is not read (v5 honours it only if the operation returns
		// backoff.RetryAfter(s), which is user code).
		name:    "cenkalti",
		help:    "500ms ×1.5 ±50%, interval ≤ 60s, gives up after 15m, no attempt limit; POST retried; Retry-After ignored",
		source:  "cenkalti/backoff v4.3.0 exponential.go, retry.go; v5.0.3 exponential.go, retry.go",
		checked: checkedConformance,
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.Deadline = 15 * time.Minute
			p.Retry.MaxAttempts = policy.Unlimited
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Base, p.Retry.Multiplier, p.Retry.Cap = 500*time.Millisecond, 1.5, 60*time.Second
			p.Retry.Jitter, p.Retry.JitterFactor = policy.JitterRandomized, 0.5
			p.Retry.RetryAfter = policy.RetryAfterIgnore
			return p
		},
	},
	{
		// Polly v8 RetryStrategyOptions: MaxRetryAttempts 3, Delay 2s, BackoffType Constant,
		// UseJitter false; no timeout unless a timeout strategy is added; Retry-After not read
		// unless DelayGenerator is set; applies to any method. ShouldHandle defaults to
		// DefaultPredicates.HandleOutcome (src/Polly.Core/Utils/DefaultPredicates.cs): every
		// exception except OperationCanceledException, and no result — so with HttpClient a
		// refused or reset connection (HttpRequestException) is retried, while a 5xx or 429
		// response, and HttpClient's timeout (TaskCanceledException), are not.
		name:    "polly",
		help:    "3 retries, 2s constant, no jitter; only connection errors (exceptions) retried, not statuses or timeouts; POST retried; Retry-After ignored",
		source:  "Polly v8 RetryStrategyOptions defaults, Polly.Core Utils/DefaultPredicates.cs",
		checked: checkedSourceOnly,
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.Retry.MaxAttempts = 4
			p.Retry.On = []string{"connect", "reset"}
			p.Retry.Never = nil
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Backoff, p.Retry.Base, p.Retry.Cap = policy.BackoffConstant, 2*time.Second, 0
			p.Retry.Jitter = policy.JitterNone
			p.Retry.RetryAfter = policy.RetryAfterIgnore
			return p
		},
	},
	{
		// Laravel's HTTP client with `Http::retry(3)` on its defaults (laravel/framework
		// bd71b45, src/Illuminate/Http/Client/PendingRequest.php retry(), lines 1075–1125, as
		// docs/formats.md#laravels-http-client-and-queue reads it): $times counts attempts;
		// with no $when callback any unsuccessful response — 4xx included, Response::failed() —
		// and any ConnectionException (a refused connect and a read timeout alike) is retried;
		// $sleepMilliseconds defaults to 0; the method is not looked at; Retry-After is not read.
		// Timeouts are the client's defaults: timeout 30s, connectTimeout 10s.
		name:    "laravel-http",
		help:    "Http::retry(3): 3 attempts, 0 ms sleep, every 4xx/5xx and connection error retried; POST retried; Retry-After ignored; timeout 30s, connect 10s",
		source:  "laravel/framework bd71b45 src/Illuminate/Http/Client/PendingRequest.php retry() (lines 1075-1125)",
		checked: checkedSourceOnly,
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.ConnectTimeout, p.Timeout = 10*time.Second, 30*time.Second
			p.Retry.MaxAttempts = 3
			p.Retry.On = []string{"connect", "timeout", "reset", "4xx", "5xx"}
			p.Retry.Never = nil
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Backoff, p.Retry.Base, p.Retry.Cap = policy.BackoffNone, 0, 0
			p.Retry.Jitter = policy.JitterNone
			p.Retry.RetryAfter = policy.RetryAfterIgnore
			return p
		},
	},
	{
		// What patience recommends when nothing is measured: a connect timeout that survives
		// one lost SYN (Linux retransmits the first SYN after 1s), a 2s attempt timeout, one
		// retry at most (the seeds: a person waiting retries at most once, with a short
		// timeout, then the page says it cannot show the answer now — profile.InteractiveAttempts),
		// capped full-jitter exponential backoff (AWS Architecture Blog, "Exponential Backoff
		// And Jitter"), a 3s deadline over the whole call so it fits the shortest budget it is
		// offered for (PT004: 2 × 2s + backoff = 4.1s would not), Retry-After honoured but
		// capped, and the AWS token bucket so retries stop when most calls fail.
		name:    "recommended",
		help:    "connect 1.1s, timeout 2s, deadline 3s, 2 attempts (one retry), 100ms×2 cap 2s full jitter, Retry-After ≤ 10s, token bucket; POST only with a key; for an interactive budget of 3s or more",
		source:  "patience's own defaults for a caller with nothing measured; AWS Architecture Blog, Exponential Backoff And Jitter",
		checked: "patience's own recommendation: check passes it at interactive budgets of 3s, 5s, 10s and 30s",
		budgets: []time.Duration{3 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second},
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.ConnectTimeout, p.Timeout, p.Deadline = 1100*time.Millisecond, 2*time.Second, 3*time.Second
			p.Retry.MaxAttempts = 2
			p.Retry.NonIdempotent = policy.NonIdempotentWithKey
			p.Retry.Base, p.Retry.Multiplier, p.Retry.Cap = 100*time.Millisecond, 2, 2*time.Second
			p.Retry.Jitter = policy.JitterFull
			p.Retry.RetryAfter, p.Retry.RetryAfterMax = policy.RetryAfterHonor, 10*time.Second
			p.Budget = &policy.Budget{Kind: policy.BudgetTokenBucket, Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1}
			return p
		},
	},
}

func envoyPolicy() *policy.Policy {
	p := defaultPolicy()
	p.Timeout, p.Deadline = 15*time.Second, 15*time.Second
	p.Retry.MaxAttempts = 2
	p.Retry.On = []string{"connect", "timeout", "reset", "5xx"}
	p.Retry.Never = nil
	p.Retry.NonIdempotent = policy.NonIdempotentAlways
	p.Retry.Base, p.Retry.Multiplier, p.Retry.Cap = 25*time.Millisecond, 2, 250*time.Millisecond
	p.Retry.Jitter = policy.JitterFull
	p.Retry.RetryAfter = policy.RetryAfterIgnore
	return p
}

// Preset returns a fresh copy of the named preset (without the "preset:" prefix), named
// "preset:NAME".
func Preset(name string) (*policy.Policy, bool) {
	for _, d := range presets {
		if d.name == name {
			p := d.build()
			p.Name = "preset:" + name
			return p, true
		}
	}
	return nil, false
}

// PresetBudgets are the interactive budgets at which the named preset is offered as advice
// (check must pass it there); nil for a library's defaults.
func PresetBudgets(name string) []time.Duration {
	for _, d := range presets {
		if d.name == name {
			return d.budgets
		}
	}
	return nil
}

// PresetNames lists the presets in the order of docs/design.md §4.
func PresetNames() []string {
	out := make([]string, len(presets))
	for i, d := range presets {
		out[i] = d.name
	}
	return out
}

// PresetHelp is the --help text listing every preset, what it does and where it comes from.
func PresetHelp() string {
	var b strings.Builder
	b.WriteString("Presets (--policy preset:NAME, or base: preset:NAME in a file):\n")
	for _, d := range presets {
		fmt.Fprintf(&b, "  %-19s %s\n  %-19s source: %s\n  %-19s checked: %s\n", d.name, d.help, "", d.source, "", d.checked)
	}
	return b.String()
}
