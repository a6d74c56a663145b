package advise

import (
	"bytes"
	"errors"
	"fmt"
	"time"
)

// Apache httpd access logs (httpd mod_log_config, docs/manual/mod/mod_log_config.xml): the
// predefined "common" and "combined" LogFormats carry no duration at all — nothing to advise
// from, and Detect says so. The usual timed variant appends %D, "the time taken to serve the
// request, in microseconds", as a last field; %T is the same in whole seconds (--unit s), and
// %{ms}T in milliseconds (--unit ms). The time is from the request's arrival to the log
// write, the server's side of the request.

func apacheLines(o Options, _ []byte) (parserFactory, error) {
	unit := time.Microsecond
	if o.Unit != "" {
		u, err := ParseUnit(o.Unit)
		if err != nil {
			return nil, err
		}
		unit = u
	}
	return func() lineFunc {
		var tc timeCache
		vals := make([][]byte, 16)
		return func(line []byte, emit func(*Record), a *accum) error {
			var rest []byte
			var t *logTemplate
			for _, c := range clfTemplates {
				r, err := c.match(line, vals[:len(c.vars)])
				if err == nil {
					rest, t = r, c
					break
				}
			}
			if t == nil {
				return errors.New("not a common/combined log line")
			}
			field := bytes.TrimSpace(rest)
			if len(field) == 0 {
				return errors.New("no duration after the common/combined fields (%D)")
			}
			if !isDigits(field) {
				return fmt.Errorf("%q after the common/combined fields is not a whole number of %s", field, unitName(unit))
			}
			d, ok := parseDuration(field, unit)
			if !ok {
				return fmt.Errorf("duration %q is out of range", field)
			}
			rec := newRecord()
			rec.Total = d
			v := func(name string) []byte { return vals[t.idx[name]] }
			st, ok := parseStatus(v("status"))
			if !ok {
				return fmt.Errorf("status %q is not a status", v("status"))
			}
			rec.Status = st
			if st == 0 {
				rec.Err = "other"
			}
			if tm, ok := tc.local(v("time_local")); ok {
				rec.Time = tm
			}
			rec.Method, rec.Path = splitRequest(string(v("request")))
			a.note(fmt.Sprintf("Apache: latency is the last field read as %%D in %s (%%T: --unit s; %%{ms}T: --unit ms)", unitName(unit)))
			emit(&rec)
			return nil
		}
	}, nil
}
