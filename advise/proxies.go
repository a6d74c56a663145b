package advise

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// AWS ALB access logs (AWS, "Access log entries" of Application Load Balancers,
// elasticloadbalancing/latest/application/load-balancer-access-logs.html): space-delimited,
// fields appended at the end over time (the ones not expected are ignored).
// request_processing_time, target_processing_time and response_processing_time are "in
// seconds, with millisecond precision"; target_processing_time is the target's TTFB, "the
// server side of the timeout": it is the latency here. All three are -1 when the load
// balancer could not dispatch the request, the target closed the connection, or the target
// did not answer before the timeout — a request with no duration in them, never a zero. Such
// a row still has its duration: `time` is when the load balancer answered the client (or
// gave up) and `request_creation_time` when it received the request, so a 504 (no answer
// from the target before its timeout, 10 s to connect) or a 460 (the client closed the
// connection before the load balancer could answer) is an unanswered request of that known
// duration — a latency known only to be longer (right-censored), as probe counts a request
// unanswered within --max-timeout.
//
// Classic ELB logs (the same page for Classic Load Balancers) have no leading type field and
// no request_creation_time: the same fields one place to the left, a -1 row's duration not
// known.

var albTypes = map[string]bool{"http": true, "https": true, "h2": true, "grpcs": true, "ws": true, "wss": true}

// classicELBRe is the start of a Classic ELB entry: time elb client:port backend:port (or
// "-"), the three processing times, the two statuses (or "-" for a TCP listener), the bytes,
// and the quoted request.
var classicELBRe = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z \S+ \S+:\d+ (?:\S+:\d+|-) -?[\d.]+ -?[\d.]+ -?[\d.]+ (?:\d{3}|-) (?:\d{3}|-) \d+ \d+ "`)

// albLine says whether a line is an ALB entry, or a Classic ELB one (read by the same reader).
func albLine(first []byte) bool {
	sp := bytes.IndexByte(first, ' ')
	if len(first) > 0 && first[0] >= '0' && first[0] <= '9' {
		return classicELBRe.Match(first)
	}
	if sp <= 0 || !albTypes[string(first[:sp])] {
		return false
	}
	rest := first[sp+1:]
	return len(rest) > 20 && rest[4] == '-' && rest[10] == 'T'
}

// isoStamp says whether s looks like an ISO 8601 timestamp (2019-10-14T12:00:20.694172Z):
// the first field of a Classic ELB entry.
func isoStamp(s string) bool {
	return len(s) > 19 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':'
}

// fieldsQuoted splits on spaces, keeping "quoted strings" (without their quotes) whole.
func fieldsQuoted(line []byte, out []string) []string {
	out = out[:0]
	for i := 0; i < len(line); {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i >= len(line) {
			break
		}
		if line[i] == '"' {
			j := i + 1
			for j < len(line) && (line[j] != '"' || line[j-1] == '\\') {
				j++
			}
			out = append(out, string(line[i+1:min(j, len(line))]))
			i = j + 1
			continue
		}
		j := bytes.IndexByte(line[i:], ' ')
		if j < 0 {
			j = len(line) - i
		}
		out = append(out, string(line[i:i+j]))
		i += j
	}
	return out
}

// ELB field positions in an ALB entry; a Classic ELB entry has each one place to the left
// (no type field) and ends after ssl_protocol.
const (
	elbTime             = 1
	elbTargetProcessing = 6
	elbStatus           = 8
	elbTargetStatus     = 9
	elbRequest          = 12
	elbRequestCreation  = 21
)

// elbNoAnswer says whether an ALB status on a -1 row means the target never answered: 504
// (no connection or no response before the timeout) or 460 (the client closed the
// connection first) — AWS, "Troubleshoot your Application Load Balancers", HTTP 460 and 504.
func elbNoAnswer(status int) bool { return status == 504 || status == 460 }

