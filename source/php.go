package source

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// PHP reads PHP source with a hand-written lexer (php_lex.go) and a reader on its token stream
// (php_read.go): Guzzle clients, Laravel's Http:: chains and the queue jobs around them
// (docs/formats.md "Source code (PHP)").
var PHP = Language{
	Name:       langPHP,
	Extensions: []string{".php"},
	Comments:   []string{"//", "#"},
	Test:       phpLeftOut,
	Package:    phpPackage,
	Read:       readPHP,
	Libraries: []Library{
		{
			Name:     libGuzzle,
			Fix:      "give the Client a 'timeout' (total, seconds) and a 'connect_timeout' (new Client(['timeout' => 10, 'connect_timeout' => 3])), or pass them in the request's options, a little above the dependency's p99.9 (patience probe URL measures it)",
			Defaults: "timeout 0 = none; connect_timeout unset: Guzzle sets no CURLOPT_CONNECTTIMEOUT_MS, so libcurl's built-in 300 s applies; read_timeout is read by the stream handler only (default_socket_timeout, 60 s), the curl handler has no read bound — guzzle/guzzle src/Handler/CurlFactory.php (applyHandlerOptions), src/Handler/StreamHandler.php, src/Client.php (configureDefaults sets no timeout)",
		},
		{
			Name:     libLaravel,
			Fix:      "chain ->timeout(SECONDS)->connectTimeout(SECONDS) on the request (Http::timeout(10)->connectTimeout(3)->post(…)), or set them once with Http::globalOptions() in a service provider, a little above the dependency's p99.9 (patience probe URL measures it)",
			Defaults: "timeout 30 s, connect_timeout 10 s — laravel/framework src/Illuminate/Http/Client/PendingRequest.php (__construct, $this->options); retry($times) counts attempts and, without $when, retries connection errors and every failed response, 4xx included (send(), Support/helpers.php retry())",
		},
	},
}

// Names of PHP's language and libraries in Call.
const (
	langPHP    = "php"
	libGuzzle  = "guzzle"
	libLaravel = "laravel-http"
	// layerJob is a Laravel queue job's own retries ($tries) as a retry layer.
	layerJob = "laravel-job"
	// layerGuzzleRetry is Guzzle's Middleware::retry on the client's handler stack.
	layerGuzzleRetry = "guzzle-retry"
)

// Library defaults, as data (Libraries[].Defaults cites each upstream).
var (
	laravelDefaultTotal   = 30 * time.Second
	laravelDefaultConnect = 10 * time.Second
	// curlDefaultConnect is libcurl's built-in connect timeout, which applies when Guzzle sets
	// no CURLOPT_CONNECTTIMEOUT_MS (no connect_timeout, or 0).
	curlDefaultConnect = 300 * time.Second
	// streamDefaultRead is PHP's default_socket_timeout, the stream handler's read bound when
	// no read_timeout is given.
	streamDefaultRead = 60 * time.Second
	// laravelRetryOn are the failures retry() retries without a $when: connection errors and
	// every failed response (PendingRequest::send throws on !successful()).
	laravelRetryOn = []string{"connect", "timeout", "reset", "4xx", "429", "5xx"}
)

// phpLeftOut says why a walk leaves a PHP file out, by its path below the directory walked:
// tests (a tests/ directory, PHPUnit's *Test.php) make no outbound calls, and storage/ and
// bootstrap/cache/ hold what Laravel compiles and caches, not the code that is written.
func phpLeftOut(rel string) string {
	slash := filepath.ToSlash(rel)
	if strings.HasSuffix(filepath.Base(slash), "Test.php") {
		return "a PHP test file (*Test.php): the clients of tests are no outbound calls (named on the command line, it is read)"
	}
	dirs := strings.Split(filepath.ToSlash(filepath.Dir(slash)), "/")
	for i, d := range dirs {
		switch {
		case d == "tests" || d == "Tests":
			return "a PHP file under " + d + "/: the clients of tests are no outbound calls (named on the command line, it is read)"
		case d == "storage":
			return "a PHP file under storage/: Laravel's compiled views and caches, not code that is written (named on the command line, it is read)"
		case d == "bootstrap" && i+1 < len(dirs) && dirs[i+1] == "cache":
			return "a PHP file under bootstrap/cache/: Laravel's compiled configuration, not code that is written (named on the command line, it is read)"
		}
	}
	return ""
}

// phpProjects caches each directory's project root (phpPackage).
var phpProjects sync.Map

// phpPackage is the project a PHP file belongs to: the nearest directory above it holding a
// composer.json, else its own directory. A Laravel app's classes reference each other across
// directories (app/Jobs uses app/Services through a typed constructor), so the app is read as
// one package; its text is held until its last file is read.
func phpPackage(path string) string {
	dir := filepath.Dir(path)
	if v, ok := phpProjects.Load(dir); ok {
		return v.(string)
	}
	root := dir
	for d := dir; ; {
		if st, err := os.Stat(filepath.Join(d, "composer.json")); err == nil && !st.IsDir() {
			root = d
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	phpProjects.Store(dir, root)
	return root
}
