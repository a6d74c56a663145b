package source

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Go reads Go source with the standard library's go/parser (no cgo, every release target):
// net/http clients, go-retryablehttp and failsafe-go's failsafehttp (docs/formats.md "Source
// code (Go)").
var Go = Language{
	Name:       langGo,
	Extensions: []string{".go"},
	Comments:   []string{"//"},
	Test:       goLeftOut,
	Package:    filepath.Dir,
	Read:       readGo,
	Libraries:  goLibraries,
}

// goLibraries are the HTTP libraries the Go reader knows, with PT001's fix in each one's API
// and its defaults (the var block below cites them).
var goLibraries = []Library{
	{
		Name:     libHTTP,
		Fix:      "give the client a Timeout (http.Client{Timeout: …}) a little above the dependency's p99.9 (patience probe URL measures it), or send the request with a context.WithTimeout",
		Defaults: "http.DefaultClient and http.Client{}: no Timeout; http.DefaultTransport dials with a 30 s net.Dialer timeout and sets no ResponseHeaderTimeout (Go's src/net/http/transport.go, DefaultTransport)",
	},
	{
		Name:     libRetry,
		Fix:      "set the client's HTTPClient.Timeout (it bounds each attempt) a little above the dependency's p99.9 (patience probe URL measures it), or send the request with a context.WithTimeout",
		Defaults: "NewClient(): RetryMax 4 (5 attempts), RetryWaitMin 1 s, RetryWaitMax 30 s, HTTPClient cleanhttp.DefaultPooledClient() with no Timeout and a 30 s dial timeout (hashicorp/go-retryablehttp client.go, hashicorp/go-cleanhttp cleanhttp.go)",
	},
	{
		Name:     libFailsafe,
		Fix:      "give the http.Client around failsafehttp's RoundTripper a Timeout (it bounds all attempts together) and each attempt a bound a little above the dependency's p99.9 (a timeout.New policy inside the retry policy, or the inner Transport's timeouts; patience probe URL measures it)",
		Defaults: "retrypolicy.NewBuilder() and NewWithDefaults(): 3 attempts (defaultMaxRetries 2), no delay, every error retried and no response; failsafehttp.NewRetryPolicyBuilder() adds 429 and 5xx but 501 and a Retry-After delay; NewRoundTripper(nil, …) wraps http.DefaultTransport (failsafe-go/failsafe-go retrypolicy/retry.go, failsafehttp/policy.go, failsafehttp/client.go)",
	},
}

// langGo is Go's name in Call.Language.
const langGo = "go"

// Import paths the Go reader knows, and the name each package declares.
const (
	pathHTTP      = "net/http"
	pathNet       = "net"
	pathTime      = "time"
	pathContext   = "context"
	pathRetry     = "github.com/hashicorp/go-retryablehttp"
	pathCleanHTTP = "github.com/hashicorp/go-cleanhttp"
	pathFailsafe  = "github.com/failsafe-go/failsafe-go"
	pathFSHTTP    = "github.com/failsafe-go/failsafe-go/failsafehttp"
	pathFSRetry   = "github.com/failsafe-go/failsafe-go/retrypolicy"
)

// goPackages are the packages the reader follows, by import path, with their package names.
var goPackages = map[string]string{
	pathHTTP: "http", pathNet: "net", pathTime: "time", pathContext: "context",
	pathRetry: "retryablehttp", pathCleanHTTP: "cleanhttp",
	pathFailsafe: "failsafe", pathFSHTTP: "failsafehttp", pathFSRetry: "retrypolicy",
}

// Library defaults, as data (docs/formats.md "Source code (Go)" cites each):
//   - net/http: http.DefaultClient and http.Client{} have no Timeout; http.DefaultTransport
//     dials with a net.Dialer{Timeout: 30 * time.Second} and sets no ResponseHeaderTimeout
//     (Go's src/net/http/transport.go, DefaultTransport).
//   - go-retryablehttp NewClient(): RetryMax 4 (5 attempts), RetryWaitMin 1 s, RetryWaitMax
//     30 s, HTTPClient cleanhttp.DefaultPooledClient() (no Timeout; its transport dials with
//     a 30 s timeout) — hashicorp/go-retryablehttp client.go (defaultRetryMax, NewClient) and
//     hashicorp/go-cleanhttp cleanhttp.go (DefaultPooledTransportWithMin). DefaultRetryPolicy
//     retries every transport error, 429 and 5xx but 501, whatever the method
//     (baseRetryPolicy).
//   - failsafe-go (v0.9.8): retrypolicy.NewBuilder[R]() and NewWithDefaults[R]() allow 3
//     attempts (retrypolicy/retry.go, defaultMaxRetries = 2) with no delay (a zero
//     BaseDelayablePolicy.Delay), and with no Handle* condition a failure is any error and
//     no response (policy/policy.go, BaseFailurePolicy.IsFailure: err != nil), so they retry
//     connect, timeout and reset. failsafehttp.NewRetryPolicyBuilder() adds HandleIf for every
//     error but an unsupported scheme, an untrusted certificate or too many redirects, 429,
//     and 5xx but 501, with WithDelayFunc(DelayFunc): a Retry-After on a 429 or 503, else the
//     delay (failsafehttp/policy.go). WithBackoff(d, max) is WithBackoffFactor(d, max, 2)
//     (retry.go); WithJitterFactor(f) makes each wait U[d·(1−f), d·(1+f)] and WithJitter(j)
//     U[d−j, d+j] (internal/util/util.go, ApplyJitter). NewRoundTripper(nil, …) wraps
//     http.DefaultTransport (failsafehttp/client.go, NewRoundTripperWithExecutor).
var (
	goDefaultConnect = 30 * time.Second
	retryDefaultMax  = 4
	// go-retryablehttp's defaultRetryWaitMin and defaultRetryWaitMax.
	retryDefaultWaitMin = 1 * time.Second
	retryDefaultWaitMax = 30 * time.Second
	retryDefaultOn      = []string{"connect", "timeout", "reset", "429", "5xx"}
	// failsafe-go's defaultMaxRetries, and what its policies retry by default.
	fsDefaultRetries = 2
	fsErrorsOn       = []string{"connect", "timeout", "reset"}
	fsHTTPOn         = []string{"connect", "timeout", "reset", "429", "5xx"}
)

