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

// ingress-nginx: Ingress annotations (nginx.ingress.kubernetes.io/KEY) and the controller
// ConfigMap (the same KEYs) (docs/formats.md#retries-nobody-wrote, #ingress-nginx; ingress-nginx
// docs/user-guide/nginx-configuration/annotations.md, configmap.md,
// internal/ingress/controller/config/config.go). Timeouts are unitless seconds.

const nginxAnnotation = "nginx.ingress.kubernetes.io/"

// nginxDefaults are the controller's defaults for the keys check reads.
var nginxDefaults = map[string]string{
	"proxy-connect-timeout":       "5",
	"proxy-read-timeout":          "60",
	"proxy-next-upstream":         "error timeout",
	"proxy-next-upstream-tries":   "3",
	"proxy-next-upstream-timeout": "0",
	"retry-non-idempotent":        "false",
}

// nginxKeys are the keys, in the order the defaults are named.
var nginxKeys = []string{"proxy-next-upstream", "proxy-next-upstream-tries", "proxy-next-upstream-timeout", "proxy-connect-timeout", "proxy-read-timeout", "retry-non-idempotent"}

// nginxConfigMap says whether a ConfigMap's data holds ingress-nginx keys.
func nginxConfigMap(data *yaml.Node) bool {
	for _, k := range nginxKeys {
		if get(data, k) != nil {
			return true
		}
	}
	return false
}

// isNginxIngress says whether an Ingress is served by ingress-nginx: its class names nginx,
// or it carries nginx.ingress.kubernetes.io annotations.
func isNginxIngress(n *yaml.Node) bool {
	if strings.Contains(scalar(get(get(n, "spec"), "ingressClassName")), "nginx") {
		return true
	}
	for _, kv := range pairs(get(get(n, "metadata"), "annotations")) {
		if strings.HasPrefix(kv[0].Value, nginxAnnotation) || (kv[0].Value == "kubernetes.io/ingress.class" && strings.Contains(scalar(kv[1]), "nginx")) {
			return true
		}
	}
	return false
}

// nginxValue is one key's value and where it came from.
type nginxValue struct {
	value string
	node  *yaml.Node // nil = the default
	from  string     // "annotation", "ConfigMap NAME", "ingress-nginx default"
	file  *ConfigFile
}

// nginxLayers reads an Ingress ingress-nginx serves as one layer: its timeouts, the tries
// and failures of proxy-next-upstream, and retry-non-idempotent.
func nginxLayers(d *configDoc, cs *Configs) ([]*layerCandidate, error) {
	if !isNginxIngress(d.node) {
		return nil, nil
	}
	nr := &nginxReader{d: d, anns: get(get(d.node, "metadata"), "annotations")}
	if cs != nil {
		nr.cm = cs.nginxConfigMap()
	}
	s, err := nr.settings()
	if err != nil {
		return nil, err
	}
	l := newLayer("ingress-nginx", d.name, d.pos)
	nginxApply(l, s, ingressNginxWords)
	names, hosts := ingressBackends(d)
	return []*layerCandidate{{layer: l, names: names, hosts: hosts, doc: d}}, nil
}

// nginxReader reads one Ingress's ingress-nginx settings: each key from the Ingress's
// annotations, else the controller ConfigMap, else the controller's default.
type nginxReader struct {
	d    *configDoc
	cm   *configDoc // the controller ConfigMap; nil = none read
	anns *yaml.Node
}

// val is key's value and where it came from.
func (nr *nginxReader) val(key string) nginxValue {
	if v := get(nr.anns, nginxAnnotation+key); v != nil {
		return nginxValue{value: scalar(v), node: v, from: "annotation", file: nr.d.file}
	}
	if nr.cm != nil {
		if v := get(get(nr.cm.node, "data"), key); v != nil {
			return nginxValue{value: scalar(v), node: v, from: "ConfigMap " + nr.cm.name, file: nr.cm.file}
		}
	}
	return nginxValue{value: nginxDefaults[key], from: "ingress-nginx default"}
}

// setting is key's value as a setting nginxApply reads.
func (v nginxValue) setting() nginxSetting {
	if v.node == nil {
		return nginxSetting{text: v.value}
	}
	return nginxSetting{text: v.value, at: posOf(v.file, v.node), from: v.from}
}

// seconds reads a timeout key (unitless seconds).
func (nr *nginxReader) seconds(key string) (nginxDuration, error) {
	v := nr.val(key)
	n := 0
	var err error
	if v.node == nil {
		fmt.Sscan(v.value, &n)
	} else {
		n, err = intField(v.file, v.node, key, 0)
	}
	return nginxDuration{d: time.Duration(n) * time.Second, nginxSetting: v.setting()}, err
}

