package check

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/profile"
)

// streamProfile is a streaming profile of 10,000 streams of 30 events each: the first event
// takes 5 s for 99% of them and 90 s for 1% (p99.9 = 90 s); 300,000 gaps of 50 ms but 30 of
// 4 s (1e-4 of gaps, so about 0.3% of streams hold one); completed streams last 30 s, 1% of
// them 3 min (p99.9 = 3 min), as are the good responses PT010 reads. Values in µs.
func streamProfile(t *testing.T) *profile.Profile {
	t.Helper()
	rec := func(pairs ...int64) *hdrhistogram.Histogram {
		h := profile.NewHistogram()
		for i := 0; i+1 < len(pairs); i += 2 {
			_ = h.RecordValues(pairs[i], pairs[i+1])
		}
		return h
	}
	return profileWith(t, map[string]*hdrhistogram.Histogram{
		profile.SeriesFirstEventFresh:  rec(5_000_000, 9_900, 90_000_000, 60),
		profile.SeriesFirstEventReused: rec(90_000_000, 40),
		profile.SeriesGapFresh:         rec(50_000, 299_970, 4_000_000, 30),
		profile.SeriesStreamTotal:      rec(30_000_000, 9_900, 180_000_000, 100),
		profile.SeriesStreamEvents:     rec(30, 10_000),
		profile.SeriesGood:             rec(30_000_000, 9_900, 180_000_000, 100),
	})
}

// runStreamChain writes files into a directory, runs check on its patience.yaml with every
// profile: read as prof, and returns the PT017 findings as "file:line message" and the
// rule's skip reasons.
func runStreamChain(t *testing.T, files map[string]string, prof *profile.Profile) (found []string, skipped []string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := LoadPaths([]string{filepath.Join(dir, "patience.yaml")})
	if err != nil {
		t.Fatalf("LoadPaths: %v", err)
	}
	load := func(string) (*profile.Profile, error) { return prof, nil }
	res, err := Run(t.Context(), in.Files, Options{Replay: noReplay, Configs: in.Configs, LoadProfile: load})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, f := range res.Findings {
		if f.Rule == "PT017" {
			found = append(found, filepath.Base(f.File)+":"+itoa(f.Line)+" "+f.Message+" | fix: "+f.Fix)
		}
	}
	for _, c := range res.Checked {
		if r, ok := c.Skipped["PT017"]; ok {
			skipped = append(skipped, r)
		}
	}
	return found, skipped
}

// streamDep is a check file whose dependency llm streams through via (its own policy last),
// with a client that waits long enough for every figure of streamProfile.
const streamDep = "dependencies:\n  - name: llm\n    profile: llm.json\n    via:\n      - {file: %s}\n      - {self: true}\n    policy: {timeout: 10m, read_timeout: 2m}\n"

func streamCheck(file string) string { return strings.Replace(streamDep, "%s", file, 1) }

// TestPT017NginxDefaultCutsFirstEvent is issue 29's "done when": nginx → app with a
// streaming profile whose first event p99.9 is 90 s fires at the nginx location that leaves
// proxy_read_timeout at its 60 s default, naming the figure; 120 s written clears it.
func TestPT017NginxDefaultCutsFirstEvent(t *testing.T) {
	conf := func(read string) string {
		return "upstream app { server 10.0.0.1:8080; }\nserver {\n  listen 80;\n  location /v1/ {\n    proxy_pass http://app;\n" + read + "  }\n}\n"
	}
	found, _ := runStreamChain(t, map[string]string{"patience.yaml": streamCheck("api.conf"), "api.conf": conf("")}, streamProfile(t))
	if len(found) != 1 {
		t.Fatalf("want one PT017 at the location, got %q", found)
	}
	for _, want := range []string{
		"api.conf:4 nginx :80 /v1/: proxy_read_timeout 1 min (nginx default: this location sets none) is below the stream's first event p99.9 = 1 min 30 s over 10,000 samples",
		"1% of streams wait longer for it; cutoff 0.1%): a slow first event is cut",
		"fix: raise proxy_read_timeout on nginx :80 /v1/ to 1 min 48 s or more",
	} {
		if !strings.Contains(found[0], want) {
			t.Errorf("finding %q lacks %q", found[0], want)
		}
	}
	if strings.Contains(found[0], "gap") {
		t.Errorf("60 s is far above every gap, yet the gaps are named: %q", found[0])
	}
	found, _ = runStreamChain(t, map[string]string{"patience.yaml": streamCheck("api.conf"), "api.conf": conf("    proxy_read_timeout 120s;\n")}, streamProfile(t))
	if len(found) != 0 {
		t.Errorf("proxy_read_timeout 120s above the first event's 90 s still fires: %q", found)
	}
	found, _ = runStreamChain(t, map[string]string{"patience.yaml": streamCheck("api.conf"), "api.conf": conf("    proxy_read_timeout 75s;\n")}, streamProfile(t))
	if len(found) != 1 || !strings.HasPrefix(found[0], "api.conf:6 nginx :80 /v1/: proxy_read_timeout 1 min 15 s is below") {
		t.Errorf("proxy_read_timeout 75s written: want PT017 at its line 6, got %q", found)
	}
}

