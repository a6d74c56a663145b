package advise

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// lineFunc parses one line, emitting zero or more records; an error is a malformed line
// (counted), a *fatalError stops the read.
type lineFunc func(line []byte, emit func(*Record), a *accum) error

// parserFactory makes one lineFunc per worker (a parser may keep scratch state).
type parserFactory func() lineFunc

// formatSpec is how one format is read: line by line (in parallel unless sequential), or as
// a stream (one JSON document, a histogram exposition, a saved profile).
type formatSpec struct {
	unit       time.Duration
	sequential bool
	lines      func(o Options, head []byte) (parserFactory, error)
	stream     func(ctx context.Context, r *reader, in *input, a *accum) error
}

// formats is the registry of --format choices (auto resolves to one of them with Detect).
var formats = map[Format]formatSpec{}

func init() {
	formats[FormatNginx] = formatSpec{unit: time.Second, lines: fromFirstMatch(nginxLines, nginxTimedLine)}
	formats[FormatALB] = formatSpec{unit: time.Second, lines: albLines}
	formats[FormatHAProxy] = formatSpec{unit: time.Millisecond, lines: haproxyLines}
	formats[FormatEnvoy] = formatSpec{unit: time.Millisecond, lines: accessPrefixed(envoyLines)}
	formats[FormatK6] = formatSpec{unit: time.Millisecond, sequential: true, lines: k6Lines}
	formats[FormatVegeta] = formatSpec{unit: time.Nanosecond, lines: vegetaLines}
	formats[FormatCurl] = formatSpec{unit: time.Second, lines: curlLines}
	formats[FormatCSV] = formatSpec{lines: csvLines, sequential: true}
	formats[FormatHAR] = formatSpec{unit: time.Millisecond, stream: harStream}
	formats[FormatOTLP] = formatSpec{unit: time.Nanosecond, stream: otlpStream}
	formats[FormatPrometheus] = formatSpec{unit: 0, stream: promStream}
	formats[FormatProfile] = formatSpec{unit: time.Millisecond, stream: profileStream}
	formats[FormatTraefik] = formatSpec{unit: time.Millisecond, lines: traefikLines}
	formats[FormatCaddy] = formatSpec{unit: time.Second, lines: caddyLines}
	formats[FormatApache] = formatSpec{unit: time.Microsecond, lines: apacheLines}
	formats[FormatW3C] = formatSpec{unit: time.Millisecond, sequential: true, lines: w3cLines}
	formats[FormatCloudflare] = formatSpec{unit: time.Nanosecond, lines: cloudflareLines}
	formats[FormatZipkin] = formatSpec{unit: time.Microsecond, stream: zipkinStream}
	formats[FormatJaeger] = formatSpec{unit: time.Microsecond, stream: jaegerStream}
	formats[FormatHlog] = formatSpec{unit: time.Nanosecond, stream: hlogStream}
}

// answeredNoStatus is the status a record gets from a source that carries none (a span
// without http.status_code and without the error tag, an HdrHistogram interval): it is
// counted as answered, and the parser says so in a note — the error rate of such a source
// is unknown, not zero.
const answeredNoStatus = 200

// accessPrefix is the "ACCESS " Emissary-ingress (Ambassador) puts before Envoy's default
// fields in its default access log format (emissary python/ambassador/envoy/v3/v3listener.py:
// 'ACCESS [%START_TIME%] "%REQ(:METHOD)% …').
var accessPrefix = []byte("ACCESS ")

// accessPrefixed reads lines with or without the "ACCESS " prefix.
func accessPrefixed(lines func(Options, []byte) (parserFactory, error)) func(Options, []byte) (parserFactory, error) {
	return func(o Options, head []byte) (parserFactory, error) {
		inner, err := lines(o, head)
		if err != nil {
			return nil, err
		}
		return func() lineFunc {
			parse := inner()
			return func(line []byte, emit func(*Record), a *accum) error {
				return parse(bytes.TrimPrefix(line, accessPrefix), emit, a)
			}
		}, nil
	}
}

// fromFirstMatch gives lines a head that starts at the first sample line match takes (the
// whole head when none does), so a reader that takes its layout from its head's first line
// (nginx's known log_formats) is not thrown by a first line that is not a log line — a
// startup warning, the "Proxy … started." of a syslog file — when Detect chose it from the
// lines after it.
func fromFirstMatch(lines func(Options, []byte) (parserFactory, error), match func([]byte) bool) func(Options, []byte) (parserFactory, error) {
	return func(o Options, head []byte) (parserFactory, error) {
		rest := head
		for n := 0; len(rest) > 0 && n < sampleSize; n++ {
			l := firstLine(rest)
			if match(l) {
				return lines(o, rest)
			}
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			rest = rest[i+1:]
		}
		return lines(o, head)
	}
}