// settings reads the Ingress's keys, each checked at its line.
func (nr *nginxReader) settings() (*nginxSettings, error) {
	s := &nginxSettings{}
	var err error
	if s.connect, err = nr.seconds("proxy-connect-timeout"); err != nil {
		return nil, err
	}
	if s.read, err = nr.seconds("proxy-read-timeout"); err != nil {
		return nil, err
	}
	if s.nextTimeout, err = nr.seconds("proxy-next-upstream-timeout"); err != nil {
		return nil, err
	}
	tries := nr.val("proxy-next-upstream-tries")
	s.tries.nginxSetting, s.tries.n = tries.setting(), 3
	if tries.node != nil {
		if s.tries.n, err = intField(tries.file, tries.node, "proxy-next-upstream-tries", 0); err != nil {
			return nil, err
		}
	}
	s.next = nr.val("proxy-next-upstream").setting()
	if ni := nr.val("retry-non-idempotent"); ni.value == "true" {
		s.nonIdempotent = ni.setting()
	}
	return s, nil
}

// The mapping below is the one definition of what nginx's proxy settings do to a call, for
// every reader of them: ingress-nginx's keys above and an nginx.conf's directives
// (config_nginxconf.go). nginx/nginx src/http/modules/ngx_http_proxy_module.c and
// src/http/ngx_http_upstream.c (ngx_http_upstream_next) decide it.

// nginxWords are a format's names for nginx's proxy settings.
type nginxWords struct {
	// kind is the layer's kind: "ingress-nginx" or "nginx".
	kind string
	// fallback names the defaults: "ingress-nginx default".
	fallback string
	// key names a setting by its ingress-nginx key ("proxy-next-upstream-tries") in the
	// format's own words.
	key func(string) string
	// where is what leaves a setting unsaid: "this Ingress".
	where string
}

var ingressNginxWords = nginxWords{kind: "ingress-nginx", fallback: "ingress-nginx default", key: func(k string) string { return k }, where: "this Ingress"}

// nginxSetting is one setting as written (at.Line > 0, by from) or the format's default.
type nginxSetting struct {
	text string
	at   policy.Pos
	from string
}

func (s nginxSetting) set() bool { return s.at.Line > 0 }

// nginxDuration is a timeout setting and its value (0 = none).
type nginxDuration struct {
	nginxSetting
	d time.Duration
}

// nginxCount is proxy_next_upstream_tries and its value (0 = no limit).
type nginxCount struct {
	nginxSetting
	n int
}

// nginxSettings are one location's proxy settings, read and checked by its format's reader.
type nginxSettings struct {
	connect, read, nextTimeout nginxDuration
	tries                      nginxCount
	// next is proxy_next_upstream's value; nonIdempotent ingress-nginx's
	// retry-non-idempotent: "true" (the non_idempotent token does the same).
	next, nonIdempotent nginxSetting
	// servers bound the tries: nginx tries each server of the upstream at most once (0 = no
	// bound: ingress-nginx's balancer picks the endpoints); serversWhy says where the bound
	// comes from ("3 servers in upstream backend").
	servers    int
	serversWhy string
}

// nginxDefaultNext is proxy_next_upstream's default, nginx's and ingress-nginx's.
const nginxDefaultNext = "error timeout"

// nginxApply maps one location's settings onto its layer.
func nginxApply(l *ChainLayer, s *nginxSettings, w nginxWords) {
	l.answer = answerNginx
	// A request nginx sent is not passed to the next server when its method is not
	// idempotent (POST, LOCK, PATCH), unless proxy_next_upstream has non_idempotent: only a
	// connection that never opened is retried.
	l.unsentOnly = true
	pol := l.pol
	for _, t := range []struct {
		key string
		v   nginxDuration
		to  *time.Duration
	}{
		{"proxy-connect-timeout", s.connect, &pol.ConnectTimeout},
		// proxy_read_timeout is "a timeout for reading a response from the proxied server …
		// only between two successive read operations, not for the transmission of the whole
		// response" (ngx_http_proxy_module; ingress-nginx annotations.md): a read timeout
		// (policy.ReadTimeout), not a per-try total — nginx has none, and a response dripping
		// a byte every 59 s holds a 60 s try open for as long as it drips. Until issue 27 it
		// was read as the per-try total (policy.Timeout).
		{"proxy-read-timeout", s.read, &pol.ReadTimeout},
		{"proxy-next-upstream-timeout", s.nextTimeout, &pol.Deadline},
	} {
		*t.to = t.v.d
		if !t.v.set() {
			l.addDefault("%s: %s %s", w.fallback, w.key(t.key), t.v.text)
		}
	}
	// proxy_read_timeout bounds the wait for the first byte and each silence after it: a
	// stream's first event and its gaps (PT017), nginx's 60 s when unset.
	read := streamBound{idle: true, name: w.key("proxy-read-timeout"), d: s.read.d, at: s.read.at}
	if !s.read.set() {
		read.dflt = w.fallback + ": " + w.where + " sets none"
	}
	l.streamBound(read)
	nginxRetries(l, s, w)
	l.pol.Retry.NonIdempotent = policy.NonIdempotentNever // "Since 1.9.13 NGINX will not retry non-idempotent requests"
	for _, ni := range []nginxSetting{s.nonIdempotent, s.next} {
		if _, always := nginxNextUpstream(ni.text); ni.set() && (always || ni.text == "true") {
			l.pol.Retry.NonIdempotent = policy.NonIdempotentAlways
			l.setAt("PT005", ni.at)
			break
		}
	}
	// The next upstream is tried at once: no backoff (PT013).
	next := w.key("proxy-next-upstream")
	l.say("PT013", fmt.Sprintf("%s tries the next upstream at once (%s has no backoff)", kindTitle(w.kind), next))
	if s.tries.set() {
		l.setAt("PT013", s.tries.at)
		l.setAt("PT004", s.tries.at)
	}
	l.checks.tryTime = l.pol.ConnectTimeout + l.pol.ReadTimeout
	l.checks.tryText = fmt.Sprintf("(%s connect + %s read)", units.Duration(l.pol.ConnectTimeout), units.Duration(l.pol.ReadTimeout))
	if l.pol.Deadline == 0 {
		l.checks.tryText += " with no " + w.key("proxy-next-upstream-timeout")
	}
}

