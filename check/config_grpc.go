package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// gRPC service config JSON (docs/formats.md#retries-nobody-wrote, #grpc-service-config; grpc/grpc-proto
// grpc/service_config/service_config.proto; grpc/proposal A6-client-retries.md). JSON is
// read with yaml.v3 like the YAML formats, so every value keeps its line.

// grpcMaxAttempts: "Any value greater than 5 will be treated as if it were 5" (retryPolicy
// and hedgingPolicy).
const grpcMaxAttempts = 5

// grpcCodes are the canonical status codes by name.
var grpcCodes = map[string]int{
	"OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4, "NOT_FOUND": 5,
	"ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8, "FAILED_PRECONDITION": 9,
	"ABORTED": 10, "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12, "INTERNAL": 13, "UNAVAILABLE": 14,
	"DATA_LOSS": 15, "UNAUTHENTICATED": 16,
}

// grpcClasses maps retryable status codes to check's classes: a refused connection, a reset
// stream, an HTTP 503 or 429 from a proxy all reach the client as UNAVAILABLE (gRPC's
// HTTP-to-status mapping, doc/http-grpc-status-mapping.md [from memory]); a server error is
// INTERNAL or UNKNOWN (an HTTP 400 maps to INTERNAL); RESOURCE_EXHAUSTED is a rate limit;
// DEADLINE_EXCEEDED is the deadline, which spans every attempt, so it leaves no retry.
func grpcClasses(codes []int) []FailureClass {
	var out []FailureClass
	add := func(cs ...FailureClass) {
		for _, c := range cs {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	for _, c := range codes {
		switch c {
		case 14:
			add(FailConnect, FailReset, Fail503, Fail429)
		case 13:
			add(Fail5xx, Fail4xx)
		case 2:
			add(Fail5xx)
		case 8:
			add(Fail429)
		case 3, 5, 7, 9, 11:
			add(Fail4xx)
		case 4:
			add(FailTimeout)
		}
	}
	slices.SortFunc(out, func(a, b FailureClass) int { return slices.Index(FailureClasses, a) - slices.Index(FailureClasses, b) })
	return out
}

func grpcCodeList(cf *ConfigFile, n *yaml.Node, field string) ([]int, error) {
	var out []int
	for _, c := range items(n) {
		s := strings.ToUpper(strings.TrimSpace(scalar(c)))
		if v, ok := grpcCodes[s]; ok {
			out = append(out, v)
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v > 16 {
			return nil, configError(cf, c, field, "want a status code name such as UNAVAILABLE or a number 0–16, got %s", scalarKind(c))
		}
		out = append(out, v)
	}
	return out, nil
}

func scalarKind(n *yaml.Node) string {
	if s := scalar(n); s != "" {
		return strconv.Quote(s)
	}
	return "nothing"
}

// grpcLayers reads every methodConfig entry as a layer named after its first name
// ("pkg.Foo/Bar", "pkg.Foo", "default" for the global one).
func grpcLayers(d *configDoc) ([]*layerCandidate, error) {
	cf := d.file
	throttling := get(d.node, "retryThrottling")
	var out []*layerCandidate
	for i, mc := range items(get(d.node, "methodConfig")) {
		var names []string
		for _, n := range items(get(mc, "name")) {
			svc, m := scalar(get(n, "service")), scalar(get(n, "method"))
			switch {
			case svc == "":
				names = append(names, "default")
			case m == "":
				names = append(names, svc)
			default:
				names = append(names, svc+"/"+m)
			}
		}
		if len(names) == 0 {
			names = []string{fmt.Sprintf("methodConfig[%d]", i)}
		}
		l := newLayer("grpc", names[0], posOf(cf, mc))
		l.answer = answerApp
		if t := get(mc, "timeout"); t != nil {
			v, err := goDuration(cf, t, "methodConfig.timeout")
			if err != nil {
				return nil, err
			}
			l.pol.Deadline = v // the deadline spans every attempt: no per-try timeout
			l.pol.Timeout = v
			// A server stream's deadline ends it however healthy: a total for PT017 (the gaps
			// need a deadline reset on each message in the program).
			l.streamBound(streamBound{name: "methodConfig timeout", d: v, at: posOf(cf, t)})
		} else {
			l.addDefault("gRPC default: no deadline unless the service config or the caller sets one")
			l.checks.noTimeout = fmt.Sprintf("gRPC methodConfig %s has no timeout: no deadline unless the caller sets one, and a hung call waits forever", names[0])
		}
		l.addDefault("gRPC default: transparent retries of RPCs that never left the client (not counted in maxAttempts)")
		rp, hp := get(mc, "retryPolicy"), get(mc, "hedgingPolicy")
		switch {
		case rp != nil:
			if err := grpcRetry(cf, l, rp, "retryPolicy", "retryableStatusCodes"); err != nil {
				return nil, err
			}
		case hp != nil:
			if err := grpcRetry(cf, l, hp, "hedgingPolicy", "nonFatalStatusCodes"); err != nil {
				return nil, err
			}
			grpcHedging(l)
		}
		if (rp != nil || hp != nil) && throttling == nil {
			l.checks.noBudget = fmt.Sprintf("gRPC %s without retryThrottling: nothing stops the retries when every call fails", map[bool]string{true: "retryPolicy", false: "hedgingPolicy"}[rp != nil])
			l.setAt("PT012", posOf(cf, keyOf(mc, map[bool]string{true: "retryPolicy", false: "hedgingPolicy"}[rp != nil])))
		}
		if throttling != nil {
			l.pol.Budget = &policy.Budget{Kind: policy.BudgetTokenBucket}
		}
		out = append(out, &layerCandidate{layer: l, names: names, doc: d})
	}
	return out, nil
}

// grpcRetry reads a retryPolicy or hedgingPolicy: maxAttempts counts attempts, capped at 5.
func grpcRetry(cf *ConfigFile, l *ChainLayer, rp *yaml.Node, what, codesKey string) error {
	n := get(rp, "maxAttempts")
	if n == nil {
		return configError(cf, rp, what+".maxAttempts", "missing: gRPC requires maxAttempts (attempts, the first included; above 5 counts as 5)")
	}
	// A6: "maxAttempts MUST be specified and MUST be a JSON integer value greater than 1";
	// grpc-java rejects the service config otherwise (ManagedChannelServiceConfig:
	// "maxAttempts must be greater than 1").
	v, err := intField(cf, n, what+".maxAttempts", 2)
	if err != nil {
		return err
	}
	attempts := min(v, grpcMaxAttempts)
	l.retryAt = posOf(cf, n)
	l.retryWhy = fmt.Sprintf("%s.maxAttempts: %d (attempts)", what, v)
	if v > grpcMaxAttempts {
		l.retryWhy += ", treated as 5"
		l.addDefault("gRPC: maxAttempts above 5 is treated as 5")
	}
	if what == "retryPolicy" {
		// A6 "Validation of retryPolicy": initialBackoff and maxBackoff MUST be > 0,
		// backoffMultiplier MUST be > 0, retryableStatusCodes MUST be non-empty; grpc-java
		// (ManagedChannelServiceConfig.retryPolicy) rejects the service config otherwise.
		for _, k := range []string{"initialBackoff", "maxBackoff", "backoffMultiplier"} {
			if get(rp, k) == nil {
				return configError(cf, rp, what+"."+k, "missing: gRFC A6 requires it (grpc-java: %q)", k+" cannot be empty")
			}
		}
		if len(items(get(rp, codesKey))) == 0 {
			return configError(cf, rp, what+"."+codesKey, "missing or empty: gRFC A6 requires at least one status code to retry")
		}
	}
	codes, err := grpcCodeList(cf, get(rp, codesKey), what+"."+codesKey)
	if err != nil {
		return err
	}
	l.retryClasses(attempts, grpcClasses(codes))
	l.setAt("PT007", posOf(cf, get(rp, codesKey)))
	l.setAt("PT005", posOf(cf, get(rp, codesKey)))
	r := &l.pol.Retry
	r.NonIdempotent = policy.NonIdempotentAlways // gRPC does not know which methods are idempotent
	// A6 (2024, grpc/proposal PR #452): min(initialBackoff·multiplier^(n−1), maxBackoff) ×
	// random(0.8, 1.2).
	r.Backoff, r.Multiplier, r.Jitter, r.JitterFactor = policy.BackoffExponential, 1, policy.JitterRandomized, 0.2
	if b := get(rp, "initialBackoff"); b != nil {
		if r.Base, err = goDuration(cf, b, what+".initialBackoff"); err != nil {
			return err
		}
		if r.Base == 0 {
			return configError(cf, b, what+".initialBackoff", "want a duration above 0 (gRFC A6)")
		}
	}
	if b := get(rp, "maxBackoff"); b != nil {
		if r.Cap, err = goDuration(cf, b, what+".maxBackoff"); err != nil {
			return err
		}
		if r.Cap == 0 {
			return configError(cf, b, what+".maxBackoff", "want a duration above 0 (gRFC A6)")
		}
	}
	if m := get(rp, "backoffMultiplier"); m != nil {
		if r.Multiplier, err = floatField(cf, m, what+".backoffMultiplier"); err != nil {
			return err
		}
		if r.Multiplier == 0 {
			return configError(cf, m, what+".backoffMultiplier", "want a number above 0 (gRFC A6)")
		}
	}
	if what == "hedgingPolicy" {
		r.Backoff, r.Jitter = policy.BackoffConstant, policy.JitterNone
		if hd := get(rp, "hedgingDelay"); hd != nil {
			if r.Base, err = goDuration(cf, hd, "hedgingPolicy.hedgingDelay"); err != nil {
				return err
			}
		} else {
			// A6: "hedgingDelay is an optional field"; unset it is proto3's 0. grpc-java
			// (ManagedChannelServiceConfig.hedgingPolicy) rejects the policy instead:
			// "hedgingDelay cannot be empty".
			l.addDefault("gRFC A6: hedgingDelay unset is 0, every hedge at once (grpc-java rejects a hedgingPolicy without it)")
		}
		l.say("PT006", "gRPC hedges go out at fixed hedgingDelay intervals")
		l.say("PT013", "gRPC hedgingDelay 0 sends every hedge at once")
	}
	return nil
}

// grpcHedging marks a layer read from a hedgingPolicy. gRFC A6 ("Hedging Policy",
// grpc/proposal A6-client-retries.md): "the original RPC is sent immediately … After
// hedgingDelay has elapsed without a successful response, the second RPC will be issued …
// and so on, up to maxAttempts"; "If a non-fatal status code is received … the next hedged
// request in line is sent immediately"; any other status cancels the outstanding RPCs.
// Hedges overlap: a hang gets every hedge started before the deadline (the deadline "applies
// to the entire chain of hedged requests"), and a hedgingDelay of 0 sends every hedge at
// once, so every class, fatal or not, reaches the server maxAttempts times. The chain
// arithmetic (ChainLayer.passHedged) counts the starts per class from hedgingDelay.
func grpcHedging(l *ChainLayer) {
	n := l.pol.Retry.MaxAttempts
	l.hedge = &hedging{delay: l.pol.Retry.Base, attempts: n, nonFatal: map[FailureClass]bool{}}
	for c, v := range l.retry {
		if v > 1 {
			l.hedge.nonFatal[c] = true
		}
	}
	// What the layer makes for a failure of each class at the server itself (JSON
	// layers[].attempts): a hang gets every hedge; with hedgingDelay 0 every class does.
	l.retry[FailTimeout] = n
	if l.hedge.delay == 0 {
		for _, c := range FailureClasses {
			l.retry[c] = n
		}
	}
	if l.hedge.delay == 0 {
		l.retryWhy += "; hedgingDelay 0: every hedge at once"
	} else {
		l.retryWhy += fmt.Sprintf("; a hedge every %s, overlapping", units.Duration(l.hedge.delay))
	}
}
