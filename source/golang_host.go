package source

import (
	"go/ast"
	"go/token"
	"net/url"
	"strconv"
	"strings"
)

// host is the host of the URL expression e when the code gives it as a literal: a string, a
// constant or a variable assigned one once (locally or at package level), or a concatenation
// that starts with one ("https://api.example.com" + path). "" when the URL is computed
// (issue 28 item 4: the join with the configs that route the host reads it; never guessed).
func (p *goPackage) host(e ast.Expr, sc *goScope, depth int) string {
	if e == nil || depth > maxDepth {
		return ""
	}
	switch x := unparen(e).(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			if s, err := strconv.Unquote(x.Value); err == nil {
				return goURLHost(s)
			}
		}
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			return p.host(x.X, sc, depth+1)
		}
	case *ast.Ident:
		defs := p.defs[x.Name]
		if sc != nil {
			if local, ok := sc.defs[x.Name]; ok {
				defs = local
			} else if sc.params[x.Name] {
				return ""
			}
		}
		// A name assigned more than once may hold another URL by the time of the call.
		if len(defs) == 1 {
			return p.host(defs[0].expr, sc, depth+1)
		}
	}
	return ""
}

// goURLHost is the host of an absolute http(s) URL, lower case and without its port; "" for
// anything else (a relative path, a URL with a template in its host).
func goURLHost(s string) string {
	if !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || strings.ContainsAny(u.Hostname(), "%{}") {
		return ""
	}
	return strings.ToLower(u.Hostname())
}
