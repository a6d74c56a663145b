package policy

import "time"

// MaxListedWaits bounds WorstCaseWaits' list: a policy with more retries than this is summed
// by WorstCase repeating the last wait (every backoff kind is non-decreasing in n from there:
// capped kinds sit at their cap, a list repeats its last delay).
const MaxListedWaits = 100

// WorstCaseWait is the longest wait before retry n ≥ 1: the backoff of docs/design.md §5 at its jitter
// upper bound (MaxDelay: full and equal jitter never exceed d(n), proportional adds f·d,
// decorrelated is bounded by min(cap, base·3^n)), raised to RetryAfterMax when Retry-After is
// honoured with a cap, because a server may ask for that long (RFC 9110 §10.2.3). An honoured
// Retry-After without a cap is not counted: nothing bounds it but the deadline.
func (r *Retry) WorstCaseWait(n int) time.Duration {
	d := r.MaxDelay(n)
	if r.HonorsRetryAfter() && r.RetryAfterMax > d {
		d = r.RetryAfterMax
	}
	return d
}

// WorstCaseWaits lists WorstCaseWait(n) for the retries of `attempts` attempts (retry 1
// first), at most MaxListedWaits of them: nil for one attempt or fewer, or Unlimited.
func (r *Retry) WorstCaseWaits(attempts int) []time.Duration {
	if attempts <= 1 {
		return nil
	}
	waits := make([]time.Duration, 0, min(attempts-1, MaxListedWaits))
	for n := 1; n < attempts && n <= MaxListedWaits; n++ {
		waits = append(waits, r.WorstCaseWait(n))
	}
	return waits
}

// WorstCase is the longest time `attempts` attempts of r can take when every attempt runs
// into its timeout: attempts × timeout + Σ WorstCaseWait(n) over the attempts−1 retries
// (docs/design.md §5; `check` rule PT004, `check --init` and the probe recommendation all count with
// it). Retries beyond MaxListedWaits repeat the last listed wait. The result saturates at
// MaxWait, which is also what Unlimited attempts give; attempts < 1 cost 0. A deadline is not
// applied: WorstCase is what the deadline has to cut.
func (r *Retry) WorstCase(attempts int, timeout time.Duration) time.Duration {
	if attempts == Unlimited {
		return MaxWait
	}
	if attempts < 1 {
		return 0
	}
	waits := r.WorstCaseWaits(attempts)
	total := float64(attempts) * float64(max(timeout, 0))
	for _, w := range waits {
		total += float64(w)
	}
	if extra := attempts - 1 - len(waits); extra > 0 && len(waits) > 0 {
		total += float64(extra) * float64(waits[len(waits)-1])
	}
	return clampF(total)
}

// BackoffWaits lists the waits the client chooses itself before each retry of `attempts`
// attempts: WorstCaseWaits with Retry-After left out (MaxDelay(n), retry 1 first).
func (r *Retry) BackoffWaits(attempts int) []time.Duration {
	own := *r
	own.RetryAfter = RetryAfterIgnore
	return own.WorstCaseWaits(attempts)
}

// WorstCaseWithin is WorstCase for a caller that gives up after budget, with a client that
// knows it: a Retry-After the remaining budget cannot hold ends the call instead of being
// waited for (what Call.Next does at a deadline, and what a good client does without one),
// so Retry-After never takes the sum past budget. Only the attempts and the backoff the
// client chooses itself (at its jitter upper bound) can: the result is the worst case without
// Retry-After when that exceeds budget, else min(WorstCase, budget). `check` rule PT004
// compares it with the caller's budget.
func (r *Retry) WorstCaseWithin(attempts int, timeout, budget time.Duration) time.Duration {
	own := *r
	own.RetryAfter = RetryAfterIgnore
	if w := own.WorstCase(attempts, timeout); w > budget {
		return w
	}
	return min(r.WorstCase(attempts, timeout), budget)
}

// AttemptsWithin is the largest k ≤ limit (first try included) with WorstCaseWithin(k,
// timeout, budget) ≤ budget: how many attempts of timeout each fit a caller's budget with r's
// backoff between them (a Retry-After that does not fit ends the call, so it never costs an
// attempt). It is 0 when not even one attempt fits (or timeout ≤ 0, which fits nothing useful).
func (r *Retry) AttemptsWithin(timeout, budget time.Duration, limit int) int {
	if timeout <= 0 {
		return 0
	}
	k := 0
	for k < limit && r.WorstCaseWithin(k+1, timeout, budget) <= budget {
		k++
	}
	return k
}
