// Package source reads program source code for the outbound HTTP calls it makes: where each
// call is, the library it goes through, its effective connect, read and total timeouts with
// where each comes from, and the retry layer around it (issue 28, docs/formats.md "Source code
// (Go)"). It computes no judgement: check applies its rules to the calls, report renders them.
//
// It is a noun folder of its own (STYLE.md: one noun per folder): a call site is neither a
// check file nor a config, and the readers here — one per language, each a value in
// Languages — share nothing with check's YAML loaders. It imports only the standard library,
// so every release target builds it without cgo.
package source

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Origin says where a call's timeout comes from (issue 28 item 5).
type Origin string

// Origins of a timeout.
const (
	// OriginExplicit is set at the call: its arguments, a client or context built in the same
	// function.
	OriginExplicit Origin = "explicit"
	// OriginClient is set where the client the call uses is built elsewhere in the package (a
	// package variable, a constructor, a struct field).
	OriginClient Origin = "client"
	// OriginDefault is the library's own value, which the code leaves as it is.
	OriginDefault Origin = "default"
	// OriginNone is no bound at all: the call may wait forever.
	OriginNone Origin = "none"
	// OriginUnresolved is a value the code computes at run time (or takes from a caller): not
	// guessed.
	OriginUnresolved Origin = "unresolved"
)

// Timeouts are a call's effective bounds in milliseconds; nil when the bound does not exist
// or is not known (Origins says which).
type Timeouts struct {
	ConnectMS *int64 `json:"connect_ms"`
	ReadMS    *int64 `json:"read_ms"`
	TotalMS   *int64 `json:"total_ms"`
}

// Origins say where each of Timeouts comes from.
type Origins struct {
	Connect Origin `json:"connect"`
	Read    Origin `json:"read"`
	Total   Origin `json:"total"`
}

// Retry is one retry layer the code puts around a call: a client's own retries
// (go-retryablehttp, urllib3 Retry on an adapter, axios-retry, Laravel ->retry(), Guzzle
// retry middleware), a decorator on the function that makes the call (tenacity, backoff), or
// the queue job that runs it (Laravel $tries: the job is a layer of its own, as in check
// files).
type Retry struct {
	// Layer names the library or construct that retries ("go-retryablehttp", "tenacity",
	// "laravel-http", "laravel-job").
	Layer string `json:"layer"`
	// MaxAttempts counts the first attempt: go-retryablehttp's RetryMax + 1, Laravel's
	// retry(3) = 3, a job's $tries = 6. 0 when the count is not static (Unresolved says why).
	MaxAttempts int `json:"max_attempts"`
	// On are the failure classes retried, in patience.yaml's words (policy.retry.on); nil
	// when the code sets its own retry policy, which is not read.
	On []string `json:"on"`
	// File and Line are where the layer is set (the decorator, the retry(...) call, the
	// job's $tries); empty when it is the call's own client built at the call.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Backoff is the wait between attempts where the code says it; nil when it does not.
	Backoff *Backoff `json:"backoff,omitempty"`
	// TimeoutMS is the layer's own bound on each attempt where it has one (a Laravel job's
	// $timeout); DeadlineMS its bound on all attempts together (tenacity stop_after_delay,
	// a job's retryUntil() when it is a literal interval).
	TimeoutMS  *int64 `json:"timeout_ms,omitempty"`
	DeadlineMS *int64 `json:"deadline_ms,omitempty"`
	// Unresolved says why MaxAttempts (or the classes) could not be read statically.
	Unresolved string `json:"unresolved,omitempty"`
}

// Backoff is a retry layer's wait between attempts as the code writes it.
type Backoff struct {
	// ScheduleMS is an explicit list of waits (Laravel $backoff = [1, 5, 10], retry(3, [100,
	// 200])); a single fixed wait is a list of one.
	ScheduleMS []int64 `json:"schedule_ms,omitempty"`
	// InitialMS, MaxMS and Multiplier describe an exponential schedule.
	InitialMS  *int64   `json:"initial_ms,omitempty"`
	MaxMS      *int64   `json:"max_ms,omitempty"`
	Multiplier *float64 `json:"multiplier,omitempty"`
	// Jitter is "none", "full", "equal", "decorrelated", "proportional" (each wait d becomes
	// d + U[0, JitterFactor·d]: the seeds' backoff() adding random_int(0, intdiv($s, 4))),
	// "randomized" (U[d·(1−f), d·(1+f)], f = JitterFactor: failsafe-go's WithJitterFactor) or
	// "" when the code does not say.
	Jitter string `json:"jitter,omitempty"`
	// JitterFactor is proportional jitter's f where the code writes it; nil otherwise.
	JitterFactor *float64 `json:"jitter_factor,omitempty"`
}

