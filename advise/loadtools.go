package advise

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// k6 --out json (docs/formats.md#k6, grafana/k6 internal/output/json): NDJSON
// Points, time metrics in milliseconds. http_req_duration is sending + waiting + receiving
// and excludes http_req_blocked (DNS + TCP + TLS on a new connection, Go's GetConn fires
// before the dial), so the total here is blocked + duration per request (grafana/k6#2692).
// One request's samples are written together with the same time and tags; they are joined
// here.

type k6Point struct {
	Type   string `json:"type"`
	Metric string `json:"metric"`
	Data   struct {
		Time  string            `json:"time"`
		Value float64           `json:"value"`
		Tags  map[string]string `json:"tags"`
	} `json:"data"`
}

type k6Req struct {
	key                                            string
	seen                                           map[string]bool
	t                                              time.Time
	tags                                           map[string]string
	blocked, connecting, tls, waiting, duration    float64
	receiving                                      float64
	hasBlocked, hasDuration, hasConnecting, hasTLS bool
	hasWaiting, hasReceiving                       bool
}

func k6Lines(o Options, _ []byte) (parserFactory, error) {
	return func() lineFunc { return (&k6Joiner{}).line }, nil
}

// k6Joiner joins one request's samples (consecutive lines with the same time and tags, each
// metric once) into one record; cur is the request being joined. The line nil, at the end,
// emits the last one.
type k6Joiner struct{ cur *k6Req }

func (j *k6Joiner) line(line []byte, emit func(*Record), a *accum) error {
	if line == nil {
		j.flush(emit, a)
		return nil
	}
	var p k6Point
	if err := json.Unmarshal(line, &p); err != nil {
		return fmt.Errorf("not a k6 JSON line: %v", err)
	}
	if p.Type != "Point" || !strings.HasPrefix(p.Metric, "http_req") {
		return nil
	}
	key := p.Data.Time + "\x00" + p.Data.Tags["method"] + "\x00" + p.Data.Tags["url"] + "\x00" + p.Data.Tags["status"]
	if j.cur != nil && (j.cur.key != key || j.cur.seen[p.Metric]) {
		j.flush(emit, a)
	}
	if j.cur == nil {
		t, err := time.Parse(time.RFC3339Nano, p.Data.Time)
		if err != nil {
			return fmt.Errorf("data.time %q: %v", p.Data.Time, err)
		}
		j.cur = &k6Req{key: key, seen: map[string]bool{}, t: t, tags: p.Data.Tags}
	}
	j.cur.add(p.Metric, p.Data.Value)
	return nil
}

// flush emits the request being joined, when it has a duration, and starts afresh.
func (j *k6Joiner) flush(emit func(*Record), a *accum) {
	cur := j.cur
	j.cur = nil
	if cur == nil || !cur.hasDuration {
		return
	}
	rec := cur.record(a)
	emit(&rec)
}

// add keeps one sample (ms) of the request.
func (r *k6Req) add(metric string, v float64) {
	r.seen[metric] = true
	switch metric {
	case "http_req_duration":
		r.duration, r.hasDuration = v, true
	case "http_req_blocked":
		r.blocked, r.hasBlocked = v, true
	case "http_req_connecting":
		r.connecting, r.hasConnecting = v, true
	case "http_req_tls_handshaking":
		r.tls, r.hasTLS = v, true
	case "http_req_waiting":
		r.waiting, r.hasWaiting = v, true
	case "http_req_receiving":
		r.receiving, r.hasReceiving = v, true
	}
}

// record is the joined request: its target and outcome from the tags, its timings.
func (r *k6Req) record(a *accum) Record {
	rec := newRecord()
	rec.Time = r.t
	rec.Method = r.tags["method"]
	if u, err := url.Parse(r.tags["url"]); err == nil {
		rec.Host, rec.Path = u.Host, u.Path
	}
	if n := r.tags["name"]; n != "" && n != r.tags["url"] && strings.HasPrefix(n, "/") {
		rec.Path = n
	}
	st, _ := strconv.Atoi(r.tags["status"])
	rec.Status = st
	if st == 0 {
		rec.ErrMsg = r.tags["error"]
		rec.Err = k6ErrorClass(r.tags["error_code"], r.tags["error"])
	}
	r.timings(&rec, a)
	return rec
}

