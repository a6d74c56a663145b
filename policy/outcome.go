package policy

import "strings"

// OutcomeKind is what one attempt came back with, as the caller sees it.
type OutcomeKind int

const (
	// Success is a response the caller accepts (2xx or 3xx).
	Success OutcomeKind = iota
	// Status is a response with an HTTP status that is not 2xx/3xx; Outcome.Status holds it.
	Status
	// Timeout is the attempt timeout firing after the request was sent: the server may have
	// acted on it.
	Timeout
	// ConnectTimeout is the connect timeout firing: the request never left the caller.
	ConnectTimeout
	// Refused is a refused connection: the request never left the caller.
	Refused
	// Reset is a connection reset after the request was sent: the server may have acted.
	Reset
)

var outcomeKindNames = [...]string{"success", "status", "timeout", "connect_timeout", "refused", "reset"}

// String returns the snake_case name used in reports and JSON ("connect_timeout").
func (k OutcomeKind) String() string {
	if k >= 0 && int(k) < len(outcomeKindNames) {
		return outcomeKindNames[k]
	}
	return "unknown"
}

// Outcome is the result of one attempt as seen by the caller.
type Outcome struct {
	Kind OutcomeKind
	// Status is the HTTP status for Kind == Status (and may be set for Success).
	Status int
	// RetryAfter is the raw Retry-After header value; "" = none.
	RetryAfter string
}

// Class is the safety classification of an outcome (docs/design.md §5, the seeds' table): it decides
// whether a retry can be harmful, independently of what the policy's `on` list asks for.
type Class int

const (
	// ClassSuccess is a 2xx/3xx response.
	ClassSuccess Class = iota
	// ClassRejected is a 4xx other than 408/409/429: the server understood and refused; the
	// same request will be refused again, so it is not retried unless `on` names it explicitly
	// (a misconfiguration that `check` reports as PT007).
	ClassRejected
	// ClassTransient is 408 (request timeout, RFC 9110 §15.5.9), 409 (the same idempotency key
	// is still in flight) or 429 (RFC 6585 §4): the server did not act, retrying is safe.
	ClassTransient
	// ClassUnknown is a 5xx, an attempt timeout or a reset: the outcome is unknown — the server
	// may have acted — so only idempotent requests or requests with an idempotency key are safe
	// to retry.
	ClassUnknown
	// ClassNeverLeft is a refused connection or a connect timeout: the request never reached
	// the server, so a retry is always safe.
	ClassNeverLeft
)

var classNames = [...]string{"success", "rejected", "transient", "unknown", "never_left"}

// String returns the snake_case name of the class.
func (c Class) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return "invalid"
}

// Classify maps an outcome to its class by the table of docs/design.md §5. Statuses outside
// 200–599 (a misbehaving server) are ClassUnknown: nothing can be assumed about them.
func Classify(o Outcome) Class {
	switch o.Kind {
	case Success:
		return ClassSuccess
	case Timeout, Reset:
		return ClassUnknown
	case ConnectTimeout, Refused:
		return ClassNeverLeft
	case Status:
		s := o.Status
		switch {
		case s >= 200 && s < 400:
			return ClassSuccess
		case s == 408 || s == 409 || s == 429:
			return ClassTransient
		case s >= 400 && s < 500:
			return ClassRejected
		}
		return ClassUnknown
	}
	return ClassUnknown
}

// BreakerFailure says whether an outcome counts as a failure for the circuit breaker: the
// dependency looks unhealthy (5xx, timeout, reset, refused, connect timeout: ClassUnknown and
// ClassNeverLeft). Every 4xx — 429 included — is an answer from a working server and counts as
// a success: a rate limit is the server protecting itself, which Retry-After and budgets handle;
// opening the breaker on it would turn throttling into an outage. Callers record
// `Record(now, !BreakerFailure(o))`.
func BreakerFailure(o Outcome) bool {
	c := Classify(o)
	return c == ClassUnknown || c == ClassNeverLeft
}

// Request is what the policy needs to know about the logical request as this policy sends
// it. It is deliberately not scenario.Request (what a scenario or check file declares): HasKey
// is whether this policy's attempts carry an idempotency key after Policy.SendsKey has applied
// the policy's idempotency_key override, so two policies replaying the same declared request
// (payment-double-charge's with-key and without-key) get different Requests. Build it as
// Request{Method: declared.Method, HasKey: p.SendsKey(declared.IdempotencyKey)}.
type Request struct {
	Method string // "" = GET
	HasKey bool   // carries an idempotency key (the target deduplicates)
}

// Idempotent reports whether the request's method is idempotent (IdempotentMethod).
func (r Request) Idempotent() bool { return IdempotentMethod(r.Method) }

