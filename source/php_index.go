package source

import "strings"

// The PHP reader's index of a package: its classes (with their properties, constants,
// methods, parents, interfaces and traits), its functions and the Http:: macros and global
// options it registers. It is built from the token stream alone: a class is the `class NAME
// … {` header and its matched body, a member one of its depth-1 declarations, and everything
// else (attributes, types, match arms, enums) is skipped by bracket matching.

// phpFile is one tokenised file with its `use` imports (alias, lower case → name).
type phpFile struct {
	path  string
	toks  []phpTok
	uses  map[string]string
	funcs []*phpFunc
}

// phpClass is a class, interface, trait or enum of the package.
type phpClass struct {
	name       string
	file       *phpFile
	iface      bool
	extends    string
	implements []string
	traits     []string
	open       int
	props      map[string]*phpProp
	methods    map[string]*phpFunc
	consts     map[string]int
}

// phpProp is a declared (or constructor-promoted) property: its type and default value's
// first token (-1 when none).
type phpProp struct {
	typ  string
	def  int
	line int
	// promoted is a constructor's promoted parameter: the container injects it by its type.
	promoted bool
}

// phpFunc is a method or a function: its parameters and body (open and close brace; -1 for
// an abstract method).
type phpFunc struct {
	name        string
	class       *phpClass
	file        *phpFile
	params      []phpParam
	po, pc      int
	open, close int
}

// phpParam is a parameter's name and declared type ("" when untyped).
type phpParam struct{ name, typ string }

// phpPkg is one package: its files and what the index found in them.
type phpPkg struct {
	files   []*phpFile
	classes map[string]*phpClass
	// impls lists the classes implementing an interface (by short name, lower case).
	impls map[string][]*phpClass
	// macros are the Http::macro registrations: name (lower case) → the macro's function.
	macros map[string]phpRange
	// global is the last Http::globalOptions([...]) array of the package.
	global *phpRange
	// ioc is what the package tells Laravel's container (php_container.go), found on first use.
	ioc *phpContainer
}

// phpRange is a run of tokens of a file: [s, e).
type phpRange struct {
	f    *phpFile
	s, e int
}

// shortName is a class name without its namespace, lower case (PHP's names are
// case-insensitive).
func shortName(name string) string {
	if i := strings.LastIndexByte(name, '\\'); i >= 0 {
		name = name[i+1:]
	}
	return strings.ToLower(name)
}

// fqn is the full name a class name stands for in f: through its `use` imports, without the
// leading backslash.
func (f *phpFile) fqn(name string) string {
	if strings.HasPrefix(name, "\\") {
		return name[1:]
	}
	first, rest, _ := strings.Cut(name, "\\")
	if full, ok := f.uses[strings.ToLower(first)]; ok {
		if rest != "" {
			return full + "\\" + rest
		}
		return full
	}
	return name
}

// tok is toks[i], or a token of no kind outside the file (the reader never indexes past it).
func (f *phpFile) tok(i int) phpTok {
	if i < 0 || i >= len(f.toks) {
		return phpTok{kind: phpNone, match: -1}
	}
	return f.toks[i]
}

// is says whether toks[i] is the token kind with text (case-insensitive for names).
func (f *phpFile) is(i int, kind phpKind, text string) bool {
	if i < 0 || i >= len(f.toks) || f.tok(i).kind != kind {
		return false
	}
	return f.tok(i).text == text || (kind == phpIdent && strings.EqualFold(f.tok(i).text, text))
}

// kw says whether toks[i] is the keyword (a name, any case).
func (f *phpFile) kw(i int, word string) bool { return f.is(i, phpIdent, word) }

// newPHPPkg indexes the files of one package.
func newPHPPkg(files []*phpFile) *phpPkg {
	p := &phpPkg{files: files, classes: map[string]*phpClass{}, impls: map[string][]*phpClass{}, macros: map[string]phpRange{}}
	for _, f := range files {
		p.indexFile(f)
	}
	for _, c := range p.classes {
		for _, i := range c.implements {
			p.impls[shortName(i)] = append(p.impls[shortName(i)], c)
		}
	}
	return p
}

