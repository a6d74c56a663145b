package check

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/patience-dev/patience/source"
)

func i64(v int64) *int64 { return &v }
func yes(v bool) *bool   { return &v }

// runCalls runs check on calls built in a test, as the other languages' readers fill them.
func runCalls(t *testing.T, calls ...Call) *Result {
	t.Helper()
	byFile := map[string]*SourceFile{}
	var sources []*SourceFile
	for _, c := range calls {
		sf := byFile[c.File]
		if sf == nil {
			sf = &SourceFile{Path: c.File, Language: c.Language}
			byFile[c.File] = sf
			sources = append(sources, sf)
		}
		sf.Calls = append(sf.Calls, c)
	}
	res, err := Run(context.Background(), nil, Options{Sources: sources, Configs: NewConfigs()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// findingsAt renders findings as "PT009 job.php:10", each place once (PT009 reports each
// group of failure classes whose product reads differently).
func findingsAt(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		if s := f.Rule + " " + f.File + ":" + itoa(f.Line); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// bounded is a call with a 10 s total bound (no PT001), sent from file at line 40.
func bounded(lang, lib, file, method string) Call {
	return Call{File: file, Line: 40, Col: 5, Language: lang, Library: lib, Method: method,
		Timeouts: source.Timeouts{TotalMS: i64(10000)},
		Origin:   source.Origins{Connect: source.OriginDefault, Read: source.OriginDefault, Total: source.OriginExplicit}}
}

// The rules on a call's retry layers, each at the layer's line: every case fails if its
// rule is broken (want lists every finding, so a rule that stops firing or fires elsewhere
// fails it).
func TestCallLayerRules(t *testing.T) {
	job := func(n int, on []string) source.Retry {
		return source.Retry{Layer: "laravel-job", MaxAttempts: n, On: on, File: "Job.php", Line: 10}
	}
	// Laravel's Http::retry(3, 100) retries any failed response (4xx included) after a fixed
	// 100 ms.
	httpRetry := source.Retry{Layer: "laravel-http", MaxAttempts: 3, On: []string{"connect", "timeout", "5xx", "4xx"}, File: "Job.php", Line: 20,
		Backoff: &source.Backoff{ScheduleMS: []int64{100}}}
	cases := []struct {
		name string
		call func() Call
		want []string
	}{
		{"seeds: job 6 × Http::retry 3 = 18 attempts, and retry() retries a 400", func() Call {
			c := bounded("php", "laravel-http", "Job.php", "GET")
			c.Layers = []source.Retry{job(6, nil), httpRetry}
			return c
		}, []string{"PT006 Job.php:20", "PT007 Job.php:20", "PT009 Job.php:20"}},
		{"job 3 × Http::retry 3 = 9 stays within max_amplification 10", func() Call {
			c := bounded("php", "laravel-http", "Job.php", "GET")
			c.Layers = []source.Retry{job(3, nil), httpRetry}
			return c
		}, []string{"PT006 Job.php:20", "PT007 Job.php:20"}},
		{"PT005: a POST without a key retried by the outer layer only", func() Call {
			c := bounded("php", "laravel-http", "Job.php", "POST")
			c.IdempotencyKey = yes(false)
			c.Layers = []source.Retry{job(2, []string{"timeout", "5xx"}), {Layer: "laravel-http", MaxAttempts: 1, File: "Job.php", Line: 20}}
			return c
		}, []string{"PT005 Job.php:10"}},
		{"PT005 silenced by an Idempotency-Key", func() Call {
			c := bounded("php", "laravel-http", "Job.php", "POST")
			c.IdempotencyKey = yes(true)
			c.Layers = []source.Retry{job(2, []string{"timeout", "5xx"}), {Layer: "laravel-http", MaxAttempts: 1, File: "Job.php", Line: 20}}
			return c
		}, nil},
		{"PT005 not judged when the key is not visible", func() Call {
			c := bounded("php", "laravel-http", "Job.php", "POST")
			c.Layers = []source.Retry{job(2, []string{"timeout", "5xx"})}
			return c
		}, nil},
		{"unbounded: tenacity's bare @retry around a urllib3 Retry", func() Call {
			c := bounded("python", "requests", "svc.py", "GET")
			c.Layers = []source.Retry{
				{Layer: "tenacity", Unresolved: "forever: @retry with no stop=", File: "svc.py", Line: 7},
				{Layer: "urllib3", MaxAttempts: 4, On: []string{"connect", "503"}, File: "svc.py", Line: 3},
			}
			return c
		}, []string{"PT009 svc.py:7"}},
		{"unbounded: a job's $tries = 0 around Http::retry: the job's line is the one to change", func() Call {
			c := bounded("php", "laravel-http", "Job.php", "GET")
			c.Layers = []source.Retry{{Layer: "laravel-job", Unresolved: "$tries = 0: the job is retried without limit", File: "Job.php", Line: 10},
				{Layer: "laravel-http", MaxAttempts: 2, On: []string{"5xx"}, File: "Job.php", Line: 20}}
			return c
		}, []string{"PT009 Job.php:10"}},
		{"a layer that says forever but has a deadline is bounded (counted as 1)", func() Call {
			c := bounded("python", "requests", "svc.py", "GET")
			c.Layers = []source.Retry{{Layer: "backoff", Unresolved: "backoff.on_exception with no max_tries retries until max_time, or forever", DeadlineMS: i64(60000), File: "svc.py", Line: 7}}
			return c
		}, nil},
		{"an unresolved count is no finding (counted as 1)", func() Call {
			c := bounded("python", "requests", "svc.py", "GET")
			c.Layers = []source.Retry{{Layer: "tenacity", Unresolved: "stop_after_attempt(n): n is a parameter", File: "svc.py", Line: 7}}
			return c
		}, nil},
		{"PT006: exponential backoff the code says has no jitter", func() Call {
			c := bounded("python", "requests", "svc.py", "GET")
			c.Retry = &source.Retry{Layer: "urllib3", MaxAttempts: 4, On: []string{"connect", "5xx"}, File: "svc.py", Line: 3,
				Backoff: &source.Backoff{InitialMS: i64(500), Jitter: "none"}}
			return c
		}, []string{"PT006 svc.py:3"}},
		{"jittered backoff passes", func() Call {
			c := bounded("python", "requests", "svc.py", "GET")
			c.Retry = &source.Retry{Layer: "urllib3", MaxAttempts: 4, On: []string{"connect", "5xx"}, File: "svc.py", Line: 3,
				Backoff: &source.Backoff{InitialMS: i64(500), Jitter: "full"}}
			return c
		}, nil},
		{"PT013: retries that wait nothing", func() Call {
			c := bounded("javascript", "axios", "api.js", "GET")
			c.Retry = &source.Retry{Layer: "axios-retry", MaxAttempts: 4, On: []string{"connect", "5xx"}, File: "api.js", Line: 2,
				Backoff: &source.Backoff{ScheduleMS: []int64{0}, Jitter: "none"}}
			return c
		}, []string{"PT013 api.js:2"}},
		{"a backoff the code does not say is not judged", func() Call {
			c := bounded("javascript", "axios", "api.js", "GET")
			c.Retry = &source.Retry{Layer: "axios-retry", MaxAttempts: 4, On: []string{"connect", "5xx"}, File: "api.js", Line: 2}
			return c
		}, nil},
		{"a layer without a line reports at the call", func() Call {
			c := bounded("go", "go-retryablehttp", "pay.go", "GET")
			c.Retry = &source.Retry{Layer: "go-retryablehttp", MaxAttempts: 5, On: []string{"timeout", "400"}}
			return c
		}, []string{"PT007 pay.go:40"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := runCalls(t, tc.call())
			if got := findingsAt(res.Findings); !slices.Equal(got, tc.want) {
				t.Errorf("findings = %q, want %q\n%+v", got, tc.want, res.Findings)
			}
		})
	}
}

// The seeds' figure: the chain of the job and its Http::retry makes 18 attempts on a 5xx,
// listed in chains[] with each code layer at its line.
func TestCallChainSeeds(t *testing.T) {
	c := bounded("php", "laravel-http", "Job.php", "GET")
	c.Layers = []source.Retry{
		{Layer: "laravel-job", MaxAttempts: 6, File: "Job.php", Line: 10},
		{Layer: "laravel-http", MaxAttempts: 3, On: []string{"connect", "timeout", "5xx", "4xx"}, File: "Job.php", Line: 20},
	}
	res := runCalls(t, c)
	if len(res.Chains) != 1 {
		t.Fatalf("chains = %+v, want the call's", res.Chains)
	}
	ch := res.Chains[0]
	if ch.Attempts.S5xx != 18 || ch.Attempts.S4xx != 18 || ch.Attempts.Reset != 6 || len(ch.Layers) != 2 || ch.Layers[0].Kind != "code" || ch.Layers[1].Line != 20 {
		t.Errorf("chain = %+v, want 18 attempts on a 5xx or a 400 (the job retries the 500 the app answers), 6 on a reset", ch)
	}
	if n, unb, known := CallAttempts(&c); n != 18 || unb || !known {
		t.Errorf("CallAttempts = %d %v %v, want 18", n, unb, known)
	}
	i := slices.IndexFunc(res.Findings, func(f Finding) bool { return f.Rule == "PT009" && strings.HasPrefix(f.Message, "a 500 ") })
	if i < 0 || !strings.Contains(res.Findings[i].Message, "18 attempts (laravel-job (Job.php:10) 6") {
		t.Fatalf("findings = %+v, want PT009 on a 500 with 18 attempts", res.Findings)
	}
	// The seeds keep the retries in the queue: PT009 points at Http::retry, the retry inside.
	if f := res.Findings[i]; f.Line != 20 || !strings.Contains(f.Fix, "for a job, its tries (laravel-job: 6 attempts): remove the retries of laravel-http (Job.php:20)") {
		t.Errorf("PT009 at line %d, fix %q; want line 20 and the job's tries kept", f.Line, f.Fix)
	}
}

// PT001 speaks the call's language and library: no goroutine for Python, PHP or JS; the
// library's own fix where the reader lists it; Go's messages as before.
func TestCallMissingTimeoutWords(t *testing.T) {
	none := source.Origins{Connect: source.OriginNone, Read: source.OriginNone, Total: source.OriginNone}
	cases := []struct {
		call       Call
		want, not  string
		wantFixSub string
	}{
		// A library its reader does not list: the rule's own fix.
		{Call{File: "a.py", Line: 3, Language: "python", Library: "a-client-of-its-own", Origin: none}, "the calling worker (its thread or process)", "goroutine", "policy.timeout"},
		{Call{File: "a.php", Line: 3, Language: "php", Library: "guzzle", Origin: none}, "php-fpm child", "goroutine", ""},
		{Call{File: "a.js", Line: 3, Language: "javascript", Library: "axios", Origin: none}, "the awaiting request", "goroutine", ""},
		{Call{File: "c.go", Line: 3, Language: "go", Library: "net/http", ReadHeadOnly: true, Origin: source.Origins{Connect: source.OriginDefault, Read: source.OriginExplicit, Total: source.OriginNone},
			Timeouts: source.Timeouts{ReadMS: i64(5000)}}, "no total timeout: the 5 s read bound (ResponseHeaderTimeout) ends at the response head, so a body that stops sending holds the calling goroutine forever", "", ""},
		{Call{File: "a.go", Line: 3, Language: "go", Library: "net/http", Origin: source.Origins{Connect: source.OriginDefault, Read: source.OriginNone, Total: source.OriginNone}},
			"http.DefaultClient, or an http.Client left at its defaults) has no Timeout and the request no deadline, so one hung call holds the calling goroutine", "", "http.Client{Timeout"},
		{Call{File: "b.go", Line: 3, Language: "go", Library: "go-retryablehttp", Retry: &source.Retry{Layer: "go-retryablehttp", MaxAttempts: 1}, Origin: none},
			"the go-retryablehttp client's HTTPClient", "", "HTTPClient.Timeout"},
	}
	for _, tc := range cases {
		res := runCalls(t, tc.call)
		if len(res.Findings) != 1 || res.Findings[0].Rule != "PT001" {
			t.Errorf("%s: findings = %+v, want one PT001", tc.call.File, res.Findings)
			continue
		}
		f := res.Findings[0]
		if !strings.Contains(f.Message, tc.want) || (tc.not != "" && strings.Contains(f.Message, tc.not)) {
			t.Errorf("%s: message %q, want %q and not %q", tc.call.File, f.Message, tc.want, tc.not)
		}
		if !strings.Contains(f.Fix, tc.wantFixSub) {
			t.Errorf("%s: fix %q, want %q", tc.call.File, f.Fix, tc.wantFixSub)
		}
	}
}

// goHost calls api.example.com through go-retryablehttp: 3 attempts, a 30 s total.
const goHost = `package api

import (
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

func Fetch() {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 2
	rc.HTTPClient.Timeout = 30 * time.Second
	_, _ = rc.Get("https://api.example.com/v1")
}
`

// A call's literal host joins it to every format that routes a host — an Ingress rule's
// host, an HTTPRoute's hostnames, an Envoy virtual host's domains, an Istio VirtualService's
// hosts — proxies before the mesh; a config for another host stays a chain of its own.
func TestCallHostJoin(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"api/api.go":       goHost,
		"k8s/ingress.yaml": "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: edge\n  annotations: {nginx.ingress.kubernetes.io/proxy-next-upstream-tries: \"2\"}\nspec:\n  ingressClassName: nginx\n  rules:\n    - host: api.example.com\n",
		"k8s/route.yaml":   "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec:\n  hostnames: [api.example.com]\n  parentRefs: [{name: gw}]\n  rules: [{timeouts: {request: 5s}}]\n",
		"k8s/vs.yaml":      "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: vs}\nspec:\n  hosts: [API.example.com]\n  http: [{route: [{destination: {host: api.example.com}}], timeout: 10s}]\n",
		"k8s/other.yaml":   "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: other}\nspec:\n  hosts: [other.example.com]\n  http: [{route: [{destination: {host: other.example.com}}], timeout: 10s}]\n",
		"envoy.yaml":       "virtual_hosts: [{name: v, domains: [api.example.com], routes: [{name: er, match: {prefix: /}, route: {cluster: c, timeout: 3s}}]}]\n",
	})
	_, res := runSources(t, dir)
	var kinds []string
	var other bool
	for _, ch := range res.Chains {
		if ch.Dependency == "api.example.com" {
			for _, l := range ch.Layers {
				kinds = append(kinds, l.Kind)
			}
		}
		other = other || ch.Dependency == "other"
	}
	sorted := slices.Clone(kinds[1 : len(kinds)-1])
	sort.Strings(sorted)
	if len(kinds) != 5 || kinds[0] != "code" || kinds[4] != "istio" || strings.Join(sorted, ",") != "envoy,gateway-api,ingress-nginx" {
		t.Errorf("chain api.example.com layers = %q, want code, the three proxies, then istio", kinds)
	}
	if !other || len(res.Chains) != 2 {
		t.Errorf("chains = %d (other's own: %v), want the call's and other's", len(res.Chains), other)
	}

	// A VirtualService a dependency's via: takes is in that chain, not joined to the call too.
	write(t, dir, map[string]string{"patience.yaml": "dependencies:\n  - name: api\n    via: [{file: k8s/vs.yaml}]\n    policy: {timeout: 2s}\n"})
	_, res = runSources(t, dir)
	for _, ch := range res.Chains {
		for _, l := range ch.Layers {
			if l.Kind == "istio" && l.Name == "vs" && ch.Dependency != "api" {
				t.Errorf("the VirtualService api's via: took is also in chain %s", ch.Dependency)
			}
		}
	}
}

// A dependency whose via: names the call takes its layers and, without a policy of its own,
// its timeouts: PT003 judges the call's 30 s total against the 5 s budget at the call's line,
// and the dependency's own empty policy is no PT001. With line: left out every call of the
// file is joined. A file not read and a line with no call are input errors at the entry.
func TestViaSource(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"api/api.go":    goHost,
		"patience.yaml": "dependencies:\n  - name: api\n    caller: {kind: interactive, budget: 5s}\n    via: [{source: api/api.go}]\n",
	})
	_, res := runSources(t, filepath.Join(dir, "patience.yaml"), filepath.Join(dir, "api"))
	got := findingsAt(res.Findings)
	call := filepath.Join(dir, "api", "api.go")
	want := []string{"PT003 " + call + ":13", "PT004 " + call + ":13", "PT006 " + call + ":13"}
	if !slices.Equal(got, want) {
		t.Errorf("findings = %q, want %q\n%+v", got, want, res.Findings)
	}
	if len(res.Calls) != 1 || res.Calls[0].Dependency != "api" {
		t.Errorf("calls = %+v, want the call joined to api", res.Calls)
	}
	if len(res.Chains) != 1 || res.Chains[0].Dependency != "api" || res.Chains[0].Layers[0].Kind != "code" || len(res.Chains[0].Layers) != 1 {
		t.Errorf("chains = %+v, want api's: its code layer alone (no policy layer of its own)", res.Chains)
	}
	for _, tc := range []struct{ via, want string }{
		{"{source: api/api.go, line: 3}", "patience.yaml:4:38: dependencies[0].via[0].line: no outbound call at " + call + ":3 (its calls are on lines 13)"},
		{"{source: api/none.go}", "patience.yaml:4:20: dependencies[0].via[0].source: " + filepath.Join(dir, "api", "none.go") + " was not read in this run"},
		{"{source: api/api.go, host: x}", "dependencies[0].via[0].host: a via: entry names either a config layer (file:) or a call site (source:), not both"},
		{"{file: k8s/vs.yaml, line: 3}", "dependencies[0].via[0].line: line: names a call in a source file"},
	} {
		write(t, dir, map[string]string{"patience.yaml": "dependencies:\n  - name: api\n    caller: {kind: interactive, budget: 5s}\n    via: [" + tc.via + "]\n"})
		in, err := LoadPaths([]string{filepath.Join(dir, "patience.yaml"), filepath.Join(dir, "api")})
		if err == nil {
			_, err = Run(context.Background(), in.Files, Options{Configs: in.Configs, Sources: in.Sources})
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("via %s: err = %v, want %q", tc.via, err, tc.want)
		}
	}
}

