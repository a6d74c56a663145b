package emit

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/patience-dev/patience/internal/units"
)

// grpcWriter writes the recommendation as a gRPC service config (grpc/grpc
// doc/service_config.md; gRFC A6 client retries: methodConfig timeout and retryPolicy,
// retryThrottling), as check reads it (check/config_grpc.go, docs/formats.md). The file is
// JSON, which has no comments: what each knob bounds is in the emission's settings.
var grpcWriter = writer{target: GRPC, kind: KindConfig, language: "json", write: writeGRPC}

// grpcMaxAttempts is gRPC's client-side cap on maxAttempts (gRFC A6 "Limits on Retries and
// Hedges": "by default, a client-side maximum value of 5").
const grpcMaxAttempts = 5

// The conservative retryThrottling written when no load was measured: gRFC A6's own example
// (10 tokens, 0.1 per success: retries stop once failures outrun successes ten to one).
const (
	grpcDefaultMaxTokens  = 10
	grpcDefaultTokenRatio = 0.1
)

type grpcServiceConfig struct {
	MethodConfig    []grpcMethodConfig `json:"methodConfig"`
	RetryThrottling *grpcThrottling    `json:"retryThrottling,omitempty"`
}

type grpcMethodConfig struct {
	Name        []struct{}       `json:"name"`
	Timeout     string           `json:"timeout"`
	RetryPolicy *grpcRetryPolicy `json:"retryPolicy,omitempty"`
}

type grpcRetryPolicy struct {
	MaxAttempts          int      `json:"maxAttempts"`
	InitialBackoff       string   `json:"initialBackoff"`
	MaxBackoff           string   `json:"maxBackoff"`
	BackoffMultiplier    float64  `json:"backoffMultiplier"`
	RetryableStatusCodes []string `json:"retryableStatusCodes"`
}

type grpcThrottling struct {
	MaxTokens  int     `json:"maxTokens"`
	TokenRatio float64 `json:"tokenRatio"`
}

func writeGRPC(in Input) (Emission, error) {
	p := planOf(in)
	var set []Setting
	add := func(knob, value, bounds string) { set = append(set, Setting{Knob: knob, Value: value, Bounds: bounds}) }
	add("methodConfig.name", "[{}]", "every method of the channel's service (an empty name is the default method config)")
	mc := grpcMethodConfig{Name: []struct{}{{}}, Timeout: secondsText(grpcDeadline(p))}
	why := p.deadlineWhy() + "; gRPC's deadline applies across all attempts (gRFC A6)"
	if p.attempts == 1 && !p.job {
		why = "bounds the one attempt: the recommended total (gRPC's one timeout; with no retry, the deadline is the attempt's)"
	}
	add("methodConfig.timeout", mc.Timeout, why)
	sc := grpcServiceConfig{}
	if p.attempts > 1 {
		r := p.retry
		rp := &grpcRetryPolicy{MaxAttempts: min(p.attempts, grpcMaxAttempts), InitialBackoff: secondsText(r.Base), MaxBackoff: secondsText(r.Cap), BackoffMultiplier: r.Multiplier, RetryableStatusCodes: []string{"UNAVAILABLE"}}
		mc.RetryPolicy = rp
		add("retryPolicy.maxAttempts", strconv.Itoa(rp.MaxAttempts), p.attemptsWhy())
		add("retryPolicy.initialBackoff", rp.InitialBackoff, "the first backoff's bound; gRPC's backoff is fully jittered: attempt n waits random(0, min(initialBackoff·multiplier^(n−1), maxBackoff))")
		add("retryPolicy.maxBackoff", rp.MaxBackoff, "caps every backoff wait")
		add("retryPolicy.backoffMultiplier", strconv.FormatFloat(rp.BackoffMultiplier, 'f', -1, 64), "the factor between two backoff bounds")
		add("retryPolicy.retryableStatusCodes", "UNAVAILABLE", "what is retried: UNAVAILABLE only (the connection failed, or the server or a proxy was unavailable: 502, 503, 504 arrive as it)")
		sc.RetryThrottling = grpcThrottle(p, add)
	}
	sc.MethodConfig = []grpcMethodConfig{mc}
	data, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		return Emission{}, err
	}
	return Emission{Text: string(data) + "\n", Settings: set, Missing: grpcMissing(p)}, nil
}

// grpcDeadline is methodConfig.timeout, gRPC's one timeout: the deadline around the attempts,
// or, with one attempt, that attempt's total — a budget longer than it would let a hung call
// hold the caller past the recommended total (measured in grpc-go: a hang under a 4 s timeout
// ends at 4 s, whatever the attempt's own bound).
func grpcDeadline(p configPlan) time.Duration {
	if p.attempts == 1 {
		return p.total
	}
	return p.deadline
}

// grpcThrottle is retryThrottling from the measured retry budget, else gRFC A6's example.
func grpcThrottle(p configPlan, add func(knob, value, bounds string)) *grpcThrottling {
	t, from := &grpcThrottling{MaxTokens: grpcDefaultMaxTokens, TokenRatio: grpcDefaultTokenRatio}, "a conservative fixed value (gRFC A6's example): no load was measured to size it"
	if b := p.in.Rec.RetryBudget; b != nil && b.MaxTokens > 0 {
		t.MaxTokens, t.TokenRatio = b.MaxTokens, b.TokenRatio
		from = fmt.Sprintf("sized from the measured load: %s/s", units.Sig(b.RatePerS))
	}
	add("retryThrottling.maxTokens", strconv.Itoa(t.MaxTokens), "each failure takes a token; retries stop while the tokens are at or below half of this ("+from+")")
	add("retryThrottling.tokenRatio", strconv.FormatFloat(t.TokenRatio, 'f', -1, 64), "the token each success gives back ("+from+")")
	return t
}

// grpcMissing lists what a gRPC service config cannot express.
func grpcMissing(p configPlan) []string {
	var out []string
	if p.attempts > 1 {
		out = append(out, fmt.Sprintf("a gRPC service config has no per-attempt timeout: methodConfig.timeout is the deadline for all attempts, so the %s bound on each attempt is not written; a hung attempt holds the call until the deadline and leaves no time for a retry", units.Duration(p.total)))
	}
	out = append(out,
		fmt.Sprintf("a gRPC service config has no connect timeout: the channel's (grpc-go ConnectParams.MinConnectTimeout, grpc-java's NettyChannelBuilder CONNECT_TIMEOUT_MILLIS) bounds it; set it to %s", units.Duration(p.connectOrTotal())),
		"a gRPC service config has no comments (JSON): what each knob bounds is in settings[]")
	if p.read > 0 {
		out = append(out, fmt.Sprintf("gRPC has no read timeout: the %s bound on each silence needs keepalive (grpc-go keepalive.ClientParameters Time/Timeout) or the caller", units.Duration(p.read)))
	}
	if p.attempts > 1 {
		out = append(out, "gRPC does not read Retry-After: the server's pushback is grpc-retry-pushback-ms (gRFC A6), which gRPC honours; a RESOURCE_EXHAUSTED is not retried")
		if p.attempts > grpcMaxAttempts {
			out = append(out, fmt.Sprintf("gRPC caps maxAttempts at %d by default: the recommended %d needs the channel's max retry attempts raised", grpcMaxAttempts, p.attempts))
		}
	}
	return out
}
