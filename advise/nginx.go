package advise

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	inputpkg "github.com/patience-dev/patience/internal/input"
	"github.com/patience-dev/patience/internal/nginxconf"
	"github.com/patience-dev/patience/profile"
)

// nginx access logs (docs/formats.md#nginx-and-ingress-nginx). Times are "in seconds with a
// milliseconds resolution": $request_time from the first byte read from the client to the
// log write; $upstream_connect_time (TLS included), $upstream_header_time (upstream TTFB)
// and $upstream_response_time per upstream attempt, "separated by commas and colons like
// addresses in the $upstream_addr variable" — commas for the servers tried for one request
// (proxy_next_upstream), " : " for internal redirects. "-" when no upstream was contacted.
// The predefined `combined` format has no timing field at all.

// Formats known without --log-format, tried in this order on the first line.
var nginxKnown = []struct{ name, format string }{
	// ingress-nginx's default (docs/user-guide/nginx-configuration/log-format.md).
	{"ingress-nginx upstreaminfo", `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id`},
	// The common "timed" variant (B1), and combined followed by key=value timers.
	{"timed", `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`},
	{"combined + key=value timers", `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`},
}

// logTemplate is a compiled log_format: literal, then (variable, literal) pairs.
type logTemplate struct {
	name   string
	lead   string
	vars   []string
	lits   []string     // lits[i] follows vars[i]
	list   []bool       // vars[i] is a multi-value $upstream_* list
	codes  []nginxField // vars[i]'s field (0: one advise does not read)
	words  []litWord    // lits[i] as a word, for literals up to 8 bytes
	idx    map[string]int
	prefix bool // the line may go on after the template (key=value timers follow)
	json   bool // a JSON log_format (escape=json): read by keys
}

var nginxVar = regexp.MustCompile(`\$\{?([A-Za-z0-9_]+)\}?`)

// compileLogFormat compiles an nginx log_format string (the directive's quoted parts,
// already joined) into a template.
func compileLogFormat(name, format string) (*logTemplate, error) {
	if strings.TrimSpace(format) == "" {
		return nil, errors.New("empty log_format")
	}
	t := &logTemplate{name: name, idx: map[string]int{}}
	locs := nginxVar.FindAllStringSubmatchIndex(format, -1)
	if len(locs) == 0 {
		return nil, fmt.Errorf("log_format %q has no $variable", format)
	}
	t.lead = format[:locs[0][0]]
	for i, l := range locs {
		v := format[l[2]:l[3]]
		end := len(format)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		t.idx[v] = len(t.vars)
		t.vars = append(t.vars, v)
		t.lits = append(t.lits, format[l[1]:end])
		t.list = append(t.list, strings.HasPrefix(v, "upstream_"))
		t.codes = append(t.codes, nginxFieldOf[v])
		t.words = append(t.words, newLitWord(format[l[1]:end]))
	}
	return t, nil
}

// litWord is a literal of up to 8 bytes as a little-endian word and the mask of its bytes,
// so a candidate position is checked with one load and one comparison.
type litWord struct{ word, mask uint64 }

func newLitWord(lit string) litWord {
	if len(lit) == 0 || len(lit) > 8 {
		return litWord{}
	}
	var w litWord
	for i := range len(lit) {
		w.word |= uint64(lit[i]) << (8 * i)
		w.mask |= 0xff << (8 * i)
	}
	return w
}

// timed reports whether the template carries a timing variable.
func (t *logTemplate) timed() bool {
	for _, v := range []string{"request_time", "upstream_response_time", "upstream_header_time", "upstream_connect_time"} {
		if _, ok := t.idx[v]; ok {
			return true
		}
	}
	return t.prefix
}

