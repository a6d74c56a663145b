package scenario

import (
	"fmt"
	"strconv"

	"github.com/patience-dev/patience/policy"
)

// The policy tables: a policy mapping in a scenario (policy:, policies:, layers[].policy),
// a policy file (--policy FILE) and a check file dependency's policy: all read these keys.
// Their defaults are defaultPolicy's, defaultBudget's and defaultBreaker's values.

// zeroPolicy is what a policy that sets nothing gets: the values the tables print as defaults.
var zeroPolicy = defaultPolicy()

var policyTable = newTable("policy", "policy", "policy, policies[], layers[].policy, a policy file (--policy FILE), a check file dependency's policy",
	"A caller's timeout and retry policy for one dependency. Wherever a policy goes, `preset:NAME` "+
		"(a library's defaults, see [Presets](#presets)) may stand instead of a mapping. Fields not set keep the "+
		"base:'s value, or the default below.",
	field{Name: "name", decode: (*policyReader).name, Type: "string", Default: singlePolicyName + " for policy:; the base: it names in policies:; the layer's name in a layer; the file's name for --policy FILE",
		Doc: "Labels the policy's column in reports; names are unique in a file.", Example: "name: ours"},
	field{Name: "base", Type: "preset:NAME, or the name of a policy of this file", Default: "none",
		Doc:     "Start from that policy (in any order in the file; cycles are errors) and override only the fields given here.",
		Example: "base: preset:aws-standard\nname: aws\ntimeout: 2s"},
	field{Name: "connect_timeout", decode: (*policyReader).connectTimeout, Type: "duration above 0, or none", Default: durOrNone(zeroPolicy.ConnectTimeout),
		Doc: "Bounds connection set-up.", Example: "connect_timeout: 1100ms"},
	field{Name: "timeout", decode: (*policyReader).timeout, Type: "duration above 0, or none", Default: durOrNone(zeroPolicy.Timeout) + " (wait forever)",
		Doc: "Bounds one attempt, connect included.", Example: "timeout: 2s"},
	field{Name: "read_timeout", decode: (*policyReader).readTimeout, Type: "duration above 0, or none", Default: durOrNone(zeroPolicy.ReadTimeout),
		Doc: "Bounds each silence of an attempt once the request is written: the wait for the first byte, then every pause between two reads " +
			"(Python requests' read timeout, OkHttp's readTimeout, nginx's proxy_read_timeout). It never bounds the whole response — one dripping a byte " +
			"just inside it never ends — so keep a timeout: beside it (check: PT001 without one, PT015 when it is not below it). " +
			"`patience probe` recommends one (read_timeout_ms). Replay applies it: a response whose head takes that long, a hang, and a drip fault whose pieces come at least that far apart end at it, with reason read_timeout (a timeout: the server may have acted; on: [timeout] retries it).",
		Example: "read_timeout: 1s"},
	field{Name: "first_event_timeout", decode: (*policyReader).firstEventTimeout, Type: "duration above 0, or none", Default: durOrNone(zeroPolicy.FirstEventTimeout) + " (read_timeout bounds it)",
		Doc: "For a streaming target: bounds the wait for the stream's first event, so that read_timeout bounds only the gaps between events (the idle timeout). " +
			"A slow first token and a stalled stream want different bounds: `patience probe` recommends both (first_event_timeout_ms, idle_timeout_ms). Its expiry is a read timeout (reason read_timeout). Other responses ignore it.",
		Example: "first_event_timeout: 3m\nread_timeout: 25s"},
	field{Name: "deadline", decode: (*policyReader).deadline, Type: "duration above 0, or none", Default: durOrNone(zeroPolicy.Deadline),
		Doc:     "Bounds the whole logical request, backoff included: an attempt the remaining deadline cannot hold is not started, and an attempt's timeout is min(timeout, remaining deadline).",
		Example: "deadline: 20s"},
	field{Name: "idempotency_key", decode: (*policyReader).idempotencyKey, Type: "boolean", Default: "load.request's idempotency_key",
		Doc:     "Overrides the request's idempotency_key for this policy, so one scenario can compare sending a key with not sending one.",
		Example: "idempotency_key: true"},
	field{Name: "retry", decode: (*policyReader).retry, Type: "mapping, or none", Default: "no retry", Table: "retry", Shape: shapeMapping,
		Doc: "Which failures are retried and how long to wait; none is max_attempts: 1.", Example: "retry: {max_attempts: 3, base: 100ms, cap: 2s}"},
	field{Name: "budget", decode: (*policyReader).budget, Type: "mapping, or none", Default: "none", Table: "budget", Shape: shapeMapping,
		Doc: "A retry budget shared by the requests of one client, so retries stop when most calls fail.", Example: "budget: {kind: token_bucket}"},
	field{Name: "breaker", decode: (*policyReader).breaker, Type: "mapping, or none", Default: "none", Table: "breaker", Shape: shapeMapping,
		Doc: "A failure-rate circuit breaker per client.", Example: "breaker: {failure_rate: 50%, open_for: 30s}"},
	field{Name: "bulkhead", decode: (*policyReader).bulkhead, Type: "mapping, or none", Default: "none", Table: "bulkhead", Shape: shapeMapping,
		Doc: "Caps a client's calls in flight to the dependency.", Example: "bulkhead: {max_concurrent: 2}"},
	field{Name: "fallback", decode: (*policyReader).fallback, Type: "boolean", Default: strconv.FormatBool(zeroPolicy.Fallback),
		Doc: "Breaker and bulkhead rejections are answered from a fallback: degraded, not failed.", Example: "fallback: true"},
	field{Name: "layers", Type: "list of layer mappings", Default: "the scenario's layers:", Table: "layer", Shape: shapeList,
		Doc:     "The callers above this policy, caller first, instead of the scenario's (an empty list: none). Not in a layer's own policy: layers do not nest.",
		Example: "layers: [{name: browser, policy: {retry: {max_attempts: 3, backoff: constant, base: 3s}}}]"},
)

