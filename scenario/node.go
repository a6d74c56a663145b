package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// DocumentWords are one file format's messages for a file that is not exactly one YAML
// document, so each format says what it expects in its own words while ParseDocument decides
// when a file is empty, has a second document or is not YAML.
type DocumentWords struct {
	// Empty is the message for a file without a document (nothing, or only comments).
	Empty string
	// Second is the message for a second document, reported where that document starts.
	Second string
}

// scenarioWords are the words of scenario and policy files.
var scenarioWords = DocumentWords{Empty: "empty file", Second: "a second YAML document (---) is not allowed"}

// ParseDocument decodes data as exactly one YAML document and returns its root node (the
// document's content, not the document node). Every problem is an *Error naming file: a
// syntax error at the line yaml.v3 names (column 1), a second document at its start, an
// empty file without a position. The scenario loader and the check file loader both read
// their files through it.
func ParseDocument(data []byte, file string, words DocumentWords) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Msg: words.Empty}
		}
		return nil, syntaxError(file, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, errAt(file, &extra, "", "%s", words.Second)
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(file, data, err)
	}
	if len(root.Content) == 0 {
		return nil, &Error{File: file, Msg: words.Empty}
	}
	return root.Content[0], nil
}

// syntaxError turns yaml.v3's "yaml: line N: msg" into an *Error at the line of the problem.
// yaml.v3 names a scanner error's line, but a parser error's ("did not find expected key")
// by the 0-based line where the enclosing block or flow began, or no line at all when that is
// the first (yaml.v3 decode.go, parser.fail): then the problem is the first line from there
// at which the document read so far fails with the same message.
func syntaxError(file string, data []byte, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{File: file, Msg: msg}
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		e.Msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
	}
	if parserProblem(e.Msg) {
		line = problemLine(data, line+1, e.Msg)
	}
	if line > 0 {
		e.Line, e.Col = line, 1
	}
	return e
}

