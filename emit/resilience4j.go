package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/patience-dev/patience/internal/units"
)

// resilience4jWriter writes the recommendation for Resilience4j in a Spring Boot
// application.yml: a retry instance and a time limiter instance of the same name
// (resilience4j-spring-boot RetryConfigurationProperties, TimeLimiterConfigurationProperties),
// as check reads them (check/config_resilience4j.go, docs/formats.md).
var resilience4jWriter = writer{target: Resilience4j, kind: KindConfig, language: "yaml", write: writeResilience4j}

// r4jRandomizedWaitFactor is the randomization the file writes: Resilience4j's randomized wait
// is d·U[1−f, 1+f] with f < 1, so full jitter cannot be written; 0.5 (its default) spreads
// the callers that failed together over the widest band short of it.
const r4jRandomizedWaitFactor = 0.5

// r4jRetryExceptions are the exceptions retried, in Spring's RestTemplate terms: an I/O error
// (connect, reset, read timeout), the time limiter's timeout, and 502, 503, 504.
var r4jRetryExceptions = []string{
	"org.springframework.web.client.ResourceAccessException",
	"java.util.concurrent.TimeoutException",
	"org.springframework.web.client.HttpServerErrorException$BadGateway",
	"org.springframework.web.client.HttpServerErrorException$ServiceUnavailable",
	"org.springframework.web.client.HttpServerErrorException$GatewayTimeout",
}

func writeResilience4j(in Input) (Emission, error) {
	p := planOf(in)
	c := &configText{comment: "#"}
	for _, l := range p.header(Resilience4j) {
		c.note(0, l)
	}
	name := in.NameOrAPI()
	c.note(0, fmt.Sprintf("Annotate the method that makes the call with @Retry(name = %q) and @TimeLimiter(name = %q) (it returns a CompletableFuture): Spring's default aspect order puts the retry outside the time limiter, so the limit bounds each attempt.", name, name))
	c.line(0, "resilience4j:")
	c.line(2, "retry:")
	c.line(4, "instances:")
	c.line(6, name+":")
	n := strconv.Itoa(p.attempts)
	c.knob(8, "maxAttempts", n, p.attemptsWhy(), "maxAttempts: "+n)
	if p.attempts > 1 {
		writeR4jBackoff(c, p)
	}
	c.line(2, "timelimiter:")
	c.line(4, "instances:")
	c.line(6, name+":")
	total := msText(p.total)
	c.knob(8, "timeoutDuration", total, "bounds each attempt, connect to the last byte of the response (the recommended total)", "timeoutDuration: "+total)
	c.line(8, "cancelRunningFuture: true")
	return Emission{Text: c.String(), Settings: c.settings, Missing: r4jMissing(p)}, nil
}

// writeR4jBackoff writes the wait between attempts and what is retried.
func writeR4jBackoff(c *configText, p configPlan) {
	r := p.retry
	base := msText(r.Base)
	c.knob(8, "waitDuration", base, "the first wait before a retry, before randomization", "waitDuration: "+base)
	c.knob(8, "enableExponentialBackoff", "true", "each wait grows by the multiplier", "enableExponentialBackoff: true")
	mult := strconv.FormatFloat(r.Multiplier, 'f', -1, 64)
	c.knob(8, "exponentialBackoffMultiplier", mult, "the factor between two waits", "exponentialBackoffMultiplier: "+mult)
	maxW := msText(r.Cap)
	c.knob(8, "exponentialMaxWaitDuration", maxW, "caps every wait", "exponentialMaxWaitDuration: "+maxW)
	c.knob(8, "enableRandomizedWait", "true", "randomizes each wait, so callers that failed together do not retry together", "enableRandomizedWait: true")
	f := strconv.FormatFloat(r4jRandomizedWaitFactor, 'f', -1, 64)
	c.knob(8, "randomizedWaitFactor", f, "each wait d becomes U[d·(1−f), d·(1+f)] (f < 1: Resilience4j cannot wait U[0, d], full jitter)", "randomizedWaitFactor: "+f)
	c.note(8, "retryExceptions: what is retried: an I/O error (connect, reset, read timeout), the time limiter's timeout, "+retriedJoined("", ", ")+"; never a 500 or a 4xx")
	c.line(8, "retryExceptions:")
	for _, e := range r4jRetryExceptions {
		c.line(10, "- "+e)
	}
	c.settings = append(c.settings, Setting{Knob: "retryExceptions", Value: strings.Join(r4jRetryExceptions, ", "), Bounds: "what is retried: an I/O error (connect, reset, read timeout), the time limiter's timeout, " + retriedJoined("", ", ") + "; never a 500 or a 4xx"})
}

// r4jMissing lists what Resilience4j leaves to the HTTP client or the code.
func r4jMissing(p configPlan) []string {
	out := []string{
		fmt.Sprintf("Resilience4j has no connect timeout: set the HTTP client's to %s (RestTemplate's SimpleClientHttpRequestFactory.setConnectTimeout, Apache HttpClient's ConnectionConfig connectTimeout, OkHttp's connectTimeout)", units.Duration(p.connectOrTotal())),
	}
	if p.read > 0 {
		out = append(out, fmt.Sprintf("Resilience4j has no read timeout: set the HTTP client's to %s (SimpleClientHttpRequestFactory.setReadTimeout, Apache HttpClient's SocketConfig soTimeout, OkHttp's readTimeout)", units.Duration(p.read)))
	}
	if p.attempts > 1 {
		out = append(out,
			fmt.Sprintf("Resilience4j has no deadline around the retries: each attempt is bounded, the whole call is not; bound it in the code with the caller's %s budget (orTimeout on the CompletableFuture)", units.Duration(p.deadline)),
			"Resilience4j's randomized wait cannot be full jitter (U[0, d]): it waits U[d/2, 3d/2]",
			"Resilience4j's retry does not read Retry-After: a 429 is not retried and reaches the caller, which honours Retry-After while it fits the budget (or an intervalBiFunction reading it)",
			"Resilience4j's retry has no retry budget: a circuitbreaker instance of the same name stops the retries in an outage")
	}
	return out
}
