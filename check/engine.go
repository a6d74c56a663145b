package check

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// Options tune a check run.
type Options struct {
	// FailOn is the level at or above which a finding fails the gate (default error).
	FailOn Level
	// Profile is --profile: a probe profile for every dependency that names none.
	Profile string
	// Version is patience's version, copied into the result for SARIF.
	Version string
	// LoadProfile reads a probe profile's total-latency histogram (values in microseconds);
	// nil uses probe.LoadProfile.
	LoadProfile func(path string) (*hdrhistogram.Histogram, error)
	// Replay replays one scenario file for PT100; nil uses the simulator.
	Replay Replayer
}

// Replayer replays the scenario at path and returns its expectations and results.
type Replayer func(ctx context.Context, path string) (*Replay, error)

// Replay is what PT100 needs from one replayed scenario.
type Replay struct {
	Scenario string
	File     string
	// Expect is keyed by policy name; "*" applies to every policy.
	Expect   map[string]scenario.Expect
	Policies []ReplayedPolicy
}

// ReplayedPolicy is one policy's replay outcome in the units of `expect:` (ratios 0–1).
type ReplayedPolicy struct {
	Name             string
	SuccessRate      float64
	Amplification    float64
	Duplicates       float64
	WorkerSaturation float64
}

// Run applies every enabled rule to every dependency of files, replays the scenarios they
// list, and returns the result. An unreadable profile or scenario is an input error
// (*scenario.Error), never a finding.
func Run(ctx context.Context, files []*File, opts Options) (*Result, error) {
	if opts.FailOn == "" {
		opts.FailOn = LevelError
	}
	if opts.LoadProfile == nil {
		opts.LoadProfile = loadProfile
	}
	if opts.Replay == nil {
		opts.Replay = replayScenario
	}
	res := &Result{Schema: Schema, Version: opts.Version, FailOn: opts.FailOn, Findings: []Finding{}, Checked: []Checked{}, Files: []string{}}
	enabled := map[string]bool{}
	for _, f := range files {
		res.Files = append(res.Files, f.Path)
		e := &engine{file: f, opts: opts, res: res}
		for _, d := range f.Dependencies {
			if err := e.dependency(d); err != nil {
				return nil, err
			}
			res.Summary.Dependencies++
		}
		for _, s := range f.Scenarios {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := e.scenario(ctx, s); err != nil {
				return nil, err
			}
			res.Summary.Scenarios++
		}
		for _, r := range Catalog {
			if !f.Disabled[r.ID] {
				enabled[r.ID] = true
			}
		}
	}
	// The rules that ran, at the level the first file that changes it gives (each finding
	// carries the level of its own file).
	for _, r := range Catalog {
		if !enabled[r.ID] && len(files) > 0 {
			continue
		}
		for _, f := range files {
			if l, ok := f.Levels[r.ID]; ok {
				r.Level = l
				break
			}
		}
		res.Rules = append(res.Rules, r)
	}
	sort.SliceStable(res.Findings, func(i, j int) bool {
		a, b := res.Findings[i], res.Findings[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Rule < b.Rule
	})
	res.Summary.Files = len(files)
	for _, f := range res.Findings {
		switch f.Level {
		case LevelError:
			res.Summary.Errors++
		case LevelWarning:
			res.Summary.Warnings++
		}
	}
	res.Passed = len(res.Failing()) == 0
	return res, nil
}

// engine checks the dependencies of one file.
type engine struct {
	file *File
	opts Options
	res  *Result
	// rules collects the rules applied to the current dependency; skipped says why some of
	// them could not be evaluated (no caller budget, no profile...).
	rules   []string
	skipped map[string]string
}

// skip records that an enabled rule had nothing to evaluate for the current dependency.
func (e *engine) skip(rule, reason string) {
	if e.file.Disabled[rule] {
		return
	}
	if e.skipped == nil {
		e.skipped = map[string]string{}
	}
	e.skipped[rule] = reason
}

// emit records a finding unless the rule is disabled or ignored on that line.
func (e *engine) emit(rule, dep string, at policy.Pos, format string, a ...any) {
	if e.file.Disabled[rule] {
		return
	}
	file := at.File
	if file == "" {
		file = e.file.Path
	}
	if file == e.file.Path && e.file.ignored(rule, at.Line) {
		e.res.Summary.Suppressed++
		return
	}
	r, _ := RuleByID(rule)
	level := r.Level
	if l, ok := e.file.Levels[rule]; ok {
		level = l
	}
	e.res.Findings = append(e.res.Findings, Finding{
		Rule: rule, Level: level, Dependency: dep, Title: r.Title,
		Message: fmt.Sprintf(format, a...), Fix: fixes[rule],
		File: file, Line: at.Line, Col: at.Col,
	})
}

// applies notes that rule was evaluated for the current dependency (for JUnit's passing
// test cases) and says whether it is enabled.
func (e *engine) applies(rule string) bool {
	if e.file.Disabled[rule] {
		return false
	}
	e.rules = append(e.rules, rule)
	return true
}

func (e *engine) dependency(d *Dependency) error {
	e.rules, e.skipped = nil, nil
	p := d.Policy
	if p == nil {
		p = &policy.Policy{Retry: policy.Retry{MaxAttempts: 1}}
		d.Policy = p
	}
	r := p.Retry
	retries := r.MaxAttempts > 1 || r.MaxAttempts == policy.Unlimited
	limit := d.Caller.Limit()
	name := d.Name

	if e.applies("PT001") && p.Timeout <= 0 {
		if p.Deadline > 0 {
			e.emit("PT001", name, d.at("timeout"), "no per-attempt timeout: one hung %s call uses the whole %s deadline and leaves no time for a retry", name, fmtDur(p.Deadline))
		} else {
			e.emit("PT001", name, d.at("timeout"), "no timeout: one hung %s call holds the caller's worker forever, and the workers run out one by one", name)
		}
	}
	if e.applies("PT002") && p.ConnectTimeout > 0 && p.Timeout > 0 && p.ConnectTimeout >= p.Timeout {
		e.emit("PT002", name, d.at("connect_timeout"), "connect_timeout %s ≥ timeout %s never fires: a lost SYN costs a whole %s attempt instead of a quick, safe retry", fmtDur(p.ConnectTimeout), fmtDur(p.Timeout), fmtDur(p.Timeout))
	}
	// An attempt waits min(timeout, deadline) (DESIGN §5), so a deadline within the budget
	// already bounds it.
	attempt := p.Timeout
	if p.Deadline > 0 && (attempt == 0 || p.Deadline < attempt) {
		attempt = p.Deadline
	}
	if limit == 0 {
		reason := "no caller budget declared (caller: {kind: interactive, budget: 3s} or {kind: job, timeout: 20s})"
		e.skip("PT003", reason)
		e.skip("PT004", reason)
	}
	if d.Profile == "" && e.opts.Profile == "" {
		e.skip("PT010", "no latency profile (profile: probe.json, or --profile)")
	}
	if d.Caller.Kind != "job" || d.Caller.RetryAfter == 0 {
		e.skip("PT011", "not a queue job with retry_after")
	}
	if d.Caller.Rate == 0 {
		e.skip("PT012", "no caller rate declared (caller: {rate: 50/s})")
	}
	if e.applies("PT003") && limit > 0 && attempt > limit {
		e.emit("PT003", name, d.at("timeout"), "one attempt may wait %s but %s: the call keeps running with nobody waiting for its answer", fmtDur(attempt), fmt.Sprintf(givesUp(d.Caller), fmtDur(limit)))
	}
	if e.applies("PT004") && limit > 0 && retries {
		e.budget(d, limit)
	}
	if e.applies("PT005") && retries && !d.Request.Idempotent() && r.NonIdempotent == policy.NonIdempotentAlways && !p.SendsKey(d.Request.IdempotencyKey) {
		if unknown := outcomeUnknown(retryOn(r)); len(unknown) > 0 {
			e.emit("PT005", name, d.at("retry.non_idempotent", "retry.on", "request.method"), "a %s after the provider committed will execute twice: %s retried up to %s on %s without an Idempotency-Key", unknown[0], d.Request.Method, attemptsText(r.MaxAttempts), strings.Join(unknown, "/"))
		}
	}
	backoffZero := zeroBackoff(r)
	if e.applies("PT006") && retries && noJitter(r) && r.Backoff != policy.BackoffDecorrelated && !backoffZero {
		e.emit("PT006", name, d.at("retry.jitter", "retry.backoff", "retry.max_attempts"), "every client that failed together retries together: %s backoff without jitter sends the retries as synchronized waves (%s)", r.Backoff, delaysText(r))
	}
	if e.applies("PT007") && retries {
		if bad := clientErrors(retryOn(r)); len(bad) > 0 {
			e.emit("PT007", name, d.at("retry.on"), "retrying %s resends a request the server already rejected: up to %s attempts that fail the same way and only add load", strings.Join(bad, ", "), attemptsCount(r.MaxAttempts))
		}
	}
	if e.applies("PT008") && retries && honoursPushback(retryOn(r)) {
		switch {
		case r.RetryAfter == policy.RetryAfterIgnore:
			e.emit("PT008", name, d.at("retry.retry_after", "retry"), "Retry-After is ignored: after a 429/503 the retry comes back before the dependency said it could serve it, and fails again")
		case r.HonorsRetryAfter() && r.RetryAfterMax <= 0:
			e.emit("PT008", name, d.at("retry.retry_after_max", "retry.retry_after", "retry"), "Retry-After is honoured without retry_after_max: one \"Retry-After: 3600\" parks this caller for an hour")
		}
	}
	if e.applies("PT009") {
		e.amplification(d)
	}
	if e.applies("PT010") {
		if err := e.profile(d); err != nil {
			return err
		}
	}
	if e.applies("PT011") && d.Caller.Kind == "job" && d.Caller.RetryAfter > 0 {
		switch {
		case d.Caller.Timeout <= 0:
			e.emit("PT011", name, d.at("caller.retry_after", "caller"), "the job has no timeout but the queue re-delivers it after %s: a slow %s call makes the job run twice", fmtDur(d.Caller.RetryAfter), name)
		case d.Caller.Timeout >= d.Caller.RetryAfter:
			e.emit("PT011", name, d.at("caller.timeout", "caller"), "the job may run %s but the queue re-delivers it after %s: a slow run is handed to a second worker and the job runs twice", fmtDur(d.Caller.Timeout), fmtDur(d.Caller.RetryAfter))
		}
	}
	if e.applies("PT012") && d.Caller.Rate >= HighVolumeRate && p.Budget == nil && p.Breaker == nil {
		e.emit("PT012", name, d.at("caller.rate", "policy"), "at %s/s with neither a retry budget nor a breaker, an outage of %s sends up to %s attempts/s at a dependency that is already down", fmtNum(d.Caller.Rate), name, amplifiedRate(d.Caller.Rate, r.MaxAttempts))
	}
	if e.applies("PT013") && retries && backoffZero {
		e.emit("PT013", name, d.at("retry.backoff", "retry.base", "retry.max_attempts"), "%s go out at once: a brief failure becomes %s the load within milliseconds, with no time to recover", retriesText(r.MaxAttempts), attemptsText(r.MaxAttempts))
	}
	e.res.Checked = append(e.res.Checked, Checked{Dependency: name, File: e.file.Path, Line: d.Pos.Line, Rules: e.rules, Skipped: e.skipped})
	return nil
}

// budget is PT004: attempts × timeout + Σ worst-case backoff (policy.Retry.WorstCase, DESIGN §5)
// against the caller's budget.
func (e *engine) budget(d *Dependency, limit time.Duration) {
	p := d.Policy
	r := p.Retry
	if p.Timeout <= 0 && p.Deadline <= 0 {
		return // PT001 already says it: there is no bound at all.
	}
	if r.MaxAttempts == policy.Unlimited {
		if p.Deadline <= 0 {
			e.emit("PT004", d.Name, d.at("retry.max_attempts"), "unlimited attempts and no deadline: a failing %s call retries until it succeeds, long after %s", d.Name, fmt.Sprintf(givesUp(d.Caller), fmtDur(limit)))
		} else if p.Deadline > limit {
			e.emit("PT004", d.Name, d.at("deadline", "retry.max_attempts"), "unlimited attempts run until the %s deadline, past %s: the last attempts run for nobody", fmtDur(p.Deadline), limitText(d.Caller, limit))
		}
		return
	}
	if p.Timeout <= 0 {
		return
	}
	waits := r.WorstCaseWaits(r.MaxAttempts)
	total := r.WorstCase(r.MaxAttempts, p.Timeout)
	if p.Deadline > 0 && p.Deadline < total {
		if p.Deadline <= limit {
			return // the deadline stops the policy in time
		}
		e.emit("PT004", d.Name, d.at("deadline", "retry.max_attempts"), "worst case %s = %s, cut at the %s deadline, still exceeds %s: the last attempts run for nobody", sumText(r, p.Timeout, waits), fmtDur(total), fmtDur(p.Deadline), limitText(d.Caller, limit))
		return
	}
	if total > limit {
		e.emit("PT004", d.Name, d.at("retry.max_attempts", "timeout"), "worst case %s = %s exceeds %s: the last attempts run for nobody", sumText(r, p.Timeout, waits), fmtDur(total), limitText(d.Caller, limit))
	}
}

// amplification is PT009: Π max_attempts over the file's layers, the policy's own layers
// and the policy itself.
func (e *engine) amplification(d *Dependency) {
	max := e.file.MaxAmplification
	if max <= 0 {
		max = DefaultMaxAmplification
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
	for _, l := range d.Layers {
		add(l.Name, l.MaxAttempts)
	}
	for _, l := range d.Policy.Layers {
		if l.Policy != nil {
			add(l.Name, l.Policy.Retry.MaxAttempts)
		}
	}
	add(d.Name, d.Policy.Retry.MaxAttempts)
	if !unlimited && product <= max {
		return
	}
	// Point at the layers that multiply, or at max_attempts when the policy alone is too much.
	at := d.at("layers", "retry.max_attempts")
	if len(d.Layers) == 0 && len(d.Policy.Layers) == 0 {
		at = d.at("retry.max_attempts")
	}
	if unlimited {
		e.emit("PT009", d.Name, at, "a layer retries without limit: one user request can send unbounded attempts to %s during an outage (%s)", d.Name, strings.Join(parts, " × "))
		return
	}
	e.emit("PT009", d.Name, at, "one user request can become %s attempts on %s during an outage (%s), above max_amplification %s", fmtNum(product), d.Name, strings.Join(parts, " × "), fmtNum(max))
}

// profile is PT010: the share of the profile's good responses slower than the timeout.
func (e *engine) profile(d *Dependency) error {
	path := d.Profile
	if path == "" {
		path = e.opts.Profile
	}
	if path == "" || d.Policy.Timeout <= 0 {
		return nil
	}
	h, err := e.opts.LoadProfile(path)
	if err != nil {
		pos := d.at("profile")
		if d.Profile == "" {
			pos = policy.Pos{}
		}
		return &scenario.Error{File: fileOr(pos.File, e.file.Path), Line: pos.Line, Col: pos.Col, Field: "profile", Msg: err.Error()}
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
	e.emit("PT010", d.Name, d.at("timeout"), "timeout %s cuts off %s of good %s responses (%s; cutoff %s): each one is a wasted attempt that the provider may have completed", fmtDur(d.Policy.Timeout), fmtPct(share), d.Name, tail, fmtPct(cutoff))
	return nil
}

// ShareAbove is the share of the histogram's values (microseconds) above d. Values are
// counted above when their whole HDR bucket lies above d, so the share is never overstated.
func ShareAbove(h *hdrhistogram.Histogram, d time.Duration) float64 {
	total := h.TotalCount()
	if total == 0 {
		return 0
	}
	limit := d.Microseconds()
	var above int64
	for _, b := range h.Distribution() {
		if b.From > limit {
			above += b.Count
		}
	}
	return float64(above) / float64(total)
}

// scenario is PT100: replay the scenario and compare each policy with its expectations.
func (e *engine) scenario(ctx context.Context, ref ScenarioRef) error {
	rep, err := e.opts.Replay(ctx, ref.Path)
	if err != nil {
		if se, ok := err.(*scenario.Error); ok && se.Line > 0 {
			return se // a problem inside the scenario file: point there
		}
		return &scenario.Error{File: e.file.Path, Line: ref.Pos.Line, Col: ref.Pos.Col, Field: "scenarios", Msg: err.Error()}
	}
	for _, p := range rep.Policies {
		exp, ok := mergeExpect(rep.Expect["*"], rep.Expect[p.Name])
		if !ok {
			continue
		}
		e.rules = nil
		dep := rep.Scenario + "/" + p.Name
		if !e.applies("PT100") {
			continue
		}
		checks := []struct {
			field, expr string
			percent     bool
			got         float64
			what        string
		}{
			{"success_rate", exp.SuccessRate, true, p.SuccessRate, "success rate"},
			{"amplification", exp.Amplification, false, p.Amplification, "amplification"},
			{"duplicates", exp.Duplicates, false, p.Duplicates, "duplicates"},
			{"worker_saturation", exp.WorkerSaturation, true, p.WorkerSaturation, "worker saturation"},
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
				pos.File = rep.File
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
			e.emit("PT100", dep, pos, "scenario %s, policy %s: %s %s, expected %s", rep.Scenario, p.Name, c.what, got, cmp)
		}
		line := ref.Pos.Line
		e.res.Checked = append(e.res.Checked, Checked{Dependency: dep, File: e.file.Path, Line: line, Rules: e.rules})
	}
	return nil
}

// mergeExpect applies the "*" expectations to a policy, field by field, with the policy's
// own expectations taking precedence; ok is false when neither sets anything.
func mergeExpect(all, own scenario.Expect) (scenario.Expect, bool) {
	out := scenario.Expect{Pos: map[string]policy.Pos{}}
	for _, src := range []scenario.Expect{all, own} {
		for _, f := range []struct {
			key      string
			from, to *string
		}{
			{"success_rate", &src.SuccessRate, &out.SuccessRate},
			{"amplification", &src.Amplification, &out.Amplification},
			{"duplicates", &src.Duplicates, &out.Duplicates},
			{"worker_saturation", &src.WorkerSaturation, &out.WorkerSaturation},
		} {
			if *f.from == "" {
				continue
			}
			*f.to = *f.from
			if p, ok := src.Pos[f.key]; ok {
				out.Pos[f.key] = p
			} else if p, ok := src.Pos["policy"]; ok {
				out.Pos[f.key] = p
			}
		}
	}
	ok := out.SuccessRate != "" || out.Amplification != "" || out.Duplicates != "" || out.WorkerSaturation != ""
	return out, ok
}

// ignored says whether `# patience:ignore RULE` covers line.
func (f *File) ignored(rule string, line int) bool {
	return f.ignores[line][rule]
}

// noJitter applies the policy package's default: "" behaves as none.
func noJitter(r policy.Retry) bool { return r.Jitter == "" || r.Jitter == policy.JitterNone }

// retryOn is the effective `on` list: nil means policy.DefaultRetryOn.
func retryOn(r policy.Retry) []string {
	if r.On == nil {
		return policy.DefaultRetryOn
	}
	return r.On
}

// zeroBackoff says whether retries wait nothing at all before jitter (PT013).
func zeroBackoff(r policy.Retry) bool {
	switch r.Backoff {
	case "", policy.BackoffNone:
		return true
	case policy.BackoffList:
		for _, d := range r.Delays {
			if d > 0 {
				return false
			}
		}
		return true
	}
	return r.Base <= 0
}

// outcomeUnknown returns the entries of on that retry outcome-unknown failures: timeouts,
// resets and 5xx (DESIGN §5 classification).
func outcomeUnknown(on []string) []string {
	var out []string
	for _, o := range on {
		switch {
		case o == "timeout" || o == "reset" || o == "5xx":
			out = append(out, o)
		case len(o) == 3 && o[0] == '5':
			if _, err := strconv.Atoi(o); err == nil {
				out = append(out, o)
			}
		}
	}
	return out
}

// clientErrors returns the entries of on that retry 4xx statuses other than 408/409/429.
func clientErrors(on []string) []string {
	var out []string
	for _, o := range on {
		if o == "4xx" {
			out = append(out, o)
			continue
		}
		if len(o) == 3 && o[0] == '4' && o != "408" && o != "409" && o != "429" {
			if _, err := strconv.Atoi(o); err == nil {
				out = append(out, o)
			}
		}
	}
	return out
}

// honoursPushback says whether on retries a status that carries Retry-After (429, 503).
func honoursPushback(on []string) bool {
	for _, o := range on {
		switch o {
		case "429", "503", "4xx", "5xx":
			return true
		}
	}
	return false
}

// retriesText says how many retries follow the first try: "3 retries", "unlimited retries".
func retriesText(attempts int) string {
	switch attempts {
	case policy.Unlimited:
		return "unlimited retries"
	case 2:
		return "the retry"
	}
	return fmt.Sprintf("%d retries", attempts-1)
}

// givesUp is a format with one %s for the limit: "the caller gives up after %s".
func givesUp(c Caller) string {
	if c.Kind == "job" {
		return "the job is stopped after %s"
	}
	return "the caller gives up after %s"
}

// limitText names the caller's limit: "the job timeout (20s)", "the caller's budget (3s)".
func limitText(c Caller, limit time.Duration) string {
	if c.Kind == "job" {
		return "the job timeout (" + fmtDur(limit) + ")"
	}
	return "the caller's budget (" + fmtDur(limit) + ")"
}

func attemptsCount(n int) string {
	if n == policy.Unlimited {
		return "unlimited"
	}
	return strconv.Itoa(n)
}

func attemptsText(n int) string {
	if n == policy.Unlimited {
		return "unlimited"
	}
	return fmt.Sprintf("%d×", n)
}

func amplifiedRate(rate float64, attempts int) string {
	if attempts == policy.Unlimited {
		return "unbounded"
	}
	return fmtNum(rate * float64(max(attempts, 1)))
}

// delaysText lists the backoff waits before jitter, e.g. "100ms, 200ms, 400ms".
func delaysText(r policy.Retry) string {
	rr := r
	rr.Jitter, rr.RetryAfter = policy.JitterNone, policy.RetryAfterIgnore
	if rr.MaxAttempts == policy.Unlimited {
		rr.MaxAttempts = 4
	}
	waits := rr.WorstCaseWaits(rr.MaxAttempts)
	parts := make([]string, 0, 5)
	for i, w := range waits {
		if i == 4 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmtDur(w))
	}
	if len(parts) == 0 {
		return "no waits"
	}
	return "waits " + strings.Join(parts, ", ")
}

// sumText shows PT004's sum: "3 × 5s + 100ms + 200ms".
// A wait raised by retry_after_max is marked, so the sum says where it comes from.
func sumText(r policy.Retry, timeout time.Duration, waits []time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d × %s", r.MaxAttempts, fmtDur(timeout))
	if len(waits) > 6 {
		sum := r.WorstCase(r.MaxAttempts, 0)
		fmt.Fprintf(&b, " + %d waits (%s, %s, %s … up to %s) of %s", r.MaxAttempts-1, fmtDur(waits[0]), fmtDur(waits[1]), fmtDur(waits[2]), fmtDur(waits[len(waits)-1]), fmtDur(sum))
		return b.String()
	}
	for i, w := range waits {
		b.WriteString(" + " + fmtDur(w))
		if w > r.MaxDelay(i+1) {
			b.WriteString(" (Retry-After)")
		}
	}
	return b.String()
}

func fileOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fmtDur renders a duration the way people write it in YAML: "3s", "1.5s", "250ms", "2m".
func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return strconv.FormatFloat(math.Round(d.Seconds()*1000)/1000, 'f', -1, 64) + "s"
	case d >= time.Millisecond:
		return strconv.FormatFloat(math.Round(float64(d)/float64(time.Millisecond)*10)/10, 'f', -1, 64) + "ms"
	default:
		return d.String()
	}
}

// fmtNum renders a number with at most three decimals and no trailing zeros.
func fmtNum(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// fmtPct renders a ratio as a percentage with about three significant digits.
func fmtPct(v float64) string {
	p := v * 100
	switch {
	case p == 0:
		return "0%"
	case p >= 10:
		return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
	case p >= 1:
		return strconv.FormatFloat(math.Round(p*100)/100, 'f', -1, 64) + "%"
	default:
		return strconv.FormatFloat(p, 'g', 3, 64) + "%"
	}
}
