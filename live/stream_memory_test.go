package live

import (
	"bufio"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// heapAfterGC is the live heap after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// streamHeap reads one stream of n events with gap (scenario time) at speed from a fresh
// server, and returns the live heap after `from` events and after `to` events were read.
func streamHeap(t *testing.T, n int, gap time.Duration, speed float64, from, to int) (before, after uint64, took time.Duration) {
	t.Helper()
	s := startServer(t, streamScenario(time.Millisecond, gap, n), ServerOptions{Speed: speed})
	start := time.Now()
	resp, err := client(time.Hour).Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i := 0; ; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", i, err)
		}
		if !strings.HasPrefix(line, "data: {") {
			continue
		}
		i++
		switch i {
		case from:
			before = heapAfterGC()
		case to:
			return before, heapAfterGC(), time.Since(start)
		}
	}
}

// TestStreamMemoryFlat: a long stream holds no more memory at its end than near its start —
// the server keeps one event's bytes, not the stream. 40,000 events between the two
// readings would be about 750 KiB of event bytes kept; the bound is a third of that.
func TestStreamMemoryFlat(t *testing.T) {
	n := 50_000
	if raceEnabled {
		n = 10_000
	}
	from, to := n/10, n-n/10
	before, after, _ := streamHeap(t, n, time.Millisecond, 1e6, from, to) // 1 ns gaps: as fast as the writes go
	if grown := int64(after) - int64(before); grown > 256<<10 {
		t.Errorf("the heap grew by %d KiB between events %d and %d of one stream (%d → %d bytes)", grown>>10, from, to, before, after)
	}
}

// TestStreamMemoryTenMinutes measures the heap over a 10-minute stream at one event a
// second, at --speed 60 (10 s of real time), for issue 29's closing note:
//
//	PATIENCE_TIMING=1 go test ./live -run TestStreamMemoryTenMinutes -v
func TestStreamMemoryTenMinutes(t *testing.T) {
	if os.Getenv("PATIENCE_TIMING") == "" {
		t.Skip("set PATIENCE_TIMING=1 to run a 10-minute stream at --speed 60 (10 s)")
	}
	before, after, took := streamHeap(t, 600, time.Second, 60, 10, 600)
	t.Logf("600 events, 1 s apart (10 min of scenario time) at --speed 60: %s; live heap after event 10: %d KiB, after event 600: %d KiB",
		took.Round(time.Millisecond), before>>10, after>>10)
	if grown := int64(after) - int64(before); grown > 256<<10 {
		t.Errorf("the heap grew by %d KiB over the stream", grown>>10)
	}
}