// Call is one outbound HTTP call site (issue 28 item 5).
type Call struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	Language string `json:"language"`
	Library  string `json:"library"`
	// Method is the request method when the code gives it as a literal; "" otherwise.
	Method   string   `json:"method,omitempty"`
	Timeouts Timeouts `json:"timeouts"`
	Origin   Origins  `json:"timeout_origin"`
	// ReadHeadOnly says the read bound ends at the response head (Go's
	// Transport.ResponseHeaderTimeout): the body's silences have no bound. Otherwise a read
	// bound bounds every silence of the response (requests' and httpx's read, axios's
	// timeout in Node, undici's headersTimeout and bodyTimeout).
	ReadHeadOnly bool `json:"read_head_only,omitempty"`
	// Retry is the innermost retry layer (the call's own client's), or the only one; nil
	// when no layer retries the call.
	Retry *Retry `json:"retry"`
	// Layers are every retry layer around the call, outermost first (a Laravel job, then
	// its Http::retry()); each layer multiplies the attempts of the ones inside it. Empty when
	// there is at most Retry.
	Layers []Retry `json:"layers,omitempty"`
	// Host is the URL's host when the code gives it as a literal (or a constant that resolves
	// to one): the join with the configs that route that host (issue 28 item 4) reads it.
	Host string `json:"host,omitempty"`
	// Context is where the call runs when the code makes it recognisable: "job" (a queue
	// job's handle), "request" (an interactive controller, a request handler); "" unknown.
	Context string `json:"context,omitempty"`
	// IdempotencyKey says whether the request sets a literal Idempotency-Key header; nil
	// when the request is built where the reader cannot see.
	IdempotencyKey *bool `json:"idempotency_key"`
	// Dependency names the check file's dependency the call is joined to (issue 28 item 4);
	// "" until that join exists.
	Dependency string `json:"dependency,omitempty"`
	// Notes say what a number means where it is not what its name suggests
	// (ResponseHeaderTimeout bounds the head only) and why a value is unresolved.
	Notes []string `json:"notes,omitempty"`
}

// Bound is one timeout of a call before it is put in milliseconds: D is 0 unless Origin is
// explicit, client or default.
type Bound struct {
	D      time.Duration
	Origin Origin
}

// The bounds every reader writes when the code sets none, or one it cannot read.
var (
	noBound         = Bound{Origin: OriginNone}
	unresolvedBound = Bound{Origin: OriginUnresolved}
)

// SilenceBounded says whether a silent peer is bounded: a total bound, or a read bound on
// every silence of the response. A read bound that ends at the head leaves the body's
// silences unbounded. A total or read that is unresolved is not known either way.
func (c *Call) SilenceBounded() (bounded, known bool) {
	switch {
	case c.Origin.Total != OriginNone:
		return c.Origin.Total != OriginUnresolved, c.Origin.Total != OriginUnresolved
	case c.Timeouts.ReadMS != nil && !c.ReadHeadOnly:
		return true, true
	case c.Origin.Read == OriginUnresolved:
		return false, false
	}
	return false, true
}

// tighter is the smaller of two bounds on one wait; a known bound wins over an unknown one
// (the wait is at most it), and none only when both are none.
func tighter(a, b Bound) Bound {
	switch {
	case a.known() && b.known():
		if b.D < a.D {
			return b
		}
		return a
	case a.known():
		return a
	case b.known():
		return b
	case a.Origin == OriginUnresolved || b.Origin == OriginUnresolved:
		return unresolvedBound
	}
	return noBound
}

