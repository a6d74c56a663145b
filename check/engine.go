package check

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/internal/units"
	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/scenario"
)

// Options tune a check run.
type Options struct {
	// FailOn is the level at or above which a finding fails the gate (default error).
	FailOn Severity
	// Profile is --profile: a probe profile for every dependency that names none.
	Profile string
	// Version is patience's version, copied into the result for SARIF.
	Version string
	// LoadProfile reads a probe profile (PT010 reads its good responses' latency, PT016 their
	// longest silences); nil uses profile.Load.
	LoadProfile func(path string) (*profile.Profile, error)
	// StdinProfile is the profile `--profile -` read from standard input; Profile is then
	// StdinName, and the default LoadProfile returns its histogram for that name.
	StdinProfile *profile.Profile
	// Replay replays one scenario file for PT100; nil uses the simulator.
	Replay Replayer
	// Admit, when set, is asked before the simulator replays a scenario (PT100): an error
	// refuses it, and the run stops with that error at the scenarios: entry (cmd: the
	// --max-cost budget, storm's estimate). Only the default Replay asks it.
	Admit func(*scenario.Scenario) error
	// Configs are the real config files named or found on the command line (LoadPaths);
	// via: entries read theirs into it. Every layer no via: takes is checked as a chain of
	// its own. nil = none.
	Configs *Configs
	// Sources are the source files named or found on the command line (LoadPaths), each
	// with its outbound calls: every call is listed in Result.Calls and judged at its line.
	Sources []*SourceFile
	// Paths are what the command line named (files and directories), for the message of a
	// run that checked nothing; nil = the check files.
	Paths []string
	// Read counts the files read (Inputs.Read); Result.Summary.Read adds nothing to it.
	Read int
	// AllowEmpty passes a run that checked nothing (--allow-empty); without it such a run
	// is an input error (Result.NothingChecked, Result.Error).
	AllowEmpty bool
	// Progress, when set, is called as the scenarios (PT100) are replayed, the slow part of a
	// run: total is ReplayUnits per scenario, done grows through each (the simulator's own
	// progress with the default Replay, at its end with another) and reaches total at the
	// end. It is not called when no scenario is listed.
	Progress func(done, total int)
	// Estimate, when set, is called once before the first replay with what the replays are
	// expected to take on this machine (ReplayEstimate: sim.EstimateReplay of each scenario,
	// calibrated with sim.Expect). Only the default Replay calls it, and only when a scenario
	// is listed.
	Estimate func(ReplayEstimate)
	// EstimateOver is the time under which the caller of Estimate says nothing (cmd: the
	// announcement's threshold): an estimate far enough under it is not calibrated
	// (sim.Expect). 0 always calibrates.
	EstimateOver time.Duration
}

// ReplayUnits is one scenario's share of Options.Progress.
const ReplayUnits = 1000

// Replayer replays the scenario at path and returns its expectations and results. Stopped by
// ctx, it returns the policies that finished (or nil) with ctx's error.
type Replayer func(ctx context.Context, path string) (*Replay, error)

// Replay is what PT100 needs from one replayed scenario.
type Replay struct {
	Scenario string
	File     string
	// Expect is keyed by policy name; "*" applies to every policy.
	Expect   map[string]scenario.Expect
	Policies []ReplayedPolicy
}

// ReplayedPolicy is one policy's replay outcome in the units of `expect:` (ratios 0–1).
type ReplayedPolicy struct {
	Name             string
	SuccessRate      float64
	Amplification    float64
	Duplicates       float64
	WorkerSaturation float64
}

// Run applies every enabled rule to every dependency of files, replays the scenarios they
// list, and returns the result. An unreadable profile or scenario is an input error
// (*scenario.Error), never a finding.
//
// When ctx is cancelled during the replays (Ctrl-C), Run returns both the result of what
// finished — every dependency and config finding, the scenarios replayed, the policies of the
// interrupted scenario that finished — marked Interrupted, with the scenarios not (or not
// wholly) replayed in NotReplayed, and ctx's error.
func Run(ctx context.Context, files []*File, opts Options) (*Result, error) {
	r := newRun(files, opts)
	// The rules that read the files alone run first, for every file: they take milliseconds.
	// The scenarios, which run simulations, come last, so a run interrupted (Ctrl-C) during a
	// replay still has every static finding.
	replays, err := r.checkStatic()
	if err != nil {
		return nil, err
	}
	// The calls come before the configs no via: took: a config that routes a call's literal
	// host is in the call's chain, not a chain of its own.
	if err := sourceCalls(files, r.opts, r.res); err != nil {
		return nil, err
	}
	if err := inferredChains(files, r.opts, r.res); err != nil {
		return nil, err
	}
	r.estimateReplays(ctx, replays)
	stop, err := r.replay(ctx, replays)
	if err != nil {
		return nil, err
	}
	r.res.Interrupted = stop != nil
	r.listRules()
	sortFindings(r.res.Findings)
	r.summarize()
	r.judgeNothingChecked()
	r.res.Judge()
	return r.res, stop
}