// TestPT017EnvoyRouteDefault: Envoy's route timeout default, 15 s, ends a stream that lasts
// minutes and is below the connection manager's own 5 min idle timeout; timeout: 0s with the
// idle timeout left to catch a stall clears it, and an idle timeout below the gaps fires on
// the gaps.
func TestPT017EnvoyRouteDefault(t *testing.T) {
	envoy := func(route, hcm string) string {
		return "static_resources:\n  listeners:\n  - filter_chains:\n    - filters:\n      - typed_config:\n          stat_prefix: ingress\n" + hcm +
			"          route_config:\n            virtual_hosts:\n            - name: v\n              domains: ['*']\n              routes:\n              - name: llm\n                match: {prefix: /}\n                route: {cluster: c" + route + "}\n"
	}
	found, _ := runStreamChain(t, map[string]string{"patience.yaml": streamCheck("envoy.yaml"), "envoy.yaml": envoy("", "")}, streamProfile(t))
	if len(found) != 1 {
		t.Fatalf("want one PT017 at the route, got %q", found)
	}
	for _, want := range []string{
		"envoy.yaml:12 Envoy llm: route timeout 15 s (Envoy default: no `timeout` on this route) is below the stream's total p99.9 = 3 min",
		"a long stream is cut however healthy; and below this layer's own idle timeout stream_idle_timeout 5 min (Envoy default: the connection manager sets none)",
		"or disable it (timeout: 0s)",
	} {
		if !strings.Contains(found[0], want) {
			t.Errorf("finding %q lacks %q", found[0], want)
		}
	}
	// 4 min outlasts every stream measured, but not the 5 min idle timeout: the total alone.
	found, _ = runStreamChain(t, map[string]string{"patience.yaml": streamCheck("envoy.yaml"), "envoy.yaml": envoy(", timeout: 240s", "")}, streamProfile(t))
	if len(found) != 1 || !strings.HasPrefix(found[0], "envoy.yaml:14 Envoy llm: route timeout 4 min is below this layer's own idle timeout stream_idle_timeout 5 min (Envoy default: the connection manager sets none): that idle timeout can never fire") {
		t.Errorf("route timeout 240s under a 5 min idle timeout: got %q", found)
	}
	if found, _ := runStreamChain(t, map[string]string{"patience.yaml": streamCheck("envoy.yaml"), "envoy.yaml": envoy(", timeout: 0s", "")}, streamProfile(t)); len(found) != 0 {
		t.Errorf("timeout: 0s under a 5 min idle timeout still fires: %q", found)
	}
	found, _ = runStreamChain(t, map[string]string{"patience.yaml": streamCheck("envoy.yaml"), "envoy.yaml": envoy(", timeout: 0s", "          stream_idle_timeout: 3s\n")}, streamProfile(t))
	if len(found) != 1 || !strings.HasPrefix(found[0], "envoy.yaml:7 Envoy llm: stream_idle_timeout 3 s is below the stream's first event") ||
		!strings.Contains(found[0], "; and below the gap between events p99.997 = 4") || !strings.Contains(found[0], "30 events per stream on average") {
		t.Errorf("stream_idle_timeout 3s: want PT017 at line 7 naming first event and gaps, got %q", found)
	}
}

