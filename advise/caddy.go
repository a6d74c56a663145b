package advise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Caddy's JSON access log (caddyserver/caddy modules/caddyhttp/server.go, (*Server).logRequest):
// one zap entry per request, "msg":"handled request", with zap.Duration("duration"),
// zap.Int("status") and the request object (marshalers.go LoggableHTTPRequest: method, host,
// uri, remote_ip, proto, headers). How zap writes a duration is the log encoder's
// duration_format (modules/logging/encoders.go): seconds as a float by default ("s"), or
// "ns" (an integer), "ms" (a float) or "string" ("17.5ms"). The file does not say which: a
// number is read as seconds unless --unit says otherwise; a string is read as Go writes it.
// Status 0 is "no response written by us (Go will write 200 to client)" (logRequest's
// comment): it is read as 200. ts is the encoder's time_format, Unix seconds as a float by
// default.

type caddyEntry struct {
	Msg     string          `json:"msg"`
	Logger  string          `json:"logger"`
	Ts      json.RawMessage `json:"ts"`
	Request *struct {
		Method string `json:"method"`
		Host   string `json:"host"`
		URI    string `json:"uri"`
	} `json:"request"`
	Duration json.RawMessage `json:"duration"`
	Status   *int            `json:"status"`
}

// caddyLine says whether a line is a Caddy access log entry.
func caddyLine(l []byte) bool {
	return len(l) > 0 && l[0] == '{' && bytes.Contains(l, []byte(`"duration"`)) && bytes.Contains(l, []byte(`"request"`)) &&
		(bytes.Contains(l, []byte(`"http.log.access`)) || bytes.Contains(l, []byte(`"handled request"`)))
}

func caddyLines(o Options, _ []byte) (parserFactory, error) {
	unit := time.Second
	unitSaid := "seconds, Caddy's default duration_format"
	if o.Unit != "" {
		u, err := ParseUnit(o.Unit)
		if err != nil {
			return nil, err
		}
		unit, unitSaid = u, "--unit "+unitName(u)
	}
	return func() lineFunc {
		return func(line []byte, emit func(*Record), a *accum) error {
			if line == nil {
				return nil
			}
			var e caddyEntry
			if err := json.Unmarshal(line, &e); err != nil {
				return fmt.Errorf("not JSON: %v", err)
			}
			if e.Request == nil {
				// Caddy's other loggers (startup, TLS, the admin API) share the file.
				a.note("Caddy entries without a request object (other loggers than http.log.access) are not samples")
				return nil
			}
			if len(e.Duration) == 0 {
				return errors.New("no duration")
			}
			if e.Status == nil {
				return errors.New("no status")
			}
			rec := newRecord()
			d, err := caddyDuration(e.Duration, unit)
			if err != nil {
				return err
			}
			rec.Total = d
			rec.Status = *e.Status
			if rec.Status == 0 {
				rec.Status = 200 // logRequest: "Go will write 200 to client"
			}
			if rec.Status < 100 || rec.Status > 999 {
				return fmt.Errorf("status %d is not a status", rec.Status)
			}
			rec.Method, rec.Host = e.Request.Method, e.Request.Host
			if h, _, ok := bytes.Cut([]byte(rec.Host), []byte(":")); ok {
				rec.Host = string(h)
			}
			_, rec.Path = splitRequest("X " + e.Request.URI)
			rec.Time = caddyTime(e.Ts)
			a.note("Caddy: latency is duration read in " + unitSaid + " (the log encoder's duration_format: s, ns, ms or string); status 0 is read as 200")
			emit(&rec)
			return nil
		}
	}, nil
}

// caddyDuration reads zap's encoding of a duration: a number in unit, or a Go duration string.
func caddyDuration(raw json.RawMessage, unit time.Duration) (time.Duration, error) {
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("duration %s: %v", raw, err)
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("duration %q is not a duration", s)
		}
		return d, nil
	}
	d, ok := parseDuration(raw, unit)
	if !ok || d < 0 {
		return 0, fmt.Errorf("duration %s is not a number of %s", raw, unitName(unit))
	}
	return d, nil
}

// caddyTime reads ts: Unix seconds as a float (the default), or an RFC 3339 string.
func caddyTime(raw json.RawMessage) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				return t
			}
		}
		return time.Time{}
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f <= 0 || f > math.MaxInt64/1e9 {
		return time.Time{}
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC()
}