// timings sets the total (blocked + duration), the time to the first byte and, when k6 says
// whether the connection was new, connect and TLS.
func (r *k6Req) timings(rec *Record, a *accum) {
	rec.Total = k6Ms(r.duration)
	if r.hasBlocked {
		rec.Total = k6Ms(r.blocked + r.duration)
	} else {
		a.note("k6: no http_req_blocked samples, so the total is http_req_duration alone: it excludes DNS, connect and TLS (B9) and under-counts cold connections")
	}
	rec.TTFB = k6Ms(r.waiting)
	if r.hasWaiting && r.hasReceiving {
		// http_req_waiting is the wait for the first byte after sending, http_req_receiving
		// the rest of the response: no pause within it outlasts the whole (silenceBound).
		rec.Silence = silenceBound(k6Ms(r.waiting), k6Ms(r.receiving))
		a.note("k6: silence is at most max(http_req_waiting, http_req_receiving): k6 times no pause within the body, so the read timeout derived from it errs long")
	}
	if !r.hasConnecting {
		return
	}
	if r.connecting > 0 {
		rec.Reused = 1
		rec.Connect = k6Ms(r.connecting)
		if r.hasTLS && r.tls > 0 {
			rec.TLS = k6Ms(r.tls)
		}
		return
	}
	rec.Reused = 2
}

// k6Ms is a k6 time value, in ms.
func k6Ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// k6ErrorClass maps k6's error codes (1050 request timeout, 11xx DNS, 12xx TCP, 13xx TLS;
// k6 docs "Error codes") and messages to probe's classes.
func k6ErrorClass(code, msg string) string {
	switch n, _ := strconv.Atoi(code); {
	case n == 1050 || n == 1211:
		return "timeout"
	case n >= 1100 && n < 1200:
		return "dns"
	case n == 1212:
		return "refused"
	case n >= 1200 && n < 1300:
		return "reset"
	case n >= 1300 && n < 1400:
		return "tls"
	}
	return classifyError(msg)
}

// vegeta results (B10, tsenart/vegeta lib/results.go): `vegeta encode -to json|csv`. latency
// is int64 nanoseconds, total only ("a black-box load testing tool", tsenart/vegeta#227);
// CSV columns: timestamp (Unix ns), code, latency (ns), bytes_out, bytes_in, error, body,
// attack, seq, method, url, headers. The default gob encoding is binary: encode it first.

type vegetaJSON struct {
	Code      int       `json:"code"`
	Timestamp time.Time `json:"timestamp"`
	Latency   *int64    `json:"latency"`
	Error     string    `json:"error"`
	Method    string    `json:"method"`
	URL       string    `json:"url"`
}

var digits19 = regexp.MustCompile(`^\d{16,20},\d{1,3},\d+,`)

func vegetaCSVLine(first []byte) bool { return digits19.Match(first) }

func vegetaLines(o Options, head []byte) (parserFactory, error) {
	if len(head) > 0 && (head[0] < 0x20 && head[0] != '\n' && head[0] != '\r' && head[0] != '\t' || bytes.HasPrefix(head, []byte{0x0d, 0xff})) {
		return nil, errors.New("this looks like vegeta's binary gob encoding: convert it with `vegeta encode -to json`")
	}
	return func() lineFunc {
		return func(line []byte, emit func(*Record), a *accum) error {
			rec := newRecord()
			if line[0] == '{' {
				var v vegetaJSON
				if err := json.Unmarshal(line, &v); err != nil {
					return fmt.Errorf("not a vegeta JSON result: %v", err)
				}
				if v.Latency == nil {
					return errors.New("no latency")
				}
				rec.Time, rec.Status, rec.Total, rec.Method = v.Timestamp, v.Code, time.Duration(*v.Latency), v.Method
				rec.ErrMsg = v.Error
				if u, err := url.Parse(v.URL); err == nil {
					rec.Host, rec.Path = u.Host, u.Path
				}
			} else {
				f, err := csv.NewReader(bytes.NewReader(line)).Read()
				if err != nil {
					return fmt.Errorf("not a vegeta CSV result: %v", err)
				}
				if len(f) < 3 {
					return fmt.Errorf("%d columns, want at least 3 (timestamp, code, latency)", len(f))
				}
				ts, err1 := strconv.ParseInt(f[0], 10, 64)
				code, err2 := strconv.Atoi(f[1])
				lat, err3 := strconv.ParseInt(f[2], 10, 64)
				if err1 != nil || err2 != nil || err3 != nil {
					return errors.New("timestamp, code and latency must be integers (Unix ns, status, ns)")
				}
				rec.Time, rec.Status, rec.Total = time.Unix(0, ts), code, time.Duration(lat)
				if len(f) > 5 {
					rec.ErrMsg = f[5]
				}
				if len(f) > 10 {
					rec.Method = f[9]
					if u, err := url.Parse(f[10]); err == nil {
						rec.Host, rec.Path = u.Host, u.Path
					}
				}
			}
			if rec.Status == 0 {
				rec.Err = classifyError(rec.ErrMsg)
			}
			emit(&rec)
			return nil
		}
	}, nil
}

// curl -w (B11, curl docs/cmdline-opts/write-out.md): every time_* is seconds from the start
// of the transfer, cumulative, so phases are differences: DNS = namelookup, TCP = connect −
// namelookup, TLS = appconnect − connect, server = starttransfer − pretransfer, total =
// time_total. num_connects 0 is a reused connection; num_retries (8.9.0) the --retry
// retries. Read from %{json} lines, name=value lines, or a -w template (--log-format).