// run is one Run between its stages: the files, the options with their defaults, the result
// it fills and the rules some file leaves enabled.
type run struct {
	files   []*File
	opts    Options
	res     *Result
	enabled map[string]bool
	// within is the progress of the scenario being replayed, which the default Replay
	// reports (nil between replays).
	within func(done, total int)
	// simulated says the default Replay runs the scenarios; loaded are the scenarios
	// estimateReplays read, by path, each taken by its replay.
	simulated bool
	loaded    map[string][]*scenario.Scenario
}

// replayTask is a scenario a file lists, replayed after every static rule ran.
type replayTask struct {
	e   *engine
	ref ScenarioRef
}

func newRun(files []*File, opts Options) *run {
	if opts.FailOn == "" {
		opts.FailOn = SeverityError
	}
	if opts.LoadProfile == nil {
		opts.LoadProfile = profileLoader(opts.StdinProfile)
	}
	if opts.Configs == nil {
		opts.Configs = NewConfigs()
	}
	res := &Result{Schema: Schema, Version: opts.Version, FailOn: opts.FailOn, Findings: []Finding{}, Suppressed: []Finding{}, Checked: []Checked{}, Files: []string{}, Chains: []Chain{}, Calls: []Call{}}
	r := &run{files: files, opts: opts, res: res, enabled: map[string]bool{}, loaded: map[string][]*scenario.Scenario{}}
	if r.opts.Replay == nil {
		r.simulated = true
		r.opts.Replay = simulatorReplay(r.take, opts.Admit, func(done, total int) {
			if r.within != nil {
				r.within(done, total)
			}
		})
	}
	return r
}

// simulatorReplay is the default Replayer: the simulator, asking admit first, reporting its
// progress to progress; loaded gives the scenario at a path when it was read already.
func simulatorReplay(loaded func(path string) *scenario.Scenario, admit func(*scenario.Scenario) error, progress func(done, total int)) Replayer {
	return func(ctx context.Context, path string) (*Replay, error) {
		return replayScenario(ctx, path, loaded(path), admit, progress)
	}
}

// progressOf is the Progress of replay i of n: the simulator's own progress in that
// replay's ReplayUnits (nil without Options.Progress).
func (r *run) progressOf(i, n int) func(done, total int) {
	p := r.opts.Progress
	if p == nil {
		return nil
	}
	return func(done, total int) {
		share := 0
		if total > 0 {
			share = min(ReplayUnits*done/total, ReplayUnits)
		}
		p(i*ReplayUnits+share, n*ReplayUnits)
	}
}

// checkStatic applies the rules to every dependency of every file and returns the scenarios
// to replay, in file order.
func (r *run) checkStatic() ([]replayTask, error) {
	var replays []replayTask
	for _, f := range r.files {
		r.res.Files = append(r.res.Files, f.Path)
		e := &engine{file: f, opts: r.opts, res: r.res}
		for _, d := range f.Dependencies {
			if err := e.dependency(d); err != nil {
				return nil, err
			}
			r.res.Summary.Dependencies++
		}
		for _, s := range f.Scenarios {
			replays = append(replays, replayTask{e, s})
		}
		for _, rule := range Catalog {
			if !f.Disabled[rule.ID] {
				r.enabled[rule.ID] = true
			}
		}
	}
	return replays, nil
}

