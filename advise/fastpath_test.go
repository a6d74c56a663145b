package advise

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMalformedLineNumbersAcrossChunks: chunks count their lines from 1 and the ordered merge
// makes them the file's, so the malformed lines shown name the same lines on any number of
// workers, wherever the chunk boundaries fall.
func TestMalformedLineNumbersAcrossChunks(t *testing.T) {
	const records = 40000
	samples := lognormal(rand.New(rand.NewPCG(9, 9)), records, time.Millisecond)
	lines := strings.SplitAfter(strings.TrimSuffix(nginxTimed(samples), "\n"), "\n")
	bad := map[int]bool{3: true, 7001: true, 15000: true, 15001: true, 33333: true, 39999: true}
	var b strings.Builder
	for i, l := range lines {
		if bad[i+1] {
			b.WriteString("garbage\n")
			continue
		}
		if i+1 == 20000 {
			b.WriteString("\n") // a blank line still counts as a line
		}
		b.WriteString(l)
	}
	if b.Len() < 4*chunkSize {
		t.Fatalf("%d bytes: want several chunks", b.Len())
	}
	p := write(t, "bad.log", b.String())
	// Line 20000 was a blank line inserted before the 20000th record: the lines after it are
	// one further down.
	want := []string{p + ":3:", p + ":7001:", p + ":15000:", p + ":15001:", p + ":33334:"}
	for _, w := range []int{1, 2, 4} {
		r := run(t, Options{Files: []string{p}, Workers: w})
		if r.Source.Malformed != int64(len(bad)) || r.Source.Lines != records+1 {
			t.Fatalf("%d workers: %d malformed of %d lines, want %d of %d", w, r.Source.Malformed, r.Source.Lines, len(bad), records+1)
		}
		if len(r.Source.MalformedSample) != len(want) {
			t.Fatalf("%d workers: sample %q", w, r.Source.MalformedSample)
		}
		for i, s := range r.Source.MalformedSample {
			if !strings.HasPrefix(s, want[i]) {
				t.Errorf("%d workers: sample %d is %q, want %s…", w, i, s, want[i])
			}
		}
	}
}

// TestParseTimeLocal: the fast path reads what time.Parse reads, and leaves to it whatever it
// does not take.
func TestParseTimeLocal(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool // the fast path takes it
	}{
		{"01/May/2024:13:04:05 +0000", true},
		{"31/Dec/1999:23:59:59 -0800", true},
		{"29/Feb/2024:00:00:00 +0530", true},
		{"29/Feb/2023:00:00:00 +0000", false}, // no such day: time.Parse rejects it
		{"31/Apr/2024:00:00:00 +0000", false},
		{"00/May/2024:00:00:00 +0000", false},
		{"01/may/2024:00:00:00 +0000", false}, // time.Parse takes any case
		{"01/May/2024:24:00:00 +0000", false},
		{"01/May/2024:13:60:00 +0000", false},
		{"01/May/2024:13:04:05 +2400", false}, // time.Parse takes a 24-hour zone
		{"01/May/2024:13:04:05 0000", false},
		{"1/May/2024:13:04:05 +0000", false},
		{"01/May/2024:13:04:05.123 +0000", false},
		{"", false},
	} {
		got, ok := parseTimeLocal([]byte(c.in))
		if ok != c.ok {
			t.Errorf("%q: fast path %v, want %v", c.in, ok, c.ok)
		}
		want, err := time.Parse(timeLocalLayout, c.in)
		if ok && (err != nil || !got.Equal(want)) {
			t.Errorf("%q: %v, time.Parse says %v (%v)", c.in, got, want, err)
		}
		var tc timeCache
		got2, ok2 := tc.local([]byte(c.in))
		if ok2 != (err == nil) || (ok2 && !got2.Equal(want)) {
			t.Errorf("%q: cache gives %v %v, time.Parse %v %v", c.in, got2, ok2, want, err)
		}
	}
}

