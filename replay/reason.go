package replay

import (
	"strconv"

	"github.com/patience-dev/patience/policy"
)

// ReasonOf is the failure reason of a logical request whose last outcome was o: the outcome
// kind ("timeout", "reset", ...), "rejected" for a 4xx the policy does not retry by design
// (policy.ClassRejected), else "http_NNN". The simulator and the live driver both call it.
func ReasonOf(o policy.Outcome) string {
	switch o.Kind {
	case policy.Timeout:
		return ReasonTimeout
	case policy.ConnectTimeout:
		return ReasonConnect
	case policy.Refused:
		return ReasonRefused
	case policy.Reset:
		return ReasonReset
	case policy.Status:
		if policy.Classify(o) == policy.ClassRejected {
			return ReasonRejected
		}
		return httpReason(o.Status)
	}
	return "unknown"
}

// DependencyFailure says whether a failure reason is the dependency's answer (or the policy
// failing fast on it: breaker, budget, deadline) rather than the caller's own service giving
// out: "no_worker" (every worker busy) and "stuck" (still hanging when the run ended) are
// the caller's.
func DependencyFailure(reason string) bool {
	return reason != ReasonNoWorker && reason != ReasonStuck
}

// httpReasons holds "http_NNN" for every status code below 600, built once: a failure reason
// is made per failed request, and building the string each time allocated per request.
var httpReasons = func() (t [600]string) {
	for i := range t {
		t[i] = "http_" + strconv.Itoa(i)
	}
	return t
}()

// httpReason is the failure reason of an answer with status.
func httpReason(status int) string {
	if status >= 0 && status < len(httpReasons) {
		return httpReasons[status]
	}
	return "http_" + strconv.Itoa(status)
}
