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
	step := stStart
	if !seconds {
		step = stMonth
	}
	var value, total int64
	valid := false
	for i := 0; i < len(s); {
		c := s[i]
		if c >= '0' && c <= '9' {
			if value > (math.MaxInt64-int64(c-'0'))/10 {
				return 0, false
			}
			value = value*10 + int64(c-'0')
			valid = true
			i++
			continue
		}
		i++
		u, ok := timeUnits[c]
		if c == 'm' && i < len(s) && s[i] == 's' {
			if seconds {
				return 0, false
			}
			u, i = timeUnit{step: stMsec, before: stMsec, scale: 1}, i+1
		}
		if !ok || step >= u.before {
			return 0, false
		}
		step = u.step
		scale := u.scale
		if step != stMsec && !seconds {
			scale *= 1000
		}
		if value > math.MaxInt64/scale || total > math.MaxInt64-value*scale {
			return 0, false
		}
		total += value * scale
		value = 0
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	if !valid {
		return 0, false
	}
	if !seconds {
		if value > math.MaxInt64/1000 {
			return 0, false
		}
		value *= 1000
	}
	if total > math.MaxInt64-value {
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

// The steps of ngx_parse_time, largest unit first: a unit may follow only larger ones.
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

// timeUnit is one unit letter of ngx_parse_time: the step it moves to, the step it must come
// before (a space, which ends the number, must come before seconds) and its seconds.
type timeUnit struct {
	step, before int
	scale        int64
}

// timeUnits are ngx_parse_time's units ("ms" is read where 'm' is followed by 's').
var timeUnits = map[byte]timeUnit{
	'y': {stYear, stYear, 60 * 60 * 24 * 365},
	'M': {stMonth, stMonth, 60 * 60 * 24 * 30},
	'w': {stWeek, stWeek, 60 * 60 * 24 * 7},
	'd': {stDay, stDay, 60 * 60 * 24},
	'h': {stHour, stHour, 60 * 60},
	'm': {stMin, stMin, 60},
	's': {stSec, stSec, 1},
	' ': {stLast, stSec, 1},
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
