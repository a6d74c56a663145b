package check

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
	"gopkg.in/yaml.v3"
)

// DefaultFile is what `patience check` reads when no file is named.
const DefaultFile = "patience.yaml"

// maxFileSize bounds a check file: anything larger is not a hand-written policy file.
const maxFileSize = 4 << 20

// LoadFile reads and validates the check file at path.
func LoadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &scenario.Error{File: path, Msg: "cannot read: " + err.Error()}
	}
	return Load(path, data)
}

// Load parses a check file. Every problem is a *scenario.Error naming FILE:LINE:COL and the
// field: unknown fields, wrong types, values out of range, and the policy block through the
// scenario loader, so a check file is exactly as strict as a scenario.
func Load(path string, data []byte) (*File, error) {
	if len(data) > maxFileSize {
		return nil, &scenario.Error{File: path, Msg: fmt.Sprintf("%d bytes: too large for a check file (limit %d)", len(data), maxFileSize)}
	}
	root, err := scenario.ParseDocument(data, path, checkWords)
	if err != nil {
		return nil, err
	}
	l := &loader{NodeDecoder: scenario.NewNodeDecoder(path), dir: filepath.Dir(path)}
	f, err := l.root(root)
	if err != nil {
		return nil, err
	}
	f.ignores = parseIgnores(data)
	return f, nil
}

// checkWords are a check file's messages for a file that is not one YAML document.
var checkWords = scenario.DocumentWords{
	Empty:  "empty file: want a mapping with dependencies:",
	Second: "more than one YAML document; a check file holds one",
}

// ignoreComment is `# patience:ignore PT006` (several IDs separated by spaces or commas).
var ignoreComment = regexp.MustCompile(`#\s*patience:ignore\s+((?:PT\d{3}[\s,]*)+)`)

var ruleID = regexp.MustCompile(`PT\d{3}`)

// parseIgnores maps each line to the rules suppressed on it: a trailing comment covers its
// own line; a comment alone on its line covers the next line.
func parseIgnores(data []byte) map[int]map[string]bool {
	out := map[int]map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		m := ignoreComment.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		target := i + 1
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			target = i + 2
		}
		if out[target] == nil {
			out[target] = map[string]bool{}
		}
		for _, id := range ruleID.FindAllString(m[1], -1) {
			out[target][id] = true
		}
	}
	return out
}

// loader walks a check file's yaml.v3 nodes with the scenario loader's NodeDecoder, so a
// check file is held to the same rules and reports problems in the same words.
type loader struct {
	*scenario.NodeDecoder
	dir string
}