var curlVar = regexp.MustCompile(`%\{([a-z_]+)\}`)

func curlLines(o Options, _ []byte) (parserFactory, error) {
	var t *logTemplate
	if o.LogFormat != "" {
		f := strings.NewReplacer(`\n`, "", `\r`, "", `\t`, "\t").Replace(o.LogFormat)
		f = curlVar.ReplaceAllString(f, "$${$1}")
		var err error
		if t, err = compileLogFormat("--log-format", f); err != nil {
			return nil, fmt.Errorf("--log-format: %w", err)
		}
		for i := range t.list {
			t.list[i] = false
		}
		if _, ok := t.idx["time_total"]; !ok {
			return nil, errors.New("--log-format: a curl -w template needs %{time_total}")
		}
	}
	return func() lineFunc {
		return func(line []byte, emit func(*Record), a *accum) error {
			vals := map[string]string{}
			switch {
			case t != nil:
				vs := make([][]byte, len(t.vars))
				if _, err := t.match(line, vs); err != nil {
					return err
				}
				for i, v := range t.vars {
					vals[v] = string(vs[i])
				}
			case line[0] == '{':
				dec := json.NewDecoder(bytes.NewReader(line))
				dec.UseNumber()
				var m map[string]any
				if err := dec.Decode(&m); err != nil {
					return fmt.Errorf("not a curl %%{json} line: %v", err)
				}
				for k, v := range m {
					vals[k] = fmt.Sprint(v)
				}
			default:
				for _, f := range strings.Fields(strings.NewReplacer(": ", ":", "=", ":").Replace(string(line))) {
					if k, v, ok := strings.Cut(f, ":"); ok {
						vals[k] = v
					}
				}
			}
			return curlEmit(vals, emit, a)
		}
	}, nil
}

func curlEmit(v map[string]string, emit func(*Record), a *accum) error {
	sec := func(k string) (time.Duration, bool) {
		s, ok := v[k]
		if !ok {
			return 0, false
		}
		d, ok := parseDuration([]byte(s), time.Second)
		return d, ok && d >= 0
	}
	total, ok := sec("time_total")
	if !ok {
		return errors.New("no time_total")
	}
	rec := newRecord()
	rec.Total = total
	code := v["response_code"]
	if code == "" {
		code = v["http_code"]
	}
	rec.Status, _ = strconv.Atoi(code)
	if rec.Status == 0 {
		rec.ErrMsg = v["errormsg"]
		rec.Err = curlExitClass(v["exitcode"], rec.ErrMsg)
	}
	rec.Method = v["method"]
	u := v["url_effective"]
	if u == "" {
		u = v["url"]
	}
	if pu, err := url.Parse(u); err == nil {
		rec.Host, rec.Path = pu.Host, pu.Path
	}
	if n, ok := v["num_retries"]; ok {
		if k, err := strconv.Atoi(n); err == nil {
			rec.Attempts = k + 1
		}
	}
	reused := v["num_connects"] == "0"
	if _, ok := v["num_connects"]; ok {
		rec.Reused = 1
		if reused {
			rec.Reused = 2
		}
	}
	dns, hasDNS := sec("time_namelookup")
	conn, hasConn := sec("time_connect")
	app, hasApp := sec("time_appconnect")
	pre, hasPre := sec("time_pretransfer")
	start, hasStart := sec("time_starttransfer")
	if !reused {
		if hasDNS {
			rec.DNS = dns
		}
		if hasConn && conn > 0 {
			rec.Connect = max(conn-dns, 0)
		}
		if hasApp && app > 0 && hasConn {
			rec.TLS = max(app-conn, 0)
		}
	}
	if hasStart && hasPre && start > 0 {
		rec.TTFB = max(start-pre, 0)
		if total >= start {
			// The wait after the request went out, then the transfer to time_total: no pause
			// within it outlasts the whole (silenceBound).
			rec.Silence = silenceBound(rec.TTFB, total-start)
			a.note("curl: silence is at most max(time_starttransfer − time_pretransfer, time_total − time_starttransfer): curl times no pause within the body, so the read timeout derived from it errs long")
		}
	}
	emit(&rec)
	return nil
}

// curlExitClass maps curl's exit codes (libcurl-errors: 6 resolve, 7 connect, 28 timeout,
// 35/60 TLS, 52/56 empty reply or receive failure) to probe's classes.
func curlExitClass(code, msg string) string {
	switch code {
	case "28":
		return "timeout"
	case "7":
		return "refused"
	case "6":
		return "dns"
	case "35", "51", "58", "60":
		return "tls"
	case "52", "55", "56":
		return "reset"
	}
	return classifyError(msg)
}