// sampleSize is how many lines Detect looks at.
const sampleSize = 200

// sampleLines returns up to n non-blank lines from the start of head (without their line
// ends). A head cut at the peek limit loses its last, partial line.
func sampleLines(head []byte, n int) [][]byte {
	var out [][]byte
	cut := len(head) >= 64<<10 && !bytes.HasSuffix(head, []byte{'\n'})
	for len(head) > 0 && len(out) < n {
		i := bytes.IndexByte(head, '\n')
		var l []byte
		if i < 0 {
			if cut {
				break
			}
			l, head = head, nil
		} else {
			l, head = head[:i], head[i+1:]
		}
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if blank(l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// lineKind is what one sample line looks like: a format advise reads, or one of the
// near-misses Detect explains.
type lineKind int

const (
	kindUnknown    lineKind = iota
	kindFormat              // a line of the format in lineFormats
	kindCLFUntimed          // common/combined log format with nothing after it: no timing field
	kindCLFInteger          // combined + one integer: Apache %D (µs) or %T (s), or something else
	kindCLFOther            // common/combined + fields advise does not know
)

// lineFormats are the line formats Detect tries on every sample line, the most specific
// first (a tie goes to the earlier).
var lineFormats = []struct {
	f     Format
	match func([]byte) bool
}{
	{FormatALB, albLine},
	{FormatEnvoy, func(l []byte) bool { return envoyLine(bytes.TrimPrefix(l, accessPrefix)) }},
	{FormatHAProxy, haproxyLine},
	{FormatTraefik, func(l []byte) bool { return traefikCLFLine(l) || traefikJSONLine(l) }},
	{FormatCaddy, caddyLine},
	{FormatCloudflare, cloudflareLine},
	{FormatVegeta, vegetaCSVLine},
	{FormatCurl, func(l []byte) bool { return bytes.Contains(l, []byte("time_total")) }},
	{FormatNginx, nginxTimedLine},
}

// clfTemplates are the Apache/nginx common and combined formats, matched as prefixes.
var clfTemplates = func() []*logTemplate {
	var out []*logTemplate
	for _, f := range []string{
		`$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`,
		`$remote_addr $remote_logname $remote_user [$time_local] "$request" $status $body_bytes_sent`,
	} {
		t, err := compileLogFormat("clf", f)
		if err != nil {
			panic(err)
		}
		t.prefix = true
		out = append(out, t)
	}
	return out
}()

// clfRest matches l against common/combined and returns what follows them.
func clfRest(l []byte) ([]byte, bool) {
	for _, t := range clfTemplates {
		if rest, err := t.match(l, make([][]byte, len(t.vars))); err == nil {
			return rest, true
		}
	}
	return nil, false
}

// nginxTimedLine says whether l is an nginx line advise can time: a known log_format with a
// timing field (ingress-nginx's, the timed one, combined + key=value timers).
func nginxTimedLine(l []byte) bool {
	for _, k := range nginxKnown {
		c, err := compileLogFormat(k.name, k.format)
		if err != nil {
			continue
		}
		c.prefix = true
		rest, err := c.match(l, make([][]byte, len(c.vars)))
		if err != nil {
			continue
		}
		if k.name == "combined + key=value timers" && !hasTimerKV(rest) {
			continue
		}
		return true
	}
	return false
}

// classify says what one sample line is.
func classify(l []byte) (Format, lineKind) {
	for _, lf := range lineFormats {
		if lf.match(l) {
			return lf.f, kindFormat
		}
	}
	if rest, ok := clfRest(l); ok {
		r := bytes.TrimSpace(rest)
		switch {
		case len(r) == 0:
			return "", kindCLFUntimed
		case isDigits(r):
			return "", kindCLFInteger
		}
		return "", kindCLFOther
	}
	return "", kindUnknown
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// Detect names the format of an input from its first bytes (up to 64 KiB): JSON documents by
// their keys, headed formats (Prometheus, W3C, HdrHistogram logs, CSV) by their header, and
// logs by a sample of up to 200 lines — the format most sample lines match, so a syslog file
// that opens with "Proxy … started." is still HAProxy's. Where no format matches, the error
// says why, and offers --format or --log-format only where one would help.
func Detect(head []byte) (Format, error) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return "", errors.New("empty input: nothing to detect a format from")
	}
	first := firstLine(t)
	lines := sampleLines(t, sampleSize)
	if f := detectHeaded(t, lines); f != "" {
		return f, nil
	}
	if jsonArray(t) || (t[0] == '{' && !jsonLines(lines)) {
		return detectJSON(t, first)
	}
	if _, k := classify(first); k == kindUnknown && t[0] != '{' && csvHeader(first) {
		return FormatCSV, nil
	}
	v := voteLines(lines)
	// JSON lines of a format that is not a line format (k6, OTLP per line, nginx JSON).
	if t[0] == '{' && v.most*2 <= len(lines) {
		if f, err := detectJSON(t, first); err == nil {
			return f, nil
		}
	}
	if v.most > 0 && v.most >= v.kinds[kindCLFUntimed] && v.most >= v.kinds[kindCLFInteger] {
		return v.best, nil
	}
	return v.undetected(t, first, len(lines))
}

// detectHeaded names a format told by its header or its first lines (Prometheus, an
// HdrHistogram log, W3C), "" when none.
func detectHeaded(t []byte, lines [][]byte) Format {
	switch {
	case bytes.HasPrefix(t, []byte("# HELP")) || bytes.HasPrefix(t, []byte("# TYPE")) || promHead(lines):
		return FormatPrometheus
	case hlogHead(lines):
		return FormatHlog
	case w3cHead(lines):
		return FormatW3C
	}
	return ""
}

// lineVote is what the sample lines say: the line format most match (first in lineFormats
// on a tie), how many, and how many lines are of each kind.
type lineVote struct {
	best  Format
	most  int
	kinds [kindCLFOther + 1]int
}

func voteLines(lines [][]byte) lineVote {
	var v lineVote
	counts := map[Format]int{}
	for _, l := range lines {
		f, k := classify(l)
		v.kinds[k]++
		if k == kindFormat {
			counts[f]++
		}
	}
	for _, lf := range lineFormats {
		if n := counts[lf.f]; n > v.most {
			v.best, v.most = lf.f, n
		}
	}
	return v
}

// undetected is the answer when no line format wins the vote: why not (common/combined
// without a timing advise knows), a JSON document's format, or that none is known (n sample
// lines).
func (v lineVote) undetected(t, first []byte, n int) (Format, error) {
	switch {
	case v.kinds[kindCLFInteger] > 0 && v.kinds[kindCLFInteger] >= v.kinds[kindCLFUntimed]:
		return "", errors.New("common/combined log format followed by one integer: if it is Apache's %D (microseconds), give --format apache; if it is %T (seconds), --format apache --unit s; an nginx log_format, --log-format '…'")
	case v.kinds[kindCLFUntimed] > 0:
		return "", errors.New("common/combined log format (Apache's and nginx's default): it has no timing field, so there is no latency to advise from — add %D (Apache, microseconds) or $request_time (nginx) to the log format")
	case v.kinds[kindCLFOther] > 0:
		return "", errors.New("common/combined log format followed by fields advise does not know: give the nginx log_format with --log-format '…' (or --log-format /etc/nginx/nginx.conf)")
	case t[0] == '{':
		return detectJSON(t, first)
	}
	return "", fmt.Errorf("cannot tell the format: none of the first %d lines is an access log, trace, load-test result or histogram advise reads (see --help for the formats)", n)
}

// jsonArray says whether t opens a JSON array (of objects, arrays or strings) rather than a
// line that starts with '[' (Envoy's "[%START_TIME%]").
func jsonArray(t []byte) bool {
	if len(t) == 0 || t[0] != '[' {
		return false
	}
	r := bytes.TrimLeft(t[1:], " \t\r\n")
	return len(r) == 0 || r[0] == '{' || r[0] == '[' || r[0] == '"' || r[0] == ']'
}

// jsonLines says whether the sample is JSON objects one per line (not one document).
func jsonLines(lines [][]byte) bool {
	if len(lines) < 2 {
		return len(lines) == 1 && bytes.HasSuffix(bytes.TrimSpace(lines[0]), []byte{'}'})
	}
	for _, l := range lines[:2] {
		l = bytes.TrimSpace(l)
		if len(l) < 2 || l[0] != '{' || l[len(l)-1] != '}' {
			return false
		}
	}
	return true
}

// detectJSON names a JSON document (or JSON lines not matched line by line) by its keys.
func detectJSON(t, first []byte) (Format, error) {
	switch {
	case jsonHasAll(t, "schema") && bytes.Contains(t, []byte(`patience/probe/v1`)):
		return FormatProfile, nil
	case jsonHasAll(t, "log", "entries"):
		return FormatHAR, nil
	case jsonHasAll(t, "resourceSpans"):
		return FormatOTLP, nil
	case jsonHasAll(t, "resultType"), jsonHasAll(t, "resourceMetrics"):
		// The Prometheus query API, or OTLP metrics (bucketed data, otlp_metrics.go).
		return FormatPrometheus, nil
	case jsonHasAll(t, "metric") && (bytes.Contains(first, []byte(`"Point"`)) || bytes.Contains(first, []byte(`"Metric"`))):
		return FormatK6, nil
	case jsonHasAll(t, "spanID", "operationName", "startTime"):
		return FormatJaeger, nil
	case jsonHasAll(t, "traceId", "id") && jsonHasAny(t, "timestamp", "duration"):
		return FormatZipkin, nil
	case jsonHasAll(t, "EdgeStartTimestamp", "EdgeEndTimestamp"):
		return FormatCloudflare, nil
	case traefikJSONLine(first):
		return FormatTraefik, nil
	case caddyLine(first):
		return FormatCaddy, nil
	case jsonHasAll(t, "latency", "code"):
		return FormatVegeta, nil
	case jsonHasAll(t, "time_total"):
		return FormatCurl, nil
	case jsonHasAny(t, "request_time", "upstream_response_time"):
		return FormatNginx, nil
	}
	return "", errors.New("JSON, but not a format advise knows (HAR, OTLP traces or metrics, Zipkin, Jaeger, k6, vegeta, curl %{json}, Traefik, Caddy, Cloudflare, nginx JSON, Prometheus query API, a patience profile)")
}

// jsonHasAll says whether t holds every one of keys, quoted.
func jsonHasAll(t []byte, keys ...string) bool {
	for _, k := range keys {
		if !bytes.Contains(t, []byte(`"`+k+`"`)) {
			return false
		}
	}
	return true
}

// jsonHasAny says whether t holds one of keys, quoted.
func jsonHasAny(t []byte, keys ...string) bool {
	for _, k := range keys {
		if bytes.Contains(t, []byte(`"`+k+`"`)) {
			return true
		}
	}
	return false
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// parseDuration reads a decimal number of unit (0.123 s, 45 ms, 1544712660000 ns) exactly,
// without float rounding: "0.123" seconds is 123 ms, not 122.99999 ms. Fraction digits past
// the twelfth are dropped, the result is truncated toward zero, and a number beyond a
// Duration (about 292 years) is not one. Exponents and the like are strconv's.
func parseDuration(b []byte, unit time.Duration) (time.Duration, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	if b[0] == '-' {
		neg = true
		b = b[1:]
	}
	var whole, frac uint64
	var scale uint64 = 1
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if whole > (math.MaxUint64-9)/10 {
			return 0, false
		}
		whole = whole*10 + uint64(b[i]-'0')
	}
	digits := i
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if scale < 1e12 {
				frac = frac*10 + uint64(b[i]-'0')
				scale *= 10
			}
			digits++
		}
	}
	if i != len(b) || digits == 0 {
		// Exponents and the like: fall back to a float.
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || f != f || math.Abs(f*float64(unit)) >= 1<<63 {
			return 0, false
		}
		d := time.Duration(f * float64(unit))
		if neg {
			d = -d
		}
		return d, true
	}
	u := uint64(unit)
	hi, lo := bits.Mul64(whole, u)
	// frac×unit/scale in 128 bits: frac < scale, so the quotient fits.
	fhi, flo := bits.Mul64(frac, u)
	part, _ := bits.Div64(fhi, flo, scale)
	sum, carry := bits.Add64(lo, part, 0)
	if hi != 0 || carry != 0 || sum > math.MaxInt64 {
		return 0, false
	}
	d := time.Duration(sum)
	if neg {
		d = -d
	}
	return d, true
}

