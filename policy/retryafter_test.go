package policy

import (
	"strconv"
	"testing"
	"time"
)

// wall is the arrival time of the response in these tests: Sunday 29 Nov 2026 20:00:00 UTC.
var wall = time.Date(2026, time.November, 29, 20, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		name   string
		v      string
		now    time.Time
		want   time.Duration
		wantOK bool
	}{
		// delay-seconds = 1*DIGIT
		{"seconds", "120", wall, 2 * time.Minute, true},
		{"zero", "0", wall, 0, true},
		{"leading zeros", "007", wall, 7 * time.Second, true},
		{"surrounding whitespace", " \t30 ", wall, 30 * time.Second, true},
		{"huge seconds clamp", "99999999999999999999999999", wall, MaxWait, true},
		{"just past int64 seconds", "9223372036854775808", wall, MaxWait, true},
		{"negative", "-5", wall, 0, false},
		{"plus sign", "+5", wall, 0, false},
		{"fraction", "1.5", wall, 0, false},
		{"unit", "5s", wall, 0, false},
		{"digits then space then digits", "1 2", wall, 0, false},
		{"empty", "", wall, 0, false},
		{"blank", "   ", wall, 0, false},
		{"word", "soon", wall, 0, false},
		// IMF-fixdate (RFC 9110 §5.6.7 preferred form)
		{"IMF-fixdate +30s", "Sun, 29 Nov 2026 20:00:30 GMT", wall, 30 * time.Second, true},
		{"IMF-fixdate +1h1m1s", "Sun, 29 Nov 2026 21:01:01 GMT", wall, time.Hour + time.Minute + time.Second, true},
		{"IMF-fixdate next day", "Mon, 30 Nov 2026 20:00:00 GMT", wall, 24 * time.Hour, true},
		{"IMF-fixdate now", "Sun, 29 Nov 2026 20:00:00 GMT", wall, 0, true},
		{"IMF-fixdate past → 0", "Sun, 06 Nov 1994 08:49:37 GMT", wall, 0, true},
		{"IMF-fixdate one second past → 0", "Sun, 29 Nov 2026 19:59:59 GMT", wall, 0, true},
		{"IMF-fixdate sub-second arrival", "Sun, 29 Nov 2026 20:00:10 GMT", wall.Add(250 * time.Millisecond), 9750 * time.Millisecond, true},
		{"IMF-fixdate far future clamps", "Fri, 31 Dec 9999 23:59:59 GMT", wall, MaxWait, true},
		{"IMF-fixdate with UTC zone", "Sun, 29 Nov 2026 20:00:30 UTC", wall, 0, false},
		{"IMF-fixdate no zone", "Sun, 29 Nov 2026 20:00:30", wall, 0, false},
		{"IMF-fixdate bad day", "Sun, 32 Nov 2026 20:00:30 GMT", wall, 0, false},
		{"IMF-fixdate bad hour", "Sun, 29 Nov 2026 25:00:30 GMT", wall, 0, false},
		// HTTP-date is case sensitive; reading it leniently (as Go's time.Parse does) harms no one.
		{"IMF-fixdate lower-case month accepted", "Sun, 29 nov 2026 20:00:30 GMT", wall, 30 * time.Second, true},
		// obsolete RFC 850 form, two-digit year
		{"RFC 850 +60s", "Sunday, 29-Nov-26 20:01:00 GMT", wall, time.Minute, true},
		{"RFC 850 1994 past → 0", "Sunday, 06-Nov-94 08:49:37 GMT", wall, 0, true},
		// "70" is 2070, not 1970: it is not more than 50 years after 2026.
		{"RFC 850 year 70 is 2070", "Sunday, 01-Jan-70 00:00:00 GMT", wall,
			time.Date(2070, 1, 1, 0, 0, 0, 0, time.UTC).Sub(wall), true},
		// "80" would be 2080, more than 50 years ahead: the most recent past 1980 → 0.
		{"RFC 850 year 80 is 1980", "Tuesday, 01-Jan-80 00:00:00 GMT", wall, 0, true},
		{"RFC 850 bad", "Sunday, 29-Nov-2026 20:01:00 GMT", wall, 0, false},
		// asctime
		{"asctime +5s", "Sun Nov 29 20:00:05 2026", wall, 5 * time.Second, true},
		{"asctime one-digit day", "Fri Nov  6 08:49:37 2026", time.Date(2026, 11, 6, 8, 49, 0, 0, time.UTC), 37 * time.Second, true},
		{"asctime past → 0", "Sun Nov  6 08:49:37 1994", wall, 0, true},
		{"asctime bad", "Sun Nov 29 20:00:05", wall, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseRetryAfter(tt.v, tt.now)
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestRetryAfterRFC850Century: the two-digit-year rule holds for any wallNow, across a century
// boundary too.
func TestRetryAfterRFC850Century(t *testing.T) {
	now := time.Date(2095, 6, 1, 0, 0, 0, 0, time.UTC)
	// "05" → 2105 (10 years ahead, allowed); "50" → 2150 is 55 years ahead → 2050 (past → 0).
	d, ok := ParseRetryAfter("Monday, 01-Jun-05 00:00:00 GMT", now)
	if want := time.Date(2105, 6, 1, 0, 0, 0, 0, time.UTC).Sub(now); !ok || d != want {
		t.Errorf("05 from 2095: %v %v, want %v", d, ok, want)
	}
	if d, ok := ParseRetryAfter("Wednesday, 01-Jun-50 00:00:00 GMT", now); !ok || d != 0 {
		t.Errorf("50 from 2095: %v %v, want 0 true", d, ok)
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{
		"120", "0", "", " 5 ", "-1", "1.5", "99999999999999999999999",
		"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
		"Sun, 29 Nov 2026 20:00:30 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Mon,", ",", "Sun Nov",
	} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, v string, offsetS int64) {
		now := wall.Add(time.Duration(offsetS%(1<<32)) * time.Second)
		d, ok := ParseRetryAfter(v, now)
		if !ok {
			if d != 0 {
				t.Fatalf("not ok but d = %v", d)
			}
			return
		}
		if d < 0 || d > MaxWait {
			t.Fatalf("ParseRetryAfter(%q) = %v out of [0, MaxWait]", v, d)
		}
		// A pure decimal must come back as that many seconds (clamped).
		if n, err := strconv.ParseUint(trimOWS(v), 10, 63); err == nil && trimOWS(v)[0] != '+' {
			want := MaxWait
			if n <= uint64(MaxWait/time.Second) {
				want = time.Duration(n) * time.Second
			}
			if d != want {
				t.Fatalf("ParseRetryAfter(%q) = %v, want %v", v, d, want)
			}
		}
	})
}

// TestParseRetryAfterAllocs: valid values and malformed values of the wrong shape do not
// allocate (the simulator meets them on every rate-limited attempt).
func TestParseRetryAfterAllocs(t *testing.T) {
	for _, v := range []string{"120", "Sun, 29 Nov 2026 20:00:30 GMT", "Sunday, 29-Nov-26 20:01:00 GMT", "Sun Nov 29 20:00:05 2026", "soon", "-1", "1.5", ""} {
		if a := testing.AllocsPerRun(100, func() { ParseRetryAfter(v, wall) }); a != 0 {
			t.Errorf("ParseRetryAfter(%q): %v allocs", v, a)
		}
	}
}

// TestRetryAfterRoundTrip formats now+k seconds in IMF-fixdate, the form servers send, and
// reads k back.
func TestRetryAfterRoundTrip(t *testing.T) {
	for _, k := range []int{0, 1, 59, 3600, 86400 * 400} {
		v := wall.Add(time.Duration(k) * time.Second).Format(imfFixdate)
		d, ok := ParseRetryAfter(v, wall)
		if !ok || d != time.Duration(k)*time.Second {
			t.Errorf("%q: %v %v, want %ds", v, d, ok, k)
		}
	}
}
