package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
)

// presetDef is one preset: what users get when they pick a library's defaults, and where
// those defaults come from.
type presetDef struct {
	name   string
	help   string // one line for --help
	source string
	build  func() *policy.Policy
}

// presets follow DESIGN §4. Each constructor builds a fresh value, so callers may modify what
// Preset returns. Where a library has a mechanism our policy model does not have, the nearest
// model is used and the comment says so.
var presets = []presetDef{
	{
		name:   "none",
		help:   "no timeout, no retry",
		source: "Go's http.DefaultClient and most HTTP clients out of the box (Timeout: 0)",
		build: func() *policy.Policy {
			return defaultPolicy()
		},
	},
	{
		// A hand-written retry loop: `for i := 0; i < 4; i++ { resp, err = do(); if ok { break } }`.
		// No timeout (http.DefaultClient), no backoff, no jitter, retries anything that is not
		// a 2xx — 4xx and POSTs included — and ignores Retry-After.
		name:   "naive",
		help:   "3 immediate retries, no jitter, no timeout, everything retried (4xx and POST too)",
		source: "the retry loop everyone writes once",
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
		// AWS SDKs, standard retry mode: 3 attempts; backoff b·2^(n−1)·U[0,1] with base 1s capped
		// at 20s (MAX_BACKOFF); a client-side token bucket of 500 where a retry costs 5, a retry
		// after a timeout 10, and a success without retry refunds 1. Retried: throttling (429)
		// and transient errors (500, 502, 503, 504, connection errors, timeouts). The SDKs set no
		// per-attempt timeout by default and do not read Retry-After. Non-idempotent operations
		// carry client tokens (ClientToken), modelled as with_key.
		// Source: AWS SDKs and Tools Reference Guide, "Retry behavior" (standard mode).
		name:   "aws-standard",
		help:   "3 attempts, full jitter base 1s cap 20s, token bucket 500/5/10/+1",
		source: "AWS SDKs and Tools Reference Guide, Retry behavior, standard mode",
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.Retry.MaxAttempts = 3
			p.Retry.On = []string{"connect", "timeout", "reset", "429", "500", "502", "503", "504"}
			p.Retry.NonIdempotent = policy.NonIdempotentWithKey
			p.Retry.Base, p.Retry.Multiplier, p.Retry.Cap = time.Second, 2, 20*time.Second
			p.Retry.Jitter = policy.JitterFull
			p.Retry.RetryAfter = policy.RetryAfterIgnore
			p.Budget = &policy.Budget{Kind: policy.BudgetTokenBucket, Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1}
			return p
		},
	},
	{
		// gRFC A6 "gRPC Retry Design": retry n waits random(0, min(initialBackoff ·
		// backoffMultiplier^(n−1), maxBackoff)); values from the proposal's example service
		// config (maxAttempts 4, initialBackoff 0.1s, maxBackoff 1s, multiplier 2, retryable
		// UNAVAILABLE ≈ HTTP 503 and connection failures). Server pushback is honoured
		// uncapped. A6's own throttling bucket (maxTokens, tokenRatio) has no exact equivalent
		// here and is left out. Deadline-exceeded is not retried by default.
		name:   "grpc",
		help:   "4 attempts, full jitter U[0, min(100ms·2^(n-1), 1s)], UNAVAILABLE retried",
		source: "gRFC A6 gRPC Retry Design (example service config)",
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.Retry.MaxAttempts = 4
			p.Retry.On = []string{"connect", "reset", "503"}
			p.Retry.NonIdempotent = policy.NonIdempotentWithKey
			p.Retry.Base, p.Retry.Multiplier, p.Retry.Cap = 100*time.Millisecond, 2, time.Second
			p.Retry.Jitter = policy.JitterFull
			p.Retry.RetryAfterMax = 0
			return p
		},
	},
	{
		// Envoy route retry policy defaults: num_retries 1, base_interval 25ms, max_interval
		// 10 × base = 250ms, fully jittered exponential; route timeout 15s (per_try_timeout
		// defaults to it). retry_on has no default; "5xx,reset,connect-failure" is the usual
		// choice, and Envoy does not look at the method. The default cluster circuit breaker
		// max_retries = 3 (retries in flight at once) is a concurrency cap our budget model
		// cannot express exactly; it is left out.
		// Source: Envoy docs, config.route.v3.RetryPolicy and cluster CircuitBreakers.
		name:   "envoy",
		help:   "1 retry, full jitter base 25ms cap 250ms, 15s route timeout",
		source: "Envoy RetryPolicy and circuit breaker defaults",
		build: func() *policy.Policy {
			p := envoyPolicy()
			return p
		},
	},
	{
		// Envoy with the opt-in retry budget (budget_percent 20%, min_retry_concurrency 3).
		// Envoy counts retries in flight against active requests; modelled as a ratio budget
		// of 20% over 10s plus 3 retries per second.
		name:   "envoy-budget",
		help:   "envoy with the opt-in retry budget: 20% of requests, at least 3",
		source: "Envoy CircuitBreakers.Thresholds.RetryBudget",
		build: func() *policy.Policy {
			p := envoyPolicy()
			p.Budget = &policy.Budget{Kind: policy.BudgetRatio, Percent: 0.2, MinPerS: 3, Window: 10 * time.Second}
			return p
		},
	},
	{
		// hashicorp/go-retryablehttp: RetryWaitMin 1s, RetryWaitMax 30s, RetryMax 4 (5
		// attempts); DefaultBackoff sleeps min·2^attempt capped at max (1, 2, 4, 8s, no jitter)
		// and honours Retry-After on 429/503 without a cap; DefaultRetryPolicy retries
		// connection errors, 429 and 5xx except 501, for any method (the body is rewound).
		// The underlying cleanhttp client has no overall timeout; its dialer times out at 30s.
		name:   "retryablehttp",
		help:   "5 attempts, 1,2,4,8s no jitter, 429 and 5xx except 501, Retry-After uncapped",
		source: "hashicorp/go-retryablehttp client.go defaults",
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.ConnectTimeout = 30 * time.Second
			p.Retry.MaxAttempts = 5
			p.Retry.On = []string{"connect", "timeout", "reset", "429", "5xx"}
			p.Retry.Never = []int{501}
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Base, p.Retry.Multiplier, p.Retry.Cap = time.Second, 2, 30*time.Second
			p.Retry.Jitter = policy.JitterNone
			p.Retry.RetryAfter, p.Retry.RetryAfterMax = policy.RetryAfterHonor, 0
			return p
		},
	},
	{
		// cenkalti/backoff v4 ExponentialBackOff: InitialInterval 500ms, Multiplier 1.5,
		// RandomizationFactor 0.5 (each interval drawn from [0.5·d, 1.5·d]: jitter randomized),
		// MaxInterval 60s, MaxElapsedTime 15m, no attempt limit. The library retries whatever
		// error the operation returns, for any method.
		name:   "cenkalti",
		help:   "500ms ×1.5 ±50%, max interval 60s, gives up after 15m, no attempt limit",
		source: "cenkalti/backoff v4 exponential.go defaults",
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
		// unless DelayGenerator is set; applies to any method.
		name:   "polly",
		help:   "3 retries, 2s constant, no jitter",
		source: "Polly v8 RetryStrategyOptions defaults",
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.Retry.MaxAttempts = 4
			p.Retry.NonIdempotent = policy.NonIdempotentAlways
			p.Retry.Backoff, p.Retry.Base, p.Retry.Cap = policy.BackoffConstant, 2*time.Second, 0
			p.Retry.Jitter = policy.JitterNone
			p.Retry.RetryAfter = policy.RetryAfterIgnore
			return p
		},
	},
	{
		// What `probe` recommends when it has nothing measured: a connect timeout that survives
		// one lost SYN (Linux retransmits the first SYN after 1s), a 2s attempt timeout, 3
		// attempts with capped full-jitter exponential backoff (AWS Architecture Blog,
		// "Exponential Backoff And Jitter"), Retry-After honoured but capped, and the AWS token
		// bucket so retries stop when most calls fail.
		name:   "recommended",
		help:   "connect 1.1s, timeout 2s, 3 attempts, 100ms×2 cap 2s full jitter, Retry-After ≤ 10s, token bucket",
		source: "DESIGN §7 defaults; AWS Architecture Blog, Exponential Backoff And Jitter",
		build: func() *policy.Policy {
			p := defaultPolicy()
			p.ConnectTimeout, p.Timeout = 1100*time.Millisecond, 2*time.Second
			p.Retry.MaxAttempts = 3
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

// PresetNames lists the presets in the order of DESIGN §4.
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
		fmt.Fprintf(&b, "  %-14s %s\n  %-14s source: %s\n", d.name, d.help, "", d.source)
	}
	return b.String()
}
