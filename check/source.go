package check

import (
	"errors"
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
}

// pendingSource is a source file read and not yet parsed: a package is parsed whole, since a
// call's client may be built in another file of it.
type pendingSource struct {
	lang *source.Language
	in   source.Input
}

// loadSources parses the source files read, a package (source.Language.Package) at a time,
// in the order they were read. A file that does not parse is an input error at its line and
// column, never a file skipped: a tree whose calls were not read did not pass.
func (in *Inputs) loadSources() error {
	type pkgKey struct{ lang, pkg string }
	var order []pkgKey
	pkgs := map[pkgKey][]pendingSource{}
	for _, p := range in.sources {
		k := pkgKey{p.lang.Name, p.lang.Package(p.in.Path)}
		if _, ok := pkgs[k]; !ok {
			order = append(order, k)
		}
		pkgs[k] = append(pkgs[k], p)
	}
	for _, k := range order {
		if err := in.loadPackage(pkgs[k]); err != nil {
			return err
		}
	}
	in.sources = nil
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
		in.Sources = append(in.Sources, &SourceFile{Path: f.in.Path, Language: lang.Name, Calls: byFile[f.in.Path], ignores: source.Ignores(f.in.Data, lang.Comments)})
	}
	return nil
}

// sourceCalls lists every call of the source files read in Result.Calls and applies the
// rules that judge a call site (Rule.call) to each, at the call's file:line:col, under the
// first check file's levels and disabled rules (as the configs no via: took). Each source
// file is a subject of its own in Result.Checked — one with no outbound call was read and
// passed, it was not skipped.
func sourceCalls(files []*File, opts Options, res *Result) error {
	for _, sf := range opts.Sources {
		f := &File{Path: sf.Path, MaxAmplification: DefaultMaxAmplification, Disabled: map[string]bool{}, Levels: map[string]Severity{}, ignores: sf.ignores}
		if len(files) > 0 {
			f.MaxAmplification, f.Disabled, f.Levels = files[0].MaxAmplification, files[0].Disabled, files[0].Levels
		}
		e := &engine{file: f, opts: opts, res: res}
		start := time.Now()
		rules := e.enabled(func(r *Rule) bool { return r.call != nil })
		for i := range sf.Calls {
			c := &sf.Calls[i]
			for _, r := range rules {
				if err := r.call(e.pass(r, callSubject(c)), c); err != nil {
					return err
				}
			}
			res.Calls = append(res.Calls, *c)
		}
		res.Checked = append(res.Checked, Checked{Dependency: sf.Path, File: sf.Path, Line: 1, Rules: e.rules, Skipped: e.skipped, Elapsed: time.Since(start)})
	}
	return nil
}

// callSubject names a call in its findings: "net/http POST", "go-retryablehttp request".
func callSubject(c *Call) string {
	if c.Method == "" {
		return c.Library + " request"
	}
	return c.Library + " " + c.Method
}
