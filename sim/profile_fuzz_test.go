package sim

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/patience-dev/patience/profile"
	"github.com/patience-dev/patience/scenario"
)

// FuzzProfileSimulate: a latency profile of any values and counts goes through the loader
// (which refuses or accepts it), the profile distribution (clamped to the longest draw
// either way) and the simulator, without a panic and with rates within [0, 1] (issue 17: a
// profile with values past ≈292 years of µs drew negative latencies and crashed the run).
func FuzzProfileSimulate(f *testing.F) {
	pair := func(v, n uint64) []byte {
		b := binary.LittleEndian.AppendUint64(nil, v<<1)
		return binary.LittleEndian.AppendUint64(b, n<<1)
	}
	f.Add(pair(20_000, 100), uint16(500))
	f.Add(append(pair(1000, 5), pair(1<<61, 3)...), uint16(100))
	f.Add(append(pair(1, 1), pair(1e13, 1)...), uint16(0))
	f.Add(pair(3_600_000_000, 1e15), uint16(2000))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, timeoutMs uint16) {
		h := hdrhistogram.New(1, math.MaxInt64/2, 3)
		for len(data) >= 16 {
			v := int64(binary.LittleEndian.Uint64(data) >> 1)
			n := int64(binary.LittleEndian.Uint64(data[8:]) >> 1)
			data = data[16:]
			_ = h.RecordValues(max(v, 1), max(n, 1))
		}
		if h.TotalCount() == 0 {
			return
		}
		enc, err := profile.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(profile.Profile{Schema: profile.Schema, Histogram: enc})
		path := filepath.Join(dir, "p.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		timeout := time.Duration(timeoutMs%5000) * time.Millisecond
		src := "duration: 2s\ndrain: 5s\nload: {rate: 20/s}\ntarget:\n  latency: {profile: p.json}\npolicy: {timeout: " + timeout.String() + ", retry: {max_attempts: 2}}\n"
		if timeout == 0 {
			src = "duration: 2s\ndrain: 5s\nload: {rate: 20/s}\ntarget:\n  latency: {profile: p.json}\npolicy: {timeout: none}\n"
		}
		sc, err := scenario.Parse([]byte(src), filepath.Join(dir, "s.yaml"))
		if err != nil {
			// Refused by the loader: the distribution itself must still be sane, and so
			// must a run on it, for profiles built in memory.
			d, derr := scenario.ProfileDistribution(h, "fuzz")
			if derr != nil {
				return
			}
			sc, err = scenario.Parse([]byte("duration: 2s\ndrain: 5s\nload: {rate: 20/s}\ntarget:\n  latency: {fixed: 1ms}\npolicy: {timeout: 1s}\n"), "s.yaml")
			if err != nil {
				t.Fatal(err)
			}
			sc.Target.Latency = d
		}
		for q := 0.0; q <= 1; q += 0.125 {
			if v := sc.Target.Latency.Quantile(q); v < 0 {
				t.Fatalf("Quantile(%g) = %v", q, v)
			}
		}
		res, err := Run(context.Background(), sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Policies {
			if p.SuccessRate < 0 || p.SuccessRate > 1 || p.Requests < 0 {
				t.Fatalf("policy %s: success %g of %d requests", p.Name, p.SuccessRate, p.Requests)
			}
		}
	})
}
