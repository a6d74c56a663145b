package check

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/scenario"
)

// classTokens are the retry.on tokens of each failure class.
var classTokens = map[FailureClass]string{
	FailConnect: "connect",
	FailReset:   "reset",
	FailTimeout: "timeout",
	Fail5xx:     "5xx",
	Fail503:     "503",
	Fail429:     "429",
	Fail4xx:     "4xx",
}

// ChainPolicy reads spec "FILE#DEPENDENCY" — a check file and one of its dependencies with a
// `via:` chain — and returns that chain as the layered policy the simulator runs (issue 14,
// "watch the chain"): the outer layers become policy.Layers, caller first, and the innermost
// layer is the bottom policy that calls the dependency. The dependency's own `policy:` keeps
// every field; a config layer keeps its timeouts, backoff, budget and breaker, and retries the
// failure classes the chain arithmetic says it retries. The notes say where the simulator's
// one max_attempts per layer approximates a layer that retries classes a different number of
// times (it takes the most).
func ChainPolicy(spec string) (*policy.Policy, []string, error) {
	return ChainPolicyStdin(spec, nil)
}

// ChainPolicyStdin is ChainPolicy where FILE "-" (`--chain -#partner`) reads the check file
// from stdin, through the loader `check -` uses (LoadPathsStdin): once, bounded like a file,
// its errors named (stdin):LINE:COL. A check file on standard input has no directory of its
// own: its relative via: paths are resolved against the working directory, as `check -`
// resolves them, and a via: file missing there says so. The policy is named
// stdin#DEPENDENCY (a --policy - without name: is "stdin"). With a nil stdin, "-" is a file
// name like any other.
func ChainPolicyStdin(spec string, stdin io.Reader) (*policy.Policy, []string, error) {
	file, dep, ok := strings.Cut(spec, "#")
	if !ok || file == "" || dep == "" {
		return nil, nil, &scenario.Error{File: spec, Msg: "want FILE#DEPENDENCY, e.g. patience.yaml#partner (-#partner: the check file on standard input)"}
	}
	in, err := LoadPathsStdin([]string{file}, stdin)
	if err != nil {
		return nil, nil, err
	}
	if srcs := viaSources(in.Files); len(srcs) > 0 {
		// The call sites a via: names are read with the check file, as `check` reads them.
		if in, err = LoadPathsStdin(append([]string{file}, srcs...), stdin); err != nil {
			return nil, nil, err
		}
	}
	name := filepath.Base(file)
	if file == input.Stdin && stdin != nil {
		file, name = StdinName, "stdin"
	}
	var f *File
	var d *Dependency
	var names []string
	for _, cf := range in.Files {
		for _, cd := range cf.Dependencies {
			names = append(names, cd.Name)
			if cd.Name == dep {
				f, d = cf, cd
			}
		}
	}
	if d == nil && len(in.Files) == 0 {
		return nil, nil, &scenario.Error{File: file, Msg: noCheckFile(in, file, dep)}
	}
	if d == nil {
		return nil, nil, &scenario.Error{File: file, Msg: fmt.Sprintf("no dependency %q (the file has: %s)", dep, strings.Join(names, ", "))}
	}
	if len(d.Via) == 0 {
		return nil, nil, &scenario.Error{File: file, Line: d.Pos.Line, Col: d.Pos.Col, Field: "via",
			Msg: fmt.Sprintf("dependency %q names no via: chain to replay", dep)}
	}
	if d.Policy == nil {
		d.Policy = &policy.Policy{Retry: policy.Retry{MaxAttempts: 1}}
	}
	e := &engine{file: f, opts: Options{Configs: in.Configs, Sources: in.Sources}}
	ch, err := e.chainOf(d)
	if err != nil {
		return nil, nil, err
	}
	return ch.Policy(name + "#" + dep)
}