// nestedPolicyTable is policyTable without layers:, for the policy of a layer.
var nestedPolicyTable = policyTable.without("layers")

var retryTable = newTable("retry", "policy.retry", "a policy's retry",
	"Retry n is the n-th retry (n ≥ 1); d(n) is its delay before jitter. retry: none is max_attempts: 1.",
	field{Name: "max_attempts", decode: (*retryReader).maxAttempts, Type: "integer ≥ 1, or unlimited", Default: strconv.Itoa(zeroPolicy.Retry.MaxAttempts) + " (no retry)",
		Doc: "Attempts per logical request, the first try included; unlimited retries until success or the deadline.", Example: "max_attempts: 4"},
	field{Name: "on", decode: (*retryReader).on, Type: "list of connect, refused, connect_timeout, timeout, reset, statuses 400–599 and 4xx, 5xx", Default: listText(policy.DefaultRetryOn),
		Doc:     "What is retried. Outcome-unknown failures (5xx, timeout, reset) of a non-idempotent request are still retried only as non_idempotent allows; 409 means the same key still in flight — write never: [409] where it means \"already exists\".",
		Example: "on: [connect, timeout, 429, 5xx]"},
	field{Name: "never", decode: (*retryReader).never, Type: "list of statuses 100–599", Default: listText(zeroPolicy.Retry.Never),
		Doc: "Statuses never retried, even when on names them.", Example: "never: [501, 409]"},
	field{Name: "non_idempotent", decode: (*retryReader).nonIdempotent, Type: choiceType(policy.NonIdempotents()), Default: string(zeroPolicy.Retry.NonIdempotent),
		Doc:     "Whether outcome-unknown failures of a non-idempotent request (POST, PATCH) are retried: never, only with an idempotency key, or always (check flags always).",
		Example: "non_idempotent: with_key"},
	field{Name: "backoff", decode: (*retryReader).backoff, Type: choiceType(policy.Backoffs()), Default: string(zeroPolicy.Retry.Backoff),
		Doc:     "d(n): none 0; constant base; linear n·base; exponential min(cap, base·multiplier^(n−1)); decorrelated min(cap, U[base, 3·d(n−1)]), random already; list delays[min(n, len)−1].",
		Example: "backoff: constant\nbase: 3s"},
	field{Name: "base", decode: (*retryReader).base, Type: "duration", Default: FormatDuration(zeroPolicy.Retry.Base),
		Doc: "The base of d(n). 0s retries at once (check reports it as PT013).", Example: "base: 250ms"},
	field{Name: "multiplier", decode: (*retryReader).multiplier, Type: "number ≥ 1", Default: numText(zeroPolicy.Retry.Multiplier),
		Doc: "The growth of exponential backoff.", Example: "multiplier: 1.5"},
	field{Name: "cap", decode: (*retryReader).cap, Type: "duration above 0, or none", Default: durOrNone(zeroPolicy.Retry.Cap),
		Doc: "The largest d(n), not below base; none leaves it uncapped.", Example: "cap: 30s"},
	field{Name: "delays", decode: (*retryReader).delays, Type: "list of durations", Default: "none",
		Doc: "The waits of backoff: list; past the end the last repeats.", Example: "backoff: list\ndelays: [10s, 30s, 90s]"},
	field{Name: "jitter", decode: (*retryReader).jitter, Type: choiceType(policy.Jitters()), Default: string(zeroPolicy.Retry.Jitter),
		Doc:     "How d(n) is randomised: none d; full U[0, d]; equal d/2 + U[0, d/2]; proportional d + U[0, f·d]; randomized U[d·(1−f), d·(1+f)].",
		Example: "jitter: none"},
	field{Name: "jitter_factor", decode: (*retryReader).jitterFactor, Type: numberType, Default: numText(zeroPolicy.Retry.JitterFactor),
		Doc: "The f of proportional (above 0) and randomized (above 0, at most 1) jitter.", Example: "jitter: proportional\njitter_factor: 0.25"},
	field{Name: "retry_after", decode: (*retryReader).retryAfter, Type: choiceType(policy.RetryAfterModes()), Default: string(zeroPolicy.Retry.RetryAfter),
		Doc:     "A server's Retry-After: honor waits max(jittered d(n), Retry-After), bounded by retry_after_max; ignore; replace waits exactly the Retry-After; replace_reset also restarts the backoff.",
		Example: "retry_after: ignore"},
	field{Name: "retry_after_max", decode: (*retryReader).retryAfterMax, Type: "duration above 0, or none", Default: durOrNone(zeroPolicy.Retry.RetryAfterMax),
		Doc: "The longest Retry-After honoured; none leaves it uncapped.", Example: "retry_after_max: 10s"},
)

