package scenario

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/internal/timing"
	"github.com/patience-dev/patience/profile"
)

// TestProfileValuesPastDurationRange: a histogram holding values past 2^63 ns (≈292 years
// of µs) gave negative samples, which crashed the simulator (issue 17). Every quantile is
// now within [0, maxSample].
func TestProfileValuesPastDurationRange(t *testing.T) {
	h := hdrhistogram.New(1, math.MaxInt64/2, 3)
	for _, us := range []int64{1000, 1e13, 1e16, math.MaxInt64 / 4} {
		if err := h.RecordValue(us); err != nil {
			t.Fatal(err)
		}
	}
	d, err := ProfileDistribution(h, "far")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= 100; i++ {
		if v := d.Quantile(float64(i) / 100); v < 0 || v > maxSample {
			t.Fatalf("Quantile(%d%%) = %v, want within [0, %v]", i, v, maxSample)
		}
	}
	if m := d.Mean(); m < 0 || m > maxSample {
		t.Errorf("Mean = %v", m)
	}
}

// TestProfileFileHostile: a scenario's profile: naming a profile with such values, or a
// device, is an input error at the profile's line.
func TestProfileFileHostile(t *testing.T) {
	dir := t.TempDir()
	h := hdrhistogram.New(1, math.MaxInt64/2, 3)
	_ = h.RecordValue(math.MaxInt64 / 4)
	enc, err := profile.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "far.json"), []byte(`{"schema":"patience/probe/v1","histogram":"`+enc+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{"far.json": "longer than the 24 h a profile may hold"}
	if runtime.GOOS != "windows" {
		cases["/dev/zero"] = "not a regular file"
	}
	for prof, want := range cases {
		src := "duration: 1m\nload: {rate: 1/s}\ntarget:\n  latency: {profile: " + prof + "}\npolicy: {timeout: 1s}\n"
		_, err := Parse([]byte(src), filepath.Join(dir, "s.yaml"))
		e, ok := err.(*Error)
		if !ok || e.Line != 4 || !strings.Contains(err.Error(), want) {
			t.Errorf("profile %s: err %v, want an *Error at line 4 saying %q", prof, err, want)
		}
	}
}

// TestOpenDevZero: a scenario or policy file that never ends is refused at the cap instead
// of read until memory runs out (issue 17: `scenarios:` and --policy given /dev/zero).
func TestOpenDevZero(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero")
	}
	// The bound is on the CPU time of the reading thread (reading to the 1 MiB cap costs
	// milliseconds), not the wall clock, which a loaded machine stretches (issue 24 item 12).
	work, ok := timing.ThreadWork(func() {
		if _, err := Open("/dev/zero"); err == nil || err.Error() != "/dev/zero: larger than 1 MiB" {
			t.Errorf("Open: %v", err)
		}
		if _, err := ResolvePolicy("/dev/zero"); err == nil || !strings.HasPrefix(err.Error(), "/dev/zero: larger than 1 MiB") {
			t.Errorf("ResolvePolicy: %v", err)
		}
	})
	if ok && work > 5*time.Second {
		t.Errorf("took %s of CPU", work)
	}
}
