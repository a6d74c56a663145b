package source

import (
	"go/ast"
	"go/token"
	"strings"
)

// goPackage indexes what one package defines that a call may use: package-level constants
// and variables, struct fields (by name: the reader has no type checker, so s.client and
// t.client are one field), the assignments to their fields, functions and methods.
type goPackage struct {
	fset  *token.FileSet
	files []*goFile
	// defs maps a package-level name or a field name to the values assigned to it.
	defs map[string][]goDef
	// sets maps a package-level name or a field name to assignments to its fields
	// (c.Timeout = …, rc.HTTPClient.Timeout = …).
	sets map[string][]goSet
	// typed maps a package-level name or a field name declared with a client type.
	typed map[string]kind
	// funcs are functions by name, methods by name (a method called as x.name()).
	funcs, methods map[string]goFunc
	scopes         map[*ast.FuncDecl]*goScope
	// doers are the package's interfaces with a Do(*http.Request) method (type httpDoer
	// interface{ Do(*http.Request) (*http.Response, error) }): a value of one is a client
	// the caller passes in.
	doers map[string]bool
	// otherField are field names some struct of the package declares with a type that is no
	// client: a selector by such a name is not followed.
	otherField map[string]bool
	// factories are fields of a function type that returns a client (HttpClient func()
	// (*http.Client, error)): calling one gives a client built where the reader cannot see.
	factories map[string]kind
}

// goDef is a value assigned to a name, with where it is (fn nil: package level).
type goDef struct {
	expr ast.Expr
	file *goFile
	fn   *ast.FuncDecl
}

// goSet is an assignment to a field path under a name: path [HTTPClient Timeout] = expr.
type goSet struct {
	path []string
	goDef
}

// goFunc is a function declaration with its file.
type goFunc struct {
	decl *ast.FuncDecl
	file *goFile
}

func newGoPackage(fset *token.FileSet) *goPackage {
	return &goPackage{fset: fset, defs: map[string][]goDef{}, sets: map[string][]goSet{}, typed: map[string]kind{},
		funcs: map[string]goFunc{}, methods: map[string]goFunc{}, scopes: map[*ast.FuncDecl]*goScope{}, doers: map[string]bool{}, otherField: map[string]bool{}, factories: map[string]kind{}}
}

// add indexes one file's declarations.
func (p *goPackage) add(f *goFile) {
	p.files = append(p.files, f)
	for _, d := range f.ast.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			p.genDecl(f, d)
		case *ast.FuncDecl:
			p.funcDecl(f, d)
		}
	}
}

// interfaces notes f's interface types with a Do(*http.Request) method.
func (p *goPackage) interfaces(f *goFile) {
	for _, d := range f.ast.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, spec := range g.Specs {
			if ts, ok := spec.(*ast.TypeSpec); ok && f.sendsRequests(ts.Type) {
				p.doers[ts.Name.Name] = true
			}
		}
	}
}

// sendsRequests says whether t is an interface with Do(*http.Request).
func (f *goFile) sendsRequests(t ast.Expr) bool {
	it, ok := t.(*ast.InterfaceType)
	if !ok {
		return false
	}
	for _, m := range it.Methods.List {
		ft, ok := m.Type.(*ast.FuncType)
		if !ok || len(m.Names) != 1 || m.Names[0].Name != "Do" || ft.Params == nil || len(ft.Params.List) != 1 {
			continue
		}
		if f.isType(ft.Params.List[0].Type, pathHTTP, "Request") {
			return true
		}
	}
	return false
}

// genDecl indexes package-level constants, variables and struct fields.
func (p *goPackage) genDecl(f *goFile, d *ast.GenDecl) {
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.ValueSpec:
			for i, n := range s.Names {
				if k := f.clientType(s.Type); k != kindNone {
					p.typed[n.Name] = k
				}
				if i < len(s.Values) {
					p.defs[n.Name] = append(p.defs[n.Name], goDef{expr: s.Values[i], file: f})
				}
			}
			p.fieldsIn(f, nil, s)
		case *ast.TypeSpec:
			p.structFields(f, s.Type)
		}
	}
}

