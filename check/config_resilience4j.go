package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// resilience4j in a Spring Boot application.yml (config-and-log-sources.md §A0, §A6;
// resilience4j v2.4.0 RetryConfig.java, IntervalFunction.java, TimeLimiterConfig.java,
// resilience4j-framework-common CommonRetryConfigurationProperties.java). Spring's relaxed
// binding accepts maxAttempts and max-attempts alike.

const (
	r4jMaxAttempts  = 3                      // RetryConfig.DEFAULT_MAX_ATTEMPTS (attempts)
	r4jWait         = 500 * time.Millisecond // DEFAULT_WAIT_DURATION
	r4jMultiplier   = 1.5                    // IntervalFunction.DEFAULT_MULTIPLIER
	r4jRandomFactor = 0.5                    // DEFAULT_RANDOMIZATION_FACTOR
)

// r4jExceptionClasses maps the exception classes teams list in retryExceptions and
// ignoreExceptions to failure classes (Spring's RestTemplate and WebClient: ResourceAccess
// wraps I/O errors, HttpServerError is 5xx, HttpClientError 4xx).
var r4jExceptionClasses = map[string][]FailureClass{
	"java.io.IOException":                                                         {FailConnect, FailReset, FailTimeout},
	"java.net.ConnectException":                                                   {FailConnect},
	"java.net.SocketTimeoutException":                                             {FailTimeout},
	"java.util.concurrent.TimeoutException":                                       {FailTimeout},
	"org.springframework.web.client.ResourceAccessException":                      {FailConnect, FailReset, FailTimeout},
	"org.springframework.web.client.HttpServerErrorException":                     {Fail5xx, Fail503},
	"org.springframework.web.client.HttpClientErrorException":                     {Fail4xx, Fail429},
	"org.springframework.web.client.HttpStatusCodeException":                      {Fail5xx, Fail503, Fail4xx, Fail429},
	"org.springframework.web.reactive.function.client.WebClientResponseException": {Fail5xx, Fail503, Fail4xx, Fail429},
	"org.springframework.web.reactive.function.client.WebClientRequestException":  {FailConnect, FailReset, FailTimeout},
	"java.lang.Exception":                                                         FailureClasses,
	"java.lang.RuntimeException":                                                  FailureClasses,
	"java.lang.Throwable":                                                         FailureClasses,
}

// r4jExceptions maps a list of exception class names; unknown names match nothing.
func r4jExceptions(n *yaml.Node) []FailureClass {
	var out []FailureClass
	for _, it := range items(n) {
		name := scalar(it)
		for k, cs := range r4jExceptionClasses {
			if name == k || strings.HasSuffix(k, "."+name) || (strings.HasSuffix(name, "$ServiceUnavailable") && k == "org.springframework.web.client.HttpServerErrorException") {
				for _, c := range cs {
					if !slices.Contains(out, c) {
						out = append(out, c)
					}
				}
			}
		}
	}
	return out
}

// springDuration reads a Spring Duration: "500ms", "10s", "PT0.5S", or a bare number of ms.
func springDuration(cf *ConfigFile, n *yaml.Node, field string) (time.Duration, error) {
	s := strings.TrimSpace(scalar(n))
	if v, err := strconv.ParseInt(s, 10, 64); err == nil && v >= 0 {
		return time.Duration(v) * time.Millisecond, nil
	}
	if strings.HasPrefix(strings.ToUpper(s), "PT") {
		if d, err := time.ParseDuration(strings.ToLower(s[2:])); err == nil {
			return d, nil
		}
	}
	if strings.HasSuffix(s, "d") {
		if v, err := strconv.Atoi(strings.TrimSuffix(s, "d")); err == nil {
			return time.Duration(v) * 24 * time.Hour, nil
		}
	}
	return goDuration(cf, n, field)
}

