// Package emit writes a recommendation in a target's own knobs and idioms (issue 27 item 2):
// a complete program making the probed call in a client library (requests, httpx, aiohttp,
// axios, fetch, Guzzle, Laravel, Go, OkHttp), or a configuration file for a proxy or mesh
// (nginx, Envoy, Istio, Gateway API, Resilience4j, gRPC service config). Every knob written
// carries one comment saying what it bounds, and every bound the target cannot express is
// said plainly with the way to get it (Emission.Missing). It computes no advice: Input is
// profile.Recommend's recommendation, carried as it is; it reaches no network.
package emit

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/patience-dev/patience/policy"
	"github.com/patience-dev/patience/profile"
)

// Target names what a recommendation is emitted for; its text form, in --emit and JSON, is
// the string itself.
type Target string

// Code targets: a complete program in the client library.
const (
	Requests Target = "requests"
	HTTPX    Target = "httpx"
	AIOHTTP  Target = "aiohttp"
	Axios    Target = "axios"
	Fetch    Target = "fetch"
	Guzzle   Target = "guzzle"
	Laravel  Target = "laravel"
	Go       Target = "go"
	OkHttp   Target = "okhttp"
)

// Config targets: a configuration file for a proxy, a mesh or a resilience library.
const (
	Nginx        Target = "nginx"
	Envoy        Target = "envoy"
	Istio        Target = "istio"
	GatewayAPI   Target = "gateway-api"
	Resilience4j Target = "resilience4j"
	GRPC         Target = "grpc"
)

// Kind says whether a target's text is a program or a configuration file.
type Kind string

// Kinds of target.
const (
	KindCode   Kind = "code"
	KindConfig Kind = "config"
)

// Setting is one knob an emission sets: its name in the target's own words, the value as
// written, and what it bounds in plain words.
type Setting = profile.EmitSetting

// Emission is one target's text: what `--emit TARGET` prints and JSON's `emit[]` carries
// (profile.Emission, part of the patience/probe/v1 document).
type Emission = profile.Emission

// Input is what every target writes from: one call and the recommendation for it.
type Input struct {
	// URL and Method are the probed call (Method "" is GET).
	URL    string
	Method string
	// Name names the dependency in configuration files (upstream, cluster, route names):
	// a DNS-label-safe word ("api" when empty).
	Name string
	// Rec is profile.Recommend's recommendation for the caller, as probe, advise and
	// check --init print it: connect, read and total timeouts, attempts, the caller's
	// budget, the job design for a queue job, the retry budget when the load was measured.
	Rec profile.Recommendation
}

// Retry is the retry policy the recommendation assumes between attempts
// (profile.AssumedRetry: exponential, base 100 ms ×2, cap 10 s, full jitter) with the
// recommendation's attempts, and the Retry-After cap every target writes: a Retry-After is
// honoured while it fits in what is left of the caller's budget, never beyond it.
func (in Input) Retry() policy.Retry {
	r := profile.AssumedRetry()
	r.MaxAttempts = max(in.Rec.MaxAttempts, 1)
	r.RetryAfter = policy.RetryAfterHonor
	r.RetryAfterMax = in.Budget()
	return r
}

// RetriedStatuses are the statuses the emitted retries repeat: 502, 503 and 504 (the
// dependency or a proxy in front of it failed before or while serving), and 429 only with a
// Retry-After that fits the budget. A 500 is not retried: it is more often the request's
// fault than the dependency's state. Connect failures are retried for every method (nothing
// was sent); timeouts and resets only when RetryUnknown says so.
var RetriedStatuses = []int{502, 503, 504}

// MethodOrGet is the call's method, upper case, GET when none was given.
func (in Input) MethodOrGet() string {
	if in.Method == "" {
		return "GET"
	}
	return strings.ToUpper(in.Method)
}

// NameOrAPI is the dependency's name, "api" when none was given.
func (in Input) NameOrAPI() string {
	if in.Name == "" {
		return "api"
	}
	return in.Name
}

// RetryUnknown says whether a failure whose outcome is unknown (a timeout, a reset after
// the request was written) may be retried: an idempotent method, or one carrying an
// Idempotency-Key (docs/design.md §5, check's PT005).
func (in Input) RetryUnknown() bool {
	return policy.IdempotentMethod(in.MethodOrGet()) || in.Rec.Caller.IdempotencyKey
}

// SendsKey says whether the emitted call sends an Idempotency-Key header: a non-idempotent
// method the caller said carries one. The key is made once per logical call and sent
// unchanged on every attempt, so the server can tell a retry from a new request.
func (in Input) SendsKey() bool {
	return !policy.IdempotentMethod(in.MethodOrGet()) && in.Rec.Caller.IdempotencyKey
}