// match splits line into the template's variable values (sub-slices of line); rest is what
// follows the template when it is a prefix one.
func (t *logTemplate) match(line []byte, vals [][]byte) (rest []byte, err error) {
	if len(line) < len(t.lead) || string(line[:len(t.lead)]) != t.lead {
		return nil, fmt.Errorf("does not start with %q", t.lead)
	}
	pos := len(t.lead)
	last := len(t.vars) - 1
	for i, lit := range t.lits {
		s := line[pos:]
		var n int
		switch {
		case t.list[i]:
			n = listLen(s, lit)
			if len(s)-n < len(lit) || string(s[n:n+len(lit)]) != lit {
				return nil, fmt.Errorf("$%s: no %q after it", t.vars[i], lit)
			}
		case lit == "":
			if i == last && !t.prefix {
				n = len(s)
			} else {
				n = bytes.IndexByte(s, ' ')
				if n < 0 {
					n = len(s)
				}
			}
		default:
			n = indexLit(s, lit, t.words[i])
			if n < 0 {
				return nil, fmt.Errorf("$%s: no %q after it", t.vars[i], lit)
			}
		}
		vals[i] = s[:n]
		pos += n + len(lit)
	}
	if pos < len(line) && !t.prefix {
		return nil, fmt.Errorf("%d unexpected bytes after the last field", len(line)-pos)
	}
	return line[pos:], nil
}

// indexLit is bytes.Index(s, lit) for a short literal: its first byte looked for by a loop
// over the next few bytes (most fields are short) and IndexByte past them, then a compare
// (one word's when w has the literal and 8 bytes are left).
func indexLit(s []byte, lit string, w litWord) int {
	c := lit[0]
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			if i&15 != 15 {
				continue
			}
			j := bytes.IndexByte(s[i+1:], c)
			if j < 0 {
				return -1
			}
			i += 1 + j
		}
		if len(s)-i < len(lit) {
			return -1
		}
		if w.mask != 0 && len(s)-i >= 8 {
			if binary.LittleEndian.Uint64(s[i:])&w.mask == w.word {
				return i
			}
			continue
		}
		if string(s[i+1:i+len(lit)]) == lit[1:] {
			return i
		}
	}
	return -1
}

// listLen is the length of a multi-value upstream field at the start of s: items without
// spaces joined by ", " or " : " (B1), ending before lit.
func listLen(s []byte, lit string) int {
	stop := byte(' ')
	if lit != "" && lit[0] != ' ' {
		stop = lit[0]
	}
	n := 0
	for {
		for n < len(s) && s[n] != ' ' && s[n] != ',' && s[n] != stop {
			n++
		}
		switch {
		case len(s)-n >= 2 && s[n] == ',' && s[n+1] == ' ':
			n += 2
		case len(s)-n >= 3 && s[n] == ' ' && s[n+1] == ':' && s[n+2] == ' ':
			n += 3
		default:
			return n
		}
	}
}

// readNginxConf reads the log_format directives of the nginx.conf spec names, PATH[#NAME]:
// the one named after '#', else the one the first access_log names, else the first.
func readNginxConf(spec string) (*logTemplate, error) {
	path, want, _ := strings.Cut(spec, "#")
	// Through internal/input (issue 24 item 2): capped as a config check reads (4 MiB, far
	// above any nginx.conf; /dev/zero was read without end) and abandoned by Ctrl-C while a
	// FIFO without a writer keeps it waiting.
	b, err := inputpkg.ReadFile(path, inputpkg.MaxCheck, nil)
	if err != nil {
		return nil, err
	}
	return nginxConfTemplate(path, b, want)
}

// NginxConf is the log_format of an nginx.conf, read and compiled before any input is: the
// one `--log-format -#NAME` pipes in on standard input, which can be read once, not once per
// log file as a --log-format path is. Options.NginxConf carries it.
type NginxConf struct{ t *logTemplate }

// ParseNginxConf compiles the log_format of an nginx.conf already read (data, at most
// internal/input.MaxCheck): the one named want, else the one the first access_log names,
// else the first. name labels its errors, NAME:LINE:COL at the directive that is wrong
// ("(stdin)" for standard input), as a --log-format path's are.
func ParseNginxConf(name string, data []byte, want string) (*NginxConf, error) {
	if len(data) > inputpkg.MaxCheck {
		return nil, &inputpkg.TooLargeError{Name: name, Limit: inputpkg.MaxCheck}
	}
	t, err := nginxConfTemplate(name, data, want)
	if err != nil {
		return nil, err
	}
	return &NginxConf{t: t}, nil
}

