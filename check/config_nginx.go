package check

import (
	"fmt"
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
	nr := &nginxReader{d: d, anns: get(get(d.node, "metadata"), "annotations"), l: newLayer("ingress-nginx", d.name, d.pos)}
	if cs != nil {
		nr.cm = cs.nginxConfigMap()
	}
	l := nr.l
	l.answer = answerNginx
	if err := nr.timeouts(); err != nil {
		return nil, err
	}
	tries, err := nr.retries()
	if err != nil {
		return nil, err
	}
	l.pol.Retry.NonIdempotent = policy.NonIdempotentNever // "Since 1.9.13 NGINX will not retry non-idempotent requests"
	if ni := nr.val("retry-non-idempotent"); ni.value == "true" {
		l.pol.Retry.NonIdempotent = policy.NonIdempotentAlways
		l.setAt("PT005", posOf(ni.file, ni.node))
	}
	// The next upstream is tried at once: no backoff (PT013).
	l.say("PT013", "ingress-nginx tries the next upstream at once (proxy-next-upstream has no backoff)")
	if tries.node != nil {
		l.setAt("PT013", posOf(tries.file, tries.node))
		l.setAt("PT004", posOf(tries.file, tries.node))
	}
	l.checks.tryTime = l.pol.ConnectTimeout + l.pol.ReadTimeout
	l.checks.tryText = fmt.Sprintf("(%s connect + %s read)", units.Duration(l.pol.ConnectTimeout), units.Duration(l.pol.ReadTimeout))
	if l.pol.Deadline == 0 {
		l.checks.tryText += " with no proxy-next-upstream-timeout"
	}
	names, hosts := ingressBackends(d)
	return []*layerCandidate{{layer: l, names: names, hosts: hosts, doc: d}}, nil
}

// nginxReader reads one Ingress's ingress-nginx settings into its layer: each key from the
// Ingress's annotations, else the controller ConfigMap, else the controller's default.
type nginxReader struct {
	d    *configDoc
	cm   *configDoc // the controller ConfigMap; nil = none read
	anns *yaml.Node
	l    *ChainLayer
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

// seconds reads a timeout key (unitless seconds), noting a default the layer takes.
func (nr *nginxReader) seconds(key string) (time.Duration, error) {
	v := nr.val(key)
	if v.node == nil {
		nr.l.addDefault("ingress-nginx default: %s %s", key, v.value)
		var n int
		fmt.Sscan(v.value, &n)
		return time.Duration(n) * time.Second, nil
	}
	n, err := intField(v.file, v.node, key, 0)
	return time.Duration(n) * time.Second, err
}

// timeouts reads the connect and read timeouts and proxy-next-upstream-timeout, the
// deadline over every try. proxy-read-timeout is nginx's proxy_read_timeout: "a timeout for
// reading a response from the proxied server … only between two successive read operations,
// not for the transmission of the whole response" (ngx_http_proxy_module; ingress-nginx
// annotations.md) — a read timeout (policy.ReadTimeout), not a per-try total: nginx has
// none, and a response dripping a byte every 59 s holds a 60 s try open for as long as it
// drips. Until issue 27 it was read as the per-try total (policy.Timeout).
func (nr *nginxReader) timeouts() error {
	var err error
	pol := nr.l.pol
	if pol.ConnectTimeout, err = nr.seconds("proxy-connect-timeout"); err != nil {
		return err
	}
	if pol.ReadTimeout, err = nr.seconds("proxy-read-timeout"); err != nil {
		return err
	}
	pol.Deadline, err = nr.seconds("proxy-next-upstream-timeout")
	return err
}

// retries reads proxy-next-upstream-tries and the failures proxy-next-upstream retries,
// and returns the tries value.
func (nr *nginxReader) retries() (nginxValue, error) {
	l := nr.l
	tries := nr.val("proxy-next-upstream-tries")
	n := 3
	if tries.node != nil {
		var err error
		if n, err = intField(tries.file, tries.node, "proxy-next-upstream-tries", 0); err != nil {
			return tries, err
		}
		l.retryAt = posOf(tries.file, tries.node)
		l.retryWhy = fmt.Sprintf("proxy-next-upstream-tries %d (%s)", n, tries.from)
	} else {
		l.retryDefault = true
		l.retryWhy = "ingress-nginx default: proxy-next-upstream-tries 3 on \"error timeout\" (no proxy-next-upstream-tries on this Ingress)"
		l.addDefault("ingress-nginx default: proxy-next-upstream-tries 3")
	}
	if n == 0 {
		n = policy.Unlimited // proxy_next_upstream_tries 0 "turns off this limitation"
	}
	next := nr.val("proxy-next-upstream")
	if next.node == nil {
		l.addDefault("ingress-nginx default: proxy-next-upstream \"error timeout\"")
	}
	l.retryClasses(n, nginxNextUpstream(next.value))
	if tries.node == nil && next.node != nil {
		l.retryAt = posOf(next.file, next.node)
	}
	if next.node != nil {
		l.setAt("PT007", posOf(next.file, next.node))
	}
	return tries, nil
}

// nginxNextUpstream maps proxy-next-upstream's tokens to the failures retried ("off"
// retries none of those before it).
func nginxNextUpstream(value string) []FailureClass {
	var classes []FailureClass
	for _, tok := range strings.Fields(value) {
		switch tok {
		case "error":
			classes = append(classes, FailConnect, FailReset)
		case "timeout":
			classes = append(classes, FailTimeout)
		case "http_500":
			classes = append(classes, Fail5xx)
		case "http_503":
			classes = append(classes, Fail503)
		case "http_429":
			classes = append(classes, Fail429)
		case "off":
			classes = nil
		}
	}
	return classes
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
