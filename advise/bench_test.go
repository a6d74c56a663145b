package advise

import (
	"context"
	"os"
	"testing"
)

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
