package probe_test

import (
	"context"
	"testing"

	"github.com/patience-dev/patience/probe"
	"github.com/patience-dev/patience/probe/probetest"
)

// BenchmarkClosedReuse measures the probe's cost per request (time and allocations, client
// and in-process loopback server together) on keep-alive connections: the hot path that
// bench/probe.sh compares with wrk.
func BenchmarkClosedReuse(b *testing.B) {
	s, err := probetest.Start(probetest.Fast())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	b.ResetTimer()
	r, err := probe.Run(context.Background(), probe.Config{URL: s.URL + "/", Concurrency: 8, Requests: int64(b.N), Conn: "reuse"})
	if err != nil {
		b.Fatal(err)
	}
	if r.Responses != int64(b.N) {
		b.Fatalf("%d responses of %d", r.Responses, b.N)
	}
}

// BenchmarkClosedReuseH2 is BenchmarkClosedReuse over h2c: 8 workers' streams on one
// connection (bench/probe-h2.sh's hot path).
func BenchmarkClosedReuseH2(b *testing.B) {
	s, err := probetest.StartH2C(probetest.Fast())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	b.ResetTimer()
	r, err := probe.Run(context.Background(), probe.Config{URL: s.URL + "/", Concurrency: 8, Requests: int64(b.N), Conn: "reuse", HTTP: "2"})
	if err != nil {
		b.Fatal(err)
	}
	if r.Responses != int64(b.N) {
		b.Fatalf("%d responses of %d", r.Responses, b.N)
	}
}
