package check

import (
	"fmt"
	"strings"
)

// Level is how serious a finding is. The gate (--fail-on) compares levels: an error is at
// or above both thresholds, a warning only at or above "warning".
type Level string

// Levels, from most to least serious.
const (
	LevelError   Level = "error"
	LevelWarning Level = "warning"
)

// Levels lists the values of --fail-on and of `rules.levels` in the file.
var Levels = []string{string(LevelError), string(LevelWarning)}

// rank orders levels so AtLeast can compare them.
func (l Level) rank() int {
	switch l {
	case LevelError:
		return 2
	case LevelWarning:
		return 1
	}
	return 0
}

// AtLeast says whether l is as serious as threshold or more.
func (l Level) AtLeast(threshold Level) bool { return l.rank() >= threshold.rank() && l.rank() > 0 }

// ParseLevel reads "error" or "warning".
func ParseLevel(s string) (Level, error) {
	switch Level(s) {
	case LevelError, LevelWarning:
		return Level(s), nil
	}
	return "", fmt.Errorf("unknown level %q: want one of %s", s, strings.Join(Levels, ", "))
}

// Rule is one check with a stable ID (DESIGN §8). IDs never change meaning; a retired rule
// keeps its number.
type Rule struct {
	ID string `json:"id"`
	// Name is a short CamelCase handle (SARIF reportingDescriptor.name).
	Name  string `json:"name"`
	Title string `json:"title"`
	// Level is the default level; `rules.levels` in the file overrides it.
	Level Level `json:"level"`
	// Help says why the rule exists and how to fix what it finds.
	Help string `json:"help"`
}