var tokenBucket, ratioBudget = defaultBudget(policy.BudgetTokenBucket), defaultBudget(policy.BudgetRatio)

var budgetTable = newTable("budget", "policy.budget", "a policy's budget",
	"A retry budget per client: the token bucket (AWS SDK standard retry mode) or the ratio "+
		"budget (SRE book ch. 22, Finagle). Each kind takes its own fields. budget: none removes a base:'s.",
	field{Name: "kind", Type: choiceType(policy.BudgetKinds()), Default: "required, unless base: has a budget",
		Doc: "Which budget.", Example: "kind: ratio"},
	field{Name: "capacity", decode: (*budgetReader).capacity, Type: "number above 0", Default: numText(tokenBucket.Capacity), Kind: string(policy.BudgetTokenBucket),
		Doc: "Tokens the bucket holds; it starts full, and a retry is refused when the tokens are below its cost.", Example: "kind: token_bucket\ncapacity: 100"},
	field{Name: "retry_cost", decode: (*budgetReader).retryCost, Type: numberType, Default: numText(tokenBucket.RetryCost), Kind: string(policy.BudgetTokenBucket),
		Doc: "Tokens a retry costs.", Example: "kind: token_bucket\nretry_cost: 5"},
	field{Name: "timeout_cost", decode: (*budgetReader).timeoutCost, Type: numberType, Default: numText(tokenBucket.TimeoutCost), Kind: string(policy.BudgetTokenBucket),
		Doc: "Tokens a retry after a timeout costs.", Example: "kind: token_bucket\ntimeout_cost: 10"},
	field{Name: "refill", decode: (*budgetReader).refill, Type: numberType, Default: numText(tokenBucket.Refill), Kind: string(policy.BudgetTokenBucket),
		Doc: "Tokens a first-try success puts back.", Example: "kind: token_bucket\nrefill: 1"},
	field{Name: "percent", decode: (*budgetReader).percent, Type: "percentage", Default: pctText(ratioBudget.Percent), Kind: string(policy.BudgetRatio),
		Doc: "Retries allowed as a share of the requests in window.", Example: "kind: ratio\npercent: 10%"},
	field{Name: "min_per_s", decode: (*budgetReader).minPerS, Type: numberType, Default: numText(ratioBudget.MinPerS), Kind: string(policy.BudgetRatio),
		Doc: "Retries per second allowed on top of percent.", Example: "kind: ratio\nmin_per_s: 3"},
	field{Name: "window", decode: (*budgetReader).window, Type: "duration above 0", Default: FormatDuration(ratioBudget.Window), Kind: string(policy.BudgetRatio),
		Doc: "The window percent counts requests over.", Example: "kind: ratio\nwindow: 30s"},
)

