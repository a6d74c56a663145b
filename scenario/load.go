package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenarios"
	"gopkg.in/yaml.v3"
)

// DefaultName is the bundled scenario `replay` runs without an argument.
const DefaultName = "delivery-date-hang"

// The fields a scenario accepts, their defaults and the sections each purpose requires are
// in the field tables (fields_scenario.go, fields_policy.go), rendered as docs/scenario.md.

// Bounds that keep a scenario a simulation of one fleet of callers rather than a way to make
// the simulator run for hours or exhaust memory: a file beyond them is almost surely a typo
// (10000000/s for 10/s), and is rejected with the bound in the message.
const (
	maxRate     = 1e6            // logical requests per second
	maxCount    = 1_000_000      // clients, workers, concurrency, target workers
	maxQueue    = 10_000_000     // burst size, target queue
	maxDuration = 24 * time.Hour // duration, drain
)

// The same bounds for flags that set what a file would (storm's --clients, --rate, --queue,
// --duration): flags and files share one set of limits.
const (
	MaxRate     = maxRate
	MaxCount    = maxCount
	MaxQueue    = maxQueue
	MaxDuration = maxDuration
)

// Open loads a scenario from a file path or, when no such file exists, a bundled scenario by
// name ("delivery-date-hang"; a ".yaml" suffix is accepted), for replay. Every problem is an
// *Error.
func Open(nameOrPath string) (*Scenario, error) { return OpenFor(nameOrPath, ForReplay) }