// resilience4jLayers reads every resilience4j.retry.instances entry, merged over its
// baseConfig (or configs.default) and the TimeLimiter of the same name.
func resilience4jLayers(d *configDoc) ([]*layerCandidate, error) {
	cf := d.file
	root := get(d.node, "resilience4j")
	retry := get(root, "retry")
	configs := get(retry, "configs")
	var out []*layerCandidate
	for _, kv := range pairs(get(retry, "instances")) {
		name, inst := kv[0].Value, kv[1]
		base := get(configs, "default")
		if b := scalar(get(inst, "baseConfig")); b != "" {
			if base = get(configs, b); base == nil {
				return nil, configError(cf, get(inst, "baseConfig"), "resilience4j.retry.instances."+name+".baseConfig", "no config %q under resilience4j.retry.configs", b)
			}
		}
		field := func(keys ...string) *yaml.Node {
			if v := getAny(inst, keys...); v != nil {
				return v
			}
			return getAny(base, keys...)
		}
		l := newLayer("resilience4j", name, posOf(cf, kv[0]))
		l.answer = answerApp
		path := "resilience4j.retry.instances." + name
		attempts := r4jMaxAttempts
		if n := field("maxAttempts", "max-attempts"); n != nil {
			v, err := intField(cf, n, path+".maxAttempts", 0)
			if err != nil {
				return nil, err
			}
			if v > 0 { // 0 is ignored: the default stays
				attempts = v
			}
			l.retryAt = posOf(cf, n)
			l.retryWhy = fmt.Sprintf("maxAttempts: %d (attempts)", v)
		} else {
			l.retryDefault = true
			l.retryWhy = "resilience4j default: maxAttempts 3"
			l.addDefault("resilience4j default: maxAttempts 3 (attempts)")
		}
		classes := FailureClasses
		if re := field("retryExceptions", "retry-exceptions"); re != nil {
			classes = r4jExceptions(re)
			l.setAt("PT007", posOf(cf, re))
		} else if field("retryExceptionPredicate", "retry-exception-predicate") == nil {
			l.addDefault("resilience4j default: every exception is retried, 4xx included (no retryExceptions)")
		}
		if ie := field("ignoreExceptions", "ignore-exceptions"); ie != nil {
			ignored := r4jExceptions(ie)
			classes = slices.DeleteFunc(slices.Clone(classes), func(c FailureClass) bool { return slices.Contains(ignored, c) })
		}
		l.retryClasses(attempts, classes)
		r := &l.pol.Retry
		r.NonIdempotent = policy.NonIdempotentAlways
		r.Backoff, r.Base = policy.BackoffConstant, r4jWait
		wait := field("waitDuration", "wait-duration")
		if wait != nil {
			v, err := springDuration(cf, wait, path+".waitDuration")
			if err != nil {
				return nil, err
			}
			r.Base = v
			l.setAt("PT006", posOf(cf, wait))
			l.setAt("PT013", posOf(cf, wait))
		} else {
			l.addDefault("resilience4j default: waitDuration 500ms, fixed")
		}
		// The exponential and random options apply only with waitDuration set
		// (configureRetryIntervalFunction).
		if wait != nil && scalar(field("enableExponentialBackoff", "enable-exponential-backoff")) == "true" {
			r.Backoff, r.Multiplier = policy.BackoffExponential, r4jMultiplier
			if m := field("exponentialBackoffMultiplier", "exponential-backoff-multiplier"); m != nil {
				v, err := floatField(cf, m, path+".exponentialBackoffMultiplier")
				if err != nil {
					return nil, err
				}
				r.Multiplier = v
			}
			if m := field("exponentialMaxWaitDuration", "exponential-max-wait-duration"); m != nil {
				v, err := springDuration(cf, m, path+".exponentialMaxWaitDuration")
				if err != nil {
					return nil, err
				}
				r.Cap = v
			}
		}
		if wait != nil && scalar(field("enableRandomizedWait", "enable-randomized-wait")) == "true" {
			r.Jitter, r.JitterFactor = policy.JitterRandomized, r4jRandomFactor
			if f := field("randomizedWaitFactor", "randomized-wait-factor"); f != nil {
				v, err := floatField(cf, f, path+".randomizedWaitFactor")
				if err != nil {
					return nil, err
				}
				r.JitterFactor = v
			}
		} else {
			l.say("PT006", fmt.Sprintf("resilience4j retry %s waits a fixed %s between attempts (no enableRandomizedWait)", name, units.Duration(r.Base)))
		}
		if r.Base == 0 {
			r.Backoff = policy.BackoffNone
		}
		if tl := get(get(get(root, "timelimiter"), "instances"), name); tl != nil {
			l.pol.Timeout = time.Second // TimeLimiterConfig default timeoutDuration
			if t := getAny(tl, "timeoutDuration", "timeout-duration"); t != nil {
				v, err := springDuration(cf, t, "resilience4j.timelimiter.instances."+name+".timeoutDuration")
				if err != nil {
					return nil, err
				}
				l.pol.Timeout = v
			}
		}
		if get(get(get(root, "circuitbreaker"), "instances"), name) != nil {
			l.pol.Breaker = &policy.Breaker{}
		}
		out = append(out, &layerCandidate{layer: l, names: []string{name}, doc: d})
	}
	return out, nil
}
