package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
	"gopkg.in/yaml.v3"
)

// Assumed is one field of a dependency that its check file left out and whose default decides
// the verdict of a rule: the value check used, why, and the rules it decides. A default that
// could hide a finding is either the one real clients have (non_idempotent: `always`, as
// Laravel Http::retry, go-retryablehttp and the AWS SDKs retry whatever the method) or kept and
// listed here, so a pass never rests on something the file did not say (issue 23, "a default
// that hides the double charge").
type Assumed struct {
	// Field is the check file's path of the field ("policy.retry.non_idempotent",
	// "request.method", "caller.tries").
	Field string `json:"field"`
	// Value is what check used, written as the file would write it.
	Value string `json:"value"`
	// Why says what real clients do and what writing the field would change.
	Why string `json:"why"`
	// Rules are the rules whose verdict the value decides.
	Rules []string `json:"rules"`
}

// AssumedText is the dependency's assumptions in one line for a report:
// "policy.retry.non_idempotent always (PT005, PT009) · policy.retry.jitter full (PT006)".
func AssumedText(as []Assumed) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = fmt.Sprintf("%s %s (%s)", a.Field, a.Value, strings.Join(a.Rules, ", "))
	}
	return strings.Join(parts, " · ")
}

// Why texts of the assumptions, with the client sources they rest on (cited in
// defaults_clients_test.go).
const (
	whyNonIdempotent = "non_idempotent not set: assumed `always`, as Laravel Http::retry, go-retryablehttp and the AWS SDKs retry whatever the method (and gRPC cannot mark a method idempotent)"
	whyMethod        = "request.method not set: assumed GET, which is idempotent, so PT005 (a retried POST or PATCH without an Idempotency-Key) cannot apply; write request: {method: POST} for a call that creates, charges or sends"
	whyKey           = "idempotency_key not set: assumed no Idempotency-Key is sent"
	whyAttempts      = "max_attempts not set: assumed 1 (no retries), as Laravel's Http client without retry() and Go's net/http; the AWS SDKs make 3 attempts and go-retryablehttp 5 by default: write yours, or base: preset:aws-standard (retryablehttp, laravel-http) for such a client"
	whyOn            = "retry.on not set: assumed connect, timeout, reset, 408, 409, 429 and 5xx, close to go-retryablehttp (errors, 429, 5xx but 501) and the AWS SDKs (connection errors, 500/502/503/504, throttling); Laravel's Http::retry retries every unsuccessful response, 4xx included (PT007)"
	whyBackoff       = "backoff not set: assumed %s; Laravel's Http::retry(3) waits 0 ms between tries (PT013), go-retryablehttp 1 s doubling to 30 s, the AWS SDKs up to 20 s (PT004 adds these waits): write yours"
	whyBase          = "retry.base not set: assumed %s; go-retryablehttp starts at 1 s (PT004 adds these waits, PT013 reports a zero base)"
	whyCap           = "retry.cap not set: assumed %s, which shortens the later waits; go-retryablehttp caps at 30 s, the AWS SDKs at 20 s (PT004 adds these waits)"
	whyJitter        = "jitter not set: assumed full, as the AWS SDKs' standard retryer; Laravel's Http::retry and go-retryablehttp's DefaultBackoff do not jitter: write jitter: none if yours does not (PT006)"
	whyRetryAfter    = "retry_after not set: assumed honor, as go-retryablehttp (on 429 and 503); Laravel's Http::retry and the AWS SDKs' standard retryer do not read Retry-After: write retry_after: ignore if yours does not (PT008)"
	whyRetryAfterMax = "retry_after_max not set: assumed %s; go-retryablehttp waits whatever the header says (PT008 reports an unset cap on an interactive caller)"
	whyTries         = "caller.tries not set: assumed 1 (the queue does not re-run the job), as Laravel's queue:work --tries=1: write the job's $tries"
	whyQueueBackoff  = "caller.backoff not set: assumed none, as Laravel's queue:work --backoff=0: the queue re-runs a failed job at once (PT013)"
	whyQueueJitter   = "caller.jitter not set: assumed none: a backoff() of fixed delays re-runs the jobs that failed together, together (PT006)"
)