var breakerTable = newTable("breaker", "policy.breaker", "a policy's breaker",
	"Closed → open when the failure share reaches failure_rate over at least min_requests in window; "+
		"open rejects for open_for; half-open admits half_open probes: a success closes it, a failure re-opens it. "+
		"breaker: none removes a base:'s.",
	field{Name: "failure_rate", decode: (*breakerReader).failureRate, Type: "percentage above 0%", Default: pctText(defaultBreaker().FailureRate),
		Doc: "The failure share that opens the breaker.", Example: "failure_rate: 50%"},
	field{Name: "min_requests", decode: (*breakerReader).minRequests, Type: intType(1, 0), Default: strconv.Itoa(defaultBreaker().MinRequests),
		Doc: "Requests in window before the breaker may open.", Example: "min_requests: 20"},
	field{Name: "window", decode: (*breakerReader).window, Type: "duration above 0", Default: FormatDuration(defaultBreaker().Window),
		Doc: "The window the failure share is measured over.", Example: "window: 10s"},
	field{Name: "open_for", decode: (*breakerReader).openFor, Type: "duration above 0", Default: FormatDuration(defaultBreaker().OpenFor),
		Doc: "How long an open breaker rejects calls.", Example: "open_for: 30s"},
	field{Name: "half_open", decode: (*breakerReader).halfOpen, Type: intType(1, 0), Default: strconv.Itoa(defaultBreaker().HalfOpen),
		Doc: "Probes admitted when half-open.", Example: "half_open: 3"},
)

var bulkheadTable = newTable("bulkhead", "policy.bulkhead", "a policy's bulkhead",
	"A cap on a client's concurrent calls to the dependency. bulkhead: none removes a base:'s.",
	field{Name: "max_concurrent", Type: intType(1, 0), Default: "required",
		Doc:     "Calls in flight at once; one more is rejected at once (answered from the fallback with fallback: true), so the other workers stay free.",
		Example: "max_concurrent: 2"},
)

var layerTable = newTable("layer", "layers[]", "layers[], policy.layers[]",
	"One caller above the policy: an attempt at layer k issues a whole logical request at layer k+1, "+
		"and the policy itself is the bottom layer that calls the dependency.",
	field{Name: "name", Type: "string", Default: fmt.Sprintf(layerNameFormat, 1) + ", " + fmt.Sprintf(layerNameFormat, 2) + ", … by place",
		Doc: "Labels the layer; unique in its list.", Example: "name: gateway\npolicy: {timeout: 10s}"},
	field{Name: "policy", Type: "policy mapping (no layers:) or preset:NAME", Default: "required", Table: "policy", Shape: shapeMapping,
		Doc: "The policy this layer applies to its calls.", Example: "name: gateway\npolicy: {timeout: 10s, retry: {max_attempts: 3}}"},
)

// referenceTables are the tables in the order docs/scenario.md lists them.
var referenceTables = []*fieldTable{
	scenarioTable, lessonTable, loadTable, requestTable, targetTable, distributionTable,
	exponentialTable, lognormalTable, capacityTable, streamTable, streamEventsTable, streamStallTable, phaseTable, faultTable, retryAfterTable,
	policyTable, retryTable, budgetTable, breakerTable, bulkheadTable, layerTable, expectTable,
}