// parseStatus reads a three-digit HTTP status (0 allowed: no response).
func parseStatus(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 3 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n == 0 || (n >= 100 && n <= 999)
}

// splitRequest reads "GET /path?q HTTP/1.1" into method and path (query dropped).
func splitRequest(s string) (method, path string) {
	method, rest, ok := strings.Cut(s, " ")
	if !ok {
		return "", ""
	}
	path, _, _ = strings.Cut(rest, " ")
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		if i := strings.Index(path[8:], "/"); i >= 0 {
			path = path[8+i:]
		} else {
			path = "/"
		}
	}
	return method, path
}

// classifyError maps an error message of a load tool to a probe error class.
func classifyError(msg string) string {
	m := strings.ToLower(msg)
	switch {
	case m == "":
		return "other"
	case strings.Contains(m, "timeout") || strings.Contains(m, "deadline exceeded") || strings.Contains(m, "timed out"):
		return "timeout"
	case strings.Contains(m, "refused"):
		return "refused"
	case strings.Contains(m, "reset") || strings.Contains(m, "broken pipe") || strings.Contains(m, "eof"):
		return "reset"
	case strings.Contains(m, "no such host") || strings.Contains(m, "lookup") || strings.Contains(m, "resolve"):
		return "dns"
	case strings.Contains(m, "tls") || strings.Contains(m, "x509") || strings.Contains(m, "certificate") || strings.Contains(m, "ssl"):
		return "tls"
	case strings.Contains(m, "too many open files"):
		return "fd_limit"
	}
	return "other"
}
