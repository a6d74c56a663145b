package advise

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Filter is a compiled --filter expression: comparisons of a record's fields joined with
// and, or, not and parentheses —
//
//	host=api.example.com and method!=OPTIONS and status<500
//	path~'^/v1/orders' or route='/users/{id}'
//	status=5xx or (time>='2024-05-01T13:00:00Z' and time<'2024-05-01T14:00:00Z')
//	duration>2s
//
// Fields: host, method, path, route, status (a number, or 2xx/4xx/5xx), error (the error
// class of a request without a response), time (RFC 3339, or 2006-01-02 15:04, UTC) and
// duration (a Go duration, or milliseconds), and metric (alias __name__, PromQL's spelling):
// the histogram family of a Prometheus input — metric=http_request_duration_seconds names
// the family to advise from (prometheus.go). Operators: = != ~ (RE2) !~ < <= > >=.
type Filter struct {
	root node
}

type node interface{ eval(r *Record) bool }

type andNode struct{ a, b node }
type orNode struct{ a, b node }
type notNode struct{ a node }

func (n andNode) eval(r *Record) bool { return n.a.eval(r) && n.b.eval(r) }
func (n orNode) eval(r *Record) bool  { return n.a.eval(r) || n.b.eval(r) }
func (n notNode) eval(r *Record) bool { return !n.a.eval(r) }

// cmpNode is one comparison.
type cmpNode struct {
	field, op, value string
	re               *regexp.Regexp
	num              float64
	class            int // status class (5 for 5xx), 0 when none
	when             time.Time
	dur              time.Duration
}

// filterFields are the fields a filter may name.
var filterFields = []string{"host", "method", "path", "route", "status", "error", "time", "duration", "metric"}

// Match says whether r passes the filter.
func (f *Filter) Match(r *Record) bool { return f == nil || f.root.eval(r) }

// ParseFilter compiles a --filter expression.
func ParseFilter(s string) (*Filter, error) {
	toks, err := lexFilter(s)
	if err != nil {
		return nil, err
	}
	p := &filterParser{toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("%q: unexpected %q", s, p.toks[p.i])
	}
	return &Filter{root: n}, nil
}

type filterParser struct {
	toks []string
	i    int
}

func (p *filterParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *filterParser) or() (node, error) {
	a, err := p.and()
	if err != nil {
		return nil, err
	}
	for t := strings.ToLower(p.peek()); t == "or" || t == "||"; t = strings.ToLower(p.peek()) {
		p.i++
		b, err := p.and()
		if err != nil {
			return nil, err
		}
		a = orNode{a, b}
	}
	return a, nil
}

func (p *filterParser) and() (node, error) {
	a, err := p.unary()
	if err != nil {
		return nil, err
	}
	for t := strings.ToLower(p.peek()); t == "and" || t == "&&"; t = strings.ToLower(p.peek()) {
		p.i++
		b, err := p.unary()
		if err != nil {
			return nil, err
		}
		a = andNode{a, b}
	}
	return a, nil
}

func (p *filterParser) unary() (node, error) {
	switch t := strings.ToLower(p.peek()); t {
	case "":
		return nil, errors.New("expression ends too soon")
	case "not", "!":
		p.i++
		a, err := p.unary()
		return notNode{a}, err
	case "(":
		p.i++
		a, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, errors.New("missing )")
		}
		p.i++
		return a, nil
	}
	if p.i+3 > len(p.toks) {
		return nil, fmt.Errorf("%q: want FIELD OP VALUE", strings.Join(p.toks[p.i:], " "))
	}
	field, op, value := strings.ToLower(p.toks[p.i]), p.toks[p.i+1], p.toks[p.i+2]
	p.i += 3
	return newCmp(field, op, value)
}