// nginxConfTemplate compiles the log_format of the nginx.conf data read from name (see
// ParseNginxConf). The grammar is nginx's own, shared with check (internal/nginxconf):
// quotes, escapes and comments as nginx reads them, a syntax error at NAME:LINE:COL as nginx
// words it, a log_format's strings joined. Its includes are not read. An error about the
// chosen directive names it at its NAME:LINE:COL.
func nginxConfTemplate(name string, data []byte, want string) (*logTemplate, error) {
	ds, err := nginxconf.Parse(name, data)
	if err != nil {
		return nil, err
	}
	byName := map[string]*nginxconf.Directive{}
	var order []string
	access := ""
	accessSeen := false
	var walk func(ds []*nginxconf.Directive)
	walk = func(ds []*nginxconf.Directive) {
		for _, d := range ds {
			switch {
			case d.Name == "log_format" && !d.Block && len(d.Args) >= 1:
				if _, seen := byName[d.Args[0]]; !seen {
					order = append(order, d.Args[0])
				}
				byName[d.Args[0]] = d // the last of a name, as nginx keeps it
			case d.Name == "access_log" && !d.Block && len(d.Args) >= 2 && !accessSeen:
				// The first access_log that names a format picks the format in use.
				access, accessSeen = d.Args[1], true
			}
			walk(d.Body)
		}
	}
	walk(ds)
	if len(order) == 0 {
		return nil, fmt.Errorf("%s: no log_format directive", name)
	}
	if want == "" {
		if _, ok := byName[access]; ok {
			want = access
		}
	}
	if want == "" {
		want = order[0]
	}
	d, ok := byName[want]
	if !ok {
		have := strings.Join(order, ", ")
		if len(order) > 10 {
			have = fmt.Sprintf("%s and %d more", strings.Join(order[:10], ", "), len(order)-10)
		}
		return nil, fmt.Errorf("%s: no log_format %q (have %s)", name, want, have)
	}
	at := fmt.Sprintf("%s:%d:%d", name, d.Line, d.Col)
	parts := d.Args[1:]
	if len(parts) > 0 && strings.HasPrefix(parts[0], "escape=") {
		parts = parts[1:]
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%s: log_format %s has no format: want log_format NAME [escape=default|json|none] 'format' …;", at, want)
	}
	f := strings.Join(parts, "")
	if strings.ContainsAny(f, "\r\n") {
		return nil, fmt.Errorf("%s: log_format %s: its format holds a line break (a quote closed on a later line?): nginx writes each entry over several lines, and advise reads one entry per line", at, want)
	}
	t, err := compileLogFormat(want, f)
	if err != nil {
		return nil, fmt.Errorf("%s: log_format %s: %w", at, want, err)
	}
	t.json = strings.HasPrefix(strings.TrimSpace(f), "{")
	if !t.json && !t.timed() {
		return nil, fmt.Errorf("%s: log_format %s has no timing field ($request_time, $upstream_response_time): nothing to advise from", at, want)
	}
	return t, nil
}

// nginxTemplate picks the template: --log-format (a format string, or an nginx.conf), else
// the first known format the first line matches.
func nginxTemplate(o Options, head []byte) (*logTemplate, error) {
	lf := o.LogFormat
	var t *logTemplate
	var err error
	switch {
	case o.NginxConf != nil:
		t = o.NginxConf.t
	case lf != "" && !strings.Contains(lf, "$"):
		if t, err = readNginxConf(lf); err != nil {
			return nil, fmt.Errorf("--log-format: %w", err)
		}
	case lf != "":
		if t, err = compileLogFormat("--log-format", lf); err != nil {
			return nil, fmt.Errorf("--log-format: %w", err)
		}
		t.json = strings.HasPrefix(strings.TrimSpace(lf), "{")
	default:
		first := firstLine(bytes.TrimLeft(head, " \t\r\n"))
		if len(first) > 0 && first[0] == '{' {
			return &logTemplate{name: "JSON", json: true}, nil
		}
		for _, k := range nginxKnown {
			c, _ := compileLogFormat(k.name, k.format)
			c.prefix = k.name == "combined + key=value timers"
			vals := make([][]byte, len(c.vars))
			rest, err := c.match(first, vals)
			if err != nil {
				continue
			}
			if c.prefix && !hasTimerKV(rest) {
				return nil, errors.New("the nginx combined format has no timing field (nginx.org ngx_http_log_module): add $request_time and $upstream_*_time to the log_format, or give the one in use with --log-format")
			}
			t = c
			break
		}
		if t == nil {
			return nil, errors.New("the first line matches no known nginx log_format; give yours with --log-format '…' or --log-format /etc/nginx/nginx.conf")
		}
	}
	if !t.json && !t.timed() {
		return nil, fmt.Errorf("log_format %s has no timing field ($request_time, $upstream_response_time): nothing to advise from", t.name)
	}
	return t, nil
}