func albLines(o Options, _ []byte) (parserFactory, error) {
	return func() lineFunc {
		var f []string
		return func(line []byte, emit func(*Record), a *accum) error {
			f = fieldsQuoted(line, f)
			off, kind := 0, "an ALB"
			if len(f) > 0 && isoStamp(f[0]) {
				off, kind = -1, "a Classic ELB"
			}
			at := func(i int) string { return f[i+off] }
			if len(f) < elbRequest+off+1 {
				return fmt.Errorf("%d fields, %s entry has at least %d", len(f), kind, elbRequest+off+1)
			}
			rec := newRecord()
			t, err := time.Parse(time.RFC3339Nano, at(elbTime))
			if err != nil {
				return fmt.Errorf("time %q: %v", at(elbTime), err)
			}
			rec.Time = t
			if at(elbStatus) == "-" {
				// A Classic ELB TCP listener's entry: no HTTP at all.
				return fmt.Errorf("elb_status_code \"-\": %s TCP-listener entry, no HTTP request", kind)
			}
			elb, ok := parseStatus([]byte(at(elbStatus)))
			if !ok {
				return fmt.Errorf("elb_status_code %q is not a status", at(elbStatus))
			}
			rec.Status = elb
			if ts, ok := parseStatus([]byte(at(elbTargetStatus))); ok && ts > 0 {
				rec.Status = ts
			}
			m, u, _ := strings.Cut(at(elbRequest), " ")
			rec.Method = m
			u, _, _ = strings.Cut(u, " ")
			if pu, err := url.Parse(u); err == nil {
				rec.Host, rec.Path = pu.Hostname(), pu.Path
			}
			tpt := at(elbTargetProcessing)
			if tpt == "-1" {
				elbUnanswered(&rec, elb, f, off, a)
				emit(&rec)
				return nil
			}
			d, ok := parseDuration([]byte(tpt), time.Second)
			if !ok || d < 0 {
				return fmt.Errorf("target_processing_time %q is not a number of seconds", tpt)
			}
			rec.Total, rec.TTFB, rec.Silence = d, d, d
			a.note("ALB: silence is target_processing_time, the wait for the first byte; the body's pauses are not logged (the latency ends at that byte too), so the read timeout bounds the wait for the response head")
			emit(&rec)
			return nil
		}
	}, nil
}

// elbUnanswered fills the record of a row whose target_processing_time is -1: the load
// balancer's status, and for a 504 or 460 an unanswered request of the duration the row
// gives (time − request_creation_time).
func elbUnanswered(rec *Record, elb int, f []string, off int, a *accum) {
	rec.Status = elb
	var took time.Duration = unknown
	if off == 0 && len(f) > elbRequestCreation {
		if c, err := time.Parse(time.RFC3339Nano, f[elbRequestCreation]); err == nil && !rec.Time.Before(c) {
			took = rec.Time.Sub(c)
		}
	}
	switch {
	case elbNoAnswer(elb):
		why := "the target did not answer before the load balancer's timeout"
		if elb == 460 {
			why = "the client closed the connection before the target answered"
		}
		rec.Status, rec.Err, rec.Total = 0, "timeout", took
		if took >= 0 {
			rec.ErrMsg = fmt.Sprintf("ELB %d with target_processing_time -1: %s, after %s (time − request_creation_time)", elb, why, took)
			a.note("ALB: a row with target_processing_time -1 and status 504 (the target's timeout) or 460 (the client gave up) is an unanswered request; its duration is time − request_creation_time, counted as longer than every answer")
		} else {
			rec.ErrMsg = fmt.Sprintf("ELB %d with target_processing_time -1: %s", elb, why)
			a.note("ELB: unanswered requests (504, 460 with -1 times) without request_creation_time (a Classic ELB log) have no known duration")
		}
	case rec.Status == 0 || rec.Status < 400:
		rec.Status = 0
		rec.Err, rec.ErrMsg = "other", "target_processing_time -1: the request failed at the target"
	default:
		// The load balancer's own answer (400 malformed request, 502 the target closed
		// the connection, 503 no target): an answer, with no latency of the target.
	}
}

