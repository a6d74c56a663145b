package source

import (
	"go/ast"
	"strings"
)

// failsafe-go's failsafehttp (issue 28 item 2): a RoundTripper or a Request that runs each
// attempt through a retrypolicy.RetryPolicy. The defaults are golang.go's var block.

// Notes on where failsafe-go's bounds sit.
const (
	noteFSTransport = "total: failsafehttp's RoundTripper retries inside the client, so Client.Timeout bounds all attempts together (retry.deadline_ms), not each"
	noteFSRequest   = "total: failsafehttp.Request calls the client once per attempt: Client.Timeout bounds each attempt, the request's context all of them (retry.deadline_ms)"
)

// generic is fn without its type arguments: retrypolicy.NewBuilder[*http.Response].
func generic(fn ast.Expr) ast.Expr {
	switch x := unparen(fn).(type) {
	case *ast.IndexExpr:
		return x.X
	case *ast.IndexListExpr:
		return x.X
	}
	return fn
}

// fsPolicy is a retry policy as failsafe-go builds it: 3 attempts, no delay, on.
func fsPolicy(on []string) *value {
	return &value{kind: kindPolicy, retry: &Retry{Layer: libFailsafe, MaxAttempts: fsDefaultRetries + 1,
		On: append([]string(nil), on...), Backoff: &Backoff{ScheduleMS: []int64{0}, Jitter: "none"}}}
}

// failsafeCall resolves failsafe-go's constructors; ok false for any other call.
func (p *goPackage) failsafeCall(x *ast.CallExpr, path, name string, sc *goScope, own Origin, depth int) (*value, bool) {
	switch path + "." + name {
	case pathFSRetry + ".NewBuilder", pathFSRetry + ".NewWithDefaults":
		return fsPolicy(fsErrorsOn), true
	case pathFSHTTP + ".NewRetryPolicyBuilder":
		v := fsPolicy(fsHTTPOn)
		v.notes = []string{"backoff: a Retry-After on a 429 or 503 replaces the delay (failsafehttp.DelayFunc)"}
		return v, true
	case pathFailsafe + ".With", pathFailsafe + ".NewExecutor":
		return p.policies(x.Args, sc, own, depth), true
	case pathFSHTTP + ".NewRoundTripper", pathFSHTTP + ".NewRoundTripperWithExecutor":
		return p.roundTripper(x, sc, own, depth), true
	case pathFSHTTP + ".NewRequest", pathFSHTTP + ".NewRequestWithExecutor":
		return p.fsRequest(x, sc, own, depth), true
	}
	return nil, false
}

// policies is the retry layer of a list of policies (failsafe.With, NewRoundTripper's
// rest): the first retry policy's; an empty list retries nothing.
func (p *goPackage) policies(args []ast.Expr, sc *goScope, own Origin, depth int) *value {
	var unread []string
	for _, a := range args {
		v := p.value(a, sc, own, depth+1)
		if v != nil && v.kind == kindPolicy {
			if v.retry != nil {
				return v
			}
			continue
		}
		unread = append(unread, exprText(a))
	}
	out := &value{kind: kindPolicy}
	if len(unread) > 0 {
		out.retry = &Retry{Layer: libFailsafe, Unresolved: "the policies " + joinText(unread) + " are built where the reader cannot see"}
		out.notes = []string{"retry: " + out.retry.Unresolved + ": attempts and classes not read"}
	}
	return out
}

func joinText(xs []string) string { return strings.Join(xs, ", ") }

// executor is the retry layer of NewRoundTripper's policies or a …WithExecutor's executor,
// set where x is.
func (p *goPackage) executor(x *ast.CallExpr, args []ast.Expr, withExecutor bool, sc *goScope, own Origin, depth int) *value {
	var v *value
	if withExecutor {
		if len(args) > 0 {
			v = p.value(args[0], sc, own, depth+1)
		}
		if v == nil || v.kind != kindPolicy {
			r := &Retry{Layer: libFailsafe, Unresolved: "the executor is built where the reader cannot see"}
			v = &value{kind: kindPolicy, retry: r, notes: []string{"retry: " + r.Unresolved + ": attempts and classes not read"}}
		}
	} else {
		v = p.policies(args, sc, own, depth)
	}
	if v.retry != nil {
		r := *v.retry
		pos := p.fset.Position(x.Pos())
		r.File, r.Line = sc.file.path, pos.Line
		v.retry = &r
	}
	return v
}

// roundTripper is failsafehttp.NewRoundTripper(inner, policies…): the inner transport's
// bounds (http.DefaultTransport for nil) with the policies' retry layer.
func (p *goPackage) roundTripper(x *ast.CallExpr, sc *goScope, own Origin, depth int) *value {
	if len(x.Args) == 0 {
		return nil
	}
	t := defaultTransport()
	if id, ok := unparen(x.Args[0]).(*ast.Ident); !ok || id.Name != "nil" {
		t = p.value(x.Args[0], sc, own, depth+1)
		if t == nil || t.kind != kindTransport {
			t = unknown(kindTransport, "connect and read: the inner RoundTripper is "+exprText(x.Args[0])+", not read")
		}
	}
	_, name := sc.file.pkgOf(generic(x.Fun))
	e := p.executor(x, x.Args[1:], name == "NewRoundTripperWithExecutor", sc, own, depth)
	t.retry, t.notes = e.retry, append(t.notes, e.notes...)
	return t
}

// fsRequest is failsafehttp.NewRequest(req, client, policies…): a client (nil is
// http.DefaultClient, which Do would dereference: not read) whose Do() sends req.
func (p *goPackage) fsRequest(x *ast.CallExpr, sc *goScope, own Origin, depth int) *value {
	if len(x.Args) < 2 {
		return nil
	}
	c := p.value(x.Args[1], sc, own, depth+1)
	if c == nil || c.kind != kindHTTPClient {
		c = unknown(kindHTTPClient, "the client is "+exprText(x.Args[1])+", not read")
	}
	req := p.value(x.Args[0], sc, own, depth+1)
	if req == nil || req.kind != kindRequest {
		req = &value{kind: kindRequest, total: unresolved, notes: []string{"the request is built where the reader cannot see: its context, method and headers are not read"}}
	}
	_, name := sc.file.pkgOf(generic(x.Fun))
	e := p.executor(x, x.Args[2:], name == "NewRequestWithExecutor", sc, own, depth)
	out := *c
	out.retry, out.sends, out.notes = e.retry, req, append(append([]string(nil), c.notes...), e.notes...)
	return &out
}

// failsafeDeadline is the call's retry layer with the bound on all its attempts, and the
// note saying which bound that is.
func failsafeDeadline(client, req *value) (*Retry, []string) {
	r := *client.retry
	all, note := tighter(client.total, req.total), noteFSTransport
	if client.sends != nil {
		all, note = req.total, noteFSRequest
	}
	if all.known() {
		ms := all.D.Milliseconds()
		if r.DeadlineMS == nil || ms < *r.DeadlineMS {
			r.DeadlineMS = &ms
		}
	}
	return &r, []string{note}
}
