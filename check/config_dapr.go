package check

import (
	"fmt"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// Dapr Resiliency (docs/formats.md#retries-nobody-wrote, #dapr-resiliency; dapr/docs
// reference/resource-specs/resiliency-schema.md, operations/resiliency/policies.md).

const (
	daprDuration    = 5 * time.Second  // retries.<name>.duration default (constant policy)
	daprMaxInterval = 60 * time.Second // retries.<name>.maxInterval default
	// daprBuiltInRetries is DaprBuiltInServiceRetries: "backoff interval of 1 second, up to a
	// threshold of 3 times" on gRPC Unavailable; it cannot be lowered.
	daprBuiltInRetries = 3
)

// daprLayers reads every target of a Resiliency (apps, and components' outbound side) with
// the named policies it refers to.
func daprLayers(d *configDoc) ([]*layerCandidate, error) {
	cf := d.file
	spec := get(d.node, "spec")
	pols := get(spec, "policies")
	targets := get(spec, "targets")
	var out []*layerCandidate
	add := func(kind, name string, t *yaml.Node, at *yaml.Node) error {
		l := newLayer("dapr", name, posOf(cf, at))
		l.answer = answerApp
		if err := daprTarget(cf, l, pols, t, kind == "apps"); err != nil {
			return err
		}
		out = append(out, &layerCandidate{layer: l, names: []string{name, d.name}, hosts: []string{name}, doc: d})
		return nil
	}
	for _, kv := range pairs(get(targets, "apps")) {
		if err := add("apps", kv[0].Value, kv[1], kv[0]); err != nil {
			return nil, err
		}
	}
	for _, kv := range pairs(get(targets, "components")) {
		if ob := get(kv[1], "outbound"); ob != nil {
			if err := add("components", kv[0].Value, ob, kv[0]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func daprTarget(cf *ConfigFile, l *ChainLayer, pols, t *yaml.Node, app bool) error {
	if tn := get(t, "timeout"); tn != nil {
		name := scalar(tn)
		v := get(get(pols, "timeouts"), name)
		if v == nil {
			v = tn // an inline duration
		}
		dur, err := goDuration(cf, v, "timeouts."+name)
		if err != nil {
			return err
		}
		l.pol.Timeout = dur // [inferred] applied to each attempt
		l.setAt("PT001", posOf(cf, tn))
		// The timeout ends the operation, a stream read through it included [inferred]: a
		// total for PT017, at the policy that sets the duration.
		bn := "timeout policy " + name
		if v == tn {
			bn = "timeout"
		}
		l.streamBound(streamBound{name: bn, d: dur, at: posOf(cf, v)})
	} else {
		l.checks.noTimeout = fmt.Sprintf("Dapr target %s has no timeout policy: Dapr sets none unless a policy names one", l.Name)
		l.addDefault("Dapr default: no timeout unless a policy names one")
	}
	if get(t, "circuitBreaker") != nil {
		l.pol.Breaker = &policy.Breaker{}
	}
	rn := get(t, "retry")
	if rn == nil {
		if app {
			l.retryClasses(daprBuiltInRetries+1, []FailureClass{FailConnect})
			l.retryDefault = true
			l.retryWhy = "Dapr default: DaprBuiltInServiceRetries, 3 retries at 1s on Unavailable (cannot be lowered)"
			l.addDefault("Dapr default: DaprBuiltInServiceRetries 3 retries, 1s apart, on gRPC Unavailable")
			l.pol.Retry.Backoff, l.pol.Retry.Base = policy.BackoffConstant, time.Second
		}
		return nil
	}
	name := scalar(rn)
	rp := get(get(pols, "retries"), name)
	if rp == nil {
		return configError(cf, rn, "targets.retry", "no retry policy %q under spec.policies.retries", name)
	}
	l.retryAt = posOf(cf, rn)
	retries := policy.Unlimited
	l.retryWhy = fmt.Sprintf("retry policy %s without maxRetries: Dapr's default -1 retries forever", name)
	if n := get(rp, "maxRetries"); n != nil {
		v, err := intField(cf, n, "retries."+name+".maxRetries", -1)
		if err != nil {
			return err
		}
		if v >= 0 {
			retries = v
		}
		l.retryAt = posOf(cf, n)
		l.retryWhy = fmt.Sprintf("retries.%s.maxRetries: %d (retries)", name, v)
	} else {
		l.retryDefault = true
		l.addDefault("Dapr default: maxRetries -1 (retries forever) in retry policy %s", name)
	}
	// matching unset: "Retries on all HTTP errors"; connection errors are retried either way
	// [inferred].
	classes := FailureClasses
	if m := get(rp, "matching"); m != nil {
		classes = []FailureClass{FailConnect, FailReset, FailTimeout}
		if codes := scalar(get(m, "httpStatusCodes")); codes != "" {
			classes = append(classes, statusClasses(splitList(codes))...)
		}
		l.setAt("PT007", posOf(cf, m))
	} else {
		l.addDefault("Dapr default: retry policy %s without matching retries all HTTP errors, 4xx included", name)
		l.setAt("PT007", posOf(cf, rp))
	}
	if retries == policy.Unlimited {
		l.retryClasses(policy.Unlimited, classes)
	} else {
		l.retryClasses(retries+1, classes)
	}
	r := &l.pol.Retry
	r.NonIdempotent = policy.NonIdempotentAlways
	policyKind := scalar(get(rp, "policy"))
	base := daprDuration
	if v := get(rp, "duration"); v != nil {
		dur, err := goDuration(cf, v, "retries."+name+".duration")
		if err != nil {
			return err
		}
		base = dur
	}
	l.setAt("PT006", posOf(cf, rp))
	l.setAt("PT013", posOf(cf, rp))
	if policyKind == "exponential" {
		// BackOff = Previous · U(0.5, 1.5) · 1.5, capped at maxInterval.
		maxI := daprMaxInterval
		if v := get(rp, "maxInterval"); v != nil {
			dur, err := goDuration(cf, v, "retries."+name+".maxInterval")
			if err != nil {
				return err
			}
			maxI = dur
		}
		r.Backoff, r.Base, r.Multiplier, r.Cap, r.Jitter, r.JitterFactor = policy.BackoffExponential, 500*time.Millisecond, 1.5, maxI, policy.JitterRandomized, 0.5
		return nil
	}
	r.Backoff, r.Base = policy.BackoffConstant, base
	if base == 0 {
		r.Backoff = policy.BackoffNone
	}
	l.say("PT006", fmt.Sprintf("Dapr retry policy %s is constant: every retry waits %s, unjittered", name, units.Duration(base)))
	return nil
}