// The key=value timers people append to combined (B1, "common custom lines").
var timerKeys = map[string]string{
	"rt": "request_time", "request_time": "request_time",
	"uct": "upstream_connect_time", "upstream_connect_time": "upstream_connect_time",
	"uht": "upstream_header_time", "upstream_header_time": "upstream_header_time",
	"urt": "upstream_response_time", "upstream_response_time": "upstream_response_time",
	"us": "upstream_status", "ust": "upstream_status", "upstream_status": "upstream_status",
	"host": "host", "ua": "",
}

func hasTimerKV(rest []byte) bool {
	return bytes.Contains(rest, []byte("rt=")) || bytes.Contains(rest, []byte("request_time=")) || bytes.Contains(rest, []byte("upstream_response_time="))
}

// scanKV reads key=value and key="value" pairs from rest into set.
func scanKV(rest []byte, set func(name string, v []byte)) {
	for len(rest) > 0 {
		rest = bytes.TrimLeft(rest, " ")
		eq := bytes.IndexByte(rest, '=')
		if eq <= 0 {
			return
		}
		key := rest[:eq]
		rest = rest[eq+1:]
		var v []byte
		if len(rest) > 0 && rest[0] == '"' {
			end := bytes.IndexByte(rest[1:], '"')
			if end < 0 {
				return
			}
			v, rest = rest[1:1+end], rest[2+end:]
		} else {
			end := bytes.IndexByte(rest, ' ')
			if end < 0 {
				end = len(rest)
			}
			// A list value (", ") goes on after the space.
			for end < len(rest) && end > 0 && rest[end-1] == ',' {
				next := bytes.IndexByte(rest[end+1:], ' ')
				if next < 0 {
					end = len(rest)
				} else {
					end += 1 + next
				}
			}
			v, rest = rest[:end], rest[end:]
		}
		if name, ok := timerKeys[string(key)]; ok && name != "" { // no allocation: map index by a converted []byte
			set(name, v)
		}
	}
}

// nginxFields are one line's values by variable name.
type nginxFields struct {
	// v holds the values by field (nil: not on the line).
	v [numFields][]byte
	// scratch holds the attempt lists between lines (no allocation per line).
	scratch [4][][]byte
	// needPath: the path is read only when --by route or --filter needs it.
	needPath bool
	host0    string
}

// nginxField names a variable advise reads (0: one it does not).
type nginxField uint8

const (
	fieldNone nginxField = iota
	fieldRequest
	fieldMethod
	fieldURI
	fieldHost
	fieldStatus
	fieldTimeLocal
	fieldTimeISO
	fieldMsec
	fieldRequestTime
	fieldUCT
	fieldUHT
	fieldURT
	fieldUST
	numFields
)

// nginxFieldOf maps a variable's name to its field.
var nginxFieldOf = map[string]nginxField{
	"request": fieldRequest, "request_method": fieldMethod, "request_uri": fieldURI, "uri": fieldURI,
	"host": fieldHost, "http_host": fieldHost, "server_name": fieldHost, "status": fieldStatus,
	"time_local": fieldTimeLocal, "time_iso8601": fieldTimeISO, "msec": fieldMsec,
	"request_time": fieldRequestTime, "upstream_connect_time": fieldUCT,
	"upstream_header_time": fieldUHT, "upstream_response_time": fieldURT, "upstream_status": fieldUST,
}

func (f *nginxFields) set(name string, v []byte) { f.setField(nginxFieldOf[name], v) }

func (f *nginxFields) setField(c nginxField, v []byte) {
	if (c == fieldURI || c == fieldHost) && f.v[c] != nil {
		return // the first of $request_uri and $uri, of $host, $http_host and $server_name
	}
	f.v[c] = v
}