// TestPT017IstioAndGatewayAPI: a written route timeout below the stream's total fires at
// its line, in the format's words.
func TestPT017IstioAndGatewayAPI(t *testing.T) {
	vs := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: llm}\nspec:\n  hosts: [llm]\n  http:\n  - name: llm\n    timeout: 60s\n    route: [{destination: {host: llm}}]\n"
	found, _ := runStreamChain(t, map[string]string{"patience.yaml": streamCheck("vs.yaml"), "vs.yaml": vs}, streamProfile(t))
	if len(found) != 1 || !strings.HasPrefix(found[0], "vs.yaml:8 Istio llm/llm: timeout 1 min is below the stream's total p99.9 = 3 min") {
		t.Errorf("Istio timeout 60s: got %q", found)
	}
	route := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: llm}\nspec:\n  rules:\n  - backendRefs: [{name: llm, port: 80}]\n    timeouts:\n      request: 2m\n"
	found, _ = runStreamChain(t, map[string]string{"patience.yaml": streamCheck("route.yaml"), "route.yaml": route}, streamProfile(t))
	if len(found) != 1 || !strings.Contains(found[0], "route.yaml:8 ") || !strings.Contains(found[0], "timeouts.request 2 min is below the stream's total p99.9 = 3 min") {
		t.Errorf("Gateway API timeouts.request 2m: got %q", found)
	}
	// No timeouts on the rule, implementation unknown: Istio's translation sets no timeout,
	// Envoy Gateway's leaves Envoy's 15 s, stated as such at the rule.
	bare := strings.TrimSuffix(route, "    timeouts:\n      request: 2m\n")
	found, _ = runStreamChain(t, map[string]string{"patience.yaml": streamCheck("route.yaml"), "route.yaml": bare}, streamProfile(t))
	if len(found) != 1 || !strings.Contains(found[0], "route.yaml:6 ") || !strings.Contains(found[0], "timeouts.request 15 s (unset: Envoy Gateway leaves Envoy's default route timeout; if Envoy Gateway serves this route: implementation unknown) is below the stream's total") {
		t.Errorf("Gateway API rule without timeouts: got %q", found)
	}
	// ingress-nginx: proxy-read-timeout left to the controller's 60 s default, at the Ingress.
	ing := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: llm\nspec:\n  ingressClassName: nginx\n  rules:\n    - host: llm.example.com\n      http:\n        paths:\n          - {path: /, pathType: Prefix, backend: {service: {name: llm, port: {number: 80}}}}\n"
	found, _ = runStreamChain(t, map[string]string{"patience.yaml": streamCheck("ing.yaml"), "ing.yaml": ing}, streamProfile(t))
	if len(found) != 1 || !strings.Contains(found[0], "proxy-read-timeout 1 min (ingress-nginx default: this Ingress sets none) is below the stream's first event p99.9 = 1 min 30 s") {
		t.Errorf("ingress-nginx default: got %q", found)
	}
	withRead := strings.Replace(ing, "  name: llm\n", "  name: llm\n  annotations:\n    nginx.ingress.kubernetes.io/proxy-read-timeout: \"120\"\n", 1)
	if found, _ = runStreamChain(t, map[string]string{"patience.yaml": streamCheck("ing.yaml"), "ing.yaml": withRead}, streamProfile(t)); len(found) != 0 {
		t.Errorf("ingress-nginx proxy-read-timeout 120: got %q", found)
	}
}

