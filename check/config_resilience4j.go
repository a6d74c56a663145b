package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// resilience4j in a Spring Boot application.yml or application.properties, read through
// Spring's relaxed binding (config_spring.go) and then as resilience4j-spring-boot2/3 bind
// it: resilience4j/resilience4j (af9e7c97) resilience4j-framework-common
// CommonRetryConfigurationProperties.java (createRetryConfig, buildConfig,
// configureRetryIntervalFunction), CommonTimeLimiterConfigurationProperties.java,
// common/utils/ConfigUtils.java (mergePropertiesIfAny), resilience4j-retry RetryConfig.java
// (DEFAULT_MAX_ATTEMPTS 3, DEFAULT_WAIT_DURATION 500 ms), resilience4j-core
// IntervalFunction.java (DEFAULT_MULTIPLIER 1.5, DEFAULT_RANDOMIZATION_FACTOR 0.5),
// resilience4j-timelimiter TimeLimiterConfig.java (timeoutDuration 1 s).

const (
	r4jMaxAttempts  = 3                      // RetryConfig.DEFAULT_MAX_ATTEMPTS (attempts)
	r4jWait         = 500 * time.Millisecond // DEFAULT_WAIT_DURATION
	r4jMultiplier   = 1.5                    // IntervalFunction.DEFAULT_MULTIPLIER
	r4jRandomFactor = 0.5                    // DEFAULT_RANDOMIZATION_FACTOR
)

// r4jExceptionClasses maps the exception classes teams list in retryExceptions and
// ignoreExceptions to failure classes (Spring's RestTemplate and WebClient: ResourceAccess
// wraps I/O errors, HttpServerError is 5xx, HttpClientError 4xx).
var r4jExceptionClasses = map[string][]FailureClass{
	"java.io.IOException":                                                         {FailConnect, FailReset, FailTimeout},
	"java.net.ConnectException":                                                   {FailConnect},
	"java.net.SocketTimeoutException":                                             {FailTimeout},
	"java.util.concurrent.TimeoutException":                                       {FailTimeout},
	"org.springframework.web.client.ResourceAccessException":                      {FailConnect, FailReset, FailTimeout},
	"org.springframework.web.client.HttpServerErrorException":                     {Fail5xx, Fail503},
	"org.springframework.web.client.HttpClientErrorException":                     {Fail4xx, Fail429},
	"org.springframework.web.client.HttpStatusCodeException":                      {Fail5xx, Fail503, Fail4xx, Fail429},
	"org.springframework.web.reactive.function.client.WebClientResponseException": {Fail5xx, Fail503, Fail4xx, Fail429},
	"org.springframework.web.reactive.function.client.WebClientRequestException":  {FailConnect, FailReset, FailTimeout},
	"java.lang.Exception":                                                         FailureClasses,
	"java.lang.RuntimeException":                                                  FailureClasses,
	"java.lang.Throwable":                                                         FailureClasses,
}

// r4jExceptions maps a list of exception class names; unknown names match nothing.
func r4jExceptions(list []*yaml.Node) []FailureClass {
	var out []FailureClass
	for _, it := range list {
		name := scalar(it)
		for k, cs := range r4jExceptionClasses {
			if name == k || strings.HasSuffix(k, "."+name) || (strings.HasSuffix(name, "$ServiceUnavailable") && k == "org.springframework.web.client.HttpServerErrorException") {
				for _, c := range cs {
					if !slices.Contains(out, c) {
						out = append(out, c)
					}
				}
			}
		}
	}
	return out
}

// r4jModules are the resilience4j Spring modules check reads; the others (bulkhead,
// ratelimiter, thread-pool-bulkhead) hold nothing about retries or timeouts.
var r4jModules = []string{"retry", "timelimiter", "circuitbreaker"}

// r4jBackends are the modules whose property class also binds `backends`, the older name
// of `instances`: getBackends() returns the same map (CommonRetryConfigurationProperties,
// CommonCircuitBreakerConfigurationProperties; not TimeLimiter's).
var r4jBackends = map[string]bool{"retry": true, "circuitbreaker": true}