// parserProblem says whether msg is one of yaml.v3's parser errors (parserc.go), whose line
// is the enclosing construct's, 0-based; scanner errors name their own line.
func parserProblem(msg string) bool {
	for _, p := range []string{"did not find expected <", "did not find expected key", "did not find expected '-'", "did not find expected ',' or", "did not find expected node content"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// problemLine is the first line n at which the first n lines of data fail to parse with msg
// (every document, as ParseDocument reads them), or from when none does or the file is too
// long to search.
func problemLine(data []byte, from int, msg string) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 2000 || len(data) > 256<<10 {
		return from
	}
	for n := 1; n <= len(lines); n++ {
		dec := yaml.NewDecoder(bytes.NewReader(bytes.Join(lines[:n], nil)))
		for {
			var v yaml.Node
			err := dec.Decode(&v)
			if err == nil {
				continue
			}
			if !errors.Is(err, io.EOF) && strings.HasSuffix(err.Error(), msg) {
				return n
			}
			break
		}
	}
	return from
}

// NodeDecoder walks yaml.v3 nodes strictly: every mapping lists the keys it accepts, every
// scalar has one type, and every problem becomes an *Error at the node with the field's dotted
// path. The scenario loader and the check file loader (check) both use it, so the two
// file formats report problems in the same words and at the same positions.
type NodeDecoder struct {
	file string
}

// NewNodeDecoder returns a NodeDecoder whose errors and positions name file.
func NewNodeDecoder(file string) *NodeDecoder { return &NodeDecoder{file: file} }

// File is the file name the decoder puts in errors and positions.
func (d *NodeDecoder) File() string { return d.file }

// Pos is the position of n in the decoder's file.
func (d *NodeDecoder) Pos(n *yaml.Node) policy.Pos { return pos(d.file, n) }

// Entry is one key of a mapping with its value (aliases already resolved).
type Entry struct {
	Key, Val *yaml.Node
}

// Errf builds an *Error at node n (no position when n is nil) about the field at path.
func (d *NodeDecoder) Errf(n *yaml.Node, path, format string, a ...any) *Error {
	return errAt(d.file, n, path, format, a...)
}

// maxAliasDepth bounds ResolveAlias: yaml.v3 rejects an alias cycle while parsing, so this is
// only a guard against a hand-built node graph.
const maxAliasDepth = 100

// ResolveAlias follows aliases so `*x` anchors read like what they point at.
func ResolveAlias(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < maxAliasDepth; depth++ {
		n = n.Alias
	}
	return n
}

// JoinPath appends key to the dotted field path ("policy" + "retry" = "policy.retry").
func JoinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// IndexPath appends a list index to the field path ("phases" + 1 = "phases[1]").
func IndexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// KindName describes what n is, for "want X, got Y" messages: "a mapping", "a list",
// "nothing" (null or no node) or the quoted scalar.
func KindName(n *yaml.Node) string {
	if n == nil {
		return "nothing"
	}
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

// Mapping checks that n is a mapping whose keys are all in allowed and appear once, and
// returns its entries by key. An unknown key gets a "did you mean" suggestion when one is close.
func (d *NodeDecoder) Mapping(n *yaml.Node, path string, allowed ...string) (map[string]Entry, error) {
	n = ResolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, d.Errf(n, path, "want a mapping with keys %s, got %s", strings.Join(allowed, ", "), KindName(n))
	}
	out := make(map[string]Entry, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, d.Errf(k, path, "keys must be plain words")
		}
		if k.Value == "<<" {
			return nil, d.Errf(k, path, "merge keys (<<) are not supported; write the fields out or use base:")
		}
		if !slices.Contains(allowed, k.Value) {
			if s := Suggest(k.Value, allowed); s != "" {
				return nil, d.Errf(k, JoinPath(path, k.Value), "unknown field (did you mean %s? want one of %s)", s, strings.Join(allowed, ", "))
			}
			return nil, d.Errf(k, JoinPath(path, k.Value), "unknown field (want one of %s)", strings.Join(allowed, ", "))
		}
		if prev, dup := out[k.Value]; dup {
			return nil, d.Errf(k, JoinPath(path, k.Value), "set twice (first at line %d)", prev.Key.Line)
		}
		out[k.Value] = Entry{Key: k, Val: ResolveAlias(v)}
	}
	return out, nil
}

// Sequence checks that n is a list and returns its items, aliases resolved.
func (d *NodeDecoder) Sequence(n *yaml.Node, path string) ([]*yaml.Node, error) {
	n = ResolveAlias(n)
	if n.Kind != yaml.SequenceNode {
		return nil, d.Errf(n, path, "want a list, got %s", KindName(n))
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = ResolveAlias(c)
		if out[i] == nil {
			return nil, d.Errf(c, IndexPath(path, i), "unresolvable alias")
		}
	}
	return out, nil
}

// Scalar checks that n is a non-null scalar and returns its text; want names the expected
// value in the error ("want a duration such as 2s, got a list").
func (d *NodeDecoder) Scalar(n *yaml.Node, path, want string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", d.Errf(n, path, "want %s, got %s", want, KindName(n))
	}
	return n.Value, nil
}

// Str is a non-empty string.
func (d *NodeDecoder) Str(n *yaml.Node, path string) (string, error) {
	s, err := d.Scalar(n, path, "a string")
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", d.Errf(n, path, "must not be empty")
	}
	return s, nil
}

