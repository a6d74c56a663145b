package source

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// JavaScript reads JavaScript and TypeScript (.js .mjs .cjs .jsx .ts .mts .cts .tsx) with a
// hand-written lexer (js_lex.go: issue 28 item 6, no pure-Go parser covers TypeScript and
// JSX) and a reader on its tokens: fetch (Node's undici), axios with its instances, defaults
// and axios-retry, got and undici (docs/formats.md "Source code (JavaScript and
// TypeScript)").
//
// Call.Language is "javascript" for TypeScript too: the reader reads both alike (types are
// tokens it steps over), and LibraryOf finds a call's library by the language's Name.
var JavaScript = Language{
	Name:       langJS,
	Extensions: jsExtensions,
	Comments:   []string{"//", "/*"},
	Test:       jsLeftOut,
	Built:      jsBuilt,
	Package:    jsPackage,
	Read:       readJS,
	Libraries: []Library{
		{Name: libFetch, Fix: "pass signal: AbortSignal.timeout(ms) to fetch (it bounds the whole exchange, body included); Node's fetch bounds only the head and each silence of the body, 300 s each",
			Defaults: "no total; connect 10 s, headersTimeout 300 s and bodyTimeout 300 s (undici lib/core/connect.js buildConnector: timeout 10e3; lib/dispatcher/client.js: headersTimeout and bodyTimeout 300e3)"},
		{Name: libAxios, Fix: "pass signal: AbortSignal.timeout(ms) in the request config or on the instance (axios.create({signal, timeout})): in Node axios's timeout is an idle timer on the socket, not a bound on the whole call",
			Defaults: "timeout 0 = none (axios lib/defaults/index.js: timeout: 0); in Node a timeout is req.setTimeout, an idle timer (lib/adapters/http.js)"},
		{Name: libGot, Fix: "pass timeout: {request: ms} (the whole exchange) and timeout: {connect: ms} to got or to got.extend({...})",
			Defaults: "no timeout; retry limit 2 (3 attempts) for GET, PUT, HEAD, DELETE, OPTIONS, TRACE on ETIMEDOUT, ECONNRESET, ECONNREFUSED, EPIPE, ENOTFOUND, ENETUNREACH, EAI_AGAIN and 408, 413, 429, 500, 502, 503, 504, 521, 522, 524, waiting 2^(n-1) s plus up to 100 ms of noise (got source/core/options.ts: retry; source/core/calculate-retry-delay.ts)"},
		{Name: libUndici, Fix: "pass signal: AbortSignal.timeout(ms) to request() (it bounds the whole exchange); headersTimeout and bodyTimeout bound only the head and each silence of the body",
			Defaults: "no total; connect 10 s, headersTimeout 300 s and bodyTimeout 300 s (undici lib/core/connect.js: timeout 10e3; lib/dispatcher/client.js: 300e3)"},
		{Name: libNodeFetch, Fix: "pass signal: AbortSignal.timeout(ms) to fetch (node-fetch v2's timeout option too bounds the request and the body, but v3 removed it)",
			Defaults: "no timeout: timeout 0 (node-fetch v2 src/request.js), none in v3; Node's http module sets no connect timeout"},
	},
}

// jsExtensions are the file endings the JavaScript reader reads (and an import may omit).
var jsExtensions = []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"}

// langJS is JavaScript's (and TypeScript's) name in Call.Language.
const langJS = "javascript"

// The libraries the JavaScript reader knows, by their names in Call.Library.
const (
	libFetch  = "fetch"
	libAxios  = "axios"
	libGot    = "got"
	libUndici = "undici"
	// libNodeFetch is node-fetch (v2 and v3), on Node's http module.
	libNodeFetch = "node-fetch"
)

// jsTestDirs are the directories whose files a walk leaves out, with why.
var jsTestDirs = map[string]string{
	"__tests__": "a test", "__mocks__": "a test mock", "test": "a test", "tests": "a test", "e2e": "an end-to-end test",
	"cypress": "a Cypress test", "dist": "a built", "build": "a built",
}

// jsLeftOut says why a walk leaves a JavaScript or TypeScript file out, by its path below the
// directory walked: tests (*.test.*, *.spec.*, __tests__/, __mocks__/, test/, tests/, e2e/,
// cypress/: their servers and mocks are no outbound calls), built files (dist/, build/,
// *.min.js: generated from the code users write, which is read instead) and declaration files
// (*.d.ts: types, no code). node_modules/ is left out by the walk itself.
func jsLeftOut(rel string) string {
	const named = " (named on the command line, it is read)"
	base := strings.ToLower(filepath.Base(rel))
	switch {
	case strings.Contains(base, ".test.") || strings.Contains(base, ".spec."):
		return "a JavaScript/TypeScript test file: the servers and mocks of tests are no outbound calls" + named
	case strings.HasSuffix(base, ".min.js"):
		return "a minified JavaScript file: built from code that is read instead" + named
	case strings.HasSuffix(base, ".d.ts") || strings.HasSuffix(base, ".d.mts") || strings.HasSuffix(base, ".d.cts"):
		return "a TypeScript declaration file: types, no code" + named
	}
	for _, dir := range strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/") {
		if what, ok := jsTestDirs[dir]; ok {
			if dir == "dist" || dir == "build" {
				return "a JavaScript/TypeScript file under " + dir + "/: " + what + " file, generated from code that is read instead" + named
			}
			return "a JavaScript/TypeScript file under " + dir + "/: " + what + " file, whose servers and mocks are no outbound calls" + named
		}
	}
	return ""
}

