package emit

import (
	"fmt"
	"strconv"

	"github.com/patience-dev/patience/internal/units"
)

// istioWriter writes the recommendation for Istio: a ServiceEntry for the external host, a
// VirtualService route with the timeout and retries, and a DestinationRule with the connect
// timeout and the retry budget (istio.io networking/v1 VirtualService HTTPRoute, HTTPRetry;
// DestinationRule ConnectionPoolSettings, TrafficPolicy.retryBudget), as check reads them
// (check/config_istio.go, docs/formats.md#istio-virtualservice-and-destinationrule).
var istioWriter = writer{target: Istio, kind: KindConfig, language: "yaml", write: writeIstio}

func writeIstio(in Input) (Emission, error) {
	p := planOf(in)
	c := &configText{comment: "#"}
	for _, l := range p.header(Istio) {
		c.note(0, l)
	}
	host, port := in.hostPort()
	tls := in.Scheme() == "https"
	writeIstioServiceEntry(c, in, host, port, tls)
	c.line(0, "---")
	writeIstioVirtualService(c, p, host)
	c.line(0, "---")
	writeIstioDestinationRule(c, p, host, tls)
	return Emission{Text: c.String(), Settings: c.settings, Missing: istioMissing(p)}, nil
}

// writeIstioServiceEntry makes the external host a mesh service on a plain-HTTP port: the
// sidecar sees the request, so its timeouts and retries apply, and originates TLS itself.
func writeIstioServiceEntry(c *configText, in Input, host string, port int, tls bool) {
	c.line(0, "apiVersion: networking.istio.io/v1")
	c.line(0, "kind: ServiceEntry")
	c.line(0, "metadata: {name: "+in.NameOrAPI()+"}")
	c.line(0, "spec:")
	c.line(2, "hosts: ["+host+"]")
	c.line(2, "location: MESH_EXTERNAL")
	c.line(2, "resolution: DNS")
	if tls {
		c.note(2, fmt.Sprintf("The application calls http://%s%s (plain HTTP on port 80): the sidecar originates TLS to port %d (DestinationRule tls below). A call made with https:// from the application is opaque to the sidecar, and none of these timeouts or retries apply to it.", host, in.Path(), port))
		c.line(2, fmt.Sprintf("ports: [{number: 80, name: http, protocol: HTTP, targetPort: %d}]", port))
		return
	}
	c.line(2, fmt.Sprintf("ports: [{number: %d, name: http, protocol: HTTP}]", port))
}

func writeIstioVirtualService(c *configText, p configPlan, host string) {
	name := p.in.NameOrAPI()
	c.line(0, "apiVersion: networking.istio.io/v1")
	c.line(0, "kind: VirtualService")
	c.line(0, "metadata: {name: "+name+"}")
	c.line(0, "spec:")
	c.line(2, "hosts: ["+host+"]")
	c.line(2, "http:")
	c.line(2, "- name: "+name)
	c.line(4, "route: [{destination: {host: "+host+"}}]")
	dl := secondsText(p.deadline)
	c.knob(4, "http.timeout", dl, p.deadlineWhy()+"; Istio's route timeout spans every retry", "timeout: "+dl)
	c.line(4, "retries:")
	n := strconv.Itoa(p.retries())
	c.knob(6, "retries.attempts", n, "retries after the first try (Istio counts retries): "+p.attemptsWhy(), "attempts: "+n)
	total := secondsText(p.total)
	c.knob(6, "retries.perTryTimeout", total, "bounds each try, connect to the last byte of the response (the recommended total)", "perTryTimeout: "+total)
	on, onWhy := envoyRetryOn(p)
	c.knob(6, "retries.retryOn", on, onWhy, "retryOn: "+on)
}

func writeIstioDestinationRule(c *configText, p configPlan, host string, tls bool) {
	c.line(0, "apiVersion: networking.istio.io/v1")
	c.line(0, "kind: DestinationRule")
	c.line(0, "metadata: {name: "+p.in.NameOrAPI()+"}")
	c.line(0, "spec:")
	c.line(2, "host: "+host)
	c.line(2, "trafficPolicy:")
	if tls {
		c.line(4, "tls: {mode: SIMPLE, sni: "+host+"}")
	}
	c.line(4, "connectionPool:")
	c.line(6, "tcp:")
	ct := secondsText(p.connectOrTotal())
	c.knob(8, "connectionPool.tcp.connectTimeout", ct, p.connectWhy(), "connectTimeout: "+ct)
	c.line(4, "retryBudget:")
	pct, minConc, from := meshRetryBudget(p.in)
	ps := strconv.FormatFloat(pct, 'f', -1, 64)
	c.knob(6, "retryBudget.percent", ps, "caps retries in flight at this percentage of the active requests, so a full outage adds at most that much load ("+from+"; Istio ≥ 1.27)", "percent: "+ps)
	mc := strconv.Itoa(minConc)
	c.knob(6, "retryBudget.minRetryConcurrency", mc, "the retries always allowed in flight, whatever the percentage ("+from+")", "minRetryConcurrency: "+mc)
}

// istioMissing lists what Istio's API cannot express, with the EnvoyFilter way to get it.
func istioMissing(p configPlan) []string {
	var out []string
	if p.read > 0 {
		out = append(out, fmt.Sprintf("Istio has no read timeout per try: the %s read timeout needs an EnvoyFilter that sets the route's retry_policy.per_try_idle_timeout (or the application's client)", units.Duration(p.read)))
	}
	if p.attempts > 1 {
		out = append(out,
			fmt.Sprintf("Istio's VirtualService sets no backoff here: Envoy's default applies (25 ms base, 250 ms cap, full jitter); the recommended %s needs an EnvoyFilter that sets retry_policy.retry_back_off", p.backoffText()),
			"Istio does not honour Retry-After: a 429 is not retried and reaches the client, which honours Retry-After while it fits the budget; an EnvoyFilter can set retry_policy.rate_limited_retry_back_off")
	}
	return out
}