// replay replays the scenarios in turn. Once ctx is cancelled, the rest are noted as not
// replayed and stop is ctx's error; err is a replay that failed for another reason.
func (r *run) replay(ctx context.Context, replays []replayTask) (stop, err error) {
	defer func() { r.within = nil }()
	for i, t := range replays {
		r.within = r.progressOf(i, len(replays))
		if r.within != nil {
			r.within(0, 1)
		}
		if stop == nil {
			stop = ctx.Err()
		}
		if stop != nil {
			t.e.notReplayed(t.ref, nil)
			continue
		}
		if err := t.e.scenario(ctx, t.ref); err != nil {
			if ctx.Err() == nil {
				return nil, err
			}
			stop = ctx.Err() // the replay was stopped: it noted what it finished
			continue
		}
		r.res.Summary.Scenarios++
		if r.within != nil {
			r.within(1, 1)
		}
	}
	return stop, nil
}

// listRules lists the rules that ran (all of them when there is no file), at the level the
// first file that changes it gives (each finding carries the level of its own file).
func (r *run) listRules() {
	for _, rule := range Catalog {
		if len(r.files) > 0 && !r.enabled[rule.ID] {
			continue
		}
		for _, f := range r.files {
			if l, ok := f.Levels[rule.ID]; ok {
				rule.Level = l
				break
			}
		}
		r.res.Rules = append(r.res.Rules, rule)
	}
}

// sortFindings orders findings by file, line, column and rule.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Rule < b.Rule
	})
}

// summarize copies the configs read and skipped into the result and counts what it holds.
func (r *run) summarize() {
	res, opts := r.res, r.opts
	res.Summary.Files = len(r.files)
	for _, cf := range opts.Configs.Files {
		res.Configs = append(res.Configs, *cf)
	}
	res.Skipped = opts.Configs.Skipped
	res.Summary.Configs, res.Summary.Chains = len(res.Configs), len(res.Chains)
	res.Summary.Read, res.Summary.Skipped, res.Summary.Checked = opts.Read, len(res.Skipped), len(res.Checked)
	for _, f := range res.Findings {
		switch f.Level {
		case SeverityError:
			res.Summary.Errors++
		case SeverityWarning:
			res.Summary.Warnings++
		}
	}
}

// judgeNothingChecked: nothing checked is not a pass (an empty file, a README, a directory
// of files none of which check reads): unless the pipeline said it means it, the run is an
// input error that says what was read. A scenario a check file lists counts, replayed even
// without expect: (it loaded and ran); an interrupted run is judged by what finished instead.
func (r *run) judgeNothingChecked() {
	res, opts := r.res, r.opts
	if len(res.Checked) > 0 || len(res.Chains) > 0 || res.Summary.Scenarios > 0 || res.Interrupted {
		return
	}
	paths := opts.Paths
	if paths == nil {
		paths = res.Files
	}
	res.NothingChecked, res.AllowEmpty = true, opts.AllowEmpty
	res.NothingCheckedReason = nothingCheckedMessage(paths, opts.Read, len(res.Skipped), res.Configs, opts.AllowEmpty)
	if opts.AllowEmpty {
		return
	}
	res.Error = &InputError{Message: res.NothingCheckedReason}
	if len(paths) > 0 {
		res.Error.File = paths[0]
	}
}

// engine checks the dependencies and scenarios of one file.
type engine struct {
	file *File
	opts Options
	res  *Result
	// rules collects the rules applied to the current subject; skipped says why some of
	// them could not be evaluated (no caller budget, no profile...).
	rules   []string
	skipped map[string]string
}

// pass is one rule applied to one subject (a dependency, or a policy of a replayed scenario):
// what the rule's check may read besides its subject, and where it reports.
type pass struct {
	rule    *Rule
	subject string
	file    *File
	opts    *Options
	e       *engine
}

// report records a finding of the pass's rule at at, with the rule's fix, unless
// `# patience:ignore` covers that line.
func (p *pass) report(at policy.Pos, format string, a ...any) {
	p.reportFix(at, "", format, a...)
}

// reportFix is report with a fix of the finding's own ("" = the rule's): one that names the
// field and the value for this dependency, or the queue's field where the queue retries.
// A finding `# patience:ignore` covers is kept in Result.Suppressed.
func (p *pass) reportFix(at policy.Pos, fix, format string, a ...any) {
	e := p.e
	file := fileOr(at.File, e.file.Path)
	level := p.rule.Level
	if l, ok := e.file.Levels[p.rule.ID]; ok {
		level = l
	}
	if fix == "" {
		fix = p.rule.Fix
	}
	f := Finding{
		Rule: p.rule.ID, Level: level, Dependency: p.subject, Title: p.rule.Title,
		Message: fmt.Sprintf(format, a...), Fix: fix,
		File: file, Line: at.Line, Col: at.Col,
	}
	if (file == e.file.Path && e.file.ignored(p.rule.ID, at.Line)) || e.opts.configIgnored(file, p.rule.ID, at.Line) {
		e.res.Summary.Suppressed++
		e.res.Suppressed = append(e.res.Suppressed, f)
		return
	}
	e.res.Findings = append(e.res.Findings, f)
}