// Minified files: the head read, the line length that no hand-written line of code reaches,
// the mean line length above which the head is machine-written (hand-written JavaScript
// averages 23–42 bytes a line, 10th to 90th percentile of 2,411 real files), and the share of
// a long line that is code punctuation (jsCodePunct): minified code has ; { } ( ) = in more
// than one byte in a hundred, a line of data (an SVG path, base64, a map's coordinates) in
// fewer than one in a thousand (docs/formats.md "Build output").
const (
	minifiedHead     = 64 << 10
	minifiedLine     = 1000
	minifiedMeanLine = 200
	minifiedPunctPer = 100
)

// jsCodePunct are the bytes a line of code is dense with and a line of data is not.
const jsCodePunct = ";{}()="

// jsBundleMarks are what a bundler's output holds and hand-written code does not: webpack's
// runtime (its module loader) in the file's head.
var jsBundleMarks = [][]byte{[]byte("__webpack_require__"), []byte("webpackBootstrap")}

// jsBuilt says why a JavaScript file found in a walk is build output by its content: minified
// (a line of code of over 1,000 bytes in its first 64 KiB, whose lines average over 200 bytes
// — a bundle's one long line, not a long string in hand-written code), or a webpack bundle
// (its runtime in the head). Such a file is the code of the libraries bundled, not the code
// users write, which is read instead; "" when the file reads as written by hand.
func jsBuilt(data []byte) string {
	const named = " (named on the command line, it is read)"
	head := data[:min(len(data), minifiedHead)]
	for _, m := range jsBundleMarks {
		if bytes.Contains(head, m) {
			return "a webpack bundle (its runtime, " + string(m) + ", is in the file): built from code that is read instead" + named
		}
	}
	lines, longest := 0, 0
	for rest := head; len(rest) > 0; lines++ {
		line := rest
		if n := bytes.IndexByte(rest, '\n'); n >= 0 {
			line, rest = rest[:n], rest[n+1:]
		} else {
			rest = nil
		}
		if len(line) > max(longest, minifiedLine) && codeLine(line) {
			longest = len(line)
		}
	}
	if longest > 0 && len(head)/lines > minifiedMeanLine {
		return fmt.Sprintf("a minified JavaScript file (a line of %d bytes of code, %d bytes a line on average): built from code that is read instead%s", longest, len(head)/lines, named)
	}
	return ""
}

// codeLine says whether a line is code rather than data: at least one byte in
// minifiedPunctPer is code punctuation.
func codeLine(line []byte) bool {
	n := 0
	for _, c := range line {
		if strings.IndexByte(jsCodePunct, c) >= 0 {
			n++
		}
	}
	return n*minifiedPunctPer >= len(line)
}

// jsRoots caches the project directory of each directory (jsPackage).
var jsRoots sync.Map

// jsPackage is the project a file belongs to: the nearest directory above it with a
// package.json, else its own directory. JavaScript modules import across directories
// (`import api from '../lib/api'`) and axios.defaults set in one file apply to every other,
// so a project is read at once; memory holds one project's source text at a time (check
// parses it as soon as its last file is read), not a tree's — a monorepo's packages each have
// their own package.json.
func jsPackage(path string) string {
	dir := filepath.Dir(path)
	if v, ok := jsRoots.Load(dir); ok {
		return v.(string)
	}
	root := dir
	for d := dir; ; {
		if st, err := os.Stat(filepath.Join(d, "package.json")); err == nil && !st.IsDir() {
			root = d
			break
		}
		up := filepath.Dir(d)
		if up == d || filepath.Base(d) == "node_modules" {
			break
		}
		d = up
	}
	jsRoots.Store(dir, root)
	return root
}

// tsExt says whether a file is TypeScript (.ts, .mts, .cts, .tsx).
func tsExt(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".cts", ".tsx":
		return true
	}
	return false
}

// jsxExt says whether a file's extension allows JSX (.ts, .mts and .cts do not: there `<T>`
// is a type assertion).
func jsxExt(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".cts":
		return false
	}
	return true
}
