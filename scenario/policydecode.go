package scenario

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/policy"
	"gopkg.in/yaml.v3"
)

// defaultPolicy is what a policy field that a file leaves out and no base: sets gets: the
// zero policy of docs/design.md §5 (no timeout, one attempt) plus what a retry does once
// max_attempts allows one. The policy tables (fields_policy.go) print these values as the
// defaults of docs/scenario.md, as they print defaultBudget's (the AWS SDK token bucket, the
// Finagle RetryBudget) and defaultBreaker's.
func defaultPolicy() *policy.Policy {
	return &policy.Policy{
		Retry: policy.Retry{
			MaxAttempts:   1,
			On:            slices.Clone(policy.DefaultRetryOn),
			Never:         []int{501},
			NonIdempotent: policy.NonIdempotentNever,
			Backoff:       policy.BackoffExponential,
			Base:          100 * time.Millisecond,
			Multiplier:    2,
			Cap:           10 * time.Second,
			Jitter:        policy.JitterFull,
			RetryAfter:    policy.RetryAfterHonor,
			RetryAfterMax: 60 * time.Second,
		},
	}
}

func defaultBudget(kind policy.BudgetKind) *policy.Budget {
	if kind == policy.BudgetRatio {
		return &policy.Budget{Kind: policy.BudgetRatio, Percent: 0.2, MinPerS: 10, Window: 10 * time.Second}
	}
	return &policy.Budget{Kind: policy.BudgetTokenBucket, Capacity: 500, RetryCost: 5, TimeoutCost: 10, Refill: 1}
}

func defaultBreaker() *policy.Breaker {
	return &policy.Breaker{FailureRate: 0.5, MinRequests: 10, Window: 10 * time.Second, OpenFor: 30 * time.Second, HalfOpen: 1}
}

// policyKeys are the Source keys of every field a preset or base: can hand down.
var policyKeys = []string{
	"connect_timeout", "timeout", "read_timeout", "first_event_timeout", "deadline",
	"retry.max_attempts", "retry.on", "retry.never", "retry.non_idempotent", "retry.backoff",
	"retry.base", "retry.multiplier", "retry.cap", "retry.delays", "retry.jitter",
	"retry.jitter_factor", "retry.retry_after", "retry.retry_after_max",
	"budget", "breaker", "bulkhead", "fallback", "idempotency_key",
}

// lookupFunc finds the policy a `base:` names (not a preset); it reports a problem at n.
type lookupFunc func(name string, n *yaml.Node, path string) (*policy.Policy, error)

// DecodePolicy decodes one policy mapping (docs/design.md §4 policy schema, with `base:` and
// `layers:`), or a "preset:NAME" string, from node. A `base:` names a preset or a policy of
// named. Policy.Source gets the position of every field set; fields inherited from a base or a
// preset point at the `base:` line (or the preset string). file labels errors and positions.
func DecodePolicy(node *yaml.Node, file string, named map[string]*policy.Policy) (*policy.Policy, error) {
	d := &decoder{NodeDecoder: NewNodeDecoder(file)}
	lookup := func(name string, n *yaml.Node, path string) (*policy.Policy, error) {
		if p, ok := named[name]; ok {
			return p.Clone(), nil
		}
		names := slices.Sorted(maps.Keys(named))
		if len(names) == 0 {
			return nil, d.Errf(n, path, "no policy named %q (write preset:NAME for a preset: %s)", name, strings.Join(PresetNames(), ", "))
		}
		return nil, d.Errf(n, path, "no policy named %q (known: %s)", name, strings.Join(names, ", "))
	}
	if node != nil && node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	if node == nil {
		return nil, &Error{File: file, Msg: "no policy"}
	}
	return d.policy(node, "", lookup, true)
}

// ResolvePolicy reads the policy of `--policy FILE|preset:NAME`: a preset, or a YAML file
// holding one policy mapping (named after the file when it has no name:).
func ResolvePolicy(spec string) (*policy.Policy, error) {
	return ResolvePolicyStdin(spec, nil)
}