// Policy is the chain as a layered policy named name; see ChainPolicy.
func (ch *Chain) Policy(name string) (*policy.Policy, []string, error) {
	if len(ch.Layers) == 0 {
		return nil, nil, fmt.Errorf("chain %s has no layers", name)
	}
	var notes []string
	pols := make([]*policy.Policy, len(ch.Layers))
	for i := range ch.Layers {
		p, note := ch.Layers[i].simPolicy(ch.dep)
		pols[i] = p
		if note != "" {
			notes = append(notes, note)
		}
	}
	bottom := pols[len(pols)-1]
	bottom.Name = name
	bottom.Layers = nil
	for i, p := range pols[:len(pols)-1] {
		bottom.Layers = append(bottom.Layers, policy.Layer{Name: ch.Layers[i].Label(), Policy: p})
	}
	if bottom.Source == nil {
		bottom.Source = map[string]policy.Pos{}
	}
	// The chain's layers are this policy's own: a scenario's layers: must not replace them.
	bottom.Source["layers"] = ch.Layers[0].pos
	return bottom, notes, nil
}

// simPolicy is one chain layer as a policy: the dependency's own policy as written for the
// "patience" layer, otherwise the layer's policy retrying the classes it retries.
func (l *ChainLayer) simPolicy(d *Dependency) (*policy.Policy, string) {
	if l.Kind == "patience" && d != nil && d.Policy != nil {
		p := d.Policy.Clone()
		p.Layers = nil
		return p, ""
	}
	var p *policy.Policy
	if l.pol != nil {
		p = l.pol.Clone()
	} else {
		p = &policy.Policy{}
	}
	p.Layers, p.Name = nil, l.Label()
	most, least := 1, 0
	on := []string{}
	for _, c := range FailureClasses {
		n := l.retryOf(c)
		if n < 0 { // unlimited
			n = policy.Unlimited
		}
		if n == 1 {
			continue
		}
		on = append(on, classTokens[c])
		if n == policy.Unlimited || most == policy.Unlimited {
			most = policy.Unlimited
		} else {
			most = max(most, n)
		}
		if least == 0 || (n != policy.Unlimited && n < least) {
			least = n
		}
	}
	p.Retry.On, p.Retry.MaxAttempts = on, most
	if len(on) == 0 {
		p.Retry.MaxAttempts = 1
	}
	var notes []string
	if least > 0 && most != policy.Unlimited && least != most {
		notes = append(notes, fmt.Sprintf("%s retries some failure classes %d times and others %d: the simulator gives the layer one max_attempts, %d", l.Label(), least-1, most-1, most))
	}
	if p.Timeout == 0 && p.ReadTimeout > 0 {
		// A chain's scenario has no drip: a response arrives whole at its latency, so its one
		// silence is all of it, and the read timeout ends it as a per-try timeout does — as
		// the chain arithmetic takes it (tryTimeout). The replay, which applies ReadTimeout
		// too (docs/design.md §6), gives the same result with it as the total.
		p.Timeout = p.ReadTimeout
		notes = append(notes, fmt.Sprintf("%s has a read timeout (%s between two reads) and no per-try total: the simulator's responses arrive whole, so it bounds each try as a %s timeout would; a response that drips would hold the try longer", l.Label(), units.Duration(p.ReadTimeout), units.Duration(p.ReadTimeout)))
	}
	if l.hedge != nil {
		// The simulator's layers retry one attempt after another; gRFC A6 hedges overlap.
		notes = append(notes, fmt.Sprintf("%s hedges (up to %d overlapping attempts, one every %s): the simulator runs them one after another, each waiting hedgingDelay, so a hang there makes fewer attempts than chains[].attempts counts", l.Label(), l.hedge.attempts, units.Duration(l.hedge.delay)))
	}
	return p, strings.Join(notes, "; ")
}

// noCheckFile says why a file --chain named gave no check file: the reason it was skipped,
// or the config it is.
func noCheckFile(in *Inputs, file, dep string) string {
	want := fmt.Sprintf("want a check file whose dependency %q names a via: chain", dep)
	for _, s := range in.Configs.Skipped {
		if s.Path == file {
			return "not a check file (" + s.Reason + "): " + want
		}
	}
	for _, cf := range in.Configs.Files {
		if cf.Path == file {
			return fmt.Sprintf("a %s config (%s), not a check file: %s", cf.Format, strings.Join(cf.Kinds, ", "), want)
		}
	}
	return "no check file: " + want
}

// viaSources are the source files the dependencies' via: entries name, each once.
func viaSources(files []*File) []string {
	var out []string
	for _, f := range files {
		for _, d := range f.Dependencies {
			for _, ref := range d.Via {
				if ref.Source != "" && !slices.Contains(out, ref.Source) {
					out = append(out, ref.Source)
				}
			}
		}
	}
	return out
}
