package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/scenario"
)

// Severity is how serious a finding is. The gate (--fail-on) compares levels: an error is at
// or above both thresholds, a warning only at or above "warning".
type Severity string

// Severities, from most to least serious.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Levels lists the values of --fail-on and of `rules.levels` in the file.
var Levels = []string{string(SeverityError), string(SeverityWarning)}

// rank orders levels so AtLeast can compare them.
func (l Severity) rank() int {
	switch l {
	case SeverityError:
		return 2
	case SeverityWarning:
		return 1
	}
	return 0
}

// AtLeast says whether l is as serious as threshold or more.
func (l Severity) AtLeast(threshold Severity) bool {
	return l.rank() >= threshold.rank() && l.rank() > 0
}

// ParseLevel reads "error" or "warning".
func ParseLevel(s string) (Severity, error) {
	switch Severity(s) {
	case SeverityError, SeverityWarning:
		return Severity(s), nil
	}
	return "", fmt.Errorf("unknown level %q: want one of %s", s, strings.Join(Levels, ", "))
}

// Rule is one check with a stable ID (docs/design.md §8): what `check --rules`, the docs and SARIF say
// about it, the fix printed under each of its findings, and the function that checks, in one
// value (as staticcheck's analyzers carry their name, doc, severity and Run). IDs never change
// meaning; a retired rule keeps its number.
type Rule struct {
	ID string `json:"id"`
	// Name is a short CamelCase handle (SARIF reportingDescriptor.name).
	Name  string `json:"name"`
	Title string `json:"title"`
	// Level is the default level; `rules.levels` in the file overrides it.
	Level Severity `json:"level"`
	// Help says why the rule exists and how to fix what it finds.
	Help string `json:"help"`
	// Asserts is what a passing check of the rule shows ("every attempt has a timeout"): the
	// name of its JUnit test case, which passes or fails.
	Asserts string `json:"asserts"`
	// Fix is the one-line fix shown under each finding (Finding.Fix) that carries none of its
	// own; it names the field to change.
	Fix string `json:"-"`
	// A rule checks one kind of subject: dependency checks one dependency of a check file,
	// scenario one policy of a replayed scenario against its expect: lines (PT100).
	dependency func(p *pass, d *Dependency) error
	scenario   func(p *pass, s *replayedPolicy) error
	// chain checks a whole chain (a dependency's via:, or a config no via: took); layer
	// checks each layer of a chain read from a real config file, in the format's words.
	chain func(p *pass, ch *Chain) error
	layer func(p *pass, ch *Chain, l *ChainLayer) error
	// call checks one outbound call site read from source code (issue 28), at its
	// file:line:col.
	call func(p *pass, c *Call) error
}