// Two calls through one session share its retry layer: its finding is reported once.
func TestCallSharedLayerOnce(t *testing.T) {
	layer := source.Retry{Layer: "urllib3", MaxAttempts: 4, On: []string{"connect", "5xx"}, File: "http.py", Line: 5,
		Backoff: &source.Backoff{InitialMS: i64(1000), Jitter: "none"}}
	a, b := bounded("python", "requests", "a.py", "GET"), bounded("python", "requests", "b.py", "GET")
	a.Retry, b.Retry = &layer, &layer
	res := runCalls(t, a, b)
	if len(res.Findings) != 1 || res.Findings[0].Rule != "PT006" || res.Findings[0].File != "http.py" {
		t.Errorf("findings = %+v, want one PT006 at http.py", res.Findings)
	}
}

// PT001 on a call is a wait nothing bounds: a read bound on every silence is the seeds' own
// fix (requests' timeout=(3.0, 10.0) through ExternalClient) and passes; a read bound that
// ends at the head does not; an unresolved read is not judged.
func TestCallReadBoundPT001(t *testing.T) {
	readOnly := source.Origins{Connect: source.OriginExplicit, Read: source.OriginExplicit, Total: source.OriginNone}
	cases := []struct {
		name string
		call Call
		want bool
	}{
		{"seeds requests (3, 10)", Call{File: "a.py", Line: 1, Language: "python", Library: "requests", Origin: readOnly, Timeouts: source.Timeouts{ConnectMS: i64(3000), ReadMS: i64(10000)}}, false},
		{"undici's default headers/body timeouts", Call{File: "a.js", Line: 1, Language: "javascript", Library: "fetch", Origin: source.Origins{Connect: source.OriginDefault, Read: source.OriginDefault, Total: source.OriginNone}, Timeouts: source.Timeouts{ConnectMS: i64(10000), ReadMS: i64(300000)}}, false},
		{"Go ResponseHeaderTimeout only", Call{File: "a.go", Line: 1, Language: "go", Library: "net/http", ReadHeadOnly: true, Origin: readOnly, Timeouts: source.Timeouts{ConnectMS: i64(3000), ReadMS: i64(10000)}}, true},
		{"requests, no timeout", Call{File: "b.py", Line: 1, Language: "python", Library: "requests", Origin: source.Origins{Connect: source.OriginNone, Read: source.OriginNone, Total: source.OriginNone}}, true},
		{"read unresolved", Call{File: "c.py", Line: 1, Language: "python", Library: "requests", Origin: source.Origins{Connect: source.OriginUnresolved, Read: source.OriginUnresolved, Total: source.OriginNone}}, false},
		{"total unresolved", Call{File: "d.go", Line: 1, Language: "go", Library: "net/http", Origin: source.Origins{Connect: source.OriginDefault, Read: source.OriginNone, Total: source.OriginUnresolved}}, false},
	}
	for _, tc := range cases {
		res := runCalls(t, tc.call)
		got := slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Rule == "PT001" })
		if got != tc.want {
			t.Errorf("%s: PT001 %v, want %v (findings %+v)", tc.name, got, tc.want, res.Findings)
		}
	}
}