// ResolvePolicyStdin is ResolvePolicy where "-" reads the policy from stdin (when non-nil),
// bounded like a file and stopped by the process interrupt; errors name it (stdin):LINE:COL
// and a policy without name: is named "stdin".
func ResolvePolicyStdin(spec string, stdin io.Reader) (*policy.Policy, error) {
	if name, ok := strings.CutPrefix(spec, "preset:"); ok {
		p, ok := Preset(name)
		if !ok {
			return nil, &Error{File: spec, Msg: fmt.Sprintf("unknown preset %q (presets: %s)", name, strings.Join(PresetNames(), ", "))}
		}
		return p, nil
	}
	var data []byte
	var err error
	if spec == input.Stdin && stdin != nil {
		spec = StdinName
		data, err = input.Read(stdin, spec, input.MaxScenario)
		if se := (*input.StoppedError)(nil); errors.As(err, &se) {
			return nil, se
		}
	} else {
		data, err = input.ReadFile(spec, input.MaxScenario, nil)
	}
	if err != nil {
		return nil, &Error{File: spec, Msg: readErrMsg(err) + " (want a policy file or preset:NAME)"}
	}
	root, err := ParseDocument(data, spec, scenarioWords)
	if err != nil {
		return nil, err
	}
	if isCheckFile(root) {
		e := checkFileError(spec)
		e.Msg += " (or --chain " + spec + "#DEPENDENCY for the policy of a dependency's via: chain)"
		return nil, e
	}
	p, err := DecodePolicy(root, spec, nil)
	if err != nil {
		return nil, err
	}
	if p.Name == "" && spec == StdinName {
		p.Name = "stdin"
	} else if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
	}
	return p, nil
}

func pos(file string, n *yaml.Node) policy.Pos {
	return policy.Pos{File: file, Line: n.Line, Col: n.Column}
}

// inherit starts a policy from base, pointing every inheritable field at the base: line.
func (d *decoder) inherit(base *policy.Policy, at *yaml.Node) *policy.Policy {
	p := base.Clone()
	src := make(map[string]policy.Pos, len(policyKeys)+len(base.Source))
	here := pos(d.file, at)
	for k := range base.Source {
		if k != "name" && k != "policy" && k != "base" {
			src[k] = here
		}
	}
	for _, k := range policyKeys {
		src[k] = here
	}
	p.Source = src
	return p
}

// basePolicy resolves the value of a base: (or a bare "preset:NAME" string).
func (d *decoder) basePolicy(n *yaml.Node, path string, lookup lookupFunc) (*policy.Policy, error) {
	s, err := d.Str(n, path)
	if err != nil {
		return nil, err
	}
	if name, ok := strings.CutPrefix(s, "preset:"); ok {
		p, ok := Preset(name)
		if !ok {
			return nil, d.Errf(n, path, "unknown preset %q (presets: %s)", name, strings.Join(PresetNames(), ", "))
		}
		return p, nil
	}
	return lookup(s, n, path)
}

// policy decodes a policy mapping or a "preset:NAME" / policy-name string. layersOK allows a
// `layers:` key (not inside a layer's own policy). The policy starts from its base: (or the
// defaults), takes each field through its row of policyTable, then its layers, and is
// checked as a whole.
func (d *decoder) policy(n *yaml.Node, path string, lookup lookupFunc, layersOK bool) (*policy.Policy, error) {
	n = ResolveAlias(n)
	if n.Kind == yaml.ScalarNode {
		return d.namedPolicy(n, path, lookup)
	}
	table := policyTable
	if !layersOK {
		table = nestedPolicyTable
	}
	f, err := d.policyFields(n, path, table)
	if err != nil {
		return nil, err
	}
	p, err := d.policyStart(n, f, path, lookup)
	if err != nil {
		return nil, err
	}
	if err := decodeRows(table, f, path, &policyReader{d: d, p: p}); err != nil {
		return nil, err
	}
	if e, ok := f["layers"]; ok {
		if p.Layers, err = d.layers(e.Val, JoinPath(path, "layers"), lookup); err != nil {
			return nil, err
		}
	}
	for key, e := range f {
		p.Source[key] = pos(d.file, e.Key)
	}
	if err := d.checkPolicy(p, path); err != nil {
		return nil, err
	}
	return p, nil
}

