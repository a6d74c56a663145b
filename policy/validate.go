package policy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// FieldError is one invalid field of a Policy. Field is the dotted path of the scenario file
// ("retry.backoff", "layers[1].policy.timeout"), the same keys as Policy.Source, so a loader
// can point at the line that set it.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks that p is something the mechanics of this package can apply: known enum
// values, no negative durations or counts, ratios within 0–1, a usable budget and breaker.
// The scenario loader reports the same problems with file positions; Validate is the safety
// net for policies built in code (presets, tests, the live driver). It returns every problem
// found (errors.Join of *FieldError), or nil.
func (p *Policy) Validate() error {
	var errs []error
	p.validate("", &errs)
	return errors.Join(errs...)
}

// validate appends the problems of p and of its layers' policies to errs, each field named
// under prefix.
func (p *Policy) validate(prefix string, errs *[]error) {
	for _, r := range policyRules {
		r.check(p, func(item, format string, a ...any) {
			*errs = append(*errs, &FieldError{Field: prefix + r.field + item, Msg: fmt.Sprintf(format, a...)})
		})
	}
	for i, l := range p.Layers {
		if l.Policy != nil {
			l.Policy.validate(prefix+"layers["+strconv.Itoa(i)+"].policy.", errs)
		}
	}
}

// policyRule is one check of Validate, a value as check's rules are: the field it guards
// (the dotted path of Policy.Source, relative to the policy) and the check, which reports
// each problem of that field with its message.
type policyRule struct {
	field string
	check func(p *Policy, bad complaint)
}

// complaint reports one problem of a rule's field: item is "" for the field itself or the
// index of a list's item ("[2]").
type complaint func(item, format string, a ...any)

// policyRules are Validate's checks, in the order its problems are listed.
var policyRules = []policyRule{
	{"connect_timeout", nonNegative(func(p *Policy) time.Duration { return p.ConnectTimeout })},
	{"timeout", nonNegative(func(p *Policy) time.Duration { return p.Timeout })},
	{"read_timeout", nonNegative(func(p *Policy) time.Duration { return p.ReadTimeout })},
	{"first_event_timeout", nonNegative(func(p *Policy) time.Duration { return p.FirstEventTimeout })},
	{"deadline", nonNegative(func(p *Policy) time.Duration { return p.Deadline })},
	{"retry.max_attempts", checkMaxAttempts},
	{"retry.on", checkRetryOn},
	{"retry.never", statuses(func(p *Policy) []int { return p.Retry.Never })},
	{"retry.non_idempotent", oneOf(func(p *Policy) NonIdempotent { return p.Retry.NonIdempotent }, NonIdempotents)},
	{"retry.backoff", oneOf(func(p *Policy) Backoff { return p.Retry.Backoff }, Backoffs)},
	{"retry.jitter", oneOf(func(p *Policy) Jitter { return p.Retry.Jitter }, Jitters)},
	{"retry.retry_after", oneOf(func(p *Policy) RetryAfterMode { return p.Retry.RetryAfter }, RetryAfterModes)},
	{"retry.base", nonNegative(func(p *Policy) time.Duration { return p.Retry.Base })},
	{"retry.cap", nonNegative(func(p *Policy) time.Duration { return p.Retry.Cap })},
	{"retry.retry_after_max", nonNegative(func(p *Policy) time.Duration { return p.Retry.RetryAfterMax })},
	{"retry.throttle_base", nonNegative(func(p *Policy) time.Duration { return p.Retry.ThrottleBase })},
	{"retry.retry_after_on", statuses(func(p *Policy) []int { return p.Retry.RetryAfterOn })},
	{"retry.multiplier", checkMultiplier},
	{"retry.delays", checkDelays},
	{"retry.jitter_factor", checkJitterFactor},
	{"budget.capacity", checkBucketCapacity},
	{"budget", checkBucketCosts},
	{"budget.percent", ofRatioBudget(func(b *Budget, bad complaint) { ratio(b.Percent, true, bad) })},
	{"budget.min_per_s", ofRatioBudget(func(b *Budget, bad complaint) { nonNegativeNumber(b.MinPerS, bad) })},
	{"budget.window", ofRatioBudget(func(b *Budget, bad complaint) { nonNegativeValue(b.Window, bad) })},
	{"budget.kind", checkBudgetKind},
	{"breaker.failure_rate", ofBreaker(func(b *Breaker, bad complaint) { ratio(b.FailureRate, false, bad) })},
	{"breaker.min_requests", ofBreaker(func(b *Breaker, bad complaint) { nonNegativeCount(b.MinRequests, bad) })},
	{"breaker.half_open", ofBreaker(func(b *Breaker, bad complaint) { nonNegativeCount(b.HalfOpen, bad) })},
	{"breaker.window", ofBreaker(func(b *Breaker, bad complaint) { nonNegativeValue(b.Window, bad) })},
	{"breaker.open_for", ofBreaker(func(b *Breaker, bad complaint) { nonNegativeValue(b.OpenFor, bad) })},
	{"bulkhead.max_concurrent", checkBulkhead},
}

