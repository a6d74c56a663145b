package check

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/units"
	"gopkg.in/yaml.v3"
)

// AWS Load Balancer Controller: an Ingress it serves is an Application Load Balancer in
// front of the Ingress rules' backends (issue 29 item 4, docs/formats.md "AWS ALB"). The ALB's
// idle timeout is the load balancer attribute idle_timeout.timeout_seconds, written in the
// Ingress annotation alb.ingress.kubernetes.io/load-balancer-attributes as a stringMap
// ("k1=v1,k2=v2"; kubernetes-sigs/aws-load-balancer-controller
// docs/guide/ingress/annotations.md#load-balancer-attributes: "set idle_timeout delay to 600
// seconds: idle_timeout.timeout_seconds=600"). The ALB closes a connection on which no data
// has been sent or received for that long, 60 s by default, 1 to 4000 s (Elastic Load
// Balancing API_LoadBalancerAttribute): the front connection and the one to the target, so a
// stream's first event and every gap must come within it. An ALB does not retry a request
// to its targets, and has no timeout on the whole response: a target that sends a byte
// within every idle period holds the request as long as it likes.
//
// A Service of type LoadBalancer served as an NLB is not read: an NLB forwards TCP and its
// idle timeout (350 s, per flow) bounds a silent connection, not an HTTP request's wait.

const (
	albAnnotation = "alb.ingress.kubernetes.io/"
	// albController is the IngressClass controller name of the AWS Load Balancer Controller.
	albController = "ingress.k8s.aws/alb"
	// albAttributes is the annotation holding the load balancer attributes.
	albAttributes = albAnnotation + "load-balancer-attributes"
	// albIdleKey is the idle timeout's attribute, in whole seconds.
	albIdleKey = "idle_timeout.timeout_seconds"
	// albIdleDefault is the ALB's idle timeout when no attribute sets it.
	albIdleDefault = 60 * time.Second
	// albIdleMin and albIdleMax bound the attribute (API_LoadBalancerAttribute: 1-4000).
	albIdleMin, albIdleMax = 1, 4000
)

// ingressClass is the class an Ingress names: spec.ingressClassName, else the
// kubernetes.io/ingress.class annotation ("" = none).
func ingressClass(n *yaml.Node) string {
	if c := scalar(get(get(n, "spec"), "ingressClassName")); c != "" {
		return c
	}
	return scalar(get(get(get(n, "metadata"), "annotations"), "kubernetes.io/ingress.class"))
}

// isALBIngress says whether an Ingress is served by the AWS Load Balancer Controller: its
// class names alb (the controller's IngressClass is conventionally "alb"), or it names no
// class and carries alb.ingress.kubernetes.io annotations and no nginx.ingress.kubernetes.io
// ones.
func isALBIngress(n *yaml.Node) bool {
	if c := strings.ToLower(ingressClass(n)); c != "" {
		return strings.Contains(c, "alb") && !strings.Contains(c, "nginx")
	}
	alb := false
	for _, kv := range pairs(get(get(n, "metadata"), "annotations")) {
		switch {
		case strings.HasPrefix(kv[0].Value, nginxAnnotation):
			return false
		case strings.HasPrefix(kv[0].Value, albAnnotation):
			alb = true
		}
	}
	return alb
}

// albIdle is an ALB's idle timeout and where it was set: the annotation's value node, in
// file; node nil for the default. from says who set it when another resource did ("set for
// IngressGroup shared", "set by IngressClassParams alb-params"; "" = this Ingress).
type albIdle struct {
	d    time.Duration
	node *yaml.Node
	file *ConfigFile
	from string
}

// albAttribute reads idle_timeout.timeout_seconds from an Ingress's load-balancer-attributes
// (found false when it holds none). A pair without "=" or a value that is not a whole number
// of seconds in 1-4000 is an input error at the annotation's line.
func albAttribute(d *configDoc) (albIdle, bool, error) {
	v := get(get(get(d.node, "metadata"), "annotations"), albAttributes)
	if v == nil {
		return albIdle{}, false, nil
	}
	for _, kv := range strings.Split(scalar(v), ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		if !ok {
			return albIdle{}, false, configError(d.file, v, albAttributes, "want key=value pairs separated by commas, got %q", kv)
		}
		if strings.TrimSpace(k) != albIdleKey {
			continue
		}
		idle, err := albIdleValue(d.file, v, albAttributes, val)
		return idle, err == nil, err
	}
	return albIdle{}, false, nil
}

// albIdleValue reads the idle timeout's value, whole seconds from 1 to 4000, set at v.
func albIdleValue(cf *ConfigFile, v *yaml.Node, field, val string) (albIdle, error) {
	n, err := strconv.Atoi(strings.TrimSpace(val))
	if err != nil || n < albIdleMin || n > albIdleMax {
		return albIdle{}, configError(cf, v, field, "%s: want whole seconds from %d to %d, got %q", albIdleKey, albIdleMin, albIdleMax, strings.TrimSpace(val))
	}
	return albIdle{d: time.Duration(n) * time.Second, node: v, file: cf}, nil
}