// instanceNames lists a module's instances, `backends` included where the module binds it.
func (r *r4jReader) instanceNames(module string) []string {
	names := r.p.keys(springPath("resilience4j", module, "instances"))
	if r4jBackends[module] {
		for _, k := range r.p.keys(springPath("resilience4j", module, "backends")) {
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
	}
	return names
}

// r4jRetryProps is one CommonRetryConfigurationProperties.InstanceProperties: an entry of
// resilience4j.retry.instances or .configs, each field nil when not set.
type r4jRetryProps struct {
	path        string
	wait        *time.Duration
	waitAt      *yaml.Node
	maxAttempts *int
	maxAt       *yaml.Node
	expo, rand  *bool
	multiplier  *float64
	maxWait     *time.Duration
	factor      *float64
	retryExc    []*yaml.Node
	retryExcAt  *yaml.Node
	ignoreExc   []*yaml.Node
	predicate   bool
	baseConfig  string
	baseAt      *yaml.Node
	placeholder []string
}

// r4jRetryConfig is the RetryConfig that createRetryConfig builds for one name.
type r4jRetryConfig struct {
	attempts   int
	attemptsAt *yaml.Node
	// interval: fixed wait unless expo or random; multiplier, factor and cap as the
	// IntervalFunction chosen by configureRetryIntervalFunction uses them.
	wait       time.Duration
	waitAt     *yaml.Node
	expo, rand bool
	multiplier float64
	factor     float64
	cap        time.Duration
	retryExc   []*yaml.Node
	retryExcAt *yaml.Node
	retrySet   bool
	ignoreExc  []*yaml.Node
	predicate  bool
	// from names the configs entry each inherited value came from, for the layer's notes.
	from        []string
	placeholder []string
}

// r4jReader reads one file's resilience4j settings.
type r4jReader struct {
	cf *ConfigFile
	p  *springProps
	// elems caches, per module and kind, each map key's element as written.
	elems map[string]map[string]springElem
}

// prefix is the name of an instance or config: the map key as it was written, so that a
// bracketed key ([backendA]) stays the indexed element it is.
func (r *r4jReader) prefix(module, kind, name string) []springElem {
	p := springPath("resilience4j", module, kind)
	if r.elems == nil {
		r.elems = map[string]map[string]springElem{}
	}
	m, ok := r.elems[module+"."+kind]
	if !ok {
		m = map[string]springElem{}
		for _, k := range r.p.keyElems(p) {
			if _, dup := m[k.text]; !dup {
				m[k.text] = k
			}
		}
		r.elems[module+"."+kind] = m
	}
	if k, ok := m[name]; ok {
		return append(p, k)
	}
	if kind == "instances" && r4jBackends[module] {
		if q := r.prefix(module, "backends", name); r.elems[module+".backends"][name].text != "" {
			return q
		}
	}
	return append(p, springElem{text: name})
}

// field returns the value of a property under prefix, a placeholder resolved to its default.
func (r *r4jReader) field(prefix []springElem, name string, notes *[]string) (*yaml.Node, string, error) {
	full := append(append([]springElem(nil), prefix...), springSplit(name)...)
	e := r.p.value(full)
	if e == nil {
		return nil, "", nil
	}
	path := springKeyName(full)
	v, resolved, err := springPlaceholder(r.cf, e.value, path)
	if err != nil {
		return nil, "", err
	}
	if resolved {
		*notes = append(*notes, fmt.Sprintf("%s: %s taken as its default %q", path, strings.TrimSpace(e.value.Value), v.Value))
	}
	if strings.TrimSpace(v.Value) == "" {
		return nil, "", nil // an empty value binds as null
	}
	return v, path, nil
}

// retryProps reads one InstanceProperties; nil when nothing is set under prefix. The fields
// are read in the order of r4jRetryFields, each by its own decoder.
func (r *r4jReader) retryProps(prefix []springElem) (*r4jRetryProps, error) {
	if _, ok := r.p.under(prefix); !ok {
		return nil, nil
	}
	pr := &r4jRetryProps{path: springKeyName(prefix)}
	for _, f := range r4jRetryFields {
		n, path, err := r.field(prefix, f.name, &pr.placeholder)
		if err != nil {
			return nil, err
		}
		if n == nil {
			continue
		}
		if err := f.decode(pr, r.cf, n, path); err != nil {
			return nil, err
		}
	}
	list := func(name string) []*yaml.Node {
		return r.p.list(append(append([]springElem(nil), prefix...), springSplit(name)...))
	}
	if pr.retryExc = list("retryExceptions"); pr.retryExc != nil {
		pr.retryExcAt = pr.retryExc[0]
	}
	pr.ignoreExc = list("ignoreExceptions")
	return pr, nil
}

// r4jRetryFields are the scalar fields of InstanceProperties in the order retryProps reads
// them, each with its decoder (n is the value, a placeholder resolved; path its key).
var r4jRetryFields = []struct {
	name   string
	decode func(pr *r4jRetryProps, cf *ConfigFile, n *yaml.Node, path string) error
}{
	{"waitDuration", (*r4jRetryProps).readWait},
	{"maxAttempts", (*r4jRetryProps).readMaxAttempts},
	{"enableExponentialBackoff", (*r4jRetryProps).readExpo},
	{"enableRandomizedWait", (*r4jRetryProps).readRand},
	{"exponentialBackoffMultiplier", (*r4jRetryProps).readMultiplier},
	{"exponentialMaxWaitDuration", (*r4jRetryProps).readMaxWait},
	{"randomizedWaitFactor", (*r4jRetryProps).readFactor},
	{"retryExceptionPredicate", (*r4jRetryProps).readPredicate},
	{"baseConfig", (*r4jRetryProps).readBaseConfig},
}

func (pr *r4jRetryProps) readWait(cf *ConfigFile, n *yaml.Node, path string) error {
	v, err := springDuration(cf, n, path)
	if err != nil {
		return err
	}
	pr.wait, pr.waitAt = &v, n
	return nil
}

func (pr *r4jRetryProps) readMaxAttempts(cf *ConfigFile, n *yaml.Node, path string) error {
	// InstanceProperties.setMaxAttempts rejects a value below 1.
	v, err := springInt(cf, n, path, 1)
	if err != nil {
		return err
	}
	pr.maxAttempts, pr.maxAt = &v, n
	return nil
}

func (pr *r4jRetryProps) readMultiplier(cf *ConfigFile, n *yaml.Node, path string) error {
	v, err := springFloat(cf, n, path)
	if err != nil {
		return err
	}
	pr.multiplier = &v
	if v <= 0 { // setExponentialBackoffMultiplier
		return configError(cf, n, path, "want a multiplier > 0, got %s", n.Value)
	}
	return nil
}

func (pr *r4jRetryProps) readMaxWait(cf *ConfigFile, n *yaml.Node, path string) error {
	v, err := springDuration(cf, n, path)
	if err != nil {
		return err
	}
	pr.maxWait = &v
	return nil
}

func (pr *r4jRetryProps) readFactor(cf *ConfigFile, n *yaml.Node, path string) error {
	v, err := springFloat(cf, n, path)
	if err != nil {
		return err
	}
	pr.factor = &v
	if v < 0 || v >= 1 { // IntervalFunction.checkRandomizationFactor
		return configError(cf, n, path, "want a factor in [0, 1), got %s", n.Value)
	}
	return nil
}

func (pr *r4jRetryProps) readExpo(cf *ConfigFile, n *yaml.Node, path string) error {
	return readSpringBool(&pr.expo, cf, n, path)
}

func (pr *r4jRetryProps) readRand(cf *ConfigFile, n *yaml.Node, path string) error {
	return readSpringBool(&pr.rand, cf, n, path)
}

// readPredicate notes that a retryExceptionPredicate is set.
func (pr *r4jRetryProps) readPredicate(*ConfigFile, *yaml.Node, string) error {
	pr.predicate = true
	return nil
}

func (pr *r4jRetryProps) readBaseConfig(_ *ConfigFile, n *yaml.Node, _ string) error {
	pr.baseConfig, pr.baseAt = strings.TrimSpace(n.Value), n
	return nil
}

// readSpringBool sets *dst to a Spring boolean; an empty value leaves it unset.
func readSpringBool(dst **bool, cf *ConfigFile, n *yaml.Node, path string) error {
	v, set, err := springBool(cf, n, path)
	if set {
		*dst = &v
	}
	return err
}

// mergeRetry is ConfigUtils.mergePropertiesIfAny for retry: the instance takes the base's
// exponential and randomized switches, multiplier and maximum wait when it has none of its
// own — not its waitDuration or randomizedWaitFactor.
func mergeRetry(base, inst *r4jRetryProps) {
	if inst.expo == nil {
		inst.expo = base.expo
	}
	if inst.rand == nil {
		inst.rand = base.rand
	}
	if inst.multiplier == nil {
		inst.multiplier = base.multiplier
	}
	if inst.maxWait == nil {
		inst.maxWait = base.maxWait
	}
}

// configKey finds a configs entry by its map key as written (MapBinder keeps the original
// form; resilience4j looks the name up with Map.get).
func (r *r4jReader) configKey(module, name string) (string, bool) {
	p := r.prefix(module, "configs", name)
	_, ok := r.elems[module+".configs"][name]
	return p[len(p)-1].text, ok
}

// retryConfig builds the RetryConfig of name as createRetryConfig does: over the config
// its baseConfig names (an error when there is none), else over configs.default (for any
// name but default itself), else over RetryConfig's defaults. It returns the properties
// with the base's switches merged in, for a config that names this one as its base.
func (r *r4jReader) retryConfig(name string, props *r4jRetryProps, depth int) (*r4jRetryConfig, *r4jRetryProps, error) {
	if depth > 8 {
		return nil, nil, configError(r.cf, props.baseAt, props.path+".baseConfig", "baseConfig refers back to itself")
	}
	if props != nil {
		c := *props
		props = &c
	}
	baseName, err := r.retryBase(name, props)
	if err != nil {
		return nil, nil, err
	}
	cfg := &r4jRetryConfig{attempts: r4jMaxAttempts, wait: r4jWait}
	if baseName != "" {
		if cfg, err = r.inheritRetry(baseName, props, depth); err != nil {
			return nil, nil, err
		}
	}
	if props == nil {
		return cfg, props, nil
	}
	cfg.placeholder = append(slices.Clone(cfg.placeholder), props.placeholder...)
	// configureRetryIntervalFunction: only a level that sets waitDuration sets the interval.
	if props.wait != nil {
		retryInterval(cfg, props)
	}
	retryOwnFields(cfg, props)
	return cfg, props, nil
}

// retryBase names the configs entry name's RetryConfig builds on ("" = RetryConfig's
// defaults): the one its baseConfig names, else configs.default for any name but default.
func (r *r4jReader) retryBase(name string, props *r4jRetryProps) (string, error) {
	if props != nil && props.baseConfig != "" {
		k, ok := r.configKey("retry", props.baseConfig)
		if !ok {
			return "", configError(r.cf, props.baseAt, props.path+".baseConfig", "no config %q under resilience4j.retry.configs (ConfigurationNotFoundException)", props.baseConfig)
		}
		return k, nil
	}
	if name != "default" {
		if _, ok := r.configKey("retry", "default"); ok {
			return "default", nil
		}
	}
	return "", nil
}

// inheritRetry builds the RetryConfig of configs entry baseName, a copy name's config starts
// from, and merges the base's switches into props (when name has properties of its own).
func (r *r4jReader) inheritRetry(baseName string, props *r4jRetryProps, depth int) (*r4jRetryConfig, error) {
	bp, err := r.retryProps(r.prefix("retry", "configs", baseName))
	if err != nil {
		return nil, err
	}
	if bp == nil {
		bp = &r4jRetryProps{path: springKeyName(r.prefix("retry", "configs", baseName))}
	}
	base, merged, err := r.retryConfig(baseName, bp, depth+1)
	if err != nil {
		return nil, err
	}
	cfg := *base
	cfg.from = append(slices.Clone(base.from), baseName)
	if props != nil {
		mergeRetry(merged, props)
	}
	return &cfg, nil
}

// retryInterval is configureRetryIntervalFunction for a level that sets waitDuration: the
// wait, and the exponential and randomized switches with the values each counts.
func retryInterval(cfg *r4jRetryConfig, props *r4jRetryProps) {
	cfg.wait, cfg.waitAt = *props.wait, props.waitAt
	cfg.expo = props.expo != nil && *props.expo
	cfg.rand = props.rand != nil && *props.rand
	cfg.multiplier, cfg.factor, cfg.cap = 0, 0, 0
	switch {
	case cfg.expo && cfg.rand:
		// configureExponentialBackoffAndRandomizedWait: the factor and the cap count
		// only with a multiplier set; the cap only with all three.
		cfg.multiplier, cfg.factor = r4jMultiplier, r4jRandomFactor
		if props.multiplier != nil {
			cfg.multiplier = *props.multiplier
			if props.factor != nil {
				cfg.factor = *props.factor
				if props.maxWait != nil {
					cfg.cap = *props.maxWait
				}
			}
		}
	case cfg.expo:
		cfg.multiplier = r4jMultiplier
		if props.multiplier != nil {
			cfg.multiplier = *props.multiplier
			if props.maxWait != nil {
				cfg.cap = *props.maxWait
			}
		}
	case cfg.rand:
		cfg.factor = r4jRandomFactor
		if props.factor != nil {
			cfg.factor = *props.factor
		}
	}
}

// retryOwnFields sets what a level's own properties set whether or not it sets a wait:
// maxAttempts, the exception predicate and lists.
func retryOwnFields(cfg *r4jRetryConfig, props *r4jRetryProps) {
	if props.maxAttempts != nil {
		cfg.attempts, cfg.attemptsAt = *props.maxAttempts, props.maxAt
	}
	if props.predicate {
		cfg.predicate = true
	}
	if props.ignoreExc != nil {
		cfg.ignoreExc = props.ignoreExc
	}
	if props.retryExc != nil {
		cfg.retryExc, cfg.retryExcAt, cfg.retrySet = props.retryExc, props.retryExcAt, true
	}
}

// timeLimiter returns the timeoutDuration createTimeLimiterConfig gives name (the same
// baseConfig / configs.default inheritance), where it was set, and whether any was set.
func (r *r4jReader) timeLimiter(name string, depth int) (time.Duration, *yaml.Node, error) {
	prefix := r.prefix("timelimiter", "instances", name)
	if _, ok := r.p.under(prefix); !ok && name == "default" {
		// The "default" layer of a file with configs and no instances.
		prefix = r.prefix("timelimiter", "configs", "default")
	}
	return r.timeLimiterAt(prefix, name, depth)
}

func (r *r4jReader) timeLimiterAt(prefix []springElem, name string, depth int) (time.Duration, *yaml.Node, error) {
	if depth > 8 {
		return 0, nil, configError(r.cf, nil, springKeyName(prefix), "baseConfig refers back to itself")
	}
	var notes []string
	timeout, at := time.Second, (*yaml.Node)(nil) // TimeLimiterConfig: timeoutDuration 1 s
	baseName := ""
	bn, path, err := r.field(prefix, "baseConfig", &notes)
	if err != nil {
		return 0, nil, err
	}
	if bn != nil {
		k, ok := r.configKey("timelimiter", strings.TrimSpace(bn.Value))
		if !ok {
			return 0, nil, configError(r.cf, bn, path, "no config %q under resilience4j.timelimiter.configs (ConfigurationNotFoundException)", bn.Value)
		}
		baseName = k
	} else if name != "default" {
		if _, ok := r.configKey("timelimiter", "default"); ok {
			baseName = "default"
		}
	}
	if baseName != "" {
		timeout, at, err = r.timeLimiterAt(r.prefix("timelimiter", "configs", baseName), baseName, depth+1)
		if err != nil {
			return 0, nil, err
		}
	}
	if n, path, err := r.field(prefix, "timeoutDuration", &notes); err != nil {
		return 0, nil, err
	} else if n != nil {
		if timeout, err = springDuration(r.cf, n, path); err != nil {
			return 0, nil, err
		}
		at = n
	}
	return timeout, at, nil
}

// resilience4jLayers reads one layer per resilience4j instance name found under retry,
// timelimiter or circuitbreaker instances: its RetryConfig (when it has a retry instance),
// its TimeLimiter's timeout (when it has one) and whether a circuit breaker guards it. A
// file with configs but no instances gives one layer, "default", which every @Retry name
// without an instance gets.
func resilience4jLayers(d *configDoc) ([]*layerCandidate, error) {
	r := &r4jReader{cf: d.file, p: d.spring}
	var names []string
	has := map[string]map[string]bool{}
	for _, m := range r4jModules {
		has[m] = map[string]bool{}
		for _, k := range r.instanceNames(m) {
			has[m][k] = true
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
	}
	if len(names) == 0 {
		for _, m := range r4jModules[:2] {
			if _, ok := r.configKey(m, "default"); ok && !slices.Contains(names, "default") {
				names = append(names, "default")
				has["retry"]["default"], has["timelimiter"]["default"] = true, true
			}
		}
	}
	var out []*layerCandidate
	for _, name := range names {
		at := d.pos
		for _, m := range r4jModules {
			if k, ok := r.p.under(r.prefix(m, "instances", name)); ok && k != nil {
				at = posOf(r.cf, k)
				break
			}
		}
		l := newLayer("resilience4j", name, at)
		l.answer = answerApp
		l.pol.Retry.NonIdempotent = policy.NonIdempotentAlways
		if has["retry"][name] {
			if err := r.retryLayer(l, name); err != nil {
				return nil, err
			}
		} else {
			l.retryWhy = fmt.Sprintf("no resilience4j.retry instance %s: one attempt", name)
			l.addDefault("no resilience4j.retry instance %s: no retries", name)
		}
		if has["timelimiter"][name] {
			v, tat, err := r.timeLimiter(name, 0)
			if err != nil {
				return nil, err
			}
			l.pol.Timeout = v
			// TimeLimiter bounds a CompletableFuture or a Mono whole, but a Flux — a stream
			// read reactively — item by item (resilience4j-reactor TimeLimiterOperator:
			// Flux.timeout, from the subscription to the first item and between items): what
			// cuts a stream under either reading is an idle bound, so PT017 judges it as one.
			b := streamBound{idle: true, name: "timelimiter timeoutDuration", d: v}
			if tat != nil {
				l.setAt("PT001", posOf(r.cf, tat))
				b.at = posOf(r.cf, tat)
			} else {
				l.addDefault("resilience4j default: timelimiter timeoutDuration 1s")
				b.dflt = "resilience4j default: the timelimiter instance sets none"
			}
			l.streamBound(b)
			if v == 0 {
				l.checks.noTimeout = fmt.Sprintf("resilience4j timelimiter %s has timeoutDuration 0", name)
			}
		}
		if has["circuitbreaker"][name] {
			l.pol.Breaker = &policy.Breaker{}
		}
		for _, prof := range r.p.activated {
			l.addDefault("Spring profile %q active: spring.profiles.active in the file names it", prof)
		}
		if r.p.active != "" {
			l.addDefault("read with Spring profile %q active: resilience4j is set only in its document", r.p.active)
		}
		for _, prof := range r.p.profiles {
			l.addDefault("Spring profile document %q not read: the application as it runs without a profile", prof)
		}
		out = append(out, &layerCandidate{layer: l, names: []string{name}, doc: d})
	}
	return out, nil
}

// retryLayer sets the layer's retries from the RetryConfig of name.
func (r *r4jReader) retryLayer(l *ChainLayer, name string) error {
	props, err := r.retryProps(r.prefix("retry", "instances", name))
	if err != nil {
		return err
	}
	if name == "default" && props == nil {
		props, err = r.retryProps(r.prefix("retry", "configs", "default"))
		if err != nil {
			return err
		}
	}
	cfg, _, err := r.retryConfig(name, props, 0)
	if err != nil {
		return err
	}
	for _, n := range cfg.placeholder {
		l.addDefault("%s", n)
	}
	via := ""
	if len(cfg.from) > 0 {
		via = " (from configs." + strings.Join(cfg.from, " → configs.") + ")"
	}
	if cfg.attemptsAt != nil {
		l.retryAt = posOf(r.cf, cfg.attemptsAt)
		l.retryWhy = fmt.Sprintf("maxAttempts: %d (attempts)%s", cfg.attempts, via)
	} else {
		l.retryDefault = true
		l.retryWhy = "resilience4j default: maxAttempts 3"
		l.addDefault("resilience4j default: maxAttempts 3 (attempts)")
	}
	classes := FailureClasses
	if cfg.retrySet {
		classes = r4jExceptions(cfg.retryExc)
		l.setAt("PT007", posOf(r.cf, cfg.retryExcAt))
	} else if !cfg.predicate {
		l.addDefault("resilience4j default: every exception is retried, 4xx included (no retryExceptions)")
	}
	if cfg.ignoreExc != nil {
		ignored := r4jExceptions(cfg.ignoreExc)
		classes = slices.DeleteFunc(slices.Clone(classes), func(c FailureClass) bool { return slices.Contains(ignored, c) })
	}
	l.retryClasses(cfg.attempts, classes)
	rp := &l.pol.Retry
	rp.Backoff, rp.Base = policy.BackoffConstant, cfg.wait
	if cfg.waitAt != nil {
		l.setAt("PT006", posOf(r.cf, cfg.waitAt))
		l.setAt("PT013", posOf(r.cf, cfg.waitAt))
	} else {
		l.addDefault("resilience4j default: waitDuration 500ms, fixed")
	}
	if cfg.expo {
		rp.Backoff, rp.Multiplier, rp.Cap = policy.BackoffExponential, cfg.multiplier, cfg.cap
	}
	if cfg.rand {
		rp.Jitter, rp.JitterFactor = policy.JitterRandomized, cfg.factor
	} else {
		l.say("PT006", fmt.Sprintf("resilience4j retry %s waits a fixed %s between attempts (no enableRandomizedWait)", name, units.Duration(rp.Base)))
	}
	if rp.Base == 0 {
		rp.Backoff = policy.BackoffNone
	}
	return nil
}

// resilience4jMarker says whether the Spring properties hold resilience4j settings, and
// whether any of them is of a module check reads; at is the first such key.
func resilience4jMarker(p *springProps) (at *yaml.Node, found, read bool) {
	at, found = p.under(springPath("resilience4j"))
	for _, m := range r4jModules {
		if k, ok := p.under(springPath("resilience4j", m)); ok {
			if !read || (k != nil && at != nil && k.Line < at.Line) {
				at = k
			}
			read = true
		}
	}
	return at, found, read
}

// resilience4jReadable checks that a file with resilience4j keys has something to read:
// instances or configs under retry, timelimiter or circuitbreaker.
func resilience4jReadable(cf *ConfigFile, p *springProps) error {
	at, _, read := resilience4jMarker(p)
	if !read {
		mods := p.keys(springPath("resilience4j"))
		return configError(cf, at, "resilience4j", "no retry, timelimiter or circuitbreaker settings to read (it has %s)", strings.Join(mods, ", "))
	}
	for _, m := range r4jModules {
		for _, kind := range []string{"instances", "backends", "configs"} {
			if len(p.keys(springPath("resilience4j", m, kind))) > 0 {
				return nil
			}
		}
	}
	field := "resilience4j"
	for _, m := range r4jModules {
		if k, ok := p.under(springPath("resilience4j", m)); ok && k == at {
			field += "." + m
		}
	}
	return configError(cf, at, field, "no instances or configs to read")
}