// nonNegative is the check that a duration of the policy is not negative.
func nonNegative(get func(p *Policy) time.Duration) func(p *Policy, bad complaint) {
	return func(p *Policy, bad complaint) { nonNegativeValue(get(p), bad) }
}

func nonNegativeValue(d time.Duration, bad complaint) {
	if d < 0 {
		bad("", "negative duration %v", d)
	}
}

func nonNegativeCount(n int, bad complaint) {
	if n < 0 {
		bad("", "%d is negative", n)
	}
}

func nonNegativeNumber(f float64, bad complaint) {
	if f < 0 {
		bad("", "%v is negative", f)
	}
}

// ratio checks a share of 1: within (0, 1], or [0, 1] when zeroOK; NaN is outside.
func ratio(f float64, zeroOK bool, bad complaint) {
	if f != f || f < 0 || f > 1 || (!zeroOK && f == 0) {
		bad("", "%v is outside (0, 1]", f)
	}
}

// statuses is the check that every item of a list of statuses is an HTTP status.
func statuses(get func(p *Policy) []int) func(p *Policy, bad complaint) {
	return func(p *Policy, bad complaint) {
		for i, s := range get(p) {
			if s < 100 || s > 599 {
				bad(index(i), "%d is not an HTTP status", s)
			}
		}
	}
}

// oneOf is the check that an enum of the policy is "" (the field's default) or one of
// allowed().
func oneOf[T ~string](get func(p *Policy) T, allowed func() []T) func(p *Policy, bad complaint) {
	return func(p *Policy, bad complaint) {
		if v := get(p); v != "" && !slices.Contains(allowed(), v) {
			bad("", "%q is not one of %q", v, allowed())
		}
	}
}

func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

func checkMaxAttempts(p *Policy, bad complaint) {
	if n := p.Retry.MaxAttempts; n < 0 && n != Unlimited {
		bad("", "%d: want at least 1, or unlimited", n)
	}
}

func checkRetryOn(p *Policy, bad complaint) {
	for i, tok := range p.Retry.On {
		if !ValidRetryOn(tok) {
			bad(index(i), "%q: want connect, refused, connect_timeout, timeout, reset, a status or a class like 5xx", tok)
		}
	}
}

func checkMultiplier(p *Policy, bad complaint) {
	if m := p.Retry.Multiplier; m < 0 || m != m {
		bad("", "%v: want a positive number", m)
	}
}

// checkDelays: no delay is negative, and backoff list has at least one.
func checkDelays(p *Policy, bad complaint) {
	for i, d := range p.Retry.Delays {
		if d < 0 {
			bad(index(i), "negative duration %v", d)
		}
	}
	if p.Retry.Backoff == BackoffList && len(p.Retry.Delays) == 0 {
		bad("", "backoff list needs at least one delay")
	}
}

func checkJitterFactor(p *Policy, bad complaint) {
	if f := p.Retry.JitterFactor; f < 0 || f != f {
		bad("", "%v: want a non-negative number", f)
	}
}

// budgetOf is the policy's budget when it is of kind, else nil.
func budgetOf(p *Policy, kind BudgetKind) *Budget {
	if p.Budget != nil && p.Budget.Kind == kind {
		return p.Budget
	}
	return nil
}

func checkBucketCapacity(p *Policy, bad complaint) {
	if b := budgetOf(p, BudgetTokenBucket); b != nil && b.Capacity <= 0 {
		bad("", "%v: a token bucket needs a positive capacity", b.Capacity)
	}
}

func checkBucketCosts(p *Policy, bad complaint) {
	if b := budgetOf(p, BudgetTokenBucket); b != nil && (b.RetryCost < 0 || b.TimeoutCost < 0 || b.Refill < 0) {
		bad("", "costs and refill must not be negative")
	}
}

// ofRatioBudget is a check of a ratio budget's field; it passes other policies.
func ofRatioBudget(check func(b *Budget, bad complaint)) func(p *Policy, bad complaint) {
	return func(p *Policy, bad complaint) {
		if b := budgetOf(p, BudgetRatio); b != nil {
			check(b, bad)
		}
	}
}

func checkBudgetKind(p *Policy, bad complaint) {
	if b := p.Budget; b != nil && b.Kind != BudgetTokenBucket && b.Kind != BudgetRatio {
		bad("", "%q: want token_bucket or ratio", b.Kind)
	}
}

// ofBreaker is a check of a breaker's field; it passes policies without a breaker.
func ofBreaker(check func(b *Breaker, bad complaint)) func(p *Policy, bad complaint) {
	return func(p *Policy, bad complaint) {
		if p.Breaker != nil {
			check(p.Breaker, bad)
		}
	}
}

func checkBulkhead(p *Policy, bad complaint) {
	if p.Bulkhead != nil {
		nonNegativeCount(p.Bulkhead.MaxConcurrent, bad)
	}
}
