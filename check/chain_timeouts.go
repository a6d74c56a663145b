package check

import (
	"math"
	"time"

	"github.com/patience-dev/patience/policy"
)

// LayerTimeouts are the timeouts check read for one layer of a chain, in milliseconds, each
// null when the layer has no such bound (issue 27 item 6: chains[].layers[].timeouts, so an
// emitted config reads back with the numbers it was written with). They come from the layer's
// policy model (ChainLayer.pol) as the chain arithmetic uses it, defaults included (Envoy's
// 15 s route timeout, nginx's 60 s proxy_read_timeout): what the format does, not only what
// the file wrote — ChainLayer.Defaults says which were defaults.
type LayerTimeouts struct {
	// ConnectMs bounds connection set-up (Envoy cluster connect_timeout, nginx
	// proxy_connect_timeout, an Istio DestinationRule's connectionPool.tcp.connectTimeout).
	ConnectMs *float64 `json:"connect_ms"`
	// ReadMs bounds each silence of one try's response, from the request's write to the
	// last byte: a retry starts a fresh one (nginx proxy_read_timeout, Envoy
	// per_try_idle_timeout, an ALB's idle timeout: an ALB makes one try, so its idle timeout
	// ends a silent target as a read timeout would, with a 504). Never the whole response.
	ReadMs *float64 `json:"read_ms"`
	// IdleMs bounds each silence of the whole request at this layer, in either direction and
	// across its tries (issue 29: a stream's first event and every gap): Envoy's
	// stream_idle_timeout or the route's idle_timeout (5 min by default), an ALB's
	// idle_timeout.timeout_seconds (60 s by default). nginx has none: proxy_read_timeout is
	// per try, so it is ReadMs alone. Added beside ReadMs, which keeps its meaning.
	IdleMs *float64 `json:"idle_ms"`
	// TotalMs bounds one try (Envoy per_try_timeout, Istio perTryTimeout, Gateway API
	// backendRequest, a resilience4j TimeLimiter); where the format has no per-try timeout
	// and one timeout spans every try (gRPC's methodConfig timeout, a route timeout without
	// a per-try one), it is that timeout, as the chain arithmetic takes it.
	TotalMs *float64 `json:"total_ms"`
	// DeadlineMs bounds the whole request at this layer, retries and backoff included (Envoy
	// and Istio route timeout, Gateway API timeouts.request, gRPC's deadline, nginx
	// proxy_next_upstream_timeout).
	DeadlineMs *float64 `json:"deadline_ms"`
}

// layerTimeouts reads a layer's timeouts from its policy model (nil: none) and its idle
// timeout (0: none), which the policy model does not hold.
func layerTimeouts(p *policy.Policy, idle time.Duration) LayerTimeouts {
	if p == nil {
		return LayerTimeouts{IdleMs: msOrNull(idle)}
	}
	return LayerTimeouts{
		ConnectMs:  msOrNull(p.ConnectTimeout),
		ReadMs:     msOrNull(p.ReadTimeout),
		TotalMs:    msOrNull(p.Timeout),
		DeadlineMs: msOrNull(p.Deadline),
		IdleMs:     msOrNull(idle),
	}
}

// msOrNull is d in milliseconds (three decimals), nil for none (0).
func msOrNull(d time.Duration) *float64 {
	if d <= 0 {
		return nil
	}
	v := math.Round(float64(d)/float64(time.Microsecond)) / 1000
	return &v
}
