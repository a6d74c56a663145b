package source

import (
	"path/filepath"
	"strings"
)

// pyNode is a logical line and the lines indented under it (a def's body, a with's block).
type pyNode struct {
	pyLine
	Kids []*pyNode
}

// pyTree nests logical lines by indentation: each line's parent is the nearest line before it
// that is indented less.
func pyTree(lines []pyLine) *pyNode {
	root := &pyNode{pyLine: pyLine{Indent: -1}}
	stack := []*pyNode{root}
	for _, l := range lines {
		for len(stack) > 1 && stack[len(stack)-1].Indent >= l.Indent {
			stack = stack[:len(stack)-1]
		}
		n := &pyNode{pyLine: l}
		parent := stack[len(stack)-1]
		parent.Kids = append(parent.Kids, n)
		stack = append(stack, n)
	}
	return root
}

// pyFile is one parsed module: its imports, module-level bindings, functions and classes.
type pyFile struct {
	path    string
	module  string
	root    *pyNode
	imports map[string]string
	pkg     *pyPackage
	env     *pyEnv
	funcs   map[string]*pyFunc
	classes map[string]*pyClass
	// envs are every scope of the module: the module, each function, each class body.
	envs []*pyEnv
}

// pyFunc is a def: its parameters, decorators and the bindings of its body.
type pyFunc struct {
	name       string
	node       *pyNode
	file       *pyFile
	class      *pyClass
	params     map[string]pyParam
	decorators []pyLine
	env        *pyEnv
}

// pyParam is a parameter: its default and annotation as written (nil when none).
type pyParam struct {
	def, ann []pyTok
}

// pyClass is a class: its bases as written, methods, and attributes (class-level assignments
// and self.NAME = … in any method).
type pyClass struct {
	name    string
	file    *pyFile
	bases   [][]pyTok
	methods map[string]*pyFunc
	// order are the methods in source order.
	order []*pyFunc
	attrs map[string][]pyBinding
	// env is the class body's scope: a method's keyword defaults are evaluated in it
	// (def __init__(self, retries=max_retries) reads the class attribute).
	env *pyEnv
}

// pyBinding is one assignment: the value as written, the environment it is evaluated in and
// its line.
type pyBinding struct {
	val  []pyTok
	env  *pyEnv
	line int
	// with is a `with … as NAME` binding (the context manager is the value).
	with bool
}

// pyEnv is a scope: its bindings by name, the lines of its body (for NAME.mount(…) and
// NAME.headers.update(…)), and the scope that encloses it (a function's module).
type pyEnv struct {
	file  *pyFile
	fn    *pyFunc
	names map[string][]pyBinding
	body  []*pyNode
	outer *pyEnv
}

// pyPackage is the modules of one directory, read together: a class or a constant is often
// defined in a sibling module.
type pyPackage struct {
	files []*pyFile
	// steps counts the expressions evaluated for the current call site (pyMaxEvalSteps).
	steps int
}

func (p *pyPackage) class(name string) *pyClass {
	for _, f := range p.files {
		if c, ok := f.classes[name]; ok {
			return c
		}
	}
	return nil
}

// newPyFile indexes one module.
func newPyFile(pkg *pyPackage, path string, lines []pyLine) *pyFile {
	f := &pyFile{path: path, module: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), root: pyTree(lines), imports: map[string]string{}, pkg: pkg, funcs: map[string]*pyFunc{}, classes: map[string]*pyClass{}}
	f.env = &pyEnv{file: f, names: map[string][]pyBinding{}}
	f.envs = append(f.envs, f.env)
	f.scan(f.root.Kids, f.env, nil)
	return f
}

// scan indexes a block: imports, bindings into env, defs and classes.
func (f *pyFile) scan(nodes []*pyNode, env *pyEnv, class *pyClass) {
	for i, n := range nodes {
		toks := n.Toks
		if len(toks) > 0 && toks[0].Text == "async" && toks[0].Kind == pyName {
			toks = toks[1:]
		}
		env.body = append(env.body, n)
		if len(toks) == 0 || toks[0].Kind != pyName {
			continue
		}
		switch toks[0].Text {
		case "import", "from":
			f.importLine(toks)
		case "def":
			fn := f.def(n, toks, nodes[:i], class)
			if class != nil && env.fn == nil {
				class.methods[fn.name] = fn
				class.order = append(class.order, fn)
			} else if env == f.env {
				f.funcs[fn.name] = fn
			}
		case "class":
			f.class(n, toks)
		case "with":
			bindWith(toks, env, n)
			f.scan(n.Kids, env, class)
		default:
			if class != nil && env.fn == nil {
				bindAssign(toks, env, n)
				continue
			}
			bindAssign(toks, env, n)
			f.scan(n.Kids, env, class)
		}
	}
}