// indexFile finds f's imports, classes, functions, macros and global options.
func (p *phpPkg) indexFile(f *phpFile) {
	f.uses = map[string]string{}
	classEnd := -1
	for i := 0; i < len(f.toks); i++ {
		t := f.tok(i)
		switch {
		case t.kind != phpIdent:
		case f.kw(i, "use") && i > classEnd && p.topLevel(f, i):
			i = f.useStmt(i)
		case (f.kw(i, "class") || f.kw(i, "interface") || f.kw(i, "trait") || f.kw(i, "enum")) && !f.is(i-1, phpOp, "::") && !f.kw(i-1, "new") && f.tok(min(i+1, len(f.toks)-1)).kind == phpIdent:
			if c := p.class(f, i); c != nil {
				i, classEnd = c.open, int(f.tok(c.open).match)
			}
		case f.kw(i, "function") && i > classEnd && i+2 < len(f.toks) && f.tok(i+1).kind == phpIdent && f.is(i+2, phpOpen, "("):
			f.function(i, nil)
		case strings.EqualFold(t.text, "Http") && f.is(i+1, phpOp, "::") && i+3 < len(f.toks) && f.is(i+3, phpOpen, "("):
			p.httpStatic(f, i)
		}
	}
}

// topLevel says whether toks[i] is outside every class and function (a `use` there imports;
// inside a class it brings a trait; after a closure's parameters it captures).
func (p *phpPkg) topLevel(f *phpFile, i int) bool {
	return !f.is(i-1, phpClose, ")") && (i == 0 || f.tok(i-1).kind == phpOp || f.tok(i-1).kind == phpClose || f.tok(i-1).kind == phpOpen)
}

// useStmt reads `use A\B [as C], D;` (and `use A\{B, C}`) and returns the index of its ;.
func (f *phpFile) useStmt(i int) int {
	j := i + 1
	if f.kw(j, "function") || f.kw(j, "const") {
		j++
	}
	for ; j < len(f.toks) && !f.is(j, phpOp, ";"); j++ {
		t := f.tok(j)
		if t.kind == phpOpen {
			prefix := strings.TrimSuffix(f.tok(j-1).text, "\\")
			for k := j + 1; k < int(t.match); k++ {
				if f.tok(k).kind == phpIdent && !f.kw(k, "as") {
					full := prefix + "\\" + f.tok(k).text
					f.uses[shortName(full)] = strings.TrimPrefix(full, "\\")
				}
			}
			j = int(t.match)
			continue
		}
		if t.kind != phpIdent || f.kw(j, "as") {
			continue
		}
		full := strings.TrimPrefix(t.text, "\\")
		alias := shortName(full)
		if f.kw(j+1, "as") && j+2 < len(f.toks) {
			alias = strings.ToLower(f.tok(j + 2).text)
			j += 2
		}
		f.uses[alias] = full
	}
	return j
}

// class reads the class header at toks[i] and its body's members.
func (p *phpPkg) class(f *phpFile, i int) *phpClass {
	c := &phpClass{name: f.tok(i + 1).text, file: f, iface: f.kw(i, "interface"), props: map[string]*phpProp{}, methods: map[string]*phpFunc{}, consts: map[string]int{}}
	j := i + 2
	var list *[]string
	for ; j < len(f.toks) && !f.is(j, phpOpen, "{"); j++ {
		switch {
		case f.kw(j, "extends"):
			list = &c.implements
			if !c.iface {
				if j+1 < len(f.toks) {
					c.extends = f.fqn(f.tok(j + 1).text)
				}
				list = nil
			}
		case f.kw(j, "implements"):
			list = &c.implements
		case f.tok(j).kind == phpIdent && list != nil:
			*list = append(*list, f.fqn(f.tok(j).text))
		}
	}
	if j >= len(f.toks) {
		return nil
	}
	c.open = j
	p.classes[strings.ToLower(c.name)] = c
	p.members(c, j+1, int(f.tok(j).match))
	return c
}