// HAProxy `option httplog` (B3, haproxy doc/configuration.txt §8.2.3 "HTTP log format"):
// TR/Tw/Tc/Tr/Ta in ms, -1 when the phase never completed; Tc is the TCP connect to the
// server, Tr the server's response headers after the connection was established (server
// TTFB), Ta the total active time. The server's share of an attempt — what `timeout server`
// and a client timeout face — is Ta − TR − Tw. The retries field %rc counts connection
// retries ("+" = redispatched). The termination state (§8.5) says who ended the session and
// in which phase: "sH" is `timeout server` striking before the server returned its response
// headers (HAProxy answers 504), "CH" the client aborting while waiting for the server to
// start responding — both are requests the server never answered, of known duration
// Ta − TR − Tw. ("cH" is `timeout client` while HAProxy waited for the client's own data: not
// the server's latency.)
//
// Lines in a syslog file that are not requests are counted malformed with their reason:
// HAProxy's own notices ("Proxy www started."), connection errors logged as
// "frontend/bind: SSL handshake failure" (filebeat's haproxy pipeline reads them as
// haproxy.error_message), and `option tcplog` lines (Tw/Tc/Tt, no HTTP status). filebeat's
// pipeline also allows a destination address between the server and the timers (a
// log-format with %[dst] or the Host): read and skipped here.

var haproxyRe = regexp.MustCompile(`(\S+):\d+ \[([^\]]+)\] (\S+) (\S+)/(\S+) (?:\S+ )?(-?\d+)/(-?\d+)/(-?\d+)/(-?\d+)/\+?(-?\d+) (-?\d{1,3}) \S+ \S+ \S+ (\S+) \d+/\d+/\d+/\d+/\+?(\d+) \d+/\d+ (?:\{[^}]*\} )*"([^"]*)"`)

// haproxyTCP is an `option tcplog` line: Tw/Tc/Tt, bytes, then the termination state.
var haproxyTCP = regexp.MustCompile(`\S+:\d+ \[[^\]]+\] \S+ \S+/\S+ -?\d+/-?\d+/\+?-?\d+ \d+ \S+ \d+/\d+/\d+/\d+/\+?\d+ \d+/\d+`)

// haproxyConnErr is a connection error line: "client:port [date] frontend/bind: message".
var haproxyConnErr = regexp.MustCompile(`\S+:\d+ \[[^\]]+\] \S+/\S+: (.+)$`)

// haproxyDefault is a line of HAProxy's default log format (no `option httplog` or
// `option tcplog`): "Connect from client:port to addr:port (frontend/mode)", no timers.
var haproxyDefault = regexp.MustCompile(`Connect from \S+:\d+ to \S+:\d+ \(\S+/\S+\)`)

// haproxyNotice is one of HAProxy's own messages in the syslog stream ("Proxy x started.").
var haproxyNotice = regexp.MustCompile(`haproxy\[\d+\]: ((?:Proxy|Backend|Server|Stopping|Pausing|Resuming|Enabling|Disabling) .*)$`)

func haproxyLine(first []byte) bool { return haproxyRe.Match(first) }

// haproxyNotRequest says why a line that is not an httplog line is not one.
func haproxyNotRequest(line []byte) error {
	switch {
	case haproxyTCP.Match(line):
		return errors.New("an HAProxy tcplog line (option tcplog): a TCP session with no HTTP status")
	case haproxyConnErr.Match(line):
		m := haproxyConnErr.FindSubmatch(line)
		return fmt.Errorf("an HAProxy connection error (%s): no request reached a server", m[1])
	case haproxyDefault.Match(line):
		return errors.New("an HAProxy default-format line (\"Connect from …\", no option httplog): no timers, no status")
	case haproxyNotice.Match(line):
		m := haproxyNotice.FindSubmatch(line)
		return fmt.Errorf("an HAProxy notice (%q), not a request", m[1])
	}
	return errors.New("not an HAProxy httplog line (client:port [date] frontend backend/server TR/Tw/Tc/Tr/Ta status …)")
}

