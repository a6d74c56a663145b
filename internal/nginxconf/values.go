package nginxconf

import (
	"math"
	"time"
)

// ParseTime reads a time as nginx does (src/core/ngx_parse.c, ngx_parse_time): a number is
// seconds; units are ms, s, m, h, d, w (and M, y where seconds are meant), each at most once
// and largest first ("1h 30m", "1m30s", "500ms"). seconds is nginx's is_sec: true for a
// directive kept in seconds (fail_timeout), where ms is refused; false for the msec
// directives (proxy_read_timeout and its like), where M and y are.
func ParseTime(s string, seconds bool) (time.Duration, bool) {
	const (
		stStart = iota
		stYear
		stMonth
		stWeek
		stDay
		stHour
		stMin
		stSec
		stMsec
		stLast
	)
	step := stStart
	if !seconds {
		step = stMonth
	}
	const maxInt = math.MaxInt64
	var value, total int64
	valid := false
	for i := 0; i < len(s); {
		c := s[i]
		if c >= '0' && c <= '9' {
			if value > (maxInt-int64(c-'0'))/10 {
				return 0, false
			}
			value = value*10 + int64(c-'0')
			valid = true
			i++
			continue
		}
		i++
		var scale, limit int64
		switch c {
		case 'y':
			if step > stStart {
				return 0, false
			}
			step, scale = stYear, 60*60*24*365
		case 'M':
			if step >= stMonth {
				return 0, false
			}
			step, scale = stMonth, 60*60*24*30
		case 'w':
			if step >= stWeek {
				return 0, false
			}
			step, scale = stWeek, 60*60*24*7
		case 'd':
			if step >= stDay {
				return 0, false
			}
			step, scale = stDay, 60*60*24
		case 'h':
			if step >= stHour {
				return 0, false
			}
			step, scale = stHour, 60*60
		case 'm':
			if i < len(s) && s[i] == 's' {
				if seconds || step >= stMsec {
					return 0, false
				}
				i++
				step, scale = stMsec, 1
				break
			}
			if step >= stMin {
				return 0, false
			}
			step, scale = stMin, 60
		case 's':
			if step >= stSec {
				return 0, false
			}
			step, scale = stSec, 1
		case ' ':
			if step >= stSec {
				return 0, false
			}
			step, scale = stLast, 1
		default:
			return 0, false
		}
		if step != stMsec && !seconds {
			scale *= 1000
		}
		limit = maxInt / scale
		if value > limit {
			return 0, false
		}
		value *= scale
		if total > maxInt-value {
			return 0, false
		}
		total += value
		value = 0
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	if !valid {
		return 0, false
	}
	if !seconds {
		if value > maxInt/1000 {
			return 0, false
		}
		value *= 1000
	}
	if total > maxInt-value {
		return 0, false
	}
	total += value
	unit := time.Millisecond
	if seconds {
		unit = time.Second
	}
	if total > math.MaxInt64/int64(unit) {
		return 0, false
	}
	return time.Duration(total) * unit, true
}

// Atoi reads a whole number as nginx does (src/core/ngx_string.c, ngx_atoi): digits only, no
// sign.
func Atoi(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || n > (math.MaxInt32-int(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