// Integer is a whole number (YAML !!int) of at least min.
func (d *NodeDecoder) Integer(n *yaml.Node, path string, min int) (int, error) {
	s, err := d.Scalar(n, path, "a whole number")
	if err != nil {
		return 0, err
	}
	if n.Tag != "!!int" {
		return 0, d.Errf(n, path, "want a whole number, got %q", s)
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil || v > 1<<40 || v < -(1<<40) {
		return 0, d.Errf(n, path, "%q is out of range", s)
	}
	if int(v) < min {
		return 0, d.Errf(n, path, "must be at least %d, got %d", min, v)
	}
	return int(v), nil
}

// Bounded is an integer in [min, max] (max is a simulation limit, as the message says).
func (d *NodeDecoder) Bounded(n *yaml.Node, path string, min, max int) (int, error) {
	v, err := d.Integer(n, path, min)
	if err == nil && v > max {
		return 0, d.Errf(n, path, "%d is above the %d a simulation allows", v, max)
	}
	return v, err
}

// Number is a non-negative number (YAML !!int or !!float).
func (d *NodeDecoder) Number(n *yaml.Node, path string) (float64, error) {
	s, err := d.Scalar(n, path, "a number")
	if err != nil {
		return 0, err
	}
	if n.Tag != "!!int" && n.Tag != "!!float" {
		return 0, d.Errf(n, path, "want a number, got %q", s)
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil || v != v || v > 1e15 || v < -1e15 {
		return 0, d.Errf(n, path, "%q is not a usable number", s)
	}
	if v < 0 {
		return 0, d.Errf(n, path, "must not be negative, got %s", s)
	}
	return v, nil
}

// Boolean is a YAML !!bool: true or false, not yes/no or a quoted string.
func (d *NodeDecoder) Boolean(n *yaml.Node, path string) (bool, error) {
	s, err := d.Scalar(n, path, "true or false")
	if err != nil {
		return false, err
	}
	if n.Tag != "!!bool" {
		return false, d.Errf(n, path, "want true or false, got %q", s)
	}
	return s == "true" || s == "True" || s == "TRUE", nil
}

// Duration is a duration in ParseDuration's syntax (2s, 150ms).
func (d *NodeDecoder) Duration(n *yaml.Node, path string) (time.Duration, error) {
	s, err := d.Scalar(n, path, "a duration such as 2s")
	if err != nil {
		return 0, err
	}
	v, err := ParseDuration(s)
	if err != nil {
		return 0, d.Errf(n, path, "%v", err)
	}
	return v, nil
}

// Positive is a duration above zero.
func (d *NodeDecoder) Positive(n *yaml.Node, path string) (time.Duration, error) {
	v, err := d.Duration(n, path)
	if err == nil && v == 0 {
		return 0, d.Errf(n, path, "must be above 0")
	}
	return v, err
}

// DurationOrNone accepts "none" as 0 (no bound). A literal 0 is rejected with a hint, because
// "timeout: 0" reads like "time out at once".
func (d *NodeDecoder) DurationOrNone(n *yaml.Node, path string) (time.Duration, error) {
	if n.Kind == yaml.ScalarNode && n.Value == "none" {
		return 0, nil
	}
	v, err := d.Duration(n, path)
	if err == nil && v == 0 {
		return 0, d.Errf(n, path, "0 would mean no time at all; write none for no bound")
	}
	return v, err
}

// Percent is a percentage in ParsePercent's syntax (50%), as a share of 1.
func (d *NodeDecoder) Percent(n *yaml.Node, path string) (float64, error) {
	s, err := d.Scalar(n, path, "a percentage such as 50%")
	if err != nil {
		return 0, err
	}
	v, err := ParsePercent(s)
	if err != nil {
		return 0, d.Errf(n, path, "%v", err)
	}
	return v, nil
}

// Enum is one of choices, spelt exactly.
func (d *NodeDecoder) Enum(n *yaml.Node, path string, choices ...string) (string, error) {
	s, err := d.Scalar(n, path, "one of "+strings.Join(choices, ", "))
	if err != nil {
		return "", err
	}
	if !slices.Contains(choices, s) {
		return "", d.Errf(n, path, "%q is not one of %s", s, strings.Join(choices, ", "))
	}
	return s, nil
}

// Suggest returns the allowed key closest to a misspelt one (edit distance ≤ 2, or a key that
// differs only by "_" and case), or "".
func Suggest(key string, allowed []string) string {
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
