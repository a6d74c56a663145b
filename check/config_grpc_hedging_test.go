package check

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/internal/corpus"
)

// grpcChainOf reads a gRPC service config and returns the one-layer chain of its first
// methodConfig, computed.
func grpcChainOf(t *testing.T, path string, data []byte) *Chain {
	t.Helper()
	cf, reason, err := ParseConfig(path, data)
	if err != nil || cf == nil {
		t.Fatalf("ParseConfig: %v %s", err, reason)
	}
	cands, err := cf.docs[0].layers(nil)
	if err != nil || len(cands) == 0 {
		t.Fatalf("layers: %v (%d)", err, len(cands))
	}
	ch := &Chain{Dependency: cands[0].layer.Name, Layers: []ChainLayer{*cands[0].layer}}
	ch.compute()
	return ch
}

// TestGRPCHedgingAttempts holds the hedging arithmetic to gRFC A6 (grpc/proposal
// A6-client-retries.md @1fd061a, "Hedging Policy"): "the original RPC is sent immediately …
// After hedgingDelay has elapsed without a successful response, the second RPC will be issued
// … up to maxAttempts" — so a hang gets every hedge started before the deadline, overlapping;
// "If a non-fatal status code is received from a hedged request, then the next hedged request
// in line is sent immediately … If any other status code is received, all outstanding RPCs
// are canceled" — so a fatal status that comes back at once leaves one attempt, while
// hedgingDelay 0 has sent them all already.
func TestGRPCHedgingAttempts(t *testing.T) {
	cases := []struct {
		name string
		mc   string // the methodConfig's policy and timeout
		want Attempts
		unc  Attempts
	}{
		{
			name: "no deadline: a hang gets every hedge",
			mc:   `"hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "1s"}`,
			want: Attempts{Connect: 1, Reset: 1, Timeout: 3, S5xx: 1, S503: 1, S429: 1, S4xx: 1},
			unc:  Attempts{Connect: 1, Reset: 1, Timeout: 3, S5xx: 1, S503: 1, S429: 1, S4xx: 1},
		},
		{
			name: "deadline 1.5s, hedges at 0s and 1s start before it; the third would start at 2s",
			mc:   `"timeout": "1.5s", "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "1s"}`,
			want: Attempts{Connect: 1, Reset: 1, Timeout: 2, S5xx: 1, S503: 1, S429: 1, S4xx: 1},
			unc:  Attempts{Connect: 1, Reset: 1, Timeout: 3, S5xx: 1, S503: 1, S429: 1, S4xx: 1},
		},
		{
			name: "a deadline longer than every delay does not serialise the hedges",
			mc:   `"timeout": "10s", "hedgingPolicy": {"maxAttempts": 4, "hedgingDelay": "2s"}`,
			want: Attempts{Connect: 1, Reset: 1, Timeout: 4, S5xx: 1, S503: 1, S429: 1, S4xx: 1},
			unc:  Attempts{Connect: 1, Reset: 1, Timeout: 4, S5xx: 1, S503: 1, S429: 1, S4xx: 1},
		},
		{
			name: "non-fatal UNAVAILABLE sends the next hedge at once: every attempt",
			mc:   `"timeout": "10s", "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "1s", "nonFatalStatusCodes": ["UNAVAILABLE"]}`,
			want: Attempts{Connect: 3, Reset: 3, Timeout: 3, S5xx: 1, S503: 3, S429: 3, S4xx: 1},
			unc:  Attempts{Connect: 3, Reset: 3, Timeout: 3, S5xx: 1, S503: 3, S429: 3, S4xx: 1},
		},
		{
			name: "hedgingDelay 0: every hedge at once, whatever comes back",
			mc:   `"hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "0s"}`,
			want: Attempts{Connect: 3, Reset: 3, Timeout: 3, S5xx: 3, S503: 3, S429: 3, S4xx: 3},
			unc:  Attempts{Connect: 3, Reset: 3, Timeout: 3, S5xx: 3, S503: 3, S429: 3, S4xx: 3},
		},
		{
			name: "maxAttempts above 5 counts as 5 (A6: \"Any value greater than 5 will be treated as if it were 5\")",
			mc:   `"hedgingPolicy": {"maxAttempts": 9, "hedgingDelay": "100ms"}`,
			want: Attempts{Connect: 1, Reset: 1, Timeout: 5, S5xx: 1, S503: 1, S429: 1, S4xx: 1},
			unc:  Attempts{Connect: 1, Reset: 1, Timeout: 5, S5xx: 1, S503: 1, S429: 1, S4xx: 1},
		},
		{
			name: "retryPolicy for contrast: the deadline spans the attempts and DEADLINE_EXCEEDED is not retried",
			mc:   `"timeout": "10s", "retryPolicy": {"maxAttempts": 3, "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}`,
			want: Attempts{Connect: 3, Reset: 3, Timeout: 1, S5xx: 1, S503: 3, S429: 3, S4xx: 1},
			unc:  Attempts{Connect: 3, Reset: 3, Timeout: 1, S5xx: 1, S503: 3, S429: 3, S4xx: 1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := `{"methodConfig": [{"name": [{"service": "pkg.S"}], ` + c.mc + `}], "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`
			ch := grpcChainOf(t, "sc.json", []byte(data))
			if diff := cmp.Diff(c.want, ch.Attempts); diff != "" {
				t.Errorf("attempts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.unc, ch.Uncapped); diff != "" {
				t.Errorf("uncapped (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGRPCHedgingUnderProxy: a hedging client above an Envoy-based proxy that retries
// connect failures twice: each hedge is its own request to the proxy, so a refused connection
// under a 503-non-fatal hedging policy reaches the dependency 3 hedges × 3 proxy attempts.
func TestGRPCHedgingUnderProxy(t *testing.T) {
	data := `{"methodConfig": [{"name": [{"service": "pkg.S"}], "timeout": "30s", "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "1s", "nonFatalStatusCodes": ["UNAVAILABLE"]}}]}`
	g := grpcChainOf(t, "sc.json", []byte(data)).Layers[0]
	proxy := newLayer("istio", "partner", g.pos)
	proxy.answer = answerEnvoy
	proxy.retryClasses(3, []FailureClass{FailConnect})
	ch := &Chain{Dependency: "partner", Layers: []ChainLayer{g, *proxy}}
	ch.compute()
	if got := ch.Attempts.Connect; got != 9 {
		t.Errorf("connect attempts %v, want 9 (%s)", got, ch.factorsText(FailConnect))
	}
	// A hang under a proxy with no timeout: every hedge hangs at the proxy too, 3 in all.
	if got := ch.Attempts.Timeout; got != 3 {
		t.Errorf("hang attempts %v, want 3 (%s)", got, ch.factorsText(FailTimeout))
	}
}

// TestGRPCHedgingCorpus reads grpc-java's hedging example (grpc/grpc-java
// examples/src/main/resources/io/grpc/examples/hedging/hedging_service_config.json @1e04dcf):
// maxAttempts 3, hedgingDelay 1s, no nonFatalStatusCodes, no timeout. A hang gets all 3 hedges
// (A6 "Hedging Policy"; grpc-java RetriableStream schedules each hedge after
// hedgingDelayNanos whatever the earlier attempts do); any status ends the call (every status
// is fatal with an empty nonFatalStatusCodes, RetriableStream: isFatal =
// !hedgingPolicy.nonFatalStatusCodes.contains(code)).
func TestGRPCHedgingCorpus(t *testing.T) {
	path := corpus.Path(t, "grpc-java-hedging_service_config.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ch := grpcChainOf(t, path, data)
	want := Attempts{Connect: 1, Reset: 1, Timeout: 3, S5xx: 1, S503: 1, S429: 1, S4xx: 1}
	if diff := cmp.Diff(want, ch.Attempts); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	if l := ch.Layers[0]; l.Attempts.Timeout != 3 || !strings.Contains(l.retryWhy, "a hedge every") {
		t.Errorf("layer %+v, why %q", l.Attempts, l.retryWhy)
	}
}

// TestGRPCRetryingCorpus reads grpc-java's retrying example (grpc/grpc-java
// examples/src/main/resources/io/grpc/examples/retrying/retrying_service_config.json @a543174):
// maxAttempts 5 on UNAVAILABLE (A6 "Retry Policy": maxAttempts counts the original attempt),
// and no timeout, so a hang makes one attempt that never ends.
func TestGRPCRetryingCorpus(t *testing.T) {
	path := corpus.Path(t, "grpc-java-retrying_service_config.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ch := grpcChainOf(t, path, data)
	want := Attempts{Connect: 5, Reset: 5, Timeout: 1, S5xx: 1, S503: 5, S429: 5, S4xx: 1}
	if diff := cmp.Diff(want, ch.Attempts); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
}

// TestGRPCHedgingSimNote: the simulator runs a layer's attempts one after another, so a
// hedging layer handed to it (patience replay --chain) carries a note saying it overlaps.
func TestGRPCHedgingSimNote(t *testing.T) {
	data := `{"methodConfig": [{"name": [{"service": "pkg.S"}], "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "1s"}}]}`
	ch := grpcChainOf(t, "sc.json", []byte(data))
	_, notes, err := ch.Policy("sc.json#pkg.S")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "up to 3 overlapping attempts") {
		t.Errorf("notes %q do not say the hedges overlap", notes)
	}
}

// TestGRPCPolicyValidation: gRFC A6's validation rules ("maxAttempts MUST be … greater than
// 1"; a retryPolicy's initialBackoff, maxBackoff and backoffMultiplier MUST be specified and
// above 0, retryableStatusCodes non-empty), which grpc-java enforces by rejecting the service
// config (ManagedChannelServiceConfig.retryPolicy/hedgingPolicy checkArgument/checkNotNull),
// are input errors naming the file, line and field.
func TestGRPCPolicyValidation(t *testing.T) {
	for field, mc := range map[string]string{
		"hedgingPolicy.maxAttempts":        `"hedgingPolicy": {"maxAttempts": 1, "hedgingDelay": "1s"}`,
		"retryPolicy.maxAttempts":          `"retryPolicy": {"maxAttempts": 1, "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}`,
		"retryPolicy.initialBackoff":       `"retryPolicy": {"maxAttempts": 2, "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}`,
		"retryPolicy.backoffMultiplier":    `"retryPolicy": {"maxAttempts": 2, "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 0, "retryableStatusCodes": ["UNAVAILABLE"]}`,
		"retryPolicy.retryableStatusCodes": `"retryPolicy": {"maxAttempts": 2, "initialBackoff": "1s", "maxBackoff": "2s", "backoffMultiplier": 2, "retryableStatusCodes": []}`,
	} {
		data := "{\"methodConfig\": [{\"name\": [{\"service\": \"pkg.S\"}],\n " + mc + "}]}"
		_, _, err := ParseConfig("sc.json", []byte(data))
		if err == nil || !strings.Contains(err.Error(), "sc.json:2:") || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v, want an error at sc.json:2 naming %s", field, err, field)
		}
	}
}