// policyFields is the entries of a policy mapping, read with table; a layers: where table
// has none is a layer's policy trying to nest layers.
func (d *decoder) policyFields(n *yaml.Node, path string, table *fieldTable) (map[string]Entry, error) {
	f, err := d.fields(n, path, table)
	if e, ok := err.(*Error); ok && table == nestedPolicyTable && strings.HasSuffix(e.Field, ".layers") {
		e.Msg = "layers cannot nest: list every layer at the top"
	}
	return f, err
}

// namedPolicy is the policy of a "preset:NAME" or policy-name string written where a
// policy mapping goes.
func (d *decoder) namedPolicy(n *yaml.Node, path string, lookup lookupFunc) (*policy.Policy, error) {
	base, err := d.basePolicy(n, path, lookup)
	if err != nil {
		return nil, err
	}
	p := d.inherit(base, n)
	p.Name = n.Value
	p.Source["policy"] = pos(d.file, n)
	return p, nil
}

// policyStart is what a policy mapping starts from before its own fields: its base: (the
// fields it hands down pointing at the base: line), or the defaults.
func (d *decoder) policyStart(n *yaml.Node, f map[string]Entry, path string, lookup lookupFunc) (*policy.Policy, error) {
	var p *policy.Policy
	if b, ok := f["base"]; ok {
		base, err := d.basePolicy(b.Val, JoinPath(path, "base"), lookup)
		if err != nil {
			return nil, err
		}
		p = d.inherit(base, b.Key)
		p.Name = "" // a variant is not its base: the caller names it (name:, or its context)
	} else {
		p = defaultPolicy()
		p.Source = map[string]policy.Pos{}
	}
	p.Source["policy"] = pos(d.file, n)
	return p, nil
}

// policyReader reads the fields of a policy mapping into p: its methods are the decode
// steps of policyTable's rows (base: and layers: are policy's own stages).
type policyReader struct {
	d *decoder
	p *policy.Policy
}

func (pr *policyReader) name(e Entry, path string) (err error) {
	pr.p.Name, err = pr.d.Str(e.Val, path)
	return err
}

func (pr *policyReader) connectTimeout(e Entry, path string) (err error) {
	pr.p.ConnectTimeout, err = pr.d.DurationOrNone(e.Val, path)
	return err
}

func (pr *policyReader) timeout(e Entry, path string) (err error) {
	pr.p.Timeout, err = pr.d.DurationOrNone(e.Val, path)
	return err
}

func (pr *policyReader) readTimeout(e Entry, path string) (err error) {
	pr.p.ReadTimeout, err = pr.d.DurationOrNone(e.Val, path)
	return err
}

func (pr *policyReader) firstEventTimeout(e Entry, path string) (err error) {
	pr.p.FirstEventTimeout, err = pr.d.DurationOrNone(e.Val, path)
	return err
}

func (pr *policyReader) deadline(e Entry, path string) (err error) {
	pr.p.Deadline, err = pr.d.DurationOrNone(e.Val, path)
	return err
}

func (pr *policyReader) idempotencyKey(e Entry, path string) error {
	v, err := pr.d.Boolean(e.Val, path)
	if err != nil {
		return err
	}
	pr.p.IdempotencyKey = &v
	return nil
}

func (pr *policyReader) retry(e Entry, path string) error { return pr.d.retry(e.Val, path, pr.p) }

func (pr *policyReader) budget(e Entry, path string) (err error) {
	pr.p.Budget, err = pr.d.budget(e.Val, path, pr.p.Budget, pr.p.Source)
	return err
}

func (pr *policyReader) breaker(e Entry, path string) (err error) {
	pr.p.Breaker, err = pr.d.breaker(e.Val, path, pr.p.Breaker, pr.p.Source)
	return err
}

