package source

import (
	"go/ast"
	"strings"
)

// verbs are the methods of http.Client (and go-retryablehttp's Client) that send a request,
// with the method each sends ("" = the request's).
var verbs = map[string]string{"Do": "", "Get": "GET", "Head": "HEAD", "Post": "POST", "PostForm": "POST"}

// calls are the outbound calls in f's functions.
func (p *goPackage) calls(f *goFile) []Call {
	var out []Call
	for _, d := range f.ast.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		sc := p.scopeOf(fn, f)
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if ce, ok := n.(*ast.CallExpr); ok {
				if c, ok := p.callSite(ce, sc); ok {
					out = append(out, c)
				}
			}
			return true
		})
	}
	return out
}

// callSite is the call ce when it sends a request: http.Get and its kin (DefaultClient),
// retryablehttp.Get and its kin (its default client), or Do/Get/Head/Post/PostForm on a
// value the reader resolves to a client.
func (p *goPackage) callSite(ce *ast.CallExpr, sc *goScope) (Call, bool) {
	s, ok := ce.Fun.(*ast.SelectorExpr)
	if !ok {
		return Call{}, false
	}
	method, ok := verbs[s.Sel.Name]
	if !ok {
		return Call{}, false
	}
	client := p.sender(s, sc)
	if client == nil {
		return Call{}, false
	}
	pos := p.fset.Position(ce.Pos())
	c := Call{File: sc.file.path, Line: pos.Line, Col: pos.Column, Language: langGo, Library: libHTTP, Method: method, Retry: client.retry}
	if client.kind == kindRetryClient {
		c.Library = libRetry
	}
	if client.retry != nil {
		c.Library = client.retry.Layer
	}
	req := &value{kind: kindRequest, total: none, method: method, key: new(bool)}
	switch {
	case client.sends != nil && len(ce.Args) == 0:
		req = client.sends // failsafehttp.NewRequest(req, client, …).Do()
	case method == "":
		req = p.sent(ce, sc)
	case len(ce.Args) > 0:
		req.host = p.host(ce.Args[0], sc, 0)
	}
	c.Host = req.host
	c.Method = strings.ToUpper(req.method)
	c.IdempotencyKey = req.key
	c.set(client.connect, client.read, tighter(client.total, req.total))
	if client.retry != nil && client.retry.Layer == libFailsafe {
		r, notes := failsafeDeadline(client, req)
		c.Retry, c.Notes = r, append(c.Notes, notes...)
	}
	c.Notes = append(append(c.Notes, client.notes...), req.notes...)
	c.ReadHeadOnly = client.headOnly && client.read.known()
	return c, true
}

// sender is the client a call is sent with, nil when s is no client's method.
func (p *goPackage) sender(s *ast.SelectorExpr, sc *goScope) *value {
	if path, _ := sc.file.pkgOf(s); path != "" {
		switch {
		case path == pathHTTP && s.Sel.Name != "Do":
			return httpDefault()
		case path == pathRetry && s.Sel.Name != "Do":
			return retryDefault()
		}
		return nil
	}
	v := p.value(s.X, sc, OriginExplicit, 0)
	if v == nil || (v.kind != kindHTTPClient && v.kind != kindRetryClient) {
		return nil
	}
	return v
}

// sent is the request Do sends: its method, context bound and key; unresolved when it is
// built where the reader cannot see.
func (p *goPackage) sent(ce *ast.CallExpr, sc *goScope) *value {
	if len(ce.Args) == 1 {
		if v := p.value(ce.Args[0], sc, OriginExplicit, 0); v != nil && v.kind == kindRequest {
			if v.total.Origin == OriginUnresolved {
				v.notes = append(v.notes, "total: the request's context comes from a caller or is computed: its deadline is not read")
			}
			return v
		}
	}
	return &value{kind: kindRequest, total: unresolved, notes: []string{"the request is built where the reader cannot see: its context, method and headers are not read"}}
}
