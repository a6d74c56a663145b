package advise

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// benchTimedLog is an in-memory nginx "timed" log shaped like the one bench/advise.sh
// generates (the same line layout, lognormal urt, ~165 bytes a line).
func benchTimedLog(lines int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.Grow(lines * 170)
	for n := range lines {
		v := math.Exp(math.Log(0.080) + 0.6919*rng.NormFloat64())
		v = max(v, 0.001)
		fmt.Fprintf(&b, `10.0.%d.%d - - [01/May/2024:%02d:%02d:%02d +0000] "GET /users/%d HTTP/1.1" 200 %d "-" "Mozilla/5.0 (X11; Linux x86_64)" rt=%.3f uct="0.001" uht="%.3f" urt="%.3f"`+"\n",
			n%256, n%199, n/72000%24, n/1200%60, n/20%60, n%99999, 100+n%9000, v+0.001, v*0.9, v)
	}
	return b.Bytes()
}

// benchNginxTimed reads log through Run (the whole path: chunking, workers, parsing, the
// ordered merge, the result) and reports lines/s, MB/s, allocations per line and CPU time
// (user+sys, every thread) per line.
func benchNginxTimed(b *testing.B, log []byte, lines int, o Options) {
	o.Files = []string{"-"}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	var allocs float64
	cpu0 := cpuTime()
	for b.Loop() {
		o.Stdin = bytes.NewReader(log)
		res, err := Run(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if res.Source.Lines != int64(lines) {
			b.Fatalf("read %d lines, want %d", res.Source.Lines, lines)
		}
	}
	cpu := cpuTime() - cpu0
	allocs = float64(testing.AllocsPerRun(1, func() {
		o.Stdin = bytes.NewReader(log)
		if _, err := Run(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}))
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(allocs/float64(lines), "allocs/line")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(lines)/float64(b.N), "cpu-ns/line")
}

// BenchmarkNginxTimed is the issue-15 throughput target without the 1 GB file: 200,000
// lines (33 MB) of the timed log_format, --by none, on GOMAXPROCS workers.
// go test ./advise -run '^$' -bench NginxTimed -benchtime 5x
func BenchmarkNginxTimed(b *testing.B) {
	const lines = 200_000
	log := benchTimedLog(lines)
	b.Run("by=none", func(b *testing.B) { benchNginxTimed(b, log, lines, Options{}) })
	b.Run("by=route", func(b *testing.B) { benchNginxTimed(b, log, lines, Options{By: ByRoute}) })
	b.Run("workers=1", func(b *testing.B) { benchNginxTimed(b, log, lines, Options{Workers: 1}) })
}

// BenchmarkFile reads the log named by ADVISE_BENCH_FILE (bench/advise.sh generates one).
func BenchmarkFile(b *testing.B) {
	p := os.Getenv("ADVISE_BENCH_FILE")
	if p == "" {
		b.Skip("ADVISE_BENCH_FILE not set")
	}
	for b.Loop() {
		if _, err := Run(context.Background(), Options{Files: []string{p}}); err != nil {
			b.Fatal(err)
		}
	}
}
