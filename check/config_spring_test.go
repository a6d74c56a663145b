package check

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
	"gopkg.in/yaml.v3"
)

// parsedLayers runs ParseConfig on data and returns every layer it offers, by name.
func parsedLayers(t *testing.T, path, data string) (*ConfigFile, map[string]*ChainLayer) {
	t.Helper()
	cf, reason, err := ParseConfig(path, []byte(data))
	if err != nil {
		t.Fatalf("ParseConfig: %v", err)
	}
	if cf == nil {
		t.Fatalf("ParseConfig skipped the file: %s", reason)
	}
	out := map[string]*ChainLayer{}
	for _, d := range cf.docs {
		cands, err := d.layers(nil)
		if err != nil {
			t.Fatalf("layers: %v", err)
		}
		for _, c := range cands {
			out[c.layer.Name] = c.layer
		}
	}
	return cf, out
}

// parseErr runs ParseConfig on data and returns its input error (failing when there is none).
func parseErr(t *testing.T, path, data string) *scenario.Error {
	t.Helper()
	cf, reason, err := ParseConfig(path, []byte(data))
	var se *scenario.Error
	if !errors.As(err, &se) {
		t.Fatalf("want an input error, got cf=%v reason=%q err=%v", cf != nil, reason, err)
	}
	return se
}

// r4jSummary is what a resilience4j layer says, for comparing spellings.
type r4jSummary struct {
	Attempts map[FailureClass]int
	Max      int
	Base     time.Duration
	Backoff  policy.Backoff
	Mult     float64
	Cap      time.Duration
	Jitter   policy.Jitter
	Factor   float64
	Timeout  time.Duration
	Breaker  bool
}

func summarise(l *ChainLayer) r4jSummary {
	r := l.pol.Retry
	return r4jSummary{Attempts: l.retry, Max: r.MaxAttempts, Base: r.Base, Backoff: r.Backoff, Mult: r.Multiplier, Cap: r.Cap,
		Jitter: r.Jitter, Factor: r.JitterFactor, Timeout: l.pol.Timeout, Breaker: l.pol.Breaker != nil}
}

