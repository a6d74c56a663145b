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
	// ReadMs bounds each silence of a try (nginx proxy_read_timeout, Envoy
	// per_try_idle_timeout): never the whole response.
	ReadMs *float64 `json:"read_ms"`
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

// layerTimeouts reads a layer's timeouts from its policy model (nil: none).
func layerTimeouts(p *policy.Policy) LayerTimeouts {
	if p == nil {
		return LayerTimeouts{}
	}
	return LayerTimeouts{
		ConnectMs:  msOrNull(p.ConnectTimeout),
		ReadMs:     msOrNull(p.ReadTimeout),
		TotalMs:    msOrNull(p.Timeout),
		DeadlineMs: msOrNull(p.Deadline),
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
