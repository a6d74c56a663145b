package source

import (
	"path/filepath"
	"strings"
)

// Python reads Python source with a hand-written lexer (python_lex.go; issue 28 item 6: no
// pure-Go parser covers the language as written today): requests (sessions, adapters,
// wrappers), httpx, aiohttp and urllib3, and the tenacity and backoff decorators around them
// (docs/formats.md "Source code (Python)").
var Python = Language{
	Name:       langPython,
	Extensions: []string{".py"},
	Comments:   []string{"#"},
	Test:       pyLeftOut,
	// A directory is a Python package: the modules a call's session, adapter subclass or
	// constant comes from are, in the code this reads, its siblings (from .http import …).
	Package:   filepath.Dir,
	Read:      readPython,
	Libraries: pyLibraries,
}

// langPython is Python's name in Call.Language.
const langPython = "python"

// The libraries' names in Call.Library.
const (
	libRequests = "requests"
	libHTTPX    = "httpx"
	libAIOHTTP  = "aiohttp"
	libURLLib3  = "urllib3"
)

// pyLibraries are the libraries the reader knows, each with its fix and its defaults.
var pyLibraries = []Library{
	{Name: libRequests,
		Fix:      "pass timeout=(3.05, 10) (connect, read) to every call — or mount an HTTPAdapter subclass that sets it on the Session — and bound the whole call where it matters (read bounds each wait for data, not the body)",
		Defaults: "no timeout at all: HTTPAdapter.send(timeout=None) (requests/adapters.py); no retries: DEFAULT_RETRIES = 0; an integer max_retries is Retry.from_int(n)"},
	{Name: libHTTPX,
		Fix:      "pass timeout=httpx.Timeout(10, connect=3) to the Client (or the call), and bound the whole call (asyncio.timeout / anyio.fail_after) where a slow body matters: httpx has no total",
		Defaults: "5 s connect, read, write and pool, no total: DEFAULT_TIMEOUT_CONFIG = Timeout(timeout=5.0) (httpx/_config.py); no retries (HTTPTransport(retries=0))"},
	{Name: libAIOHTTP,
		Fix:      "pass timeout=aiohttp.ClientTimeout(total=10, sock_connect=3) to the ClientSession (or the call)",
		Defaults: "total 300 s, no connect or read bound: DEFAULT_TIMEOUT = ClientTimeout(total=5 * 60) (aiohttp/client.py; 3.10 adds sock_connect=30)"},
	{Name: libURLLib3,
		Fix:      "pass timeout=urllib3.Timeout(connect=3, read=10) to the PoolManager (or the call)",
		Defaults: "no timeout: Timeout.DEFAULT_TIMEOUT is the socket default (urllib3/util/timeout.py); retries Retry.DEFAULT = Retry(3), 4 attempts (urllib3/util/retry.py)"},
}

// pyLeftOut says why a walk leaves a Python file out: a test module or one under a test
// directory (pytest's and unittest's conventions), whose servers and clients are no outbound
// calls.
func pyLeftOut(rel string) string {
	base := filepath.Base(rel)
	switch {
	case strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"):
		return "a Python test module (test_*.py, *_test.py): the servers and clients of tests are no outbound calls (named on the command line, it is read)"
	case base == "conftest.py":
		return "pytest's conftest.py: test fixtures are no outbound calls (named on the command line, it is read)"
	}
	for _, dir := range strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/") {
		if dir == "tests" || dir == "test" {
			return "a Python file under " + dir + "/, a test directory (named on the command line, it is read)"
		}
	}
	return ""
}

// readPython lexes one package's modules and returns their calls, sorted by position.
func readPython(files []Input) ([]Call, error) {
	pkg := &pyPackage{}
	for _, in := range files {
		lines, err := lexPython(in.Path, in.Data)
		if err != nil {
			return nil, err
		}
		pkg.files = append(pkg.files, newPyFile(pkg, in.Path, lines))
	}
	var calls []Call
	for _, f := range pkg.files {
		calls = append(calls, f.calls()...)
	}
	sortCalls(calls)
	return calls, nil
}