// assume lists the defaults d's check file left to check that decide a rule, and applies the
// one real clients contradict: a retried non-idempotent request whose policy does not say
// non_idempotent gets `always` (the clients retry whatever the method), so PT005 reports it
// and the chain counts its retries. A field a preset hands down counts as written; one a named
// policy hands down counts as written when that policy wrote it (says).
func assume(d *Dependency) []Assumed {
	if d.Policy == nil {
		return nil
	}
	var out []Assumed
	for _, a := range assumptions {
		if !a.applies(d) {
			continue
		}
		if a.apply != nil {
			a.apply(d)
		}
		value := a.value(d)
		why := a.why
		if a.whyNamesValue {
			why = fmt.Sprintf(a.why, value)
		}
		out = append(out, Assumed{Field: a.field, Value: value, Why: why, Rules: slices.Clone(a.rules)})
	}
	return out
}

// assumption is one default assume can list: the field, the value check uses, why, and the
// rules it decides, when it applies to a dependency. apply, when set, makes the policy use
// the value (the default real clients contradict).
type assumption struct {
	field   string
	rules   []string
	applies func(d *Dependency) bool
	value   func(d *Dependency) string
	why     string
	// whyNamesValue: why is a format whose one %s is the value.
	whyNamesValue bool
	apply         func(d *Dependency)
}

