// Package advise turns latency data users already have — access logs (nginx, Apache, HAProxy,
// Envoy, Traefik, Caddy, IIS), load balancer and CDN logs (ALB, Cloudflare), HAR files,
// OpenTelemetry, Zipkin and Jaeger traces, Prometheus histograms, HdrHistogram logs, k6,
// vegeta and curl timings, and the same lines wrapped by a container runtime — into
// the same profile a probe measures (`patience/probe/v1`, HDR histograms per phase) and the
// same recommendation (profile.Recommend). The seeds: "ログにある所要時間の分布を見て、普段の遅い側
// （p99 など）より少し長くする" — read the distribution in the logs and set the timeout a
// little above its slow side.
//
// Inputs are streamed in one pass: memory is bounded by the histograms, never by the file.
// Every format's units and traps are those of docs/formats.md#patience-advise (cited per
// parser). Malformed lines are counted and sampled, never fatal; a fatal error names
// file:line.
package advise

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/patience-dev/patience/profile"
)

// Schema is the schema of an advise document: the probe schema (docs/design.md §3), so a saved
// advise profile is a probe profile.
const Schema = profile.Schema

// Format names an input format.
type Format string

// The formats advise reads, in the order docs/commands.md lists them.
const (
	FormatAuto       Format = "auto"
	FormatNginx      Format = "nginx"
	FormatALB        Format = "alb"
	FormatHAR        Format = "har"
	FormatOTLP       Format = "otlp"
	FormatPrometheus Format = "prometheus"
	FormatK6         Format = "k6"
	FormatVegeta     Format = "vegeta"
	FormatCurl       Format = "curl"
	FormatHAProxy    Format = "haproxy"
	FormatEnvoy      Format = "envoy"
	FormatCSV        Format = "csv"
	FormatProfile    Format = "profile"
	// FormatTraefik is Traefik's access log: its common log format (CLF ending in the
	// duration as "<n>ms") or its JSON format (Duration in ns).
	FormatTraefik Format = "traefik"
	// FormatCaddy is Caddy's JSON access log (duration in seconds by default).
	FormatCaddy Format = "caddy"
	// FormatApache is Apache's common or combined log format followed by %D (µs; --unit s
	// for %T).
	FormatApache Format = "apache"
	// FormatW3C is the W3C extended log format (IIS): #Fields: names the columns.
	FormatW3C Format = "w3c"
	// FormatCloudflare is Cloudflare's Logpush (or Logpull) http_requests JSON.
	FormatCloudflare Format = "cloudflare"
	// FormatZipkin is Zipkin v2 JSON spans (duration in µs).
	FormatZipkin Format = "zipkin"
	// FormatJaeger is Jaeger's JSON traces (/api/traces, the UI's download; µs).
	FormatJaeger Format = "jaeger"
	// FormatHlog is an HdrHistogram interval log (.hlog: jHiccup, HdrHistogram's
	// HistogramLogWriter).
	FormatHlog Format = "hlog"
)

// Formats lists every --format choice (auto first).
func Formats() []Format {
	return []Format{FormatAuto, FormatNginx, FormatALB, FormatHAR, FormatOTLP, FormatPrometheus, FormatK6,
		FormatVegeta, FormatCurl, FormatHAProxy, FormatEnvoy, FormatCSV, FormatProfile,
		FormatTraefik, FormatCaddy, FormatApache, FormatW3C, FormatCloudflare, FormatZipkin, FormatJaeger, FormatHlog}
}

// By names a grouping.
type By string

// Groupings: one recommendation per route template (method + path with ids as {id}), per
// host, per status class, or one for everything.
const (
	ByNone   By = "none"
	ByRoute  By = "route"
	ByHost   By = "host"
	ByStatus By = "status"
	// ByModel groups GenAI metrics by the model asked for (gen_ai.request.model, genai.go).
	ByModel By = "model"
)

// Bys lists the --by choices.
func Bys() []By { return []By{ByNone, ByRoute, ByHost, ByStatus, ByModel} }

// Options configure one advise run.
type Options struct {
	// Files are the inputs; "-" is standard input. A name ending in .gz is decompressed (and
	// a gzip stream is recognised by its magic bytes whatever its name).
	Files []string
	// Stdin is read for "-".
	Stdin  interface{ Read([]byte) (int, error) }
	Format Format
	// LogFormat is an nginx log_format string ('$remote_addr … $request_time'), a curl -w
	// string ('%{time_connect} %{time_total}\n'), or the path of an nginx.conf whose
	// log_format is used (path#name picks one by name).
	LogFormat string
	// NginxConf is an nginx.conf's log_format already read and compiled (ParseNginxConf):
	// `--log-format -#NAME` reads it from standard input once, before any log. It takes the
	// place of LogFormat, and says the logs are nginx's.
	NginxConf *NginxConf
	// Unit is the duration unit for sources that do not say (CSV columns without a unit,
	// Prometheus metrics without _seconds): s, ms, us or ns. "" : never guessed.
	Unit   string
	By     By
	Filter string
	Since  time.Time
	Until  time.Time
	// Window is the width of the per-window distribution (0: one hour).
	Window time.Duration
	// Top is the most groups reported (0: 20); the rest are folded into "(other)".
	Top int
	// Workers parse line formats in parallel (0: GOMAXPROCS).
	Workers int
	Advice  profile.RecommendParams
	// Progress, when set, is called now and then with the bytes read so far.
	Progress func(read int64)
}

