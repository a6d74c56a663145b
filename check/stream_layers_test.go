package check

import (
	"strings"
	"testing"
)

// TestPT017OtherLayers: the layers with stream timeouts besides nginx, Envoy, Istio, the
// Gateway API and the ALB (issue 29 item 4) — a gRPC methodConfig timeout, a Dapr timeout
// policy, a resilience4j TimeLimiter, Linkerd's annotations and a ServiceProfile route's
// timeout — each judged against streamProfile (first event p99.9 90 s, gaps to 4 s, streams to
// 3 min) at the line that set it; raised above the profile's figures, each clears.
func TestPT017OtherLayers(t *testing.T) {
	grpc := func(timeout string) string {
		return "{\n  \"methodConfig\": [{\n    \"name\": [{\"service\": \"llm.Chat\"}],\n    \"timeout\": \"" + timeout + "\"\n  }]\n}\n"
	}
	dapr := func(timeout string) string {
		return "apiVersion: dapr.io/v1alpha1\nkind: Resiliency\nmetadata: {name: r}\nspec:\n  policies:\n    timeouts:\n      stream: " + timeout + "\n  targets:\n    apps:\n      llm: {timeout: stream}\n"
	}
	r4j := func(limiter string) string {
		return "resilience4j:\n  timelimiter:\n    instances:\n      llm:\n" + limiter
	}
	linkerd := func(anns string) string {
		return "apiVersion: v1\nkind: Service\nmetadata:\n  name: llm\n  annotations:\n" + anns + "spec:\n  ports: [{port: 80}]\n"
	}
	profile := func(timeout string) string {
		return "apiVersion: linkerd.io/v1alpha2\nkind: ServiceProfile\nmetadata: {name: llm}\nspec:\n  routes:\n  - name: chat\n    condition: {method: POST, pathRegex: /v1/chat}\n" + timeout
	}
	cases := []struct {
		name, file, body string
		want             string // "" = no PT017; else the finding's start
	}{
		{"grpc timeout below the streams' total", "sc.json", grpc("60s"), "sc.json:4 gRPC llm.Chat: methodConfig timeout 1 min is below the stream's total p99.9 = 3 min"},
		{"grpc timeout above", "sc.json", grpc("600s"), ""},
		{"dapr timeout below the streams' total", "res.yaml", dapr("60s"), "res.yaml:7 Dapr llm: timeout policy stream 1 min is below the stream's total p99.9 = 3 min"},
		{"dapr timeout above", "res.yaml", dapr("10m"), ""},
		{"resilience4j timelimiter below the first event", "application.yml", r4j("        timeoutDuration: 60s\n"), "application.yml:5 resilience4j llm: timelimiter timeoutDuration 1 min is below the stream's first event p99.9 = 1 min 30 s"},
		{"resilience4j default 1 s", "application.yml", r4j("        cancelRunningFuture: true\n"), "application.yml:4 resilience4j llm: timelimiter timeoutDuration 1 s (resilience4j default: the timelimiter instance sets none) is below the stream's first event"},
		{"resilience4j timelimiter above first event and gaps", "application.yml", r4j("        timeoutDuration: 2m\n"), ""},
		{"linkerd request below the streams' total", "svc.yaml", linkerd("    timeout.linkerd.io/request: 60s\n"), "svc.yaml:6 Linkerd llm: timeout.linkerd.io/request 1 min is below the stream's total p99.9 = 3 min"},
		{"linkerd idle below the gaps", "svc.yaml", linkerd("    timeout.linkerd.io/request: 10m\n    timeout.linkerd.io/idle: 3s\n"), "svc.yaml:7 Linkerd llm: timeout.linkerd.io/idle 3 s is below the stream's first event"},
		{"linkerd response below the streams' total", "svc.yaml", linkerd("    timeout.linkerd.io/request: 10m\n    timeout.linkerd.io/response: 2m\n"), "svc.yaml:7 Linkerd llm: timeout.linkerd.io/response 2 min is below the stream's total p99.9 = 3 min"},
		{"linkerd above every figure", "svc.yaml", linkerd("    timeout.linkerd.io/request: 10m\n    timeout.linkerd.io/response: 10m\n    timeout.linkerd.io/idle: 2m\n"), ""},
		{"ServiceProfile timeout below the streams' total", "sp.yaml", profile("    timeout: 60s\n"), "sp.yaml:8 Linkerd llm chat: timeout 1 min is below the stream's total p99.9 = 3 min"},
		{"ServiceProfile without a timeout: its doubted default is not held", "sp.yaml", profile(""), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			found, _ := runStreamChain(t, map[string]string{"patience.yaml": streamCheck(c.file), c.file: c.body}, streamProfile(t))
			if c.want == "" {
				if len(found) != 0 {
					t.Errorf("want no PT017, got %q", found)
				}
				return
			}
			if len(found) != 1 || !strings.HasPrefix(found[0], c.want) {
				t.Errorf("want one PT017 starting %q, got %q", c.want, found)
			}
		})
	}
}