// skip records that the rule had nothing to evaluate for the subject.
func (p *pass) skip(reason string) {
	if p.e.skipped == nil {
		p.e.skipped = map[string]string{}
	}
	p.e.skipped[p.rule.ID] = reason
}

// enabled returns the rules of the catalogue the file leaves enabled that check has a check
// for, in catalogue order, and notes them as applied to the subject (for JUnit's passing test
// cases).
func (e *engine) enabled(check func(*Rule) bool) []*Rule {
	e.rules, e.skipped = nil, nil
	var out []*Rule
	for i := range Catalog {
		r := &Catalog[i]
		if check(r) && !e.file.Disabled[r.ID] {
			e.rules = append(e.rules, r.ID)
			out = append(out, r)
		}
	}
	return out
}

func (e *engine) pass(r *Rule, subject string) *pass {
	return &pass{rule: r, subject: subject, file: e.file, opts: &e.opts, e: e}
}

// dependency runs every enabled dependency rule on d.
func (e *engine) dependency(d *Dependency) error {
	if d.Policy == nil {
		d.Policy = &policy.Policy{Retry: policy.Retry{MaxAttempts: 1}}
	}
	start := time.Now()
	var ch *Chain
	if len(d.Via) > 0 {
		var err error
		if ch, err = e.chainOf(d); err != nil {
			return err
		}
	}
	var cd *Dependency // the dependency with the timeouts of the call its via: names
	if ch != nil {
		cd = callDependency(d, ch.call)
	}
	for _, r := range e.enabled(func(r *Rule) bool { return r.dependency != nil || (ch != nil && (r.chain != nil || r.layer != nil)) }) {
		p := e.pass(r, d.Name)
		if r.dependency != nil && !(d.policyFromCall && callTimeoutRules[r.ID]) {
			if err := r.dependency(p, d); err != nil {
				return err
			}
		}
		if r.dependency != nil && cd != nil && callBudgetRules[r.ID] {
			if err := r.dependency(p, cd); err != nil {
				return err
			}
		}
		if ch != nil {
			if err := e.chainRules(p, r, ch); err != nil {
				return err
			}
		}
	}
	if ch != nil {
		e.res.Chains = append(e.res.Chains, *ch)
	}
	e.res.Checked = append(e.res.Checked, Checked{Dependency: d.Name, File: e.file.Path, Line: d.Pos.Line, Rules: e.rules, Skipped: e.skipped, Assumed: d.Assumed, Elapsed: time.Since(start)})
	return nil
}

