package advise

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The W3C extended log file format (W3C Working Draft WD-logfile-960323, Hallam-Baker and
// Behlendorf) as IIS writes it: directive lines start with '#', "#Fields:" names the columns
// of the lines after it (a new #Fields: directive, after a restart, changes them), values are
// separated by spaces, "-" is no value, and quoted strings hold spaces (a quote inside is
// doubled). The unit of time-taken is the trap: the draft says "time taken for transaction to
// complete in seconds", IIS writes milliseconds ("The length of time that the action took, in
// milliseconds", IIS W3C logging fields; Microsoft KB 944884: from HTTP.sys's first byte of
// the request to the last send's completion, client network time included). So time-taken is
// read in milliseconds when #Software names IIS (Microsoft Internet Information Services, IIS
// Advanced Logging), a column named in milliseconds (IIS Advanced Logging's TimeTakenMS) is
// milliseconds, and otherwise --unit must say. The time is date + time (UTC in IIS) or
// date-local + time-local (the server's zone, not written: read as UTC).

// w3cHead says whether the sample opens with W3C directives and has a #Fields: line.
func w3cHead(lines [][]byte) bool {
	if len(lines) == 0 || lines[0][0] != '#' {
		return false
	}
	for _, l := range lines {
		if l[0] != '#' {
			return false
		}
		if bytes.HasPrefix(l, []byte("#Fields:")) {
			return true
		}
	}
	return false
}

// w3cFields splits a W3C line into its values: space-separated, "quoted" values whole (a
// doubled quote inside is one quote).
func w3cFields(line []byte, out []string) ([]string, error) {
	out = out[:0]
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		if line[i] != '"' {
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '\t' {
				j++
			}
			out = append(out, string(line[i:j]))
			i = j
			continue
		}
		var b strings.Builder
		j := i + 1
		for {
			if j >= len(line) {
				return out, errors.New("a quoted value does not end")
			}
			if line[j] == '"' {
				if j+1 < len(line) && line[j+1] == '"' {
					b.WriteByte('"')
					j += 2
					continue
				}
				j++
				break
			}
			b.WriteByte(line[j])
			j++
		}
		out = append(out, b.String())
		i = j
	}
	return out, nil
}

// w3cLayout is where the columns advise reads are, from the last #Fields: directive.
type w3cLayout struct {
	taken, status, method, stem, host, date, time int
	local                                         bool
	unit                                          time.Duration
	unitWhy                                       string
	takenName                                     string
}

func w3cLines(o Options, _ []byte) (parserFactory, error) {
	var given time.Duration
	if o.Unit != "" {
		u, err := ParseUnit(o.Unit)
		if err != nil {
			return nil, err
		}
		given = u
	}
	return func() lineFunc {
		var L *w3cLayout
		iis := false
		var f []string
		return func(line []byte, emit func(*Record), a *accum) error {
			if line == nil {
				return nil
			}
			if line[0] == '#' {
				switch {
				case bytes.HasPrefix(line, []byte("#Software:")):
					s := string(line)
					iis = strings.Contains(s, "Internet Information Services") || strings.Contains(s, "IIS")
				case bytes.HasPrefix(line, []byte("#Fields:")):
					var err error
					if L, err = w3cLayoutOf(strings.Fields(string(line[len("#Fields:"):])), iis, given); err != nil {
						L = nil
						return &fatalError{err}
					}
					a.note(fmt.Sprintf("W3C: latency is %s read in %s (%s)", L.takenName, unitName(L.unit), L.unitWhy))
					if L.local {
						a.note("W3C: date-local/time-local carry no zone: the times are read as UTC")
					}
				}
				return nil
			}
			if L == nil {
				return errors.New("a W3C entry before any #Fields: directive")
			}
			var err error
			if f, err = w3cFields(line, f); err != nil {
				return err
			}
			col := func(i int) string {
				if i < 0 || i >= len(f) || f[i] == "-" {
					return ""
				}
				return f[i]
			}
			v := col(L.taken)
			if v == "" {
				return fmt.Errorf("%s: no value", L.takenName)
			}
			d, ok := parseDuration([]byte(v), L.unit)
			if !ok || d < 0 {
				return fmt.Errorf("%s %q is not a number of %s", L.takenName, v, unitName(L.unit))
			}
			rec := newRecord()
			rec.Total = d
			st, err := strconv.Atoi(col(L.status))
			if err != nil || st < 0 || st > 999 {
				return fmt.Errorf("sc-status %q is not a status", col(L.status))
			}
			rec.Status = st
			if st == 0 {
				rec.Err = "other"
			}
			rec.Method, rec.Path, rec.Host = col(L.method), col(L.stem), col(L.host)
			if ds, ts := col(L.date), col(L.time); ds != "" && ts != "" {
				if t, err := time.Parse("2006-01-02 15:04:05.999999999", ds+" "+ts); err == nil {
					rec.Time = t
				}
			}
			emit(&rec)
			return nil
		}
	}, nil
}

// w3cLayoutOf finds the columns in a #Fields: list and decides time-taken's unit.
func w3cLayoutOf(names []string, iis bool, given time.Duration) (*w3cLayout, error) {
	L := &w3cLayout{taken: -1, status: -1, method: -1, stem: -1, host: -1, date: -1, time: -1}
	for i, n := range names {
		switch strings.ToLower(n) {
		case "time-taken", "timetakenms", "time-taken-ms":
			L.taken, L.takenName = i, n
		case "sc-status":
			L.status = i
		case "cs-method":
			L.method = i
		case "cs-uri-stem":
			L.stem = i
		case "cs-host", "cs(host)":
			L.host = i
		case "date":
			L.date = i
		case "time":
			L.time = i
		case "date-local":
			if L.date < 0 {
				L.date, L.local = i, true
			}
		case "time-local":
			if L.time < 0 {
				L.time, L.local = i, true
			}
		}
	}
	if L.taken < 0 {
		return nil, fmt.Errorf("#Fields: %s has no time-taken: nothing to advise from (add time-taken to the logged fields)", strings.Join(names, " "))
	}
	if L.status < 0 {
		return nil, fmt.Errorf("#Fields: %s has no sc-status", strings.Join(names, " "))
	}
	switch {
	case given != 0:
		L.unit, L.unitWhy = given, "--unit"
	case strings.HasSuffix(strings.ToLower(L.takenName), "ms"):
		L.unit, L.unitWhy = time.Millisecond, "the column is named in milliseconds"
	case iis:
		L.unit, L.unitWhy = time.Millisecond, "IIS writes milliseconds; the W3C draft said seconds"
	default:
		return nil, errors.New("time-taken's unit is not written down: the W3C draft says seconds, IIS writes milliseconds, and no #Software: names IIS — give --unit ms (IIS) or --unit s")
	}
	return L, nil
}
