package check

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/patience-dev/patience/internal/corpus"
)

// TestCorpusConfigsB runs `check` on each real gRPC, Gateway API and AWS file of the shared
// corpus, as the command does (no flag, empty environment), and holds the result to the
// upstream truth each reading cites (config_grpc_hedging_test.go, gateway_impl_test.go,
// config_aws_profiles_test.go): the chains' attempts per class and whether PT001 fires.
func TestCorpusConfigsB(t *testing.T) {
	type chainWant struct {
		dep      string
		attempts string // "connect/reset/timeout/5xx/503/429/4xx"
	}
	cases := []struct {
		file   string
		chains int
		want   []chainWant
		pt001  int
		impl   string
	}{
		// gRFC A6: the hang gets all 3 hedges (was 1).
		{"grpc-java-hedging_service_config.json", 1, []chainWant{{"helloworld.Greeter/SayHello", "1/1/3/1/1/1/1"}}, 1, ""},
		{"grpc-java-retrying_service_config.json", 1, []chainWant{{"helloworld.Greeter/SayHello", "5/5/1/1/5/5/1"}}, 1, ""},
		// Implementation unknown: the more of Istio and Envoy Gateway; Istio's missing timeout.
		{"gwapi-httproute-retry-connection-error.yaml", 1, []chainWant{{"retries-connection-error", "4/1/1/1/4/1/1"}}, 1, "unknown"},
		{"gwapi-httproute-retry.yaml", 2, []chainWant{{"retries/rules[0]", "4/1/1/4/1/1/1"}, {"retries/rules[1]", "3/1/1/3/3/1/1"}}, 2, "unknown"},
		{"gwapi-httproute-retry-with-timeouts.yaml", 2, []chainWant{{"retries-with-timeouts/rules[0]", "3/1/1/1/3/1/1"}}, 0, "unknown"},
		// Istio's default retries apply to a rule without retry (connect 3, was 1).
		{"gwapi-timeout-example.yaml", 1, []chainWant{{"timeout-example", "3/1/1/1/1/1/1"}}, 0, "unknown"},
		// The GatewayClass says Istio: 19 of 21 rules have no timeouts.request (PT001, was none).
		{"istio-gwapi-http.yaml", 21, []chainWant{{"http-retry-request/rules[0]", "4/1/1/1/4/4/1"}, {"http-retry-request/rules[1]", "3/1/1/1/1/1/1"}, {"http", "3/1/1/1/1/1/1"}}, 19, "istio"},
		// aws-sdk-go-v2's own test config: read (was an input error at line 271); a hang is one
		// attempt: the SDK sets no request timeout, so the first try never ends.
		{"aws-sdk-go-v2-shared_config", 73, []chainWant{{"retrywithstandard", "5/5/1/5/5/5/1"}, {"retrywithadaptive", "4/4/1/4/4/4/1"}, {"retrywithinvalidmode", "1/1/1/1/1/1/1"}}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			res := runPaths(t, corpus.Path(t, c.file))
			if len(res.Chains) != c.chains {
				t.Errorf("%d chains, want %d", len(res.Chains), c.chains)
			}
			for _, w := range c.want {
				i := slices.IndexFunc(res.Chains, func(ch Chain) bool { return ch.Dependency == w.dep })
				if i < 0 {
					t.Errorf("no chain %s", w.dep)
					continue
				}
				a := res.Chains[i].Attempts
				if got := fmt.Sprintf("%v/%v/%v/%v/%v/%v/%v", a.Connect, a.Reset, a.Timeout, a.S5xx, a.S503, a.S429, a.S4xx); got != w.attempts {
					t.Errorf("%s: attempts %s, want %s", w.dep, got, w.attempts)
				}
				if c.impl != "" && res.Chains[i].Layers[0].Implementation != c.impl {
					t.Errorf("%s: implementation %q, want %q", w.dep, res.Chains[i].Layers[0].Implementation, c.impl)
				}
			}
			n := 0
			for _, f := range res.Findings {
				if f.Rule == "PT001" {
					n++
				}
			}
			if n != c.pt001 {
				var all []string
				for _, f := range res.Findings {
					all = append(all, f.Rule+" "+f.Message)
				}
				t.Errorf("%d PT001, want %d:\n%s", n, c.pt001, strings.Join(all, "\n"))
			}
		})
	}
}
