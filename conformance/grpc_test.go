package conformance

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/patience-dev/patience/policy"
)

// gRFC A6's example retry policy, which the grpc preset models, for the health service the
// loopback server implements.
const grpcServiceConfig = `{"methodConfig": [{"name": [{"service": "grpc.health.v1.Health"}],
  "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s",
  "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`

// grpcScript answers Health.Check with a scripted sequence: UNAVAILABLE for 503 (the preset's
// stand-in), its Retry-After as the grpc-retry-pushback-ms trailer, OK for 200.
type grpcScript struct {
	healthpb.UnimplementedHealthServer
	mu       sync.Mutex
	script   []reply
	arrivals []time.Time
}

func (g *grpcScript) Check(ctx context.Context, _ *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	g.mu.Lock()
	i := len(g.arrivals)
	g.arrivals = append(g.arrivals, time.Now())
	r := g.script[min(i, len(g.script)-1)]
	g.mu.Unlock()
	if r.status < 400 {
		return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_SERVING}, nil
	}
	if r.retryAfter != "" {
		s, _ := strconv.Atoi(r.retryAfter)
		_ = grpc.SetTrailer(ctx, metadata.Pairs("grpc-retry-pushback-ms", strconv.Itoa(s*1000)))
	}
	return nil, status.Error(codes.Unavailable, "scripted")
}

// TestGRPCLoopback runs grpc-go v1.85.0's retry (the service config above) against a loopback
// gRPC server and compares attempts and waits with the grpc preset: ±20% jitter around
// min(0.1s·2^(n−1), 1s), and a pushback that replaces the wait and restarts the exponent.
func TestGRPCLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	g := &grpcScript{}
	healthpb.RegisterHealthServer(srv, g)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultServiceConfig(grpcServiceConfig))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	client := healthpb.NewHealthClient(conn)
	// Warm the connection so the first attempt's time is not the dial.
	g.script = []reply{{status: 200}}
	_, _ = client.Check(context.Background(), &healthpb.HealthCheckRequest{})

	p := preset(t, "grpc")
	cases := []struct {
		check  string
		script []reply
	}{
		{"loopback: always UNAVAILABLE: attempts, ±20% waits", []reply{{status: 503}}},
		{"loopback: UNAVAILABLE, OK", []reply{{status: 503}, {status: 200}}},
		{"loopback: pushback 0 replaces and resets backoff", []reply{{status: 503}, {status: 503, retryAfter: "0"}, {status: 503}}},
		{"loopback: pushback 1s replaces, uncapped", []reply{{status: 503, retryAfter: "1"}, {status: 200}}},
	}
	for range 3 { // three runs of each: the jitter differs between them
		for _, tc := range cases {
			g.mu.Lock()
			g.script, g.arrivals = tc.script, nil
			g.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _ = client.Check(ctx, &healthpb.HealthCheckRequest{})
			cancel()
			g.mu.Lock()
			var gaps []time.Duration
			for i := 1; i < len(g.arrivals); i++ {
				gaps = append(gaps, g.arrivals[i].Sub(g.arrivals[i-1]))
			}
			attempts := len(g.arrivals)
			g.mu.Unlock()
			sc := presetSchedule(p, policy.Request{Method: "POST"}, time.Now(), tc.script...)
			ok, why := attempts == sc.attempts, ""
			if ok {
				ok, why = gapsWithin(gaps, sc)
			} else {
				why = "attempts " + itoa(attempts) + ", preset " + itoa(sc.attempts)
			}
			record(t, "grpc", tc.check, ok, "%s", why)
		}
	}
}
