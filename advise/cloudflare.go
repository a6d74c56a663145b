package advise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Cloudflare Logpush (and Logpull) http_requests records, one JSON object per line
// (cloudflare/cloudflare-docs src/content/docs/logs/reference/log-fields/zone/http_requests.md):
// EdgeStartTimestamp is when "the edge received request from the client", EdgeEndTimestamp
// when it "finished sending response to the client"; their difference is the request as the
// edge served it (origin included). Both are "int or string": the job's timestamp_format is
// unixnano (the default: integers of ns, also seen quoted), unix (integers of seconds) or
// rfc3339 (strings, whole seconds) — a duration needs ns (or an RFC 3339 time with a
// fraction), so whole seconds are refused per line, saying why. EdgeTimeToFirstByteMs (ms, TLS handshake and origin included) is the
// TTFB where the job pushes it. EdgeResponseStatus is what the client got;
// OriginResponseTime (deprecated) is ns and OriginResponseDurationMs ms, the origin's part.

type cloudflareRecord struct {
	Start  json.RawMessage `json:"EdgeStartTimestamp"`
	End    json.RawMessage `json:"EdgeEndTimestamp"`
	Status *int            `json:"EdgeResponseStatus"`
	Method string          `json:"ClientRequestMethod"`
	Host   string          `json:"ClientRequestHost"`
	URI    string          `json:"ClientRequestURI"`
	Path   string          `json:"ClientRequestPath"`
	TTFBMs *int64          `json:"EdgeTimeToFirstByteMs"`
}

// cloudflareLine says whether a line is a Cloudflare http_requests record.
func cloudflareLine(l []byte) bool {
	return len(l) > 0 && l[0] == '{' && bytes.Contains(l, []byte(`"EdgeStartTimestamp"`)) && bytes.Contains(l, []byte(`"EdgeEndTimestamp"`))
}

// cloudflareNanos reads a unixnano timestamp; the other timestamp formats are errors that
// say why.
func cloudflareNanos(name string, raw json.RawMessage) (int64, error) {
	if len(raw) == 0 {
		return 0, fmt.Errorf("no %s", name)
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("%s %s: %v", name, raw, err)
		}
		if !isDigits([]byte(s)) {
			// An RFC 3339 string: whole seconds unless it carries a fraction.
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return 0, fmt.Errorf("%s %q is neither a number nor an RFC 3339 time", name, s)
			}
			if !strings.Contains(s, ".") {
				return 0, fmt.Errorf("%s %q has whole seconds (timestamp_format rfc3339): push with timestamp_format unixnano for durations", name, s)
			}
			return t.UnixNano(), nil
		}
		raw = json.RawMessage(s) // "int or string": the digits of an integer, quoted
	}
	n, ok := int64Of(raw)
	if !ok {
		return 0, fmt.Errorf("%s %s is not an integer", name, raw)
	}
	if n < 1e17 {
		return 0, fmt.Errorf("%s %d is in seconds (timestamp_format unix): push with timestamp_format unixnano for durations", name, n)
	}
	return n, nil
}

func cloudflareLines(o Options, _ []byte) (parserFactory, error) {
	return func() lineFunc {
		return func(line []byte, emit func(*Record), a *accum) error {
			if line == nil {
				return nil
			}
			var c cloudflareRecord
			if err := json.Unmarshal(line, &c); err != nil {
				return fmt.Errorf("not JSON: %v", err)
			}
			start, err := cloudflareNanos("EdgeStartTimestamp", c.Start)
			if err != nil {
				return err
			}
			end, err := cloudflareNanos("EdgeEndTimestamp", c.End)
			if err != nil {
				return err
			}
			if end < start {
				return fmt.Errorf("EdgeEndTimestamp %d is before EdgeStartTimestamp %d", end, start)
			}
			if c.Status == nil {
				return errors.New("no EdgeResponseStatus")
			}
			rec := newRecord()
			rec.Time = time.Unix(0, start).UTC()
			rec.Total = time.Duration(end - start)
			rec.Status = *c.Status
			if rec.Status < 0 || rec.Status > 999 {
				return fmt.Errorf("EdgeResponseStatus %d", rec.Status)
			}
			if rec.Status == 0 {
				rec.Err = "other"
			}
			if c.TTFBMs != nil && *c.TTFBMs >= 0 {
				rec.TTFB = time.Duration(*c.TTFBMs) * time.Millisecond
			}
			rec.Method, rec.Host = c.Method, c.Host
			rec.Path = c.Path
			if rec.Path == "" && c.URI != "" {
				if u, err := url.Parse(c.URI); err == nil {
					rec.Path = u.Path
				}
			}
			a.note("Cloudflare: latency is EdgeEndTimestamp − EdgeStartTimestamp (unixnano): the request as the edge served it, origin included")
			emit(&rec)
			return nil
		}
	}, nil
}
