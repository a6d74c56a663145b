package advise

import (
	"bytes"
	"context"
	"errors"
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
	formats[FormatNginx] = formatSpec{unit: time.Second, lines: nginxLines}
	formats[FormatALB] = formatSpec{unit: time.Second, lines: albLines}
	formats[FormatHAProxy] = formatSpec{unit: time.Millisecond, lines: haproxyLines}
	formats[FormatEnvoy] = formatSpec{unit: time.Millisecond, lines: envoyLines}
	formats[FormatK6] = formatSpec{unit: time.Millisecond, sequential: true, lines: k6Lines}
	formats[FormatVegeta] = formatSpec{unit: time.Nanosecond, lines: vegetaLines}
	formats[FormatCurl] = formatSpec{unit: time.Second, lines: curlLines}
	formats[FormatCSV] = formatSpec{lines: csvLines, sequential: true}
	formats[FormatHAR] = formatSpec{unit: time.Millisecond, stream: harStream}
	formats[FormatOTLP] = formatSpec{unit: time.Nanosecond, stream: otlpStream}
	formats[FormatPrometheus] = formatSpec{unit: 0, stream: promStream}
	formats[FormatProfile] = formatSpec{unit: time.Millisecond, stream: profileStream}
}

// Detect names the format of an input from its first bytes (up to 64 KiB): JSON documents by
// their keys, logs by the shape of their first line.
func Detect(head []byte) (Format, error) {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 {
		return "", errors.New("empty input: nothing to detect a format from")
	}
	first := firstLine(t)
	if envoyLine(first) {
		return FormatEnvoy, nil
	}
	switch t[0] {
	case '{', '[':
		has := func(k string) bool { return bytes.Contains(t, []byte(`"`+k+`"`)) }
		switch {
		case has("schema") && bytes.Contains(t, []byte(`patience/probe/v1`)):
			return FormatProfile, nil
		case has("log") && has("entries"):
			return FormatHAR, nil
		case has("resourceSpans"):
			return FormatOTLP, nil
		case has("resultType"):
			return FormatPrometheus, nil
		case has("metric") && (bytes.Contains(first, []byte(`"Point"`)) || bytes.Contains(first, []byte(`"Metric"`))):
			return FormatK6, nil
		case has("latency") && has("code"):
			return FormatVegeta, nil
		case has("time_total"):
			return FormatCurl, nil
		case has("request_time") || has("upstream_response_time"):
			return FormatNginx, nil
		}
		return "", errors.New("JSON, but not a format advise knows (HAR, OTLP, k6, vegeta, curl %{json}, Prometheus query API, a patience profile); give --format")
	}
	switch {
	case bytes.HasPrefix(t, []byte("# HELP")) || bytes.HasPrefix(t, []byte("# TYPE")) || bytes.Contains(first, []byte(`_bucket{`)):
		return FormatPrometheus, nil
	case albLine(first):
		return FormatALB, nil
	case envoyLine(first):
		return FormatEnvoy, nil
	case haproxyLine(first):
		return FormatHAProxy, nil
	case vegetaCSVLine(first):
		return FormatVegeta, nil
	case bytes.Contains(first, []byte("time_total")):
		return FormatCurl, nil
	case nginxLine(first):
		return FormatNginx, nil
	case csvHeader(first):
		return FormatCSV, nil
	}
	return "", errors.New("cannot tell the format from the first line; give --format (and --log-format for a custom nginx log_format)")
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