// assumptions are in the order assume lists them.
var assumptions = []assumption{
	{
		field: "policy.retry.max_attempts", rules: []string{"PT004", "PT005", "PT006", "PT007", "PT008", "PT009", "PT013"},
		applies: func(d *Dependency) bool { return !d.says("retry.max_attempts") && d.Policy.Retry.MaxAttempts == 1 },
		value:   constant("1"), why: whyAttempts,
	},
	{
		field: "request.method", rules: []string{"PT005"},
		applies: func(d *Dependency) bool { return retries(d.Policy.Retry) && !d.wrote("request.method") },
		value:   func(d *Dependency) string { return d.Request.Method }, why: whyMethod,
	},
	{
		field: "request.idempotency_key", rules: []string{"PT005"},
		applies: func(d *Dependency) bool {
			return retriedNonIdempotent(d) && !d.wrote("request.idempotency_key") && !d.says("idempotency_key")
		},
		value: constant("false"), why: whyKey,
	},
	{
		field: "policy.retry.non_idempotent", rules: []string{"PT009"},
		applies: func(d *Dependency) bool { return nonIdempotentUnsaid(d) && d.Policy.SendsKey(d.Request.IdempotencyKey) },
		value:   constant(string(policy.NonIdempotentAlways)), why: whyNonIdempotent + "; the Idempotency-Key makes those retries safe",
		apply: retryNonIdempotent,
	},
	{
		field: "policy.retry.non_idempotent", rules: []string{"PT005", "PT009"},
		applies: func(d *Dependency) bool {
			return nonIdempotentUnsaid(d) && !d.Policy.SendsKey(d.Request.IdempotencyKey)
		},
		value: constant(string(policy.NonIdempotentAlways)), why: whyNonIdempotent,
		apply: retryNonIdempotent,
	},
	{
		field: "policy.retry.on", rules: []string{"PT005", "PT007", "PT008", "PT014"},
		applies: func(d *Dependency) bool { return retries(d.Policy.Retry) && !d.says("retry.on") },
		value:   func(d *Dependency) string { return strings.Join(retryOn(d.Policy.Retry), ", ") }, why: whyOn,
	},
	{
		field: "policy.retry.backoff", rules: []string{"PT004", "PT013"},
		applies: backoffUnsaid,
		value:   func(d *Dependency) string { return backoffValue(d.Policy.Retry) }, why: whyBackoff, whyNamesValue: true,
	},
	{
		field: "policy.retry.base", rules: []string{"PT004", "PT013"},
		applies: func(d *Dependency) bool {
			return retries(d.Policy.Retry) && !backoffUnsaid(d) && !d.says("retry.base") && usesBase(d.Policy.Retry.Backoff)
		},
		value: func(d *Dependency) string { return yamlDur(d.Policy.Retry.Base) }, why: whyBase, whyNamesValue: true,
	},
	{
		field: "policy.retry.cap", rules: []string{"PT004"},
		applies: func(d *Dependency) bool {
			r := d.Policy.Retry
			return retries(r) && !d.says("retry.cap") && d.says("retry.backoff") && r.Cap > 0 && capBinds(r)
		},
		value: func(d *Dependency) string { return yamlDur(d.Policy.Retry.Cap) }, why: whyCap, whyNamesValue: true,
	},
	{
		field: "policy.retry.jitter", rules: []string{"PT006"},
		applies: func(d *Dependency) bool {
			r := d.Policy.Retry
			return retries(r) && !d.says("retry.jitter") && !noJitter(r) && r.Backoff != policy.BackoffDecorrelated && r.Backoff != policy.BackoffNone
		},
		value: func(d *Dependency) string { return string(d.Policy.Retry.Jitter) }, why: whyJitter,
	},
	{
		field: "policy.retry.retry_after", rules: []string{"PT008", "PT014"},
		applies: func(d *Dependency) bool { return readsRetryAfter(d) && !d.says("retry.retry_after") },
		value:   func(d *Dependency) string { return string(d.Policy.Retry.RetryAfter) }, why: whyRetryAfter,
	},
	{
		field: "policy.retry.retry_after_max", rules: []string{"PT008"},
		applies: func(d *Dependency) bool {
			return readsRetryAfter(d) && !d.says("retry.retry_after_max") && d.Policy.Retry.RetryAfterMax > 0
		},
		value: func(d *Dependency) string { return yamlDur(d.Policy.Retry.RetryAfterMax) }, why: whyRetryAfterMax, whyNamesValue: true,
	},
	{
		field: "caller.tries", rules: []string{"PT006", "PT009", "PT013", "PT014"},
		applies: func(d *Dependency) bool { return d.Caller.Kind == "job" && !d.wrote("caller.tries") },
		value:   constant("1"), why: whyTries,
	},
	{
		field: "caller.backoff", rules: []string{"PT013"},
		applies: func(d *Dependency) bool { return queueRetries(d) && !d.wrote("caller.backoff") },
		value:   constant("none"), why: whyQueueBackoff,
	},
	{
		field: "caller.jitter", rules: []string{"PT006"},
		applies: func(d *Dependency) bool {
			return queueRetries(d) && d.wrote("caller.backoff") && !d.wrote("caller.jitter") && d.Caller.Queue.Backoff != policy.BackoffNone
		},
		value: constant("none"), why: whyQueueJitter,
	},
}

// constant is an assumption's value that does not depend on the dependency.
func constant(v string) func(*Dependency) string {
	return func(*Dependency) string { return v }
}

// wrote says whether d's check file wrote the dependency field key itself
// ("request.method", "caller.tries").
func (d *Dependency) wrote(key string) bool {
	_, ok := d.pos[key]
	return ok
}

// retriedNonIdempotent says whether d's policy retries a request that is not idempotent.
func retriedNonIdempotent(d *Dependency) bool {
	return retries(d.Policy.Retry) && !d.Request.Idempotent()
}

// nonIdempotentUnsaid says whether d retries a non-idempotent request with a policy that
// does not say non_idempotent: the clients retry whatever the method.
func nonIdempotentUnsaid(d *Dependency) bool {
	return retriedNonIdempotent(d) && !d.says("retry.non_idempotent")
}

// retryNonIdempotent applies the default real clients have: retry whatever the method.
func retryNonIdempotent(d *Dependency) {
	d.Policy.Retry.NonIdempotent = policy.NonIdempotentAlways
}