func nginxLines(o Options, head []byte) (parserFactory, error) {
	t, err := nginxTemplate(o, head)
	if err != nil {
		return nil, err
	}
	return func() lineFunc {
		vals := make([][]byte, len(t.vars))
		tc := &timeCache{}
		// One of each per worker, reused for every line: nothing is allocated per line.
		f := nginxFields{needPath: o.By == ByRoute || o.Filter != ""}
		var rec Record
		set := f.set
		return func(line []byte, emit func(*Record), a *accum) error {
			f.v = [numFields][]byte{}
			if t.json {
				if err := nginxJSON(line, &f); err != nil {
					return err
				}
			} else {
				rest, err := t.match(line, vals)
				if err != nil {
					return err
				}
				for i, c := range t.codes {
					if c != fieldNone {
						f.setField(c, vals[i])
					}
				}
				if t.prefix {
					scanKV(rest, set)
				}
			}
			return nginxEmit(&f, tc, &rec, emit, a)
		}
	}, nil
}

// nginxJSON reads a JSON log_format line (escape=json; the ingress-nginx docs' example): the
// keys are the variables' names.
func nginxJSON(line []byte, f *nginxFields) error {
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	for k, v := range m {
		var b []byte
		switch x := v.(type) {
		case string:
			b = []byte(x)
		case float64:
			b = []byte(strings.TrimSuffix(fmt.Sprintf("%.6f", x), "0"))
		case json.Number:
			b = []byte(x)
		default:
			continue
		}
		name := strings.TrimPrefix(k, "$")
		if n, ok := timerKeys[name]; ok && n != "" {
			name = n
		}
		switch name {
		case "time":
			name = "time_iso8601"
		case "method":
			name = "request_method"
		case "path":
			name = "uri"
		case "request_uri", "uri":
		}
		f.set(name, b)
	}
	return nil
}

// timeCache parses $time_local once per distinct second (a busy log repeats it).
type timeCache struct {
	last [32]byte
	n    int // len of last; 0: none yet
	t    time.Time
}

const timeLocalLayout = "02/Jan/2006:15:04:05 -0700"

func (c *timeCache) local(b []byte) (time.Time, bool) {
	if c.n > 0 && string(b) == string(c.last[:c.n]) {
		return c.t, true
	}
	t, ok := parseTimeLocal(b)
	if !ok {
		// Whatever the fast path does not take (a one-digit hour, a +2400 zone, an error),
		// time.Parse decides.
		var err error
		if t, err = time.Parse(timeLocalLayout, string(b)); err != nil {
			return time.Time{}, false
		}
	}
	if len(b) <= len(c.last) {
		c.n = copy(c.last[:], b)
		c.t = t
	}
	return t, true
}

// parseTimeLocal reads the common $time_local, "01/May/2024:13:04:05 +0000" (two-digit
// fields, a month spelt as nginx spells it, a valid date and zone), as the instant
// time.Parse(timeLocalLayout) reads; ok is false for anything else, which time.Parse then
// reads or rejects. The time is in UTC (the instant is what advise uses).
func parseTimeLocal(b []byte) (t time.Time, ok bool) {
	if !timeLocalShape(b) {
		return time.Time{}, false
	}
	day, month, year := decDigits(b[0:2]), shortMonth(b[3:6]), decDigits(b[7:11])
	hour, minute, sec := decDigits(b[12:14]), decDigits(b[15:17]), decDigits(b[18:20])
	off, zoneOK := timeLocalZone(b[21:26])
	if month == 0 || !validDate(year, month, day) || !validClock(hour, minute, sec) || !zoneOK {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC).Add(-time.Duration(off) * time.Second), true
}

// timeLocalShape says whether b has timeLocalLayout's length and separators.
func timeLocalShape(b []byte) bool {
	return len(b) == len(timeLocalLayout) && b[2] == '/' && b[6] == '/' && b[11] == ':' && b[14] == ':' && b[17] == ':' && b[20] == ' '
}

// decDigits is the decimal number b spells, -1 when b holds anything but digits.
func decDigits(b []byte) int {
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		v = v*10 + int(c-'0')
	}
	return v
}

// shortMonth is the month (1–12) b names as nginx spells it ("May"), 0 when none.
func shortMonth(b []byte) int {
	for i, m := range shortMonths {
		if string(b) == m {
			return i + 1
		}
	}
	return 0
}