// structFields notes the fields of a struct type declared with a client type.
func (p *goPackage) structFields(f *goFile, t ast.Expr) {
	st, ok := t.(*ast.StructType)
	if !ok {
		return
	}
	for _, fld := range st.Fields.List {
		k := f.clientType(fld.Type)
		if ft, ok := fld.Type.(*ast.FuncType); ok && ft.Results != nil && len(ft.Results.List) > 0 {
			// HttpClient func() (*http.Client, error): the factory of gh and others.
			if rk := f.clientType(ft.Results.List[0].Type); rk != kindNone {
				for _, n := range fld.Names {
					p.factories[n.Name] = rk
				}
			}
		}
		for _, n := range fld.Names {
			if k != kindNone {
				p.typed[n.Name] = k
			} else {
				p.otherField[n.Name] = true
			}
		}
	}
}

// funcDecl indexes a function and the field assignments and struct literals in it.
func (p *goPackage) funcDecl(f *goFile, d *ast.FuncDecl) {
	if d.Recv != nil {
		p.methods[d.Name.Name] = goFunc{d, f}
	} else {
		p.funcs[d.Name.Name] = goFunc{d, f}
	}
	if d.Body != nil {
		p.fieldsIn(f, d, d.Body)
	}
}

// fieldsIn indexes, under n, every assignment to a field (x.client = …, x.client.Timeout =
// …) and every struct literal's field (Service{client: …}) by the field's name.
func (p *goPackage) fieldsIn(f *goFile, fn *ast.FuncDecl, n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range x.Lhs {
				if rhs := assigned(x, i); rhs != nil {
					p.fieldAssign(f, fn, lhs, rhs)
				}
			}
		case *ast.CompositeLit:
			for _, el := range x.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if id, ok := kv.Key.(*ast.Ident); ok {
					p.defs[id.Name] = append(p.defs[id.Name], goDef{expr: kv.Value, file: f, fn: fn})
				}
			}
		}
		return true
	})
}

// fieldAssign indexes lhs = rhs where lhs is a selector chain root.a.b: a def of b, a set
// of [b] under a, and a set of [a b] under root when root is package level (a local root is
// its function scope's).
func (p *goPackage) fieldAssign(f *goFile, fn *ast.FuncDecl, lhs, rhs ast.Expr) {
	chain := selectorChain(lhs)
	if len(chain) < 2 {
		return
	}
	def := goDef{expr: rhs, file: f, fn: fn}
	last := chain[len(chain)-1]
	p.defs[last] = append(p.defs[last], def)
	for i := 1; i < len(chain)-1; i++ {
		p.sets[chain[i]] = append(p.sets[chain[i]], goSet{path: chain[i+1:], goDef: def})
	}
	if fn == nil || !declaredIn(fn, chain[0]) {
		p.sets[chain[0]] = append(p.sets[chain[0]], goSet{path: chain[1:], goDef: def})
	}
}

// assigned is the value x assigns to its i-th left-hand side: the one value of a
// multi-value call goes to the first (req, err := http.NewRequest(…)).
func assigned(x *ast.AssignStmt, i int) ast.Expr {
	if len(x.Lhs) == len(x.Rhs) {
		return x.Rhs[i]
	}
	if len(x.Rhs) == 1 && i == 0 {
		return x.Rhs[0]
	}
	return nil
}

// selectorChain is [root a b] for root.a.b, [name] for an identifier, nil for anything else.
func selectorChain(e ast.Expr) []string {
	switch x := unparen(e).(type) {
	case *ast.Ident:
		return []string{x.Name}
	case *ast.SelectorExpr:
		if c := selectorChain(x.X); c != nil {
			return append(c, x.Sel.Name)
		}
	case *ast.StarExpr:
		return selectorChain(x.X)
	}
	return nil
}

// declaredIn says whether name is a parameter, receiver or local of fn.
func declaredIn(fn *ast.FuncDecl, name string) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Field:
			for _, id := range x.Names {
				found = found || id.Name == name
			}
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == name {
						found = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				found = found || id.Name == name
			}
		}
		return !found
	})
	return found
}

