package emit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/patience-dev/patience/internal/units"
)

// gatewayAPIWriter writes the recommendation for the Gateway API: an HTTPRoute rule with
// timeouts (GEP-1742: request, backendRequest) and retry (GEP-1731: codes, attempts,
// backoff), to an ExternalName Service for the external host; check reads it as Istio and
// Envoy Gateway translate it (check/gateway_impl.go, docs/formats.md).
var gatewayAPIWriter = writer{target: GatewayAPI, kind: KindConfig, language: "yaml", write: writeGatewayAPI}

func writeGatewayAPI(in Input) (Emission, error) {
	p := planOf(in)
	c := &configText{comment: "#"}
	for _, l := range p.header(GatewayAPI) {
		c.note(0, l)
	}
	name := in.NameOrAPI()
	host, port := in.hostPort()
	c.line(0, "apiVersion: v1")
	c.line(0, "kind: Service")
	c.line(0, "metadata: {name: "+name+"}")
	c.line(0, "spec:")
	c.note(2, "The external host as a Service the route can name (TLS to it is the implementation's backend TLS policy).")
	c.line(2, "type: ExternalName")
	c.line(2, "externalName: "+host)
	c.line(2, fmt.Sprintf("ports: [{port: %d}]", port))
	c.line(0, "---")
	c.line(0, "apiVersion: gateway.networking.k8s.io/v1")
	c.line(0, "kind: HTTPRoute")
	c.line(0, "metadata: {name: "+name+"}")
	c.line(0, "spec:")
	c.note(2, "The Gateway this route attaches to: name yours.")
	c.line(2, "parentRefs: [{name: "+name+"-gateway}]")
	c.line(2, "rules:")
	c.line(2, fmt.Sprintf("- backendRefs: [{name: %s, port: %d}]", name, port))
	c.line(4, "timeouts:")
	dl := gepDuration(p.deadline)
	c.knob(6, "timeouts.request", dl, p.deadlineWhy()+"; the request timeout spans every retry", "request: "+dl)
	total := gepDuration(p.total)
	c.knob(6, "timeouts.backendRequest", total, "bounds each try from the gateway to the backend (the recommended total)", "backendRequest: "+total)
	c.note(4, "retry is GEP-1731: in the experimental channel before Gateway API v1.7.0, standard since; an implementation without it ignores or rejects the field.")
	c.line(4, "retry:")
	n := strconv.Itoa(p.retries())
	c.knob(6, "retry.attempts", n, "retries after the first try (the Gateway API counts retries): "+p.attemptsWhy(), "attempts: "+n)
	if p.attempts > 1 {
		codes := "[" + retriedJoined("", ", ") + "]"
		c.knob(6, "retry.codes", strings.Trim(codes, "[]"), "the statuses retried, besides connection errors: "+retriedJoined("", ", ")+"; never a 500 or a 4xx", "codes: "+codes)
		bo := gepDuration(p.retry.Base)
		c.knob(6, "retry.backoff", bo, "the least wait before a retry; an implementation may grow it and add jitter (Istio and Envoy Gateway: Envoy's fully jittered exponential backoff from it)", "backoff: "+bo)
	}
	return Emission{Text: c.String(), Settings: c.settings, Missing: gatewayMissing(p)}, nil
}

// gatewayMissing lists what the Gateway API cannot express.
func gatewayMissing(p configPlan) []string {
	out := []string{
		fmt.Sprintf("the Gateway API has no connect timeout: the %s connect timeout needs the implementation's policy (Envoy Gateway BackendTrafficPolicy timeout.tcp.connectTimeout, an Istio DestinationRule connectionPool.tcp.connectTimeout)", units.Duration(p.connectOrTotal())),
	}
	if p.read > 0 {
		out = append(out, fmt.Sprintf("the Gateway API has no read timeout: the %s bound on each silence needs the implementation's policy (an Envoy per_try_idle_timeout) or the client", units.Duration(p.read)))
	}
	if p.attempts > 1 {
		out = append(out,
			fmt.Sprintf("the Gateway API sets only the least backoff: the cap (%s) and full jitter are the implementation's (Envoy's own: 10 × base, full jitter)", units.Duration(p.retry.Cap)),
			"the Gateway API neither honours Retry-After nor retries a 429 only with one that fits: 429 is not retried and reaches the client, which honours Retry-After while it fits the budget",
			"the Gateway API has no retry budget: an Istio DestinationRule retryBudget or Envoy Gateway's BackendTrafficPolicy retry budget caps retries in an outage")
	}
	return out
}
