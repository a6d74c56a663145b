package emit

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/patience-dev/patience/internal/units"
)

// albWriter writes the recommendation for an AWS Application Load Balancer in front of the
// dependency: an Ingress the AWS Load Balancer Controller serves, whose one knob is the ALB's
// idle timeout, the load balancer attribute idle_timeout.timeout_seconds in the annotation
// alb.ingress.kubernetes.io/load-balancer-attributes (kubernetes-sigs/aws-load-balancer-controller
// docs/guide/ingress/annotations.md), as check reads it (check/config_alb.go,
// docs/formats.md "AWS ALB"). An ALB makes one try and has no total, connect or retry knob: those
// are the emission's Missing.
var albWriter = writer{target: ALB, kind: KindConfig, language: "yaml", write: writeALB}

// albIdleMax is the largest idle timeout the attribute takes, in seconds (1-4000).
const albIdleMax = 4000

// albIdleSeconds is the idle timeout to write: the bound on a silence (the read timeout, for
// a stream the larger of its first-event and idle timeouts, else the total) in whole seconds,
// rounded up so no silence within the bound is cut, and at most 4000; capped says it was.
func albIdleSeconds(p configPlan) (secs int64, capped bool) {
	secs = int64((p.readOrTotal() + time.Second - 1) / time.Second)
	secs = max(secs, 1)
	if secs > albIdleMax {
		return albIdleMax, true
	}
	return secs, false
}

func writeALB(in Input) (Emission, error) {
	p := planOf(in)
	c := &configText{comment: "#"}
	for _, l := range p.header(ALB) {
		c.note(0, l)
	}
	name := in.NameOrAPI()
	host, port := in.hostPort()
	c.line(0, "apiVersion: networking.k8s.io/v1")
	c.line(0, "kind: Ingress")
	c.line(0, "metadata:")
	c.line(2, "name: "+name)
	c.line(2, "annotations:")
	secs, _ := albIdleSeconds(p)
	v := albIdleKnob + "=" + strconv.FormatInt(secs, 10)
	c.knob(4, albIdleKnob, strconv.FormatInt(secs, 10), albIdleWhy(p, secs), "alb.ingress.kubernetes.io/load-balancer-attributes: "+v)
	c.line(0, "spec:")
	c.line(2, "ingressClassName: alb")
	c.line(2, "rules:")
	if net.ParseIP(host) == nil {
		c.line(4, "- host: "+host)
		c.line(6, "http:")
	} else {
		c.note(4, "No host rule: an Ingress host cannot be an IP address.")
		c.line(4, "- http:")
	}
	c.line(8, "paths:")
	c.line(10, "- path: /")
	c.line(12, "pathType: Prefix")
	c.line(12, "backend:")
	c.note(14, "The Service whose pods serve "+in.URL+" in this cluster: name yours. An ALB forwards to a Service's pods or nodes, never to an external host.")
	c.line(14, "service:")
	c.line(16, "name: "+name)
	c.line(16, fmt.Sprintf("port: {number: %d}", port))
	return Emission{Text: c.String(), Settings: c.settings, Missing: albMissing(p)}, nil
}

// albIdleKnob is the attribute's key.
const albIdleKnob = "idle_timeout.timeout_seconds"

// albIdleWhy says what the idle timeout bounds and where its figure comes from.
func albIdleWhy(p configPlan, secs int64) string {
	what := fmt.Sprintf("the recommended %s read timeout", units.Duration(p.read))
	if p.in.Rec.StreamAdvice.PerReadMs() > 0 {
		what = fmt.Sprintf("the stream's %s, the larger of its first-event and idle timeouts", units.Duration(p.read))
	}
	if p.read <= 0 {
		what = fmt.Sprintf("no read timeout was derived, so the %s total", units.Duration(p.total))
	}
	return fmt.Sprintf("the ALB closes a connection on which no data was sent or received for this long, on the client's side and the target's, so it bounds each silence of the response (a stream's first event and every gap), never the whole response: %s, in whole seconds rounded up (%d s, 60 s when unset); a client keeping idle connections open longer than this meets closed ones", what, secs)
}

// albMissing lists what an ALB cannot bound.
func albMissing(p configPlan) []string {
	out := []string{
		p.clientDeadline("an ALB has no total timeout: a response that sends something within every idle period is held as long as it runs"),
		fmt.Sprintf("an ALB has no connect timeout to set (its own to the target is fixed): the %s connect timeout belongs in the client", units.Duration(p.connectOrTotal())),
	}
	if secs, capped := albIdleSeconds(p); capped {
		out = append(out, fmt.Sprintf("an ALB's idle timeout is at most %d s: the recommended %s bound on a silence is cut to %d s", albIdleMax, units.Duration(p.readOrTotal()), secs))
	}
	if p.attempts > 1 {
		out = append(out, fmt.Sprintf("an ALB does not retry a request to its targets: the recommended %s with backoff (%s) belong in the client", attemptsText(p.attempts), p.backoffText()))
	}
	out = append(out, "an ALB does not read Retry-After: a 429 or 503 reaches the client, which honours Retry-After while it fits the budget")
	return out
}