// validDate says whether day exists in month (1–12) of year.
func validDate(year, month, day int) bool {
	if day < 1 || year < 0 {
		return false
	}
	return day <= 28 || day <= time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// validClock says whether hour, minute and sec are a time of day (no leap second).
func validClock(hour, minute, sec int) bool {
	return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && sec >= 0 && sec <= 59
}

// timeLocalZone reads a "+hhmm" or "-hhmm" zone as its offset east of UTC in seconds.
func timeLocalZone(b []byte) (int, bool) {
	zh, zm := decDigits(b[1:3]), decDigits(b[3:5])
	if zh < 0 || zh > 23 || zm < 0 || zm > 59 || (b[0] != '+' && b[0] != '-') {
		return 0, false
	}
	off := (zh*60 + zm) * 60
	if b[0] == '-' {
		off = -off
	}
	return off, true
}

var shortMonths = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// splitList splits a multi-value upstream field into its attempts (B1: split on " : " then
// ", "); nil for an absent field.
func splitList(b []byte, out [][]byte) [][]byte {
	out = out[:0]
	if b == nil {
		return nil
	}
	if !hasListSep(b) {
		return append(out, bytes.TrimSpace(b))
	}
	for _, group := range bytes.Split(b, []byte(" : ")) {
		for _, item := range bytes.Split(group, []byte(", ")) {
			out = append(out, bytes.TrimSpace(item))
		}
	}
	return out
}

// hasListSep says whether b holds a ',' or a ':' (a short field: a loop beats two IndexByte
// calls).
func hasListSep(b []byte) bool {
	for _, c := range b {
		if c == ',' || c == ':' {
			return true
		}
	}
	return false
}

// nginxEmit emits the line's request, built in rec: one record per request, whatever the
// upstream attempts nginx made for it (counted in rec.Attempts).
func nginxEmit(f *nginxFields, tc *timeCache, rec *Record, emit func(*Record), a *accum) error {
	*rec = newRecord()
	status, ok := parseStatus(f.v[fieldStatus])
	if !ok {
		return fmt.Errorf("status %q is not an HTTP status", f.v[fieldStatus])
	}
	f.request(rec)
	if err := f.when(tc, rec); err != nil {
		return err
	}
	if f.v[fieldURT] == nil {
		return f.emitRequestTime(rec, status, emit, a)
	}
	return f.emitUpstream(rec, status, emit, a)
}

// request sets rec's method, path (when needed) and host.
func (f *nginxFields) request(rec *Record) {
	if r := f.v[fieldRequest]; r != nil {
		m, _, _ := bytes.Cut(r, []byte{' '})
		rec.Method = methodName(m)
		if f.needPath {
			_, rec.Path = splitRequest(string(r))
		}
	}
	if f.v[fieldMethod] != nil {
		rec.Method = methodName(f.v[fieldMethod])
	}
	if f.v[fieldURI] != nil && f.needPath {
		_, rec.Path = splitRequest("X " + string(f.v[fieldURI]))
	}
	if h := f.v[fieldHost]; len(h) > 0 && string(h) != "-" {
		if string(h) != f.host0 {
			f.host0 = string(h)
		}
		rec.Host = f.host0
	}
}

// when sets rec's time: $time_local, else $time_iso8601, else $msec.
func (f *nginxFields) when(tc *timeCache, rec *Record) error {
	switch {
	case f.v[fieldTimeLocal] != nil:
		t, ok := tc.local(f.v[fieldTimeLocal])
		if !ok {
			return fmt.Errorf("$time_local %q: want %s", f.v[fieldTimeLocal], timeLocalLayout)
		}
		rec.Time = t
	case f.v[fieldTimeISO] != nil:
		t, err := time.Parse(time.RFC3339, string(f.v[fieldTimeISO]))
		if err != nil {
			return fmt.Errorf("$time_iso8601 %q: %v", f.v[fieldTimeISO], err)
		}
		rec.Time = t
	case f.v[fieldMsec] != nil:
		d, ok := parseDuration(f.v[fieldMsec], time.Second)
		if !ok {
			return fmt.Errorf("$msec %q is not a number", f.v[fieldMsec])
		}
		rec.Time = time.Unix(0, int64(d))
	}
	return nil
}

// emitRequestTime emits a line without upstream timers: its $request_time, the whole request
// as nginx saw it.
func (f *nginxFields) emitRequestTime(rec *Record, status int, emit func(*Record), a *accum) error {
	if f.v[fieldRequestTime] == nil {
		return errors.New("no $request_time or $upstream_response_time on this line")
	}
	d, ok := parseDuration(f.v[fieldRequestTime], time.Second)
	if !ok || d < 0 {
		return fmt.Errorf("$request_time %q is not a number of seconds", f.v[fieldRequestTime])
	}
	rec.Status, rec.Total, rec.Attempts = status, d, 0
	if status == 0 {
		rec.Err = "other"
	}
	if status == 504 {
		// RFC 9110 §15.6.5: a 504 is a gateway that "did not receive a timely response"
		// upstream — with no upstream fields to say whose, nginx's own timeout.
		nginxTimedOut(rec, d, "$status 504")
		a.note("a 504 is a request nginx's upstream did not answer in time (RFC 9110 §15.6.5): counted as unanswered at its $request_time, longer than every answer")
	}
	emit(rec)
	return nil
}

// nginxUpstream is a line's upstream fields split into their attempts: response, connect and
// header times, statuses.
type nginxUpstream struct {
	rt, ct, ht, st [][]byte
}

// upstream splits the line's upstream fields, in f's scratch lists.
func (f *nginxFields) upstream() nginxUpstream {
	sc := &f.scratch
	u := nginxUpstream{
		rt: splitList(f.v[fieldURT], sc[0][:0]), ct: splitList(f.v[fieldUCT], sc[1][:0]),
		ht: splitList(f.v[fieldUHT], sc[2][:0]), st: splitList(f.v[fieldUST], sc[3][:0]),
	}
	sc[0], sc[1], sc[2], sc[3] = u.rt, u.ct, u.ht, u.st
	return u
}

// emitUpstream emits a line with upstream timers: one record per request, the last attempt's
// (the one whose answer, or timeout, nginx passed on); the attempts before it were passed to
// the next upstream (proxy_next_upstream) and are counted in attempts.
func (f *nginxFields) emitUpstream(rec *Record, status int, emit func(*Record), a *accum) error {
	a.note("latency is $upstream_response_time of the attempt that answered each request (nginx's proxy_*_timeout applies to each attempt); connect is $upstream_connect_time, TLS included; ttfb is $upstream_header_time; requests, statuses and the error rate are per request ($status), attempts apart (attempts)")
	u := f.upstream()
	if len(u.rt) == 1 && string(u.rt[0]) == "-" {
		nginxSelfAnswered(rec, status, emit, a)
		return nil
	}
	last := len(u.rt) - 1
	for i := range last {
		if nginxAttemptTimedOut(u.st, u.ht, i) {
			d, _ := parseDuration(u.rt[i], time.Second)
			a.attemptUnanswered(d)
		}
	}
	rec.Status, rec.Attempts = status, len(u.rt)
	if err := f.answerTime(rec, u.rt[last], a); err != nil {
		return err
	}
	if err := f.lastAttempt(rec, u, last); err != nil {
		return err
	}
	if rec.Silence >= 0 {
		a.note(nginxSilenceNote)
	}
	if nginxAttemptTimedOut(u.st, u.ht, last) {
		nginxTimedOut(rec, rec.Total, "$upstream_status 504 with no response header")
		a.note("an attempt whose $upstream_status is 504 with no $upstream_header_time (or none logged) is nginx's own timeout (ngx_http_upstream_next, NGX_HTTP_UPSTREAM_FT_TIMEOUT → 504): its request is unanswered at that attempt's $upstream_response_time, longer than every answer")
	}
	if rec.Total < 0 && rec.Status != 0 && profile.GoodStatus(rec.Status) {
		return nil
	}
	emit(rec)
	return nil
}

// nginxSelfAnswered handles a request with no upstream contacted ($upstream_response_time
// "-"): a failure keeps its status; a success nginx answered itself (cache, return, static
// file) says nothing about the upstream.
func nginxSelfAnswered(rec *Record, status int, emit func(*Record), a *accum) {
	if profile.GoodStatus(status) {
		a.note(`requests answered by nginx itself ($upstream_response_time "-": cache, return or a static file) are left out: they say nothing about the upstream`)
		return
	}
	rec.Status, rec.Attempts = status, noAttempts
	emit(rec)
}

// answerTime sets rec's latency: the answering attempt's $upstream_response_time v, else
// (v "-") the request's own $request_time, which bounds it.
func (f *nginxFields) answerTime(rec *Record, v []byte, a *accum) error {
	if string(v) != "-" {
		d, ok := parseDuration(v, time.Second)
		if !ok || d < 0 {
			return fmt.Errorf("$upstream_response_time %q is not a list of seconds", f.v[fieldURT])
		}
		rec.Total = d
		return nil
	}
	if f.v[fieldRequestTime] == nil {
		return nil
	}
	if d, ok := parseDuration(f.v[fieldRequestTime], time.Second); ok && d >= 0 {
		rec.Total = d
		a.note(`a request whose last upstream attempt has no $upstream_response_time ("-") is timed by its $request_time`)
	}
	return nil
}

// lastAttempt checks the answering attempt's status and sets its connect and header times.
func (f *nginxFields) lastAttempt(rec *Record, u nginxUpstream, last int) error {
	if last < len(u.st) && string(u.st[last]) != "-" {
		if _, ok := parseStatus(u.st[last]); !ok {
			return fmt.Errorf("$upstream_status %q is not a list of statuses", f.v[fieldUST])
		}
	}
	if d, ok := nginxAttemptTime(u.ct, last); ok {
		rec.Connect = d
	}
	if d, ok := nginxAttemptTime(u.ht, last); ok {
		rec.TTFB = d
		wait := d
		if rec.Connect >= 0 && rec.Connect <= d {
			wait = d - rec.Connect
		}
		if rec.Total >= d {
			rec.Silence = silenceBound(wait, rec.Total-d)
		}
	}
	return nil
}

// nginxSilenceNote says what the silence phase is for an nginx log with
// $upstream_header_time: nginx times the attempt from its connect (u->start_time, set in
// ngx_http_upstream_connect), so $upstream_header_time less $upstream_connect_time is the
// wait for the header after the request went out, and the rest of $upstream_response_time
// is the body's transfer, which no pause within it outlasts (silenceBound).
const nginxSilenceNote = "silence is at most max($upstream_header_time − $upstream_connect_time, $upstream_response_time − $upstream_header_time): nginx logs no pause within the body, so the read timeout derived from it errs long"

// nginxAttemptTime is attempt i's time in list (seconds); false when the list has none for
// it ("-", missing, not a duration).
func nginxAttemptTime(list [][]byte, i int) (time.Duration, bool) {
	if i >= len(list) || string(list[i]) == "-" {
		return 0, false
	}
	d, ok := parseDuration(list[i], time.Second)
	return d, ok && d >= 0
}

// noAttempts marks a request nginx answered without contacting an upstream (attempts 0).
const noAttempts = -1

// nginxAttemptTimedOut says whether attempt i is nginx's own timeout: ngx_http_upstream_next
// (nginx src/http/ngx_http_upstream.c) sets the attempt's $upstream_status to 504
// (NGX_HTTP_GATEWAY_TIME_OUT) for NGX_HTTP_UPSTREAM_FT_TIMEOUT — connect, send or read
// timeout — and $upstream_header_time stays "-" (header_time is set only once the header was
// read, ngx_http_upstream_process_header). A 504 with a header time is the upstream's own
// answer. Without $upstream_header_time in the log (ingress-nginx's upstreaminfo) a 504 is
// taken as nginx's. A "-" status with a time is not a timeout: ngx_http_upstream_next
// finalizes with 499 (NGX_HTTP_CLIENT_CLOSED_REQUEST) before it sets the attempt's status
// when the client's connection failed — the client gave up; such a request keeps its 499.
func nginxAttemptTimedOut(ust, uht [][]byte, i int) bool {
	if i >= len(ust) || string(ust[i]) != "504" {
		return false
	}
	return i >= len(uht) || string(uht[i]) == "-"
}

// nginxTimedOut makes rec an unanswered request of duration d (unknown when d < 0).
func nginxTimedOut(rec *Record, d time.Duration, what string) {
	rec.Status, rec.Err, rec.Total = 0, "timeout", d
	rec.ErrMsg = "nginx 504 (" + what + "): the upstream did not answer before nginx's proxy_*_timeout"
	if d >= 0 {
		rec.ErrMsg += ", after " + d.String()
	}
}

// methodName is the method without an allocation for the common ones.
func methodName(b []byte) string {
	switch string(b) {
	case "GET":
		return "GET"
	case "POST":
		return "POST"
	case "PUT":
		return "PUT"
	case "DELETE":
		return "DELETE"
	case "HEAD":
		return "HEAD"
	case "PATCH":
		return "PATCH"
	case "OPTIONS":
		return "OPTIONS"
	}
	return string(b)
}
