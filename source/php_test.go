package source

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readPHPDir reads every .php file under one fixture directory as one package (a Laravel
// app's classes reference each other across directories).
func readPHPDir(t testing.TB, dir string) []Call {
	t.Helper()
	var in []Input
	root := filepath.Join("testdata", "php", dir)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".php" {
			return err
		}
		b, err := os.ReadFile(path)
		in = append(in, Input{Path: path, Data: b})
		return err
	})
	if err != nil || len(in) == 0 {
		t.Fatalf("no fixture in %s: %v", root, err)
	}
	sort.Slice(in, func(i, j int) bool { return in[i].Path < in[j].Path })
	calls, err := PHP.Read(in)
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

// phpSummary is summary's line with where the call runs, its literal host and the product of
// its retry layers (Call.Attempts).
func phpSummary(c Call) string {
	return fmt.Sprintf("%s ctx=%s host=%s product=%d", summary(c), c.Context, c.Host, c.Attempts())
}

// TestPHPCalls: every pattern's calls with their effective bounds and origins, the innermost
// layer's attempts, the key, the context, the host and the product of the layers.
func TestPHPCalls(t *testing.T) {
	tests := []struct {
		dir  string
		want []string
	}{
		{"seeds", []string{
			// The seeds' gateway inside the seeds' job: $tries = 6, the only layer.
			"HttpShippingGateway.php:28:19 POST laravel-http connect=2000ms/explicit read=none total=5000ms/explicit attempts=6 key=true ctx=job host= product=6",
		}},
		{"seeds_retry", []string{
			// The anti-pattern: retry(3) inside $tries = 6 — 18 requests for one shipment.
			"HttpShippingGateway.php:16:15 POST laravel-http connect=2000ms/explicit read=none total=5000ms/explicit attempts=3 key=false ctx=job host=shipping.example.test product=18",
		}},
		{"guzzle", []string{
			// A client built in the constructor: its options are the client's; the request's headers set the key.
			"StripeClient.php:30:31 POST guzzle connect=2000ms/client read=none total=5000ms/client attempts=- key=true ctx= host=api.stripe.test product=1",
			// Request options override the client's (RequestOptions::TIMEOUT read as 'timeout' below).
			"StripeClient.php:39:31 GET guzzle connect=2000ms/client read=none total=1500ms/explicit attempts=- key=false ctx= host=api.stripe.test product=1",
			"StripeClient.php:44:31 GET guzzle connect=2000ms/client read=none total=8000ms/explicit attempts=- key=false ctx= host=api.stripe.test product=1",
			// new Client(): no total bound; libcurl's built-in 300 s connect.
			"StripeClient.php:54:25 GET guzzle connect=300000ms/default read=none total=none attempts=- key=false ctx= host=hooks.example.test product=1",
			// A timeout in the wrong array (Guzzle 5's 'defaults', then 'headers'): no bound.
			"StripeClient.php:61:15 GET guzzle connect=300000ms/default read=none total=none attempts=- key=false ctx= host=old.example.test product=1",
			"StripeClient.php:65:15 POST guzzle connect=300000ms/default read=none total=none attempts=- key=false ctx= host=hdr.example.test product=1",
			// 5000 given to a seconds option: read as Guzzle reads it (5000 s), with a note.
			"StripeClient.php:72:21 DELETE guzzle connect=3000ms/explicit read=none total=5000000ms/explicit attempts=- key=false ctx= host=ms.example.test product=1",
			// read_timeout: nothing under curl, the bound under the stream handler.
			"StripeClient.php:78:16 GET guzzle connect=300000ms/default read=none total=30000ms/explicit attempts=- key=false ctx= host=curl.example.test product=1",
			"StripeClient.php:81:18 GET guzzle connect=300000ms/default read=10000ms/explicit total=30000ms/explicit attempts=- key=false ctx= host=stream.example.test product=1",
			// A ClientInterface injected by the container: not followed.
			"StripeClient.php:96:33 GET guzzle connect=unresolved read=unresolved total=unresolved attempts=- key=? ctx= host= product=1",
			// Middleware::retry with $retries >= MAX_RETRIES (2): 3 attempts; a decider that is code: unresolved.
			"StripeClient.php:109:25 POST guzzle connect=1000ms/explicit read=none total=10000ms/explicit attempts=3 key=false ctx= host=retry.example.test product=3",
			"StripeClient.php:117:25 GET guzzle connect=300000ms/default read=none total=10000ms/explicit attempts=0 key=false ctx= host=retry.example.test product=0",
			"StripeClient.php:133:26 GET guzzle connect=unresolved read=unresolved total=unresolved attempts=- key=? ctx= host= product=1",
		}},
		{"laravel", []string{
			// Laravel's defaults: 10 s connect, 30 s total; the host through a class constant.
			"GitHubService.php:16:22 GET laravel-http connect=10000ms/default read=none total=30000ms/default attempts=- key=false ctx= host=api.github.test product=1",
			// retry() with a $when callback: 3 attempts, classes the callback decides.
			"GitHubService.php:25:15 POST laravel-http connect=3000ms/explicit read=none total=10000ms/explicit attempts=3 key=true ctx= host=api.github.test product=3",
			"GitHubService.php:30:91 GET laravel-http connect=1000ms/explicit read=none total=4000ms/explicit attempts=- key=false ctx= host=api.github.test product=1",
			// A timeout from config(): unresolved, never guessed.
			"GitHubService.php:35:80 GET laravel-http connect=10000ms/default read=none total=unresolved attempts=- key=false ctx= host=api.github.test product=1",
			// retry([100, 200, 400]): three waits, four attempts.
			"GitHubService.php:41:46 PUT laravel-http connect=10000ms/default read=none total=30000ms/default attempts=4 key=false ctx= host=api.github.test product=4",
			// A wrapper method that returns the pending request, then a local variable, milliseconds, a macro.
			"GitHubService.php:46:33 PATCH laravel-http connect=10000ms/default read=none total=7000ms/client attempts=- key=false ctx= host=api.github.test product=1",
			"GitHubService.php:57:26 DELETE laravel-http connect=10000ms/default read=none total=3000ms/explicit attempts=- key=false ctx= host=api.github.test product=1",
			"GitHubService.php:62:37 GET laravel-http connect=10000ms/default read=none total=5000000ms/explicit attempts=- key=false ctx= host=api.github.test product=1",
			"GitHubService.php:67:32 GET laravel-http connect=2000ms/client read=none total=12000ms/client attempts=- key=false ctx= host=api.github.test product=1",
			// Http::get(…)->collect()->get(…): one call, the second get is a collection's.
			"GitHubService.php:75:22 GET laravel-http connect=10000ms/default read=none total=30000ms/default attempts=- key=false ctx= host=api.github.test product=1",
		}},
		{"laravel_global", []string{
			// Http::globalOptions in a service provider of the package; a controller is a request context, reached through its private method too.
			"QuoteController.php:19:34 GET laravel-http connect=4000ms/client read=none total=2000ms/explicit attempts=- key=false ctx=request host=rates.example.test product=1",
			"QuoteController.php:24:22 GET laravel-http connect=4000ms/client read=none total=15000ms/client attempts=- key=false ctx=request host=rates.example.test product=1",
		}},
		{"jobs", []string{
			// A job without $tries (the worker's --tries decides), reached through $this->push(); a class that is no job has no layer.
			"Jobs.php:23:27 POST laravel-http connect=10000ms/default read=none total=8000ms/explicit attempts=0 key=false ctx=job host=inventory.example.test product=0",
			"Jobs.php:75:27 POST laravel-http connect=10000ms/default read=none total=2000ms/explicit attempts=- key=false ctx= host=reports.example.test product=1",
			// A gateway reached from a job through a typed constructor property (retryUntil(): attempts by time) and a handle() parameter ($tries = 4).
			"PaymentGateway.php:18:29 POST guzzle connect=2000ms/client read=none total=10000ms/client attempts=0 key=false ctx=job host=pay.example.test product=0",
			"PaymentGateway.php:23:29 POST guzzle connect=2000ms/client read=none total=10000ms/client attempts=4 key=false ctx=job host=pay.example.test product=4",
			// $maxExceptions = 2 under $tries = 25: a failure that throws is attempted twice.
			"PaymentGateway.php:28:29 POST guzzle connect=2000ms/client read=none total=10000ms/client attempts=2 key=true ctx=job host=pay.example.test product=2",
		}},
		{"wrappers", []string{
			// A wrapper that reassigns its pending request ($r = $r->withOptions($extra)) and returns
			// one of two (COND ? A : B): Laravel's, with options computed, so unresolved.
			"Wrappers.php:16:34 GET laravel-http connect=unresolved read=unresolved total=unresolved attempts=- key=? ctx= host= product=1",
			"Wrappers.php:21:52 POST laravel-http connect=unresolved read=unresolved total=unresolved attempts=- key=? ctx= host= product=1",
			// A factory method of a typed property; PSR-18 sendRequest(new Request('GET', …)).
			"Wrappers.php:53:25 GET guzzle connect=1000ms/client read=none total=5000ms/client attempts=- key=? ctx= host=avatars.example.test product=1",
			// 'curl' options may carry any header: the key is not visible.
			"Wrappers.php:59:38 POST guzzle connect=1000ms/client read=none total=5000ms/client attempts=- key=? ctx= host= product=1",
			// Http::pool: each of the pool's requests, typed by the closure's parameter.
			"Wrappers.php:69:42 GET laravel-http connect=10000ms/default read=none total=3000ms/explicit attempts=- key=false ctx= host=eu.prices.example.test product=1",
			"Wrappers.php:70:20 GET laravel-http connect=10000ms/default read=none total=30000ms/default attempts=- key=false ctx= host=us.prices.example.test product=1",
			// Reassigned over several statements and through a method (monica's DavClient): followed.
			"Wrappers.php:96:26 PROPFIND laravel-http connect=10000ms/default read=none total=15000ms/explicit attempts=- key=false ctx= host= product=1",
		}},
		{"dynamic", []string{
			// A job's webhook on a client without options, its verb a variable: the method unknown ("?"), $tries = 5 the layer.
			"WebhookJob.php:27:30 ? guzzle connect=300000ms/default read=none total=none attempts=5 key=false ctx=job host= product=5",
			// A Laravel chain ending in ->{$method}(…): its timeout(), connectTimeout() and retry(3) hold.
			"CloudService.php:31:15 ? laravel-http connect=10000ms/explicit read=none total=30000ms/explicit attempts=3 key=false ctx= host= product=3",
			// ->$verb(…): Laravel's default connect under timeout(30); the URL's host read as for any verb.
			"CloudService.php:42:15 ? laravel-http connect=10000ms/default read=none total=30000ms/explicit attempts=3 key=false ctx= host=hooks.cloud.example.test product=3",
			// $client->{$verb}(…) on new Client(['headers' => $headers]): Guzzle's defaults, the key not visible.
			"CloudService.php:51:25 ? guzzle connect=300000ms/default read=none total=none attempts=- key=? ctx= host= product=1",
			// $client->$method($url, ['timeout' => 4]) on new \GuzzleHttp\Client(['connect_timeout' => 2]): the options are still read.
			"CloudService.php:61:25 ? guzzle connect=2000ms/explicit read=none total=4000ms/explicit attempts=- key=false ctx= host= product=1",
			// Of notCalls(), only Http::get: a dynamic method on a repository, on $this, on a model or on a response is no call.
			"CloudService.php:70:27 GET laravel-http connect=10000ms/default read=none total=30000ms/default attempts=- key=false ctx= host=api.cloud.example.test product=1",
		}},
		{"container", []string{
			// A job's handle(GuzzleHttp\Client as Guzzle): built by the container, no binding, so new Client().
			"SyncJob.php:15:18 POST guzzle connect=300000ms/default read=none total=none attempts=2 key=false ctx=job host=sync.example.test product=2",
			// A promoted constructor property typed Client: the same.
			"VersionService.php:21:36 GET guzzle connect=300000ms/default read=none total=none attempts=- key=false ctx= host=cdn.example.test product=1",
			// ClientInterface needs a binding to be built; an ordinary method's parameter is the caller's: both unresolved.
			"VersionService.php:29:28 GET guzzle connect=unresolved read=unresolved total=unresolved attempts=- key=? ctx= host=cdn.example.test product=1",
			"VersionService.php:35:24 GET guzzle connect=unresolved read=unresolved total=unresolved attempts=- key=? ctx= host=cdn.example.test product=1",
			// A constructor parameter assigned to a declared property: built by the container.
			"VersionService.php:51:29 POST guzzle connect=300000ms/default read=none total=none attempts=- key=false ctx= host=status.example.test product=1",
			// A class the package builds with new: its client is the one passed there, not followed.
			"VersionService.php:64:31 GET guzzle connect=unresolved read=unresolved total=unresolved attempts=- key=? ctx= host=hand.example.test product=1",
		}},
		{"container_bound", []string{
			// A singleton binding whose closure returns a literal new Client([...]): followed.
			"VersionService.php:16:31 GET guzzle connect=2000ms/client read=none total=5000ms/client attempts=- key=false ctx= host=cdn.example.test product=1",
		}},
		{"container_bound_code", []string{
			// A binding to code ($app->make(…)->build(…)): unresolved, never new Client().
			"VersionService.php:16:31 GET guzzle connect=unresolved read=unresolved total=unresolved attempts=- key=? ctx= host=cdn.example.test product=1",
		}},
		{"lexing", []string{
			"Lexing.php:37:28 GET laravel-http connect=10000ms/default read=none total=1000ms/explicit attempts=- key=false ctx= host=after.example.test product=1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			var got []string
			for _, c := range readPHPDir(t, tt.dir) {
				got = append(got, phpSummary(c))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPHPSeeds: the done-when — the seeds' job gives 6 attempts from source alone, and
// its anti-pattern (the gateway's Http::retry(3) inside $tries = 6) 18, with the layers
// outermost first: the job, then laravel-http.
func TestPHPSeeds(t *testing.T) {
	seeds := readPHPDir(t, "seeds")
	if len(seeds) != 1 {
		t.Fatalf("seeds: %d calls, want the gateway's one", len(seeds))
	}
	c := seeds[0]
	if c.Attempts() != 6 || c.Retry == nil || c.Retry.Layer != layerJob || len(c.Layers) != 0 {
		t.Errorf("seeds: attempts %d, retry %+v, layers %+v; want 6 from the job alone", c.Attempts(), c.Retry, c.Layers)
	}
	job := c.Retry
	if want := []int64{10000, 30000, 90000, 270000, 600000}; job.Backoff == nil || !cmp.Equal(job.Backoff.ScheduleMS, want) {
		t.Errorf("job backoff() = %+v, want the schedule %v", job.Backoff, want)
	}
	// The seeds spread each wait by random_int(0, intdiv($seconds, 4)): proportional, f = 1/4.
	if b := job.Backoff; b == nil || b.Jitter != "proportional" || b.JitterFactor == nil || *b.JitterFactor != 0.25 {
		t.Errorf("job backoff() jitter = %+v, want proportional with factor 0.25 (the seeds' random_int)", b)
	}
	if job.TimeoutMS == nil || *job.TimeoutMS != 20000 || job.DeadlineMS != nil {
		t.Errorf("job $timeout = %v, deadline %v; want 20000 ms and none", job.TimeoutMS, job.DeadlineMS)
	}
	if !strings.HasSuffix(job.File, "RequestShipmentJob.php") || job.Line != 19 {
		t.Errorf("job layer set at %s:%d, want RequestShipmentJob.php:19 ($tries)", job.File, job.Line)
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "random_int") {
		t.Errorf("backoff()'s jitter carries no note: %q", c.Notes)
	}

	anti := readPHPDir(t, "seeds_retry")
	if len(anti) != 1 {
		t.Fatalf("seeds_retry: %d calls, want 1", len(anti))
	}
	c = anti[0]
	if c.Attempts() != 18 {
		t.Errorf("anti-pattern: attempts %d, want 18 (6 × 3)", c.Attempts())
	}
	var layers []string
	for _, l := range c.Layers {
		layers = append(layers, fmt.Sprintf("%s×%d", l.Layer, l.MaxAttempts))
	}
	if want := []string{"laravel-job×6", "laravel-http×3"}; !cmp.Equal(layers, want) {
		t.Errorf("layers %v, want %v (outermost first)", layers, want)
	}
	if c.Retry == nil || c.Retry.Layer != libLaravel || c.Retry.Line != 15 || !cmp.Equal(c.Retry.Backoff.ScheduleMS, []int64{100}) {
		t.Errorf("innermost layer %+v, want laravel-http at line 15 with a 100 ms wait", c.Retry)
	}
	if !cmp.Equal(c.Retry.On, []string{"connect", "timeout", "reset", "4xx", "429", "5xx"}) {
		t.Errorf("retry() without $when retries %v; upstream retries every failure, 4xx included", c.Retry.On)
	}
}

// TestPHPJobLayers: $tries absent, retryUntil() over $tries, $backoff as a list and a number,
// $timeout.
func TestPHPJobLayers(t *testing.T) {
	calls := readPHPDir(t, "jobs")
	byLine := map[string]*Retry{}
	for i := range calls {
		byLine[fmt.Sprintf("%s:%d", filepath.Base(calls[i].File), calls[i].Line)] = calls[i].Retry
	}
	sync := byLine["Jobs.php:23"]
	if sync == nil || sync.Layer != layerJob || sync.MaxAttempts != 0 || !strings.Contains(sync.Unresolved, "--tries") {
		t.Errorf("a job without $tries: %+v, want unresolved naming the worker's --tries", sync)
	}
	charge := byLine["PaymentGateway.php:18"]
	if charge == nil || charge.MaxAttempts != 0 || !strings.Contains(charge.Unresolved, "retryUntil") {
		t.Fatalf("retryUntil(): %+v, want attempts unresolved by time", charge)
	}
	if charge.DeadlineMS == nil || *charge.DeadlineMS != 600000 {
		t.Errorf("retryUntil() now()->addMinutes(10): deadline %v, want 600000 ms", charge.DeadlineMS)
	}
	if charge.TimeoutMS == nil || *charge.TimeoutMS != 120000 || charge.Backoff == nil || !cmp.Equal(charge.Backoff.ScheduleMS, []int64{1000, 5000, 10000}) {
		t.Errorf("$timeout/$backoff: %v %+v, want 120000 ms and [1000 5000 10000]", charge.TimeoutMS, charge.Backoff)
	}
	invoice := byLine["PaymentGateway.php:23"]
	if invoice == nil || invoice.MaxAttempts != 4 || invoice.Backoff == nil || !cmp.Equal(invoice.Backoff.ScheduleMS, []int64{30000}) {
		t.Errorf("$tries = 4, $backoff = 30: %+v", invoice)
	}
	if r := byLine["Jobs.php:75"]; r != nil {
		t.Errorf("a class that is no job has a layer: %+v", r)
	}
}

// TestPHPNotes: a value that is not what it seems says so — a timeout in the wrong array,
// milliseconds given to seconds, read_timeout under curl, a decider that is code.
func TestPHPNotes(t *testing.T) {
	notes := map[string]string{}
	for _, c := range append(readPHPDir(t, "guzzle"), readPHPDir(t, "laravel")...) {
		notes[fmt.Sprintf("%s:%d", filepath.Base(c.File), c.Line)] = strings.Join(c.Notes, "\n")
		if c.Retry != nil && c.Retry.MaxAttempts == 0 && c.Retry.Unresolved == "" {
			t.Errorf("%s: a layer with no count says not why", c.Where())
		}
	}
	for where, want := range map[string]string{
		"StripeClient.php:61":  "'defaults'",
		"StripeClient.php:65":  "inside 'headers'",
		"StripeClient.php:72":  "5000 s",
		"StripeClient.php:78":  "stream handler only",
		"StripeClient.php:96":  "passed in",
		"GitHubService.php:35": "config('services.github.timeout')",
		"GitHubService.php:62": "milliseconds",
	} {
		if !strings.Contains(notes[where], want) {
			t.Errorf("%s: notes %q, want one saying %q", where, notes[where], want)
		}
	}
}

// TestPHPContainerNotes: a client the container builds says how — no binding, the binding
// followed (with its file:line), or the binding that is code; a dynamic verb says the method
// is unknown.
func TestPHPContainerNotes(t *testing.T) {
	tests := []struct {
		dir, where, want string
	}{
		{"container", "VersionService.php:21", "built by the container: no binding of GuzzleHttp\\Client in the files read"},
		{"container", "SyncJob.php:15", "built by the container: no binding of GuzzleHttp\\Client in the files read"},
		{"container", "VersionService.php:64", "the package builds BuiltByHand with new"},
		{"container_bound", "VersionService.php:16", "from the binding at " + filepath.Join("testdata", "php", "container_bound", "app", "Providers", "AppServiceProvider.php") + ":12"},
		{"container_bound_code", "VersionService.php:16", "AppServiceProvider.php:11, which is code the reader does not follow"},
		{"dynamic", "CloudService.php:31", "the request method is a variable ({$method}): unknown"},
		{"dynamic", "CloudService.php:61", "the request method is a variable ($method): unknown"},
	}
	for _, tt := range tests {
		found := false
		for _, c := range readPHPDir(t, tt.dir) {
			if fmt.Sprintf("%s:%d", filepath.Base(c.File), c.Line) != tt.where {
				continue
			}
			found = true
			if c.Method != "" && strings.HasPrefix(tt.dir, "dynamic") {
				t.Errorf("%s: method %q, want unknown", tt.where, c.Method)
			}
			if notes := strings.Join(c.Notes, "\n"); !strings.Contains(notes, tt.want) {
				t.Errorf("%s/%s: notes %q, want one saying %q", tt.dir, tt.where, notes, tt.want)
			}
		}
		if !found {
			t.Errorf("%s/%s: no call", tt.dir, tt.where)
		}
	}
}

// TestPHPLexErrors: what the lexer cannot read is an *Error at its line and column.
func TestPHPLexErrors(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"<?php\n$a = 'open;\n", 2, 6, "never closed"},
		{"<?php\n$a = \"x {$b['k'] \";\n", 2, 6, "never closed"},
		{"<?php\nfoo(1, [2);\n", 2, 10, "does not close"},
		{"<?php\nfunction f() {\n  return 1;\n", 2, 14, "never closed"},
		{"<?php\n}\n", 2, 1, "closes nothing"},
		{"<?php\n/* open\n", 2, 1, "comment"},
		{"<?php\n$h = <<<EOT\n  body\n", 2, 6, "heredoc"},
	}
	for _, tt := range tests {
		_, err := PHP.Read([]Input{{Path: "bad.php", Data: []byte(tt.src)}})
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%q: err %v, want an *Error", tt.src, err)
			continue
		}
		if se.File != "bad.php" || se.Line != tt.line || se.Col != tt.col || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("%q: %v, want bad.php:%d:%d … %s", tt.src, se, tt.line, tt.col, tt.msg)
		}
	}
}

// TestPHPLeftOut: tests, Laravel's caches and compiled views are left out of a walk, the
// application's code is read.
func TestPHPLeftOut(t *testing.T) {
	for rel, out := range map[string]bool{
		"app/Services/Stripe.php":             false,
		"app/Http/Controllers/Quote.php":      false,
		"tests/Feature/QuoteTest.php":         true,
		"app/Services/StripeTest.php":         true,
		"packages/x/tests/Helpers.php":        true,
		"storage/framework/views/abc.php":     true,
		"bootstrap/cache/config.php":          true,
		"bootstrap/app.php":                   false,
		"app/Services/Testing/Fake.php":       false,
		"database/seeders/DatabaseSeeder.php": false,
	} {
		if got := PHP.Test(rel) != ""; got != out {
			t.Errorf("Test(%q) left out = %v, want %v", rel, got, out)
		}
	}
}

// TestPHPPackage: a file's package is its nearest project (composer.json), else its directory.
func TestPHPPackage(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"app/Jobs", "app/Services", "loose"} {
		if err := os.MkdirAll(filepath.Join(root, "proj", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "plain"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "proj", "composer.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	for path, want := range map[string]string{
		filepath.Join(proj, "app/Jobs/A.php"):     proj,
		filepath.Join(proj, "app/Services/B.php"): proj,
		filepath.Join(root, "plain/C.php"):        filepath.Join(root, "plain"),
	} {
		if got := PHP.Package(path); got != want {
			t.Errorf("Package(%s) = %s, want %s", path, got, want)
		}
	}
}

// FuzzPHPSource: the lexer and the reader never panic and always end, on any input.
func FuzzPHPSource(f *testing.F) {
	for _, dir := range []string{"seeds_retry/app/Services", "guzzle", "laravel", "jobs", "lexing", "dynamic/app/Services", "container/app/Services", "container_bound/app/Providers"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "php", dir, "*.php"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("<?php $a = \"{$b[\"c\"]}\"; <<<'X'\nX;\n#[A] ?><?= Http::get('x') ?>"))
	// A class built with new whose constructor takes a Client spelled in another case (found by the fuzzer).
	f.Add([]byte("<?use GuZZleHttp\\Client ;ClAss BuiltBYHAnd{funCtion __ConstruCt(Client$client){$client->$A0()new BuiltBYHAnd}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, &PHP, []Input{{Path: "f.php", Data: data}})
	})
}

// phpBenchClass is one generated class: a job, a gateway with a constructor-built Guzzle
// client, Laravel chains, strings and comments of every form (20 classes ≈ 1,100 lines).
const phpBenchClass = `
final class Gateway%[1]d implements ShippingGateway
{
    private const BASE = 'https://api%[1]d.example.test';
    private Client $client;

    public function __construct(private Factory $http)
    {
        $this->client = new Client(['base_uri' => self::BASE, 'timeout' => 5, 'connect_timeout' => 2]);
    }

    /** A docblock with Http::get('x') in it. */
    public function requestShipment(OrderId $orderId, string $key): void
    {
        // a comment
        $response = $this->http->withHeaders(['Idempotency-Key' => $key])->timeout(5)->post('/s', ['id' => $orderId->value]);
        $this->client->request('POST', '/charges', ['headers' => ['Idempotency-Key' => $key]]);
        $text = "order {$orderId->value} at ${key}";
        $doc = <<<EOT
            heredoc %[1]d {$key}
            EOT;
        if ($response->status() === 429) {
            throw new ShippingRateLimited((int) $response->header('Retry-After'));
        }
        Http::retry(3, 100)->get(self::BASE . '/status');
    }
}

final class Job%[1]d implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public int $tries = 6;
    public int $timeout = 20;

    public function backoff(): array
    {
        return [10, 30, 90];
    }

    #[WithoutRelations]
    public function handle(ShippingGateway $shipping): void
    {
        $shipping->requestShipment(new OrderId('%[1]d'), "shipment:%[1]d");
        $items = collect([1, 2, 3])->map(fn ($i) => $i * 2)->get(0);
    }
}
`

// BenchmarkReadPHP reads one generated package of ≥ 20,000 lines (issue 28: ≥ 20,000 lines/s
// on two cores); it reports lines/s.
func BenchmarkReadPHP(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<?php\n\nnamespace App;\n\nuse GuzzleHttp\\Client;\nuse Illuminate\\Support\\Facades\\Http;\nuse Illuminate\\Http\\Client\\Factory;\n")
	for i := 0; strings.Count(sb.String(), "\n") < 20000; i++ {
		fmt.Fprintf(&sb, phpBenchClass, i)
	}
	data := []byte(sb.String())
	lines := strings.Count(sb.String(), "\n")
	in := []Input{{Path: "bench.php", Data: data}}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		calls, err := PHP.Read(in)
		if err != nil || len(calls) == 0 {
			b.Fatalf("%d calls, %v", len(calls), err)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