// backoffUnsaid says whether d retries with the exponential backoff its file did not write.
func backoffUnsaid(d *Dependency) bool {
	return retries(d.Policy.Retry) && !d.says("retry.backoff") && d.Policy.Retry.Backoff == policy.BackoffExponential
}

// readsRetryAfter says whether d retries a status that pushes back and honours its
// Retry-After header.
func readsRetryAfter(d *Dependency) bool {
	r := d.Policy.Retry
	return retries(r) && honoursPushback(retryOn(r)) && r.HonorsRetryAfter()
}

// queueRetries says whether d is a job whose queue re-runs it.
func queueRetries(d *Dependency) bool {
	return d.Caller.Kind == "job" && d.Caller.QueueRetries()
}

// unsaidKeys are the policy fields assume reads: the ones whose default can decide a rule.
var unsaidKeys = []string{
	"retry.max_attempts", "retry.on", "retry.non_idempotent", "retry.backoff", "retry.base",
	"retry.jitter", "retry.retry_after", "retry.retry_after_max", "idempotency_key", "retry.cap",
}

// says whether d's file wrote the policy field key, itself, through a preset, or through a
// named policy (base: NAME, policy: NAME) that wrote it.
func (d *Dependency) says(key string) bool {
	if d.unsaid == nil {
		return d.set(key)
	}
	return !d.unsaid[key]
}

// unsaidFields lists the fields of unsaidKeys that policy p, decoded from node, never wrote:
// left out, or inherited from a named policy that left them out too (named holds each named
// policy's own unsaid fields). The decoder points an inherited field at the base: line (or
// the policy name), as it does for a preset, which says every field it has.
func unsaidFields(p *policy.Policy, node *yaml.Node, named map[string]map[string]bool) map[string]bool {
	out := map[string]bool{}
	base, at := "", policy.Pos{}
	switch node = scenario.ResolveAlias(node); node.Kind {
	case yaml.ScalarNode:
		base, at = node.Value, p.Source["policy"]
	case yaml.MappingNode:
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == "base" {
				base, at = scenario.ResolveAlias(node.Content[i+1]).Value, p.Source["base"]
			}
		}
	}
	inherited := named[base]
	if strings.HasPrefix(base, "preset:") {
		inherited = nil
	}
	for _, k := range unsaidKeys {
		pos, ok := p.Source[k]
		if !ok || (base != "" && pos == at && inherited[k]) {
			out[k] = true
		}
	}
	return out
}

// assumed returns the assumption d's loader made for field, if any.
func (d *Dependency) assumed(field string) (Assumed, bool) {
	for _, a := range d.Assumed {
		if a.Field == field {
			return a, true
		}
	}
	return Assumed{}, false
}

// capBinds says whether r's cap shortens one of its waits: only then does the default cap
// change what PT004 adds up.
func capBinds(r policy.Retry) bool {
	n := r.MaxAttempts
	if n == policy.Unlimited {
		n = 4
	}
	uncapped := r
	uncapped.Cap = 0
	return !slices.Equal(r.BackoffWaits(n), uncapped.BackoffWaits(n))
}

// usesBase says whether backoff kind b waits from Retry.Base.
func usesBase(b policy.Backoff) bool {
	switch b {
	case policy.BackoffConstant, policy.BackoffLinear, policy.BackoffExponential, policy.BackoffDecorrelated:
		return true
	}
	return false
}

// backoffValue is an exponential backoff as a file would describe it: "exponential, base
// 100ms, multiplier 2, cap 10s".
func backoffValue(r policy.Retry) string {
	s := fmt.Sprintf("%s, base %s, multiplier %s", r.Backoff, yamlDur(r.Base), strconv.FormatFloat(r.Multiplier, 'g', -1, 64))
	if r.Cap > 0 {
		s += ", cap " + yamlDur(r.Cap)
	}
	return s
}