// albClassParamsIdle reads idle_timeout.timeout_seconds from an IngressClassParams's
// spec.loadBalancerAttributes ([{key, value}]) (found false when it sets none).
func albClassParamsIdle(d *configDoc) (albIdle, bool, error) {
	for _, a := range items(get(get(d.node, "spec"), "loadBalancerAttributes")) {
		if scalar(get(a, "key")) != albIdleKey {
			continue
		}
		v := get(a, "value")
		idle, err := albIdleValue(d.file, v, "spec.loadBalancerAttributes", scalar(v))
		idle.from = "set by IngressClassParams " + d.name
		return idle, err == nil, err
	}
	return albIdle{}, false, nil
}

// albClassParams is the IngressClassParams that the IngressClass an Ingress names refers to
// (spec.parameters), among the files read; nil for none.
func (cs *Configs) albClassParams(class string) *configDoc {
	var params string
	cs.eachDoc(func(d *configDoc) bool {
		p := get(get(d.node, "spec"), "parameters")
		if d.kind == "IngressClass" && d.name == class && scalar(get(p, "kind")) == "IngressClassParams" {
			params = scalar(get(p, "name"))
			return false
		}
		return true
	})
	var out *configDoc
	cs.eachDoc(func(d *configDoc) bool {
		if d.kind == "IngressClassParams" && params != "" && d.name == params {
			out = d
			return false
		}
		return true
	})
	return out
}

// eachDoc calls f on every document read, in order, until f returns false.
func (cs *Configs) eachDoc(f func(*configDoc) bool) {
	for _, cf := range cs.Files {
		for _, d := range cf.docs {
			if !f(d) {
				return
			}
		}
	}
}

// albGroup is the IngressGroup an Ingress joins (alb.ingress.kubernetes.io/group.name), ""
// for none: the Ingresses of one group share one ALB, and the load balancer attributes are
// exclusive across it, so any one of them may set the idle timeout for all.
func albGroup(n *yaml.Node) string {
	return scalar(get(get(get(n, "metadata"), "annotations"), albAnnotation+"group.name"))
}

// albIdleOf is an ALB Ingress's idle timeout: the one its IngressClass's IngressClassParams
// sets (it applies to every Ingress of the class, the annotation only where it sets none:
// aws-load-balancer-controller docs/guide/ingress/ingress_class.md), else its own
// annotation, else one set by another Ingress of its IngressGroup among the files read, else
// the ALB's default.
func albIdleOf(d *configDoc, cs *Configs) (albIdle, error) {
	if cs != nil {
		if p := cs.albClassParams(ingressClass(d.node)); p != nil {
			if idle, ok, err := albClassParamsIdle(p); err != nil || ok {
				return idle, err
			}
		}
	}
	idle, ok, err := albAttribute(d)
	if err != nil || ok || cs == nil {
		return idle, err
	}
	g := albGroup(d.node)
	var found albIdle
	cs.eachDoc(func(o *configDoc) bool {
		if g == "" || o == d || o.kind != "Ingress" || albGroup(o.node) != g || !isALBIngress(o.node) {
			return true
		}
		found, ok, err = albAttribute(o)
		found.from = "set for IngressGroup " + g
		return !ok && err == nil
	})
	if err != nil || ok {
		return found, err
	}
	return albIdle{d: albIdleDefault}, nil
}

// albLayers reads an Ingress the AWS Load Balancer Controller serves as one layer: an ALB
// that makes one try and ends a silence of its idle timeout with a 504.
func albLayers(d *configDoc, cs *Configs) ([]*layerCandidate, error) {
	idle, err := albIdleOf(d, cs)
	if err != nil {
		return nil, err
	}
	l := newLayer("alb", d.name, d.pos)
	// An ALB answers 502 when the target resets or refuses and 504 when it stays silent
	// past the idle timeout, as nginx does (answerNginx).
	l.answer = answerNginx
	l.retryWhy = "an ALB does not retry a request to its targets"
	// One try, so the idle timeout ends a silent target as a read timeout would (the chain
	// arithmetic's tryTimeout); it is also the layer's idle timeout, across the request.
	l.pol.ReadTimeout, l.idle = idle.d, idle.d
	b := streamBound{idle: true, name: albIdleKey, d: idle.d}
	switch {
	case idle.node == nil:
		b.dflt = "ALB default: this Ingress sets no " + albAttributes + ", and no IngressClassParams read sets loadBalancerAttributes"
		l.addDefault("ALB default: %s %d (no %s on this Ingress)", albIdleKey, int(albIdleDefault/time.Second), albAttributes)
	case idle.from != "":
		b.at, b.from = posOf(idle.file, idle.node), idle.from
	default:
		b.at = posOf(idle.file, idle.node)
	}
	l.streamBound(b)
	l.checks.tryTime = idle.d
	l.checks.tryText = fmt.Sprintf("(the %s idle timeout)", units.Duration(idle.d))
	names, hosts := ingressBackends(d)
	return []*layerCandidate{{layer: l, names: names, hosts: hosts, doc: d}}, nil
}
