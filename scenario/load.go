package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/patience-dev/patience/scenario/policy"
	"github.com/patience-dev/patience/scenarios"
	"gopkg.in/yaml.v3"
)

// DefaultName is the bundled scenario `replay` runs without an argument.
const DefaultName = "delivery-date-hang"

// Defaults of a scenario field that the file leaves out:
//
//	field               default
//	seed                1
//	drain               10m (DESIGN §6)
//	load.clients        1
//	load.workers        0 (unbounded)
//	load.request        {method: GET, path: /, idempotency_key: false}
//	target.connect      {fixed: 1ms}
//	target.conflicts    none
//	phase name          phase-N
//	status fault percent 100%
//
// Required: duration (unless the load is a burst alone), load with one of rate, concurrency
// or burst, target.latency, and policy or policies. Policy defaults: see defaultPolicy.
const (
	defaultSeed  = 1
	defaultDrain = 10 * time.Minute
)

// Bounds that keep a scenario a simulation of one fleet of callers rather than a way to make
// the simulator run for hours or exhaust memory: a file beyond them is almost surely a typo
// (10000000/s for 10/s), and is rejected with the bound in the message.
const (
	maxRate     = 1e6            // logical requests per second
	maxCount    = 1_000_000      // clients, workers, concurrency, target workers
	maxQueue    = 10_000_000     // burst size, target queue
	maxDuration = 24 * time.Hour // duration, drain
)

// scenarioFields are the top-level keys of a scenario file.
var scenarioFields = []string{"name", "description", "seed", "duration", "drain", "load", "target", "policy", "policies", "layers", "expect"}