func (pr *policyReader) bulkhead(e Entry, path string) error {
	if isNone(e.Val) {
		pr.p.Bulkhead = nil
		return nil
	}
	bf, err := pr.d.fields(e.Val, path, bulkheadTable)
	if err != nil {
		return err
	}
	mc, ok := bf["max_concurrent"]
	if !ok {
		return pr.d.Errf(e.Val, JoinPath(path, "max_concurrent"), "required")
	}
	v, err := pr.d.Integer(mc.Val, JoinPath(path, "max_concurrent"), 1)
	if err != nil {
		return err
	}
	pr.p.Bulkhead = &policy.Bulkhead{MaxConcurrent: v}
	return nil
}

func (pr *policyReader) fallback(e Entry, path string) (err error) {
	pr.p.Fallback, err = pr.d.Boolean(e.Val, path)
	return err
}

func isNone(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Value == "none" }

// errAtSource reports a problem of a merged policy at the line that set the field.
// near is the field that makes key necessary (retry.backoff for retry.delays).
func (d *decoder) errAtSource(p *policy.Policy, key, near, path, format string, a ...any) *Error {
	e := &Error{File: d.file, Field: JoinPath(path, key), Msg: fmt.Sprintf(format, a...)}
	for _, k := range []string{key, near, "base", "policy"} {
		if s, ok := p.Source[k]; ok {
			e.Line, e.Col = s.Line, s.Col
			break
		}
	}
	return e
}

// checkPolicy validates what only the merged policy can tell.
func (d *decoder) checkPolicy(p *policy.Policy, path string) error {
	r := &p.Retry
	if r.Backoff == policy.BackoffList && len(r.Delays) == 0 {
		return d.errAtSource(p, "retry.delays", "retry.backoff", path, "backoff list needs delays: [10s, 30s, ...]")
	}
	if r.Jitter == policy.JitterProportional && r.JitterFactor <= 0 {
		return d.errAtSource(p, "retry.jitter_factor", "retry.jitter", path, "jitter proportional needs jitter_factor (d + U[0, f·d]), e.g. 0.25")
	}
	if r.Jitter == policy.JitterRandomized && (r.JitterFactor <= 0 || r.JitterFactor > 1) {
		return d.errAtSource(p, "retry.jitter_factor", "retry.jitter", path, "jitter randomized needs jitter_factor in (0, 1] (U[d·(1−f), d·(1+f)]), e.g. 0.5")
	}
	// base: 0s is allowed (immediate retries, common in the wild): `check` reports it as PT013
	// and the simulator replays it, rather than the loader refusing a policy people run.
	if r.Cap > 0 && r.Base > r.Cap && r.Backoff != policy.BackoffList {
		return d.errAtSource(p, "retry.cap", "retry.base", path, "cap %s is below base %s", r.Cap, r.Base)
	}
	return nil
}

// retry decodes a policy's `retry:` (or retry: none) into p.Retry, each field through its
// row of retryTable, and points p.Source at every field it sets.
func (d *decoder) retry(n *yaml.Node, path string, p *policy.Policy) error {
	if isNone(n) {
		p.Retry.MaxAttempts = 1
		return nil
	}
	f, err := d.fields(n, path, retryTable)
	if err != nil {
		return err
	}
	if err := decodeRows(retryTable, f, path, &retryReader{d: d, r: &p.Retry}); err != nil {
		return err
	}
	for key, e := range f {
		p.Source["retry."+key] = pos(d.file, e.Key)
	}
	return nil
}

// retryReader reads the fields of a `retry:` mapping into r: its methods are the decode
// steps of retryTable's rows.
type retryReader struct {
	d *decoder
	r *policy.Retry
}

func (rr *retryReader) maxAttempts(e Entry, path string) error {
	if e.Val.Kind == yaml.ScalarNode && e.Val.Value == "unlimited" {
		rr.r.MaxAttempts = policy.Unlimited
		return nil
	}
	v, err := rr.d.Scalar(e.Val, path, "a whole number or unlimited")
	if err != nil {
		return err
	}
	if e.Val.Tag != "!!int" {
		return rr.d.Errf(e.Val, path, "want a whole number or unlimited, got %q", v)
	}
	n, err := rr.d.Integer(e.Val, path, 0)
	if err != nil {
		return err
	}
	if n < 1 {
		return rr.d.Errf(e.Val, path, "must be at least 1 (the first try counts; 1 = no retry)")
	}
	rr.r.MaxAttempts = n
	return nil
}