// TestPT017ClientAndSkips: the client's own read_timeout below the gaps' per-stream cut-off
// fires at its line without via: (5 s clears it); a profile without streams, or no profile,
// skips the rule, saying so.
func TestPT017ClientAndSkips(t *testing.T) {
	dep := func(read string) string {
		return "dependencies:\n  - name: llm\n    profile: llm.json\n    policy:\n      timeout: 10m\n      read_timeout: " + read + "\n"
	}
	found, _ := runStreamChain(t, map[string]string{"patience.yaml": dep("3s")}, streamProfile(t))
	if len(found) != 1 || !strings.HasPrefix(found[0], "patience.yaml:6 policy llm: read_timeout 3 s is below the stream's first event") ||
		!strings.Contains(found[0], "about 0.3% of streams cut") || !strings.Contains(found[0], "fix: set policy.read_timeout: 1m48s") {
		t.Errorf("read_timeout 3s: got %q", found)
	}
	if found, _ := runStreamChain(t, map[string]string{"patience.yaml": dep("100s")}, streamProfile(t)); len(found) != 0 {
		t.Errorf("read_timeout 100s above every figure still fires: %q", found)
	}
	good := profile.NewHistogram()
	_ = good.RecordValues(200_000, 1000)
	plain := profileWith(t, map[string]*hdrhistogram.Histogram{profile.SeriesGood: good})
	found, skipped := runStreamChain(t, map[string]string{"patience.yaml": streamCheck("api.conf"), "api.conf": "server { location / { proxy_pass http://10.0.0.1; } }\n"}, plain)
	if len(found) != 0 || len(skipped) != 1 || !strings.Contains(skipped[0], "the profile measured no stream") {
		t.Errorf("a profile without streams: findings %q, skipped %q", found, skipped)
	}
	_, skipped = runStreamChain(t, map[string]string{"patience.yaml": "dependencies:\n  - name: llm\n    policy: {timeout: 1s}\n"}, nil)
	if len(skipped) != 1 || !strings.Contains(skipped[0], "no streaming profile") {
		t.Errorf("no profile: skipped %q", skipped)
	}
}

// TestPT017FirstEventTimeout: a policy that bounds the first event with first_event_timeout
// leaves read_timeout the gaps alone: a 6 s idle timeout above every gap passes beside a
// 2 min first-event bound, and each is judged against its own figure.
func TestPT017FirstEventTimeout(t *testing.T) {
	dep := func(first, read string) string {
		return "dependencies:\n  - name: llm\n    profile: llm.json\n    policy:\n      timeout: 10m\n      first_event_timeout: " + first + "\n      read_timeout: " + read + "\n"
	}
	if found, _ := runStreamChain(t, map[string]string{"patience.yaml": dep("2m", "6s")}, streamProfile(t)); len(found) != 0 {
		t.Errorf("first_event_timeout 2m, read_timeout 6s: every figure is covered, got %q", found)
	}
	found, _ := runStreamChain(t, map[string]string{"patience.yaml": dep("1m", "6s")}, streamProfile(t))
	if len(found) != 1 || !strings.HasPrefix(found[0], "patience.yaml:6 policy llm: first_event_timeout 1 min is below the stream's first event") || strings.Contains(found[0], "gap") {
		t.Errorf("first_event_timeout 1m: got %q", found)
	}
	found, _ = runStreamChain(t, map[string]string{"patience.yaml": dep("2m", "3s")}, streamProfile(t))
	if len(found) != 1 || !strings.HasPrefix(found[0], "patience.yaml:7 policy llm: read_timeout 3 s is below the gap between events") {
		t.Errorf("read_timeout 3s beside a first-event bound: got %q", found)
	}
}

// PT001 on a dependency: a read_timeout alone is no bound (a response that drips never ends),
// but a stream — a policy that sets first_event_timeout — with a read_timeout (its idle
// timeout) has every silence bounded and a length that is the content's: it passes, as probe's
// stream advice ("stream total unbounded") and llm-stream's fix hold it (issue 29).
func TestPT001StreamBoundedBySilences(t *testing.T) {
	cases := []struct {
		policy string
		pt001  bool
	}{
		{"read_timeout: 25s", true},
		{"first_event_timeout: 3m", true},
		{"first_event_timeout: 3m\n      read_timeout: 25s", false},
		{"timeout: 30s", false},
	}
	for _, tc := range cases {
		res := runYAML(t, "dependencies:\n  - name: llm\n    policy:\n      "+tc.policy+"\n", Options{})
		got := slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Rule == "PT001" })
		if got != tc.pt001 {
			t.Errorf("%q: PT001 %v, want %v (findings %+v)", tc.policy, got, tc.pt001, res.Findings)
		}
	}
}