// nginxRetries sets the layer's attempts: proxy_next_upstream_tries (0 = no limit) bounded
// by the upstream's servers, on the failures proxy_next_upstream names.
func nginxRetries(l *ChainLayer, s *nginxSettings, w nginxWords) {
	key := w.key("proxy-next-upstream-tries")
	n := s.tries.n
	if s.tries.set() {
		l.retryAt = s.tries.at
		l.retryWhy = fmt.Sprintf("%s %d (%s)", key, n, s.tries.from)
	} else {
		l.retryDefault = true
		l.retryWhy = fmt.Sprintf("%s: %s %s on %q (no %s on %s)", w.fallback, key, s.tries.text, s.next.text, key, w.where)
		l.addDefault("%s: %s %s", w.fallback, key, s.tries.text)
	}
	attempts := n
	if n == 0 {
		attempts = policy.Unlimited // proxy_next_upstream_tries 0 "turns off this limitation"
	}
	if s.servers > 0 && (attempts == policy.Unlimited || attempts > s.servers) {
		attempts = s.servers
		l.retryWhy += ", " + s.serversWhy
	}
	if !s.next.set() {
		l.addDefault("%s: %s %q", w.fallback, w.key("proxy-next-upstream"), nginxDefaultNext)
	}
	classes, _ := nginxNextUpstream(s.next.text)
	l.retryClasses(attempts, classes)
	if !s.tries.set() && s.next.set() {
		l.retryAt = s.next.at
	}
	if s.next.set() {
		l.setAt("PT007", s.next.at)
	}
}

// nginxNextUpstreamTokens are proxy_next_upstream's values
// (ngx_http_proxy_next_upstream_masks).
var nginxNextUpstreamTokens = []string{"error", "timeout", "invalid_header", "http_500", "http_502", "http_503", "http_504", "http_403", "http_404", "http_429", "non_idempotent", "updating", "off"}

// nginxNextUpstream maps proxy_next_upstream's tokens to the failures retried, and says
// whether non_idempotent is among them. "off" anywhere turns every other token off
// (ngx_http_proxy_merge_loc_conf). http_500, http_502 and http_504 are check's 5xx class
// (a 502 or 504 is what a proxy below answers for an error or a timeout); http_403 and
// http_404 its 4xx class. invalid_header (an empty or invalid response) is none of check's
// classes, and updating concerns the cache.
func nginxNextUpstream(value string) (classes []FailureClass, nonIdempotent bool) {
	toks := strings.Fields(value)
	if slices.Contains(toks, "off") {
		return nil, false
	}
	add := func(cs ...FailureClass) {
		for _, c := range cs {
			if !slices.Contains(classes, c) {
				classes = append(classes, c)
			}
		}
	}
	for _, tok := range toks {
		switch tok {
		case "error":
			add(FailConnect, FailReset)
		case "timeout":
			add(FailTimeout)
		case "http_500", "http_502", "http_504":
			add(Fail5xx)
		case "http_503":
			add(Fail503)
		case "http_429":
			add(Fail429)
		case "http_403", "http_404":
			add(Fail4xx)
		case "non_idempotent":
			nonIdempotent = true
		}
	}
	return classes, nonIdempotent
}

// ingressBackends are the names an Ingress's layer matches (its own and its backend
// services') and the hosts of its rules.
func ingressBackends(d *configDoc) (names, hosts []string) {
	names = []string{d.name}
	for _, r := range items(get(get(d.node, "spec"), "rules")) {
		if h := scalar(get(r, "host")); h != "" {
			hosts = append(hosts, h)
		}
		for _, p := range items(get(get(r, "http"), "paths")) {
			if s := scalar(get(get(get(p, "backend"), "service"), "name")); s != "" {
				names = append(names, s)
			}
		}
	}
	return names, hosts
}

// nginxConfigMap returns the first ConfigMap with ingress-nginx keys that was read.
func (cs *Configs) nginxConfigMap() *configDoc {
	for _, cf := range cs.Files {
		for _, d := range cf.docs {
			if d.kind == "ConfigMap" && nginxConfigMap(get(d.node, "data")) {
				return d
			}
		}
	}
	return nil
}