// chainRules runs rule r's chain check on ch and its layer check on every layer read from a
// config file.
func (e *engine) chainRules(p *pass, r *Rule, ch *Chain) error {
	if r.chain != nil {
		if err := r.chain(p, ch); err != nil {
			return err
		}
	}
	if r.layer != nil {
		for i := range ch.Layers {
			if l := &ch.Layers[i]; configLayer(l) {
				if err := r.layer(p, ch, l); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// inferredChains checks every layer of the configs that no via: took as a chain of its own,
// under the first check file's levels, disabled rules and max_amplification.
func inferredChains(files []*File, opts Options, res *Result) error {
	chains, err := opts.Configs.inferred()
	if err != nil {
		return err
	}
	f := &File{MaxAmplification: DefaultMaxAmplification, Disabled: map[string]bool{}, Levels: map[string]Severity{}}
	if len(files) > 0 {
		f = &File{MaxAmplification: files[0].MaxAmplification, Disabled: files[0].Disabled, Levels: files[0].Levels}
	}
	e := &engine{file: f, opts: opts, res: res}
	for _, ch := range chains {
		ch.file = f
		ch.compute()
		start := time.Now()
		for _, r := range e.enabled(func(r *Rule) bool { return r.chain != nil || r.layer != nil }) {
			if err := e.chainRules(e.pass(r, ch.Dependency), r, ch); err != nil {
				return err
			}
		}
		l := ch.Layers[0]
		res.Checked = append(res.Checked, Checked{Dependency: ch.Dependency, File: l.File, Line: l.Line, Rules: e.rules, Skipped: e.skipped, Elapsed: time.Since(start)})
		res.Chains = append(res.Chains, *ch)
	}
	return nil
}

// configIgnored says whether `# patience:ignore RULE` covers line in a config file.
func (o *Options) configIgnored(file, rule string, line int) bool {
	for _, sf := range o.Sources {
		if sf.Path == file {
			return sf.ignores[line][rule]
		}
	}
	if o.Configs == nil {
		return false
	}
	if cf, ok := o.Configs.byPath[file]; ok {
		return cf.ignores[line][rule]
	}
	if root, ok := o.Configs.included[realPath(file)]; ok {
		return root.includeIgnores[file][line][rule]
	}
	return false
}

// replayedPolicy is one policy of a replayed scenario with the expectations that apply to it.
type replayedPolicy struct {
	ReplayedPolicy
	Scenario string
	// File is the scenario file, where expectations without a position of their own point.
	File   string
	Expect scenario.Expect
}

// scenario replays the scenario and runs every enabled scenario rule on each of its policies
// that has expectations.
func (e *engine) scenario(ctx context.Context, ref ScenarioRef) error {
	start, first := time.Now(), len(e.res.Checked)
	rep, err := e.opts.Replay(ctx, ref.Path)
	if err != nil && ctx.Err() != nil {
		// Interrupted: the policies that finished are checked, the scenario is noted.
		var done []string
		if rep != nil {
			if cerr := e.replayed(ref, rep, start, first); cerr != nil {
				return cerr
			}
			for _, p := range rep.Policies {
				done = append(done, p.Name)
			}
		}
		e.notReplayed(ref, done)
		return ctx.Err()
	}
	if err != nil {
		if se, ok := err.(*scenario.Error); ok && se.Line > 0 {
			return se // a problem inside the scenario file: point there
		}
		return &scenario.Error{File: e.file.Path, Line: ref.Pos.Line, Col: ref.Pos.Col, Field: "scenarios", Msg: err.Error()}
	}
	return e.replayed(ref, rep, start, first)
}

// notReplayed notes a scenario an interruption stopped: done are its policies that finished
// (and were checked). JUnit shows it as a skipped PT100 test case.
func (e *engine) notReplayed(ref ScenarioRef, done []string) {
	e.res.NotReplayed = append(e.res.NotReplayed, NotReplayed{File: e.file.Path, Line: ref.Pos.Line, Col: ref.Pos.Col, Scenario: ref.Path, Replayed: done})
	if e.file.Disabled["PT100"] {
		return
	}
	reason := "interrupted before it was replayed"
	if len(done) > 0 {
		reason = "interrupted: only " + strings.Join(done, ", ") + " replayed"
	}
	e.res.Checked = append(e.res.Checked, Checked{Dependency: ref.Path, File: e.file.Path, Line: ref.Pos.Line, Rules: []string{"PT100"}, Skipped: map[string]string{"PT100": reason}})
}

// replayed runs every enabled scenario rule on each policy of rep (replayed for ref) that has
// expectations; start and first are when the replay began and the first Checked entry it may add.
func (e *engine) replayed(ref ScenarioRef, rep *Replay, start time.Time, first int) error {
	for _, p := range rep.Policies {
		exp, ok := mergeExpect(rep.Expect["*"], rep.Expect[p.Name])
		if !ok {
			continue
		}
		rules := e.enabled(func(r *Rule) bool { return r.scenario != nil })
		if len(rules) == 0 {
			continue
		}
		s := &replayedPolicy{ReplayedPolicy: p, Scenario: rep.Scenario, File: rep.File, Expect: exp}
		dep := rep.Scenario + "/" + p.Name
		for _, r := range rules {
			if err := r.scenario(e.pass(r, dep), s); err != nil {
				return err
			}
		}
		e.res.Checked = append(e.res.Checked, Checked{Dependency: dep, File: e.file.Path, Line: ref.Pos.Line, Rules: e.rules})
	}
	// The replay ran once for every policy: share its time among them.
	if n := len(e.res.Checked) - first; n > 0 {
		each := time.Since(start) / time.Duration(n)
		for i := first; i < len(e.res.Checked); i++ {
			e.res.Checked[i].Elapsed = each
		}
	}
	return nil
}

// ShareAbove is the share of the histogram's values (microseconds) above d. Values are
// counted above when their whole HDR bucket lies above d, so the share is never overstated.
func ShareAbove(h *hdrhistogram.Histogram, d time.Duration) float64 {
	total := h.TotalCount()
	if total == 0 {
		return 0
	}
	limit := d.Microseconds()
	var above int64
	for _, b := range h.Distribution() {
		if b.From > limit {
			above += b.Count
		}
	}
	return float64(above) / float64(total)
}

// mergeExpect applies the "*" expectations to a policy, field by field, with the policy's
// own expectations taking precedence; ok is false when neither sets anything.
func mergeExpect(all, own scenario.Expect) (scenario.Expect, bool) {
	out := scenario.Expect{Pos: map[string]policy.Pos{}}
	for _, src := range []scenario.Expect{all, own} {
		for _, f := range []struct {
			key      string
			from, to *string
		}{
			{"success_rate", &src.SuccessRate, &out.SuccessRate},
			{"amplification", &src.Amplification, &out.Amplification},
			{"duplicates", &src.Duplicates, &out.Duplicates},
			{"worker_saturation", &src.WorkerSaturation, &out.WorkerSaturation},
		} {
			if *f.from == "" {
				continue
			}
			*f.to = *f.from
			if p, ok := src.Pos[f.key]; ok {
				out.Pos[f.key] = p
			} else if p, ok := src.Pos["policy"]; ok {
				out.Pos[f.key] = p
			}
		}
	}
	ok := out.SuccessRate != "" || out.Amplification != "" || out.Duplicates != "" || out.WorkerSaturation != ""
	return out, ok
}

// ignored says whether `# patience:ignore RULE` covers line.
func (f *File) ignored(rule string, line int) bool {
	return f.ignores[line][rule]
}

// retries says whether the policy retries at all (more than one attempt).
func retries(r policy.Retry) bool { return r.MaxAttempts > 1 || r.MaxAttempts == policy.Unlimited }

// noJitter applies the policy package's default: "" behaves as none.
func noJitter(r policy.Retry) bool { return r.Jitter == "" || r.Jitter == policy.JitterNone }

// retryOn is the effective `on` list: nil means policy.DefaultRetryOn.
func retryOn(r policy.Retry) []string {
	if r.On == nil {
		return policy.DefaultRetryOn
	}
	return r.On
}

// outcomeUnknown returns the entries of on that retry outcome-unknown failures: timeouts,
// resets and 5xx (docs/design.md §5 classification).
func outcomeUnknown(on []string) []string {
	var out []string
	for _, o := range on {
		switch {
		case o == "timeout" || o == "reset" || o == "5xx":
			out = append(out, o)
		case len(o) == 3 && o[0] == '5':
			if _, err := strconv.Atoi(o); err == nil {
				out = append(out, o)
			}
		}
	}
	return out
}

// clientErrors returns the entries of on that retry 4xx statuses other than 408/409/429.
func clientErrors(on []string) []string {
	var out []string
	for _, o := range on {
		if o == "4xx" {
			out = append(out, o)
			continue
		}
		if len(o) == 3 && o[0] == '4' && o != "408" && o != "409" && o != "429" {
			if _, err := strconv.Atoi(o); err == nil {
				out = append(out, o)
			}
		}
	}
	return out
}

// retries429 says whether on retries 429 (the status a rate limit answers with).
func retries429(on []string) bool {
	for _, o := range on {
		if o == "429" || o == "4xx" {
			return true
		}
	}
	return false
}

// queueBackoffText names a queue's backoff: "backoff [10 s, 30 s]", "constant 5 s backoff".
func queueBackoffText(q policy.Retry) string {
	switch q.Backoff {
	case policy.BackoffList:
		parts := make([]string, len(q.Delays))
		for i, d := range q.Delays {
			parts[i] = units.Duration(d)
		}
		return "backoff [" + strings.Join(parts, ", ") + "]"
	case policy.BackoffConstant:
		return "constant " + units.Duration(q.Base) + " backoff"
	}
	return "re-delivery at once"
}

// honoursPushback says whether on retries a status that carries Retry-After (429, 503).
func honoursPushback(on []string) bool {
	for _, o := range on {
		switch o {
		case "429", "503", "4xx", "5xx":
			return true
		}
	}
	return false
}

// retriesText says how many retries follow the first try: "3 retries", "unlimited retries".
func retriesText(attempts int) string {
	switch attempts {
	case policy.Unlimited:
		return "unlimited retries"
	case 2:
		return "the retry"
	}
	return fmt.Sprintf("%d retries", attempts-1)
}

// givesUp is a format with one %s for the limit: "the caller gives up after %s".
func givesUp(c Caller) string {
	if c.Kind == "job" {
		return "the job is stopped after %s"
	}
	return "the caller gives up after %s"
}

// limitText names the caller's limit: "the job timeout (20 s)", "the caller's budget (3 s)".
func limitText(c Caller, limit time.Duration) string {
	if c.Kind == "job" {
		return "the job timeout (" + units.Duration(limit) + ")"
	}
	return "the caller's budget (" + units.Duration(limit) + ")"
}

func attemptsCount(n int) string {
	if n == policy.Unlimited {
		return "unlimited"
	}
	return strconv.Itoa(n)
}

func attemptsText(n int) string {
	if n == policy.Unlimited {
		return "unlimited"
	}
	return fmt.Sprintf("%d×", n)
}

// amplifiedRate is the attempts a second the caller's rate becomes: "150 attempts/s".
func amplifiedRate(rate float64, attempts int) string {
	if attempts == policy.Unlimited {
		return "unbounded attempts"
	}
	return units.Number(rate*float64(max(attempts, 1))) + " attempts/s"
}

// delaysText lists the backoff waits before jitter, e.g. "100 ms, 200 ms, 400 ms".
func delaysText(r policy.Retry) string {
	rr := r
	rr.Jitter, rr.RetryAfter = policy.JitterNone, policy.RetryAfterIgnore
	if rr.MaxAttempts == policy.Unlimited {
		rr.MaxAttempts = 4
	}
	waits := rr.WorstCaseWaits(rr.MaxAttempts)
	parts := make([]string, 0, 5)
	for i, w := range waits {
		if i == 4 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, units.Duration(w))
	}
	if len(parts) == 0 {
		return "no waits"
	}
	return "waits " + strings.Join(parts, ", ")
}

// sumText shows PT004's sum: "3 × 5 s + 100 ms + 200 ms"; total is the whole sum, for the
// summary of a long list.
func sumText(r policy.Retry, timeout time.Duration, waits []time.Duration, total time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d × %s", r.MaxAttempts, units.Duration(timeout))
	if len(waits) > 6 {
		sum := total - time.Duration(r.MaxAttempts)*timeout
		fmt.Fprintf(&b, " + %d waits (%s, %s, %s … up to %s) of %s", r.MaxAttempts-1, units.Duration(waits[0]), units.Duration(waits[1]), units.Duration(waits[2]), units.Duration(waits[len(waits)-1]), units.Duration(sum))
		return b.String()
	}
	for _, w := range waits {
		b.WriteString(" + " + units.Duration(w))
	}
	return b.String()
}

func fileOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// yamlDur writes a duration in patience.yaml's own syntax — "3s", "1.5s", "250ms", "2m",
// "1m30s" — for the one place a duration must not be in the reports' unit style
// (internal/units: "3 s", "2 min 30 s"): a literal the user pastes into the file, the value
// after "FIELD:" in a fix ("set policy.deadline: 3s") and the starter file --init writes.
// scenario.ParseDuration reads every value it writes; "3 s" would be a YAML string the
// loader rejects. Everything else a finding says (budgets, worst cases, waits) is prose and
// uses units.Duration, like every other report.
func yamlDur(d time.Duration) string {
	// Derived values (a budget share, 3 × 1.1 s) are rounded to what a person would write:
	// whole seconds from a minute on, milliseconds from a second, a tenth of one below.
	switch {
	case d >= time.Minute:
		d = d.Round(time.Second)
	case d >= time.Second:
		d = d.Round(time.Millisecond)
	case d >= time.Millisecond:
		d = d.Round(100 * time.Microsecond)
	}
	return scenario.FormatDuration(d)
}

// fmtNum renders a number with at most three decimals and no trailing zeros.
func fmtNum(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// fmtPct renders a ratio as a percentage with about three significant digits.
func fmtPct(v float64) string {
	p := v * 100
	switch {
	case p == 0:
		return "0%"
	case p >= 10:
		return strconv.FormatFloat(math.Round(p*10)/10, 'f', -1, 64) + "%"
	case p >= 1:
		return strconv.FormatFloat(math.Round(p*100)/100, 'f', -1, 64) + "%"
	default:
		return strconv.FormatFloat(p, 'g', 3, 64) + "%"
	}
}