func (rr *retryReader) on(e Entry, path string) error {
	items, err := rr.d.Sequence(e.Val, path)
	if err != nil {
		return err
	}
	rr.r.On = rr.r.On[:0:0]
	for i, it := range items {
		s, err := rr.d.Scalar(it, IndexPath(path, i), "connect, timeout, reset, a status or a class like 5xx")
		if err != nil {
			return err
		}
		if err := validRetryOn(s); err != nil {
			return rr.d.Errf(it, IndexPath(path, i), "%v", err)
		}
		rr.r.On = append(rr.r.On, s)
	}
	return nil
}

func (rr *retryReader) never(e Entry, path string) error {
	items, err := rr.d.Sequence(e.Val, path)
	if err != nil {
		return err
	}
	rr.r.Never = rr.r.Never[:0:0]
	for i, it := range items {
		v, err := rr.d.Integer(it, IndexPath(path, i), 100)
		if err != nil {
			return err
		}
		if v > 599 {
			return rr.d.Errf(it, IndexPath(path, i), "%d is not an HTTP status", v)
		}
		rr.r.Never = append(rr.r.Never, v)
	}
	return nil
}

func (rr *retryReader) nonIdempotent(e Entry, path string) (err error) {
	rr.r.NonIdempotent, err = enum(rr.d, e.Val, path, policy.NonIdempotents())
	return err
}

func (rr *retryReader) backoff(e Entry, path string) (err error) {
	rr.r.Backoff, err = enum(rr.d, e.Val, path, policy.Backoffs())
	return err
}

func (rr *retryReader) base(e Entry, path string) (err error) {
	rr.r.Base, err = rr.d.Duration(e.Val, path)
	return err
}

func (rr *retryReader) multiplier(e Entry, path string) (err error) {
	if rr.r.Multiplier, err = rr.d.Number(e.Val, path); err != nil {
		return err
	}
	if rr.r.Multiplier < 1 {
		return rr.d.Errf(e.Val, path, "must be at least 1 (delays would shrink)")
	}
	return nil
}

func (rr *retryReader) cap(e Entry, path string) (err error) {
	rr.r.Cap, err = rr.d.positiveOrNone(e.Val, path)
	return err
}

func (rr *retryReader) delays(e Entry, path string) error {
	items, err := rr.d.Sequence(e.Val, path)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return rr.d.Errf(e.Val, path, "must list at least one delay")
	}
	rr.r.Delays = make([]time.Duration, len(items))
	for i, it := range items {
		if rr.r.Delays[i], err = rr.d.Duration(it, IndexPath(path, i)); err != nil {
			return err
		}
	}
	return nil
}

func (rr *retryReader) jitter(e Entry, path string) (err error) {
	rr.r.Jitter, err = enum(rr.d, e.Val, path, policy.Jitters())
	return err
}

func (rr *retryReader) jitterFactor(e Entry, path string) (err error) {
	rr.r.JitterFactor, err = rr.d.Number(e.Val, path)
	return err
}

func (rr *retryReader) retryAfter(e Entry, path string) (err error) {
	rr.r.RetryAfter, err = enum(rr.d, e.Val, path, policy.RetryAfterModes())
	return err
}

func (rr *retryReader) retryAfterMax(e Entry, path string) (err error) {
	rr.r.RetryAfterMax, err = rr.d.positiveOrNone(e.Val, path)
	return err
}

// positiveOrNone reads a duration above 0, or none as 0 (no bound: retry's cap and
// retry_after_max).
func (d *decoder) positiveOrNone(n *yaml.Node, path string) (time.Duration, error) {
	if isNone(n) {
		return 0, nil
	}
	return d.Positive(n, path)
}

// enum decodes one of choices, spelt exactly: the accepted values, their order in messages
// and the type come from the policy package's list (policy.Backoffs and the like).
func enum[T ~string](d *decoder, n *yaml.Node, path string, choices []T) (T, error) {
	names := make([]string, len(choices))
	for i, c := range choices {
		names[i] = string(c)
	}
	s, err := d.Enum(n, path, names...)
	return T(s), err
}

