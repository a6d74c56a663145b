package emit

import (
	"fmt"
	"strconv"

	"github.com/patience-dev/patience/internal/units"
)

// envoyWriter writes the recommendation for Envoy: a bootstrap's static_resources with an
// egress listener whose route carries the timeouts and the retry policy, and the cluster
// with the connect timeout and the retry budget (data-plane-api route_components.proto
// RouteAction, RetryPolicy; cluster.proto; circuit_breaker.proto), as check reads it
// (check/config_envoy.go, docs/formats.md#envoy).
var envoyWriter = writer{target: Envoy, kind: KindConfig, language: "yaml", write: writeEnvoy}

// Envoy's own retry_budget defaults (circuit_breaker.proto RetryBudget: budget_percent
// "defaults to 20%", min_retry_concurrency "defaults to 3"), written when no load was measured.
const (
	envoyDefaultBudgetPercent = 20.0
	envoyDefaultMinRetryConc  = 3
)

func writeEnvoy(in Input) (Emission, error) {
	p := planOf(in)
	c := &configText{comment: "#"}
	for _, l := range p.header(Envoy) {
		c.note(0, l)
	}
	name := in.NameOrAPI()
	c.line(0, "static_resources:")
	c.line(2, "listeners:")
	c.line(2, "- name: "+name+"-egress")
	c.note(4, "The application calls http://127.0.0.1:10000"+in.Path()+"; Envoy makes the call upstream.")
	c.line(4, "address: {socket_address: {address: 127.0.0.1, port_value: 10000}}")
	c.line(4, "filter_chains:")
	c.line(4, "- filters:")
	c.line(6, "- name: envoy.filters.network.http_connection_manager")
	c.line(8, "typed_config:")
	c.line(10, `"@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager`)
	c.line(10, "stat_prefix: "+name)
	c.line(10, "http_filters:")
	c.line(10, "- name: envoy.filters.http.router")
	c.line(12, `typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}`)
	c.line(10, "route_config:")
	c.line(12, "name: "+name)
	c.line(12, "virtual_hosts:")
	c.line(12, "- name: "+name)
	c.line(14, `domains: ["*"]`)
	c.line(14, "routes:")
	c.line(14, "- name: "+name)
	c.line(16, "match: {prefix: /}")
	c.line(16, "route:")
	c.line(18, "cluster: "+name)
	host, _ := in.hostPort()
	c.line(18, "host_rewrite_literal: "+host)
	dl, dlWhy := secondsText(p.deadline), p.deadlineWhy()+"; Envoy's route timeout spans every retry"
	if p.firstEventBudget() {
		dl, dlWhy = "0s", fmt.Sprintf("disabled: a stream's caller waits for its first event, and the stream's length is the content's; Envoy's route timeout spans the whole stream and every retry, so the caller's %s budget here would cut streams that answered (per_try_idle_timeout bounds each wait)", units.Duration(p.deadline))
	}
	c.knob(18, "route.timeout", dl, dlWhy, "timeout: "+dl)
	writeEnvoyRetry(c, p)
	writeEnvoyCluster(c, p)
	return Emission{Text: c.String(), Settings: c.settings, Missing: envoyMissing(p)}, nil
}

// writeEnvoyRetry writes the route's retry_policy.
func writeEnvoyRetry(c *configText, p configPlan) {
	c.line(18, "retry_policy:")
	on, onWhy := envoyRetryOn(p)
	c.knob(20, "retry_policy.retry_on", on, onWhy, "retry_on: "+on)
	n := strconv.Itoa(p.retries())
	c.knob(20, "retry_policy.num_retries", n, "retries after the first try: "+p.attemptsWhy(), "num_retries: "+n)
	total, totalWhy := secondsText(p.total), "bounds each try, connect to the last byte of the response (the recommended total)"
	if p.total <= 0 {
		total, totalWhy = "0s", "disabled: the stream's length is unbounded, so no total bounds a try; per_try_idle_timeout bounds its silences"
	}
	c.knob(20, "retry_policy.per_try_timeout", total, totalWhy, "per_try_timeout: "+total)
	if p.read > 0 {
		read := secondsText(p.read)
		what := "the recommended read timeout"
		if p.in.Rec.StreamAdvice.PerReadMs() > 0 {
			what = "for a stream, the larger of its first-event and idle timeouts"
		}
		c.knob(20, "retry_policy.per_try_idle_timeout", read, "bounds each silence of a try: the wait for the response and each pause between two reads ("+what+")", "per_try_idle_timeout: "+read)
	}
	if p.attempts <= 1 {
		return
	}
	c.line(20, "retry_back_off:")
	base, maxI := secondsText(p.retry.Base), secondsText(p.retry.Cap)
	c.knob(22, "retry_back_off.base_interval", base, "the first backoff's bound; Envoy's backoff is fully jittered exponential: retry n waits U[0, (2^n − 1)·base)", "base_interval: "+base)
	c.knob(22, "retry_back_off.max_interval", maxI, "caps every backoff wait", "max_interval: "+maxI)
	c.line(20, "rate_limited_retry_back_off:")
	c.line(22, "reset_headers: [{name: retry-after, format: SECONDS}]")
	ra := secondsText(p.deadline)
	c.knob(22, "rate_limited_retry_back_off.max_interval", ra,
		fmt.Sprintf("the longest Retry-After (seconds) Envoy honours before a retry it would make anyway (a 503 here; it waits U[v, 1.5·v] for a value v): the %s deadline; a longer one is discarded for the backoff above, and the route timeout ends the call at the deadline", units.Duration(p.deadline)),
		"max_interval: "+ra)
}