// OpenFor is Open for purpose, which decides the sections the file must have (ParseFor).
func OpenFor(nameOrPath string, purpose Purpose) (*Scenario, error) {
	data, err := input.ReadFile(nameOrPath, input.MaxScenario, nil)
	if err == nil {
		return ParseFor(data, nameOrPath, purpose)
	}
	name := strings.TrimSuffix(nameOrPath, ".yaml")
	if b, berr := scenarios.Read(name); berr == nil {
		if purpose != ForServe && scenarios.ServeOnly(name) {
			return nil, serveOnlyError(name)
		}
		return ParseFor(b, "scenarios/"+name+".yaml", purpose)
	}
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\`) {
		return nil, &Error{File: nameOrPath, Msg: fmt.Sprintf("no such file or bundled scenario (bundled: %s)", strings.Join(scenarios.AllNames(), ", "))}
	}
	return nil, &Error{File: nameOrPath, Msg: readErrMsg(err)}
}

func readErrMsg(err error) string {
	var tl *input.TooLargeError
	if errors.As(err, &tl) {
		return tl.Reason()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file"
	}
	return err.Error()
}

// decoder is the scenario and policy walker: the scenario-specific methods (load, target,
// policy, ...) on top of the shared NodeDecoder helpers.
type decoder struct {
	*NodeDecoder
	// purpose is what the file is loaded for: a stream target is refused unless ForServe.
	purpose Purpose
}

// Parse decodes and validates a scenario file strictly (docs/design.md §4), applies defaults, resolves
// presets, `base:` inheritance and layers, and loads `profile:` latencies relative to file.
// The file must have every section replay needs.
func Parse(data []byte, file string) (*Scenario, error) { return ParseFor(data, file, ForReplay) }

// ParseFor is Parse for purpose: the sections purpose does not need may be left out (for
// serve, everything but target), and those present are validated all the same. When several
// required sections are missing, one error names them all.
func ParseFor(data []byte, file string, purpose Purpose) (*Scenario, error) {
	root, err := ParseDocument(data, file, scenarioWords)
	if err != nil {
		return nil, err
	}
	if isCheckFile(root) {
		return nil, checkFileError(file)
	}
	d := &decoder{NodeDecoder: NewNodeDecoder(file), purpose: purpose}
	f, err := d.fields(root, "", scenarioTable)
	if err != nil {
		return nil, err
	}
	sc := &Scenario{Seed: defaultSeed, Drain: defaultDrain, File: file, Expect: map[string]Expect{}}
	sc.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	sr := &scenarioReader{d: d, root: root, f: f, purpose: purpose, sc: sc}
	// The stages run in the order the sections depend on each other; each reports a missing
	// section where it first needs it, so problems in the sections before come first.
	for _, stage := range []func() error{
		sr.rows, sr.load, sr.duration, sr.sparseRate, sr.target, sr.phasesInRun,
		sr.policies, sr.expect, sr.lessonNamesAPolicy,
	} {
		if err := stage(); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// scenarioReader reads the top-level mapping of a scenario file (root, its entries f) into
// sc for purpose: the stages of ParseFor, and the decode steps of scenarioTable's rows
// (name, description, lesson, seed, drain; the sections are stages).
type scenarioReader struct {
	d       *decoder
	root    *yaml.Node
	f       map[string]Entry
	purpose Purpose
	sc      *Scenario
}

// rows decodes the fields whose rows carry a decode step.
func (sr *scenarioReader) rows() error { return decodeRows(scenarioTable, sr.f, "", sr) }

func (sr *scenarioReader) name(e Entry, path string) (err error) {
	sr.sc.Name, err = sr.d.Str(e.Val, path)
	return err
}

func (sr *scenarioReader) description(e Entry, path string) (err error) {
	sr.sc.Description, err = sr.d.Str(e.Val, path)
	return err
}

func (sr *scenarioReader) lesson(e Entry, path string) (err error) {
	sr.sc.Lesson, err = sr.d.lesson(e.Val, path)
	return err
}

func (sr *scenarioReader) seed(e Entry, path string) error {
	s, err := sr.d.Scalar(e.Val, path, "a whole number")
	if err != nil {
		return err
	}
	if e.Val.Tag != "!!int" {
		return sr.d.Errf(e.Val, path, "want a whole number, got %q", s)
	}
	if _, err := fmt.Sscan(s, &sr.sc.Seed); err != nil {
		return sr.d.Errf(e.Val, path, "%q is out of range", s)
	}
	return nil
}

func (sr *scenarioReader) drain(e Entry, path string) (err error) {
	if sr.sc.Drain, err = sr.d.Duration(e.Val, path); err != nil {
		return err
	}
	if sr.sc.Drain > maxDuration {
		return sr.d.Errf(e.Val, path, "%s is longer than the %s a simulation allows", sr.sc.Drain, maxDuration)
	}
	return nil
}

// missing is the error for a section purpose needs and the file leaves out.
func (sr *scenarioReader) missing(s section) error {
	return sr.d.required(sr.root, sr.f, sr.purpose, s)
}

// loadArrivesOverTime says whether the load decoded so far needs a duration (rate or
// concurrency; a burst alone arrives at once).
func (sr *scenarioReader) loadArrivesOverTime() bool {
	return sr.sc.Load.Rate > 0 || sr.sc.Load.Concurrency > 0
}

func (sr *scenarioReader) load() (err error) {
	e, ok := sr.f["load"]
	if !ok {
		if sr.purpose.needs("load") {
			return sr.missing(loadSection)
		}
		return nil
	}
	sr.sc.Load, err = sr.d.load(e.Val, "load")
	return err
}

// duration runs after load: a rate or concurrency load needs one above 0.
func (sr *scenarioReader) duration() (err error) {
	e, ok := sr.f["duration"]
	if !ok {
		if sr.purpose.needs("duration") && sr.loadArrivesOverTime() {
			return sr.missing(durationSection)
		}
		return nil
	}
	if sr.sc.Duration, err = sr.d.Duration(e.Val, "duration"); err != nil {
		return err
	}
	if sr.sc.Duration > maxDuration {
		return sr.d.Errf(e.Val, "duration", "%s is longer than the %s a simulation allows", sr.sc.Duration, maxDuration)
	}
	if sr.sc.Duration == 0 && sr.loadArrivesOverTime() {
		return sr.d.Errf(e.Val, "duration", "must be above 0 for rate or concurrency load")
	}
	return nil
}

func (sr *scenarioReader) sparseRate() error { return sr.d.sparseRate(sr.f, sr.sc) }

func (sr *scenarioReader) target() (err error) {
	e, ok := sr.f["target"]
	if !ok {
		return sr.missing(targetSection)
	}
	sr.sc.Target, err = sr.d.target(e.Val, "target", filepath.Dir(sr.sc.File))
	return err
}

// phasesInRun refuses a phase that starts after the run has ended: it never happens, almost
// surely a unit slip.
func (sr *scenarioReader) phasesInRun() error {
	sc := sr.sc
	if sc.Duration <= 0 {
		return nil
	}
	end := sc.Duration + sc.Drain
	for i, p := range sc.Target.Phases {
		if p.At >= end {
			target := sr.f["target"].Val
			items, _ := sr.d.Sequence(target.Content[phasesIndex(target)], "target.phases")
			return sr.d.Errf(phaseAtNode(items[i]), IndexPath("target.phases", i)+".at",
				"phase %q starts at %s, after the run ends (duration %s + drain %s)", p.Name, p.At, sc.Duration, sc.Drain)
		}
	}
	return nil
}

func (sr *scenarioReader) policies() error {
	_, one := sr.f["policy"]
	_, many := sr.f["policies"]
	needed := sr.purpose.needs("policy")
	if !one && !many && needed {
		return sr.missing(policySection)
	}
	if err := sr.d.policies(sr.f, sr.root, sr.sc); err != nil {
		return err
	}
	if len(sr.sc.Policies) == 0 && needed { // policies: []
		return sr.d.Errf(sr.root, "policy", "required: %s", policySection.what)
	}
	return nil
}

func (sr *scenarioReader) expect() error {
	if e, ok := sr.f["expect"]; ok {
		return sr.d.expect(e.Val, "expect", sr.sc)
	}
	return nil
}

// lessonNamesAPolicy runs once the policies are known: lesson.recommends must name one.
func (sr *scenarioReader) lessonNamesAPolicy() error {
	sc := sr.sc
	if sc.Lesson == nil || len(sc.Policies) == 0 {
		return nil
	}
	for _, p := range sc.Policies {
		if p.Name == sc.Lesson.Recommends {
			return nil
		}
	}
	return sr.d.Errf(sr.f["lesson"].Val, "lesson.recommends", "no policy is named %q", sc.Lesson.Recommends)
}

// lesson decodes `lesson: {recommends: NAME, why: "..."}`.
func (d *decoder) lesson(n *yaml.Node, path string) (*Lesson, error) {
	f, err := d.fields(n, path, lessonTable)
	if err != nil {
		return nil, err
	}
	l := &Lesson{}
	fl, ok := f["recommends"]
	if !ok {
		return nil, d.Errf(n, JoinPath(path, "recommends"), "required: the name of the policy the scenario recommends")
	}
	if l.Recommends, err = d.Str(fl.Val, JoinPath(path, "recommends")); err != nil {
		return nil, err
	}
	if fl, ok := f["why"]; ok {
		if l.Why, err = d.Str(fl.Val, JoinPath(path, "why")); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// load decodes `load:`: its fields through loadTable's rows, the check that it has a model
// (rate, concurrency or burst), then its request.
func (d *decoder) load(n *yaml.Node, path string) (Load, error) {
	lr := &loadReader{d: d, l: defaultLoad()}
	f, err := d.fields(n, path, loadTable)
	if err != nil {
		return lr.l, err
	}
	lr.f = f
	if err := decodeRows(loadTable, f, path, lr); err != nil {
		return lr.l, err
	}
	if lr.l.Rate == 0 && lr.l.Concurrency == 0 && lr.l.Burst == 0 {
		return lr.l, d.Errf(n, path, "needs rate (e.g. 40/s), concurrency or burst")
	}
	if e, ok := f["request"]; ok {
		rf, err := d.fields(e.Val, JoinPath(path, "request"), requestTable)
		if err != nil {
			return lr.l, err
		}
		rr := &requestReader{d: d, r: &lr.l.Request}
		if err := decodeRows(requestTable, rf, JoinPath(path, "request"), rr); err != nil {
			return lr.l, err
		}
	}
	return lr.l, nil
}

// loadReader reads the fields of a `load:` mapping (f) into l: its methods are the decode
// steps of loadTable's rows (request is load's own stage, after the model check).
type loadReader struct {
	d *decoder
	f map[string]Entry
	l Load
}

func (lr *loadReader) clients(e Entry, path string) (err error) {
	lr.l.Clients, err = lr.d.Bounded(e.Val, path, 1, maxCount)
	return err
}

func (lr *loadReader) workers(e Entry, path string) (err error) {
	lr.l.Workers, err = lr.d.Bounded(e.Val, path, 0, maxCount)
	return err
}

func (lr *loadReader) rate(e Entry, path string) error {
	s, err := lr.d.Scalar(e.Val, path, "a rate such as 40/s")
	if err != nil {
		return err
	}
	if lr.l.Rate, err = ParseRate(s); err != nil {
		return lr.d.Errf(e.Val, path, "%v", err)
	}
	if lr.l.Rate == 0 {
		return lr.d.Errf(e.Val, path, "must be above 0")
	}
	if lr.l.Rate > maxRate {
		return lr.d.Errf(e.Val, path, "%s is above the %g/s a simulation allows", s, maxRate)
	}
	return nil
}

func (lr *loadReader) concurrency(e Entry, path string) (err error) {
	if _, both := lr.f["rate"]; both {
		return lr.d.Errf(e.Key, path, "use rate (open model) or concurrency (closed model), not both")
	}
	lr.l.Concurrency, err = lr.d.Bounded(e.Val, path, 1, maxCount)
	return err
}

func (lr *loadReader) think(e Entry, path string) (err error) {
	if _, closed := lr.f["concurrency"]; !closed {
		return lr.d.Errf(e.Key, path, "think time belongs to the closed model: set concurrency too")
	}
	lr.l.Think, err = lr.d.Duration(e.Val, path)
	return err
}

func (lr *loadReader) burst(e Entry, path string) (err error) {
	lr.l.Burst, err = lr.d.Bounded(e.Val, path, 1, maxQueue)
	return err
}

func (lr *loadReader) budget(e Entry, path string) (err error) {
	lr.l.Budget, err = lr.d.Positive(e.Val, path)
	return err
}

// requestReader reads the fields of `load.request:` into r: its methods are the decode
// steps of requestTable's rows.
type requestReader struct {
	d *decoder
	r *Request
}

func (rr *requestReader) method(e Entry, path string) error {
	s, err := rr.d.Str(e.Val, path)
	if err != nil {
		return err
	}
	if strings.IndexFunc(s, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return rr.d.Errf(e.Val, path, "%q is not an HTTP method (write it in capitals: GET, POST)", s)
	}
	rr.r.Method = s
	return nil
}

func (rr *requestReader) path(e Entry, path string) error {
	s, err := rr.d.Str(e.Val, path)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(s, "/") {
		return rr.d.Errf(e.Val, path, "%q must start with /", s)
	}
	rr.r.Path = s
	return nil
}

func (rr *requestReader) idempotencyKey(e Entry, path string) (err error) {
	rr.r.IdempotencyKey, err = rr.d.Boolean(e.Val, path)
	return err
}

// target decodes `target:` through targetTable's rows, once it has its required latency.
// Its distributions' profile: paths are relative to dir.
func (d *decoder) target(n *yaml.Node, path, dir string) (Target, error) {
	tr := &targetReader{d: d, dir: dir, t: defaultTarget()}
	f, err := d.fields(n, path, targetTable)
	if err != nil {
		return tr.t, err
	}
	if _, ok := f["latency"]; !ok && f["stream"].Val == nil {
		return tr.t, d.Errf(n, JoinPath(path, "latency"), "required, e.g. {p50: 80ms, p99: 400ms} or {fixed: 20ms}")
	}
	if err = decodeRows(targetTable, f, path, tr); err != nil {
		return tr.t, err
	}
	return tr.t, tr.streamTarget(f, path)
}

// targetReader reads the fields of a `target:` mapping into t: its methods are the decode
// steps of targetTable's rows.
type targetReader struct {
	d   *decoder
	dir string
	t   Target
}

func (tr *targetReader) latency(e Entry, path string) (err error) {
	tr.t.Latency, err = tr.d.distribution(e.Val, path, tr.dir)
	return err
}

func (tr *targetReader) connect(e Entry, path string) (err error) {
	tr.t.Connect, err = tr.d.distribution(e.Val, path, tr.dir)
	return err
}

func (tr *targetReader) capacity(e Entry, path string) error {
	cf, err := tr.d.fields(e.Val, path, capacityTable)
	if err != nil {
		return err
	}
	c := &Capacity{}
	w, ok := cf["workers"]
	if !ok {
		return tr.d.Errf(e.Val, JoinPath(path, "workers"), "required: how many requests the target serves at once")
	}
	if c.Workers, err = tr.d.Bounded(w.Val, JoinPath(path, "workers"), 1, maxCount); err != nil {
		return err
	}
	if q, ok := cf["queue"]; ok {
		if c.Queue, err = tr.d.Bounded(q.Val, JoinPath(path, "queue"), 0, maxQueue); err != nil {
			return err
		}
	}
	tr.t.Capacity = c
	return nil
}

func (tr *targetReader) conflicts(e Entry, path string) (err error) {
	tr.t.Conflicts, err = tr.d.Enum(e.Val, path, conflictModes...)
	return err
}

func (tr *targetReader) phases(e Entry, path string) error {
	items, err := tr.d.Sequence(e.Val, path)
	if err != nil {
		return err
	}
	for i, it := range items {
		p, err := tr.d.phase(it, IndexPath(path, i), i, tr.dir)
		if err != nil {
			return err
		}
		tr.t.Phases = append(tr.t.Phases, p)
	}
	return tr.noOverlap(items, path)
}

// noOverlap refuses phases that overlap: which one's faults would apply? They may come in
// any order.
func (tr *targetReader) noOverlap(items []*yaml.Node, path string) error {
	phases := tr.t.Phases
	order := make([]int, len(phases))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return phases[order[a]].At < phases[order[b]].At })
	for k := 1; k < len(order); k++ {
		prev, cur := phases[order[k-1]], phases[order[k]]
		if cur.At < prev.End() {
			return tr.d.Errf(phaseAtNode(items[order[k]]), IndexPath(path, order[k])+".at",
				"phase %q starts at %s, inside phase %q (%s–%s); phases must not overlap", cur.Name, cur.At, prev.Name, prev.At, prev.End())
		}
	}
	return nil
}

// phasesIndex is the index of the `phases:` value in a target mapping's Content.
func phasesIndex(target *yaml.Node) int {
	for i := 0; i+1 < len(target.Content); i += 2 {
		if target.Content[i].Value == "phases" {
			return i + 1
		}
	}
	return 0
}

// phaseAtNode is the `at:` value of a phase mapping (or the mapping itself).
func phaseAtNode(n *yaml.Node) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "at" {
			return n.Content[i+1]
		}
	}
	return n
}

func (d *decoder) phase(n *yaml.Node, path string, i int, dir string) (Phase, error) {
	p := Phase{Name: fmt.Sprintf(phaseNameFormat, i+1)}
	f, err := d.fields(n, path, phaseTable)
	if err != nil {
		return p, err
	}
	if fl, ok := f["name"]; ok {
		if p.Name, err = d.Str(fl.Val, JoinPath(path, "name")); err != nil {
			return p, err
		}
	}
	fl, ok := f["at"]
	if !ok {
		return p, d.Errf(n, JoinPath(path, "at"), "required: when the phase starts, e.g. 2m")
	}
	if p.At, err = d.Duration(fl.Val, JoinPath(path, "at")); err != nil {
		return p, err
	}
	fl, ok = f["for"]
	if !ok {
		return p, d.Errf(n, JoinPath(path, "for"), "required: how long the phase lasts, e.g. 30s")
	}
	if p.For, err = d.Positive(fl.Val, JoinPath(path, "for")); err != nil {
		return p, err
	}
	if fl, ok := f["latency"]; ok {
		dist, err := d.distribution(fl.Val, JoinPath(path, "latency"), dir)
		if err != nil {
			return p, err
		}
		p.Latency = &dist
	}
	if fl, ok := f["stall"]; ok {
		if p.Stall, err = d.Boolean(fl.Val, JoinPath(path, "stall")); err != nil {
			return p, err
		}
	}
	if err := d.phaseStream(f, path, dir, &p); err != nil {
		return p, err
	}
	if fl, ok := f["faults"]; ok {
		items, err := d.Sequence(fl.Val, JoinPath(path, "faults"))
		if err != nil {
			return p, err
		}
		total := 0.0
		for j, it := range items {
			ft, err := d.fault(it, IndexPath(JoinPath(path, "faults"), j))
			if err != nil {
				return p, err
			}
			total += ft.Percent
			if total > 1+1e-9 {
				return p, d.Errf(it, IndexPath(JoinPath(path, "faults"), j), "the faults of phase %q add up to %s%%, over 100%% (they share one draw per request)",
					p.Name, trimFloat(total*100))
			}
			p.Faults = append(p.Faults, ft)
		}
	}
	if p.Latency == nil && len(p.Faults) == 0 && !p.Stall && p.FirstEvent == nil && p.Gap == nil {
		return p, d.Errf(n, path, "phase %q changes nothing: give it latency (first_event or gap for a stream), faults or stall: true", p.Name)
	}
	return p, nil
}

func trimFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}

// fault decodes one fault: exactly one kind, named by the key of its row in faultTable,
// decoded by that row's step.
func (d *decoder) fault(n *yaml.Node, path string) (Fault, error) {
	f, err := d.fields(n, path, faultTable)
	if err != nil {
		return Fault{}, err
	}
	var kinds []string
	for _, row := range faultTable.Fields {
		if _, ok := f[row.Name]; ok && row.decode != nil {
			kinds = append(kinds, row.Name)
		}
	}
	if len(kinds) != 1 {
		return Fault{}, d.Errf(n, path, "a fault is exactly one of {hang: P%%}, {reset: P%%}, {refuse: P%%}, {drip: P%%, every: D} or {status: N, percent: P%%}; got %s",
			orNothing(kinds))
	}
	fr := &faultReader{d: d, f: f, path: path, ft: Fault{Kind: FaultKind(kinds[0])}}
	if err := decodeRow(faultTable.field(kinds[0]), fr, f[kinds[0]], JoinPath(path, kinds[0])); err != nil {
		return fr.ft, err
	}
	return fr.ft, nil
}

// faultReader reads a fault mapping (its entries f, at path) into ft: its methods are the
// decode steps of faultTable's kind rows; percent and retry_after belong to status's.
type faultReader struct {
	d    *decoder
	f    map[string]Entry
	path string
	ft   Fault
}

func (fr *faultReader) hang(e Entry, path string) error   { return fr.share(e, path) }
func (fr *faultReader) reset(e Entry, path string) error  { return fr.share(e, path) }
func (fr *faultReader) refuse(e Entry, path string) error { return fr.share(e, path) }

// share reads the percentage of a hang, reset or refuse fault, which takes nothing else.
func (fr *faultReader) share(e Entry, path string) (err error) {
	if fr.ft.Percent, err = fr.d.Percent(e.Val, path); err != nil {
		return err
	}
	if err := fr.only("status", statusKeys); err != nil {
		return err
	}
	return fr.only("drip", dripKeys)
}

// The keys that belong to one fault kind.
var (
	statusKeys = []string{"percent", "retry_after"}
	dripKeys   = []string{"every", "bytes", "size"}
)

// only refuses, at its key, the first of keys (those of fault kind) the fault has.
func (fr *faultReader) only(kind string, keys []string) error {
	for _, k := range keys {
		if fl, ok := fr.f[k]; ok {
			return fr.d.Errf(fl.Key, JoinPath(fr.path, k), "only a %s fault takes %s", kind, k)
		}
	}
	return nil
}

// Bounds of a drip fault: a body serve holds in memory, and a pace that ends within the
// hour (a drip longer than that is a hang, and hang: says so).
const (
	defaultDripBytes = 1
	defaultDripSize  = 64
	maxDripSize      = 1 << 20
	maxDripTime      = time.Hour
)

// drip reads a drip fault: its share, its pace (every, required) and its body (bytes, size).
// serve plays it on the wire and the simulator models it (docs/design.md §6), so every
// purpose loads it.
func (fr *faultReader) drip(e Entry, path string) (err error) {
	if fr.ft.Percent, err = fr.d.Percent(e.Val, path); err != nil {
		return err
	}
	if err := fr.only("status", statusKeys); err != nil {
		return err
	}
	dr := &Drip{Bytes: defaultDripBytes, Size: defaultDripSize}
	ev, ok := fr.f["every"]
	if !ok {
		return fr.d.Errf(e.Key, JoinPath(fr.path, "every"), "required: the wait before each piece of the body, e.g. every: 2s")
	}
	everyPath := JoinPath(fr.path, "every")
	if dr.Every, err = fr.d.Duration(ev.Val, everyPath); err != nil {
		return err
	}
	if dr.Every <= 0 {
		return fr.d.Errf(ev.Val, everyPath, "must be above 0")
	}
	if fl, ok := fr.f["size"]; ok {
		if dr.Size, err = fr.d.Integer(fl.Val, JoinPath(fr.path, "size"), 1); err != nil {
			return err
		}
		if dr.Size > maxDripSize {
			return fr.d.Errf(fl.Val, JoinPath(fr.path, "size"), "%d is above the %d bytes (1 MiB) a drip body allows", dr.Size, maxDripSize)
		}
	}
	if fl, ok := fr.f["bytes"]; ok {
		if dr.Bytes, err = fr.d.Integer(fl.Val, JoinPath(fr.path, "bytes"), 1); err != nil {
			return err
		}
		if dr.Bytes > dr.Size {
			return fr.d.Errf(fl.Val, JoinPath(fr.path, "bytes"), "%d is more than the body's size, %d", dr.Bytes, dr.Size)
		}
	}
	if total := time.Duration(dr.Pieces()) * dr.Every; dr.Every > maxDripTime || total > maxDripTime {
		return fr.d.Errf(ev.Val, everyPath, "%d pieces every %s take over %s: a drip that slow is a hang (write hang: P%%)",
			dr.Pieces(), FormatDuration(dr.Every), FormatDuration(maxDripTime))
	}
	fr.ft.Drip = dr
	return nil
}

func (fr *faultReader) status(e Entry, path string) (err error) {
	if fr.ft.Status, err = fr.d.Integer(e.Val, path, 100); err != nil {
		return err
	}
	if err := fr.only("drip", dripKeys); err != nil {
		return err
	}
	if fr.ft.Status > 599 {
		return fr.d.Errf(e.Val, path, "%d is not an HTTP status", fr.ft.Status)
	}
	fr.ft.Percent = defaultStatusPercent
	if fl, ok := fr.f["percent"]; ok {
		if fr.ft.Percent, err = fr.d.Percent(fl.Val, JoinPath(fr.path, "percent")); err != nil {
			return err
		}
	}
	if fl, ok := fr.f["retry_after"]; ok {
		fr.ft.RetryAfter, err = fr.d.retryAfter(fl.Val, JoinPath(fr.path, "retry_after"))
	}
	return err
}

// retryAfter decodes a status fault's Retry-After: a delay, or {date: ±D} for the HTTP-date
// form.
func (d *decoder) retryAfter(n *yaml.Node, path string) (*RetryAfter, error) {
	ra := &RetryAfter{}
	if n.Kind != yaml.MappingNode {
		var err error
		ra.Delay, err = d.Duration(n, path)
		return ra, err
	}
	rf, err := d.fields(n, path, retryAfterTable)
	if err != nil {
		return nil, err
	}
	dv, ok := rf["date"]
	if !ok {
		return nil, d.Errf(n, JoinPath(path, "date"), "required, e.g. {date: +1s} (an HTTP-date that far from now)")
	}
	s, err := d.Scalar(dv.Val, JoinPath(path, "date"), "an offset such as +1s or -5s")
	if err != nil {
		return nil, err
	}
	v, err := ParseDuration(strings.TrimLeft(s, "+-"))
	if err != nil {
		return nil, d.Errf(dv.Val, JoinPath(path, "date"), "%v", err)
	}
	if strings.HasPrefix(s, "-") {
		v = -v
	}
	ra.Delay, ra.Date = v, true
	return ra, nil
}

func orNothing(s []string) string {
	if len(s) == 0 {
		return "none of them"
	}
	return strings.Join(s, " and ")
}

// distribution decodes one latency distribution (docs/design.md §4).
// It is exactly one kind, named by the key of its row in distributionTable ({p99: B} alone
// counts as p50's), and decoded by that row's step.
func (d *decoder) distribution(n *yaml.Node, path, dir string) (Distribution, error) {
	f, err := d.fields(n, path, distributionTable)
	if err != nil {
		return Distribution{}, err
	}
	var kinds []string
	for _, row := range distributionTable.Fields {
		if _, ok := f[row.Name]; ok && row.decode != nil {
			kinds = append(kinds, row.Name)
		}
	}
	if _, ok := f["p99"]; ok && !slices.Contains(kinds, "p50") {
		kinds = append(kinds, "p50")
	}
	if len(kinds) != 1 {
		return Distribution{}, d.Errf(n, path, "a distribution is exactly one of {fixed: D}, {uniform: [A, B]}, {exponential: {min: A, mean: M}}, {p50: A, p99: B} or {profile: FILE}; got %s", orNothing(kinds))
	}
	dr := &distReader{d: d, n: n, f: f, path: path, dir: dir}
	if err := decodeRow(distributionTable.field(kinds[0]), dr, f[kinds[0]], JoinPath(path, kinds[0])); err != nil {
		return Distribution{}, err
	}
	return dr.dist, nil
}

// distReader reads a distribution mapping (n, its entries f, at path; profile: paths are
// relative to dir) into dist: its methods are the decode steps of distributionTable's kind
// rows, each given its own entry.
type distReader struct {
	d    *decoder
	n    *yaml.Node
	f    map[string]Entry
	path string
	dir  string
	dist Distribution
}

func (dr *distReader) fixed(e Entry, path string) (err error) {
	dr.dist.Kind = DistFixed
	dr.dist.Fixed, err = dr.d.Duration(e.Val, path)
	return err
}

func (dr *distReader) uniform(e Entry, path string) (err error) {
	items, err := dr.d.Sequence(e.Val, path)
	if err != nil {
		return err
	}
	if len(items) != 2 {
		return dr.d.Errf(e.Val, path, "want [low, high], got %d values", len(items))
	}
	dr.dist.Kind = DistUniform
	if dr.dist.Min, err = dr.d.Duration(items[0], IndexPath(path, 0)); err != nil {
		return err
	}
	if dr.dist.Max, err = dr.d.Duration(items[1], IndexPath(path, 1)); err != nil {
		return err
	}
	if dr.dist.Max < dr.dist.Min {
		return dr.d.Errf(items[1], IndexPath(path, 1), "high %s is below low %s", dr.dist.Max, dr.dist.Min)
	}
	return nil
}

func (dr *distReader) exponential(e Entry, path string) (err error) {
	ef, err := dr.d.fields(e.Val, path, exponentialTable)
	if err != nil {
		return err
	}
	dr.dist.Kind = DistExponential
	if fl, ok := ef["min"]; ok {
		if dr.dist.Min, err = dr.d.Duration(fl.Val, JoinPath(path, "min")); err != nil {
			return err
		}
	}
	fl, ok := ef["mean"]
	if !ok {
		return dr.d.Errf(e.Val, JoinPath(path, "mean"), "required: the mean above min, e.g. 5ms")
	}
	dr.dist.ExpMean, err = dr.d.Positive(fl.Val, JoinPath(path, "mean"))
	return err
}

// lognormal is the long form, {lognormal: {p50: A, p99: B}}.
func (dr *distReader) lognormal(e Entry, path string) error {
	lf, err := dr.d.fields(e.Val, path, lognormalTable)
	if err != nil {
		return err
	}
	return dr.quantiles(lf, path)
}

// p50 is the short form, {p50: A, p99: B} (or either alone, an error).
func (dr *distReader) p50(Entry, string) error { return dr.quantiles(dr.f, dr.path) }

// quantiles reads the p50 and p99 of a lognormal from f, at path.
func (dr *distReader) quantiles(f map[string]Entry, path string) (err error) {
	p50, ok50 := f["p50"]
	p99, ok99 := f["p99"]
	if !ok50 || !ok99 {
		return dr.d.Errf(dr.n, JoinPath(path, map[bool]string{true: "p99", false: "p50"}[ok50]), "a lognormal needs both p50 and p99")
	}
	var q50, q99 time.Duration
	if q50, err = dr.d.Positive(p50.Val, JoinPath(path, "p50")); err != nil {
		return err
	}
	if q99, err = dr.d.Positive(p99.Val, JoinPath(path, "p99")); err != nil {
		return err
	}
	if q99 < q50 {
		return dr.d.Errf(p99.Val, JoinPath(path, "p99"), "p99 %s is below p50 %s", q99, q50)
	}
	if float64(q99)/float64(q50) > 1e6 {
		return dr.d.Errf(p99.Val, JoinPath(path, "p99"), "p99 is more than a million times p50: not a latency distribution")
	}
	dr.dist = Lognormal(q50, q99)
	return nil
}

func (dr *distReader) profile(e Entry, path string) error {
	s, err := dr.d.Str(e.Val, path)
	if err != nil {
		return err
	}
	p := s
	if !filepath.IsAbs(p) {
		p = filepath.Join(dr.dir, p)
	}
	dist, err := loadProfile(p)
	if err != nil {
		return dr.d.Errf(e.Val, path, "%s", strings.TrimPrefix(err.Error(), "open "))
	}
	dist.Profile = s
	dr.dist = dist
	return nil
}

// policies decodes `policy:`, `policies:` and `layers:` into sc.Policies, resolving `base:`
// references between them in any order (cycles are errors).
func (d *decoder) policies(f map[string]Entry, root *yaml.Node, sc *Scenario) error {
	ps := &policySet{d: d, byName: map[string]*policyEntry{}}
	if err := ps.addAll(f); err != nil {
		return err
	}
	for _, e := range ps.entries {
		if _, err := ps.resolve(e, nil); err != nil {
			return err
		}
	}
	if fl, ok := f["layers"]; ok {
		layers, err := d.layers(fl.Val, "layers", ps.resolved)
		if err != nil {
			return err
		}
		sc.Layers = layers
	}
	for _, e := range ps.entries {
		sc.AttachLayers(e.pol)
		sc.Policies = append(sc.Policies, e.pol)
	}
	return nil
}

// policySet is the policies a scenario compares, by name, while their base: references are
// resolved.
type policySet struct {
	d       *decoder
	entries []*policyEntry
	byName  map[string]*policyEntry
}

// policyEntry is one policy of the set: its node and name, and its policy once resolved.
type policyEntry struct {
	node  *yaml.Node
	path  string
	name  string
	state resolveState
	pol   *policy.Policy
}

// resolveState is how far a policyEntry is resolved.
type resolveState int

const (
	unresolved resolveState = iota
	resolving               // its base: chain is being followed: meeting it again is a cycle
	resolved
)

// addAll adds the policy of `policy:` and each of `policies:`.
func (ps *policySet) addAll(f map[string]Entry) error {
	if fl, ok := f["policy"]; ok {
		if err := ps.add(fl.Val, "policy", true); err != nil {
			return err
		}
	}
	fl, ok := f["policies"]
	if !ok {
		return nil
	}
	items, err := ps.d.Sequence(fl.Val, "policies")
	if err != nil {
		return err
	}
	for i, it := range items {
		if err := ps.add(it, IndexPath("policies", i), false); err != nil {
			return err
		}
	}
	return nil
}

// add names the policy at n and adds it; a second policy of the same name is an error.
// single is `policy:`, named singlePolicyName when it has no name.
func (ps *policySet) add(n *yaml.Node, path string, single bool) error {
	e := &policyEntry{node: n, path: path}
	var err error
	switch n.Kind {
	case yaml.ScalarNode:
		e.name, err = ps.presetName(n, path)
	case yaml.MappingNode:
		e.name, err = ps.mappingName(n, path, single)
	default:
		err = ps.d.Errf(n, path, "want a policy mapping or preset:NAME, got %s", KindName(n))
	}
	if err != nil {
		return err
	}
	if prev, dup := ps.byName[e.name]; dup {
		return ps.d.Errf(n, path, "a second policy named %q (the first is at line %d); give it name:", e.name, prev.node.Line)
	}
	ps.byName[e.name] = e
	ps.entries = append(ps.entries, e)
	return nil
}

// presetName is the name of a policy written as a string: only preset:NAME may stand alone.
func (ps *policySet) presetName(n *yaml.Node, path string) (string, error) {
	s, err := ps.d.Str(n, path)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(s, "preset:") {
		return s, nil
	}
	if _, ok := ps.byName[s]; ok {
		return "", ps.d.Errf(n, path, "policy %q is already compared; to vary it write {base: %s, name: NEW-NAME, ...}", s, s)
	}
	return "", ps.d.Errf(n, path, "%q is neither preset:NAME nor a policy of this file (presets: %s)", s, strings.Join(PresetNames(), ", "))
}

// mappingName is the name of a policy mapping: its name:, else its base:'s, else (for
// `policy:`) singlePolicyName.
func (ps *policySet) mappingName(n *yaml.Node, path string, single bool) (string, error) {
	name := ""
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "name" || (k == "base" && name == "") {
			name = ResolveAlias(n.Content[i+1]).Value
		}
	}
	if name == "" && single {
		name = singlePolicyName
	}
	if name == "" {
		return "", ps.d.Errf(n, JoinPath(path, "name"), "required: a name labels the policy's column in reports")
	}
	return name, nil
}

// resolve decodes e's policy, first resolving the policy its base: names; chain is the names
// being resolved, to report a cycle.
func (ps *policySet) resolve(e *policyEntry, chain []string) (*policy.Policy, error) {
	switch e.state {
	case resolved:
		return e.pol, nil
	case resolving:
		return nil, ps.d.Errf(e.node, e.path, "base cycle: %s", strings.Join(append(chain, e.name), " → "))
	}
	e.state = resolving
	p, err := ps.d.policy(e.node, e.path, ps.lookup(append(chain, e.name)), true)
	if err != nil {
		return nil, err
	}
	p.Name = e.name
	e.pol, e.state = p, resolved
	return p, nil
}

// lookup finds the base: of a policy being resolved (chain, that policy last), resolving it
// first.
func (ps *policySet) lookup(chain []string) lookupFunc {
	return func(name string, n *yaml.Node, path string) (*policy.Policy, error) {
		be, ok := ps.byName[name]
		if !ok {
			return nil, ps.d.Errf(n, path, "no policy named %q (policies here: %s; presets: preset:NAME)", name, ps.names())
		}
		if be.state == resolving {
			return nil, ps.d.Errf(n, path, "base cycle: %s", strings.Join(append(chain, name), " → "))
		}
		p, err := ps.resolve(be, chain)
		if err != nil {
			return nil, err
		}
		return p.Clone(), nil
	}
}

// resolved finds a base: in the scenario's layers, once every policy is resolved.
func (ps *policySet) resolved(name string, n *yaml.Node, path string) (*policy.Policy, error) {
	if be, ok := ps.byName[name]; ok && be.pol != nil {
		return be.pol.Clone(), nil
	}
	return nil, ps.d.Errf(n, path, "no policy named %q", name)
}

// names lists the set's policy names for messages.
func (ps *policySet) names() string {
	names := make(map[string]bool, len(ps.byName))
	for k := range ps.byName {
		names[k] = true
	}
	return sortedNames(names)
}

// expect decodes `expect: {POLICY|"*": {success_rate, amplification, duplicates, worker_saturation}}`.
// Only the comparison syntax is checked here; `check` evaluates it against a replay.
func (d *decoder) expect(n *yaml.Node, path string, sc *Scenario) error {
	names := map[string]bool{"*": true}
	for _, p := range sc.Policies {
		names[p.Name] = true
	}
	n = ResolveAlias(n)
	if n.Kind != yaml.MappingNode {
		return d.Errf(n, path, "want a mapping of policy name to expectations, got %s", KindName(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], ResolveAlias(n.Content[i+1])
		pp := JoinPath(path, k.Value)
		if !names[k.Value] {
			return d.Errf(k, pp, "no policy named %q (policies: %s; * means every policy)", k.Value, sortedNames(names))
		}
		if _, dup := sc.Expect[k.Value]; dup {
			return d.Errf(k, pp, "set twice")
		}
		f, err := d.fields(v, pp, expectTable)
		if err != nil {
			return err
		}
		ex := Expect{Pos: map[string]policy.Pos{"policy": pos(d.file, k)}}
		for _, c := range []struct {
			key     string
			dst     *string
			percent bool
		}{
			{"success_rate", &ex.SuccessRate, true},
			{"amplification", &ex.Amplification, false},
			{"duplicates", &ex.Duplicates, false},
			{"worker_saturation", &ex.WorkerSaturation, true},
		} {
			fl, ok := f[c.key]
			if !ok {
				continue
			}
			s, err := d.Scalar(fl.Val, JoinPath(pp, c.key), "a comparison such as \">= 99%\"")
			if err != nil {
				return err
			}
			if _, err := ParseComparison(s, c.percent); err != nil {
				return d.Errf(fl.Val, JoinPath(pp, c.key), "%v", err)
			}
			*c.dst = strings.TrimSpace(s)
			ex.Pos[c.key] = pos(d.file, fl.Val)
		}
		sc.Expect[k.Value] = ex
	}
	return nil
}
