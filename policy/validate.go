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

func (p *Policy) validate(prefix string, errs *[]error) {
	bad := func(field, format string, a ...any) {
		*errs = append(*errs, &FieldError{Field: prefix + field, Msg: fmt.Sprintf(format, a...)})
	}
	nonNeg := func(field string, d time.Duration) {
		if d < 0 {
			bad(field, "negative duration %v", d)
		}
	}
	ratio := func(field string, f float64, zeroOK bool) {
		if f != f || f < 0 || f > 1 || (!zeroOK && f == 0) {
			bad(field, "%v is outside (0, 1]", f)
		}
	}

	nonNeg("connect_timeout", p.ConnectTimeout)
	nonNeg("timeout", p.Timeout)
	nonNeg("deadline", p.Deadline)

	r := &p.Retry
	if r.MaxAttempts < 0 && r.MaxAttempts != Unlimited {
		bad("retry.max_attempts", "%d: want at least 1, or unlimited", r.MaxAttempts)
	}
	for i, tok := range r.On {
		if !ValidRetryOn(tok) {
			bad("retry.on["+strconv.Itoa(i)+"]", "%q: want connect, refused, connect_timeout, timeout, reset, a status or a class like 5xx", tok)
		}
	}
	for i, s := range r.Never {
		if s < 100 || s > 599 {
			bad("retry.never["+strconv.Itoa(i)+"]", "%d is not an HTTP status", s)
		}
	}
	oneOf(bad, "retry.non_idempotent", r.NonIdempotent, NonIdempotents())
	oneOf(bad, "retry.backoff", r.Backoff, Backoffs())
	oneOf(bad, "retry.jitter", r.Jitter, Jitters())
	oneOf(bad, "retry.retry_after", r.RetryAfter, RetryAfterModes())
	nonNeg("retry.base", r.Base)
	nonNeg("retry.cap", r.Cap)
	nonNeg("retry.retry_after_max", r.RetryAfterMax)
	nonNeg("retry.throttle_base", r.ThrottleBase)
	for i, s := range r.RetryAfterOn {
		if s < 100 || s > 599 {
			bad("retry.retry_after_on["+strconv.Itoa(i)+"]", "%d is not an HTTP status", s)
		}
	}
	if r.Multiplier < 0 || r.Multiplier != r.Multiplier {
		bad("retry.multiplier", "%v: want a positive number", r.Multiplier)
	}
	for i, d := range r.Delays {
		nonNeg("retry.delays["+strconv.Itoa(i)+"]", d)
	}
	if r.Backoff == BackoffList && len(r.Delays) == 0 {
		bad("retry.delays", "backoff list needs at least one delay")
	}
	if r.JitterFactor < 0 || r.JitterFactor != r.JitterFactor {
		bad("retry.jitter_factor", "%v: want a non-negative number", r.JitterFactor)
	}

	if b := p.Budget; b != nil {
		switch b.Kind {
		case BudgetTokenBucket:
			if b.Capacity <= 0 {
				bad("budget.capacity", "%v: a token bucket needs a positive capacity", b.Capacity)
			}
			if b.RetryCost < 0 || b.TimeoutCost < 0 || b.Refill < 0 {
				bad("budget", "costs and refill must not be negative")
			}
		case BudgetRatio:
			ratio("budget.percent", b.Percent, true)
			if b.MinPerS < 0 {
				bad("budget.min_per_s", "%v is negative", b.MinPerS)
			}
			nonNeg("budget.window", b.Window)
		default:
			bad("budget.kind", "%q: want token_bucket or ratio", b.Kind)
		}
	}
	if b := p.Breaker; b != nil {
		ratio("breaker.failure_rate", b.FailureRate, false)
		if b.MinRequests < 0 {
			bad("breaker.min_requests", "%d is negative", b.MinRequests)
		}
		if b.HalfOpen < 0 {
			bad("breaker.half_open", "%d is negative", b.HalfOpen)
		}
		nonNeg("breaker.window", b.Window)
		nonNeg("breaker.open_for", b.OpenFor)
	}
	if b := p.Bulkhead; b != nil && b.MaxConcurrent < 0 {
		bad("bulkhead.max_concurrent", "%d is negative", b.MaxConcurrent)
	}
	for i, l := range p.Layers {
		if l.Policy != nil {
			l.Policy.validate(prefix+"layers["+strconv.Itoa(i)+"].policy.", errs)
		}
	}
}

// oneOf reports v through bad unless it is "" (the field's default) or one of allowed.
func oneOf[T ~string](bad func(field, format string, a ...any), field string, v T, allowed []T) {
	if v != "" && !slices.Contains(allowed, v) {
		bad(field, "%q is not one of %q", v, allowed)
	}
}