// Catalog is every rule `check` knows, in ID order. Default levels: a finding that will
// break production on the first bad day (no timeout, a retried charge without a key, a
// chain that cannot fit its budget, multiplied load, a job that runs twice, an expectation
// the user wrote down) is an error; a risk that depends on traffic or on the dependency's
// behaviour is a warning.
var Catalog = []Rule{
	{ID: "PT001", Name: "MissingTimeout", Title: "timeout missing or none", Level: LevelError,
		Help: "Without a timeout a hung dependency holds the caller's worker forever: requests pile up behind it until the caller runs out of workers (and a dead connection never comes back). Set `timeout:` to a little above the dependency's p99.9 (`patience probe URL` measures it)."},
	{ID: "PT002", Name: "ConnectTimeoutNotBelowTimeout", Title: "connect timeout not below the total timeout", Level: LevelWarning,
		Help: "The attempt timeout includes connection set-up, so a connect_timeout at or above it never fires: a lost SYN or an unreachable host costs a whole attempt instead of a quick, always-safe retry. Keep connect_timeout well below timeout (about 1.1s survives one lost SYN)."},
	{ID: "PT003", Name: "TimeoutExceedsCallerBudget", Title: "attempt timeout exceeds the caller's budget", Level: LevelError,
		Help: "One attempt may wait longer than the caller itself waits (the interactive budget or the job timeout): the caller gives up first and the call goes on with nobody waiting for its answer. Lower timeout below the budget, or give the caller more time."},
	{ID: "PT004", Name: "RetriesExceedCallerBudget", Title: "attempts × timeout + backoff exceed the caller's budget", Level: LevelError,
		Help: "In the worst case every attempt times out and every backoff waits its longest (jitter upper bound, and Retry-After up to retry_after_max when honoured). If that sum exceeds the caller's budget, the last attempts run after the caller gave up: load with no benefit. Lower max_attempts or timeout, or set `deadline:` to the budget so the policy stops on time."},
	{ID: "PT005", Name: "NonIdempotentRetryWithoutKey", Title: "non-idempotent request retried without an idempotency key", Level: LevelError,
		Help: "A timeout, reset or 5xx leaves the outcome unknown: the provider may have committed before the answer was lost. Retrying a POST/PATCH then executes it twice (two charges, two shipments). Send an Idempotency-Key (the same key on every retry) and use `non_idempotent: with_key`, or do not retry outcome-unknown failures (`non_idempotent: never`). Reported for `non_idempotent: always` without a key (request or policy idempotency_key); `with_key` without a key retries no unknown outcome, as in the simulator, so it is safe and not reported."},
	{ID: "PT006", Name: "RetriesWithoutJitter", Title: "retries without jitter", Level: LevelWarning,
		Help: "Without jitter every client that failed together retries together: the retries arrive as synchronized waves that hit a recovering dependency at the same instant (AWS Architecture Blog, \"Exponential Backoff And Jitter\", 2015). Use `jitter: full` (or decorrelated backoff)."},
	{ID: "PT007", Name: "RetriesOnClientErrors", Title: "retries on 4xx other than 408/409/429", Level: LevelWarning,
		Help: "A 4xx other than 408 (request timeout), 409 (conflict, e.g. the same key still in flight) and 429 (too many requests) says the request itself is wrong; sending it again fails the same way and only adds load (RFC 9110 §15.5). Retry 408, 409 and 429 only."},
	{ID: "PT008", Name: "RetryAfterIgnoredOrUncapped", Title: "Retry-After ignored or uncapped", Level: LevelWarning,
		Help: "Retry-After (RFC 9110 §10.2.3) is the dependency telling you when it can take the request again; ignoring it retries into a 429/503 that is guaranteed to fail again. Honouring it without a cap lets one header park a caller for hours. Use `retry_after: honor` with `retry_after_max:` bounded by your budget."},
	{ID: "PT009", Name: "LayeredAmplification", Title: "layered retry amplification above max_amplification", Level: LevelError,
		Help: "Every layer that retries multiplies the attempts of the layers below: 3 layers × 4 attempts = 64 attempts on the dependency for one user request, exactly when it is overloaded. Retry at one layer only (usually the one closest to the dependency), or lower max_attempts so the product stays under max_amplification."},
	{ID: "PT010", Name: "TimeoutBelowMeasuredLatency", Title: "timeout below the measured latency tail", Level: LevelWarning,
		Help: "A timeout below the profile's p(1-cutoff) cuts off good responses that were merely slow: each one costs a wasted attempt (and a retry of work the provider may have done). Raise timeout to the profile's p99.9 × 1.2 (`patience probe --budget` recommends one), or accept the cut-off rate consciously with `cutoff:`."},
	{ID: "PT011", Name: "JobTimeoutNotBelowRetryAfter", Title: "queue job timeout at or above the queue's retry_after", Level: LevelError,
		Help: "When a job may run longer than the queue's visibility timeout (Laravel retry_after, SQS visibility timeout), the queue hands the same job to a second worker while the first is still running: the job runs twice. Keep the job timeout several seconds below retry_after."},
	{ID: "PT012", Name: "NoBudgetOrBreaker", Title: "no retry budget or circuit breaker on a high-volume dependency", Level: LevelWarning,
		Help: "At high request rates an outage turns every retry into extra load on a dependency that is already down, and without a breaker every caller keeps waiting for timeouts. A retry budget (token bucket or ratio, SRE book ch. 22) caps the extra load; a breaker fails fast. \"High-volume\" means a declared caller rate of at least 10 requests/s (`caller: {rate: 50/s}`)."},
	{ID: "PT013", Name: "ImmediateRetries", Title: "immediate retries (zero backoff)", Level: LevelWarning,
		Help: "Retrying at once gives the dependency no time to recover and turns a brief failure into a burst of max_attempts× the load within milliseconds. Use exponential backoff with a base of at least tens of milliseconds, with jitter."},
	{ID: "PT100", Name: "ScenarioExpectationUnmet", Title: "scenario expectation unmet", Level: LevelError,
		Help: "A scenario listed under `scenarios:` was replayed in the simulator and one of its `expect:` lines did not hold for this policy. Replay it with `patience replay FILE` to see the timeline, then change the policy or the expectation."},
}

// RuleByID returns the catalog entry for id.
func RuleByID(id string) (Rule, bool) {
	for _, r := range Catalog {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// fixes is the one-line fix for each rule, shown under each finding.
var fixes = map[string]string{
	"PT001": "set timeout: to the dependency's p99.9 × 1.2 (patience probe URL measures it)",
	"PT002": "set connect_timeout well below timeout (about 1.1s survives one lost SYN)",
	"PT003": "lower timeout below the caller's budget",
	"PT004": "lower max_attempts or timeout, or set deadline: to the caller's budget",
	"PT005": "send an Idempotency-Key (request: {idempotency_key: true}) with non_idempotent: with_key, or set non_idempotent: never",
	"PT006": "set retry.jitter: full",
	"PT007": "retry only 408, 409, 429 among 4xx (on: [connect, timeout, reset, 408, 409, 429, 5xx])",
	"PT008": "set retry.retry_after: honor and retry.retry_after_max: to a bound within the budget",
	"PT009": "retry at one layer only, or lower max_attempts so their product stays within max_amplification",
	"PT010": "raise timeout above the profile's tail (p99.9 × 1.2), or set cutoff: to the share you accept",
	"PT011": "keep the job timeout below the queue's retry_after (or raise retry_after)",
	"PT012": "add a retry budget (budget: {kind: token_bucket, ...}) or a breaker",
	"PT013": "use backoff: exponential with base: 100ms or more, and jitter: full",
	"PT100": "replay the scenario (patience replay FILE) and change the policy or the expectation",
}