// members reads a class body's depth-1 declarations in [s, e).
func (p *phpPkg) members(c *phpClass, s, e int) {
	f := c.file
	for j := s; j < e; j++ {
		t := f.tok(j)
		switch {
		case t.kind == phpOpen:
			j = int(t.match)
		case f.kw(j, "use"):
			for j++; j < e && !f.is(j, phpOp, ";") && f.tok(j).kind != phpOpen; j++ {
				if f.tok(j).kind == phpIdent {
					c.traits = append(c.traits, f.fqn(f.tok(j).text))
				}
			}
			if j < e && f.tok(j).kind == phpOpen {
				j = int(f.tok(j).match)
			}
		case f.kw(j, "const"):
			j = c.constDecl(j, e)
		case f.kw(j, "function"):
			if fn := f.function(j, c); fn != nil {
				c.methods[strings.ToLower(fn.name)] = fn
				c.promote(fn)
				j = max(j, fn.close, fn.open)
			}
		case t.kind == phpVar:
			j = c.propDecl(j, e)
		}
	}
}

// constDecl reads `const [TYPE] NAME = value, …;` and returns the index of its ;.
func (c *phpClass) constDecl(j, e int) int {
	f := c.file
	for j++; j < e && !f.is(j, phpOp, ";"); j++ {
		if f.tok(j).kind == phpIdent && f.is(j+1, phpOp, "=") {
			c.consts[strings.ToLower(f.tok(j).text)] = j + 2
		}
		if f.tok(j).kind == phpOpen {
			j = int(f.tok(j).match)
		}
	}
	return j
}

// propDecl reads a property `[modifiers] [TYPE] $name [= value];` at its variable and returns
// the index of its ;.
func (c *phpClass) propDecl(j, e int) int {
	f := c.file
	prop := &phpProp{def: -1, line: int(f.tok(j).line)}
	if k := j - 1; k >= 0 && f.tok(k).kind == phpIdent && !phpModifier(f.tok(k).text) {
		prop.typ = f.fqn(f.tok(k).text)
	}
	c.props[strings.ToLower(f.tok(j).text)] = prop
	if f.is(j+1, phpOp, "=") {
		prop.def = j + 2
	}
	for ; j < e && !f.is(j, phpOp, ";"); j++ {
		if f.tok(j).kind == phpOpen {
			j = int(f.tok(j).match)
		}
	}
	return j
}

// phpModifier says whether a name is a member modifier, not a type.
func phpModifier(s string) bool {
	switch strings.ToLower(s) {
	case "public", "protected", "private", "static", "readonly", "var", "final", "abstract":
		return true
	}
	return false
}

// promote adds a constructor's promoted parameters (`private Factory $http`) as properties.
func (c *phpClass) promote(fn *phpFunc) {
	if !strings.EqualFold(fn.name, "__construct") {
		return
	}
	f := c.file
	for k := fn.po + 1; k < fn.pc; k++ {
		if f.tok(k).kind != phpVar {
			continue
		}
		promoted := false
		for b := k - 1; b > fn.po && !f.is(b, phpOp, ","); b-- {
			if f.tok(b).kind == phpIdent && phpModifier(f.tok(b).text) {
				promoted = true
			}
		}
		if promoted {
			typ := ""
			if f.tok(k-1).kind == phpIdent && !phpModifier(f.tok(k-1).text) {
				typ = f.fqn(f.tok(k - 1).text)
			}
			c.props[strings.ToLower(f.tok(k).text)] = &phpProp{typ: typ, def: -1, line: int(f.tok(k).line), promoted: true}
		}
	}
}

