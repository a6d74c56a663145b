package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/scenario"
)

// DefaultInitBudget is the interactive budget a starter file assumes when neither --budget
// nor a profile gives one: long enough for two 2s attempts, short enough that a person still
// waits for it.
const DefaultInitBudget = 5 * time.Second

// StarterOptions are the inputs of `patience check --init`.
type StarterOptions struct {
	// Name of the dependency (default "api").
	Name string
	// Method of the call (default GET) and whether it carries an Idempotency-Key.
	Method         string
	IdempotencyKey bool
	// Caller is interactive ("" too) or job: a job gets the queue design (tries, backoff,
	// jitter, job timeout, retry_after, retry_until) and one attempt per run.
	Caller profile.CallerKind
	// Budget is the interactive caller's budget (0 = the profile's, else DefaultInitBudget),
	// or a job's retry window (retry_until; 0 = the give-up time of the queue design).
	Budget time.Duration
	// Profile is a `probe --save` profile: its evidence goes through profile.Recommend for this
	// caller, so the file holds what probe recommends; the path is written into the file as
	// given (relative to where the file is written).
	Profile string
	// Loaded is the profile already read (`--profile -`, standard input), used instead of
	// reading Profile, which then only names it: the file keeps profile: commented out, as
	// no path can find it again.
	Loaded *profile.Profile
}

// filled applies the defaults: dependency api, method GET, an interactive caller.
func (o StarterOptions) filled() StarterOptions {
	if o.Name == "" {
		o.Name = "api"
	}
	if o.Method == "" {
		o.Method = "GET"
	}
	o.Method = strings.ToUpper(o.Method)
	if o.Caller == "" {
		o.Caller = profile.CallerInteractive
	}
	return o
}

// starterAdvice is what a starter file writes: probe's recommendation for the caller.
type starterAdvice struct {
	source           string
	connect, timeout time.Duration
	// read is the recommended read timeout (profile.Recommendation.ReadTimeoutMs); 0 when
	// none was measured or it buys nothing below the timeout.
	read time.Duration
	// firstEvent and idle are a stream's advice (profile.StreamAdvice): the wait for the first
	// event and each later silence; 0 when the profile saw no streams. With both, timeout is 0
	// when the stream's total is unbounded (its length is the content's: PT001 agrees).
	firstEvent, idle time.Duration
	attempts         int
	attemptsNote     string
	budget           time.Duration
	job              *profile.JobDesign
	queueNote        string
	// rec is the recommendation the file writes, as --emit writes it for clients and
	// proxies: profile.Recommend's, or the preset's figures in its shape; target is the
	// profile's call (empty without a profile).
	rec    profile.Recommendation
	target profile.Target
}