// Result is an advise run: the probe result for every sample (embedded, so the document is
// the probe schema with `source`), the groups when --by asked for them, the per-window
// distribution and, for nginx, the attempts per request.
type Result struct {
	*profile.Profile
	// Groups are the --by groups, most samples first (absent for --by none).
	Groups []Group `json:"groups,omitempty"`
	// By is the grouping asked for.
	By By `json:"by"`
	// Windows is the good-response latency per time window, in time order.
	Windows []Window `json:"windows,omitempty"`
	// WindowMs is the width of a window.
	WindowMs float64 `json:"window_ms,omitempty"`
	// TailMoved lists the windows whose p99 is more than twice the median window p99.
	TailMoved []string `json:"tail_moved,omitempty"`
	// Attempts counts requests by the number of upstream attempts the proxy made for them
	// (nginx: comma-separated $upstream_* values, docs/formats.md#nginx-and-ingress-nginx): the
	// amplification the proxy really applied. Nil when the source does not show attempts.
	Attempts *Attempts `json:"attempts,omitempty"`
	// Buckets is the bracket of the quantiles for bucketed data (Prometheus).
	Buckets *Buckets `json:"buckets,omitempty"`
}

// Group is one --by group with its own recommendation.
type Group struct {
	Key     string           `json:"key"`
	Samples int64            `json:"samples"`
	Result  *profile.Profile `json:"result"`
	// Buckets are the group's own quantile brackets for bucketed data (Prometheus): each
	// quantile is known only to lie in its bucket, per group as for all of them
	// (Result.Buckets). Absent for other inputs, for --by status and for "(other)".
	Buckets []Bracket `json:"buckets,omitempty"`
}

// Window is one time window's distribution of good-response latency.
type Window struct {
	Start  time.Time `json:"start"`
	Count  int64     `json:"count"`
	Failed int64     `json:"failed"`
	P50Ms  *float64  `json:"p50_ms"`
	P99Ms  *float64  `json:"p99_ms"`
	MaxMs  *float64  `json:"max_ms"`
}

// Attempts is what the proxy's own retries did: requests by attempt count.
type Attempts struct {
	Requests int64 `json:"requests"`
	Attempts int64 `json:"attempts"`
	// PerRequest is attempts ÷ requests, the measured amplification.
	PerRequest float64 `json:"per_request"`
	// ByCount maps an attempt count ("1", "2", …) to the requests that took that many; "0"
	// counts the failed requests nginx answered without contacting an upstream.
	ByCount map[string]int64 `json:"by_count"`
	// Unanswered counts the attempts before a request's last that got no answer before the
	// proxy's own timeout (nginx: $upstream_status 504 with no header) and were passed to
	// the next upstream; UnansweredMaxMs is the longest of them (null when none). A request
	// whose last attempt went unanswered is in errors.timeout instead.
	Unanswered      int64    `json:"unanswered"`
	UnansweredMaxMs *float64 `json:"unanswered_max_ms"`
}

// ErrNoSamples is returned when the input held no latency sample at all.
var ErrNoSamples = errors.New("no latency samples")

// InputError is a fatal input problem at file:line (line 0: the file as a whole).
type InputError struct {
	File string
	Line int64
	Err  error
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *InputError) Unwrap() error { return e.Err }

// Run reads every input and builds the result.
func Run(ctx context.Context, o Options) (*Result, error) {
	if len(o.Files) == 0 {
		return nil, errors.New("no input: give one or more files, or - for standard input")
	}
	if o.Format == "" {
		o.Format = FormatAuto
	}
	if o.By == "" {
		o.By = ByNone
	}
	if o.Window <= 0 {
		o.Window = time.Hour
	}
	if o.Top <= 0 {
		o.Top = 20
	}
	var flt *Filter
	if o.Filter != "" {
		var err error
		if flt, err = ParseFilter(o.Filter); err != nil {
			return nil, fmt.Errorf("--filter: %w", err)
		}
	}
	r := &reader{opts: o, filter: flt}
	a, err := r.readAll(ctx)
	if err != nil {
		return nil, err
	}
	o.Format = r.opts.Format
	if r.stopped != nil {
		return r.stopped.result(a, o)
	}
	return a.result(o)
}

// unitName spells a unit the way Source.Unit does.
func unitName(u time.Duration) string {
	switch u {
	case time.Second:
		return "s"
	case time.Millisecond:
		return "ms"
	case time.Microsecond:
		return "µs"
	case time.Nanosecond:
		return "ns"
	}
	return u.String()
}

// ParseUnit reads --unit: s, ms, us (or µs) or ns.
func ParseUnit(s string) (time.Duration, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "s", "sec", "seconds":
		return time.Second, nil
	case "ms", "milliseconds":
		return time.Millisecond, nil
	case "us", "µs", "microseconds":
		return time.Microsecond, nil
	case "ns", "nanoseconds":
		return time.Nanosecond, nil
	}
	return 0, fmt.Errorf("unit %q: want s, ms, us or ns", s)
}