// function reads `function NAME(params) [: type] { body }` (or `;` when abstract) at toks[i].
func (f *phpFile) function(i int, c *phpClass) *phpFunc {
	j := i + 1
	if f.is(j, phpOp, "&") {
		j++
	}
	if j+1 >= len(f.toks) || f.tok(j).kind != phpIdent || !f.is(j+1, phpOpen, "(") {
		return nil
	}
	po := j + 1
	pc := int(f.tok(po).match)
	fn := &phpFunc{name: f.tok(j).text, class: c, file: f, po: po, pc: pc, open: -1, close: -1}
	var typ string
	for k := po + 1; k < pc; k++ {
		switch t := f.tok(k); {
		case t.kind == phpIdent && !phpModifier(t.text):
			typ = f.fqn(t.text)
		case t.kind == phpVar:
			fn.params = append(fn.params, phpParam{name: t.text, typ: typ})
			typ = ""
		case t.kind == phpOpen:
			k = int(t.match)
		case f.is(k, phpOp, ","):
			typ = ""
		}
	}
	for k := pc + 1; k < len(f.toks); k++ {
		if f.is(k, phpOp, ";") {
			fn.close = k
			break
		}
		if f.is(k, phpOpen, "{") {
			fn.open, fn.close = k, int(f.tok(k).match)
			break
		}
	}
	if fn.open >= 0 {
		f.funcs = append(f.funcs, fn)
	}
	return fn
}

// httpStatic records Http::macro('name', function) and Http::globalOptions([...]) at toks[i].
func (p *phpPkg) httpStatic(f *phpFile, i int) {
	o := i + 3
	args := f.args(o)
	switch strings.ToLower(f.tok(i + 2).text) {
	case "macro":
		if len(args) == 2 && f.tok(args[0].s).kind == phpString {
			p.macros[strings.ToLower(f.tok(args[0].s).text)] = args[1]
		}
	case "globaloptions":
		if len(args) == 1 {
			p.global = &args[0]
		}
	}
}

// args splits the parenthesised argument list opened at toks[o] at its depth-1 commas.
func (f *phpFile) args(o int) []phpRange {
	c := int(f.tok(o).match)
	var out []phpRange
	s := o + 1
	for k := o + 1; k <= c; k++ {
		if k == c || f.is(k, phpOp, ",") {
			if k > s {
				out = append(out, phpRange{f: f, s: s, e: k})
			}
			s = k + 1
			continue
		}
		if f.tok(k).kind == phpOpen {
			k = int(f.tok(k).match) - 1
			continue
		}
	}
	return out
}

// named is the argument named name (`throw: false`) or, when none is named so, the pos-th
// positional one; ok false when there is neither.
func (f *phpFile) named(args []phpRange, pos int, name string) (phpRange, bool) {
	n := 0
	for _, a := range args {
		if a.e-a.s >= 2 && f.tok(a.s).kind == phpIdent && f.is(a.s+1, phpOp, ":") {
			if strings.EqualFold(f.tok(a.s).text, name) {
				return phpRange{f: f, s: a.s + 2, e: a.e}, true
			}
			continue
		}
		if n == pos {
			return a, true
		}
		n++
	}
	return phpRange{}, false
}

// funcAt is the innermost function whose body holds toks[i], nil at the top level.
func (f *phpFile) funcAt(i int) *phpFunc {
	var best *phpFunc
	for _, fn := range f.funcs {
		if fn.open < i && i < fn.close && (best == nil || fn.open > best.open) {
			best = fn
		}
	}
	return best
}

// parentOf is the class c extends when it is in the package.
func (p *phpPkg) parentOf(c *phpClass) *phpClass {
	if c == nil || c.extends == "" {
		return nil
	}
	return p.classes[shortName(c.extends)]
}

// method is c's method name, through its parents and traits.
func (p *phpPkg) method(c *phpClass, name string) *phpFunc {
	for d := 0; c != nil && d < 8; d++ {
		if m := c.methods[strings.ToLower(name)]; m != nil {
			return m
		}
		for _, t := range c.traits {
			if tc := p.classes[shortName(t)]; tc != nil {
				if m := tc.methods[strings.ToLower(name)]; m != nil {
					return m
				}
			}
		}
		c = p.parentOf(c)
	}
	return nil
}

// prop is c's property name, through its parents, and the class declaring it.
func (p *phpPkg) prop(c *phpClass, name string) (*phpProp, *phpClass) {
	for d := 0; c != nil && d < 8; d++ {
		if pr := c.props[strings.ToLower(name)]; pr != nil {
			return pr, c
		}
		c = p.parentOf(c)
	}
	return nil, nil
}