// Starter returns a commented starter check file holding the recommended policy: what
// profile.Recommend recommends for the caller from the profile's evidence when one is given
// (docs/design.md §7: the one source of advice), else the `recommended` preset's timeouts with the
// attempts counted by the same rules (at most one retry for an interactive caller, one
// attempt for a non-idempotent call without a key, as many as fit the budget with the retry
// block written: policy.Retry.AttemptsWithin, the sum PT004 checks). An interactive caller's
// policy gets a deadline equal to the budget, so the whole call stops when the caller stops
// waiting. When the budget cannot hold one normal call, the file holds the job design
// instead, as probe says: accept the work and move the call to a queue.
func Starter(o StarterOptions) ([]byte, error) {
	o = o.filled()
	rec, ok := scenario.Preset("recommended")
	if !ok {
		return nil, errors.New("the recommended preset is missing")
	}
	a, err := starterAdvise(o, rec)
	if err != nil {
		return nil, err
	}
	retry := profile.AssumedRetry()
	raMax := rec.Retry.RetryAfterMax
	if a.job == nil {
		// A Retry-After wait and one more attempt fit the budget (the deadline ends a longer one).
		raMax = min(raMax, a.budget-a.timeout)
		if raMax <= 0 {
			raMax = time.Second // one attempt: no retry waits for it
		}
	}
	nonIdem := "with_key"
	nonIdemNote := "retry timeouts/5xx of a non-idempotent call only with an Idempotency-Key"
	if !policy.IdempotentMethod(o.Method) && !o.IdempotencyKey {
		nonIdem = "never"
		nonIdemNote = o.Method + " without an Idempotency-Key: a timeout or 5xx is not retried (it may have been executed)"
	}
	profileLine := line(4, "# profile: probe.json", "from `patience probe URL --save probe.json`: enables PT010")
	if o.Profile != "" && o.Loaded == nil {
		profileLine = line(4, "profile: "+quoteIfNeeded(o.Profile), "PT010 checks the timeout against this latency profile")
	}
	connectLine := line(6, "connect_timeout: "+yamlDur(a.connect), "survives one lost SYN (Linux retransmits after 1s)")
	if a.connect <= 0 || a.timeout > 0 && a.connect >= a.timeout {
		// probe recommends none when the connect timeout that survives a lost SYN is not below
		// the attempt timeout: the attempt timeout bounds the connect (PT002 agrees).
		connectLine = line(6, "# connect_timeout: none", "below "+yamlDur(profile.DefaultConnectFloor)+" a separate connect timeout buys nothing: the "+yamlDur(a.timeout)+" timeout bounds the connect")
	}
	callerLines := line(4, fmt.Sprintf("caller: {kind: interactive, budget: %s}", yamlDur(a.budget)), "someone waits: one retry at most (the seeds)")
	readLine := readTimeoutLine(a.read, a.timeout)
	timeoutLine := line(6, "timeout: "+yamlDur(a.timeout), "per attempt, connect included")
	if a.firstEvent > 0 && a.idle > 0 {
		readLine = line(6, "first_event_timeout: "+yamlDur(a.firstEvent), "a stream: the wait for its first event (probe's first_event cut-off)") + "\n" +
			line(6, "read_timeout: "+yamlDur(a.idle), "each later silence: a stream that stalls for longer is cut (PT017 holds both to the profile)")
		if a.timeout <= 0 {
			timeoutLine = line(6, "# timeout: none", "a stream's length is the content's: its silences are bounded instead (PT001 agrees)")
		}
	}
	deadlineLine := "\n" + line(6, "deadline: "+yamlDur(a.budget), "the whole call, backoff included: stop when the caller stops waiting")
	if j := a.job; j != nil {
		delays := make([]string, len(j.BackoffMs))
		for i, d := range j.BackoffMs {
			delays[i] = yamlDur(msDuration(d))
		}
		until := a.budget
		if until <= 0 {
			until = msDuration(j.GiveUpAfterMs).Round(time.Second)
		}
		callerLines = a.queueNote + "    caller:\n" +
			line(6, "kind: job", "a queue worker; the queue retries, the call runs once per try") + "\n" +
			line(6, "timeout: "+yamlDur(msDuration(j.TimeoutMs)), "$timeout: one run") + "\n" +
			line(6, "retry_after: "+yamlDur(msDuration(j.RetryAfterMs)), "the queue's retry_after: above the job timeout (PT011)") + "\n" +
			line(6, fmt.Sprintf("tries: %d", j.Tries), "$tries; release() counts as a try") + "\n"
		if len(delays) > 0 {
			callerLines += line(6, "backoff: ["+strings.Join(delays, ", ")+"]", "backoff(): growing waits between runs") + "\n" +
				line(6, "jitter: "+j.Jitter, "d + random_int(0, intdiv(d, 4))") + "\n" +
				fmt.Sprintf("      jitter_factor: %s\n", strconv.FormatFloat(j.JitterFactor, 'g', -1, 64))
		}
		callerLines += line(6, "retry_until: "+yamlDur(until), "retryUntil(): a run of 429 releases cannot use up the tries (PT014)")
		deadlineLine = ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# patience.yaml: the timeout and retry policy of each external call, checked in CI by
# `+"`patience check`"+` (rules PT001–PT017; `+"`patience check --help`"+` lists them).
# Generated by `+"`patience check --init`"+` from %s.
# Silence one finding with a comment on its line: # patience:ignore PT006

# The most attempts one user request may cause on a dependency, across every layer that retries.
max_amplification: 10

dependencies:
  - name: %s
    # Who waits for the call: {kind: interactive, budget: 3s} (a person, an upstream request),
    # or {kind: job, timeout: 20s, retry_after: 90s, tries: 6, backoff: [10s, 30s, 90s]} (a
    # queue worker, its re-delivery and the queue's own retries).
    # Add rate: 50/s to declare the volume (PT012 wants a budget or breaker from 10/s).
%s
    request: {method: %s, idempotency_key: %t}
%s
    # layers: [{name: gateway, max_attempts: 1}]   # callers above this one that retry too
    policy:
%s
%s%s
      retry:
%s
        on: [%s]
%s
        backoff: %s
        base: %s
        multiplier: %s
        cap: %s
%s
        retry_after: %s
%s
      budget: {kind: token_bucket, capacity: 500, retry_cost: 5, timeout_cost: 10, refill: 1}

# Replay scenarios in the simulator; each expect: block must hold (PT100):
# scenarios: [scenarios/outage.yaml]
# rules: {disable: [PT012], levels: {PT006: error}}
`, a.source, o.Name, callerLines, o.Method, o.IdempotencyKey,
		profileLine,
		connectLine,
		timeoutLine+"\n"+readLine,
		deadlineLine,
		line(8, fmt.Sprintf("max_attempts: %d", a.attempts), a.attemptsNote),
		strings.Join(rec.Retry.On, ", "),
		line(8, "non_idempotent: "+nonIdem, nonIdemNote),
		retry.Backoff, yamlDur(retry.Base), strconv.FormatFloat(retry.Multiplier, 'g', -1, 64), yamlDur(retry.Cap),
		line(8, "jitter: "+string(retry.Jitter), "spreads retries out (no synchronized waves)"),
		policy.RetryAfterHonor,
		line(8, "retry_after_max: "+yamlDur(raMax), "a 429/503 may ask for a pause, never longer than this"))
	return []byte(b.String()), nil
}

// starterAdvise is probe's recommendation for the starter's caller: profile.Recommend over the
// profile's evidence, or the recommended preset's timeouts counted by the same rules.
func starterAdvise(o StarterOptions, rec *policy.Policy) (starterAdvice, error) {
	caller := profile.Caller{Kind: o.Caller, Budget: o.Budget, Method: o.Method, IdempotencyKey: o.IdempotencyKey}
	if o.Profile == "" {
		budget := o.Budget
		if budget == 0 {
			budget = DefaultInitBudget
		}
		a := starterAdvice{source: "the `recommended` preset (" + yamlDur(rec.Timeout) + " timeout; no latency measured)", connect: rec.ConnectTimeout, timeout: rec.Timeout, budget: budget}
		if o.Caller == profile.CallerJob {
			return a, errors.New("--caller job needs --profile: the job design is derived from the measured timeout")
		}
		retry := profile.AssumedRetry()
		fit := retry.AttemptsWithin(a.timeout, budget, profile.MaxAttemptsCap)
		a.attempts = min(fit, profile.InteractiveAttempts)
		a.attemptsNote = interactiveAttemptsNote(a.attempts, a.timeout, budget)
		if !policy.IdempotentMethod(o.Method) && !o.IdempotencyKey {
			a.attempts, a.attemptsNote = min(fit, 1), "retry only with an Idempotency-Key"
		}
		if fit == 0 {
			a.attempts, a.attemptsNote = 1, "WARNING: "+profile.QueueVerdict+" (PT003 will say so)"
		}
		a.rec = presetRecommendation(a, o)
		return a, nil
	}
	res, err := o.Loaded, error(nil)
	if res == nil {
		res, err = profile.Load(o.Profile)
	}
	if err != nil {
		return starterAdvice{}, fmt.Errorf("--profile: %v", err)
	}
	if res.Schema != profile.Schema {
		return starterAdvice{}, fmt.Errorf("--profile %s is not a probe profile (save one with patience probe URL --save FILE)", o.Profile)
	}
	ev, err := res.Evidence()
	if err != nil {
		return starterAdvice{}, fmt.Errorf("--profile %s: %v", o.Profile, err)
	}
	saved := res.Recommendation
	opts := profile.RecommendOptions{Cutoff: saved.CutoffRate, Headroom: saved.Headroom, ConnectFloor: msDuration(saved.ConnectFloorMs), MaxErrorRate: saved.MaxErrorRate}
	if caller.Budget == 0 && caller.Kind != profile.CallerJob && saved.BudgetMs > 0 {
		caller.Budget = msDuration(saved.BudgetMs)
	}
	r := profile.Recommend(ev, caller, opts)
	first, idle := streamBounds(r.StreamAdvice)
	if r.TimeoutMs <= 0 && (first <= 0 || idle <= 0) {
		return starterAdvice{}, fmt.Errorf("--profile %s has no timeout recommendation: %s", o.Profile, verdictText(r))
	}
	a := starterAdvice{
		target:  res.Target,
		source:  fmt.Sprintf("probe's recommendation from %s (%s)", o.Profile, verdictText(r)),
		connect: msDuration(r.ConnectTimeoutMs), timeout: msDuration(r.TimeoutMs),
		attempts: r.MaxAttempts, budget: msDuration(r.BudgetMs), job: r.Job,
	}
	if r.ReadTimeoutMs != nil {
		a.read = msDuration(*r.ReadTimeoutMs)
	}
	a.firstEvent, a.idle = first, idle
	a.attemptsNote = fmt.Sprintf("probe: %d would fit the budget; %s", r.AttemptsFit, attemptsWhy(r))
	if r.Job != nil {
		a.attempts, a.attemptsNote = max(r.MaxAttempts, 1), "one attempt per run: the queue retries (caller.tries)"
		a.budget = o.Budget
	}
	if !r.FitsBudget && r.Job == nil {
		// The budget cannot hold one normal call: what probe recommends is the queue.
		caller.Kind, caller.Budget = profile.CallerJob, 0
		j := profile.Recommend(ev, caller, opts)
		if j.Job == nil {
			return starterAdvice{}, fmt.Errorf("--profile %s: %s", o.Profile, profile.QueueVerdict)
		}
		a.job, a.attempts, a.budget = j.Job, 1, 0
		a.attemptsNote = "one attempt per run: the queue retries (caller.tries)"
		a.queueNote = fmt.Sprintf("    # The %s budget cannot hold one %s call: %s. The job design:\n", yamlDur(msDuration(r.BudgetMs)), yamlDur(a.timeout), profile.QueueVerdict)
		r = j
	}
	a.rec = r
	return a, nil
}

// presetRecommendation is a starter's advice without a profile in the recommendation's
// shape: the recommended preset's timeouts and the attempts counted for the caller.
func presetRecommendation(a starterAdvice, o StarterOptions) profile.Recommendation {
	budgetMs := float64(a.budget) / float64(time.Millisecond)
	r := profile.Recommendation{
		TimeoutMs: float64(a.timeout) / float64(time.Millisecond), MaxAttempts: a.attempts,
		BudgetMs: budgetMs, FitsBudget: a.attempts > 0, Backoff: profile.BackoffDescription(),
		Caller: profile.CallerInfo{Kind: profile.CallerInteractive, Method: o.Method, IdempotencyKey: o.IdempotencyKey, BudgetMs: budgetMs},
	}
	if a.connect > 0 && a.connect < a.timeout {
		r.ConnectTimeoutMs = float64(a.connect) / float64(time.Millisecond)
	}
	return r
}

// StarterRecommendation is the recommendation a starter file holds (Starter writes it) and
// the call it is for, as `check --init --emit` writes it for clients and proxies: probe's
// for the caller when a profile is given, else the recommended preset's.
func StarterRecommendation(o StarterOptions) (profile.Recommendation, profile.Target, error) {
	o = o.filled()
	rec, ok := scenario.Preset("recommended")
	if !ok {
		return profile.Recommendation{}, profile.Target{}, errors.New("the recommended preset is missing")
	}
	a, err := starterAdvise(o, rec)
	if err != nil {
		return profile.Recommendation{}, profile.Target{}, err
	}
	t := a.target
	t.Method = o.Method
	return a.rec, t, nil
}

// interactiveAttemptsNote is the max_attempts comment of an interactive starter: the comment
// must say what the value does (issue 26: "max_attempts: 1  # … retries at most once" read as
// one retry when 1 attempt is none).
func interactiveAttemptsNote(attempts int, timeout, budget time.Duration) string {
	if attempts <= 1 {
		return "no retry: the " + yamlDur(budget) + " budget holds one " + yamlDur(timeout) + " attempt"
	}
	return "one retry: an interactive caller retries at most once (the seeds)"
}

// verdictText is the recommendation's verdict in one line.
func verdictText(r profile.Recommendation) string {
	if h := r.Verdict.Headline(); h != "" {
		return h
	}
	return string(r.Verdict.Level)
}

// attemptsWhy says why probe recommends the attempts it does, for the max_attempts comment.
func attemptsWhy(r profile.Recommendation) string {
	switch {
	case r.MaxAttempts <= 1 && r.AttemptsFit > 1:
		return "one attempt (retry only with an Idempotency-Key, or the budget holds one)"
	case r.MaxAttempts < r.AttemptsFit:
		return "an interactive caller retries at most once (the seeds)"
	}
	return "the most that fit"
}

// line writes one YAML line indented by indent with its comment in a common column.
// readTimeoutLine is the starter's read_timeout line: probe's recommendation when it is below
// the timeout (issue 27), else commented out with the reason — none measured, or one equal to
// the timeout, which PT015 would flag as never firing.
func readTimeoutLine(read, timeout time.Duration) string {
	switch {
	case read <= 0:
		return line(6, "# read_timeout: none", "no silence measured (probe --save measures one): the timeout bounds every wait")
	case read < timeout:
		return line(6, "read_timeout: "+yamlDur(read), "the longest silence probe saw, with headroom: a stalled response fails before the timeout")
	}
	return line(6, "# read_timeout: none", "probe's read timeout equals the timeout: a separate one buys nothing (PT015)")
}

func line(indent int, text, comment string) string {
	return fmt.Sprintf("%-34s # %s", strings.Repeat(" ", indent)+text, comment)
}

func msDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// quoteIfNeeded quotes a YAML scalar that would not read back as the same string.
func quoteIfNeeded(s string) string {
	if strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") || strings.TrimSpace(s) != s || s == "" {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return s
}

// streamBounds are a stream's first-event and idle timeouts from probe's stream advice; 0
// each when the profile saw no streams or the figure could not be derived.
func streamBounds(a *profile.StreamAdvice) (first, idle time.Duration) {
	if a == nil {
		return 0, 0
	}
	if a.FirstEventTimeoutMs != nil {
		first = msDuration(*a.FirstEventTimeoutMs)
	}
	if a.IdleTimeoutMs != nil {
		idle = msDuration(*a.IdleTimeoutMs)
	}
	return first, idle
}
