package scenario

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// decoder walks yaml.v3 nodes strictly: every mapping lists the keys it accepts, every scalar
// has one type, and every problem becomes an *Error at the node with the field's dotted path.
type decoder struct {
	file string
}

// field is one key of a mapping with its value.
type field struct {
	key, val *yaml.Node
}

func (d *decoder) errf(n *yaml.Node, path, format string, a ...any) *Error {
	return errAt(d.file, n, path, format, a...)
}

// resolve follows aliases so `<<: *x` style anchors read like what they point at.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

// mapping checks that n is a mapping whose keys are all in allowed and appear once.
func (d *decoder) mapping(n *yaml.Node, path string, allowed ...string) (map[string]field, error) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return nil, d.errf(n, path, "want a mapping with keys %s, got %s", strings.Join(allowed, ", "), kindName(n))
	}
	out := make(map[string]field, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, d.errf(k, path, "keys must be plain words")
		}
		if k.Value == "<<" {
			return nil, d.errf(k, path, "merge keys (<<) are not supported; write the fields out or use base:")
		}
		if !slices.Contains(allowed, k.Value) {
			if s := suggest(k.Value, allowed); s != "" {
				return nil, d.errf(k, join(path, k.Value), "unknown field (did you mean %s? want one of %s)", s, strings.Join(allowed, ", "))
			}
			return nil, d.errf(k, join(path, k.Value), "unknown field (want one of %s)", strings.Join(allowed, ", "))
		}
		if prev, dup := out[k.Value]; dup {
			return nil, d.errf(k, join(path, k.Value), "set twice (first at line %d)", prev.key.Line)
		}
		out[k.Value] = field{key: k, val: resolve(v)}
	}
	return out, nil
}

// sequence checks that n is a list.
func (d *decoder) sequence(n *yaml.Node, path string) ([]*yaml.Node, error) {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		return nil, d.errf(n, path, "want a list, got %s", kindName(n))
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = resolve(c)
	}
	return out, nil
}

// scalar checks that n is a non-null scalar and returns its text.
func (d *decoder) scalar(n *yaml.Node, path, want string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", d.errf(n, path, "want %s, got %s", want, kindName(n))
	}
	return n.Value, nil
}

func (d *decoder) str(n *yaml.Node, path string) (string, error) {
	s, err := d.scalar(n, path, "a string")
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", d.errf(n, path, "must not be empty")
	}
	return s, nil
}

func (d *decoder) integer(n *yaml.Node, path string, min int) (int, error) {
	s, err := d.scalar(n, path, "a whole number")
	if err != nil {
		return 0, err
	}
	if n.Tag != "!!int" {
		return 0, d.errf(n, path, "want a whole number, got %q", s)
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil || v > 1<<40 || v < -(1<<40) {
		return 0, d.errf(n, path, "%q is out of range", s)
	}
	if int(v) < min {
		return 0, d.errf(n, path, "must be at least %d, got %d", min, v)
	}
	return int(v), nil
}

// bounded is an integer in [min, max].
func (d *decoder) bounded(n *yaml.Node, path string, min, max int) (int, error) {
	v, err := d.integer(n, path, min)
	if err == nil && v > max {
		return 0, d.errf(n, path, "%d is above the %d a simulation allows", v, max)
	}
	return v, err
}

func (d *decoder) number(n *yaml.Node, path string) (float64, error) {
	s, err := d.scalar(n, path, "a number")
	if err != nil {
		return 0, err
	}
	if n.Tag != "!!int" && n.Tag != "!!float" {
		return 0, d.errf(n, path, "want a number, got %q", s)
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil || v != v || v > 1e15 || v < -1e15 {
		return 0, d.errf(n, path, "%q is not a usable number", s)
	}
	if v < 0 {
		return 0, d.errf(n, path, "must not be negative, got %s", s)
	}
	return v, nil
}

func (d *decoder) boolean(n *yaml.Node, path string) (bool, error) {
	s, err := d.scalar(n, path, "true or false")
	if err != nil {
		return false, err
	}
	if n.Tag != "!!bool" {
		return false, d.errf(n, path, "want true or false, got %q", s)
	}
	return s == "true" || s == "True" || s == "TRUE", nil
}

func (d *decoder) duration(n *yaml.Node, path string) (time.Duration, error) {
	s, err := d.scalar(n, path, "a duration such as 2s")
	if err != nil {
		return 0, err
	}
	v, err := ParseDuration(s)
	if err != nil {
		return 0, d.errf(n, path, "%v", err)
	}
	return v, nil
}

// positive is a duration above zero.
func (d *decoder) positive(n *yaml.Node, path string) (time.Duration, error) {
	v, err := d.duration(n, path)
	if err == nil && v == 0 {
		return 0, d.errf(n, path, "must be above 0")
	}
	return v, err
}

// durationOrNone accepts "none" as 0 (no bound). A literal 0 is rejected with a hint, because
// "timeout: 0" reads like "time out at once".
func (d *decoder) durationOrNone(n *yaml.Node, path string) (time.Duration, error) {
	if n.Kind == yaml.ScalarNode && n.Value == "none" {
		return 0, nil
	}
	v, err := d.duration(n, path)
	if err == nil && v == 0 {
		return 0, d.errf(n, path, "0 would mean no time at all; write none for no bound")
	}
	return v, err
}

func (d *decoder) percent(n *yaml.Node, path string) (float64, error) {
	s, err := d.scalar(n, path, "a percentage such as 50%")
	if err != nil {
		return 0, err
	}
	v, err := ParsePercent(s)
	if err != nil {
		return 0, d.errf(n, path, "%v", err)
	}
	return v, nil
}

func (d *decoder) enum(n *yaml.Node, path string, choices ...string) (string, error) {
	s, err := d.scalar(n, path, "one of "+strings.Join(choices, ", "))
	if err != nil {
		return "", err
	}
	if !slices.Contains(choices, s) {
		return "", d.errf(n, path, "%q is not one of %s", s, strings.Join(choices, ", "))
	}
	return s, nil
}

// suggest returns the allowed key closest to a misspelt one (edit distance ≤ 2, or a key that
// differs only by "_" and case), or "".
func suggest(key string, allowed []string) string {
	best, bestD := "", 3
	norm := func(s string) string {
		return strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(s, "_", ""), "-", ""))
	}
	for _, a := range allowed {
		if norm(a) == norm(key) {
			return a
		}
		if dist := editDistance(key, a); dist < bestD {
			best, bestD = a, dist
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
