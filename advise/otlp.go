package advise

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/patience-dev/patience/profile"
)

// OTLP/JSON traces (docs/formats.md#otlpjson, opentelemetry-proto docs/specification.md):
// one export object per line (the collector's file exporter) or one document. Duration is
// endTimeUnixNano − startTimeUnixNano in ns; 64-bit integers may be decimal strings; kind 3
// is CLIENT. Attributes: stable HTTP semconv (v1.23.0) with the old names accepted —
// http.request.method|http.method, http.response.status_code|http.status_code,
// url.full|http.url, server.address|net.peer.name, http.route / url.template for the route,
// http.request.resend_count (a client span per physical attempt).
//
// The outcome of a span without an HTTP status follows the semantic conventions for HTTP
// spans (semantic-conventions docs/http/http-spans.md): http.response.status_code is
// "Conditionally Required: If and only if one was received/sent", and a request that ends
// without a response (a network error, a timeout) sets the span status to Error with
// error.type. So an HTTP span with status Error and no status code is a request with no
// answer (classified by error.type, else the status message); one with neither a status
// code nor an Error status (STATUS_CODE_UNSET, or STATUS_CODE_OK — opentelemetry-proto
// trace.proto Status) says a response came but not which: its outcome is unknown and it is
// left out, counted in a note — never taken for a 200. A span with no HTTP attribute at all
// (a database, RPC or internal call; http.*, url.* absent) is not an HTTP request and is left
// out the same way.

type otlpValue struct {
	StringValue *string         `json:"stringValue"`
	IntValue    json.RawMessage `json:"intValue"`
}

type otlpAttr struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

type otlpSpan struct {
	Name       string          `json:"name"`
	Kind       int             `json:"kind"`
	Start      json.RawMessage `json:"startTimeUnixNano"`
	End        json.RawMessage `json:"endTimeUnixNano"`
	Attributes []otlpAttr      `json:"attributes"`
	Status     struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"status"`
}

// int64Of reads a number or a decimal string.
func int64Of(raw json.RawMessage) (int64, bool) {
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func otlpStream(ctx context.Context, r *reader, in *input, a *accum) error {
	// A span opens at depth 7: {resourceSpans:[{scopeSpans:[{spans:[{ (limits_json.go).
	lt := &lineTracker{r: &jsonClip{r: in.br, unitDepth: 6, what: "OTLP span"}}
	dec := json.NewDecoder(lt)
	server := newAccum()
	var clients, resends int64
	skipped := map[otlpSkip]int64{}
	w := &otlpWalker{ctx: ctx, dec: dec, lt: lt, name: in.name, a: a}
	w.span = func(sp *otlpSpan, line int64) {
		if sp.Kind != 3 && sp.Kind != 2 {
			return
		}
		rec, resend, skip, err := otlpRecord(sp)
		if err != nil {
			a.malformedLine(in.name, line, fmt.Sprintf("span %q: %v", sp.Name, err))
			return
		}
		if skip != otlpRead {
			skipped[skip]++
			return
		}
		if sp.Kind == 3 {
			clients++
			if resend {
				resends++
			}
			r.add(a, &rec)
		} else {
			r.add(server, &rec)
		}
	}
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := w.document(); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
	}
	a.lines = lt.lines
	var left []string
	if n := skipped[otlpNotHTTP]; n > 0 {
		left = append(left, fmt.Sprintf("%d client or server spans are not HTTP requests (no http.* or url.* attribute: a database, RPC or internal call) and are left out", n))
	}
	if n := skipped[otlpNoOutcome]; n > 0 {
		left = append(left, fmt.Sprintf("%d HTTP spans have no http.response.status_code and no Error status (semantic conventions: the status code is required when a response was received, Error is set when none was): their outcome is unknown and they are left out", n))
	}
	for _, n := range left {
		a.note(n)
		server.note(n)
	}
	if clients == 0 && server.all.requests == 0 && a.malformed == 0 && len(skipped) > 0 {
		return &InputError{File: in.name, Err: fmt.Errorf("%w: %d client or server spans, none an HTTP request with an outcome (%d not HTTP, %d without a status code or an Error status)",
			ErrNoSamples, skipped[otlpNotHTTP]+skipped[otlpNoOutcome], skipped[otlpNotHTTP], skipped[otlpNoOutcome])}
	}
	if clients == 0 && server.all.requests > 0 {
		server.lines, server.malformed, server.bad = a.lines, a.malformed, a.bad
		*a = *server
		a.unit = time.Nanosecond
		a.note("no CLIENT spans (kind 3): these are SERVER spans, the dependency's own view — network and queueing in front of it are not in them")
	}
	if resends > 0 {
		a.note(fmt.Sprintf("%d of %d client spans are resends (http.request.resend_count > 0): each is one physical attempt, and the latency here is per attempt", resends, clients))
	}
	a.note("OTLP: latency is endTimeUnixNano − startTimeUnixNano of each client span (ns)")
	return nil
}

// otlpSkip says whether a span was read, or why it was left out.
type otlpSkip uint8

const (
	otlpRead      otlpSkip = iota
	otlpNotHTTP            // no http.* or url.* attribute
	otlpNoOutcome          // HTTP, but no status code and no Error status
)

// otlpStatusError is STATUS_CODE_ERROR (opentelemetry-proto trace.proto, Status.StatusCode).
const otlpStatusError = 2

func otlpRecord(sp *otlpSpan) (Record, bool, otlpSkip, error) {
	rec := newRecord()
	start, ok1 := int64Of(sp.Start)
	end, ok2 := int64Of(sp.End)
	if !ok1 || !ok2 || end < start {
		return rec, false, otlpRead, errors.New("startTimeUnixNano/endTimeUnixNano missing or reversed")
	}
	rec.Time = time.Unix(0, start)
	rec.Total = time.Duration(end - start)
	attr := map[string]string{}
	for _, at := range sp.Attributes {
		switch {
		case at.Value.StringValue != nil:
			attr[at.Key] = *at.Value.StringValue
		case at.Value.IntValue != nil:
			attr[at.Key] = strings.Trim(string(at.Value.IntValue), `"`)
		}
	}
	get := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := attr[k]; ok {
				return v
			}
		}
		return ""
	}
	rec.Method = get("http.request.method", "http.method")
	full := get("url.full", "http.url")
	if u, err := url.Parse(full); err == nil && full != "" {
		rec.Host, rec.Path = u.Hostname(), u.Path
	}
	if h := get("server.address", "net.peer.name"); h != "" {
		rec.Host = h
	}
	if p := get("http.route", "url.template"); p != "" {
		rec.Path = p
	} else if p := get("url.path"); p != "" {
		rec.Path = p
	}
	isHTTP := false
	for k := range attr {
		if strings.HasPrefix(k, "http.") || strings.HasPrefix(k, "url.") {
			isHTTP = true
			break
		}
	}
	if !isHTTP {
		return rec, false, otlpNotHTTP, nil
	}
	if s := get("http.response.status_code", "http.status_code"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return rec, false, otlpRead, fmt.Errorf("status code %q", s)
		}
		rec.Status = n
	} else if sp.Status.Code == otlpStatusError {
		rec.ErrMsg = get("error.type")
		if rec.ErrMsg == "" {
			rec.ErrMsg = sp.Status.Message
		}
		rec.Err = classifyError(rec.ErrMsg)
	} else {
		// No status code and no Error: a response came (else the span would be Error),
		// but which is not known — never taken for a 200.
		return rec, false, otlpNoOutcome, nil
	}
	n, _ := strconv.Atoi(get("http.request.resend_count", "http.resend_count"))
	return rec, n > 0, otlpRead, nil
}