// sortCalls orders calls by file, line and column.
func sortCalls(calls []Call) {
	sort.SliceStable(calls, func(i, j int) bool {
		a, b := calls[i], calls[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// known says whether the bound has a value.
func (b Bound) known() bool {
	switch b.Origin {
	case OriginExplicit, OriginClient, OriginDefault:
		return true
	}
	return false
}

// ms is the bound in milliseconds, nil when there is none or it is unknown.
func (b Bound) ms() *int64 {
	if !b.known() {
		return nil
	}
	v := b.D.Milliseconds()
	return &v
}

// set writes connect, read and total into the call.
func (c *Call) set(connect, read, total Bound) {
	c.Timeouts = Timeouts{ConnectMS: connect.ms(), ReadMS: read.ms(), TotalMS: total.ms()}
	c.Origin = Origins{Connect: connect.Origin, Read: read.Origin, Total: total.Origin}
}

// Where is FILE:LINE:COL.
func (c *Call) Where() string { return fmt.Sprintf("%s:%d:%d", c.File, c.Line, c.Col) }

// Input is one source file's path and content.
type Input struct {
	Path string
	Data []byte
}

// Language is one language check reads: a value in Languages, so another language is a row
// added there (issue 28: Python, JS/TS and PHP come next).
type Language struct {
	// Name is the language in Call.Language ("go").
	Name string
	// Extensions are the file name endings a walk reads, lower case with the dot.
	Extensions []string
	// Comments are the line-comment markers `patience:ignore` may follow.
	Comments []string
	// Test says why a file of the language found in a walk is left out ("" = read), by its
	// path relative to the directory walked: a test file's servers and clients are no
	// outbound calls.
	Test func(rel string) string
	// Built says why a file of the language found in a walk is left out by its content (""
	// = read; nil reads all): build output such as a minified bundle, whose name does not
	// say so. A file named on the command line is read.
	Built func(data []byte) string
	// Package says which files are read together (one Go package: a directory); a call's
	// client may be built in another file of its package.
	Package func(path string) string
	// Read returns the calls of one package's files, or an *Error where one does not parse.
	Read func(files []Input) ([]Call, error)
	// Libraries are the HTTP libraries the language's reader knows, with how each sets a
	// timeout: check's PT001 names the fix in the call's own library's words.
	Libraries []Library
}

// Library is one HTTP client library a reader recognises.
type Library struct {
	// Name is the library in Call.Library ("requests", "axios").
	Name string
	// Fix says how a call through the library gets a total bound, in its own API's words
	// ("pass timeout=(3.05, 10) to every call, or mount it on the Session through a
	// wrapper"): PT001's fix for a call through it.
	Fix string
	// Defaults says the library's own timeouts and where they are written upstream (the
	// README's defaults table is built from these).
	Defaults string
}

// LibraryOf is the Library a call went through, or nil when its reader lists none.
func LibraryOf(c *Call) *Library {
	for _, l := range Languages {
		if l.Name != c.Language {
			continue
		}
		for i := range l.Libraries {
			if l.Libraries[i].Name == c.Library {
				return &l.Libraries[i]
			}
		}
	}
	return nil
}

// Attempts is the product of the call's retry layers' attempts (Layers, else Retry): the
// calls one logical request can make. 0 when a layer's count is not static; 1 with no layer.
func (c *Call) Attempts() int {
	layers := c.Layers
	if len(layers) == 0 && c.Retry != nil {
		layers = []Retry{*c.Retry}
	}
	n := 1
	for _, l := range layers {
		if l.MaxAttempts <= 0 {
			return 0
		}
		n *= l.MaxAttempts
	}
	return n
}

// Languages are the languages check reads source code of.
var Languages = []*Language{&Go, &Python, &PHP, &JavaScript}

// ForPath is the language of the file at path by its extension, or nil.
func ForPath(path string) *Language {
	ext := strings.ToLower(filepath.Ext(path))
	for _, l := range Languages {
		for _, e := range l.Extensions {
			if e == ext {
				return l
			}
		}
	}
	return nil
}

// Error is a source file that cannot be read: one that does not parse.
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ruleIDs are the rule IDs of an ignore comment.
var ruleIDs = regexp.MustCompile(`PT\d{3}`)

// Ignores maps each line of data to the rules a `patience:ignore PT001` comment after one of
// markers suppresses on it, as check files do (check/load.go parseIgnores): a trailing
// comment covers its own line, a comment alone on its line the next one.
func Ignores(data []byte, markers []string) map[int]map[string]bool {
	out := map[int]map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		at := strings.Index(line, "patience:ignore")
		if at < 0 {
			continue
		}
		before := strings.TrimSpace(line[:at])
		marker := ""
		for _, m := range markers {
			if strings.HasSuffix(before, m) {
				marker = m
			}
		}
		if marker == "" {
			continue
		}
		target := i + 1
		if strings.TrimSpace(strings.TrimSuffix(before, marker)) == "" {
			target = i + 2
		}
		ids := ruleIDs.FindAllString(line[at:], -1)
		if len(ids) == 0 {
			continue
		}
		if out[target] == nil {
			out[target] = map[string]bool{}
		}
		for _, id := range ids {
			out[target][id] = true
		}
	}
	return out
}