// importLine maps each local name an import binds to its qualified name; a relative import
// (from .x import y) to ".x.y".
func (f *pyFile) importLine(toks []pyTok) {
	if toks[0].Text == "import" {
		for _, part := range splitTop(toks[1:], ",") {
			qual, as := dottedAs(part)
			if qual == "" {
				continue
			}
			if as == "" {
				first := strings.SplitN(qual, ".", 2)[0]
				f.imports[first] = first
				continue
			}
			f.imports[as] = qual
		}
		return
	}
	imp := indexOf(toks, pyName, "import")
	if imp < 0 {
		return
	}
	from := tokText(toks[1:imp])
	for _, part := range splitTop(stripParens(toks[imp+1:]), ",") {
		name, as := dottedAs(part)
		if name == "" || name == "*" {
			continue
		}
		if as == "" {
			as = name
		}
		sep := "."
		if strings.HasSuffix(from, ".") {
			sep = ""
		}
		f.imports[as] = from + sep + name
	}
}

// dottedAs reads "a.b.c" or "a.b as c".
func dottedAs(toks []pyTok) (string, string) {
	as := ""
	if i := indexOf(toks, pyName, "as"); i >= 0 {
		if i+1 < len(toks) {
			as = toks[i+1].Text
		}
		toks = toks[:i]
	}
	return tokText(toks), as
}

// def indexes a function: its parameters, decorators (the @ lines just before it) and body.
func (f *pyFile) def(n *pyNode, toks []pyTok, before []*pyNode, class *pyClass) *pyFunc {
	fn := &pyFunc{node: n, file: f, class: class, params: map[string]pyParam{}}
	if len(toks) > 1 {
		fn.name = toks[1].Text
	}
	for i := len(before) - 1; i >= 0; i-- {
		l := before[i]
		if len(l.Toks) == 0 || l.Toks[0].Text != "@" || l.Indent != n.Indent {
			break
		}
		fn.decorators = append([]pyLine{l.pyLine}, fn.decorators...)
	}
	if open := indexOf(toks, pyOp, "("); open >= 0 {
		if end := matching(toks, open); end > open {
			fn.parseParams(toks[open+1 : end])
		}
	}
	fn.env = &pyEnv{file: f, fn: fn, names: map[string][]pyBinding{}, outer: f.env}
	f.envs = append(f.envs, fn.env)
	f.scan(n.Kids, fn.env, class)
	return fn
}

func (fn *pyFunc) parseParams(toks []pyTok) {
	for _, p := range splitTop(toks, ",") {
		if len(p) == 0 || p[0].Kind != pyName {
			continue
		}
		var par pyParam
		rest := p[1:]
		if eq := indexTop(rest, pyOp, "="); eq >= 0 {
			par.def = rest[eq+1:]
			rest = rest[:eq]
		}
		if len(rest) > 0 && rest[0].Text == ":" {
			par.ann = rest[1:]
		}
		fn.params[p[0].Text] = par
	}
}

// class indexes a class: bases, methods, class-level attributes and self.NAME assignments.
func (f *pyFile) class(n *pyNode, toks []pyTok) {
	if len(toks) < 2 {
		return
	}
	c := &pyClass{name: toks[1].Text, file: f, methods: map[string]*pyFunc{}, attrs: map[string][]pyBinding{}}
	if open := indexOf(toks, pyOp, "("); open == 2 {
		if end := matching(toks, open); end > open {
			c.bases = splitTop(toks[open+1:end], ",")
		}
	}
	f.classes[c.name] = c
	env := &pyEnv{file: f, names: c.attrs, outer: f.env}
	c.env = env
	f.envs = append(f.envs, env)
	f.scan(n.Kids, env, c)
	for _, m := range c.order {
		for name, bs := range m.env.names {
			if attr, ok := strings.CutPrefix(name, "self."); ok {
				c.attrs[attr] = append(c.attrs[attr], bs...)
			}
		}
	}
}

