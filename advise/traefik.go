package advise

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Traefik access logs (traefik/traefik pkg/middlewares/accesslog). Two formats:
//
//   - "common" (the default): CommonLogFormatter.Format in logger_formatters.go writes
//     `ClientHost - ClientUsername [StartUTC] "RequestMethod RequestPath RequestProtocol"
//     OriginStatus OriginContentSize "Referer" "User-Agent" RequestCount "RouterName"
//     "ServiceURL" <n>ms`: the last field is Duration in whole milliseconds,
//     Duration.Nanoseconds()/1000000 — truncated, so "0ms" is anything under 1 ms.
//     Traefik v1 wrote the same layout with the frontend name and backend URL in the
//     router and service places. An absent field is "-" (toLog's defaultValue): OriginStatus
//     is absent when Traefik answered itself (a redirect, a middleware), with no origin
//     response to time.
//   - "json": the logrus JSON of the CoreLogData keys (logdata.go): Duration and
//     OriginDuration are time.Duration values, so integers of nanoseconds; Duration is "the
//     total time taken by processing the response, including the origin server's time";
//     DownstreamStatus is what the client got, OriginStatus what the origin answered;
//     RetryAttempts the retries the retry middleware made.

// traefikCLF matches the common format up to the last field; the quoted fields between the
// size and the duration are not read (Traefik does not escape quotes in them).
var traefikCLF = regexp.MustCompile(`^(\S+) \S+ (\S+) \[([^\]]+)\] "([^"]*)" (\S+) (\S+) .* (\d+)ms$`)

// traefikCLFLine says whether a line is one of Traefik's common format.
func traefikCLFLine(l []byte) bool { return bytes.HasSuffix(l, []byte("ms")) && traefikCLF.Match(l) }

// traefikJSONLine says whether a line is one of Traefik's JSON format.
func traefikJSONLine(l []byte) bool {
	return len(l) > 0 && l[0] == '{' && bytes.Contains(l, []byte(`"Duration"`)) &&
		(bytes.Contains(l, []byte(`"DownstreamStatus"`)) || bytes.Contains(l, []byte(`"OriginStatus"`)) || bytes.Contains(l, []byte(`"RequestMethod"`)))
}

// traefikJSON is the part of a JSON access log line advise reads (logdata.go's keys).
type traefikJSON struct {
	Duration         *int64 `json:"Duration"`
	OriginStatus     *int   `json:"OriginStatus"`
	DownstreamStatus *int   `json:"DownstreamStatus"`
	RequestMethod    string `json:"RequestMethod"`
	RequestPath      string `json:"RequestPath"`
	RequestHost      string `json:"RequestHost"`
	StartUTC         string `json:"StartUTC"`
	StartLocal       string `json:"StartLocal"`
	LogTime          string `json:"time"`
	RetryAttempts    int    `json:"RetryAttempts"`
}

func traefikLines(o Options, _ []byte) (parserFactory, error) {
	return func() lineFunc {
		var tc timeCache
		return func(line []byte, emit func(*Record), a *accum) error {
			if len(line) > 0 && line[0] == '{' {
				return traefikJSONRecord(line, emit, a)
			}
			m := traefikCLF.FindSubmatch(line)
			if m == nil {
				return errors.New("not a Traefik common-format line (…\"ServiceURL\" <n>ms)")
			}
			rec := newRecord()
			if t, ok := tc.local(m[3]); ok {
				rec.Time = t
			}
			rec.Method, rec.Path = splitRequest(string(m[4]))
			if string(m[5]) == "-" {
				// No OriginStatus: Traefik answered itself, nothing upstream was timed.
				a.note("Traefik lines whose OriginStatus is \"-\" (Traefik answered itself: a redirect, a middleware) are not samples")
				return nil
			}
			st, ok := parseStatus(m[5])
			if !ok {
				return fmt.Errorf("OriginStatus %q is not a status", m[5])
			}
			ms, err := strconv.ParseInt(string(m[7]), 10, 64)
			if err != nil || ms > int64(time.Duration(1<<63-1)/time.Millisecond) {
				return fmt.Errorf("duration %qms is not a number of milliseconds", m[7])
			}
			rec.Status = st
			if st == 0 {
				rec.Err, rec.ErrMsg = "other", "OriginStatus 0: the origin gave no response"
			}
			rec.Total = time.Duration(ms) * time.Millisecond
			a.note("Traefik common format: the duration is whole milliseconds, truncated (\"0ms\" is anything under 1 ms)")
			emit(&rec)
			return nil
		}
	}, nil
}

func traefikJSONRecord(line []byte, emit func(*Record), a *accum) error {
	var j traefikJSON
	if err := json.Unmarshal(line, &j); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if j.Duration == nil {
		return errors.New("JSON without Duration")
	}
	if *j.Duration < 0 {
		return fmt.Errorf("negative Duration %d", *j.Duration)
	}
	rec := newRecord()
	rec.Total = time.Duration(*j.Duration)
	rec.Method, rec.Host = j.RequestMethod, j.RequestHost
	_, rec.Path = splitRequest("X " + j.RequestPath)
	// StartUTC, else StartLocal (both RFC 3339 with a zone), else logrus's own time (the log
	// write, whole seconds).
	for _, s := range []string{j.StartUTC, j.StartLocal, j.LogTime} {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			rec.Time = t
			break
		}
	}
	switch {
	case j.DownstreamStatus != nil:
		rec.Status = *j.DownstreamStatus
	case j.OriginStatus != nil:
		rec.Status = *j.OriginStatus
	default:
		return errors.New("neither DownstreamStatus nor OriginStatus")
	}
	if rec.Status < 0 || rec.Status > 999 {
		return fmt.Errorf("status %d is not a status", rec.Status)
	}
	if rec.Status == 0 {
		rec.Err, rec.ErrMsg = "other", "status 0: no response"
	}
	if j.RetryAttempts >= 0 {
		rec.Attempts = j.RetryAttempts + 1
	}
	a.note("Traefik JSON: latency is Duration (ns, the whole request as Traefik served it, origin included); attempts are RetryAttempts + 1")
	emit(&rec)
	return nil
}