// TestSpringRelaxedBinding: one resilience4j instance written every way Spring Boot binds it
// reads the same. Spring's own rules: YamlProcessor.buildFlattenedMap joins nested keys with
// '.' and a list item as [i]; ConfigurationPropertyName.adapt splits on '.' and [..]; names
// compare in Form.UNIFORM (lower case, a-z0-9 only), so max-attempts = maxAttempts =
// max_attempts = MAX_ATTEMPTS (spring-boot context/properties/source
// ConfigurationPropertyName.java, Form javadoc); a list binds from `x[0]` elements or a
// comma-separated value (IndexedElementsBinder).
func TestSpringRelaxedBinding(t *testing.T) {
	want := r4jSummary{
		// maxAttempts 4 counts attempts, the first included (RetryConfig.maxAttempts);
		// retryExceptions IOException → connect, reset, timeout only.
		Attempts: map[FailureClass]int{FailConnect: 4, FailReset: 4, FailTimeout: 4},
		Max:      4, Base: 250 * time.Millisecond, Backoff: policy.BackoffExponential, Mult: 2, Jitter: policy.JitterNone,
		Timeout: 3 * time.Second,
	}
	cases := map[string]struct{ path, data string }{
		"nested": {"application.yml", `
resilience4j:
  retry:
    instances:
      backendA:
        maxAttempts: 4
        waitDuration: 250ms
        enableExponentialBackoff: true
        exponentialBackoffMultiplier: 2
        retryExceptions: [java.io.IOException]
  timelimiter:
    instances:
      backendA:
        timeoutDuration: 3s
`},
		"dotted top level, kebab-case": {"application.yml", `
resilience4j.retry:
  instances:
    backendA:
      max-attempts: 4
      wait-duration: 250ms
      enable-exponential-backoff: true
      exponential-backoff-multiplier: 2
      retry-exceptions:
        - java.io.IOException
resilience4j.timelimiter.instances.backendA.timeout-duration: 3s
`},
		"fully dotted, underscores and upper case": {"application.yaml", `
resilience4j.retry.instances.backendA.max_attempts: 4
resilience4j.retry.instances.backendA.WAIT_DURATION: PT0.25S
resilience4j.retry.instances.backendA.enable_exponential_backoff: "on"
resilience4j.retry.instances.backendA.exponentialBackoffMultiplier: 2.0
resilience4j.retry.instances.backendA.retryExceptions: java.io.IOException
resilience4j.timelimiter.instances.backendA.timeoutDuration: 3000
`},
		"bracketed map key and indexed list": {"application.yml", `
resilience4j:
  retry.instances[backendA]:
    maxAttempts: 4
    waitDuration: 250
    enableExponentialBackoff: yes
    exponentialBackoffMultiplier: 2
    "retryExceptions[0]": java.io.IOException
  timelimiter.instances.backendA.timeoutDuration: 3s
`},
		"properties": {"application.properties", `
# comment
! another comment
resilience4j.retry.instances.backendA.max-attempts=4
resilience4j.retry.instances.backendA.waitDuration: 250ms
resilience4j.retry.instances.backendA.enableExponentialBackoff true
resilience4j.retry.instances.backendA.exponential-backoff-multiplier = 2
resilience4j.retry.instances.backendA.retry-exceptions[0]=java.io.\
    IOException
resilience4j.timelimiter.instances.backendA.timeout-duration=3s
`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cf, layers := parsedLayers(t, c.path, c.data)
			if cf.Format != "resilience4j" || len(layers) != 1 || layers["backendA"] == nil {
				t.Fatalf("format %q, layers %v", cf.Format, layers)
			}
			if diff := cmp.Diff(want, summarise(layers["backendA"])); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpringFixturesAgree: the dotted application.yml and the application.properties in
// testdata/configs_a hold the same settings and read the same.
func TestSpringFixturesAgree(t *testing.T) {
	read := func(name string) map[string]r4jSummary {
		data, err := os.ReadFile(filepath.Join("testdata", "configs_a", name))
		if err != nil {
			t.Fatal(err)
		}
		_, layers := parsedLayers(t, name, string(data))
		out := map[string]r4jSummary{}
		for k, l := range layers {
			out[k] = summarise(l)
		}
		return out
	}
	yml, props := read("r4j-dotted.yml"), read("r4j.properties")
	if diff := cmp.Diff(yml, props); diff != "" {
		t.Errorf("yml vs properties (-yml +properties):\n%s", diff)
	}
	// payments: baseConfig default (maxAttempts 4, 200 ms, IOException), a 3 s TimeLimiter
	// and a circuit breaker; ledger: maxAttempts 2 over configs.default, which a name
	// without baseConfig inherits (CommonRetryConfigurationProperties.createRetryConfig).
	p := yml["payments"]
	if p.Max != 4 || p.Base != 200*time.Millisecond || p.Timeout != 3*time.Second || !p.Breaker || p.Attempts[Fail5xx] != 0 || p.Attempts[FailConnect] != 4 {
		t.Errorf("payments %+v", p)
	}
	l := yml["ledger"]
	if l.Max != 2 || l.Base != 200*time.Millisecond || l.Timeout != 0 || l.Breaker || l.Attempts[FailConnect] != 2 {
		t.Errorf("ledger %+v", l)
	}
}

// TestResilience4jInheritance holds the reader to resilience4j's own property classes
// (resilience4j-framework-common CommonRetryConfigurationProperties.java createRetryConfig,
// buildConfig, configureRetryIntervalFunction; utils/ConfigUtils.java mergePropertiesIfAny).
func TestResilience4jInheritance(t *testing.T) {
	cases := []struct {
		name, data string
		want       r4jSummary
	}{{
		// No settings at all: RetryConfig.DEFAULT_MAX_ATTEMPTS 3, DEFAULT_WAIT_DURATION 500 ms
		// fixed, every exception retried.
		name: "defaults",
		data: "resilience4j.retry.instances.a.eventConsumerBufferSize: 10\n",
		want: r4jSummary{Max: 3, Base: 500 * time.Millisecond, Backoff: policy.BackoffConstant, Jitter: policy.JitterNone},
	}, {
		// The instance sets waitDuration; enableExponentialBackoff comes from configs.default
		// (mergePropertiesIfAny copies the switch), the multiplier stays 1.5
		// (IntervalFunction.DEFAULT_MULTIPLIER).
		name: "switch merged from default",
		data: "resilience4j.retry:\n  configs.default: {enableExponentialBackoff: true, waitDuration: 1s}\n  instances.a: {waitDuration: 100ms}\n",
		want: r4jSummary{Max: 3, Base: 100 * time.Millisecond, Backoff: policy.BackoffExponential, Mult: 1.5, Jitter: policy.JitterNone},
	}, {
		// No waitDuration on the instance: the interval is the base config's, built from
		// the base's own waitDuration and switches.
		name: "interval from the base",
		data: "resilience4j.retry:\n  configs.slow: {enableRandomizedWait: true, randomizedWaitFactor: 0.2, waitDuration: 2s, maxAttempts: 6}\n  instances.a: {baseConfig: slow, maxAttempts: 2}\n",
		want: r4jSummary{Max: 2, Base: 2 * time.Second, Backoff: policy.BackoffConstant, Jitter: policy.JitterRandomized, Factor: 0.2},
	}, {
		// The switches are read only with waitDuration on the same level: without it they
		// change nothing (configureRetryIntervalFunction).
		name: "switch without waitDuration",
		data: "resilience4j.retry.instances.a: {enableExponentialBackoff: true, maxAttempts: 5}\n",
		want: r4jSummary{Max: 5, Base: 500 * time.Millisecond, Backoff: policy.BackoffConstant, Jitter: policy.JitterNone},
	}, {
		// Exponential and randomized: randomizedWaitFactor counts only with a multiplier
		// (configureExponentialBackoffAndRandomizedWait), so the factor stays 0.5.
		name: "exponential random without a multiplier",
		data: "resilience4j.retry.instances.a: {waitDuration: 1s, enableExponentialBackoff: true, enableRandomizedWait: true, randomizedWaitFactor: 0.1, exponentialMaxWaitDuration: 5s}\n",
		want: r4jSummary{Max: 3, Base: time.Second, Backoff: policy.BackoffExponential, Mult: 1.5, Jitter: policy.JitterRandomized, Factor: 0.5},
	}, {
		name: "exponential random, all set",
		data: "resilience4j.retry.instances.a: {waitDuration: 1s, enableExponentialBackoff: true, enableRandomizedWait: true, exponentialBackoffMultiplier: 3, randomizedWaitFactor: 0.1, exponentialMaxWaitDuration: 5s}\n",
		want: r4jSummary{Max: 3, Base: time.Second, Backoff: policy.BackoffExponential, Mult: 3, Cap: 5 * time.Second, Jitter: policy.JitterRandomized, Factor: 0.1},
	}, {
		// A later YAML document overrides an earlier one; a profile document is not read.
		name: "documents",
		data: "resilience4j.retry.instances.a.maxAttempts: 2\n---\nresilience4j.retry.instances.a.maxAttempts: 7\n---\nspring.config.activate.on-profile: prod\nresilience4j.retry.instances.a.maxAttempts: 9\n",
		want: r4jSummary{Max: 7, Base: 500 * time.Millisecond, Backoff: policy.BackoffConstant, Jitter: policy.JitterNone},
	}, {
		// spring.profiles.active in the file turns on the documents of those profiles,
		// applied over the others; a document for another profile stays off.
		name: "profiles.active",
		data: "spring.profiles.active: dev, eu\nresilience4j.retry.instances.a.maxAttempts: 2\n---\nspring.config.activate.on-profile: dev\nresilience4j.retry.instances.a.maxAttempts: 5\n---\nspring.config.activate.on-profile: prod\nresilience4j.retry.instances.a.maxAttempts: 9\n",
		want: r4jSummary{Max: 5, Base: 500 * time.Millisecond, Backoff: policy.BackoffConstant, Jitter: policy.JitterNone},
	}, {
		// resilience4j only in a profile document: read as if that profile were active,
		// over the document without a profile.
		name: "profile only",
		data: "server.port: 80\n---\nspring.config.activate.on-profile: prod\nresilience4j.retry.instances.a.maxAttempts: 6\n",
		want: r4jSummary{Max: 6, Base: 500 * time.Millisecond, Backoff: policy.BackoffConstant, Jitter: policy.JitterNone},
	}, {
		// `backends` is the older name of `instances`: getBackends() returns the same map
		// (CommonRetryConfigurationProperties).
		name: "backends",
		data: "resilience4j.retry:\n  configs.shared: {maxAttempts: 4, waitDuration: 100ms}\n  backends:\n    a: {baseConfig: shared}\n",
		want: r4jSummary{Max: 4, Base: 100 * time.Millisecond, Backoff: policy.BackoffConstant, Jitter: policy.JitterNone},
	}, {
		// A placeholder with a default takes the default; TimeLimiter's default is 1 s.
		name: "placeholder and timelimiter default",
		data: "resilience4j.retry.instances.a.maxAttempts: ${RETRIES:4}\nresilience4j.timelimiter.instances.a.cancelRunningFuture: false\n",
		want: r4jSummary{Max: 4, Base: 500 * time.Millisecond, Backoff: policy.BackoffConstant, Jitter: policy.JitterNone, Timeout: time.Second},
	}}
	cases = append(cases, struct {
		name, data string
		want       r4jSummary
	}{
		// configs and no instances: one layer, "default", what every @Retry and
		// @TimeLimiter name without an instance gets.
		name: "configs only",
		data: "resilience4j.retry.configs.default.maxAttempts: 5\nresilience4j.timelimiter.configs.default.timeoutDuration: 3s\n",
		want: r4jSummary{Max: 5, Base: 500 * time.Millisecond, Backoff: policy.BackoffConstant, Jitter: policy.JitterNone, Timeout: 3 * time.Second},
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, layers := parsedLayers(t, "application.yml", c.data)
			l := layers["a"]
			if c.name == "configs only" {
				l = layers["default"]
			}
			if l == nil {
				t.Fatalf("no layer a: %v", layers)
			}
			got := summarise(l)
			got.Attempts = nil
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestResilience4jErrors: values resilience4j or Spring refuses, and marker keys with
// nothing to read, are errors at their line.
func TestResilience4jErrors(t *testing.T) {
	cases := []struct {
		name, path, data, want string
		line                   int
	}{
		// InstanceProperties.setMaxAttempts: "maxAttempts must be greater than or equal to 1".
		{"maxAttempts 0", "a.yml", "resilience4j.retry.instances.a.maxAttempts: 0\n", "resilience4j.retry.instances.a.maxAttempts: want a whole number ≥ 1", 1},
		// createRetryConfig: ConfigurationNotFoundException.
		{"missing baseConfig", "a.yml", "resilience4j.retry:\n  instances:\n    a:\n      baseConfig: nope\n", `no config "nope"`, 4},
		// DurationStyle: "1.5s" is neither the simple nor the ISO-8601 style.
		{"fractional simple duration", "a.yml", "resilience4j.retry.instances.a.waitDuration: 1.5s\n", "want a Spring duration", 1},
		{"unresolvable placeholder", "a.properties", "x=1\nresilience4j.retry.instances.a.maxAttempts=${RETRIES}\n", "placeholder with no default", 2},
		{"marker without instances", "a.yml", "server.port: 80\nresilience4j.retry:\n  retryAspectOrder: 2\n", "resilience4j.retry: no instances or configs to read", 2},
		{"only modules check does not read", "a.yml", "resilience4j:\n  bulkhead:\n    instances:\n      a: {maxConcurrentCalls: 3}\n", "no retry, timelimiter or circuitbreaker settings to read (it has bulkhead)", 1},
		{"configs without default", "a.yml", "resilience4j.retry.configs.shared.maxAttempts: 2\n", "no instances, and no configs.default, to read", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			se := parseErr(t, c.path, c.data)
			if !strings.Contains(se.Error(), c.want) || se.Line != c.line || se.File != c.path {
				t.Errorf("got %v (line %d), want %q at line %d", se, se.Line, c.want, c.line)
			}
		})
	}
}

// TestSpringNotResilience4j: a Spring file without resilience4j keys is skipped, not an
// error, and a key that merely contains the word elsewhere in its path is no marker.
func TestSpringNotResilience4j(t *testing.T) {
	for _, c := range []struct{ path, data string }{
		{"application.properties", "server.port=8080\n"},
		{"application.yml", "management.metrics.distribution.percentiles-histogram.resilience4j.circuitbreaker.calls: true\n"},
	} {
		cf, reason, err := ParseConfig(c.path, []byte(c.data))
		if cf != nil || err != nil || reason == "" {
			t.Errorf("%s: cf=%v err=%v reason=%q", c.path, cf != nil, err, reason)
		}
	}
}

// TestSpringDuration is Spring Boot's DurationStyle (convert/DurationStyle.java): SIMPLE
// `^([+-]?\d+)([a-zA-Z]{0,2})$`, no unit = ms; ISO8601 via java.time.Duration.parse.
func TestSpringDuration(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"100", 100 * time.Millisecond, true},
		{"10s", 10 * time.Second, true},
		{"10S", 10 * time.Second, true},
		{"2m", 2 * time.Minute, true},
		{"1d", 24 * time.Hour, true},
		{"5us", 5 * time.Microsecond, true},
		{"PT0.5S", 500 * time.Millisecond, true},
		{"pt1m30s", 90 * time.Second, true},
		{"P1DT2H", 26 * time.Hour, true},
		{"1.5s", 0, false},
		{"1h30m", 0, false},
		{"10sec", 0, false},
		{"PT", 0, false},
		{"-1s", 0, false}, // InstanceProperties.setWaitDuration: negative refused
	}
	cf := &ConfigFile{Path: "f"}
	for _, c := range cases {
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: c.in, Line: 1, Column: 1}
		got, err := springDuration(cf, n, "x")
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: got %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// FuzzSpringProperties: whatever the bytes, reading them as an application.properties never
// panics and an error names the file.
func FuzzSpringProperties(f *testing.F) {
	for _, s := range []string{
		"resilience4j.retry.instances.a.maxAttempts=3\n",
		"resilience4j.retry.instances[a.b].wait-duration=\\u0031s\\\n",
		"#---\nresilience4j.timelimiter.configs.default.timeoutDuration=PT1S\n",
	} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("testdata/configs_a/r4j.properties"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		cf, _, err := ParseConfig("f.properties", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.properties") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if cf == nil {
			return
		}
		cs := NewConfigs()
		cs.add(cf)
		chains, err := cs.inferred()
		if err != nil {
			return
		}
		for _, ch := range chains {
			ch.compute()
		}
	})
}

func FuzzSpringYAML(f *testing.F) {
	fuzzConfig(f, "testdata/configs_a/r4j-dotted.yml",
		"resilience4j.retry: {instances: {a: {baseConfig: a}}, configs: {a: {baseConfig: a}}}\n",
		"resilience4j: {retry.instances[x]: {retryExceptions: [a, b]}}\n",
		"apiVersion: v1\nkind: ConfigMap\ndata:\n  a.yml: |\n    resilience4j.retry.configs.default.waitDuration: 1s\n  b.properties: \"resilience4j.x=1\"\n")
}

// TestSpringPropertiesWalked: a directory walk reads application.properties (candidate in
// inputs.go) and the dotted application.yml beside it; the properties file is no INI.
func TestSpringPropertiesWalked(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"application.properties": "resilience4j.retry.instances.orders.max-attempts=5\n",
		"application.yml":        "resilience4j.retry.instances.stock.maxAttempts: 2\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := LoadPaths([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, cf := range in.Configs.Files {
		got[filepath.Base(cf.Path)] = cf.Kinds
	}
	want := map[string][]string{"application.properties": {"resilience4j/orders"}, "application.yml": {"resilience4j/stock"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("configs read (-want +got):\n%s", diff)
	}
}

// TestSpringInConfigMap: a ConfigMap carrying application.yml or application.properties
// (mounted as the application's config) is read with the file's own lines.
func TestSpringInConfigMap(t *testing.T) {
	yml := `apiVersion: v1
kind: ConfigMap
metadata: {name: orders}
data:
  application.yml: |
    resilience4j.retry:
      instances:
        payments:
          maxAttempts: 4
  application.properties: |
    resilience4j.retry.instances.ignored.maxAttempts=2
`
	cf, layers := parsedLayers(t, "cm.yaml", yml)
	l := layers["payments"]
	if l == nil || l.pol.Retry.MaxAttempts != 4 || l.retryAt.Line != 9 || l.retryAt.Col != 24 {
		t.Fatalf("layers %v, kinds %v", layers, cf.Kinds)
	}
	props := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: orders}\ndata:\n  application.properties: |\n    server.port=1\n    resilience4j.retry.instances.a.max-attempts=0\n"
	se := parseErr(t, "cm.yaml", props)
	if se.Line != 7 || !strings.Contains(se.Msg, "≥ 1") {
		t.Errorf("got %v", se)
	}
}