// bindWith binds each `with A as NAME` of a with line.
func bindWith(toks []pyTok, env *pyEnv, n *pyNode) {
	colon := lastTop(toks, pyOp, ":")
	if colon < 0 {
		return
	}
	for _, item := range splitTop(stripParens(toks[1:colon]), ",") {
		as := lastTop(item, pyName, "as")
		if as < 0 || as+1 >= len(item) {
			continue
		}
		name := tokText(item[as+1:])
		env.names[name] = append(env.names[name], pyBinding{val: item[:as], env: env, line: n.Toks[0].Line, with: true})
	}
}

// bindAssign binds NAME = value, self.NAME = value and NAME: T = value (each target of a
// chain a = b = value).
func bindAssign(toks []pyTok, env *pyEnv, n *pyNode) {
	eqs := allTop(toks, pyOp, "=")
	if len(eqs) == 0 {
		return
	}
	val := toks[eqs[len(eqs)-1]+1:]
	start := 0
	for _, eq := range eqs {
		target := toks[start:eq]
		start = eq + 1
		if c := indexTop(target, pyOp, ":"); c > 0 {
			target = target[:c]
		}
		name := tokText(target)
		if !isDotted(target) {
			continue
		}
		env.names[name] = append(env.names[name], pyBinding{val: val, env: env, line: n.Toks[0].Line})
	}
}

// isDotted says whether toks are NAME(.NAME)*.
func isDotted(toks []pyTok) bool {
	if len(toks) == 0 || len(toks)%2 == 0 {
		return false
	}
	for i, t := range toks {
		if i%2 == 0 && t.Kind != pyName || i%2 == 1 && t.Text != "." {
			return false
		}
	}
	return true
}

// tokText joins tokens' text (for dotted names).
func tokText(toks []pyTok) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteString(t.Text)
	}
	return b.String()
}

func indexOf(toks []pyTok, k pyKind, text string) int {
	for i, t := range toks {
		if t.Kind == k && t.Text == text {
			return i
		}
	}
	return -1
}

// allTop are the indexes of the tokens outside brackets that are text.
func allTop(toks []pyTok, k pyKind, text string) []int {
	var out []int
	depth := 0
	for i, t := range toks {
		if t.Kind == pyOp {
			switch t.Text {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
		if depth == 0 && t.Kind == k && t.Text == text {
			out = append(out, i)
		}
	}
	return out
}

func indexTop(toks []pyTok, k pyKind, text string) int {
	if all := allTop(toks, k, text); len(all) > 0 {
		return all[0]
	}
	return -1
}

func lastTop(toks []pyTok, k pyKind, text string) int {
	if all := allTop(toks, k, text); len(all) > 0 {
		return all[len(all)-1]
	}
	return -1
}

// splitTop splits toks at the separators outside brackets (an empty trailing part dropped).
func splitTop(toks []pyTok, sep string) [][]pyTok {
	var out [][]pyTok
	start := 0
	for _, i := range allTop(toks, pyOp, sep) {
		out = append(out, toks[start:i])
		start = i + 1
	}
	if start < len(toks) {
		out = append(out, toks[start:])
	}
	return out
}

// stripParens drops one pair of parentheses around the whole of toks.
func stripParens(toks []pyTok) []pyTok {
	if len(toks) >= 2 && toks[0].Text == "(" && matching(toks, 0) == len(toks)-1 {
		return toks[1 : len(toks)-1]
	}
	return toks
}

// matching is the index of the bracket closing the one at open, or -1 (the lexer balanced
// every bracket of a line, so it is found on the same logical line).
func matching(toks []pyTok, open int) int {
	depth := 0
	for i := open; i < len(toks); i++ {
		if toks[i].Kind != pyOp {
			continue
		}
		switch toks[i].Text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// matchingBack is the index of the bracket opening the one closing at end, or -1.
func matchingBack(toks []pyTok, end int) int {
	depth := 0
	for i := end; i >= 0; i-- {
		if toks[i].Kind != pyOp {
			continue
		}
		switch toks[i].Text {
		case ")", "]", "}":
			depth++
		case "(", "[", "{":
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
