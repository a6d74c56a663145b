package policy

import "time"

// HTTP-date layouts of RFC 9110 §5.6.7. A sender must use IMF-fixdate; a recipient must also
// accept the two obsolete forms.
const (
	imfFixdate  = "Mon, 02 Jan 2006 15:04:05 GMT"  // Sun, 06 Nov 1994 08:49:37 GMT
	rfc850Date  = "Monday, 02-Jan-06 15:04:05 GMT" // Sunday, 06-Nov-94 08:49:37 GMT
	asctimeDate = "Mon Jan _2 15:04:05 2006"       // Sun Nov  6 08:49:37 1994
)

// ParseRetryAfter parses a Retry-After value (RFC 9110 §10.2.3): delay-seconds (1*DIGIT) or an
// HTTP-date in any of the three forms of §5.6.7 (IMF-fixdate, obsolete RFC 850, asctime),
// surrounding whitespace allowed. wallNow is the wall-clock time the response arrived (the
// simulator passes a fixed epoch + virtual now); a date is turned into a delay relative to it,
// and a date in the past means 0. A two-digit RFC 850 year is read as the nearest year that is
// not more than 50 years after wallNow, as §5.6.7 requires. Huge values are clamped to MaxWait.
// Anything else — negative or fractional seconds, a date with a bad weekday name format, a zone
// other than GMT — is malformed: ok = false, and the caller falls back to its backoff.
func ParseRetryAfter(v string, wallNow time.Time) (time.Duration, bool) {
	v = trimOWS(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		return parseDelaySeconds(v)
	}
	var t time.Time
	var err error
	// Each form has a fixed length (RFC 850: 30–33 with the weekday spelled out); checking it
	// first keeps the common malformed values ("soon") away from time.Parse, whose errors
	// allocate — Call.Next stays allocation-free.
	switch {
	case len(v) == len(imfFixdate) && v[3] == ',':
		t, err = time.Parse(imfFixdate, v)
	case len(v) >= len("Monday, 02-Jan-06 15:04:05 GMT") && len(v) <= len("Wednesday, 02-Jan-06 15:04:05 GMT") && containsByte(v, ','):
		t, err = time.Parse(rfc850Date, v)
		if err == nil {
			t = fixTwoDigitYear(t, wallNow)
		}
	case len(v) == len(asctimeDate):
		t, err = time.Parse(asctimeDate, v)
	default:
		return 0, false
	}
	if err != nil {
		return 0, false
	}
	d := t.Sub(wallNow) // saturates at ±292 years rather than overflowing
	if d < 0 {
		return 0, true
	}
	return min(d, MaxWait), true
}

// parseDelaySeconds parses 1*DIGIT, clamping to MaxWait instead of overflowing.
func parseDelaySeconds(v string) (time.Duration, bool) {
	const maxSeconds = int64(MaxWait / time.Second)
	var n int64
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n <= maxSeconds { // keep consuming digits to validate, but stop growing
			n = n*10 + int64(c-'0')
		}
	}
	if n > maxSeconds {
		return MaxWait, true
	}
	return time.Duration(n) * time.Second, true
}

// fixTwoDigitYear applies RFC 9110 §5.6.7: a two-digit year that appears to be more than 50
// years in the future means the most recent past year with the same last two digits. Go's
// time.Parse maps 69–99 to 19xx and 00–68 to 20xx; re-anchor on wallNow's century first.
// (Go's time.Parse also accepts month and weekday names in any case; HTTP-date is case
// sensitive, but a lenient reading of a server's header harms no one.)
func fixTwoDigitYear(t, wallNow time.Time) time.Time {
	yy := t.Year() % 100
	year := wallNow.Year() - wallNow.Year()%100 + yy
	t = t.AddDate(year-t.Year(), 0, 0)
	// Pick the latest of {t−100y, t, t+100y} that is not more than 50 years after wallNow.
	limit := wallNow.AddDate(50, 0, 0)
	if up := t.AddDate(100, 0, 0); !up.After(limit) {
		return up
	}
	if t.After(limit) {
		t = t.AddDate(-100, 0, 0)
	}
	return t
}

func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}