// CSV with a header row. Column names say the unit where they can (elapsed — JMeter's ms —
// duration_ms, latency_us, time_ns, response_time_s …); a column without one ("latency",
// "duration") needs --unit: never guessed. Status, method, url/path/label, host and a time
// column (RFC 3339 or Unix seconds/ms) are read when present.

// JMeter's CSV (apache/jmeter src/core/src/main/java/org/apache/jmeter/save/CSVSaveService.java:
// timeStamp, elapsed, label, responseCode, …, URL, Latency, IdleTime, Connect, all times in
// ms) writes SampleResult's fields as they are: `latency` and `connectTime` start at 0
// (samplers/SampleResult.java) and are set only when the sampler measured them
// (latencyEnd(), connectEnd()), so a 0 is "not measured" — a Java Request sampler, a failed
// connect — never a first byte at 0 ms (a measured one under JMeter's 1 ms resolution is lost
// with them). The URL column is sample.getURL() appended as is: "null" when the sample has no
// URL; the label then names the request.

type csvLayout struct {
	total, status, message, method, url, label, host, when, connect, ttfb int
	unit                                                                  time.Duration
	// nameUnit is the unit the latency column's name says (duration_ms), 0 when none.
	nameUnit time.Duration
	header   string
	jmeter   bool
}

var csvLatencyNames = []string{"elapsed", "latency", "duration", "response_time", "responsetime", "total", "time_total", "request_time"}

// csvUnitSuffixes are the column-name suffixes that say a unit, tried in order.
var csvUnitSuffixes = []struct {
	s string
	u time.Duration
}{{"_ms", time.Millisecond}, {"_millis", time.Millisecond}, {"_us", time.Microsecond}, {"_ns", time.Nanosecond}, {"_seconds", time.Second}, {"_s", time.Second}, {"_sec", time.Second}}