func newCmp(field, op, value string) (node, error) {
	if field == "__name__" {
		field = "metric"
	}
	known := false
	for _, f := range filterFields {
		known = known || f == field
	}
	if !known {
		return nil, fmt.Errorf("unknown field %q: want one of %s", field, strings.Join(filterFields, ", "))
	}
	switch op {
	case "=", "==", "!=", "~", "!~", "<", "<=", ">", ">=":
	default:
		return nil, fmt.Errorf("%s %s: unknown operator (want = != ~ !~ < <= > >=)", field, op)
	}
	if op == "==" {
		op = "="
	}
	c := &cmpNode{field: field, op: op, value: value}
	if op == "~" || op == "!~" {
		re, err := regexp.Compile(value)
		if err != nil {
			return nil, fmt.Errorf("%s %s %q: %v", field, op, value, err)
		}
		c.re = re
		return c, nil
	}
	ordered := op != "=" && op != "!="
	switch field {
	case "status":
		v := strings.ToLower(value)
		if len(v) == 3 && strings.HasSuffix(v, "xx") && v[0] >= '1' && v[0] <= '5' {
			if ordered {
				return nil, fmt.Errorf("status %s %s: a class takes = or !=", op, value)
			}
			c.class = int(v[0] - '0')
			return c, nil
		}
		n, err := strconv.Atoi(value)
		if err != nil {
			return nil, fmt.Errorf("status %s %q: want a number or 2xx, 4xx, 5xx", op, value)
		}
		c.num = float64(n)
	case "time":
		t, err := ParseTime(value)
		if err != nil {
			return nil, fmt.Errorf("time %s %q: %v", op, value, err)
		}
		c.when = t
	case "duration":
		d, err := time.ParseDuration(value)
		if err != nil {
			f, ferr := strconv.ParseFloat(value, 64)
			if ferr != nil {
				return nil, fmt.Errorf("duration %s %q: want a duration such as 500ms or 2s", op, value)
			}
			d = time.Duration(f * float64(time.Millisecond))
		}
		c.dur = d
	default:
		if ordered {
			return nil, fmt.Errorf("%s %s: text fields take = != ~ !~", field, op)
		}
	}
	return c, nil
}

// ParseTime reads a filter or --since/--until time: RFC 3339, or a date and time in UTC.
func ParseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("want RFC 3339 (2024-05-01T13:00:00Z) or 2024-05-01 13:00 (UTC)")
}

func (c *cmpNode) eval(r *Record) bool {
	var s string
	switch c.field {
	case "status":
		if c.class > 0 {
			return (r.Status/100 == c.class) == (c.op == "=")
		}
		if c.re != nil {
			s = strconv.Itoa(r.Status)
			break
		}
		return compare(float64(r.Status), c.num, c.op)
	case "time":
		if r.Time.IsZero() {
			return false
		}
		if c.re != nil {
			s = r.Time.UTC().Format(time.RFC3339)
			break
		}
		return compare(float64(r.Time.Sub(c.when)), 0, c.op)
	case "duration":
		if r.Total < 0 {
			return false
		}
		return compare(float64(r.Total), float64(c.dur), c.op)
	case "host":
		s = r.Host
	case "method":
		s = r.Method
	case "path":
		s = r.Path
	case "route":
		s = RouteTemplate(r.Path)
	case "error":
		s = r.Err
	case "metric":
		// A record of a log has no metric: a Prometheus family binds it (forMetric).
	}
	return c.text(s)
}

// text compares the text s.
func (c *cmpNode) text(s string) bool {
	switch c.op {
	case "~":
		return c.re.MatchString(s)
	case "!~":
		return !c.re.MatchString(s)
	case "!=":
		return !strings.EqualFold(s, c.value)
	}
	return strings.EqualFold(s, c.value)
}

// constNode is a comparison already decided (forMetric).
type constNode bool

func (c constNode) eval(*Record) bool { return bool(c) }

// forMetric is f with every comparison of the metric field decided for the family name, to
// be evaluated on that family's series; nil for nil.
func (f *Filter) forMetric(name string) *Filter {
	if f == nil {
		return nil
	}
	var bind func(n node) node
	bind = func(n node) node {
		switch v := n.(type) {
		case andNode:
			return andNode{bind(v.a), bind(v.b)}
		case orNode:
			return orNode{bind(v.a), bind(v.b)}
		case notNode:
			return notNode{bind(v.a)}
		case *cmpNode:
			if v.field == "metric" {
				return constNode(v.text(name))
			}
		}
		return n
	}
	return &Filter{root: bind(f.root)}
}

// namesMetric says whether f compares the metric field anywhere.
func (f *Filter) namesMetric() bool {
	if f == nil {
		return false
	}
	var walk func(n node) bool
	walk = func(n node) bool {
		switch v := n.(type) {
		case andNode:
			return walk(v.a) || walk(v.b)
		case orNode:
			return walk(v.a) || walk(v.b)
		case notNode:
			return walk(v.a)
		case *cmpNode:
			return v.field == "metric"
		}
		return false
	}
	return walk(f.root)
}

func compare(a, b float64, op string) bool {
	switch op {
	case "=":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	}
	return false
}

// lexFilter splits an expression into words, operators, parentheses and quoted strings.
func lexFilter(s string) ([]string, error) {
	var out []string
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '(' || c == ')':
			out = append(out, string(c))
			i++
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("%q: unterminated quote", s)
			}
			out = append(out, s[i+1:i+1+j])
			i += j + 2
		case strings.IndexByte("=!<>~&|", c) >= 0:
			j := i + 1
			for j < len(s) && strings.IndexByte("=<>~&|", s[j]) >= 0 {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t()=!<>~'\"", s[j]) < 0 {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	if len(out) == 0 {
		return nil, errors.New("empty expression")
	}
	return out, nil
}