// Catalog is every rule `check` knows, in ID order, which is also the order the rules run
// in. Default levels: a finding that will break production on the first bad day (no timeout,
// a retried charge without a key, a chain that cannot fit its budget, multiplied load, a job
// that runs twice, an expectation the user wrote down) is an error; a risk that depends on
// traffic or on the dependency's behaviour is a warning. Each Fix names the field to change;
// a finding whose fix depends on its numbers or on where the retries happen (the policy or
// the queue) carries a fix of its own.
var Catalog = []Rule{
	{
		ID: "PT001", Name: "MissingTimeout", Title: "timeout missing or none", Level: SeverityError,
		Asserts:    "every attempt has a timeout",
		Help:       "Without a timeout a hung dependency holds the caller's worker forever: requests pile up behind it until the caller runs out of workers (and a dead connection never comes back). A `read_timeout:` alone is no bound: it bounds each silence, not the response, so one that drips a byte just inside it never ends (Python requests' timeout=(connect, read) has no total). Set `timeout:` to a little above the dependency's p99.9 (`patience probe URL` measures it).",
		Fix:        "set policy.timeout: to the dependency's p99.9 × 1.2 (patience probe URL measures it)",
		dependency: missingTimeout,
		layer:      layerMissingTimeout,
		call:       callMissingTimeout,
	},
	{
		ID: "PT002", Name: "ConnectTimeoutNotBelowTimeout", Title: "connect timeout not below the total timeout", Level: SeverityWarning,
		Asserts:    "the connect timeout can fire before the attempt timeout",
		Help:       "The attempt timeout includes connection set-up, so a connect_timeout at or above it never fires: a lost SYN or an unreachable host costs a whole attempt instead of a quick, always-safe retry. Keep connect_timeout well below timeout (about 1.1s survives one lost SYN); when the timeout itself is below that, a separate connect timeout buys nothing: leave it out.",
		Fix:        "set policy.connect_timeout: well below policy.timeout (about 1.1s survives one lost SYN), or remove it",
		dependency: connectPart.notBelowTimeout,
	},
	{
		ID: "PT003", Name: "TimeoutExceedsCallerBudget", Title: "attempt timeout exceeds the caller's budget", Level: SeverityError,
		Asserts:    "one attempt fits the caller's budget",
		Help:       "One attempt may wait longer than the caller itself waits (the interactive budget or the job timeout): the caller gives up first and the call goes on with nobody waiting for its answer. Lower timeout below the budget, or give the caller more time.",
		Fix:        "lower policy.timeout below caller.budget (caller.timeout for a job)",
		dependency: timeoutExceedsCallerBudget,
	},
	{
		ID: "PT004", Name: "RetriesExceedCallerBudget", Title: "attempts × timeout + backoff exceed the caller's budget", Level: SeverityError,
		Asserts:    "attempts × timeout + backoff fit the caller's budget",
		Help:       "In the worst case every attempt times out and every backoff waits its longest (the jitter upper bound). If that sum exceeds the caller's budget — the interactive budget, or for a job one run's timeout (the queue's own tries are runs of their own) — the last attempts run after the caller gave up: load with no benefit. A Retry-After the remaining budget cannot hold ends the call instead of being waited for, so it never adds more than the budget. Lower max_attempts or timeout, or set `deadline:` to the budget so the policy stops on time.",
		Fix:        "lower policy.retry.max_attempts or policy.timeout, or set policy.deadline: to the caller's budget",
		dependency: retriesExceedCallerBudget,
		layer:      layerRetriesExceedBudget,
	},
	{
		ID: "PT005", Name: "NonIdempotentRetryWithoutKey", Title: "non-idempotent request retried without an idempotency key", Level: SeverityError,
		Asserts:    "a non-idempotent request is retried only with an idempotency key",
		Help:       "A timeout, reset or 5xx leaves the outcome unknown: the provider may have committed before the answer was lost. Retrying a POST/PATCH then executes it twice (two charges, two shipments). Send an Idempotency-Key (the same key on every retry) and use `non_idempotent: with_key`, or do not retry outcome-unknown failures (`non_idempotent: never`). Reported for `non_idempotent: always` without a key (request or policy idempotency_key), and for a retried POST/PATCH whose file leaves `non_idempotent` out: Laravel Http::retry, go-retryablehttp and the AWS SDKs retry whatever the method, so check assumes `always` and says so; `with_key` without a key retries no unknown outcome, as in the simulator, so it is safe and not reported.",
		Fix:        "send an Idempotency-Key (request.idempotency_key: true) with policy.retry.non_idempotent: with_key, or set policy.retry.non_idempotent: never",
		dependency: nonIdempotentRetryWithoutKey,
		layer:      layerRetriesNonIdempotent,
	},
	{
		ID: "PT006", Name: "RetriesWithoutJitter", Title: "retries without jitter", Level: SeverityWarning,
		Asserts:    "retries are jittered",
		Help:       "Without jitter every client that failed together retries together: the retries arrive as synchronized waves that hit a recovering dependency at the same instant (AWS Architecture Blog, \"Exponential Backoff And Jitter\", 2015). Use `jitter: full` (or decorrelated backoff); for a queue job, a backoff() that adds random_int(0, d/4) (`caller: {jitter: proportional, jitter_factor: 0.25}`). Evaluated on its own: zero backoff without jitter is PT006 and PT013.",
		Fix:        "set policy.retry.jitter: full",
		dependency: retriesWithoutJitter,
		layer:      layerNoJitter,
	},
	{
		ID: "PT007", Name: "RetriesOnClientErrors", Title: "retries on 4xx other than 408/409/429", Level: SeverityWarning,
		Asserts:    "only 408, 409 and 429 are retried among 4xx",
		Help:       "A 4xx other than 408 (request timeout), 409 (conflict, e.g. the same key still in flight) and 429 (too many requests) says the request itself is wrong; sending it again fails the same way and only adds load (RFC 9110 §15.5). Retry 408, 409 and 429 only.",
		Fix:        "set policy.retry.on: [connect, timeout, reset, 408, 409, 429, 5xx] (no other 4xx)",
		dependency: retriesOnClientErrors,
		layer:      layerClientErrors,
	},
	{
		ID: "PT008", Name: "RetryAfterIgnoredOrUncapped", Title: "Retry-After ignored or uncapped", Level: SeverityWarning,
		Asserts:    "Retry-After is honoured within a cap",
		Help:       "Retry-After (RFC 9110 §10.2.3) is the dependency telling you when it can take the request again; ignoring it retries into a 429/503 that is guaranteed to fail again. Honouring it without a cap lets one header park a caller for hours; on an interactive caller, leaving retry_after_max unset takes the default (1m), far beyond what a person waits. Use `retry_after: honor` with `retry_after_max:` bounded by your budget.",
		Fix:        "set policy.retry.retry_after: honor and policy.retry.retry_after_max: to a bound within the caller's budget",
		dependency: retryAfterIgnoredOrUncapped,
	},
	{
		ID: "PT009", Name: "LayeredAmplification", Title: "layered retry amplification above max_amplification", Level: SeverityError,
		Asserts:    "layered attempts stay within max_amplification",
		Help:       "Every layer that retries multiplies the attempts of the layers below: 3 layers × 4 attempts = 64 attempts on the dependency for one user request, exactly when it is overloaded. A queue job's tries are a layer too (a gateway retrying 3 times inside a job the queue tries 6 times sends 18). Retry at one layer only (for a job, the queue), or lower max_attempts so the product stays under max_amplification.",
		Fix:        "retry at one layer only: lower policy.retry.max_attempts (or layers[].max_attempts, caller.tries) so the product stays within max_amplification",
		dependency: layeredAmplification,
		chain:      chainAmplification,
	},
	{
		ID: "PT010", Name: "TimeoutBelowMeasuredLatency", Title: "timeout below the measured latency tail", Level: SeverityWarning,
		Asserts:    "the timeout is above the measured latency tail",
		Help:       "A timeout below the profile's p(1-cutoff) cuts off good responses that were merely slow: each one costs a wasted attempt (and a retry of work the provider may have done). Raise timeout to the profile's p99.9 × 1.2 (`patience probe --budget` recommends one), or accept the cut-off rate consciously with `cutoff:`.",
		Fix:        "raise policy.timeout above the profile's tail (p99.9 × 1.2), or set cutoff: to the share you accept",
		dependency: latencyTail.belowMeasured,
	},
	{
		ID: "PT011", Name: "JobTimeoutNotBelowRetryAfter", Title: "queue job timeout at or above the queue's retry_after", Level: SeverityError,
		Asserts:    "the job timeout is below the queue's retry_after",
		Help:       "When a job may run longer than the queue's visibility timeout (Laravel retry_after, SQS visibility timeout), the queue hands the same job to a second worker while the first is still running: the job runs twice. Keep the job timeout several seconds below retry_after.",
		Fix:        "lower caller.timeout several seconds below caller.retry_after (or raise caller.retry_after)",
		dependency: jobTimeoutNotBelowRetryAfter,
	},
	{
		ID: "PT012", Name: "NoBudgetOrBreaker", Title: "no retry budget or circuit breaker on a high-volume dependency", Level: SeverityWarning,
		Asserts:    "a high-volume dependency has a retry budget or a breaker",
		Help:       "At high request rates an outage turns every retry into extra load on a dependency that is already down, and without a breaker every caller keeps waiting for timeouts. A retry budget (token bucket or ratio, SRE book ch. 22) caps the extra load; a breaker fails fast. \"High-volume\" means a declared caller rate of at least 10 requests/s (`caller: {rate: 50/s}`).",
		Fix:        "add policy.budget: {kind: token_bucket} or policy.breaker: {failure_rate: 50%}",
		dependency: noBudgetOrBreaker,
		layer:      layerNoBudget,
	},
	{
		ID: "PT013", Name: "ImmediateRetries", Title: "immediate retries (zero or fixed short backoff)", Level: SeverityWarning,
		Asserts:    "retries wait, and the waits grow",
		Help:       "Retrying at once gives the dependency no time to recover and turns a brief failure into a burst of max_attempts× the load within milliseconds; a fixed short interval (under 5s, two retries or more) keeps pressing a dependency that is recovering (\"固定の短い間隔で再送すると、回復しかけた相手を再び押しつぶします\"). Use exponential backoff with a base of at least tens of milliseconds, with jitter; for a queue job, a growing backoff() such as [10s, 30s, 90s, 270s, 600s]. Evaluated on its own: zero backoff without jitter is PT006 and PT013.",
		Fix:        "set policy.retry.backoff: exponential with policy.retry.base: 100ms or more (and policy.retry.jitter: full)",
		dependency: immediateRetries,
		layer:      layerImmediate,
	},
	{
		ID: "PT014", Name: "ReleasesUseUpTries", Title: "429 releases use up a job's tries", Level: SeverityWarning,
		Asserts:    "a run of 429s cannot use up the job's tries",
		Help:       "A job that honours a 429's Retry-After by releasing itself (Laravel $this->release($retryAfter)) spends a try on every release: a dependency that rate-limits for a while uses up every try and the job fails for good, although nothing was wrong with it. Bound the job by time instead — retryUntil() (`caller: {retry_until: 2h}`) — or raise tries well above what the backoff needs.",
		Fix:        "set caller.retry_until: to how long the job may keep trying (retryUntil()), or raise caller.tries",
		dependency: releasesUseUpTries,
	},
	{
		ID: "PT015", Name: "ReadTimeoutNotBelowTimeout", Title: "read timeout not below the total timeout", Level: SeverityWarning,
		Asserts:    "the read timeout can fire before the attempt timeout",
		Help:       "A read timeout bounds each silence of an attempt once the request is written: the wait for the first byte, then every pause between two reads (Python requests' read timeout, OkHttp's readTimeout, nginx's proxy_read_timeout). The attempt timeout bounds that wait and more, so a read_timeout at or above it never fires: a dependency that stops sending holds the caller for the whole attempt instead of failing at its first long silence. Keep read_timeout below timeout — `patience probe` recommends one from the longest silence of each response (read_timeout_ms); where its derivation says read = total, a separate one never fires and can go.",
		Fix:        "set policy.read_timeout: below policy.timeout (patience probe recommends one: read_timeout_ms), or remove it",
		dependency: readPart.notBelowTimeout,
	},
	{
		ID: "PT016", Name: "ReadTimeoutBelowMeasuredSilence", Title: "read timeout below the measured silences", Level: SeverityWarning,
		Asserts:    "the read timeout is above the longest silences the profile measured",
		Help:       "A read timeout fires at the first silence longer than it: the wait for the first byte, or a pause between two reads. Below the profile's p(1-cutoff) of each good response's longest silence it cuts off responses that were arriving, only slowly — each one a timeout, a wasted attempt and, for a non-idempotent call, an unknown outcome. Raise read_timeout to the silence tail × 1.2 (`patience probe` recommends one: read_timeout_ms), or accept the cut-off rate consciously with `cutoff:`. Profiles from logs that bound no silence leave this rule unchecked, and say so.",
		Fix:        "raise policy.read_timeout above the profile's silence tail (patience probe recommends one: read_timeout_ms), or set cutoff: to the share you accept",
		dependency: silenceTail.belowMeasured,
	},
	{
		ID: "PT017", Name: "TimeoutCutsStreams", Title: "a timeout along the chain cuts the measured streams", Level: SeverityWarning,
		Asserts:    "every idle and total timeout along the chain outlasts the measured streams",
		Help:       "A stream (an LLM completion, an SSE feed, an NDJSON export) is a first event, then silences between events, then an end, and every layer it passes through can cut it. An idle or read timeout (nginx proxy_read_timeout, 60 s by default; Envoy stream_idle_timeout, 5 min by default, or a route's idle_timeout; the client's read_timeout) fires at the first silence longer than it: below the profile's first_event p(1-cutoff) it cuts a slow first token, and below the gaps' per-stream cut-off it cuts a stream that was still sending (a stream of N̄ gaps is cut if any one exceeds the timeout, so the gap's quantile is 1 − cutoff/N̄, N̄ the mean events per stream). A total (Envoy's route timeout, 15 s by default; Istio's and Gateway API's request timeouts; the client's timeout) must outlast the longest legitimate stream, and one below the layer's own idle timeout ends every long stream before a stall could be caught. Each finding points at the line that set the value, or for a default at the resource that left it unset, and names the profile's figure. Needs a profile with streams (`patience probe` of a streaming endpoint); without one the rule is skipped, saying so. ALB idle timeouts are not read: check reads no load balancer configs.",
		Fix:        "raise the timeout above the profile's figure (× 1.2), or for a total, disable it and let an idle timeout above the gaps catch a stall",
		dependency: streamCutByPolicy,
		chain:      streamCutAlongChain,
	},
	{
		ID: "PT100", Name: "ScenarioExpectationUnmet", Title: "scenario expectation unmet", Level: SeverityError,
		Asserts:  "the scenario's expectations hold",
		Help:     "A scenario listed under `scenarios:` was replayed in the simulator and one of its `expect:` lines did not hold for this policy. Replay it with `patience replay FILE` to see the timeline, then change the policy or the expectation.",
		Fix:      "replay the scenario (patience replay FILE) and change the policy or its expect: line",
		scenario: scenarioExpectationUnmet,
	},
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

// The checks below are the Catalog's, one per rule in ID order. They read the dependency and
// report through the pass; none reads Catalog (the pass carries the rule).

// callerLimit is what PT003 and PT004 compare with: the caller's whole budget (Caller.Limit).
// When the file declares none, the rule has nothing to evaluate and the pass says so.
func callerLimit(p *pass, d *Dependency) time.Duration {
	limit := d.Caller.Limit()
	if limit == 0 {
		p.skip("no caller budget declared (caller: {kind: interactive, budget: 3s} or {kind: job, timeout: 20s})")
	}
	return limit
}

// limitField names the field that holds the caller's limit: caller.budget, or caller.timeout
// for a job.
func limitField(c Caller) string {
	if c.Kind == "job" {
		return "caller.timeout"
	}
	return "caller.budget"
}

// missingTimeout is PT001. A read timeout is no bound on the attempt: it bounds each
// silence, so a response that drips a byte just inside it never ends (docs/design.md §8).
// A stream is the exception (issue 29): a policy that sets first_event_timeout declares
// one, and with a read_timeout (the idle timeout) every silence of it is bounded — the
// first by the one, each later by the other — while its length is the content's, which no
// total can bound without cutting the longest legitimate stream. That is what probe's stream
// advice gives ("stream total unbounded") and llm-stream's fix holds; PT017 judges both
// against the measured streams.
func missingTimeout(p *pass, d *Dependency) error {
	pol := d.Policy
	if pol.Timeout > 0 || pol.FirstEventTimeout > 0 && pol.ReadTimeout > 0 {
		return nil
	}
	if pol.ReadTimeout > 0 {
		drip := fmt.Sprintf("read_timeout %s bounds each silence, not the response: a %s response that sends a byte every %s never times out", units.Duration(pol.ReadTimeout), d.Name, units.Duration(pol.ReadTimeout*9/10))
		if pol.Deadline > 0 {
			p.report(d.at("timeout", "read_timeout"), "no per-attempt timeout: %s, and uses the whole %s deadline with no time left for a retry", drip, units.Duration(pol.Deadline))
		} else {
			p.report(d.at("timeout", "read_timeout"), "no total timeout: %s, and holds the caller's worker forever", drip)
		}
		return nil
	}
	if pol.Deadline > 0 {
		p.report(d.at("timeout"), "no per-attempt timeout: one hung %s call uses the whole %s deadline and leaves no time for a retry", d.Name, units.Duration(pol.Deadline))
	} else {
		p.report(d.at("timeout"), "no timeout: one hung %s call holds the caller's worker forever, and the workers run out one by one", d.Name)
	}
	return nil
}

// partTimeout is a timeout that bounds part of an attempt the attempt timeout bounds as a
// whole: the connect (PT002), each silence of the response (PT015). At or above the attempt
// timeout it never fires — the attempt times out first, or at the same moment — so one
// check, notBelowTimeout, serves both rules, each with its row.
type partTimeout struct {
	// field is the policy field (its Source key and the name in messages).
	field string
	get   func(pol *policy.Policy) time.Duration
	// lost says what is lost when it never fires; it takes the attempt timeout.
	lost string
	// fix is the fix for a policy whose attempt timeout is timeout.
	fix func(timeout time.Duration) string
}

// connectPart is PT002's row. Below the lost-SYN floor (profile.DefaultConnectFloor) the
// attempt timeout already bounds the connect: the fix is to leave connect_timeout out, as
// probe recommends.
var connectPart = partTimeout{
	field: "connect_timeout",
	get:   func(pol *policy.Policy) time.Duration { return pol.ConnectTimeout },
	lost:  "a lost SYN costs a whole %s attempt instead of a quick, safe retry",
	fix: func(timeout time.Duration) string {
		if timeout <= profile.DefaultConnectFloor {
			return fmt.Sprintf("remove policy.connect_timeout: below %s a separate connect timeout buys nothing (policy.timeout %s already bounds the connect)", units.Duration(profile.DefaultConnectFloor), units.Duration(timeout))
		}
		return fmt.Sprintf("set policy.connect_timeout: %s (below policy.timeout %s; it survives one lost SYN)", yamlDur(profile.DefaultConnectFloor), units.Duration(timeout))
	},
}

// readPart is PT015's row: a read timeout's clock starts when the request is written, after
// the connect, so at the attempt timeout or above it can never run out first.
var readPart = partTimeout{
	field: "read_timeout",
	get:   func(pol *policy.Policy) time.Duration { return pol.ReadTimeout },
	lost:  "a response that stops sending holds the caller for the whole %s attempt instead of failing at its first long silence",
	fix: func(timeout time.Duration) string {
		return fmt.Sprintf("set policy.read_timeout: below policy.timeout %s — patience probe recommends one from the longest silence of each response (read_timeout_ms) — or remove it", units.Duration(timeout))
	},
}

// notBelowTimeout is the check of PT002 and PT015: the part's timeout at or above the
// attempt timeout.
func (t partTimeout) notBelowTimeout(p *pass, d *Dependency) error {
	pol := d.Policy
	part := t.get(pol)
	if part > 0 && pol.Timeout > 0 && part >= pol.Timeout {
		p.reportFix(d.at(t.field), t.fix(pol.Timeout), "%s %s ≥ timeout %s never fires: "+t.lost, t.field, units.Duration(part), units.Duration(pol.Timeout), units.Duration(pol.Timeout))
	}
	return nil
}

// timeoutExceedsCallerBudget is PT003. An attempt waits min(timeout, deadline) (docs/design.md §5), so
// a deadline within the budget already bounds it.
func timeoutExceedsCallerBudget(p *pass, d *Dependency) error {
	limit := callerLimit(p, d)
	if limit == 0 {
		return nil
	}
	pol := d.Policy
	wait, err := callerWait(p, d)
	if err != nil {
		return err
	}
	attempt, field := wait.d, wait.field
	if pol.Deadline > 0 && (attempt == 0 || pol.Deadline < attempt) {
		attempt, field = pol.Deadline, "deadline"
	}
	if attempt > limit {
		if field == "" || field == "deadline" {
			field = "timeout"
		}
		fix := fmt.Sprintf("lower policy.%s below %s %s, or raise %s", field, limitField(d.Caller), units.Duration(limit), limitField(d.Caller))
		p.reportFix(d.at(field, "timeout"), fix, "one attempt may wait %s%s but %s: the call keeps running with nobody waiting for its answer", units.Duration(attempt), wait.what(), fmt.Sprintf(givesUp(d.Caller), units.Duration(limit)))
	}
	return nil
}

// retriesExceedCallerBudget is PT004: in-run attempts × timeout + Σ worst-case backoff
// (policy.Retry.WorstCaseWithin, docs/design.md §5) against the caller's budget — for a job, one run
// against the job timeout: the queue's tries are runs of their own (caller.tries), checked by
// PT006, PT009, PT013 and PT014. A Retry-After that does not fit the remaining budget ends the
// call, so it never adds more than the budget.
func retriesExceedCallerBudget(p *pass, d *Dependency) error {
	limit := callerLimit(p, d)
	if limit == 0 {
		return nil
	}
	pol := d.Policy
	r := pol.Retry
	if !retries(r) || (pol.Timeout <= 0 && pol.Deadline <= 0) {
		return nil // no retries, or PT001 already says it: there is no bound at all
	}
	field := limitField(d.Caller)
	if r.MaxAttempts == policy.Unlimited {
		fix := fmt.Sprintf("set policy.deadline: %s (%s), or a number in policy.retry.max_attempts", yamlDur(limit), field)
		if pol.Deadline <= 0 {
			p.reportFix(d.at("retry.max_attempts"), fix, "unlimited attempts and no deadline: a failing %s call retries until it succeeds, long after %s", d.Name, fmt.Sprintf(givesUp(d.Caller), units.Duration(limit)))
		} else if pol.Deadline > limit {
			p.reportFix(d.at("deadline", "retry.max_attempts"), fix, "unlimited attempts run until the %s deadline, past %s: the last attempts run for nobody", units.Duration(pol.Deadline), limitText(d.Caller, limit))
		}
		return nil
	}
	wait, err := callerWait(p, d)
	if err != nil {
		return err
	}
	if pol.Timeout <= 0 || wait.d <= 0 {
		return nil
	}
	waits := r.BackoffWaits(r.MaxAttempts)
	total := r.WorstCaseWithin(r.MaxAttempts, wait.d, limit)
	fits := r.AttemptsWithin(wait.d, limit, r.MaxAttempts)
	fix := fmt.Sprintf("set policy.retry.max_attempts: %d (the most that fit %s %s), or policy.deadline: %s", max(fits, 1), field, units.Duration(limit), yamlDur(limit))
	if fits <= 1 {
		fix = fmt.Sprintf("set policy.retry.max_attempts: 1 (no retry fits %s %s), or lower policy.%s", field, units.Duration(limit), wait.field)
	}
	if d.Caller.Kind == "job" && d.Caller.Queue.MaxAttempts == 0 {
		fix += "; if these are the queue's retries ($tries, backoff()), declare them as caller.tries and caller.backoff: policy.retry is the retries within one run"
	}
	if pol.Deadline > 0 && pol.Deadline < total {
		if pol.Deadline <= limit {
			return nil // the deadline stops the policy in time
		}
		p.reportFix(d.at("deadline", "retry.max_attempts"), fix, "worst case %s = %s%s, cut at the %s deadline, still exceeds %s: the last attempts run for nobody", sumText(r, wait.d, waits, total), units.Duration(total), wait.what(), units.Duration(pol.Deadline), limitText(d.Caller, limit))
		return nil
	}
	if total > limit {
		p.reportFix(d.at("retry.max_attempts", wait.field, "timeout"), fix, "worst case %s = %s%s exceeds %s: the last attempts run for nobody", sumText(r, wait.d, waits, total), units.Duration(total), wait.what(), limitText(d.Caller, limit))
	}
	return nil
}

// nonIdempotentRetryWithoutKey is PT005.
func nonIdempotentRetryWithoutKey(p *pass, d *Dependency) error {
	r := d.Policy.Retry
	if !retries(r) || d.Request.Idempotent() || r.NonIdempotent != policy.NonIdempotentAlways || d.Policy.SendsKey(d.Request.IdempotencyKey) {
		return nil
	}
	unknown := outcomeUnknown(retryOn(r))
	if len(unknown) == 0 {
		return nil
	}
	at, why := d.at("retry.non_idempotent", "retry.on", "request.method"), ""
	if a, ok := d.assumed("policy.retry.non_idempotent"); ok {
		// The file did not say: the clients it describes retry whatever the method
		// (assume), so the finding says what was assumed and points at the retries.
		at, why = d.at("retry.max_attempts", "request.method", "retry"), a.Why+": "
	}
	p.report(at, "%sa %s after the provider committed will execute twice: %s retried up to %s on %s without an Idempotency-Key", why, unknown[0], d.Request.Method, attemptsText(r.MaxAttempts), strings.Join(unknown, "/"))
	return nil
}

// retriesWithoutJitter is PT006, on the policy's retries and on the queue's re-runs of a job.
// It is evaluated on its own: zero backoff without jitter is PT006 and PT013 (the fix of one
// does not fix the other).
func retriesWithoutJitter(p *pass, d *Dependency) error {
	r := d.Policy.Retry
	if retries(r) && noJitter(r) && r.Backoff != policy.BackoffDecorrelated {
		kind := string(r.Backoff) + " backoff"
		if r.Backoff == policy.BackoffNone || r.Backoff == "" {
			kind = "no backoff"
		}
		p.report(d.at("retry.jitter", "retry.backoff", "retry.max_attempts"), "every client that failed together retries together: %s without jitter sends the retries as synchronized waves (%s)", kind, delaysText(r))
	}
	if q := d.Caller.Queue; d.Caller.QueueRetries() && noJitter(q) {
		p.reportFix(d.at("caller.jitter", "caller.backoff", "caller.tries"), "set caller.jitter: proportional with caller.jitter_factor: 0.25 (backoff() returning d + random_int(0, intdiv(d, 4)))",
			"every job that failed together is re-run together: the queue's %s without jitter re-delivers them as synchronized waves (%s)", queueBackoffText(q), delaysText(q))
	}
	return nil
}

// retriesOnClientErrors is PT007.
func retriesOnClientErrors(p *pass, d *Dependency) error {
	r := d.Policy.Retry
	if !retries(r) {
		return nil
	}
	if bad := clientErrors(retryOn(r)); len(bad) > 0 {
		p.report(d.at("retry.on"), "retrying %s resends a request the server already rejected: up to %s attempts that fail the same way and only add load", strings.Join(bad, ", "), attemptsCount(r.MaxAttempts))
	}
	return nil
}

// retryAfterIgnoredOrUncapped is PT008: Retry-After ignored, honoured without a cap, or — on
// an interactive caller — honoured with retry_after_max left unset, so the default cap (1m)
// applies to a caller that waits seconds. A deadline within the budget ends such a wait, so
// then the unset cap is harmless.
func retryAfterIgnoredOrUncapped(p *pass, d *Dependency) error {
	pol := d.Policy
	r := pol.Retry
	if !retries(r) || !honoursPushback(retryOn(r)) {
		return nil
	}
	capFix := "set policy.retry.retry_after_max: " + yamlDur(retryAfterBound(d)) + " (a Retry-After wait and one more attempt fit the caller's budget)"
	switch {
	case r.RetryAfter == policy.RetryAfterIgnore:
		p.reportFix(d.at("retry.retry_after", "retry"), "set policy.retry.retry_after: honor with policy.retry.retry_after_max: "+yamlDur(retryAfterBound(d)), "Retry-After is ignored: after a 429/503 the retry comes back before the dependency said it could serve it, and fails again")
	case r.HonorsRetryAfter() && r.RetryAfterMax <= 0:
		p.reportFix(d.at("retry.retry_after_max", "retry.retry_after", "retry"), capFix, "Retry-After is honoured without retry_after_max: one \"Retry-After: 3600\" parks this caller for an hour")
	case r.HonorsRetryAfter() && d.Caller.Kind == "interactive" && !d.set("retry.retry_after_max"):
		budget := d.Caller.Budget
		if pol.Deadline > 0 && (budget == 0 || pol.Deadline <= budget) {
			return nil // the deadline ends a wait that does not fit
		}
		if budget > 0 && r.RetryAfterMax <= budget-pol.Timeout {
			return nil
		}
		past := "longer than a person waits"
		if budget > 0 {
			past = "past the caller's " + units.Duration(budget) + " budget"
		}
		p.reportFix(d.at("retry.retry_after", "retry.max_attempts", "retry"), capFix, "policy.retry.retry_after_max is not set: the default %s lets one Retry-After park this interactive caller for %s, %s", units.Duration(r.RetryAfterMax), units.Duration(r.RetryAfterMax), past)
	}
	return nil
}

// retryAfterBound is the retry_after_max PT008 suggests: what is left of the caller's budget
// after one attempt, else 1s for an interactive caller and the default cap for a job.
func retryAfterBound(d *Dependency) time.Duration {
	if limit := d.Caller.Limit(); limit > 0 {
		if left := limit - d.Policy.Timeout; left >= time.Second || d.Policy.Timeout <= 0 {
			return left.Truncate(time.Second)
		} else if left > 0 {
			return left
		}
	}
	if d.Caller.Kind == "job" {
		return time.Minute
	}
	return time.Second
}

// layeredAmplification is PT009: Π attempts over the queue's tries of a job, the file's
// layers, the policy's own layers and the policy itself (a layer without a policy counts as
// 1, as in policy.Policy.TheoreticalAmplification).
func layeredAmplification(p *pass, d *Dependency) error {
	if len(d.Via) > 0 {
		return nil // the chain's PT009 counts per failure class (chainAmplification)
	}
	limit := p.file.MaxAmplification
	if limit <= 0 {
		limit = DefaultMaxAmplification
	}
	product := 1.0
	var parts []string
	unlimited := false
	add := func(name string, n int) {
		if n == policy.Unlimited {
			unlimited = true
			parts = append(parts, name+" unlimited")
			return
		}
		if n < 1 {
			n = 1
		}
		product *= float64(n)
		parts = append(parts, fmt.Sprintf("%s %d", name, n))
	}
	queue := d.Caller.QueueRetries()
	if queue {
		tries, bound := queueTries(d.Caller)
		name := "queue tries"
		if bound {
			name = "queue tries within retry_until " + units.Duration(d.Caller.RetryUntil)
		}
		add(name, tries)
	}
	for _, l := range slices.Concat(d.Layers, d.Policy.Layers) {
		if l.Policy != nil {
			add(l.Name, l.Policy.Retry.MaxAttempts)
		}
	}
	add(d.Name, d.Policy.Retry.MaxAttempts)
	if !unlimited && product <= limit {
		return nil
	}
	// Point at the layers that multiply, or at max_attempts when the policy alone is too much
	// (or retries inside a job the queue already retries: the seeds retry at one layer, the
	// queue).
	at := d.at("layers", "retry.max_attempts")
	fix := ""
	switch {
	case queue && len(d.Layers) == 0 && len(d.Policy.Layers) == 0 && retries(d.Policy.Retry):
		at = d.at("retry.max_attempts")
		fix = "set policy.retry.max_attempts: 1 and let the queue retry (caller.tries), or lower caller.tries"
	case queue && !retries(d.Policy.Retry) && len(d.Layers) == 0 && len(d.Policy.Layers) == 0:
		at = d.at("caller.tries")
		fix = "lower caller.tries (or bound them with caller.retry_until)"
	case len(d.Layers) == 0 && len(d.Policy.Layers) == 0:
		at = d.at("retry.max_attempts")
	}
	if unlimited {
		p.reportFix(at, fix, "a layer retries without limit: one user request can send unbounded attempts to %s during an outage (%s)", d.Name, strings.Join(parts, " × "))
		return nil
	}
	p.reportFix(at, fix, "one user request can become %s attempts on %s during an outage (%s), above max_amplification %s", fmtNum(product), d.Name, strings.Join(parts, " × "), fmtNum(limit))
	return nil
}

// queueTries is how many times the queue may run a job: its tries, or with unlimited tries
// and retry_until the runs whose shortest waits (backoff before jitter, which only adds) fit
// retry_until (bound = true); Unlimited when nothing bounds them.
func queueTries(c Caller) (n int, bound bool) {
	q := c.Queue
	if q.MaxAttempts != policy.Unlimited {
		return q.MaxAttempts, false
	}
	if c.RetryUntil <= 0 {
		return policy.Unlimited, false
	}
	shortest := q
	shortest.Jitter, shortest.JitterFactor = policy.JitterNone, 0
	const most = 10000
	var elapsed time.Duration
	n = 1
	for n < most {
		w := shortest.MaxDelay(n)
		if w <= 0 {
			return policy.Unlimited, false // immediate re-runs: only the job timeout paces them
		}
		if elapsed+w > c.RetryUntil {
			break
		}
		elapsed += w
		n++
	}
	return n, true
}

// measuredTail is a timeout checked against what a profile measured: PT010 the attempt
// timeout against the latency of good responses, PT016 the read timeout against their
// longest silences. One check, belowMeasured, serves both, each with its row.
type measuredTail struct {
	// field is the policy field (its Source key and the name in messages).
	field string
	get   func(pol *policy.Policy) time.Duration
	// histogram picks the profile's series (nil, nil: the profile measured none, and why
	// says so in the skip).
	histogram func(*profile.Profile) (*hdrhistogram.Histogram, error)
	why       string
	// what names the samples ("good %s responses"), cost what each one cut off costs.
	what, cost string
}

// latencyTail is PT010's row: the attempt timeout against good responses' latency.
var latencyTail = measuredTail{
	field: "timeout", get: func(pol *policy.Policy) time.Duration { return pol.Timeout },
	histogram: profileHistogram,
	what:      "good %s responses",
	cost:      "each one is a wasted attempt that the provider may have completed",
}

// silenceTail is PT016's row: the read timeout against the longest silence of each good
// response (probe's silence phase: the wait for the first byte, each pause between reads).
var silenceTail = measuredTail{
	field: "read_timeout", get: func(pol *policy.Policy) time.Duration { return pol.ReadTimeout },
	histogram: silenceHistogram,
	why:       "the profile measured no silence (a profile from logs that bound none, or saved before silences were recorded)",
	what:      "good %s responses by their longest silence",
	cost:      "each one was answering, only slowly, and is cut off as a timeout",
}

// belowMeasured is the check of PT010 and PT016: the share of the profile's samples above
// the timeout, against the accepted cut-off. An unreadable profile is an input error, never
// a finding.
func (m measuredTail) belowMeasured(p *pass, d *Dependency) error {
	path := profilePath(p, d)
	if path == "" {
		p.skip("no latency profile (profile: probe.json, or --profile)")
		return nil
	}
	limit := m.get(d.Policy)
	if limit <= 0 {
		return nil
	}
	h, err := m.load(p, d, path)
	if err != nil {
		return err
	}
	if h == nil {
		p.skip(m.why)
		return nil
	}
	total := h.TotalCount()
	if total == 0 {
		return nil
	}
	cutoff := d.Cutoff
	if cutoff <= 0 {
		cutoff = DefaultCutoff
	}
	share := ShareAbove(h, limit)
	if share <= cutoff {
		return nil
	}
	q := 100 * (1 - cutoff)
	tail := fmt.Sprintf("p%s n/a with %s samples", fmtNum(q), units.Count(int(total)))
	if float64(total) >= 1/cutoff {
		tail = fmt.Sprintf("p%s = %s over %s samples", fmtNum(q), units.Duration(time.Duration(h.ValueAtQuantile(q))*time.Microsecond), units.Count(int(total)))
	}
	p.report(d.at(m.field), "%s %s cuts off %s of "+m.what+" (%s; cutoff %s): "+m.cost, m.field, units.Duration(limit), fmtPct(share), d.Name, tail, fmtPct(cutoff))
	return nil
}

// load reads the profile and m's series from it; an error is the profile's input error, at
// the dependency's profile: line when it names one.
func (m measuredTail) load(p *pass, d *Dependency, path string) (*hdrhistogram.Histogram, error) {
	res, err := p.opts.LoadProfile(path)
	var h *hdrhistogram.Histogram
	if err == nil {
		h, err = m.histogram(res)
	}
	if err != nil {
		return nil, profileError(p, d, err)
	}
	return h, nil
}

// profilePath is the profile a dependency is checked against: its profile:, else --profile
// ("" = none).
func profilePath(p *pass, d *Dependency) string {
	if d.Profile != "" {
		return d.Profile
	}
	return p.opts.Profile
}

// profileError is an unreadable profile as the input error it is, at the dependency's
// profile: line when it names one.
func profileError(p *pass, d *Dependency, err error) error {
	pos := d.at("profile")
	if d.Profile == "" {
		pos = policy.Pos{}
	}
	return &scenario.Error{File: fileOr(pos.File, p.file.Path), Line: pos.Line, Col: pos.Col, Field: "profile", Msg: err.Error()}
}

// jobTimeoutNotBelowRetryAfter is PT011.
func jobTimeoutNotBelowRetryAfter(p *pass, d *Dependency) error {
	c := d.Caller
	if c.Kind != "job" || c.RetryAfter == 0 {
		p.skip("not a queue job with retry_after")
		return nil
	}
	switch {
	case c.Timeout <= 0:
		p.reportFix(d.at("caller.retry_after", "caller"), "set caller.timeout: several seconds below caller.retry_after "+units.Duration(c.RetryAfter)+" (Laravel $timeout)", "the job has no timeout but the queue re-delivers it after %s: a slow %s call makes the job run twice", units.Duration(c.RetryAfter), d.Name)
	case c.Timeout >= c.RetryAfter:
		p.report(d.at("caller.timeout", "caller"), "the job may run %s but the queue re-delivers it after %s: a slow run is handed to a second worker and the job runs twice", units.Duration(c.Timeout), units.Duration(c.RetryAfter))
	}
	return nil
}

// noBudgetOrBreaker is PT012.
func noBudgetOrBreaker(p *pass, d *Dependency) error {
	rate := d.Caller.Rate
	if rate == 0 {
		p.skip("no caller rate declared (caller: {rate: 50/s})")
		return nil
	}
	if rate >= HighVolumeRate && d.Policy.Budget == nil && d.Policy.Breaker == nil {
		p.report(d.at("caller.rate", "policy"), "at %s with neither a retry budget nor a breaker, an outage of %s sends up to %s at a dependency that is already down", units.Rate(rate), d.Name, amplifiedRate(rate, d.Policy.Retry.MaxAttempts))
	}
	return nil
}

// ShortInterval is the fixed wait below which PT013 reports retries that do not grow, when
// there are two retries or more: the seeds' "固定の短い間隔" (a front end re-fetching every
// 3s, Laravel's $backoff = 3). A brief overload lasts seconds; retries at a fixed interval
// shorter than that keep pressing the dependency while it recovers, where growing waits
// (exponential, or backoff() [10s, 30s, 90s, ...]) back off. One retry after a short wait
// is the seeds' interactive design and is not reported.
const ShortInterval = 5 * time.Second

// immediateRetries is PT013, on the policy's retries and on the queue's re-runs of a job:
// a retry that waits nothing, or retries that wait the same short interval.
func immediateRetries(p *pass, d *Dependency) error {
	r := d.Policy.Retry
	if what, ok := immediate(r); ok {
		keys := []string{"retry.base", "retry.backoff", "retry.max_attempts"}
		if r.Backoff == policy.BackoffList {
			keys = []string{"retry.delays", "retry.backoff", "retry.max_attempts"}
		}
		p.report(d.at(keys...), "%s: a brief failure becomes %s the load within %s, with no time to recover", what, attemptsText(r.MaxAttempts), soonText(r))
	}
	if q := d.Caller.Queue; d.Caller.QueueRetries() {
		if what, ok := immediate(q); ok {
			if _, set := d.pos["caller.backoff"]; !set {
				what = "caller.backoff is not set, so the queue re-runs a failed job at once (Laravel's queue:work --backoff=0)"
			}
			p.reportFix(d.at("caller.backoff", "caller.tries"), "set caller.backoff: [10s, 30s, 90s, 270s, 600s] (growing waits, as the seeds' backoff() returns)", "%s: the queue's %s tries land on %s within %s, with no time to recover", what, attemptsCount(q.MaxAttempts), d.Name, soonText(q))
		}
	}
	return nil
}

// immediate says what makes r's retries immediate: a zero wait, or two retries or more at a
// fixed wait below ShortInterval.
func immediate(r policy.Retry) (string, bool) {
	if !retries(r) {
		return "", false
	}
	n := r.MaxAttempts
	if n == policy.Unlimited {
		n = 4
	}
	plain := r // d(n) before jitter: "a fixed 3s" is the interval written, not its jittered bound
	plain.Jitter, plain.JitterFactor = policy.JitterNone, 0
	waits := plain.BackoffWaits(n)
	zero := 0
	for _, w := range waits {
		if w <= 0 {
			zero++
		}
	}
	switch {
	case zero == len(waits):
		return retriesText(r.MaxAttempts) + " go out at once", true
	case zero > 0:
		return fmt.Sprintf("%s at once (%s)", map[bool]string{true: "a retry goes out", false: fmt.Sprintf("%d retries go out", zero)}[zero == 1], delaysText(r)), true
	}
	if len(waits) < 2 || waits[0] >= ShortInterval {
		return "", false
	}
	for _, w := range waits[1:] {
		if w != waits[0] {
			return "", false
		}
	}
	return fmt.Sprintf("%s wait a fixed %s each", retriesText(r.MaxAttempts), units.Duration(waits[0])), true
}

// soonText is how soon r's retries are all sent (the sum of their longest waits).
func soonText(r policy.Retry) string {
	n := r.MaxAttempts
	if n == policy.Unlimited {
		n = 4
	}
	var sum time.Duration
	for _, w := range r.BackoffWaits(n) {
		sum += w
	}
	if sum < time.Millisecond {
		return "milliseconds"
	}
	return units.Duration(sum)
}

// releasesUseUpTries is PT014: a job that honours Retry-After through release() (the policy
// retries 429 and honours Retry-After, so once its own attempts are spent the job releases
// itself for that long) spends a try on every release; with a number of tries and no
// retry_until, a dependency that rate-limits long enough fails the job for good.
func releasesUseUpTries(p *pass, d *Dependency) error {
	c := d.Caller
	if c.Kind != "job" || c.Queue.MaxAttempts == 0 {
		p.skip("not a queue job with tries (caller: {kind: job, tries: 6})")
		return nil
	}
	r := d.Policy.Retry
	if c.Queue.MaxAttempts == policy.Unlimited || c.RetryUntil > 0 || r.RetryAfter == policy.RetryAfterIgnore || !retries429(retryOn(r)) {
		return nil
	}
	ra := r.RetryAfterMax
	if ra <= 0 {
		ra = time.Minute
	}
	n := c.Queue.MaxAttempts
	p.report(d.at("caller.tries", "caller"), "each 429 ends a run with release(Retry-After), and a release counts as a try: %d 429 responses in a row (%s of rate limiting at Retry-After %s) use up all %d tries and the job fails for good", n, units.Duration(time.Duration(n)*ra), units.Duration(ra), n)
	return nil
}

// scenarioExpectationUnmet is PT100: each expect: line of the scenario against what the
// policy did in the replay.
func scenarioExpectationUnmet(p *pass, s *replayedPolicy) error {
	exp := s.Expect
	checks := []struct {
		field, expr string
		percent     bool
		got         float64
		what        string
	}{
		{"success_rate", exp.SuccessRate, true, s.SuccessRate, "success rate"},
		{"amplification", exp.Amplification, false, s.Amplification, "amplification"},
		{"duplicates", exp.Duplicates, false, s.Duplicates, "duplicates"},
		{"worker_saturation", exp.WorkerSaturation, true, s.WorkerSaturation, "worker saturation"},
	}
	for _, c := range checks {
		if c.expr == "" {
			continue
		}
		pos, ok := exp.Pos[c.field]
		if !ok {
			pos = exp.Pos["policy"]
		}
		if pos.File == "" {
			pos.File = s.File
		}
		cmp, err := scenario.ParseComparison(c.expr, c.percent)
		if err != nil {
			return &scenario.Error{File: pos.File, Line: pos.Line, Col: pos.Col, Field: "expect." + c.field, Msg: err.Error()}
		}
		if cmp.Holds(c.got) {
			continue
		}
		got := fmtNum(c.got)
		if c.percent {
			got = fmtPct(c.got)
		}
		p.report(pos, "scenario %s, policy %s: %s %s, expected %s", s.Scenario, s.Name, c.what, got, cmp)
	}
	return nil
}
