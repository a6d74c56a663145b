package advise

import (
	"math"
	"strings"
	"testing"
	"time"
)

// Tests of the small stages the long readers are made of (issue 25): each decides one thing.

func TestCSVTime(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"", time.Time{}, false},
		{"1714567890", time.Unix(1714567890, 0), true},
		{"1714567890123", time.UnixMilli(1714567890123), true},
		{"1714567890123456789", time.Unix(0, 1714567890123456789), true},
		{"2024-05-01T13:00:00Z", time.Date(2024, 5, 1, 13, 0, 0, 0, time.UTC), true},
		{"soon", time.Time{}, false},
	} {
		got, ok := csvTime(c.in)
		if ok != c.ok || !got.Equal(c.want) {
			t.Errorf("csvTime(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestCSVColumnUnit(t *testing.T) {
	for _, c := range []struct {
		in, base string
		unit     time.Duration
	}{
		{"duration_ms", "duration", time.Millisecond},
		{"latency_us", "latency", time.Microsecond},
		{"response_time_s", "response_time", time.Second},
		{"elapsed", "elapsed", 0},
	} {
		if base, u := csvColumnUnit(c.in); base != c.base || u != c.unit {
			t.Errorf("csvColumnUnit(%q) = %q, %v; want %q, %v", c.in, base, u, c.base, c.unit)
		}
	}
}

func TestTimeLocalParts(t *testing.T) {
	for _, c := range []struct {
		zone string
		off  int
		ok   bool
	}{
		{"+0000", 0, true}, {"+0130", 5400, true}, {"-0500", -18000, true},
		{"+2400", 0, false}, {"+0060", 0, false}, {"x0000", 0, false}, {"+0a00", 0, false},
	} {
		if off, ok := timeLocalZone([]byte(c.zone)); off != c.off || ok != c.ok {
			t.Errorf("timeLocalZone(%q) = %d, %v; want %d, %v", c.zone, off, ok, c.off, c.ok)
		}
	}
	for _, c := range []struct {
		y, m, d int
		ok      bool
	}{
		{2024, 2, 29, true}, {2023, 2, 29, false}, {2024, 4, 31, false}, {2024, 1, 0, false},
		{2024, 12, 31, true}, {-1, 1, 1, false},
	} {
		if ok := validDate(c.y, c.m, c.d); ok != c.ok {
			t.Errorf("validDate(%d, %d, %d) = %v, want %v", c.y, c.m, c.d, ok, c.ok)
		}
	}
	if shortMonth([]byte("May")) != 5 || shortMonth([]byte("may")) != 0 || decDigits([]byte("2024")) != 2024 || decDigits([]byte("2O24")) != -1 {
		t.Error("shortMonth or decDigits")
	}
}

func TestNginxAttemptTime(t *testing.T) {
	list := [][]byte{[]byte("0.5"), []byte("-"), []byte("x"), []byte("-1")}
	for _, c := range []struct {
		i    int
		want time.Duration
		ok   bool
	}{
		{0, 500 * time.Millisecond, true}, {1, 0, false}, {2, 0, false}, {3, 0, false}, {4, 0, false},
	} {
		d, ok := nginxAttemptTime(list, c.i)
		if ok != c.ok || (ok && d != c.want) {
			t.Errorf("attempt %d: %v, %v; want %v, %v", c.i, d, ok, c.want, c.ok)
		}
	}
}

func TestCutLine(t *testing.T) {
	for _, c := range []struct{ in, line, rest string }{
		{"a\r\nb", "a", "b"},
		{"a\nb\n", "a", "b\n"},
		{"last", "last", ""},
		{"\n", "", ""},
	} {
		l, r := cutLine([]byte(c.in))
		if string(l) != c.line || string(r) != c.rest {
			t.Errorf("cutLine(%q) = %q, %q; want %q, %q", c.in, l, r, c.line, c.rest)
		}
	}
}

func TestPromWindow(t *testing.T) {
	inf := math.Inf(1)
	last := &promSeries{family: "x", labels: `{a="b"}`, le: map[float64]float64{1: 5, inf: 9}}
	c, err := promWindow(last, nil)
	if err != nil || c[1] != 5 || c[inf] != 9 {
		t.Fatalf("lifetime: %v %v", c, err)
	}
	c, err = promWindow(last, &promSeries{le: map[float64]float64{1: 2, inf: 3}})
	if err != nil || c[1] != 3 || c[inf] != 6 {
		t.Fatalf("window: %v %v", c, err)
	}
	if _, err = promWindow(last, &promSeries{le: map[float64]float64{1: 7}}); err == nil || !strings.Contains(err.Error(), "went down") {
		t.Fatalf("a restart: %v", err)
	}
}

func TestPromChoicePools(t *testing.T) {
	a := &promFam{PromFamily: PromFamily{Name: "gc_duration_seconds", Observations: 90}}
	b := &promFam{PromFamily: PromFamily{Name: "http_request_duration_seconds", Observations: 10}}
	c := &promFam{PromFamily: PromFamily{Name: "rpc_duration_seconds", Observations: 10}}
	if got := promMostObserved(promRequestPool([]*promFam{a, b, c})); got != b {
		t.Errorf("request-like first, the first on a tie: got %s", got.Name)
	}
	if got := promMostObserved(promRequestPool([]*promFam{a})); got != a {
		t.Errorf("no request-like family: got %s", got.Name)
	}
}

func TestJSONHas(t *testing.T) {
	doc := []byte(`{"traceId":"1","id":"2","duration":3}`)
	for _, c := range []struct {
		all, anyOf bool
		keys       []string
	}{
		{true, true, []string{"traceId", "id"}},
		{false, true, []string{"timestamp", "duration"}},
		{false, false, []string{"timestamp"}},
		{true, false, nil},
	} {
		if all, anyOf := jsonHasAll(doc, c.keys...), jsonHasAny(doc, c.keys...); all != c.all || anyOf != c.anyOf {
			t.Errorf("%v: all %v any %v; want %v %v", c.keys, all, anyOf, c.all, c.anyOf)
		}
	}
}

func TestCountSegChars(t *testing.T) {
	for _, c := range []struct {
		in   string
		want segChars
	}{
		{"42", segChars{digits: 2, hex: 2}},
		{"beef", segChars{letters: 4, hex: 4}},
		{"v1.2", segChars{digits: 2, letters: 1, hex: 2, other: 1}},
		{"é", segChars{other: 1}},
	} {
		if got := countSegChars(c.in); got != c.want {
			t.Errorf("countSegChars(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}
