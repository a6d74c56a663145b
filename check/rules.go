package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
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

// Rule is one check with a stable ID (DESIGN §8): what `check --rules`, the docs and SARIF say
// about it, the fix printed under each of its findings, and the function that checks, in one
// value (as staticcheck's analyzers carry their name, doc, severity and Run). IDs never change
// meaning; a retired rule keeps its number.
type Rule struct {
	ID string `json:"id"`
	// Name is a short CamelCase handle (SARIF reportingDescriptor.name).
	Name  string `json:"name"`
	Title string `json:"title"`
	// Level is the default level; `rules.levels` in the file overrides it.
	Level Level `json:"level"`
	// Help says why the rule exists and how to fix what it finds.
	Help string `json:"help"`
	// Fix is the one-line fix shown under each finding (Finding.Fix).
	Fix string `json:"-"`
	// A rule checks one kind of subject: dependency checks one dependency of a check file,
	// scenario one policy of a replayed scenario against its expect: lines (PT100).
	dependency func(p *pass, d *Dependency) error
	scenario   func(p *pass, s *replayedPolicy) error
}

// Catalog is every rule `check` knows, in ID order, which is also the order the rules run
// in. Default levels: a finding that will break production on the first bad day (no timeout,
// a retried charge without a key, a chain that cannot fit its budget, multiplied load, a job
// that runs twice, an expectation the user wrote down) is an error; a risk that depends on
// traffic or on the dependency's behaviour is a warning.
var Catalog = []Rule{
	{
		ID: "PT001", Name: "MissingTimeout", Title: "timeout missing or none", Level: LevelError,
		Help:       "Without a timeout a hung dependency holds the caller's worker forever: requests pile up behind it until the caller runs out of workers (and a dead connection never comes back). Set `timeout:` to a little above the dependency's p99.9 (`patience probe URL` measures it).",
		Fix:        "set timeout: to the dependency's p99.9 × 1.2 (patience probe URL measures it)",
		dependency: missingTimeout,
	},
	{
		ID: "PT002", Name: "ConnectTimeoutNotBelowTimeout", Title: "connect timeout not below the total timeout", Level: LevelWarning,
		Help:       "The attempt timeout includes connection set-up, so a connect_timeout at or above it never fires: a lost SYN or an unreachable host costs a whole attempt instead of a quick, always-safe retry. Keep connect_timeout well below timeout (about 1.1s survives one lost SYN).",
		Fix:        "set connect_timeout well below timeout (about 1.1s survives one lost SYN)",
		dependency: connectTimeoutNotBelowTimeout,
	},
	{
		ID: "PT003", Name: "TimeoutExceedsCallerBudget", Title: "attempt timeout exceeds the caller's budget", Level: LevelError,
		Help:       "One attempt may wait longer than the caller itself waits (the interactive budget or the job timeout): the caller gives up first and the call goes on with nobody waiting for its answer. Lower timeout below the budget, or give the caller more time.",
		Fix:        "lower timeout below the caller's budget",
		dependency: timeoutExceedsCallerBudget,
	},
	{
		ID: "PT004", Name: "RetriesExceedCallerBudget", Title: "attempts × timeout + backoff exceed the caller's budget", Level: LevelError,
		Help:       "In the worst case every attempt times out and every backoff waits its longest (jitter upper bound, and Retry-After up to retry_after_max when honoured). If that sum exceeds the caller's budget, the last attempts run after the caller gave up: load with no benefit. Lower max_attempts or timeout, or set `deadline:` to the budget so the policy stops on time.",
		Fix:        "lower max_attempts or timeout, or set deadline: to the caller's budget",
		dependency: retriesExceedCallerBudget,
	},
	{
		ID: "PT005", Name: "NonIdempotentRetryWithoutKey", Title: "non-idempotent request retried without an idempotency key", Level: LevelError,
		Help:       "A timeout, reset or 5xx leaves the outcome unknown: the provider may have committed before the answer was lost. Retrying a POST/PATCH then executes it twice (two charges, two shipments). Send an Idempotency-Key (the same key on every retry) and use `non_idempotent: with_key`, or do not retry outcome-unknown failures (`non_idempotent: never`). Reported for `non_idempotent: always` without a key (request or policy idempotency_key); `with_key` without a key retries no unknown outcome, as in the simulator, so it is safe and not reported.",
		Fix:        "send an Idempotency-Key (request: {idempotency_key: true}) with non_idempotent: with_key, or set non_idempotent: never",
		dependency: nonIdempotentRetryWithoutKey,
	},
	{
		ID: "PT006", Name: "RetriesWithoutJitter", Title: "retries without jitter", Level: LevelWarning,
		Help:       "Without jitter every client that failed together retries together: the retries arrive as synchronized waves that hit a recovering dependency at the same instant (AWS Architecture Blog, \"Exponential Backoff And Jitter\", 2015). Use `jitter: full` (or decorrelated backoff).",
		Fix:        "set retry.jitter: full",
		dependency: retriesWithoutJitter,
	},
	{
		ID: "PT007", Name: "RetriesOnClientErrors", Title: "retries on 4xx other than 408/409/429", Level: LevelWarning,
		Help:       "A 4xx other than 408 (request timeout), 409 (conflict, e.g. the same key still in flight) and 429 (too many requests) says the request itself is wrong; sending it again fails the same way and only adds load (RFC 9110 §15.5). Retry 408, 409 and 429 only.",
		Fix:        "retry only 408, 409, 429 among 4xx (on: [connect, timeout, reset, 408, 409, 429, 5xx])",
		dependency: retriesOnClientErrors,
	},
	{
		ID: "PT008", Name: "RetryAfterIgnoredOrUncapped", Title: "Retry-After ignored or uncapped", Level: LevelWarning,
		Help:       "Retry-After (RFC 9110 §10.2.3) is the dependency telling you when it can take the request again; ignoring it retries into a 429/503 that is guaranteed to fail again. Honouring it without a cap lets one header park a caller for hours. Use `retry_after: honor` with `retry_after_max:` bounded by your budget.",
		Fix:        "set retry.retry_after: honor and retry.retry_after_max: to a bound within the budget",
		dependency: retryAfterIgnoredOrUncapped,
	},
	{
		ID: "PT009", Name: "LayeredAmplification", Title: "layered retry amplification above max_amplification", Level: LevelError,
		Help:       "Every layer that retries multiplies the attempts of the layers below: 3 layers × 4 attempts = 64 attempts on the dependency for one user request, exactly when it is overloaded. Retry at one layer only (usually the one closest to the dependency), or lower max_attempts so the product stays under max_amplification.",
		Fix:        "retry at one layer only, or lower max_attempts so their product stays within max_amplification",
		dependency: layeredAmplification,
	},
	{
		ID: "PT010", Name: "TimeoutBelowMeasuredLatency", Title: "timeout below the measured latency tail", Level: LevelWarning,
		Help:       "A timeout below the profile's p(1-cutoff) cuts off good responses that were merely slow: each one costs a wasted attempt (and a retry of work the provider may have done). Raise timeout to the profile's p99.9 × 1.2 (`patience probe --budget` recommends one), or accept the cut-off rate consciously with `cutoff:`.",
		Fix:        "raise timeout above the profile's tail (p99.9 × 1.2), or set cutoff: to the share you accept",
		dependency: timeoutBelowMeasuredLatency,
	},
	{
		ID: "PT011", Name: "JobTimeoutNotBelowRetryAfter", Title: "queue job timeout at or above the queue's retry_after", Level: LevelError,
		Help:       "When a job may run longer than the queue's visibility timeout (Laravel retry_after, SQS visibility timeout), the queue hands the same job to a second worker while the first is still running: the job runs twice. Keep the job timeout several seconds below retry_after.",
		Fix:        "keep the job timeout below the queue's retry_after (or raise retry_after)",
		dependency: jobTimeoutNotBelowRetryAfter,
	},
	{
		ID: "PT012", Name: "NoBudgetOrBreaker", Title: "no retry budget or circuit breaker on a high-volume dependency", Level: LevelWarning,
		Help:       "At high request rates an outage turns every retry into extra load on a dependency that is already down, and without a breaker every caller keeps waiting for timeouts. A retry budget (token bucket or ratio, SRE book ch. 22) caps the extra load; a breaker fails fast. \"High-volume\" means a declared caller rate of at least 10 requests/s (`caller: {rate: 50/s}`).",
		Fix:        "add a retry budget (budget: {kind: token_bucket, ...}) or a breaker",
		dependency: noBudgetOrBreaker,
	},
	{
		ID: "PT013", Name: "ImmediateRetries", Title: "immediate retries (zero backoff)", Level: LevelWarning,
		Help:       "Retrying at once gives the dependency no time to recover and turns a brief failure into a burst of max_attempts× the load within milliseconds. Use exponential backoff with a base of at least tens of milliseconds, with jitter.",
		Fix:        "use backoff: exponential with base: 100ms or more, and jitter: full",
		dependency: immediateRetries,
	},
	{
		ID: "PT100", Name: "ScenarioExpectationUnmet", Title: "scenario expectation unmet", Level: LevelError,
		Help:     "A scenario listed under `scenarios:` was replayed in the simulator and one of its `expect:` lines did not hold for this policy. Replay it with `patience replay FILE` to see the timeline, then change the policy or the expectation.",
		Fix:      "replay the scenario (patience replay FILE) and change the policy or the expectation",
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

// missingTimeout is PT001.
func missingTimeout(p *pass, d *Dependency) error {
	pol := d.Policy
	if pol.Timeout > 0 {
		return nil
	}
	if pol.Deadline > 0 {
		p.report(d.at("timeout"), "no per-attempt timeout: one hung %s call uses the whole %s deadline and leaves no time for a retry", d.Name, fmtDur(pol.Deadline))
	} else {
		p.report(d.at("timeout"), "no timeout: one hung %s call holds the caller's worker forever, and the workers run out one by one", d.Name)
	}
	return nil
}

// connectTimeoutNotBelowTimeout is PT002.
func connectTimeoutNotBelowTimeout(p *pass, d *Dependency) error {
	pol := d.Policy
	if pol.ConnectTimeout > 0 && pol.Timeout > 0 && pol.ConnectTimeout >= pol.Timeout {
		p.report(d.at("connect_timeout"), "connect_timeout %s ≥ timeout %s never fires: a lost SYN costs a whole %s attempt instead of a quick, safe retry", fmtDur(pol.ConnectTimeout), fmtDur(pol.Timeout), fmtDur(pol.Timeout))
	}
	return nil
}

// timeoutExceedsCallerBudget is PT003. An attempt waits min(timeout, deadline) (DESIGN §5), so
// a deadline within the budget already bounds it.
func timeoutExceedsCallerBudget(p *pass, d *Dependency) error {
	limit := callerLimit(p, d)
	if limit == 0 {
		return nil
	}
	pol := d.Policy
	attempt := pol.Timeout
	if pol.Deadline > 0 && (attempt == 0 || pol.Deadline < attempt) {
		attempt = pol.Deadline
	}
	if attempt > limit {
		p.report(d.at("timeout"), "one attempt may wait %s but %s: the call keeps running with nobody waiting for its answer", fmtDur(attempt), fmt.Sprintf(givesUp(d.Caller), fmtDur(limit)))
	}
	return nil
}

// retriesExceedCallerBudget is PT004: attempts × timeout + Σ worst-case backoff
// (policy.Retry.WorstCase, DESIGN §5) against the caller's budget.
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
	if r.MaxAttempts == policy.Unlimited {
		if pol.Deadline <= 0 {
			p.report(d.at("retry.max_attempts"), "unlimited attempts and no deadline: a failing %s call retries until it succeeds, long after %s", d.Name, fmt.Sprintf(givesUp(d.Caller), fmtDur(limit)))
		} else if pol.Deadline > limit {
			p.report(d.at("deadline", "retry.max_attempts"), "unlimited attempts run until the %s deadline, past %s: the last attempts run for nobody", fmtDur(pol.Deadline), limitText(d.Caller, limit))
		}
		return nil
	}
	if pol.Timeout <= 0 {
		return nil
	}
	waits := r.WorstCaseWaits(r.MaxAttempts)
	total := r.WorstCase(r.MaxAttempts, pol.Timeout)
	if pol.Deadline > 0 && pol.Deadline < total {
		if pol.Deadline <= limit {
			return nil // the deadline stops the policy in time
		}
		p.report(d.at("deadline", "retry.max_attempts"), "worst case %s = %s, cut at the %s deadline, still exceeds %s: the last attempts run for nobody", sumText(r, pol.Timeout, waits), fmtDur(total), fmtDur(pol.Deadline), limitText(d.Caller, limit))
		return nil
	}
	if total > limit {
		p.report(d.at("retry.max_attempts", "timeout"), "worst case %s = %s exceeds %s: the last attempts run for nobody", sumText(r, pol.Timeout, waits), fmtDur(total), limitText(d.Caller, limit))
	}
	return nil
}

// nonIdempotentRetryWithoutKey is PT005.
func nonIdempotentRetryWithoutKey(p *pass, d *Dependency) error {
	r := d.Policy.Retry
	if !retries(r) || d.Request.Idempotent() || r.NonIdempotent != policy.NonIdempotentAlways || d.Policy.SendsKey(d.Request.IdempotencyKey) {
		return nil
	}
	if unknown := outcomeUnknown(retryOn(r)); len(unknown) > 0 {
		p.report(d.at("retry.non_idempotent", "retry.on", "request.method"), "a %s after the provider committed will execute twice: %s retried up to %s on %s without an Idempotency-Key", unknown[0], d.Request.Method, attemptsText(r.MaxAttempts), strings.Join(unknown, "/"))
	}
	return nil
}

// retriesWithoutJitter is PT006. Zero backoff is PT013's: jitter would not help it.
func retriesWithoutJitter(p *pass, d *Dependency) error {
	r := d.Policy.Retry
	if retries(r) && noJitter(r) && r.Backoff != policy.BackoffDecorrelated && !zeroBackoff(r) {
		p.report(d.at("retry.jitter", "retry.backoff", "retry.max_attempts"), "every client that failed together retries together: %s backoff without jitter sends the retries as synchronized waves (%s)", r.Backoff, delaysText(r))
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

// retryAfterIgnoredOrUncapped is PT008.
func retryAfterIgnoredOrUncapped(p *pass, d *Dependency) error {
	r := d.Policy.Retry
	if !retries(r) || !honoursPushback(retryOn(r)) {
		return nil
	}
	switch {
	case r.RetryAfter == policy.RetryAfterIgnore:
		p.report(d.at("retry.retry_after", "retry"), "Retry-After is ignored: after a 429/503 the retry comes back before the dependency said it could serve it, and fails again")
	case r.HonorsRetryAfter() && r.RetryAfterMax <= 0:
		p.report(d.at("retry.retry_after_max", "retry.retry_after", "retry"), "Retry-After is honoured without retry_after_max: one \"Retry-After: 3600\" parks this caller for an hour")
	}
	return nil
}

// layeredAmplification is PT009: Π max_attempts over the file's layers, the policy's own
// layers and the policy itself (a layer without a policy counts as 1, as in
// policy.Policy.TheoreticalAmplification).
func layeredAmplification(p *pass, d *Dependency) error {
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
	for _, l := range slices.Concat(d.Layers, d.Policy.Layers) {
		if l.Policy != nil {
			add(l.Name, l.Policy.Retry.MaxAttempts)
		}
	}
	add(d.Name, d.Policy.Retry.MaxAttempts)
	if !unlimited && product <= limit {
		return nil
	}
	// Point at the layers that multiply, or at max_attempts when the policy alone is too much.
	at := d.at("layers", "retry.max_attempts")
	if len(d.Layers) == 0 && len(d.Policy.Layers) == 0 {
		at = d.at("retry.max_attempts")
	}
	if unlimited {
		p.report(at, "a layer retries without limit: one user request can send unbounded attempts to %s during an outage (%s)", d.Name, strings.Join(parts, " × "))
		return nil
	}
	p.report(at, "one user request can become %s attempts on %s during an outage (%s), above max_amplification %s", fmtNum(product), d.Name, strings.Join(parts, " × "), fmtNum(limit))
	return nil
}

// timeoutBelowMeasuredLatency is PT010: the share of the profile's good responses slower than
// the timeout. An unreadable profile is an input error, never a finding.
func timeoutBelowMeasuredLatency(p *pass, d *Dependency) error {
	path := d.Profile
	if path == "" {
		path = p.opts.Profile
	}
	if path == "" {
		p.skip("no latency profile (profile: probe.json, or --profile)")
		return nil
	}
	if d.Policy.Timeout <= 0 {
		return nil
	}
	h, err := p.opts.LoadProfile(path)
	if err != nil {
		pos := d.at("profile")
		if d.Profile == "" {
			pos = policy.Pos{}
		}
		return &scenario.Error{File: fileOr(pos.File, p.file.Path), Line: pos.Line, Col: pos.Col, Field: "profile", Msg: err.Error()}
	}
	total := h.TotalCount()
	if total == 0 {
		return nil
	}
	cutoff := d.Cutoff
	if cutoff <= 0 {
		cutoff = DefaultCutoff
	}
	share := ShareAbove(h, d.Policy.Timeout)
	if share <= cutoff {
		return nil
	}
	q := 100 * (1 - cutoff)
	tail := fmt.Sprintf("p%s n/a with %d samples", fmtNum(q), total)
	if float64(total) >= 1/cutoff {
		tail = fmt.Sprintf("p%s = %s over %d samples", fmtNum(q), fmtDur(time.Duration(h.ValueAtQuantile(q))*time.Microsecond), total)
	}
	p.report(d.at("timeout"), "timeout %s cuts off %s of good %s responses (%s; cutoff %s): each one is a wasted attempt that the provider may have completed", fmtDur(d.Policy.Timeout), fmtPct(share), d.Name, tail, fmtPct(cutoff))
	return nil
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
		p.report(d.at("caller.retry_after", "caller"), "the job has no timeout but the queue re-delivers it after %s: a slow %s call makes the job run twice", fmtDur(c.RetryAfter), d.Name)
	case c.Timeout >= c.RetryAfter:
		p.report(d.at("caller.timeout", "caller"), "the job may run %s but the queue re-delivers it after %s: a slow run is handed to a second worker and the job runs twice", fmtDur(c.Timeout), fmtDur(c.RetryAfter))
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
		p.report(d.at("caller.rate", "policy"), "at %s/s with neither a retry budget nor a breaker, an outage of %s sends up to %s attempts/s at a dependency that is already down", fmtNum(rate), d.Name, amplifiedRate(rate, d.Policy.Retry.MaxAttempts))
	}
	return nil
}

// immediateRetries is PT013.
func immediateRetries(p *pass, d *Dependency) error {
	r := d.Policy.Retry
	if retries(r) && zeroBackoff(r) {
		p.report(d.at("retry.backoff", "retry.base", "retry.max_attempts"), "%s go out at once: a brief failure becomes %s the load within milliseconds, with no time to recover", retriesText(r.MaxAttempts), attemptsText(r.MaxAttempts))
	}
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
