package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestLogScale: counts 1, 2, 1,500 on a log scale with a zero line: the bucket of one
// response stands a whole power of ten above the zero line (on the linear axis it was 1/1500
// of the plot: nothing), labels are powers of ten in the count format.
func TestLogScale(t *testing.T) {
	s := newLogScale([]float64{0, 1, 2, 1500}, true, countLabel)
	if s.lo != -1 || s.hi != 4 {
		t.Fatalf("lo, hi = %d, %d; want -1, 4", s.lo, s.hi)
	}
	for v, want := range map[float64]float64{0: 0, 1: 1, 10: 2, 1000: 4} {
		if got := s.value(v); got != want {
			t.Errorf("value(%g) = %g, want %g", v, got, want)
		}
	}
	for f, want := range map[float64]string{0: "0", 1: "1", 2: "10", 4: "1,000", 5: "10,000"} {
		if got := s.label(f); got != want {
			t.Errorf("label(%g) = %q, want %q", f, got, want)
		}
	}
	ms := newLogScale([]float64{42, 810}, false, msLabel)
	if ms.lo != 1 || ms.hi != 3 || ms.label(0) != "10 ms" || ms.label(2) != "1 s" {
		t.Errorf("ms scale: lo %d hi %d, labels %q %q", ms.lo, ms.hi, ms.label(0), ms.label(2))
	}
}

// TestHTMLChartsLogScale: probe's histogram and cut-off curve and advise's window chart say
// their value axis is logarithmic, where the tail a timeout comes from shows (issue 26 item 5).
func TestHTMLChartsLogScale(t *testing.T) {
	var probe, adv bytes.Buffer
	if err := ProbeHTML(&probe, probeFixture(), Options{}); err != nil {
		t.Fatal(err)
	}
	if err := AdviseHTML(&adv, adviseNginx(t), Options{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(probe.String(), "(log scale)</text>"); n != 2 {
		t.Errorf("probe: %d axes titled (log scale), want 2 (histogram, cut-off curve)", n)
	}
	if n := strings.Count(adv.String(), "(log scale)</text>"); n != 3 {
		t.Errorf("advise: %d axes titled (log scale), want 3 (histogram, cut-off curve, windows)", n)
	}
}
