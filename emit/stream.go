package emit

import (
	"fmt"

	"github.com/patience-dev/patience/internal/units"
)

// Streams (issue 29 item 2, docs/design.md §7 "Streams"): a streaming recommendation carries a
// first-event and an idle timeout. No target here has a knob for each: the ones with a per-read
// silence knob bound the first event's wait and every gap with the same figure, so they get
// the larger of the two (profile.StreamAdvice.PerReadMs) as their read timeout; the rest keep
// their total, and every bound left unexpressed is said in Missing.

// streamKnob is what a target can do with a stream: the knob that bounds each read (the wait
// for the first event included), or "" when it has none, and what it truly bounds.
type streamKnob struct {
	knob, note string
	// needsTotal, when set, says why the program written for the target cannot leave the
	// total unset, so a stream of unbounded length is not emitted for it.
	needsTotal string
}

// streamKnobs lists, per target, the knob that bounds each silence of a stream. A target not
// listed has none.
var streamKnobs = map[Target]streamKnob{
	Requests: {knob: "timeout=(connect, read)", note: "read bounds each socket read (with stream=True and iter_lines the events are read as they come)"},
	HTTPX:    {knob: "httpx.Timeout(read=)", note: "read bounds each socket read, the wait for the first event included"},
	AIOHTTP:  {knob: "ClientTimeout(sock_read=)", note: "sock_read bounds each read from the socket, the first event's wait included"},
	OkHttp: {knob: "readTimeout", note: "readTimeout bounds each read of the body, the wait for the first event included",
		needsTotal: "the program written bounds each attempt by callTimeout within what is left of the budget, and has no form without a total yet"},
	Nginx: {knob: "proxy_read_timeout", note: "proxy_read_timeout bounds the time between two successive reads from the upstream, the first event's wait included (send events unbuffered: proxy_buffering off, or X-Accel-Buffering: no)"},
	ALB:   {knob: "idle_timeout.timeout_seconds", note: "the ALB's idle timeout closes the connection when nothing was sent or received for that long, the first event's wait included (it is the load balancer's, for every route of the ALB)"},
	Envoy: {knob: "per_try_idle_timeout", note: "per_try_idle_timeout bounds each silence of a try, the first event's wait included; the HTTP connection manager's stream_idle_timeout (default 5 min) must stay above it"},
}

// streamKnobTargets lists the targets with a per-read knob, in --help's order.
func streamKnobTargets() []string {
	var out []string
	for _, t := range Targets() {
		if k, ok := streamKnobs[t]; ok && k.needsTotal == "" {
			out = append(out, string(t))
		}
	}
	return out
}

// streamNoKnob says why a target without a per-read knob cannot bound a stream's silences.
var streamNoKnob = map[Target]string{
	Go:           "net/http has no per-read timeout: Transport.ResponseHeaderTimeout bounds the head only, which a stream sends at once, so neither the first event nor a gap is bounded by it; a timer reset on each event read (context.WithCancel and time.AfterFunc) expresses both",
	Guzzle:       "Guzzle's read_timeout is read by the StreamHandler alone (with 'stream' => true), and ignored under curl, the default handler",
	Laravel:      "Laravel's HTTP client runs on Guzzle under curl, which ignores read_timeout",
	Axios:        "axios has no per-read timeout (its timeout is the total)",
	Fetch:        "fetch has no per-read timeout: an AbortSignal reset on each event read expresses it",
	Istio:        "a VirtualService has no idle timeout per route (Envoy's stream_idle_timeout, set in an EnvoyFilter or the mesh config, is the knob)",
	GatewayAPI:   "the Gateway API's HTTPRoute timeouts bound the whole request and the backend request, no silence",
	Resilience4j: "TimeLimiter bounds the whole call, no silence between events",
	GRPC:         "the service config's timeout is the whole call's deadline; a server stream's gaps need a deadline reset on each message in the program",
}

// streamNoTotal are the targets that write no total timeout for a try (nginx, an ALB: their
// Missing says so): an unbounded stream is not cut by them.
var streamNoTotal = map[Target]bool{Nginx: true, ALB: true}

// streamMissing is what a streaming recommendation leaves unsaid in target t ("" lines left
// out): the first-event and idle timeouts where they share a knob or have none, and the
// stream total where it is unbounded.
func streamMissing(t Target, in Input) []string {
	a := in.Rec.StreamAdvice
	if a == nil {
		return nil
	}
	first, idle := streamMs(a.FirstEventTimeoutMs), streamMs(a.IdleTimeoutMs)
	var out []string
	if k, ok := streamKnobs[t]; ok {
		line := fmt.Sprintf("a separate first-event (%s) and idle (%s) timeout: %s, so it is set to the larger, %s", first, idle, k.note, units.Millis(a.PerReadMs()))
		if a.FirstEventTimeoutMs != nil && a.IdleTimeoutMs != nil && *a.FirstEventTimeoutMs > *a.IdleTimeoutMs {
			line += fmt.Sprintf("; a stall mid-stream then ends after %s, not %s — a timer reset on each event in the caller bounds the gaps apart", units.Millis(a.PerReadMs()), idle)
		}
		out = append(out, line)
	} else if why, ok := streamNoKnob[t]; ok {
		out = append(out, fmt.Sprintf("the first-event (%s) and idle (%s) timeouts: %s", first, idle, why))
	}
	switch {
	case a.StreamTimeoutMs != nil:
	case streamNoTotal[t]:
		out = append(out, fmt.Sprintf("a bound on the stream's length: it is unbounded (%s); %s writes no total, so nothing here cuts a long healthy stream and the silence bound above ends a stalled one",
			a.StreamUnbounded, t))
	case in.Rec.TimeoutMs <= 0:
		out = append(out, fmt.Sprintf("a total timeout: the stream's length is unbounded (%s), so no total is written — the stream is bounded by its silences (%s above) and the caller's budget",
			a.StreamUnbounded, units.Millis(a.PerReadMs())))
	default:
		out = append(out, fmt.Sprintf("a bound on the stream's length: it is unbounded (%s); the %s total written is fitted to the streams seen and cuts a longer one — raise it, or leave the stream to the silence bounds above",
			a.StreamUnbounded, units.Millis(in.Rec.TimeoutMs)))
	}
	return out
}

// streamMs is a figure in milliseconds as units.Millis writes it, "none derived" for nil.
func streamMs(p *float64) string {
	if p == nil {
		return "none derived"
	}
	return units.Millis(*p)
}
