package check

import (
	"errors"
	"sort"
	"time"

	"github.com/patience-dev/patience/scenario"
	"github.com/patience-dev/patience/source"
)

// Call is one outbound HTTP call site found in source code (issue 28 item 5): package
// source reads it, check's rules judge it, Result.Calls carries it.
type Call = source.Call

// SourceFile is a source file read (recognised by extension, source.ForPath): its language,
// the calls in it, and its `// patience:ignore` comments.
type SourceFile struct {
	Path     string
	Language string
	Calls    []Call
	ignores  map[int]map[string]bool
	// seq is the order it was read in (Inputs.Read): sources are listed in that order.
	seq int
}

// pendingSource is a source file read and not yet parsed: a package is parsed whole, since a
// call's client may be built in another file of it.
type pendingSource struct {
	lang *source.Language
	in   source.Input
	seq  int
}

// pkgKey names a source package: its language and its Package (a Go directory).
type pkgKey struct{ lang, pkg string }

func packageOf(lang *source.Language, path string) pkgKey {
	return pkgKey{lang.Name, lang.Package(path)}
}

// expectSources counts, per package, the source files a walk found.
func (in *Inputs) expectSources(found []string) {
	for _, f := range found {
		if lang := source.ForPath(f); lang != nil {
			in.expected[packageOf(lang, f)]++
		}
	}
}

// addSource holds a source file read until its package is whole: parsed at once when it was
// the last file of its package a walk found, else by loadSources.
func (in *Inputs) addSource(lang *source.Language, file source.Input) error {
	k := packageOf(lang, file.Path)
	if _, ok := in.pkgs[k]; !ok {
		in.pkgOrder = append(in.pkgOrder, k)
	}
	in.pkgs[k] = append(in.pkgs[k], pendingSource{lang: lang, in: file, seq: len(in.Read)})
	if n, ok := in.expected[k]; ok {
		if n--; n > 0 {
			in.expected[k] = n
			return nil
		}
		delete(in.expected, k)
		return in.flushPackage(k)
	}
	return nil
}

// builtSource is why a source file is left out of a walk by its content (Language.Built), ""
// when it is read.
func builtSource(lang *source.Language, data []byte) string {
	if lang.Built == nil {
		return ""
	}
	return lang.Built(data)
}

// notSource counts a file a walk found and left out by its content as read for its package:
// the package is parsed once its last file is in, as when every file is read.
func (in *Inputs) notSource(lang *source.Language, path string) error {
	k := packageOf(lang, path)
	n, ok := in.expected[k]
	if !ok {
		return nil
	}
	if n--; n > 0 {
		in.expected[k] = n
		return nil
	}
	delete(in.expected, k)
	return in.flushPackage(k)
}

// flushPackage parses the files of package k read so far and lets their text go.
func (in *Inputs) flushPackage(k pkgKey) error {
	files := in.pkgs[k]
	if len(files) == 0 {
		return nil
	}
	in.pkgs[k] = nil
	return in.loadPackage(files)
}

// loadSources parses the packages not parsed yet (files named on the command line, a file a
// walk found and did not read), in the order read. A file that does not
// parse is an input error at its line and column, never a file skipped: a tree whose calls
// were not read did not pass. The source files are listed in the order they were read.
func (in *Inputs) loadSources() error {
	for _, k := range in.pkgOrder {
		if err := in.flushPackage(k); err != nil {
			return err
		}
	}
	in.pkgs, in.pkgOrder, in.expected = nil, nil, nil
	sort.SliceStable(in.Sources, func(i, j int) bool { return in.Sources[i].seq < in.Sources[j].seq })
	return nil
}

// loadPackage parses one package's files and files each one with its calls.
func (in *Inputs) loadPackage(files []pendingSource) error {
	lang := files[0].lang
	inputs := make([]source.Input, len(files))
	for i, f := range files {
		inputs[i] = f.in
	}
	calls, err := lang.Read(inputs)
	var se *source.Error
	if errors.As(err, &se) {
		return &scenario.Error{File: se.File, Line: se.Line, Col: se.Col, Msg: se.Msg}
	}
	if err != nil {
		return &scenario.Error{File: inputs[0].Path, Msg: err.Error()}
	}
	byFile := map[string][]Call{}
	for _, c := range calls {
		byFile[c.File] = append(byFile[c.File], c)
	}
	for _, f := range files {
		in.Sources = append(in.Sources, &SourceFile{Path: f.in.Path, Language: lang.Name, Calls: byFile[f.in.Path], ignores: source.Ignores(f.in.Data, lang.Comments), seq: f.seq})
	}
	return nil
}