// Connect, Read and Timeout are the recommended timeouts (0: none recommended).
func (in Input) Connect() time.Duration { return msDuration(in.Rec.ConnectTimeoutMs) }

// Read is the recommended read timeout (0: none); for a streaming recommendation, the
// larger of its first-event and idle timeouts, which a per-read knob bounds together
// (profile.StreamAdvice.PerReadMs, emit/stream.go).
func (in Input) Read() time.Duration {
	if v := in.Rec.StreamAdvice.PerReadMs(); v > 0 {
		return msDuration(v)
	}
	if in.Rec.ReadTimeoutMs == nil {
		return 0
	}
	return msDuration(*in.Rec.ReadTimeoutMs)
}

// Timeout is the recommended per-attempt total timeout (0: none).
func (in Input) Timeout() time.Duration { return msDuration(in.Rec.TimeoutMs) }

// Budget is the caller's whole wait, retries and backoff included: an interactive caller's
// budget, the deadline every emitted program and config puts around the logical call (0 for
// a job, whose queue retries).
func (in Input) Budget() time.Duration {
	if in.Rec.Caller.Kind == profile.CallerJob {
		return 0
	}
	return msDuration(in.Rec.Caller.BudgetMs)
}

// Host is the URL's host (with port) and Scheme its scheme; Path its path and query.
func (in Input) Host() string   { return in.parsed().Host }
func (in Input) Scheme() string { return in.parsed().Scheme }

// Path is the URL's path and query ("/" when empty).
func (in Input) Path() string {
	u := in.parsed()
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return p
}

func (in Input) parsed() *url.URL {
	u, err := url.Parse(in.URL)
	if err != nil {
		return &url.URL{}
	}
	return u
}

func msDuration(ms float64) time.Duration {
	if !(ms > 0) {
		return 0
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// writer is one target as a value: its name, kind, language and how it writes.
type writer struct {
	target   Target
	kind     Kind
	language string
	write    func(Input) (Emission, error)
}

// writers lists every target, code first, each defined in its own file.
var writers = []writer{
	requestsWriter, httpxWriter, aiohttpWriter, axiosWriter, fetchWriter, guzzleWriter,
	laravelWriter, goWriter, okhttpWriter,
	nginxWriter, envoyWriter, istioWriter, gatewayAPIWriter, resilience4jWriter, grpcWriter,
}

// Targets lists every target in the order of --help: code targets, then config targets.
func Targets() []Target {
	out := make([]Target, len(writers))
	for i, w := range writers {
		out[i] = w.target
	}
	return out
}

// TargetNames is Targets as strings, for flags and errors.
func TargetNames() []string {
	out := make([]string, len(writers))
	for i, w := range writers {
		out[i] = string(w.target)
	}
	return out
}

// KindOf is the target's kind ("" for an unknown target).
func KindOf(t Target) Kind {
	if w, ok := lookup(t); ok {
		return w.kind
	}
	return ""
}

// ParseTarget reads a target's name, as --emit takes it.
func ParseTarget(s string) (Target, error) {
	t := Target(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := lookup(t); ok {
		return t, nil
	}
	names := TargetNames()
	sort.Strings(names)
	return "", fmt.Errorf("unknown target %q (one of: %s)", s, strings.Join(names, ", "))
}

func lookup(t Target) (writer, bool) {
	for _, w := range writers {
		if w.target == t {
			return w, true
		}
	}
	return writer{}, false
}

// Emit writes the recommendation for one target. It fails when the recommendation has no
// total timeout to write (no good response was measured): an emitted file without one
// would be the unbounded wait patience exists to prevent.
func Emit(t Target, in Input) (Emission, error) {
	w, ok := lookup(t)
	if !ok {
		_, err := ParseTarget(string(t))
		return Emission{}, err
	}
	if in.Timeout() <= 0 {
		return Emission{}, fmt.Errorf("emit %s: the recommendation has no timeout to write (%s)", t, noTimeoutReason(in.Rec))
	}
	if w.write == nil {
		return Emission{}, fmt.Errorf("emit %s: not written yet", t)
	}
	e, err := w.write(in)
	if err != nil {
		return Emission{}, fmt.Errorf("emit %s: %w", t, err)
	}
	e.Target, e.Kind, e.Language = string(w.target), string(w.kind), w.language
	if e.Settings == nil {
		e.Settings = []Setting{}
	}
	e.Missing = append(e.Missing, streamMissing(t, in)...)
	if e.Missing == nil {
		e.Missing = []string{}
	}
	return e, nil
}

// noTimeoutReason is the recommendation's own verdict, which says why no timeout was derived.
func noTimeoutReason(r profile.Recommendation) string {
	if s := strings.TrimSpace(r.Verdict.Text()); s != "" {
		return s
	}
	return "no good response was measured"
}
