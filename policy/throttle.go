package policy

// Throttled reports whether o is a throttling response: 429 Too Many Requests (RFC 6585 §4).
// aws-sdk-go-v2's standard retryer treats an unmodelled 429 as a throttle error
// (aws/retry/throttle_error.go throttleUnmodeledTooManyRequests) and then backs off from
// Retry.ThrottleBase and charges Budget.ThrottleCost.
func Throttled(o Outcome) bool {
	return o.Kind == Status && o.Status == 429
}

// ReadsRetryAfter reports whether the policy looks at the Retry-After o carries: it is not
// ignored, o has one, and RetryAfterOn (nil = every status) lists o's status.
func (r *Retry) ReadsRetryAfter(o Outcome) bool {
	if o.RetryAfter == "" || !r.HonorsRetryAfter() {
		return false
	}
	if r.RetryAfterOn == nil {
		return true
	}
	for _, s := range r.RetryAfterOn {
		if o.Kind == Status && s == o.Status {
			return true
		}
	}
	return false
}

// CostOf is what a retry after o costs: ThrottleCost after a throttling response when set,
// else Cost (TimeoutCost after a timeout or connect timeout, RetryCost otherwise).
func (t *TokenBucket) CostOf(o Outcome) float64 {
	if t.cfg.ThrottleCost > 0 && Throttled(o) {
		return t.cfg.ThrottleCost
	}
	return t.Cost(o.Kind == Timeout || o.Kind == ConnectTimeout)
}

// Take spends cost tokens if the bucket holds that many (AWS ratelimit.TokenBucket.Retrieve:
// no retry when fewer remain).
func (t *TokenBucket) Take(cost float64) bool {
	if t.tokens < cost {
		return false
	}
	t.tokens -= cost
	return true
}