// goScope is one function: the values assigned to its locals, the assignments to their
// fields, the locals declared with a client type, and the requests that set an
// Idempotency-Key header.
type goScope struct {
	fn    *ast.FuncDecl
	file  *goFile
	defs  map[string][]goDef
	sets  map[string][]goSet
	typed map[string]kind
	// params are the function's parameters (and its closures'): values from a caller.
	params map[string]bool
	keyed  map[string]bool
	// resolving maps a local being resolved to the index of the value being read.
	resolving map[string]int
}

func newGoScope(fn *ast.FuncDecl, f *goFile) *goScope {
	return &goScope{fn: fn, file: f, defs: map[string][]goDef{}, sets: map[string][]goSet{}, typed: map[string]kind{},
		params: map[string]bool{}, keyed: map[string]bool{}, resolving: map[string]int{}}
}

// scopeOf builds (once) the scope of fn in f.
func (p *goPackage) scopeOf(fn *ast.FuncDecl, f *goFile) *goScope {
	if sc, ok := p.scopes[fn]; ok {
		return sc
	}
	sc := newGoScope(fn, f)
	p.scopes[fn] = sc
	sc.fields(fn.Recv)
	sc.fields(fn.Type.Params)
	if fn.Body != nil {
		ast.Inspect(fn.Body, sc.visit)
	}
	return sc
}

// fields notes parameters, with their client types.
func (sc *goScope) fields(l *ast.FieldList) {
	if l == nil {
		return
	}
	for _, fld := range l.List {
		for _, n := range fld.Names {
			sc.params[n.Name] = true
			if k := sc.file.clientType(fld.Type); k != kindNone {
				sc.typed[n.Name] = k
			}
		}
	}
}

// visit indexes one node of the function's body.
func (sc *goScope) visit(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.FuncLit:
		sc.fields(x.Type.Params)
	case *ast.AssignStmt:
		for i, lhs := range x.Lhs {
			if rhs := assigned(x, i); rhs != nil {
				sc.assign(lhs, rhs)
			}
		}
	case *ast.ValueSpec:
		for i, id := range x.Names {
			if k := sc.file.clientType(x.Type); k != kindNone {
				sc.typed[id.Name] = k
			}
			if i < len(x.Values) {
				sc.defs[id.Name] = append(sc.defs[id.Name], goDef{expr: x.Values[i], file: sc.file, fn: sc.fn})
			}
		}
	case *ast.CallExpr:
		sc.header(x)
	}
	return true
}

// assign indexes lhs = rhs: a local's value, or a set under a local root.
func (sc *goScope) assign(lhs, rhs ast.Expr) {
	chain := selectorChain(lhs)
	def := goDef{expr: rhs, file: sc.file, fn: sc.fn}
	switch {
	case len(chain) == 1:
		sc.defs[chain[0]] = append(sc.defs[chain[0]], def)
	case len(chain) > 1:
		sc.sets[chain[0]] = append(sc.sets[chain[0]], goSet{path: chain[1:], goDef: def})
	}
	if ix, ok := unparen(lhs).(*ast.IndexExpr); ok {
		sc.headerIndex(ix)
	}
}

// header notes req.Header.Set("Idempotency-Key", …) (or Add) under req.
func (sc *goScope) header(x *ast.CallExpr) {
	s, ok := x.Fun.(*ast.SelectorExpr)
	if !ok || (s.Sel.Name != "Set" && s.Sel.Name != "Add") || len(x.Args) == 0 {
		return
	}
	chain := selectorChain(s.X)
	if len(chain) < 2 || chain[len(chain)-1] != "Header" {
		return
	}
	if isKeyHeader(sc.file.stringLit(x.Args[0])) {
		sc.keyed[chain[0]] = true
	}
}

// headerIndex notes req.Header["Idempotency-Key"] = … under req.
func (sc *goScope) headerIndex(ix *ast.IndexExpr) {
	chain := selectorChain(ix.X)
	if len(chain) >= 2 && chain[len(chain)-1] == "Header" && isKeyHeader(sc.file.stringLit(ix.Index)) {
		sc.keyed[chain[0]] = true
	}
}

// isKeyHeader says whether name is the Idempotency-Key header, in any case.
func isKeyHeader(name string) bool {
	return strings.EqualFold(name, "Idempotency-Key")
}