func FuzzParseTimeLocal(f *testing.F) {
	for _, s := range []string{"01/May/2024:13:04:05 +0000", "29/Feb/2024:00:00:00 +0530", "31/Apr/2024:00:00:00 -1200", "01/May/2024:13:04:05 +2400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := time.Parse(timeLocalLayout, s)
		if got, ok := parseTimeLocal([]byte(s)); ok && (err != nil || !got.Equal(want)) {
			t.Fatalf("%q: fast path %v, time.Parse %v (%v)", s, got, want, err)
		}
		var tc timeCache
		tc.local([]byte("01/May/2024:13:04:05 +0000"))
		got, ok := tc.local([]byte(s))
		if ok != (err == nil) || (ok && !got.Equal(want)) {
			t.Fatalf("%q: cache %v %v, time.Parse %v %v", s, got, ok, want, err)
		}
	})
}

// exactDuration is the decimal s × unit truncated toward zero, computed exactly (big.Rat),
// with parseDuration's 12-digit cut of the fraction; ok is false when s is not a plain
// decimal or the result overflows.
func exactDuration(s string, unit time.Duration) (time.Duration, bool) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(body, ".")
	if len(frac) > 12 {
		frac = frac[:12]
	}
	r, ok := new(big.Rat).SetString(whole + "." + frac + "0")
	if !ok || (whole == "" && frac == "") {
		return 0, false
	}
	r.Mul(r, new(big.Rat).SetInt64(int64(unit)))
	q := new(big.Int).Quo(r.Num(), r.Denom())
	if !q.IsInt64() {
		return 0, false
	}
	d := time.Duration(q.Int64())
	if neg {
		d = -d
	}
	return d, true
}

// TestParseDuration: decimals are read exactly (0.123 s is 123 ms), at every unit and up to
// the largest duration; exponents fall back to strconv; overflow is not a number.
func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		unit time.Duration
		want time.Duration
		ok   bool
	}{
		{"0.123", time.Second, 123 * time.Millisecond, true},
		{"0.001", time.Second, time.Millisecond, true},
		{"12", time.Millisecond, 12 * time.Millisecond, true},
		{"1.5", time.Microsecond, 1500, true},
		{"-1", time.Second, -time.Second, true},
		{"0.30000000000000004", time.Second, 300 * time.Millisecond, true},
		{"0.123456789012345", time.Second, 123456789, true},
		{"9223372036.854775807", time.Second, math.MaxInt64, true},
		{"9223372037", time.Second, 0, false},
		{"99999999999999999999", time.Nanosecond, 0, false},
		{"1e-3", time.Second, time.Millisecond, true},
		{"", time.Second, 0, false},
		{"-", time.Second, 0, false},
		{".", time.Second, 0, false},
		{"abc", time.Second, 0, false},
		{"NaN", time.Second, 0, false},
	} {
		got, ok := parseDuration([]byte(c.in), c.unit)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseDuration(%q, %v) = %v, %v; want %v, %v", c.in, c.unit, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0.123", "12", "-0.5", "1e3", "9223372036.854775807", "0.000000000001", "00.10"} {
		f.Add(s, uint8(0))
	}
	units := []time.Duration{time.Second, time.Millisecond, time.Microsecond, time.Nanosecond}
	f.Fuzz(func(t *testing.T, s string, u uint8) {
		unit := units[int(u)%len(units)]
		got, ok := parseDuration([]byte(s), unit)
		plain := s != "" && strings.Trim(strings.TrimPrefix(s, "-"), "0123456789.") == "" && strings.Count(s, ".") <= 1
		if want, wok := exactDuration(s, unit); plain && wok {
			if !ok || got != want {
				t.Fatalf("parseDuration(%q, %v) = %v, %v; exactly %v", s, unit, got, ok, want)
			}
			return
		}
		if plain {
			if ok {
				t.Fatalf("parseDuration(%q, %v) = %v: beyond a Duration, or no digits", s, unit, got)
			}
			return
		}
		// Anything else is strconv's: the same acceptance, the float's value.
		fv, err := strconv.ParseFloat(strings.TrimPrefix(s, "-"), 64)
		wantOK := err == nil && !math.IsNaN(fv) && !math.IsInf(fv, 0) && math.Abs(fv*float64(unit)) < math.MaxInt64
		if ok != wantOK {
			t.Fatalf("parseDuration(%q, %v) ok %v; strconv gives %v (%v)", s, unit, ok, fv, err)
		}
		if ok {
			want := time.Duration(fv * float64(unit))
			if strings.HasPrefix(s, "-") {
				want = -want
			}
			if got != want {
				t.Fatalf("parseDuration(%q, %v) = %v; strconv × unit is %v", s, unit, got, want)
			}
		}
	})
}