func csvHeader(first []byte) bool {
	l := strings.ToLower(string(first))
	if !strings.Contains(l, ",") {
		return false
	}
	for _, n := range csvLatencyNames {
		if strings.Contains(l, n) {
			return true
		}
	}
	return false
}

func csvLines(o Options, head []byte) (parserFactory, error) {
	first := firstLine(bytes.TrimLeft(head, " \t\r\n\ufeff"))
	cols, err := csv.NewReader(bytes.NewReader(first)).Read()
	if err != nil {
		return nil, fmt.Errorf("CSV header: %v", err)
	}
	L := &csvLayout{total: -1, status: -1, message: -1, method: -1, url: -1, label: -1, host: -1, when: -1, connect: -1, ttfb: -1, header: string(first)}
	for i, c := range cols {
		L.column(i, c)
	}
	if L.total < 0 {
		return nil, fmt.Errorf("CSV header %q: no latency column (want one of %s, with a unit suffix such as _ms)", first, strings.Join(csvLatencyNames, ", "))
	}
	L.jmeter = strings.Contains(string(first), "timeStamp") && strings.Contains(string(first), "elapsed")
	if err := L.setUnit(o, cols[L.total]); err != nil {
		return nil, err
	}
	return func() lineFunc { return L.parse }, nil
}

// csvColumnUnit splits a lower-case column name into its base and the unit its suffix says
// (0 when none).
func csvColumnUnit(n string) (string, time.Duration) {
	for _, suf := range csvUnitSuffixes {
		if strings.HasSuffix(n, suf.s) {
			return strings.TrimSuffix(n, suf.s), suf.u
		}
	}
	return n, 0
}

// column records what header column i, named c, holds.
func (L *csvLayout) column(i int, c string) {
	n := strings.ToLower(strings.TrimSpace(c))
	base, u := csvColumnUnit(n)
	switch base {
	case "elapsed", "latency", "duration", "response_time", "responsetime", "total", "time_total", "request_time":
		L.latencyColumn(i, n, base, u)
	case "status", "code", "responsecode", "status_code", "http_status":
		L.status = i
	case "responsemessage":
		L.message = i
	case "method", "http_method":
		L.method = i
	case "url", "path", "label", "route", "endpoint":
		if L.url < 0 || base == "url" {
			L.url = i
		}
		if base == "label" {
			L.label = i
		}
	case "host", "hostname", "server":
		L.host = i
	case "timestamp", "time", "start", "started":
		L.when = i
	case "connect":
		L.connect = i
	}
}

// latencyColumn records latency column i (name n, base without its unit suffix, unit u): the
// first one is the latency, JMeter's elapsed wins over any, and JMeter's Latency is the time
// to the first byte.
func (L *csvLayout) latencyColumn(i int, n, base string, u time.Duration) {
	if L.total < 0 || base == "elapsed" {
		L.total, L.nameUnit = i, u
	}
	if n == "latency" && strings.Contains(strings.ToLower(L.header), "elapsed") {
		L.ttfb = i // JMeter: Latency is the time to the first byte
	}
}

// setUnit sets the durations' unit: --unit, else the latency column's name's, else JMeter's
// ms; never guessed (latency names the column).
func (L *csvLayout) setUnit(o Options, latency string) error {
	var err error
	switch {
	case o.Unit != "":
		L.unit, err = ParseUnit(o.Unit)
		return err
	case L.nameUnit != 0:
		L.unit = L.nameUnit
	case L.jmeter:
		L.unit = time.Millisecond // JMeter's elapsed, Latency and Connect are ms
	default:
		return fmt.Errorf("CSV column %q does not say its unit: give --unit s|ms|us|ns (or name it %s_ms)", latency, latency)
	}
	return nil
}

// csvRow is one CSV record's fields.
type csvRow []string

// col is field i, trimmed; "" when the row has no such field (i < 0: no such column).
func (f csvRow) col(i int) string {
	if i < 0 || i >= len(f) {
		return ""
	}
	return strings.TrimSpace(f[i])
}

// parse reads one CSV line (the header's repetitions skipped) as a record: its timings, its
// outcome, its target and its time.
func (L *csvLayout) parse(line []byte, emit func(*Record), a *accum) error {
	if line == nil || string(line) == L.header {
		return nil
	}
	a.unit = L.unit
	f, err := csv.NewReader(bytes.NewReader(line)).Read()
	if err != nil {
		return fmt.Errorf("CSV: %v", err)
	}
	row := csvRow(f)
	rec := newRecord()
	if err := L.timings(row, &rec); err != nil {
		return err
	}
	L.outcome(row, &rec)
	L.target(row, &rec)
	if t, ok := csvTime(row.col(L.when)); ok {
		rec.Time = t
	}
	emit(&rec)
	return nil
}