// validRetryOn accepts what Retry.On may list.
func validRetryOn(s string) error {
	switch s {
	case "connect", "refused", "connect_timeout", "timeout", "reset", "1xx", "2xx", "3xx", "4xx", "5xx":
		if s[0] < '4' && len(s) == 3 && s[1] == 'x' {
			return fmt.Errorf("%q: only 4xx and 5xx classes can be retried", s)
		}
		return nil
	}
	if v, err := strconv.Atoi(s); err == nil {
		if v < 400 || v > 599 {
			return fmt.Errorf("%d: only 4xx and 5xx statuses can be retried", v)
		}
		return nil
	}
	return fmt.Errorf("%q: want connect (refused or connect_timeout), timeout, reset, a status like 503 or a class like 5xx", s)
}

// budget decodes a policy's `budget:` (or budget: none) over prev, the base:'s budget: its
// kind (kept from prev when left out), then the fields of that kind through budgetTable's
// rows; src gets the position of each field set.
func (d *decoder) budget(n *yaml.Node, path string, prev *policy.Budget, src map[string]policy.Pos) (*policy.Budget, error) {
	if isNone(n) {
		return nil, nil
	}
	f, err := d.fields(n, path, budgetTable)
	if err != nil {
		return nil, err
	}
	kind, err := d.budgetKind(n, f, path, prev, src)
	if err != nil {
		return nil, err
	}
	b := defaultBudget(kind)
	if prev != nil && prev.Kind == kind {
		c := *prev
		b = &c
	}
	if err := d.budgetFieldsOfKind(f, path, kind); err != nil {
		return nil, err
	}
	if err := decodeRows(budgetTable, f, path, &budgetReader{d: d, b: b}); err != nil {
		return nil, err
	}
	for key, e := range f {
		src["budget."+key] = pos(d.file, e.Key)
	}
	if kind == policy.BudgetTokenBucket && b.Capacity <= 0 {
		return nil, d.Errf(n, JoinPath(path, "capacity"), "a token bucket needs a capacity above 0")
	}
	return b, nil
}

// budgetKind is the kind of a budget mapping: its kind:, else prev's.
func (d *decoder) budgetKind(n *yaml.Node, f map[string]Entry, path string, prev *policy.Budget, src map[string]policy.Pos) (policy.BudgetKind, error) {
	e, ok := f["kind"]
	if !ok {
		if prev == nil || prev.Kind == "" {
			return "", d.Errf(n, JoinPath(path, "kind"), "required: %s or %s", policy.BudgetTokenBucket, policy.BudgetRatio)
		}
		return prev.Kind, nil
	}
	kind, err := enum(d, e.Val, JoinPath(path, "kind"), policy.BudgetKinds())
	if err != nil {
		return "", err
	}
	src["budget.kind"] = pos(d.file, e.Key)
	return kind, nil
}

// budgetFieldsOfKind refuses, in table order, a field of the other kind of budget.
func (d *decoder) budgetFieldsOfKind(f map[string]Entry, path string, kind policy.BudgetKind) error {
	own := budgetTable.kindKeys(string(kind))
	for _, row := range budgetTable.Fields {
		if e, ok := f[row.Name]; ok && row.Name != "kind" && !slices.Contains(own, row.Name) {
			return d.Errf(e.Key, JoinPath(path, row.Name), "not a field of a %s budget (its fields: %s)", kind, strings.Join(own, ", "))
		}
	}
	return nil
}

// budgetReader reads the fields of a `budget:` mapping into b: its methods are the decode
// steps of budgetTable's rows (kind: starts the budget and is budget's own).
type budgetReader struct {
	d *decoder
	b *policy.Budget
}

func (br *budgetReader) capacity(e Entry, path string) (err error) {
	br.b.Capacity, err = br.d.Number(e.Val, path)
	return err
}

func (br *budgetReader) retryCost(e Entry, path string) (err error) {
	br.b.RetryCost, err = br.d.Number(e.Val, path)
	return err
}

func (br *budgetReader) timeoutCost(e Entry, path string) (err error) {
	br.b.TimeoutCost, err = br.d.Number(e.Val, path)
	return err
}