func haproxyLines(o Options, _ []byte) (parserFactory, error) {
	return func() lineFunc {
		return func(line []byte, emit func(*Record), a *accum) error {
			m := haproxyRe.FindSubmatch(line)
			if m == nil {
				return haproxyNotRequest(line)
			}
			num := func(b []byte) int64 { n, _ := strconv.ParseInt(string(b), 10, 64); return n }
			TR, Tw, Tc, Tr, Ta := num(m[6]), num(m[7]), num(m[8]), num(m[9]), num(m[10])
			rec := newRecord()
			if t, err := time.Parse("02/Jan/2006:15:04:05.000", string(m[2])); err == nil {
				rec.Time = t
			}
			rec.Host = string(m[4])
			rec.Method, rec.Path = splitRequest(string(m[14]))
			st, _ := strconv.Atoi(string(m[11]))
			rec.Status = max(st, 0)
			term := string(m[12])
			rec.Attempts = int(num(m[13])) + 1
			ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
			if Tc >= 0 {
				rec.Connect = ms(Tc)
			}
			if Tr >= 0 {
				rec.TTFB = ms(Tr)
			}
			if Tr < 0 && Tc >= 0 && Ta >= 0 && len(term) >= 2 && term[1] == 'H' && (term[0] == 's' || term[0] == 'C') {
				// Connected, then no response headers before `timeout server` (sH) or
				// before the client gave up (CH): unanswered, of known duration.
				why := "timeout server struck"
				if term[0] == 'C' {
					why = "the client aborted"
				}
				rec.Status, rec.Err = 0, "timeout"
				rec.Total = ms(Ta - max(TR, 0) - max(Tw, 0))
				rec.ErrMsg = fmt.Sprintf("termination state %s: %s while waiting for the server's response headers, after %s", term, why, rec.Total)
				emit(&rec)
				return nil
			}
			if Tc < 0 || Tr < 0 || Ta < 0 {
				// The phase never completed: a failure with the status HAProxy gave.
				if rec.Status == 0 || rec.Status < 400 {
					rec.Status, rec.Err = 0, "other"
					if Tc < 0 {
						rec.Err = "refused"
					}
				}
				emit(&rec)
				return nil
			}
			rec.Total = ms(Ta - max(TR, 0) - max(Tw, 0))
			// Tr runs from the connection to the server's complete headers, Td = Ta − (TR + Tw
			// + Tc + Tr) is the data transfer after them (§8.2.3): no pause of the body outlasts
			// it (silenceBound).
			if td := rec.Total - ms(Tc) - ms(Tr); td >= 0 {
				rec.Silence = silenceBound(ms(Tr), td)
				a.note("HAProxy: silence is at most max(Tr, Td): the wait for the response headers after the connection, and the data transfer; HAProxy logs no pause within the body, so the read timeout derived from it errs long")
			}
			emit(&rec)
			return nil
		}
	}, nil
}

// Envoy and Istio access logs (B4): the default text format's %DURATION% is the total in ms,
// %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% the ms spent upstream; Istio inserts
// %RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS% "%UPSTREAM_TRANSPORT_FAILURE_REASON%"
// after the flags. Response flags UF (upstream connect failure) and UT (upstream timeout) are
// read as refused and timeout ([flag meanings from memory] in B4).

var envoyRe = regexp.MustCompile(`^\[([^\]]+)\] "(\S+) (\S+) ([^"]*)" (\d+) (\S+) (?:\S+ \S+ "[^"]*" )?(\d+) (\d+) (\d+) (\S+) "[^"]*" "[^"]*" "[^"]*" "([^"]*)"`)

func envoyLine(first []byte) bool { return envoyRe.Match(first) }

func envoyLines(o Options, _ []byte) (parserFactory, error) {
	return func() lineFunc {
		return func(line []byte, emit func(*Record), a *accum) error {
			m := envoyRe.FindSubmatch(line)
			if m == nil {
				return errors.New("not an Envoy default-format access log line")
			}
			rec := newRecord()
			if t, err := time.Parse(time.RFC3339Nano, string(m[1])); err == nil {
				rec.Time = t
			}
			rec.Method = string(m[2])
			_, rec.Path = splitRequest("X " + string(m[3]))
			rec.Host = string(m[11])
			st, _ := strconv.Atoi(string(m[5]))
			rec.Status = st
			flags := string(m[6])
			d, _ := strconv.ParseInt(string(m[9]), 10, 64)
			rec.Total = time.Duration(d) * time.Millisecond
			if up, err := strconv.ParseInt(string(m[10]), 10, 64); err == nil {
				rec.TTFB = time.Duration(up) * time.Millisecond
			}
			if st == 0 {
				rec.Err = "other"
				switch {
				case strings.Contains(flags, "UT"):
					rec.Err = "timeout"
				case strings.Contains(flags, "UF"):
					rec.Err = "refused"
				case strings.Contains(flags, "UC"):
					rec.Err = "reset"
				}
				rec.ErrMsg = "response flags " + flags
			}
			emit(&rec)
			return nil
		}
	}, nil
}