// noteHeadOnly says what a read bound from ResponseHeaderTimeout is.
const noteHeadOnly = "read is Transport.ResponseHeaderTimeout: it bounds the wait for the response head, not the body"

// goLeftOut says why a walk leaves a Go file out, by its path below the directory walked:
// test files, and what the go tool itself ignores — testdata directories (which often hold
// Go that is invalid on purpose) and names starting with "_" (go help packages).
func goLeftOut(rel string) string {
	base := filepath.Base(rel)
	switch {
	case strings.HasSuffix(base, "_test.go"):
		return "a Go test file: the servers and clients of tests are no outbound calls (named on the command line, it is read)"
	case strings.HasPrefix(base, "_"):
		return "a Go file the go tool ignores (its name starts with _; named on the command line, it is read)"
	}
	for _, dir := range strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/") {
		if dir == "testdata" || strings.HasPrefix(dir, "_") {
			return "a Go file under " + dir + "/, which the go tool ignores (named on the command line, it is read)"
		}
	}
	return ""
}

// readGo parses one package's files and returns their calls, sorted by position.
func readGo(files []Input) ([]Call, error) {
	fset := token.NewFileSet()
	pkg := newGoPackage(fset)
	var parsed []*goFile
	for _, in := range files {
		f, err := parser.ParseFile(fset, in.Path, in.Data, parser.SkipObjectResolution)
		if err != nil {
			return nil, goParseError(in.Path, err)
		}
		gf := newGoFile(in.Path, f)
		gf.doers = pkg.doers
		pkg.interfaces(gf)
		parsed = append(parsed, gf)
	}
	for _, f := range parsed {
		pkg.add(f)
	}
	var calls []Call
	for _, f := range pkg.files {
		calls = append(calls, pkg.calls(f)...)
	}
	sortCalls(calls)
	return calls, nil
}

// goParseError is the first error of a file that does not parse, at its position.
func goParseError(path string, err error) error {
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		p := list[0].Pos
		return &Error{File: path, Line: p.Line, Col: p.Column, Msg: "not valid Go: " + list[0].Msg}
	}
	return &Error{File: path, Line: 1, Col: 1, Msg: "not valid Go: " + err.Error()}
}

// goFile is one parsed file with the local names of the packages the reader follows.
type goFile struct {
	path string
	ast  *ast.File
	// local maps a local package name to its import path.
	local map[string]string
	// doers are the package's interfaces that send requests (goPackage.doers).
	doers map[string]bool
}

func newGoFile(path string, f *ast.File) *goFile {
	gf := &goFile{path: path, ast: f, local: map[string]string{}}
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		name, ok := goPackages[p]
		if !ok {
			continue
		}
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if name != "_" && name != "." {
			gf.local[name] = p
		}
	}
	return gf
}

// pkgSel says whether e is PKG.NAME for the package at path, imported in f.
func (f *goFile) pkgSel(e ast.Expr, path, name string) bool {
	s, ok := unparen(e).(*ast.SelectorExpr)
	if !ok || s.Sel.Name != name {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && f.local[id.Name] == path
}

// pkgOf is the import path of e's package when e is PKG.NAME, and NAME.
func (f *goFile) pkgOf(e ast.Expr) (path, name string) {
	s, ok := unparen(e).(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	id, ok := s.X.(*ast.Ident)
	if !ok {
		return "", ""
	}
	return f.local[id.Name], s.Sel.Name
}

// isType says whether e is the type path.name or a pointer to it.
func (f *goFile) isType(e ast.Expr, path, name string) bool {
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	return f.pkgSel(e, path, name)
}

// clientType is the kind of value a declared type holds, when it is one the reader follows.
func (f *goFile) clientType(e ast.Expr) kind {
	switch {
	case e == nil:
		return kindNone
	case f.isType(e, pathHTTP, "Client"):
		return kindHTTPClient
	case f.isType(e, pathRetry, "Client"):
		return kindRetryClient
	}
	if id, ok := e.(*ast.Ident); ok && f.doers[id.Name] {
		return kindHTTPClient
	}
	return kindNone
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// exprText is e as written, for notes.
func exprText(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprText(x.X) + "." + x.Sel.Name
	case *ast.CallExpr:
		return exprText(x.Fun) + "(…)"
	case *ast.StarExpr:
		return "*" + exprText(x.X)
	case *ast.UnaryExpr:
		return x.Op.String() + exprText(x.X)
	case *ast.ParenExpr:
		return "(" + exprText(x.X) + ")"
	case *ast.BasicLit:
		return x.Value
	case *ast.FuncLit:
		return "func(…) {…}"
	}
	return "an expression"
}

// stringLit is e's value when it is a string literal or net/http's Method constant.
func (f *goFile) stringLit(e ast.Expr) string {
	if bl, ok := unparen(e).(*ast.BasicLit); ok && bl.Kind == token.STRING {
		s, err := strconv.Unquote(bl.Value)
		if err == nil {
			return s
		}
	}
	if p, name := f.pkgOf(e); p == pathHTTP && strings.HasPrefix(name, "Method") {
		return strings.ToUpper(strings.TrimPrefix(name, "Method"))
	}
	return ""
}