func (br *budgetReader) refill(e Entry, path string) (err error) {
	br.b.Refill, err = br.d.Number(e.Val, path)
	return err
}

func (br *budgetReader) percent(e Entry, path string) (err error) {
	br.b.Percent, err = br.d.Percent(e.Val, path)
	return err
}

func (br *budgetReader) minPerS(e Entry, path string) (err error) {
	br.b.MinPerS, err = br.d.Number(e.Val, path)
	return err
}

func (br *budgetReader) window(e Entry, path string) (err error) {
	br.b.Window, err = br.d.Positive(e.Val, path)
	return err
}

// breaker decodes a policy's `breaker:` (or breaker: none) over prev, the base:'s breaker,
// through breakerTable's rows; src gets the position of each field set.
func (d *decoder) breaker(n *yaml.Node, path string, prev *policy.Breaker, src map[string]policy.Pos) (*policy.Breaker, error) {
	if isNone(n) {
		return nil, nil
	}
	f, err := d.fields(n, path, breakerTable)
	if err != nil {
		return nil, err
	}
	b := defaultBreaker()
	if prev != nil {
		c := *prev
		b = &c
	}
	if err := decodeRows(breakerTable, f, path, &breakerReader{d: d, b: b}); err != nil {
		return nil, err
	}
	for key, e := range f {
		src["breaker."+key] = pos(d.file, e.Key)
	}
	return b, nil
}

// breakerReader reads the fields of a `breaker:` mapping into b: its methods are the decode
// steps of breakerTable's rows.
type breakerReader struct {
	d *decoder
	b *policy.Breaker
}

func (br *breakerReader) failureRate(e Entry, path string) (err error) {
	if br.b.FailureRate, err = br.d.Percent(e.Val, path); err != nil {
		return err
	}
	if br.b.FailureRate == 0 {
		return br.d.Errf(e.Val, path, "must be above 0%% (0%% would open on the first request)")
	}
	return nil
}

func (br *breakerReader) minRequests(e Entry, path string) (err error) {
	br.b.MinRequests, err = br.d.Integer(e.Val, path, 1)
	return err
}

func (br *breakerReader) window(e Entry, path string) (err error) {
	br.b.Window, err = br.d.Positive(e.Val, path)
	return err
}

func (br *breakerReader) openFor(e Entry, path string) (err error) {
	br.b.OpenFor, err = br.d.Positive(e.Val, path)
	return err
}

func (br *breakerReader) halfOpen(e Entry, path string) (err error) {
	br.b.HalfOpen, err = br.d.Integer(e.Val, path, 1)
	return err
}

// layers decodes `layers: [{name, policy}]`, caller first.
func (d *decoder) layers(n *yaml.Node, path string, lookup lookupFunc) ([]policy.Layer, error) {
	items, err := d.Sequence(n, path)
	if err != nil {
		return nil, err
	}
	out := make([]policy.Layer, 0, len(items))
	seen := map[string]bool{}
	for i, it := range items {
		ip := IndexPath(path, i)
		f, err := d.fields(it, ip, layerTable)
		if err != nil {
			return nil, err
		}
		l := policy.Layer{Name: fmt.Sprintf(layerNameFormat, i+1)}
		if fl, ok := f["name"]; ok {
			if l.Name, err = d.Str(fl.Val, JoinPath(ip, "name")); err != nil {
				return nil, err
			}
			if seen[l.Name] {
				return nil, d.Errf(fl.Val, JoinPath(ip, "name"), "layer %q is listed twice", l.Name)
			}
		}
		seen[l.Name] = true
		fl, ok := f["policy"]
		if !ok {
			return nil, d.Errf(it, JoinPath(ip, "policy"), "required: the policy this layer applies to its calls")
		}
		if l.Policy, err = d.policy(fl.Val, JoinPath(ip, "policy"), lookup, false); err != nil {
			return nil, err
		}
		if l.Policy.Name == "" {
			l.Policy.Name = l.Name
		}
		out = append(out, l)
	}
	return out, nil
}

// sortedNames lists a policy-name set for messages.
func sortedNames(m map[string]bool) string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