// envoyRetryOn is Envoy's retry_on (Istio's retryOn takes the same words) and what it
// retries: with retries, connect failures, refused streams, resets, per-try timeouts and
// 502/503/504 (gateway-error); without, only what never left.
func envoyRetryOn(p configPlan) (on, why string) {
	if p.attempts > 1 {
		return "connect-failure,refused-stream,reset,gateway-error", "what is retried: a failed connect, a refused stream, a reset, a per-try timeout and " + retriedJoined("", ", ") + " (gateway-error); never a 500 or a 4xx"
	}
	return "connect-failure,refused-stream", "what is retried: a failed connect or a refused stream (the request never left); with no retries, nothing"
}

// meshRetryBudget is the retry budget Envoy and Istio write (budget_percent,
// min_retry_concurrency) and where it comes from: the measured load's sizing, else Envoy's own
// defaults written out.
func meshRetryBudget(in Input) (percent float64, minConcurrency int, from string) {
	if b := in.Rec.RetryBudget; b != nil {
		return b.Percent, b.MinRetryConcurrency, fmt.Sprintf("sized from the measured load: %s/s, %s in flight", units.Sig(b.RatePerS), units.Sig(b.Concurrency))
	}
	return envoyDefaultBudgetPercent, envoyDefaultMinRetryConc, "Envoy's own default, written out: no load was measured to size it"
}

// writeEnvoyCluster writes the cluster: the upstream, its connect timeout and its retry
// budget.
func writeEnvoyCluster(c *configText, p configPlan) {
	in := p.in
	name := in.NameOrAPI()
	host, port := in.hostPort()
	c.line(2, "clusters:")
	c.line(2, "- name: "+name)
	c.line(4, "type: LOGICAL_DNS")
	ct := secondsText(p.connectOrTotal())
	c.knob(4, "cluster.connect_timeout", ct, p.connectWhy(), "connect_timeout: "+ct)
	c.line(4, "load_assignment:")
	c.line(6, "cluster_name: "+name)
	c.line(6, fmt.Sprintf("endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: %s, port_value: %d}}}}]}]", host, port))
	if in.Scheme() == "https" {
		c.line(4, "transport_socket:")
		c.line(6, "name: envoy.transport_sockets.tls")
		c.line(6, "typed_config:")
		c.line(8, `"@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext`)
		c.line(8, "sni: "+host)
	}
	c.line(4, "circuit_breakers:")
	c.line(6, "thresholds:")
	c.line(6, "- priority: DEFAULT")
	c.line(8, "retry_budget:")
	pct, minConc, from := meshRetryBudget(p.in)
	ps := strconv.FormatFloat(pct, 'f', -1, 64)
	c.knob(10, "retry_budget.budget_percent", ps, "caps retries in flight at this percentage of the active requests, so a full outage adds at most that much load ("+from+")", "budget_percent: {value: "+ps+"}")
	mc := strconv.Itoa(minConc)
	c.knob(10, "retry_budget.min_retry_concurrency", mc, "the retries always allowed in flight, whatever the percentage ("+from+")", "min_retry_concurrency: "+mc)
}

// envoyMissing lists what Envoy cannot express of the recommendation.
func envoyMissing(p configPlan) []string {
	var out []string
	if p.firstEventBudget() {
		out = append(out, fmt.Sprintf("a deadline on the waits for the first event: the caller's %s budget holds its first event across retries, not the stream, and Envoy's only deadline (the route timeout) spans the whole stream, so it is disabled; keep the budget in the client, around the wait for the first event", units.Duration(p.deadline)))
	}
	if p.attempts > 1 {
		out = append(out,
			"Envoy cannot retry a 429 only when its Retry-After fits the budget: a retried 429 without one would be retried on the backoff alone, so 429 is not retried here and reaches the client, which honours Retry-After while it fits",
			fmt.Sprintf("Envoy honours a 503's Retry-After up to the whole %s deadline, not what is left of it: a wait longer than what is left ends at the route timeout (504) rather than at once", units.Duration(p.deadline)))
	}
	return out
}