func (l *loader) root(root *yaml.Node) (*File, error) {
	m, err := l.Mapping(root, "", "max_amplification", "dependencies", "scenarios", "rules")
	if err != nil {
		return nil, err
	}
	f := &File{Path: l.File(), MaxAmplification: DefaultMaxAmplification, Disabled: map[string]bool{}, Levels: map[string]Severity{}}
	if v, ok := m["max_amplification"]; ok {
		s, err := l.Scalar(v.Val, "max_amplification", "a number ≥ 1")
		if err != nil {
			return nil, err
		}
		x, perr := strconv.ParseFloat(s, 64)
		if perr != nil || x < 1 || x != x || x > 1e12 {
			return nil, l.Errf(v.Val, "max_amplification", "want a number ≥ 1, got %q", s)
		}
		f.MaxAmplification, f.MaxAmplificationPos = x, l.Pos(v.Val)
	}
	if v, ok := m["rules"]; ok {
		if err := l.rules(v.Val, f); err != nil {
			return nil, err
		}
	}
	if v, ok := m["dependencies"]; ok {
		items, err := l.Sequence(v.Val, "dependencies")
		if err != nil {
			return nil, err
		}
		named := map[string]*policy.Policy{}
		unsaid := map[string]map[string]bool{} // per named policy: the fields it never wrote
		seen := map[string]int{}
		for i, it := range items {
			path := fmt.Sprintf("dependencies[%d]", i)
			d, err := l.dependency(it, path, named, unsaid)
			if err != nil {
				return nil, err
			}
			if line, dup := seen[d.Name]; dup {
				return nil, l.Errf(it, path+".name", "dependency %q is declared twice (first at line %d)", d.Name, line)
			}
			seen[d.Name] = d.Pos.Line
			if d.declared != nil && d.declared.Name != "" {
				named[d.declared.Name] = d.declared
				unsaid[d.declared.Name] = d.unsaid
			}
			f.Dependencies = append(f.Dependencies, d)
		}
	}
	if v, ok := m["scenarios"]; ok {
		items, err := l.Sequence(v.Val, "scenarios")
		if err != nil {
			return nil, err
		}
		for i, it := range items {
			s, err := l.Str(it, fmt.Sprintf("scenarios[%d]", i))
			if err != nil {
				return nil, err
			}
			path := l.relative(s)
			if _, err := os.Stat(path); err != nil && !strings.ContainsAny(s, `/\`) {
				path = s // no such file beside the check file: a bundled scenario's name
			}
			f.Scenarios = append(f.Scenarios, ScenarioRef{Path: path, Pos: l.Pos(it)})
		}
	}
	if len(f.Dependencies) == 0 && len(f.Scenarios) == 0 {
		return nil, l.Errf(root, "dependencies", "nothing to check: list at least one dependency (or a scenario)")
	}
	return f, nil
}

// relative resolves a path written in the file against the file's directory.
func (l *loader) relative(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(l.dir, p)
}

func (l *loader) ruleID(n *yaml.Node, path string) (string, error) {
	s, err := l.Str(n, path)
	if err != nil {
		return "", err
	}
	if _, ok := RuleByID(s); !ok {
		return "", l.Errf(n, path, "unknown rule %q (rules are PT001–PT017 and PT100)", s)
	}
	return s, nil
}

func (l *loader) rules(n *yaml.Node, f *File) error {
	m, err := l.Mapping(n, "rules", "disable", "levels")
	if err != nil {
		return err
	}
	if v, ok := m["disable"]; ok {
		items, err := l.Sequence(v.Val, "rules.disable")
		if err != nil {
			return err
		}
		for i, it := range items {
			id, err := l.ruleID(it, fmt.Sprintf("rules.disable[%d]", i))
			if err != nil {
				return err
			}
			f.Disabled[id] = true
		}
	}
	if v, ok := m["levels"]; ok {
		if v.Val.Kind != yaml.MappingNode {
			return l.Errf(v.Val, "rules.levels", "want a mapping of rule ID to level (PT006: error), got %s", scenario.KindName(v.Val))
		}
		for i := 0; i+1 < len(v.Val.Content); i += 2 {
			k, val := v.Val.Content[i], scenario.ResolveAlias(v.Val.Content[i+1])
			id, err := l.ruleID(k, "rules.levels")
			if err != nil {
				return err
			}
			path := "rules.levels." + id
			s, err := l.Str(val, path)
			if err != nil {
				return err
			}
			lv, perr := ParseLevel(s)
			if perr != nil {
				return l.Errf(val, path, "%v", perr)
			}
			if _, dup := f.Levels[id]; dup {
				return l.Errf(k, path, "set twice")
			}
			f.Levels[id] = lv
		}
	}
	return nil
}

// dependency reads one entry of dependencies: its name, the optional fields of
// dependencyFields in their order, then its policy.
func (l *loader) dependency(n *yaml.Node, path string, named map[string]*policy.Policy, unsaid map[string]map[string]bool) (*Dependency, error) {
	m, err := l.Mapping(n, path, "name", "caller", "request", "profile", "cutoff", "layers", "via", "policy")
	if err != nil {
		return nil, err
	}
	d := &Dependency{Pos: l.Pos(n), Request: scenario.Request{Method: "GET"}, pos: map[string]policy.Pos{}}
	v, ok := m["name"]
	if !ok {
		return nil, l.Errf(n, path+".name", "missing: every dependency needs a name")
	}
	if d.Name, err = l.Str(v.Val, path+".name"); err != nil {
		return nil, err
	}
	d.Pos = l.Pos(v.Val)
	for _, f := range dependencyFields {
		if v, ok := m[f.key]; ok {
			if err := f.decode(l, v, path+"."+f.key, d); err != nil {
				return nil, err
			}
		}
	}
	if err := l.dependencyPolicy(n, m, path, d, named, unsaid); err != nil {
		return nil, err
	}
	return d, nil
}

// dependencyFields are a dependency's optional fields in the order they are read, each with
// its decoder (path is the field's own: "dependencies[0].cutoff").
var dependencyFields = []struct {
	key    string
	decode func(l *loader, v scenario.Entry, path string, d *Dependency) error
}{
	{"caller", (*loader).callerField},
	{"request", (*loader).requestField},
	{"profile", (*loader).profileField},
	{"cutoff", (*loader).cutoffField},
	{"layers", (*loader).layersField},
	{"via", (*loader).viaField},
}

func (l *loader) callerField(v scenario.Entry, path string, d *Dependency) error {
	return l.caller(v.Val, path, d)
}

func (l *loader) requestField(v scenario.Entry, path string, d *Dependency) error {
	rm, err := l.Mapping(v.Val, path, "method", "idempotency_key")
	if err != nil {
		return err
	}
	d.pos["request"] = l.Pos(v.Key)
	if mv, ok := rm["method"]; ok {
		s, err := l.Str(mv.Val, path+".method")
		if err != nil {
			return err
		}
		if strings.ToUpper(s) != s || strings.ContainsAny(s, " \t/") {
			return l.Errf(mv.Val, path+".method", "want an HTTP method in capitals such as GET or POST, got %q", s)
		}
		d.Request.Method = s
		d.pos["request.method"] = l.Pos(mv.Val)
	}
	if kv, ok := rm["idempotency_key"]; ok {
		if d.Request.IdempotencyKey, err = l.Boolean(kv.Val, path+".idempotency_key"); err != nil {
			return err
		}
		d.pos["request.idempotency_key"] = l.Pos(kv.Val)
	}
	return nil
}

func (l *loader) profileField(v scenario.Entry, path string, d *Dependency) error {
	s, err := l.Str(v.Val, path)
	if err != nil {
		return err
	}
	d.Profile = l.relative(s)
	d.pos["profile"] = l.Pos(v.Val)
	return nil
}

func (l *loader) cutoffField(v scenario.Entry, path string, d *Dependency) error {
	c, err := l.Percent(v.Val, path)
	if err != nil {
		return err
	}
	if c <= 0 || c >= 1 {
		return l.Errf(v.Val, path, "want a share between 0%% and 100%%, got %q", v.Val.Value)
	}
	d.Cutoff = c
	d.pos["cutoff"] = l.Pos(v.Val)
	return nil
}

func (l *loader) layersField(v scenario.Entry, path string, d *Dependency) error {
	items, err := l.Sequence(v.Val, path)
	if err != nil {
		return err
	}
	d.pos["layers"] = l.Pos(v.Key)
	for i, it := range items {
		layer, err := l.layer(it, fmt.Sprintf("%s[%d]", path, i), i)
		if err != nil {
			return err
		}
		d.Layers = append(d.Layers, layer)
	}
	return nil
}

// layer reads the i-th entry of layers: a name ("layer 1" when none) and its max_attempts.
func (l *loader) layer(it *yaml.Node, path string, i int) (policy.Layer, error) {
	lm, err := l.Mapping(it, path, "name", "max_attempts")
	if err != nil {
		return policy.Layer{}, err
	}
	layer := policy.Layer{Name: fmt.Sprintf("layer %d", i+1)}
	if nv, ok := lm["name"]; ok {
		if layer.Name, err = l.Str(nv.Val, path+".name"); err != nil {
			return policy.Layer{}, err
		}
	}
	av, ok := lm["max_attempts"]
	if !ok {
		return policy.Layer{}, l.Errf(it, path+".max_attempts", "missing: how many attempts does this layer make (1 = no retries)?")
	}
	attempts, err := l.layerAttempts(av.Val, path+".max_attempts")
	if err != nil {
		return policy.Layer{}, err
	}
	layer.Policy = &policy.Policy{Retry: policy.Retry{MaxAttempts: attempts}, Source: map[string]policy.Pos{"retry.max_attempts": l.Pos(av.Val)}}
	return layer, nil
}

// layerAttempts reads a layer's max_attempts: 1 to 1000, or unlimited.
func (l *loader) layerAttempts(n *yaml.Node, path string) (int, error) {
	s, err := l.Scalar(n, path, "a whole number ≥ 1 or unlimited")
	if err != nil {
		return 0, err
	}
	if s == "unlimited" {
		return policy.Unlimited, nil
	}
	a, perr := strconv.Atoi(s)
	if perr != nil || a < 1 || a > 1000 {
		return 0, l.Errf(n, path, "want a whole number from 1 to 1000 or unlimited, got %q", s)
	}
	return a, nil
}

func (l *loader) viaField(v scenario.Entry, path string, d *Dependency) error {
	if err := l.via(v.Val, path, d); err != nil {
		return err
	}
	d.pos["via"] = l.Pos(v.Key)
	return nil
}

// dependencyPolicy reads the policy every dependency needs, notes the fields its file left
// unsaid and lists the defaults check assumes for them.
func (l *loader) dependencyPolicy(n *yaml.Node, m map[string]scenario.Entry, path string, d *Dependency, named map[string]*policy.Policy, unsaid map[string]map[string]bool) error {
	v, ok := m["policy"]
	if !ok && slices.ContainsFunc(d.Via, func(r ViaRef) bool { return r.Source != "" }) {
		// The call site its via: names is its policy: the code's timeouts and retry layers
		// (callDependency, codeLayers).
		d.Policy = &policy.Policy{Name: d.Name, Retry: policy.Retry{MaxAttempts: 1}, Source: map[string]policy.Pos{}}
		d.declared, d.policyFromCall = d.Policy.Clone(), true
		return nil
	}
	if !ok {
		return l.Errf(n, path+".policy", "missing: what timeout and retry policy guards %s? (policy: {timeout: 2s, ...} or policy: preset:recommended)", d.Name)
	}
	d.pos["policy"] = l.Pos(v.Key)
	p, err := scenario.DecodePolicy(v.Val, l.File(), named)
	if err != nil {
		return prefixField(err, path+".policy")
	}
	if p.Name == "" {
		p.Name = d.Name
	}
	d.Policy, d.declared = p, p.Clone()
	d.unsaid = unsaidFields(p, v.Val, unsaid)
	if writesRetryNone(v.Val) {
		delete(d.unsaid, "retry.max_attempts") // one attempt, said explicitly
	}
	d.Assumed = assume(d)
	return nil
}

// writesRetryNone says whether a policy mapping writes `retry: none`: one attempt, said
// explicitly (the decoder leaves retry.max_attempts unset for it).
func writesRetryNone(n *yaml.Node) bool {
	n = scenario.ResolveAlias(n)
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "retry" {
			v := scenario.ResolveAlias(n.Content[i+1])
			return v.Kind == yaml.ScalarNode && v.Value == "none"
		}
	}
	return false
}

// prefixField makes a policy error's field path relative to the check file
// ("dependencies[0].policy.retry.jitter") unless the policy loader already gave one that
// names it.
func prefixField(err error, prefix string) error {
	var se *scenario.Error
	if !errors.As(err, &se) {
		return &scenario.Error{Field: prefix, Msg: err.Error()}
	}
	if se.Field == "" {
		se.Field = prefix
	} else if !strings.HasPrefix(se.Field, "dependencies") {
		se.Field = prefix + "." + strings.TrimPrefix(se.Field, "policy.")
	}
	return se
}

func (l *loader) caller(n *yaml.Node, path string, d *Dependency) error {
	m, err := l.Mapping(n, path, "kind", "budget", "timeout", "retry_after", "rate", "tries", "backoff", "jitter", "jitter_factor", "retry_until")
	if err != nil {
		return err
	}
	d.pos["caller"] = l.Pos(n)
	kv, ok := m["kind"]
	if !ok {
		return l.Errf(n, path+".kind", "missing: interactive (someone waits budget:) or job (a queue worker with timeout: and retry_after:)")
	}
	kind, err := l.Str(kv.Val, path+".kind")
	if err != nil {
		return err
	}
	if kind != "interactive" && kind != "job" {
		return l.Errf(kv.Val, path+".kind", "want interactive or job, got %q", kind)
	}
	d.Caller.Kind = kind
	allowed := map[string][]string{
		"interactive": {"kind", "budget", "rate"},
		"job":         {"kind", "timeout", "retry_after", "rate", "tries", "backoff", "jitter", "jitter_factor", "retry_until"},
	}[kind]
	for key, fv := range m {
		if !slices.Contains(allowed, key) {
			return l.Errf(fv.Key, path+"."+key, "not a field of %s caller (want one of %s)", map[string]string{"job": "a job", "interactive": "an interactive"}[kind], strings.Join(allowed, ", "))
		}
	}
	for _, key := range []string{"budget", "timeout", "retry_after", "retry_until"} {
		fv, ok := m[key]
		if !ok {
			continue
		}
		dur, err := l.Positive(fv.Val, path+"."+key)
		if err != nil {
			return err
		}
		switch key {
		case "budget":
			d.Caller.Budget = dur
		case "timeout":
			d.Caller.Timeout = dur
		case "retry_after":
			d.Caller.RetryAfter = dur
		case "retry_until":
			d.Caller.RetryUntil = dur
		}
		d.pos["caller."+key] = l.Pos(fv.Val)
	}
	if fv, ok := m["rate"]; ok {
		s, err := l.Scalar(fv.Val, path+".rate", "a rate such as 50/s")
		if err != nil {
			return err
		}
		r, perr := scenario.ParseRate(s)
		if perr != nil {
			return l.Errf(fv.Val, path+".rate", "%v", perr)
		}
		d.Caller.Rate = r
		d.pos["caller.rate"] = l.Pos(fv.Val)
	}
	if kind == "job" {
		return l.queue(m, path, d)
	}
	return nil
}

// queue reads a job's own retries — the queue's tries, the backoff between them and their
// jitter (Laravel $tries, backoff(), retryUntil()) — into Caller.Queue, a policy.Retry so
// that PT006 and PT013 check the queue's schedule with the same arithmetic as a policy's.
// Without backoff: the queue re-delivers at once (Laravel's queue:work --backoff=0).
func (l *loader) queue(m map[string]scenario.Entry, path string, d *Dependency) error {
	q := policy.Retry{Backoff: policy.BackoffNone, Jitter: policy.JitterNone, RetryAfter: policy.RetryAfterIgnore}
	for _, f := range queueFields {
		fv, ok := m[f.key]
		if !ok {
			continue
		}
		if err := f.decode(l, fv.Val, path+"."+f.key, &q); err != nil {
			return err
		}
		d.pos["caller."+f.key] = l.Pos(fv.Val)
	}
	if err := l.queueJitter(m, path, q); err != nil {
		return err
	}
	if q.MaxAttempts == 0 {
		for _, key := range []string{"backoff", "jitter", "jitter_factor", "retry_until"} {
			if fv, ok := m[key]; ok {
				return l.Errf(fv.Key, path+".tries", "%s without tries: how many times does the queue run the job ($tries)?", key)
			}
		}
	}
	d.Caller.Queue = q
	return nil
}

// queueFields are a job caller's queue fields in the order queue reads them, each with its
// decoder into the queue's policy.Retry.
var queueFields = []struct {
	key    string
	decode func(l *loader, n *yaml.Node, path string, q *policy.Retry) error
}{
	{"tries", (*loader).queueTries},
	{"backoff", (*loader).queueBackoff},
	{"jitter", (*loader).queueJitterKind},
	{"jitter_factor", (*loader).queueJitterFactor},
}

func (l *loader) queueTries(n *yaml.Node, path string, q *policy.Retry) error {
	s, err := l.Scalar(n, path, "a whole number ≥ 1 or unlimited")
	if err != nil {
		return err
	}
	q.MaxAttempts = policy.Unlimited
	if s != "unlimited" {
		a, perr := strconv.Atoi(s)
		if perr != nil || a < 1 || a > 1000 {
			return l.Errf(n, path, "want a whole number from 1 to 1000 or unlimited (Laravel's $tries = 0), got %q", s)
		}
		q.MaxAttempts = a
	}
	return nil
}

// queueBackoff reads backoff: a list of delays (the last repeats), none, or one constant
// delay.
func (l *loader) queueBackoff(n *yaml.Node, path string, q *policy.Retry) error {
	switch {
	case n.Kind == yaml.SequenceNode:
		items, err := l.Sequence(n, path)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return l.Errf(n, path, "want at least one delay: [10s, 30s, 90s] (the last repeats)")
		}
		for i, it := range items {
			dl, err := l.Duration(it, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return err
			}
			q.Delays = append(q.Delays, dl)
		}
		q.Backoff = policy.BackoffList
	case n.Kind == yaml.ScalarNode && n.Value == "none":
		q.Backoff = policy.BackoffNone
	default:
		dl, err := l.Duration(n, path)
		if err != nil {
			return err
		}
		q.Backoff, q.Base = policy.BackoffConstant, dl
	}
	return nil
}

func (l *loader) queueJitterKind(n *yaml.Node, path string, q *policy.Retry) error {
	kinds := make([]string, 0, len(policy.Jitters()))
	for _, j := range policy.Jitters() {
		kinds = append(kinds, string(j))
	}
	s, err := l.Enum(n, path, kinds...)
	if err != nil {
		return err
	}
	q.Jitter = policy.Jitter(s)
	return nil
}

func (l *loader) queueJitterFactor(n *yaml.Node, path string, q *policy.Retry) error {
	f, err := l.Number(n, path)
	if err != nil {
		return err
	}
	q.JitterFactor = f
	return nil
}

// queueJitter checks that a proportional or randomized jitter has the factor it needs.
func (l *loader) queueJitter(m map[string]scenario.Entry, path string, q policy.Retry) error {
	switch {
	case (q.Jitter == policy.JitterProportional || q.Jitter == policy.JitterRandomized) && q.JitterFactor <= 0:
		return l.Errf(m["jitter"].Val, path+".jitter_factor", "jitter %s needs jitter_factor (d + U[0, f·d]; random_int(0, intdiv(d, 4)) is 0.25)", q.Jitter)
	case q.Jitter == policy.JitterRandomized && q.JitterFactor > 1:
		return l.Errf(m["jitter_factor"].Val, path+".jitter_factor", "jitter randomized needs jitter_factor in (0, 1], got %v", q.JitterFactor)
	}
	return nil
}

// viaSource reads a via: entry that names a call site in source code — {source:
// app/Jobs/Sync.php, line: 42}, or every call of the file without line: — resolved against
// the check file's directory like file:. The file must be read in the same run; that is
// checked where the chain is built (chainOf), which knows the sources read.
func (l *loader) viaSource(it *yaml.Node, m map[string]scenario.Entry, ip string, ref *ViaRef) error {
	for _, key := range []string{"file", "name", "host"} {
		if kv, ok := m[key]; ok {
			return l.Errf(kv.Val, ip+"."+key, "a via: entry names either a config layer (file:) or a call site (source:), not both")
		}
	}
	s, err := l.Str(m["source"].Val, ip+".source")
	if err != nil {
		return err
	}
	if s == "" {
		return l.Errf(m["source"].Val, ip+".source", "want the path of a source file read in this run ({source: app/Jobs/Sync.php, line: 42})")
	}
	ref.Source = l.relative(s)
	if lv, ok := m["line"]; ok {
		n, err := l.Integer(lv.Val, ip+".line", 1)
		if err != nil {
			return err
		}
		ref.Line, ref.LinePos = n, l.Pos(lv.Val)
	}
	return nil
}

// via reads a dependency's chain, outermost first: each entry a layer in a real config file
// ({file: k8s/ingress.yaml, name: shop}, {file: k8s/partner-vs.yaml, host: partner.example.com})
// or {self: true}, where the dependency's own policy sits (default: innermost).
func (l *loader) via(n *yaml.Node, path string, d *Dependency) error {
	items, err := l.Sequence(n, path)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return l.Errf(n, path, "want at least one layer: [{file: k8s/ingress.yaml, name: shop}, {self: true}]")
	}
	self := false
	for i, it := range items {
		ip := fmt.Sprintf("%s[%d]", path, i)
		m, err := l.Mapping(it, ip, "file", "name", "host", "self", "source", "line")
		if err != nil {
			return err
		}
		ref := ViaRef{Pos: l.Pos(it), Field: ip}
		if sv, ok := m["source"]; ok {
			if err := l.viaSource(it, m, ip, &ref); err != nil {
				return err
			}
			ref.SourcePos = l.Pos(sv.Val)
			d.Via = append(d.Via, ref)
			continue
		}
		if lv, ok := m["line"]; ok {
			return l.Errf(lv.Val, ip+".line", "line: names a call in a source file: write it with source: ({source: app/Jobs/Sync.php, line: 42})")
		}
		if sv, ok := m["self"]; ok {
			b, err := l.Boolean(sv.Val, ip+".self")
			if err != nil {
				return err
			}
			if !b || len(m) > 1 {
				return l.Errf(it, ip+".self", "write {self: true} alone: it marks where the dependency's own policy sits")
			}
			if self {
				return l.Errf(it, ip+".self", "self: true twice: the dependency's policy sits in one place")
			}
			self, ref.Self = true, true
			d.Via = append(d.Via, ref)
			continue
		}
		fv, ok := m["file"]
		if !ok {
			return l.Errf(it, ip+".file", "missing: which config file holds this layer? ({file: k8s/ingress.yaml, name: shop})")
		}
		s, err := l.Str(fv.Val, ip+".file")
		if err != nil {
			return err
		}
		ref.File = l.relative(s)
		for _, key := range []string{"name", "host"} {
			if kv, ok := m[key]; ok {
				v, err := l.Str(kv.Val, ip+"."+key)
				if err != nil {
					return err
				}
				if key == "name" {
					ref.Name = v
				} else {
					ref.Host = v
				}
			}
		}
		d.Via = append(d.Via, ref)
	}
	if !self {
		d.Via = append(d.Via, ViaRef{Self: true, Pos: l.Pos(n)})
	}
	return nil
}