// Open loads a scenario from a file path or, when no such file exists, a bundled scenario by
// name ("delivery-date-hang"; a ".yaml" suffix is accepted). Every problem is an *Error.
func Open(nameOrPath string) (*Scenario, error) {
	data, err := os.ReadFile(nameOrPath)
	if err == nil {
		return Parse(data, nameOrPath)
	}
	name := strings.TrimSuffix(nameOrPath, ".yaml")
	if b, berr := scenarios.Read(name); berr == nil {
		return Parse(b, "scenarios/"+name+".yaml")
	}
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(nameOrPath, `/\`) {
		return nil, &Error{File: nameOrPath, Msg: fmt.Sprintf("no such file or bundled scenario (bundled: %s)", strings.Join(scenarios.Names(), ", "))}
	}
	return nil, &Error{File: nameOrPath, Msg: readErrMsg(err)}
}

func readErrMsg(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file"
	}
	return err.Error()
}

// parseYAML decodes one YAML document into its root node, mapping syntax errors to *Error.
func parseYAML(data []byte, file string) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Msg: "empty file"}
		}
		return nil, syntaxError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, errAt(file, &extra, "", "a second YAML document (---) is not allowed")
	} else if !errors.Is(err, io.EOF) {
		return nil, syntaxError(file, err)
	}
	if len(root.Content) == 0 {
		return nil, &Error{File: file, Msg: "empty file"}
	}
	return root.Content[0], nil
}

// syntaxError turns yaml.v3's "yaml: line N: msg" into an *Error with that line.
func syntaxError(file string, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{File: file, Msg: msg}
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		e.Line, e.Col = line, 1
		e.Msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
	}
	return e
}

// Parse decodes and validates a scenario file strictly (DESIGN §4), applies defaults, resolves
// presets, `base:` inheritance and layers, and loads `profile:` latencies relative to file.
func Parse(data []byte, file string) (*Scenario, error) {
	root, err := parseYAML(data, file)
	if err != nil {
		return nil, err
	}
	d := &decoder{file: file}
	f, err := d.mapping(root, "", scenarioFields...)
	if err != nil {
		return nil, err
	}
	sc := &Scenario{Seed: defaultSeed, Drain: defaultDrain, File: file, Expect: map[string]Expect{}}
	sc.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if fl, ok := f["name"]; ok {
		if sc.Name, err = d.str(fl.val, "name"); err != nil {
			return nil, err
		}
	}
	if fl, ok := f["description"]; ok {
		if sc.Description, err = d.str(fl.val, "description"); err != nil {
			return nil, err
		}
	}
	if fl, ok := f["seed"]; ok {
		s, err := d.scalar(fl.val, "seed", "a whole number")
		if err != nil {
			return nil, err
		}
		if fl.val.Tag != "!!int" {
			return nil, d.errf(fl.val, "seed", "want a whole number, got %q", s)
		}
		if _, err := fmt.Sscan(s, &sc.Seed); err != nil {
			return nil, d.errf(fl.val, "seed", "%q is out of range", s)
		}
	}
	if fl, ok := f["drain"]; ok {
		if sc.Drain, err = d.duration(fl.val, "drain"); err != nil {
			return nil, err
		}
		if sc.Drain > maxDuration {
			return nil, d.errf(fl.val, "drain", "%s is longer than the %s a simulation allows", sc.Drain, maxDuration)
		}
	}
	lf, ok := f["load"]
	if !ok {
		return nil, d.errf(root, "load", "required: who calls the target (rate, concurrency or burst)")
	}
	if sc.Load, err = d.load(lf.val, "load"); err != nil {
		return nil, err
	}
	if fl, ok := f["duration"]; ok {
		if sc.Duration, err = d.duration(fl.val, "duration"); err != nil {
			return nil, err
		}
		if sc.Duration > maxDuration {
			return nil, d.errf(fl.val, "duration", "%s is longer than the %s a simulation allows", sc.Duration, maxDuration)
		}
		if sc.Duration == 0 && (sc.Load.Rate > 0 || sc.Load.Concurrency > 0) {
			return nil, d.errf(fl.val, "duration", "must be above 0 for rate or concurrency load")
		}
	} else if sc.Load.Rate > 0 || sc.Load.Concurrency > 0 {
		return nil, d.errf(root, "duration", "required: how long arrivals continue, e.g. 5m")
	}
	tf, ok := f["target"]
	if !ok {
		return nil, d.errf(root, "target", "required: how the dependency behaves (latency, phases)")
	}
	if sc.Target, err = d.target(tf.val, "target", filepath.Dir(file)); err != nil {
		return nil, err
	}
	// A phase that starts after the run has ended never happens: almost surely a unit slip.
	if end := sc.Duration + sc.Drain; sc.Duration > 0 {
		for i, p := range sc.Target.Phases {
			if p.At >= end {
				items, _ := d.sequence(f["target"].val.Content[phasesIndex(f["target"].val)], "target.phases")
				return nil, d.errf(phaseAtNode(items[i]), index("target.phases", i)+".at",
					"phase %q starts at %s, after the run ends (duration %s + drain %s)", p.Name, p.At, sc.Duration, sc.Drain)
			}
		}
	}
	if err := d.policies(f, root, sc); err != nil {
		return nil, err
	}
	if fl, ok := f["expect"]; ok {
		if err := d.expect(fl.val, "expect", sc); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

func (d *decoder) load(n *yaml.Node, path string) (Load, error) {
	l := Load{Clients: 1, Request: Request{Method: "GET", Path: "/"}}
	f, err := d.mapping(n, path, "clients", "workers", "rate", "concurrency", "think", "burst", "request")
	if err != nil {
		return l, err
	}
	if fl, ok := f["clients"]; ok {
		if l.Clients, err = d.bounded(fl.val, join(path, "clients"), 1, maxCount); err != nil {
			return l, err
		}
	}
	if fl, ok := f["workers"]; ok {
		if l.Workers, err = d.bounded(fl.val, join(path, "workers"), 0, maxCount); err != nil {
			return l, err
		}
	}
	if fl, ok := f["rate"]; ok {
		s, err := d.scalar(fl.val, join(path, "rate"), "a rate such as 40/s")
		if err != nil {
			return l, err
		}
		if l.Rate, err = ParseRate(s); err != nil {
			return l, d.errf(fl.val, join(path, "rate"), "%v", err)
		}
		if l.Rate == 0 {
			return l, d.errf(fl.val, join(path, "rate"), "must be above 0")
		}
		if l.Rate > maxRate {
			return l, d.errf(fl.val, join(path, "rate"), "%s is above the %g/s a simulation allows", s, maxRate)
		}
	}
	if fl, ok := f["concurrency"]; ok {
		if _, both := f["rate"]; both {
			return l, d.errf(fl.key, join(path, "concurrency"), "use rate (open model) or concurrency (closed model), not both")
		}
		if l.Concurrency, err = d.bounded(fl.val, join(path, "concurrency"), 1, maxCount); err != nil {
			return l, err
		}
	}
	if fl, ok := f["think"]; ok {
		if _, closed := f["concurrency"]; !closed {
			return l, d.errf(fl.key, join(path, "think"), "think time belongs to the closed model: set concurrency too")
		}
		if l.Think, err = d.duration(fl.val, join(path, "think")); err != nil {
			return l, err
		}
	}
	if fl, ok := f["burst"]; ok {
		if l.Burst, err = d.bounded(fl.val, join(path, "burst"), 1, maxQueue); err != nil {
			return l, err
		}
	}
	if l.Rate == 0 && l.Concurrency == 0 && l.Burst == 0 {
		return l, d.errf(n, path, "needs rate (e.g. 40/s), concurrency or burst")
	}
	if fl, ok := f["request"]; ok {
		rf, err := d.mapping(fl.val, join(path, "request"), "method", "path", "idempotency_key")
		if err != nil {
			return l, err
		}
		if m, ok := rf["method"]; ok {
			s, err := d.str(m.val, join(path, "request.method"))
			if err != nil {
				return l, err
			}
			if strings.IndexFunc(s, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
				return l, d.errf(m.val, join(path, "request.method"), "%q is not an HTTP method (write it in capitals: GET, POST)", s)
			}
			l.Request.Method = s
		}
		if p, ok := rf["path"]; ok {
			s, err := d.str(p.val, join(path, "request.path"))
			if err != nil {
				return l, err
			}
			if !strings.HasPrefix(s, "/") {
				return l, d.errf(p.val, join(path, "request.path"), "%q must start with /", s)
			}
			l.Request.Path = s
		}
		if k, ok := rf["idempotency_key"]; ok {
			if l.Request.IdempotencyKey, err = d.boolean(k.val, join(path, "request.idempotency_key")); err != nil {
				return l, err
			}
		}
	}
	return l, nil
}

func (d *decoder) target(n *yaml.Node, path, dir string) (Target, error) {
	t := Target{Connect: Distribution{Kind: DistFixed, Fixed: time.Millisecond}, Conflicts: "none"}
	f, err := d.mapping(n, path, "latency", "connect", "capacity", "conflicts", "phases")
	if err != nil {
		return t, err
	}
	fl, ok := f["latency"]
	if !ok {
		return t, d.errf(n, join(path, "latency"), "required, e.g. {p50: 80ms, p99: 400ms} or {fixed: 20ms}")
	}
	if t.Latency, err = d.distribution(fl.val, join(path, "latency"), dir); err != nil {
		return t, err
	}
	if fl, ok := f["connect"]; ok {
		if t.Connect, err = d.distribution(fl.val, join(path, "connect"), dir); err != nil {
			return t, err
		}
	}
	if fl, ok := f["capacity"]; ok {
		cf, err := d.mapping(fl.val, join(path, "capacity"), "workers", "queue")
		if err != nil {
			return t, err
		}
		c := &Capacity{}
		w, ok := cf["workers"]
		if !ok {
			return t, d.errf(fl.val, join(path, "capacity.workers"), "required: how many requests the target serves at once")
		}
		if c.Workers, err = d.bounded(w.val, join(path, "capacity.workers"), 1, maxCount); err != nil {
			return t, err
		}
		if q, ok := cf["queue"]; ok {
			if c.Queue, err = d.bounded(q.val, join(path, "capacity.queue"), 0, maxQueue); err != nil {
				return t, err
			}
		}
		t.Capacity = c
	}
	if fl, ok := f["conflicts"]; ok {
		if t.Conflicts, err = d.enum(fl.val, join(path, "conflicts"), "none", "single-row"); err != nil {
			return t, err
		}
	}
	if fl, ok := f["phases"]; ok {
		items, err := d.sequence(fl.val, join(path, "phases"))
		if err != nil {
			return t, err
		}
		for i, it := range items {
			p, err := d.phase(it, index(join(path, "phases"), i), i, dir)
			if err != nil {
				return t, err
			}
			t.Phases = append(t.Phases, p)
		}
		// Phases may come in any order but must not overlap: which one's faults would apply?
		order := make([]int, len(t.Phases))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return t.Phases[order[a]].At < t.Phases[order[b]].At })
		for k := 1; k < len(order); k++ {
			prev, cur := t.Phases[order[k-1]], t.Phases[order[k]]
			if cur.At < prev.End() {
				return t, d.errf(phaseAtNode(items[order[k]]), index(join(path, "phases"), order[k])+".at",
					"phase %q starts at %s, inside phase %q (%s–%s); phases must not overlap", cur.Name, cur.At, prev.Name, prev.At, prev.End())
			}
		}
	}
	return t, nil
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
	p := Phase{Name: fmt.Sprintf("phase-%d", i+1)}
	f, err := d.mapping(n, path, "name", "at", "for", "latency", "faults", "stall")
	if err != nil {
		return p, err
	}
	if fl, ok := f["name"]; ok {
		if p.Name, err = d.str(fl.val, join(path, "name")); err != nil {
			return p, err
		}
	}
	fl, ok := f["at"]
	if !ok {
		return p, d.errf(n, join(path, "at"), "required: when the phase starts, e.g. 2m")
	}
	if p.At, err = d.duration(fl.val, join(path, "at")); err != nil {
		return p, err
	}
	fl, ok = f["for"]
	if !ok {
		return p, d.errf(n, join(path, "for"), "required: how long the phase lasts, e.g. 30s")
	}
	if p.For, err = d.positive(fl.val, join(path, "for")); err != nil {
		return p, err
	}
	if fl, ok := f["latency"]; ok {
		dist, err := d.distribution(fl.val, join(path, "latency"), dir)
		if err != nil {
			return p, err
		}
		p.Latency = &dist
	}
	if fl, ok := f["stall"]; ok {
		if p.Stall, err = d.boolean(fl.val, join(path, "stall")); err != nil {
			return p, err
		}
	}
	if fl, ok := f["faults"]; ok {
		items, err := d.sequence(fl.val, join(path, "faults"))
		if err != nil {
			return p, err
		}
		total := 0.0
		for j, it := range items {
			ft, err := d.fault(it, index(join(path, "faults"), j))
			if err != nil {
				return p, err
			}
			total += ft.Percent
			if total > 1+1e-9 {
				return p, d.errf(it, index(join(path, "faults"), j), "the faults of phase %q add up to %s%%, over 100%% (they share one draw per request)",
					p.Name, trimFloat(total*100))
			}
			p.Faults = append(p.Faults, ft)
		}
	}
	if p.Latency == nil && len(p.Faults) == 0 && !p.Stall {
		return p, d.errf(n, path, "phase %q changes nothing: give it latency, faults or stall: true", p.Name)
	}
	return p, nil
}

func trimFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}

func (d *decoder) fault(n *yaml.Node, path string) (Fault, error) {
	var ft Fault
	f, err := d.mapping(n, path, "hang", "reset", "refuse", "status", "percent", "retry_after")
	if err != nil {
		return ft, err
	}
	var kinds []string
	for _, k := range []string{"hang", "reset", "refuse", "status"} {
		if _, ok := f[k]; ok {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) != 1 {
		return ft, d.errf(n, path, "a fault is exactly one of {hang: P%%}, {reset: P%%}, {refuse: P%%} or {status: N, percent: P%%}; got %s",
			orNothing(kinds))
	}
	ft.Kind = FaultKind(kinds[0])
	if ft.Kind != FaultStatus {
		fl := f[kinds[0]]
		if ft.Percent, err = d.percent(fl.val, join(path, kinds[0])); err != nil {
			return ft, err
		}
		for _, k := range []string{"percent", "retry_after"} {
			if fl, ok := f[k]; ok {
				return ft, d.errf(fl.key, join(path, k), "only a status fault takes %s", k)
			}
		}
		return ft, nil
	}
	fl := f["status"]
	if ft.Status, err = d.integer(fl.val, join(path, "status"), 100); err != nil {
		return ft, err
	}
	if ft.Status > 599 {
		return ft, d.errf(fl.val, join(path, "status"), "%d is not an HTTP status", ft.Status)
	}
	ft.Percent = 1
	if fl, ok := f["percent"]; ok {
		if ft.Percent, err = d.percent(fl.val, join(path, "percent")); err != nil {
			return ft, err
		}
	}
	if fl, ok := f["retry_after"]; ok {
		ra := &RetryAfter{}
		rp := join(path, "retry_after")
		if fl.val.Kind == yaml.MappingNode {
			rf, err := d.mapping(fl.val, rp, "date")
			if err != nil {
				return ft, err
			}
			dv, ok := rf["date"]
			if !ok {
				return ft, d.errf(fl.val, join(rp, "date"), "required, e.g. {date: +1s} (an HTTP-date that far from now)")
			}
			s, err := d.scalar(dv.val, join(rp, "date"), "an offset such as +1s or -5s")
			if err != nil {
				return ft, err
			}
			neg := strings.HasPrefix(s, "-")
			v, err := ParseDuration(strings.TrimLeft(s, "+-"))
			if err != nil {
				return ft, d.errf(dv.val, join(rp, "date"), "%v", err)
			}
			if neg {
				v = -v
			}
			ra.Delay, ra.Date = v, true
		} else if ra.Delay, err = d.duration(fl.val, rp); err != nil {
			return ft, err
		}
		ft.RetryAfter = ra
	}
	return ft, nil
}

func orNothing(s []string) string {
	if len(s) == 0 {
		return "none of them"
	}
	return strings.Join(s, " and ")
}

// distribution decodes one latency distribution (DESIGN §4).
func (d *decoder) distribution(n *yaml.Node, path, dir string) (Distribution, error) {
	var dist Distribution
	f, err := d.mapping(n, path, "fixed", "uniform", "exponential", "lognormal", "p50", "p99", "profile")
	if err != nil {
		return dist, err
	}
	var kinds []string
	for _, k := range []string{"fixed", "uniform", "exponential", "lognormal", "p50", "profile"} {
		if _, ok := f[k]; ok {
			kinds = append(kinds, k)
		}
	}
	if _, ok := f["p99"]; ok && !slices.Contains(kinds, "p50") {
		kinds = append(kinds, "p50")
	}
	if len(kinds) != 1 {
		return dist, d.errf(n, path, "a distribution is exactly one of {fixed: D}, {uniform: [A, B]}, {exponential: {min: A, mean: M}}, {p50: A, p99: B} or {profile: FILE}; got %s", orNothing(kinds))
	}
	switch kinds[0] {
	case "fixed":
		dist.Kind = DistFixed
		dist.Fixed, err = d.duration(f["fixed"].val, join(path, "fixed"))
		return dist, err
	case "uniform":
		up := join(path, "uniform")
		items, err := d.sequence(f["uniform"].val, up)
		if err != nil {
			return dist, err
		}
		if len(items) != 2 {
			return dist, d.errf(f["uniform"].val, up, "want [low, high], got %d values", len(items))
		}
		dist.Kind = DistUniform
		if dist.Min, err = d.duration(items[0], index(up, 0)); err != nil {
			return dist, err
		}
		if dist.Max, err = d.duration(items[1], index(up, 1)); err != nil {
			return dist, err
		}
		if dist.Max < dist.Min {
			return dist, d.errf(items[1], index(up, 1), "high %s is below low %s", dist.Max, dist.Min)
		}
		return dist, nil
	case "exponential":
		ep := join(path, "exponential")
		ef, err := d.mapping(f["exponential"].val, ep, "min", "mean")
		if err != nil {
			return dist, err
		}
		dist.Kind = DistExponential
		if fl, ok := ef["min"]; ok {
			if dist.Min, err = d.duration(fl.val, join(ep, "min")); err != nil {
				return dist, err
			}
		}
		fl, ok := ef["mean"]
		if !ok {
			return dist, d.errf(f["exponential"].val, join(ep, "mean"), "required: the mean above min, e.g. 5ms")
		}
		dist.Mean, err = d.positive(fl.val, join(ep, "mean"))
		return dist, err
	case "lognormal", "p50":
		lf := f
		lp := path
		if fl, ok := f["lognormal"]; ok {
			lp = join(path, "lognormal")
			if lf, err = d.mapping(fl.val, lp, "p50", "p99"); err != nil {
				return dist, err
			}
		}
		dist.Kind = DistLognormal
		p50, ok50 := lf["p50"]
		p99, ok99 := lf["p99"]
		if !ok50 || !ok99 {
			return dist, d.errf(n, join(lp, map[bool]string{true: "p99", false: "p50"}[ok50]), "a lognormal needs both p50 and p99")
		}
		if dist.P50, err = d.positive(p50.val, join(lp, "p50")); err != nil {
			return dist, err
		}
		if dist.P99, err = d.positive(p99.val, join(lp, "p99")); err != nil {
			return dist, err
		}
		if dist.P99 < dist.P50 {
			return dist, d.errf(p99.val, join(lp, "p99"), "p99 %s is below p50 %s", dist.P99, dist.P50)
		}
		if float64(dist.P99)/float64(dist.P50) > 1e6 {
			return dist, d.errf(p99.val, join(lp, "p99"), "p99 is more than a million times p50: not a latency distribution")
		}
		return Lognormal(dist.P50, dist.P99), nil
	default: // profile
		fl := f["profile"]
		s, err := d.str(fl.val, join(path, "profile"))
		if err != nil {
			return dist, err
		}
		p := s
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		dist, err := loadProfile(p)
		if err != nil {
			return dist, d.errf(fl.val, join(path, "profile"), "%s", strings.TrimPrefix(err.Error(), "open "))
		}
		dist.Profile = s
		return dist, nil
	}
}

// policies decodes `policy:`, `policies:` and `layers:` into sc.Policies, resolving `base:`
// references between them in any order (cycles are errors).
func (d *decoder) policies(f map[string]field, root *yaml.Node, sc *Scenario) error {
	type entry struct {
		node  *yaml.Node
		path  string
		name  string
		state int // 0 new, 1 resolving, 2 done
		pol   *policy.Policy
	}
	var entries []*entry
	byName := map[string]*entry{}
	add := func(n *yaml.Node, path string, single bool) error {
		e := &entry{node: n, path: path}
		switch n.Kind {
		case yaml.ScalarNode:
			s, err := d.str(n, path)
			if err != nil {
				return err
			}
			if !strings.HasPrefix(s, "preset:") {
				if _, ok := byName[s]; ok {
					return d.errf(n, path, "policy %q is already compared; to vary it write {base: %s, name: NEW-NAME, ...}", s, s)
				}
				return d.errf(n, path, "%q is neither preset:NAME nor a policy of this file (presets: %s)", s, strings.Join(PresetNames(), ", "))
			}
			e.name = s
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i].Value; k == "name" || (k == "base" && e.name == "") {
					e.name = resolve(n.Content[i+1]).Value
				}
			}
			if e.name == "" && single {
				e.name = "policy"
			}
			if e.name == "" {
				return d.errf(n, join(path, "name"), "required: a name labels the policy's column in reports")
			}
		default:
			return d.errf(n, path, "want a policy mapping or preset:NAME, got %s", kindName(n))
		}
		if prev, dup := byName[e.name]; dup {
			return d.errf(n, path, "a second policy named %q (the first is at line %d); give it name:", e.name, prev.node.Line)
		}
		byName[e.name] = e
		entries = append(entries, e)
		return nil
	}
	if fl, ok := f["policy"]; ok {
		if err := add(fl.val, "policy", true); err != nil {
			return err
		}
	}
	if fl, ok := f["policies"]; ok {
		items, err := d.sequence(fl.val, "policies")
		if err != nil {
			return err
		}
		for i, it := range items {
			if err := add(it, index("policies", i), false); err != nil {
				return err
			}
		}
	}
	if len(entries) == 0 {
		return d.errf(root, "policy", "required: the caller's policy (policy: {...}) or a list to compare (policies: [...])")
	}
	var resolveEntry func(e *entry, chain []string) (*policy.Policy, error)
	resolveEntry = func(e *entry, chain []string) (*policy.Policy, error) {
		switch e.state {
		case 2:
			return e.pol, nil
		case 1:
			return nil, d.errf(e.node, e.path, "base cycle: %s", strings.Join(append(chain, e.name), " → "))
		}
		e.state = 1
		chain = append(chain, e.name)
		lookup := func(name string, n *yaml.Node, path string) (*policy.Policy, error) {
			be, ok := byName[name]
			if !ok {
				names := make(map[string]bool, len(byName))
				for k := range byName {
					names[k] = true
				}
				return nil, d.errf(n, path, "no policy named %q (policies here: %s; presets: preset:NAME)", name, sortedNames(names))
			}
			if be.state == 1 {
				return nil, d.errf(n, path, "base cycle: %s", strings.Join(append(chain, name), " → "))
			}
			p, err := resolveEntry(be, chain)
			if err != nil {
				return nil, err
			}
			return clonePolicy(p), nil
		}
		p, err := d.policy(e.node, e.path, lookup, true)
		if err != nil {
			return nil, err
		}
		p.Name = e.name
		e.pol, e.state = p, 2
		return p, nil
	}
	for _, e := range entries {
		if _, err := resolveEntry(e, nil); err != nil {
			return err
		}
	}
	var shared []policy.Layer
	if fl, ok := f["layers"]; ok {
		noBase := func(name string, n *yaml.Node, path string) (*policy.Policy, error) {
			if be, ok := byName[name]; ok && be.pol != nil {
				return clonePolicy(be.pol), nil
			}
			return nil, d.errf(n, path, "no policy named %q", name)
		}
		var err error
		if shared, err = d.layers(fl.val, "layers", noBase); err != nil {
			return err
		}
	}
	sc.Layers = shared
	for _, e := range entries {
		sc.AttachLayers(e.pol)
		sc.Policies = append(sc.Policies, e.pol)
	}
	return nil
}

// expect decodes `expect: {POLICY|"*": {success_rate, amplification, duplicates, worker_saturation}}`.
// Only the comparison syntax is checked here; `check` evaluates it against a replay.
func (d *decoder) expect(n *yaml.Node, path string, sc *Scenario) error {
	names := map[string]bool{"*": true}
	for _, p := range sc.Policies {
		names[p.Name] = true
	}
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return d.errf(n, path, "want a mapping of policy name to expectations, got %s", kindName(n))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		pp := join(path, k.Value)
		if !names[k.Value] {
			return d.errf(k, pp, "no policy named %q (policies: %s; * means every policy)", k.Value, sortedNames(names))
		}
		if _, dup := sc.Expect[k.Value]; dup {
			return d.errf(k, pp, "set twice")
		}
		f, err := d.mapping(v, pp, "success_rate", "amplification", "duplicates", "worker_saturation")
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
			s, err := d.scalar(fl.val, join(pp, c.key), "a comparison such as \">= 99%\"")
			if err != nil {
				return err
			}
			if _, err := ParseComparison(s, c.percent); err != nil {
				return d.errf(fl.val, join(pp, c.key), "%v", err)
			}
			*c.dst = strings.TrimSpace(s)
			ex.Pos[c.key] = pos(d.file, fl.val)
		}
		sc.Expect[k.Value] = ex
	}
	return nil
}