// sourceCalls lists every call of the source files read in Result.Calls and judges each at
// its file:line:col, under the first check file's levels and disabled rules (as the configs no
// via: took): the rules on a call site (Rule.call), and — for a call with a retry layer, or
// whose literal host the configs read route — the chain and layer rules on its chain (its
// code layers, then those configs), listed in Result.Chains. A call a dependency's via: names
// was judged in that dependency's chain. Each source file is a subject of its own in
// Result.Checked — one with no outbound call was read and passed, it was not skipped.
func sourceCalls(files []*File, opts Options, res *Result) error {
	from := len(res.Findings)
	defer func() { res.Findings = append(res.Findings[:from], onceEach(res.Findings[from:])...) }()
	for _, sf := range opts.Sources {
		f := &File{Path: sf.Path, MaxAmplification: DefaultMaxAmplification, Disabled: map[string]bool{}, Levels: map[string]Severity{}, ignores: sf.ignores}
		if len(files) > 0 {
			f.MaxAmplification, f.Disabled, f.Levels = files[0].MaxAmplification, files[0].Disabled, files[0].Levels
		}
		e := &engine{file: f, opts: opts, res: res}
		start := time.Now()
		chains := make([]*Chain, len(sf.Calls))
		configs := false
		for i := range sf.Calls {
			ch, err := e.callChain(&sf.Calls[i])
			if err != nil {
				return err
			}
			chains[i] = ch
			configs = configs || (ch != nil && !ch.codeOnly())
		}
		rules := e.enabled(func(r *Rule) bool {
			return r.call != nil || (configs && (r.chain != nil || r.layer != nil)) || codeRules[r.ID]
		})
		for i := range sf.Calls {
			if err := e.judgeCall(rules, &sf.Calls[i], chains[i]); err != nil {
				return err
			}
		}
		res.Checked = append(res.Checked, Checked{Dependency: sf.Path, File: sf.Path, Line: 1, Rules: e.rules, Skipped: e.skipped, Elapsed: time.Since(start)})
	}
	return nil
}

// onceEach drops a finding that repeats one before it word for word at the same place: a
// retry layer several calls share (a session's adapter, a decorated helper) is one finding.
func onceEach(fs []Finding) []Finding {
	type key struct {
		rule, file, msg string
		line, col       int
	}
	seen := map[key]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := key{f.Rule, f.File, f.Message, f.Line, f.Col}
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// callChain is the chain a call is judged in, nil when it is judged in a dependency's (its
// via: names it) or has none worth judging (sent once, nothing routes its host).
func (e *engine) callChain(c *Call) (*Chain, error) {
	if c.Dependency != "" {
		return nil, nil
	}
	hosted, err := e.opts.Configs.hostLayers(c.Host)
	if err != nil {
		return nil, err
	}
	ch := callChain(c, hosted, e.file)
	if !judged(ch) {
		return nil, nil
	}
	return ch, nil
}

// judgeCall applies rules to one call and its chain (nil: none), and lists both. A chain of
// code layers alone takes only the rules that judge code (codeRules).
func (e *engine) judgeCall(rules []*Rule, c *Call, ch *Chain) error {
	for _, r := range rules {
		p := e.pass(r, callSubject(c))
		if r.call != nil {
			if err := r.call(p, c); err != nil {
				return err
			}
		}
		if ch != nil && (codeRules[r.ID] || !ch.codeOnly()) {
			if err := e.chainRules(p, r, ch); err != nil {
				return err
			}
		}
	}
	if ch != nil {
		e.res.Chains = append(e.res.Chains, *ch)
	}
	e.res.Calls = append(e.res.Calls, *c)
	return nil
}

// callSubject names a call in its findings: "net/http POST", "go-retryablehttp request".
func callSubject(c *Call) string {
	if c.Method == "" {
		return c.Library + " request"
	}
	return c.Library + " " + c.Method
}