// timings reads the latency (an error when it is not a duration), the time to the first byte
// and the connect time.
func (L *csvLayout) timings(row csvRow, rec *Record) error {
	d, ok := parseDuration([]byte(row.col(L.total)), L.unit)
	if !ok || d < 0 {
		return fmt.Errorf("latency %q is not a number", row.col(L.total))
	}
	rec.Total = d
	if v := row.col(L.ttfb); v != "" {
		// JMeter's Latency 0 is not measured (SampleResult.latency's initial value).
		if t, ok := parseDuration([]byte(v), L.unit); ok && t >= 0 && (t > 0 || !L.jmeter) {
			rec.TTFB = t
		}
	}
	if v := row.col(L.connect); v != "" {
		if t, ok := parseDuration([]byte(v), L.unit); ok && t > 0 {
			rec.Connect, rec.Reused = t, 1
		}
	}
	return nil
}

// outcome reads the status: 200 when there is no status column, an error when the column
// holds no code.
func (L *csvLayout) outcome(row csvRow, rec *Record) {
	rec.Status = 200
	v := row.col(L.status)
	if v == "" {
		return
	}
	n, err := strconv.Atoi(v)
	if err == nil {
		rec.Status = n
		return
	}
	// JMeter writes the exception's name where no response came back ("Non HTTP response
	// code: java.net.ConnectException"), and its message in responseMessage ("… Connection
	// refused").
	msg := v
	if m := row.col(L.message); m != "" {
		msg += ": " + m
	}
	rec.Status, rec.Err, rec.ErrMsg = 0, classifyError(msg), msg
}

// target reads the method, the URL (or path, label …) and the host.
func (L *csvLayout) target(row csvRow, rec *Record) {
	rec.Method = row.col(L.method)
	u := row.col(L.url)
	if L.jmeter && u == "null" {
		// sample.getURL() was null: the sampler has no URL; its label names it.
		u = row.col(L.label)
	}
	if u != "" {
		if pu, err := url.Parse(u); err == nil && pu.Host != "" {
			rec.Host, rec.Path = pu.Hostname(), pu.Path
		} else {
			rec.Path = u
		}
	}
	if h := row.col(L.host); h != "" {
		rec.Host = h
	}
}

// csvTime reads a time column: Unix seconds, ms or ns (told apart by size), or a time
// ParseTime reads; false when v is none of them.
func csvTime(v string) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t, err := ParseTime(v)
		return t, err == nil
	}
	switch {
	case n > 1e17:
		return time.Unix(0, n), true
	case n > 1e11:
		return time.UnixMilli(n), true
	}
	return time.Unix(n, 0), true
}

// profileStream reads a saved profile (`probe --save`, `advise --save`) back into series, so
// profiles merge with each other here exactly as `probe --merge` does.
func profileStream(ctx context.Context, r *reader, in *input, a *accum) error {
	b, err := readProfile(ctx, in)
	if err != nil {
		return err
	}
	p, err := profile.Parse(in.name, b)
	if err != nil {
		return err
	}
	a.lines = int64(bytes.Count(b, []byte{'\n'}))
	s := a.all
	s.reusedKnown = true
	for name, dst := range map[string]**hist{
		profile.SeriesDNS: &s.dns[0], profile.SeriesConnect: &s.connect[0], profile.SeriesTLS: &s.tls[0],
		profile.SeriesTTFBFresh: &s.ttfb[0], profile.SeriesTTFBReused: &s.ttfb[1],
		profile.SeriesTotalFresh: &s.total[0], profile.SeriesTotalReused: &s.total[1], profile.SeriesGood: &s.good,
		profile.SeriesSilenceFresh: &s.silence[0], profile.SeriesSilenceReused: &s.silence[1], profile.SeriesSilenceGood: &s.silenceGood,
	} {
		enc, ok := p.Histograms[name]
		if !ok {
			continue
		}
		h, err := profile.DecodeHistogram(enc)
		if err != nil {
			return &InputError{File: in.name, Err: fmt.Errorf("histograms.%s: %v", name, err)}
		}
		if *dst == nil {
			*dst = newHistogram(3)
		}
		(*dst).mergeHDR(h)
	}
	for k, v := range p.Status {
		n, err := strconv.Atoi(k)
		if err != nil {
			return &InputError{File: in.name, Err: fmt.Errorf("status %q is not a status code", k)}
		}
		s.addStatus(n, v)
	}
	for k, v := range p.Errors {
		s.errs[k] += v
	}
	s.requests += p.Requests
	a.maxTimeout = max(a.maxTimeout, time.Duration(p.MaxTimeoutMs*float64(time.Millisecond)))
	if p.Target.URL != "" {
		a.hosts[p.Target.URL] = true
	}
	if p.Target.Method != "" {
		a.methods[p.Target.Method] = true
	}
	return nil
}