// IdempotentMethod reports whether a method is idempotent by RFC 9110 §9.2.2 (GET, HEAD,
// OPTIONS, TRACE, PUT, DELETE); "" means GET. Methods are compared case-insensitively because
// scenario and check files are written by people. It is the one definition scenario and
// check use too.
func IdempotentMethod(m string) bool {
	switch m {
	case "", "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE":
		return true // "" is GET; the canonical spellings skip the case-folding loop below
	}
	for _, im := range [...]string{"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"} {
		if strings.EqualFold(m, im) {
			return true
		}
	}
	return false
}

// NonIdempotent is Retry.NonIdempotent: whether outcome-unknown failures (docs/design.md §5) of a
// non-idempotent request are retried.
type NonIdempotent string

// NonIdempotent values of Retry.NonIdempotent; "" behaves as NonIdempotentNever.
const (
	NonIdempotentNever   NonIdempotent = "never"
	NonIdempotentWithKey NonIdempotent = "with_key"
	NonIdempotentAlways  NonIdempotent = "always"
)

// NonIdempotents lists every accepted NonIdempotent, in the order messages name them.
func NonIdempotents() []NonIdempotent {
	return []NonIdempotent{NonIdempotentNever, NonIdempotentWithKey, NonIdempotentAlways}
}

// DefaultRetryOn is what a nil Retry.On means: the loader's default list, docs/design.md §5 and the
// seeds' table — connect failures, timeouts, resets, 408, 409 (the same idempotency key still
// in flight, or an optimistic-concurrency conflict: retried with the same key), 429 and 5xx.
// Where 409 means "already exists", write `never: [409]` (a rejection, as the seeds say). An
// empty non-nil list retries nothing.
var DefaultRetryOn = []string{"connect", "timeout", "reset", "408", "409", "429", "5xx"}

// ValidRetryOn reports whether token is understood in Retry.On: "connect" (refused or connect
// timeout), "refused", "connect_timeout", "timeout", "reset", a status class "1xx"…"5xx", or an
// exact status 100–599.
func ValidRetryOn(token string) bool {
	switch token {
	case "connect", "refused", "connect_timeout", "timeout", "reset":
		return true
	}
	if class, ok := statusClassToken(token); ok {
		return class >= 1 && class <= 5
	}
	s, ok := statusToken(token)
	return ok && s >= 100 && s <= 599
}

// statusClassToken parses "5xx" (or "5XX") into 5.
func statusClassToken(t string) (int, bool) {
	if len(t) != 3 || t[0] < '0' || t[0] > '9' || t[1]|0x20 != 'x' || t[2]|0x20 != 'x' {
		return 0, false
	}
	return int(t[0] - '0'), true
}

// statusToken parses a three-digit status without allocating.
func statusToken(t string) (int, bool) {
	if len(t) != 3 {
		return 0, false
	}
	n := 0
	for i := 0; i < 3; i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
		n = n*10 + int(t[i]-'0')
	}
	return n, true
}

func tokenMatches(t string, o Outcome) bool {
	switch o.Kind {
	case Timeout:
		return t == "timeout"
	case Reset:
		return t == "reset"
	case Refused:
		return t == "connect" || t == "refused"
	case ConnectTimeout:
		return t == "connect" || t == "connect_timeout"
	case Status:
		if c, ok := statusClassToken(t); ok {
			return o.Status/100 == c
		}
		s, ok := statusToken(t)
		return ok && s == o.Status
	}
	return false
}

// RetryOn reports whether the policy's `on` list asks for o to be retried and its `never` list
// does not forbid it. It does not apply the safety classification: see Retryable.
func (r *Retry) RetryOn(o Outcome) bool {
	if o.Kind == Status {
		for _, s := range r.Never {
			if s == o.Status {
				return false
			}
		}
	}
	on := r.On
	if on == nil {
		on = DefaultRetryOn
	}
	for _, t := range on {
		if tokenMatches(t, o) {
			return true
		}
	}
	return false
}

// SafeToRetry applies the classification of docs/design.md §5 to a request: success is never retried;
// ClassUnknown is safe only for idempotent requests, or per Retry.NonIdempotent ("with_key":
// when the request carries an idempotency key; "always": regardless, which `check` flags; "" or
// "never": not at all); every other class is safe (rejected 4xx are safe but useless — whether
// they are retried is the `on` list's business).
func (r *Retry) SafeToRetry(req Request, o Outcome) bool {
	switch Classify(o) {
	case ClassSuccess:
		return false
	case ClassUnknown:
		if req.Idempotent() {
			return true
		}
		switch r.NonIdempotent {
		case NonIdempotentAlways:
			return true
		case NonIdempotentWithKey:
			return req.HasKey
		}
		return false
	}
	return true
}

// Retryable reports whether o may be retried under p: the `on` list matches, the `never` list
// does not, and the classification allows it (SafeToRetry). A rejected 4xx is retried only when
// `on` names it ("404" or "4xx") — the classification says such a retry is useless, and the
// simulator shows what it costs a client configured that way. It ignores attempts, deadline and
// budget: Call.Next checks those.
func (p *Policy) Retryable(req Request, o Outcome) bool {
	return p.Retry.SafeToRetry(req, o) && p.Retry.RetryOn(o)
}
