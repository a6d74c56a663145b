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

// AWS ALB access logs (config-and-log-sources.md B5): space-delimited, fields appended at the
// end over time (ignore the ones not expected). request_processing_time,
// target_processing_time and response_processing_time are "in seconds, with millisecond
// precision"; -1 means the load balancer could not dispatch the request or the target did not
// answer before the idle timeout — a failure, never a zero. target_processing_time is the
// target's TTFB, "the server side of the timeout": it is the latency here.

var albTypes = map[string]bool{"http": true, "https": true, "h2": true, "grpcs": true, "ws": true, "wss": true}

func albLine(first []byte) bool {
	sp := bytes.IndexByte(first, ' ')
	if sp <= 0 || !albTypes[string(first[:sp])] {
		return false
	}
	rest := first[sp+1:]
	return len(rest) > 20 && rest[4] == '-' && rest[10] == 'T'
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

func albLines(o Options, _ []byte) (parserFactory, error) {
	return func() lineFunc {
		var f []string
		return func(line []byte, emit func(*Record), a *accum) error {
			f = fieldsQuoted(line, f)
			if len(f) < 14 {
				return fmt.Errorf("%d fields, an ALB entry has at least 14", len(f))
			}
			rec := newRecord()
			t, err := time.Parse(time.RFC3339Nano, f[1])
			if err != nil {
				return fmt.Errorf("time %q: %v", f[1], err)
			}
			rec.Time = t
			elb, ok := parseStatus([]byte(f[8]))
			if !ok {
				return fmt.Errorf("elb_status_code %q is not a status", f[8])
			}
			rec.Status = elb
			if ts, ok := parseStatus([]byte(f[9])); ok && ts > 0 {
				rec.Status = ts
			}
			m, u, _ := strings.Cut(f[12], " ")
			rec.Method = m
			u, _, _ = strings.Cut(u, " ")
			if pu, err := url.Parse(u); err == nil {
				rec.Host, rec.Path = pu.Hostname(), pu.Path
			}
			tpt := f[6]
			if tpt == "-1" {
				// Not dispatched, or no answer before the idle timeout: a failure with the
				// load balancer's status.
				rec.Status = elb
				if rec.Status == 0 || rec.Status < 400 {
					rec.Status = 0
					rec.Err, rec.ErrMsg = "other", "target_processing_time -1: the request failed at the target"
				}
				emit(&rec)
				return nil
			}
			d, ok := parseDuration([]byte(tpt), time.Second)
			if !ok || d < 0 {
				return fmt.Errorf("target_processing_time %q is not a number of seconds", tpt)
			}
			rec.Total, rec.TTFB = d, d
			emit(&rec)
			return nil
		}
	}, nil
}

// HAProxy `option httplog` (B3, haproxy doc/configuration.txt §8.2.3): TR/Tw/Tc/Tr/Ta in ms,
// -1 when the phase never completed; Tc is the TCP connect to the server, Tr the server's
// response headers after the connection was established (server TTFB), Ta the total active
// time. The server's share of an attempt — what `timeout server` and a client timeout face —
// is Ta − TR − Tw. The retries field %rc counts connection retries ("+" = redispatched).

var haproxyRe = regexp.MustCompile(`(\S+):\d+ \[([^\]]+)\] (\S+) (\S+)/(\S+) (-?\d+)/(-?\d+)/(-?\d+)/(-?\d+)/\+?(-?\d+) (-?\d{1,3}) \S+ \S+ \S+ \S+ \d+/\d+/\d+/\d+/\+?(\d+) \d+/\d+ (?:\{[^}]*\} )*"([^"]*)"`)

func haproxyLine(first []byte) bool { return haproxyRe.Match(first) }

func haproxyLines(o Options, _ []byte) (parserFactory, error) {
	return func() lineFunc {
		return func(line []byte, emit func(*Record), a *accum) error {
			m := haproxyRe.FindSubmatch(line)
			if m == nil {
				return errors.New("not an HAProxy httplog line")
			}
			num := func(b []byte) int64 { n, _ := strconv.ParseInt(string(b), 10, 64); return n }
			TR, Tw, Tc, Tr, Ta := num(m[6]), num(m[7]), num(m[8]), num(m[9]), num(m[10])
			rec := newRecord()
			if t, err := time.Parse("02/Jan/2006:15:04:05.000", string(m[2])); err == nil {
				rec.Time = t
			}
			rec.Host = string(m[4])
			rec.Method, rec.Path = splitRequest(string(m[13]))
			st, _ := strconv.Atoi(string(m[11]))
			rec.Status = max(st, 0)
			rec.Attempts = int(num(m[12])) + 1
			ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
			if Tc >= 0 {
				rec.Connect = ms(Tc)
			}
			if Tr >= 0 {
				rec.TTFB = ms(Tr)
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
