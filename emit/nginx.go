package emit

import (
	"fmt"
	"strconv"
	"time"

	"github.com/patience-dev/patience/internal/units"
)

// nginxWriter writes the recommendation for nginx: an upstream and a server whose location
// proxies the call (ngx_http_proxy_module, ngx_http_upstream_module), as check reads it
// (check/config_nginxconf.go, docs/formats.md#nginx).
var nginxWriter = writer{target: Nginx, kind: KindConfig, language: "nginx", write: writeNginx}

// nginxTimerLazy is NGX_TIMER_LAZY_DELAY (nginx src/event/ngx_event_timer.h): nginx moves an
// armed timer only when the new deadline is at least 300 ms from the old one, "to minimize the
// rbtree operations for fast connections". proxy_read_timeout is such a timer, re-armed on each
// read: reads closer together than 300 ms do not move it, so it runs from a read up to 300 ms
// older than the last. Measured on loopback (TestNginxEmittedLive): proxy_read_timeout 400ms
// ends a body dripping a byte every 250 ms at 400 ms after its head.
const nginxTimerLazy = 300 * time.Millisecond

// nginxSilence is proxy_read_timeout (and proxy_send_timeout): the recommended bound on a
// silence (the read timeout, else the total) plus the lazy timer's slack, so that no silence
// within the bound is cut, and none much longer survives.
func nginxSilence(p configPlan) time.Duration { return p.readOrTotal() + nginxTimerLazy }

// nginxFailTimeout and nginxMaxFails are nginx's own defaults for a server's passive health
// check, written out: nothing measured sizes them.
const (
	nginxMaxFails    = 1
	nginxFailTimeout = "10s"
)

func writeNginx(in Input) (Emission, error) {
	p := planOf(in)
	c := &configText{comment: "#"}
	for _, l := range p.header(Nginx) {
		c.note(0, l)
	}
	name := in.NameOrAPI()
	host, port := in.hostPort()
	c.line(0, "")
	c.line(0, "upstream "+name+" {")
	c.knobs(4, fmt.Sprintf("server %s:%d max_fails=%d fail_timeout=%s;", host, port, nginxMaxFails, nginxFailTimeout),
		Setting{Knob: "max_fails", Value: strconv.Itoa(nginxMaxFails), Bounds: "failed tries within fail_timeout that take the server out for fail_timeout (nginx's default, written out: nothing measured sizes it; nginx ignores it while the group has one server)"},
		Setting{Knob: "fail_timeout", Value: nginxFailTimeout, Bounds: "the window max_fails counts in, and how long a failed server stays out (nginx's default, written out; ignored with one server)"})
	c.line(0, "}")
	c.line(0, "")
	c.line(0, "server {")
	c.line(4, "listen 8080;")
	c.line(0, "")
	c.line(4, "location / {")
	c.note(8, "The application calls http://this-server:8080"+in.Path()+"; nginx passes the request URI unchanged.")
	c.line(8, "proxy_pass "+in.Scheme()+"://"+name+";")
	c.line(8, "proxy_set_header Host "+host+";")
	if in.Scheme() == "https" {
		c.line(8, "proxy_ssl_server_name on;")
		c.line(8, "proxy_ssl_name "+host+";")
	}
	writeNginxKnobs(c, p)
	c.line(4, "}")
	c.line(0, "}")
	return Emission{Text: c.String(), Settings: c.settings, Missing: nginxMissing(p)}, nil
}

// writeNginxKnobs writes the location's timeouts and its next-upstream policy.
func writeNginxKnobs(c *configText, p configPlan) {
	connect := msText(p.connectOrTotal())
	c.knob(8, "proxy_connect_timeout", connect, p.connectWhy(), "proxy_connect_timeout "+connect+";")
	read := msText(nginxSilence(p))
	what := fmt.Sprintf("the recommended %s read timeout", units.Duration(p.read))
	if p.in.Rec.StreamAdvice.PerReadMs() > 0 {
		what = fmt.Sprintf("the stream's %s, the larger of its first-event and idle timeouts", units.Duration(p.read))
	}
	if p.read <= 0 {
		what = fmt.Sprintf("no read timeout was derived, so the %s total", units.Duration(p.total))
	}
	readWhy := fmt.Sprintf("bounds each silence of the response, between two reads, never the whole response: %s + 300 ms, since nginx moves this timer only when a read pushes it 300 ms or more (NGX_TIMER_LAZY_DELAY), so a timeout of exactly the recommended bound would cut a response dripping faster than every 300 ms", what)
	c.knob(8, "proxy_read_timeout", read, readWhy, "proxy_read_timeout "+read+";")
	c.knob(8, "proxy_send_timeout", read, "bounds each pause while sending the request body, between two writes (the same bound, the same lazy timer)", "proxy_send_timeout "+read+";")
	next := "error timeout " + retriedJoined("http_", " ")
	nextWhy := "the failures that pass the request to the next server: a connect error, a timeout, " + retriedJoined("", ", ") + "; nginx never passes a request it sent whose method is not idempotent (POST, PATCH, LOCK) without non_idempotent"
	if p.in.SendsKey() && p.attempts > 1 {
		next += " non_idempotent"
		nextWhy = "the failures that pass the request to the next server: a connect error, a timeout, " + retriedJoined("", ", ") + "; non_idempotent lets nginx pass a sent " + p.in.MethodOrGet() + " on, safe only because the client's Idempotency-Key goes with every try"
	}
	c.knob(8, "proxy_next_upstream", next, nextWhy, "proxy_next_upstream "+next+";")
	tries := strconv.Itoa(p.attempts)
	c.knob(8, "proxy_next_upstream_tries", tries,
		p.attemptsWhy()+"; nginx tries each server of the upstream at most once, at once, so with the one server here it makes one try",
		"proxy_next_upstream_tries "+tries+";")
	dl := msText(p.deadline)
	c.knob(8, "proxy_next_upstream_timeout", dl, nginxDeadlineWhy(p),
		"proxy_next_upstream_timeout "+dl+";")
}

// nginxMissing lists what nginx cannot bound.
func nginxMissing(p configPlan) []string {
	out := []string{
		p.clientDeadline("nginx has no total timeout for a try: a response that drips is bounded only by proxy_read_timeout between two reads, never as a whole"),
	}
	if p.attempts > 1 {
		out = append(out, fmt.Sprintf("nginx has no backoff or jitter between tries: it passes a failed request to the next server at once, each server at most once; with the one server here it makes one try, so the recommended %s with backoff (%s) belong in the client", attemptsText(p.attempts), p.backoffText()))
	}
	out = append(out, "nginx does not read Retry-After: a 429 or 503 reaches the client, which honours Retry-After while it fits the budget")
	return out
}

// nginxDeadlineWhy says what proxy_next_upstream_timeout bounds: when a next try may start,
// never the running one.
func nginxDeadlineWhy(p configPlan) string {
	if p.job || p.in.Budget() <= 0 {
		return "no next try starts after this (the attempts at their worst); it does not cut the running try, which the timeouts above bound"
	}
	return fmt.Sprintf("no next try starts after the caller's %s budget; it does not cut the running try, which the timeouts above bound", units.Duration(p.in.Budget()))
}
